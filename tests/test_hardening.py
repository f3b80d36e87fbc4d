"""Issue 27, points 3-6: each traceback, hang and silently wrong result of the hostile-input
review, as a case with its one-line refusal or its right answer (docs/hardening.md lists
them with these tests)."""

import http.server
import json
import socket
import threading
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from shortclust.cli import app
from shortclust.config import load_config
from shortclust.data.io import read_documents
from shortclust.errors import ConfigError, DataError, ShortclustError
from tests.pipeline.fake_estimators import TEXTS, write_corpus


def one_line(error) -> str:
    message = str(error)
    assert message and "\n" not in message
    return message


# --- reading files ------------------------------------------------------------------------------

@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_lf_crlf_and_cr_alone_all_end_lines(tmp_path, ending):
    for suffix, lines in ((".txt", ["one doc", "two doc", "three"]),
                          (".jsonl", [json.dumps({"text": t}) for t in ("a", "b", "c")]),
                          (".csv", ["text,label", "a b,x", "c,y", "d,z"])):
        path = tmp_path / f"docs{suffix}"
        path.write_bytes(ending.join(lines).encode() + ending.encode())
        assert len(read_documents(path).texts) == 3, (suffix, ending)


@pytest.mark.parametrize("separator", [";", "\t", "|"])
def test_a_csv_separated_otherwise_than_by_commas_is_read(tmp_path, separator):
    path = tmp_path / "docs.csv"
    path.write_text(separator.join(["id", "text", "label"]) + "\n"
                    + separator.join(["1", "apple pie", "fruit"]) + "\n")
    documents = read_documents(path)
    assert documents.texts == ["apple pie"] and documents.labels == ["fruit"]


def test_a_valid_csv_field_longer_than_128_kb_is_read(tmp_path):
    path = tmp_path / "docs.csv"
    long = "word " * 40_000
    path.write_text(f'text,label\n"{long}",x\n')
    assert read_documents(path).texts == [long]


def test_deeply_nested_json_in_a_line_is_one_line(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(DataError) as refused:
        read_documents(path)
    assert "nested too deeply" in one_line(refused.value)


@pytest.mark.parametrize("time, fragment", [
    (2**70, "out of range"), (-(2**63), "out of range"),
    ("0001-01-01T00:00:00+14:00", "out of range in UTC"),
])
def test_times_beyond_int64_arithmetic_are_refused(tmp_path, time, fragment):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"text": "a", "time": time}) + "\n")
    with pytest.raises(DataError) as refused:
        read_documents(path)
    assert fragment in one_line(refused.value)


def test_integer_times_at_the_limits_batch_without_overflow(tmp_path):
    from shortclust.data.io import MAX_TIME
    from shortclust.pipeline.batches import MAX_WINDOW

    times = np.array([-MAX_TIME, 0, MAX_TIME], dtype=np.int64)
    values = times - times[0]  # what batching computes: no wrap-around
    assert (values >= 0).all() and values[-1] == 2 * MAX_TIME
    assert int(times[0]) + (int(values[-1] // MAX_WINDOW) + 1) * MAX_WINDOW > MAX_TIME


def test_ids_with_a_newline_stay_on_one_line_in_clusters_md():
    from shortclust.apps.cluster import _md

    assert "\n" not in _md("first line\nsecond line\r\nthird")


def test_cells_a_spreadsheet_would_run_are_quoted():
    from shortclust.apps.assignments import safe_cell

    for cell in ("=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx"):
        assert safe_cell(cell) == "'" + cell
    assert safe_cell("'=1") == "'=1" and safe_cell("plain") == "plain" and safe_cell(3) == 3


# --- configs and options ---------------------------------------------------------------------------

def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path):
    config = tmp_path / "bomb.yaml"
    layers = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]"
        for i in range(8)]
    config.write_text("name: bomb\ndataset: x.jsonl\nmodel:\n  name: gsdmm\n  params:\n"
                      + "".join(f"    {layer}\n" for layer in layers))
    started = time.monotonic()
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert time.monotonic() - started < 5
    assert "alias *a is not accepted" in one_line(refused.value)


def test_a_yaml_alias_in_set_is_refused(tmp_path):
    from shortclust._overrides import parse_override

    with pytest.raises(ConfigError) as refused:
        parse_override("alpha=[&a [1], *a, *a]")
    assert "alias" in one_line(refused.value)


def test_a_huge_value_is_named_without_being_formatted_whole():
    from shortclust.errors import short_repr

    assert short_repr(list(range(10**6))) == "a list of 1000000 items"
    assert len(short_repr("x" * 10**6)) == 80


@pytest.mark.parametrize("runs", [10**8, 10**23])
def test_too_many_runs_are_refused(tmp_path, runs):
    corpus = write_corpus(tmp_path / "docs.jsonl")
    config = tmp_path / "c.yaml"
    config.write_text(f"name: c\ndataset: {corpus}\nmodel: {{name: kmeans}}\nruns: {runs}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert "less than or equal to 100000" in one_line(refused.value)


@pytest.mark.parametrize("window", [10**20, "9" * 400 + "d"])
def test_a_time_window_beyond_int64_is_refused(window):
    from shortclust.pipeline.batches import _time_spec

    with pytest.raises(ConfigError) as refused:
        _time_spec({"batch_by": "time", "window": window}, "stream")
    assert "longer than" in one_line(refused.value)


@pytest.mark.parametrize("args, fragment", [
    (["-k", "3", "--set", "n_clusters=4"], "--set n_clusters=...: `cluster` takes this as "
                                           "an option: use --n-clusters K (or -k K)"),
    (["--set", "model.name=kmeans"], "use --model NAME instead"),
    (["--model", "gsdpmm", "-k", "5"], "model 'gsdpmm' chooses its own number of clusters"),
])
def test_cluster_options_that_disagree_are_refused_naming_what_was_typed(tmp_path, args,
                                                                         fragment):
    corpus = write_corpus(tmp_path / "docs.jsonl")
    result = CliRunner().invoke(app, ["cluster", str(corpus), *args, "--quiet"])
    assert result.exit_code == 2 and fragment in result.stderr, result.stderr
    assert "--set 'n_clusters=5'" not in result.stderr


def test_single_class_labels_give_null_metrics_in_run_records(tmp_path, monkeypatch):
    from tests.pipeline.fake_estimators import register_fake_model, write_config

    register_fake_model(monkeypatch)
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": "one"}) + "\n" for t in TEXTS))
    config = write_config(tmp_path / "fake.yaml", path, tmp_path / "out")
    result = CliRunner().invoke(app, ["run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "out" / "records.jsonl").read_text().splitlines()[0])
    assert record["metrics"]["nmi"] is None and record["metrics"]["purity"] == 1.0


def test_a_long_id_is_read_back_from_the_runs_own_assignments(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": t, "id": str(i) * 140_000}) + "\n"
                            for i, t in enumerate(TEXTS)))
    result = CliRunner().invoke(app, ["cluster", str(path), "--model", "kmeans", "-k", "3",
                                      "--output", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "assignments.csv").is_file()


# --- resuming from damaged files ---------------------------------------------------------------------

@pytest.fixture
def finished_run(tmp_path, monkeypatch):
    from tests.pipeline.fake_estimators import register_fake_model, write_config

    register_fake_model(monkeypatch)
    corpus = write_corpus(tmp_path / "docs.jsonl")
    output = tmp_path / "out"
    config = write_config(tmp_path / "fake.yaml", corpus, output)
    result = CliRunner().invoke(app, ["run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    return config, output


@pytest.mark.parametrize("damage", ["xyz", "truncated", "metrics"])
def test_damaged_labels_or_records_under_resume_are_one_line(finished_run, damage):
    config, output = finished_run
    records = output / "records.jsonl"
    record = json.loads(records.read_text().splitlines()[0])
    labels = output / "labels" / f"{record['run_id']}.txt"
    if damage == "xyz":
        labels.write_text("xyz\n")
    elif damage == "truncated":
        labels.write_text("".join(labels.read_text().splitlines(keepends=True)[:3]))
    else:
        records.write_text(json.dumps({**record, "metrics": "oops"}) + "\n")
    if damage != "metrics":  # make resume recompute the metrics from the labels file
        records.write_text(json.dumps({**record, "metrics": {}}) + "\n")
    result = CliRunner().invoke(app, ["run", str(config), "--resume", "--quiet"])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


# --- --cluster: fail within 5 s on anything but a scheduler -------------------------------------

@pytest.mark.parametrize("server", ["silent", "http"])
def test_cluster_at_something_that_is_not_a_scheduler_fails_within_5_seconds(server):
    pytest.importorskip("distributed")
    from shortclust.pipeline.executors import check_cluster

    if server == "silent":
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
    else:
        listener = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
        threading.Thread(target=listener.serve_forever, daemon=True).start()
        port = listener.server_port
    started = time.monotonic()
    with pytest.raises(ShortclustError) as refused:
        check_cluster(f"tcp://127.0.0.1:{port}")
    assert time.monotonic() - started < 8  # 5 s and the machine's load
    assert "not a Dask scheduler" in one_line(refused.value)
    if server == "http":
        listener.shutdown()
    listener.close() if server == "silent" else listener.server_close()


def _silent_listener():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    return listener, listener.getsockname()[1]


@pytest.mark.parametrize("command", [["run", "configs/dct_mstream_news_t.yaml"],
                                     ["reproduce", "dct", "--only", "perplexity"]])
def test_the_whole_command_fails_within_5_seconds_before_any_heavy_import(command, tmp_path):
    """The probe runs before the pipeline is imported: the whole command, start-up
    included, is refused within 5 s (the slow part used to be the imports before it)."""
    import subprocess
    import sys

    pytest.importorskip("distributed")
    listener, port = _silent_listener()
    script = ("import sys\n"
              "from shortclust.cli import main\n"
              "try:\n    main()\n"
              "finally:\n"
              "    heavy = [m for m in ('numpy', 'pandas', 'distributed', 'numba') "
              "if m in sys.modules]\n"
              "    print('heavy imported:', heavy, file=sys.stderr)\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script, *command, "--cluster",
                           f"tcp://127.0.0.1:{port}", "--work-dir" if "reproduce" in command
                           else "--output", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60)
    seconds = time.monotonic() - started
    listener.close()
    assert done.returncode == 2, done.stderr
    assert "not a Dask scheduler" in done.stderr and "heavy imported: []" in done.stderr
    assert seconds < 7  # 5 s, and a loaded machine's start-up over the probe's 1 s minimum


def test_the_probe_waits_what_is_left_of_5_seconds_and_at_least_1(monkeypatch):
    pytest.importorskip("distributed")
    from shortclust.pipeline import cluster_probe

    listener, port = _silent_listener()
    monkeypatch.setattr(cluster_probe, "process_age", lambda: 30.0)  # a very slow start-up
    started = time.monotonic()
    with pytest.raises(ShortclustError, match=r"did not greet within 1\.0 s"):
        cluster_probe.check_cluster(f"tcp://127.0.0.1:{port}")
    assert time.monotonic() - started < 3
    listener.close()
    assert 0 < cluster_probe.process_age() < 24 * 3600


def test_cluster_at_a_scheduler_without_workers_fails_within_5_seconds():
    pytest.importorskip("distributed")
    import logging

    from distributed import LocalCluster

    from shortclust.pipeline.executors import connect_cluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR) as empty:
        started = time.monotonic()
        with pytest.raises(ShortclustError) as refused:
            connect_cluster(empty.scheduler_address, 1)
        assert time.monotonic() - started < 10
    assert "has no worker" in one_line(refused.value)


def test_cluster_writes_no_cell_a_spreadsheet_would_run_as_a_formula(tmp_path):
    import csv

    from typer.testing import CliRunner

    from shortclust.cli import app

    words = ["goal match team", "pizza pasta cheese", "phone laptop chip"]
    texts = [f"=HYPERLINK(x) {words[i % 3]} {i % 5}" for i in range(30)]
    source = tmp_path / "texts.csv"
    with open(source, "w", newline="") as handle:
        csv.writer(handle).writerows([["id", "text"]] + [[f"+{i}", t] for i, t in enumerate(texts)])
    result = CliRunner().invoke(app, ["cluster", str(source), "-k", "3", "--quiet",
                                      "--no-report", "--preprocess", "none",
                                      "--output", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    for name in ("assignments.csv", "clusters.csv"):
        with open(tmp_path / "out" / name, newline="") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        assert any(cell.startswith("'=") or cell.startswith("'+") for cell in cells), name
        assert not [c for c in cells if c.startswith(("=", "+", "@"))], name
