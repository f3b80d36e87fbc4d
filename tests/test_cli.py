"""The shortclust command line: exit codes, one-line errors, and a full run with a fake model."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.pipeline.fake_estimators import TEXTS, register_fake_model, write_config, write_corpus
from shortclust.cli import app
from shortclust.data import list_datasets
from shortclust.errors import DataError
from shortclust.pipeline.records import RECORD_KEYS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake_model(monkeypatch):
    return register_fake_model(monkeypatch)


@pytest.fixture
def output_dir(tmp_path):
    return tmp_path / "out"


@pytest.fixture
def config_path(tmp_path, output_dir, fake_model):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    return write_config(tmp_path / "fake.yaml", corpus, output_dir)


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def read_records(output_dir):
    return [json.loads(line) for line in (output_dir / "records.jsonl").read_text().splitlines()]


def assert_one_error_line(result, match=""):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert match in lines[0]
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def run_module(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "shortclust", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=120)


# --- the process: entry point, start-up cost, errors without traceback ------------------------


def test_python_dash_m_help_lists_the_commands(tmp_path):
    done = run_module("--help", cwd=tmp_path)
    assert done.returncode == 0
    for command in ("run", "data", "models"):
        assert command in done.stdout


def test_importing_the_cli_loads_no_heavy_module():
    code = ("import sys, shortclust.cli; heavy = [m for m in ('numba', 'pandas', 'sklearn', "
            "'scipy', 'shortclust.models.dmm.gsdmm') if m in sys.modules]; print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_gsdmm_run_imports_neither_scikit_learn_nor_pandas(tmp_path):
    # `make run` is 20 GSDMM fits of a second in all; importing scikit-learn (scipy.stats)
    # or pandas would cost more CPU than the fits, and the optional extras (plots,
    # embeddings, nearest neighbours, Dask) seconds more. The whole command, in a fresh process:
    # reading, fitting, metrics (AMI and ACC included), records, run files, summary.
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    config = tmp_path / "gsdmm.yaml"
    config.write_text(f"name: light\ndataset: {corpus}\npreprocess: none\nmodel:\n"
                      "  name: gsdmm\n  params: {n_clusters: 4, max_iter: 3}\nruns: 2\n")
    code = ("import gc, sys\nfrom shortclust.cli import main\ntry:\n    main()\n"
            "except SystemExit as exit:\n    assert not exit.code, exit.code\n"
            "print('collector on:', gc.isenabled())\n"  # paused for start-up only
            "print('heavy:', [m for m in ('sklearn', 'pandas', 'scipy.optimize', 'joblib', "
            "'scipy.stats', 'matplotlib', 'plotly', 'torch', 'sentence_transformers', "
            "'pynndescent', 'hnswlib', 'distributed') if m in sys.modules])")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code, "run", str(config), "--output",
                           str(tmp_path / "out")], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["collector on: True", "heavy: []"], \
        done.stdout + done.stderr
    header = (tmp_path / "out" / "summary.md").read_text().splitlines()[0]
    assert "| ami |" in header and "| acc |" in header  # computed, without them


def test_missing_config_in_a_real_process(tmp_path):
    done = run_module("run", "nope.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["error: nope.yaml: config file not found (check the path)"]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_shortclust_errors_in_a_real_process_exit_2(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\ndataset: Tweet\nmodel: {name: gsdmm, params: {alpha: -1}}\n")
    done = run_module("run", config, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "alpha" in lines[0]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_warnings_in_a_real_process_are_one_line_each(tmp_path, jobs):
    texts = ["apple banana cherry", "banana cherry apple", "dog cat mouse", "cat mouse dog",
             "apple cherry", "mouse dog"]
    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps({"text": t, "label": i // 3}) + "\n"
                            for i, t in enumerate(texts)))
    config = tmp_path / "ic.yaml"
    # One SAG epoch with tol = 0 cannot meet the stopping rule: a ConvergenceWarning.
    config.write_text(
        f"name: warn\ndataset: {data}\npreprocess: none\n"
        "model: {name: iterative_classification, params: {n_clusters: 2, initial: kmeans, "
        "max_iter: 2, tol: null, classifier_params: {max_iter: 1, tol: 0}}}\n"
    )
    done = run_module("run", config, "--quiet", "--runs", "2", "--jobs", jobs, "--output",
                      tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()  # with --jobs 2 the workers warn
    assert lines and all(line.startswith("warning: ") for line in lines), done.stderr
    assert "did not converge in 1 epochs" in lines[0]


# --- bad input: exit 2, one error line, nothing written ----------------------------------------


@pytest.mark.parametrize("args, match", [
    (["--set", "alpha"], "expected key=value"),
    (["--set", "alpah=0.1"], "'alpah' is neither"),
    (["--set", "alpha=-1"], "alpha must be a finite number >= 0"),
    (["--set", "model.name=nope"], "unknown model 'nope'"),
    (["--set", "model.params.n_clusterz=3"], "unknown parameter 'n_clusterz'"),
    (["--set", "dataset=no-such-dataset"], "unknown dataset 'no-such-dataset'"),
    (["--set", "dataset=missing.jsonl"], "missing.jsonl"),
    (["--set", "metrics=[nmi, f1]"], "unknown metric 'f1'"),
    (["--set", "modle.name=fake"], "unknown key 'modle'"),
    (["--set", "seeds=[-1]"], "'seeds.0'"),
])
def test_bad_input_writes_nothing(config_path, output_dir, args, match):
    assert_one_error_line(invoke("run", config_path, *args), match)
    assert not output_dir.exists()


def test_output_that_cannot_be_created_is_one_error_line(config_path, fake_model):
    result = invoke("run", config_path, "--output", config_path / "out")
    assert_one_error_line(result, "cannot create it")
    assert fake_model.fit_calls == 0


def test_multi_line_error_message_is_printed_on_one_line(monkeypatch):
    import shortclust.models

    def fail():
        raise DataError("first line\n  second line")

    monkeypatch.setattr(shortclust.models, "model_names", fail)
    assert_one_error_line(invoke("models"), "error: first line second line")


@pytest.mark.parametrize("text, match", [
    ("name: x\ndataset: [Tweet\n", "malformed YAML at line"),
    ("name: x\ndataset: Tweet\nmodle: {name: fake}\n", "unknown key 'modle'"),
    ("- just\n- a list\n", "top level must be a mapping"),
])
def test_bad_config_file(tmp_path, fake_model, text, match):
    config = tmp_path / "bad.yaml"
    config.write_text(text)
    assert_one_error_line(invoke("run", config), match)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


def test_usage_error_exits_2(config_path, output_dir):
    result = invoke("run", config_path, "--runs", "0")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert not output_dir.exists()


# --- a full run with the fake model ----------------------------------------------------------


def test_full_run_writes_records_labels_and_summary(config_path, output_dir):
    result = invoke("run", config_path)
    assert result.exit_code == 0, result.output
    records = read_records(output_dir)
    assert len(records) == 3
    for record in records:
        assert set(RECORD_KEYS) <= set(record)
        labels = (output_dir / "labels" / f"{record['run_id']}.txt").read_text().splitlines()
        assert len(labels) == len(TEXTS)
    assert (output_dir / "summary.csv").is_file()
    assert "± " in (output_dir / "summary.md").read_text()
    assert "nmi" in result.stdout and "3 runs" in result.stdout


def test_runs_and_output_options(config_path, tmp_path):
    other = tmp_path / "elsewhere"
    result = invoke("run", config_path, "--runs", 2, "--output", other)
    assert result.exit_code == 0, result.output
    assert [r["seed"] for r in read_records(other)] == [0, 1]


def test_same_seed_same_labels_across_invocations(config_path, tmp_path):
    for name in ("a", "b"):
        assert invoke("run", config_path, "--output", tmp_path / name).exit_code == 0
    first, second = read_records(tmp_path / "a"), read_records(tmp_path / "b")
    for a, b in zip(first, second):
        assert a["run_id"] == b["run_id"]
        assert (tmp_path / "a/labels" / f"{a['run_id']}.txt").read_text() == \
            (tmp_path / "b/labels" / f"{b['run_id']}.txt").read_text()


def test_resume_skips_finished_runs(config_path, output_dir, fake_model):
    assert invoke("run", config_path).exit_code == 0
    result = invoke("run", config_path, "--resume", "--runs", 4)
    assert result.exit_code == 0, result.output
    assert "3 of 4 runs already recorded" in result.stderr
    assert fake_model.fit_calls == 4
    assert [r["seed"] for r in read_records(output_dir)] == [0, 1, 2, 3]


def test_rerun_without_resume_moves_records_aside(config_path, output_dir):
    assert invoke("run", config_path).exit_code == 0
    result = invoke("run", config_path)
    assert "moved existing records.jsonl" in result.stderr
    assert len(list(output_dir.glob("records.*.jsonl.bak"))) == 1
    assert len(read_records(output_dir)) == 3


def test_interrupt_keeps_finished_runs_and_exits_130(config_path, output_dir, fake_model):
    fake_model.interrupt_on_fit = 3
    result = invoke("run", config_path, "--runs", 5)
    assert result.exit_code == 130
    assert "interrupted after 2 of 5 runs; rerun with --resume to continue" in result.stderr
    assert [r["seed"] for r in read_records(output_dir)] == [0, 1]


def test_sigterm_in_process_keeps_finished_runs_and_exits_143(config_path, output_dir,
                                                              fake_model, monkeypatch):
    from shortclust.errors import Terminated

    fit = fake_model.fit

    def fit_then_terminated(self, X, y=None, callback=None):
        if callback is not None and fake_model.fit_calls == 2:
            raise Terminated  # what the SIGTERM handler raises
        return fit(self, X, y, callback)

    monkeypatch.setattr(fake_model, "fit", fit_then_terminated)
    result = invoke("run", config_path, "--runs", 5)
    assert result.exit_code == 143
    assert "terminated (SIGTERM) after 2 of 5 runs; rerun with --resume" in result.stderr
    assert [r["seed"] for r in read_records(output_dir)] == [0, 1]
    assert (output_dir / "summary.md").is_file()


def test_quiet_prints_nothing(config_path, output_dir):
    result = invoke("run", config_path, "--quiet")
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr == ""
    assert len(read_records(output_dir)) == 3


# --- data and models -------------------------------------------------------------------------


def test_data_list_shows_every_dataset_and_the_data_dir(tmp_path):
    result = CliRunner().invoke(app, ["data", "list", "--data-dir", str(tmp_path)],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for info, _ in list_datasets(tmp_path):
        assert info.name in result.stdout
    assert f"data directory: {tmp_path} (from --data-dir)" in result.stdout


def test_data_list_marks_present_files(tmp_path):
    write_corpus(tmp_path / "Tweet.jsonl")
    result = CliRunner().invoke(app, ["data", "list", "--data-dir", str(tmp_path)],
                                env={"COLUMNS": "200"})
    rows = {}
    for line in result.stdout.splitlines():  # the first table; the second shows sources
        if line.strip():
            rows.setdefault(line.split()[0], line.split())
    tweet_row, other_row = rows["Tweet"], rows["StackOverflow"]
    assert tweet_row[-2:] == ["yes", "Tweet.jsonl"]
    assert other_row[-2:] == ["no", "-"]


def test_data_info(tmp_path):
    result = invoke("data", "info", "tweet", "--data-dir", tmp_path)
    assert result.exit_code == 0
    assert "2472" in result.stdout and "jackyin12/GSDMM" in result.stdout
    assert f"(not in {tmp_path})" in result.stdout


def test_data_info_of_a_present_file(tmp_path):
    write_corpus(tmp_path / "Tweet.jsonl")
    result = invoke("data", "info", "Tweet", "--data-dir", tmp_path)
    assert result.exit_code == 0
    assert f"path               {tmp_path / 'Tweet.jsonl'}" in result.stdout
    assert "default_preprocess none" in result.stdout


def test_data_info_unknown_name():
    assert_one_error_line(invoke("data", "info", "Twet"), "did you mean Tweet")


def test_models_lists_registered_names(fake_model):
    result = invoke("models")
    assert result.exit_code == 0
    assert {"fake", "gsdmm"} <= set(result.stdout.split())


@pytest.mark.slow
def test_shipped_gsdmm_config_on_the_real_tweet_set(tmp_path, data_dir):
    config = ROOT / "configs" / "gsdmm_tweet.yaml"
    result = invoke("run", config, "--runs", 2, "--output", tmp_path, "--data-dir", data_dir)
    assert result.exit_code == 0, result.output
    records = read_records(tmp_path)
    assert [r["n_docs"] for r in records] == [2472, 2472]
    # seeds 0 and 1 give NMI about 0.87 (the paper's Figure 2 shows the TweetSet results)
    assert all(r["metrics"]["nmi"] > 0.8 for r in records)


# --- --jobs: parsed and passed through (the parallel runner is tested in experiments/) --------


def test_jobs_option_reaches_run_sweep_and_reproduce(config_path, output_dir, monkeypatch):
    import shortclust.pipeline.runner as runner
    import shortclust.papers.registry as registry
    import shortclust.pipeline.sweep as sweep_module

    seen = {}
    monkeypatch.setattr(runner, "run_experiment",
                        lambda config, options: seen.setdefault("run", options.jobs))
    monkeypatch.setattr(sweep_module, "run_sweep",
                        lambda config, param, values, options: seen.setdefault("sweep",
                                                                              options.jobs))

    class Job:
        written = []
        results_dir = output_dir

    def fake_reproduce(name, **options):
        seen.setdefault("reproduce", options["jobs"])
        return Job()

    monkeypatch.setattr(registry, "reproduce", fake_reproduce)
    assert invoke("run", config_path, "--jobs", 2, "--quiet").exit_code == 0
    assert invoke("sweep", config_path, "--param", "alpha", "--values", "0.1,0.2",
                  "-j", 3, "--quiet").exit_code == 0
    assert invoke("reproduce", "gsdmm", "--jobs", 4, "--quiet").exit_code == 0
    assert seen == {"run": 2, "sweep": 3, "reproduce": 4}


def test_jobs_defaults_to_1_and_0_means_all_cores(config_path, monkeypatch):
    import shortclust.pipeline.runner as runner

    seen = []
    monkeypatch.setattr(runner, "run_experiment",
                        lambda config, options: seen.append(options.jobs))
    monkeypatch.setattr(runner, "resolve_jobs", lambda jobs: 6)
    assert invoke("run", config_path).exit_code == 0
    result = invoke("run", config_path, "--jobs", 0)
    assert result.exit_code == 0 and "using all 6 cores" in result.stderr
    assert seen == [1, 0]


def test_jobs_above_the_cores_is_capped_with_a_note(config_path, monkeypatch):
    import joblib

    import shortclust.pipeline.executors as executors

    monkeypatch.setattr(joblib, "cpu_count", lambda: 2)
    workers = []
    monkeypatch.setattr(executors, "run_in_workers",
                        lambda context, todo, write, bars, n: workers.append(n))
    monkeypatch.setattr("shortclust.pipeline.runner.run_in_workers",
                        executors.run_in_workers)
    result = invoke("run", config_path, "--jobs", 999)
    assert result.exit_code == 0, result.output
    assert "--jobs 999: only 2 cores here; using 2 workers" in result.stderr
    assert workers == [2]
    quiet = invoke("run", config_path, "--jobs", 999, "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == "" and workers == [2, 2]


def test_jobs_below_minus_1_is_a_usage_error(config_path, output_dir):
    result = invoke("run", config_path, "--jobs", -2)
    assert result.exit_code == 2 and "--jobs" in result.output
    assert not output_dir.exists()


def test_a_real_run_with_jobs_1_from_the_cli(config_path, output_dir):
    result = invoke("run", config_path, "--jobs", 1, "--quiet")
    assert result.exit_code == 0 and len(read_records(output_dir)) == 3


def test_a_model_refusing_its_input_leaves_no_output_directory(tmp_path):
    corpus = tmp_path / "one.jsonl"
    corpus.write_text('{"text": "apple banana", "label": "a"}\n')
    config = tmp_path / "hac.yaml"
    config.write_text(f"name: one\ndataset: {corpus}\nmodel:\n  name: hac_sd\n"
                      "  params: {n_clusters: 2}\nruns: 1\n")
    output = tmp_path / "out" / "deeper"
    result = CliRunner().invoke(app, ["run", str(config), "--output", str(output), "--quiet"])
    assert result.exit_code == 2
    assert "n_clusters=2 is more than the 1 documents" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_sigterm_keeps_finished_runs_writes_summary_and_exits_143(tmp_path, data_dir):
    """SIGTERM (timeout, a scheduler) is handled as Ctrl-C, with exit status 143."""
    import signal
    import time

    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "shortclust", "run", str(ROOT / "configs" / "gsdmm_tweet.yaml"),
         "--set", "max_iter=200", "--runs", "20", "--output", str(out),
         "--data-dir", str(data_dir), "--quiet"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    records = out / "records.jsonl"
    deadline = time.monotonic() + 300
    while not (records.is_file() and records.read_text().strip()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("terminated (SIGTERM) after "), stderr
    assert "--resume" in lines[0]
    assert (out / "summary.md").is_file()
    kept = read_records(out)
    assert 1 <= len(kept) < 20
    assert len({record["seed"] for record in kept}) == len(kept)


def test_a_second_writer_of_one_output_gets_one_error_line(config_path, output_dir):
    import fcntl

    output_dir.mkdir(parents=True)
    with open(output_dir / ".shortclust.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = invoke("run", config_path)
    assert_one_error_line(result, f"output '{output_dir}' is being written by another")
    assert not (output_dir / "records.jsonl").exists()


def _descendants(pid):
    """Every process below ``pid`` (pids), from /proc: loky workers, resource trackers."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _alive(pid):
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_die_when_the_main_process_is_killed(tmp_path):
    """SIGKILL of `run --jobs 2` (no handler can run) takes its workers and trackers with it."""
    import contextlib
    import signal
    import time

    import numpy as np

    rng = np.random.default_rng(0)
    corpus = tmp_path / "words.jsonl"
    with open(corpus, "w", encoding="utf-8") as handle:
        for i in range(300):
            words = rng.choice([f"w{j}" for j in range(60)], size=8)
            handle.write(json.dumps({"text": " ".join(words), "label": str(i % 5)}) + "\n")
    config = tmp_path / "long.yaml"
    config.write_text(f"name: long\ndataset: {corpus}\npreprocess: none\nmodel:\n  name: gsdmm\n"
                      "  params: {n_clusters: 20, max_iter: 100000000}\nruns: 4\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "shortclust", "run", str(config), "--jobs", "2", "--quiet",
         "--output", str(tmp_path / "out")],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True)
    spawned = []
    try:
        deadline = time.monotonic() + 120
        workers = []
        while len(workers) < 2:  # two workers beside the resource tracker
            assert process.poll() is None, process.stderr.read()
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.5)
            workers = [pid for pid in _descendants(process.pid)
                       if "loky" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(
                           errors="replace") and "resource_tracker" not in
                       Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")]
        time.sleep(3)  # the workers are set up and fitting
        spawned = _descendants(process.pid)
        assert len(spawned) >= 3
        process.kill()
        process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in spawned) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in spawned if _alive(pid)]
    finally:
        for pid in [process.pid, *_descendants(process.pid), *spawned]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        process.stderr.close()


def test_a_huge_n_clusters_is_one_line_about_memory(data_dir, tmp_path):
    """Issue 17, case 3: GSDMM with K = 10^8 on Tweet asked numpy for 950 GiB."""
    config = Path(__file__).resolve().parents[1] / "configs" / "gsdmm_tweet.yaml"
    output = tmp_path / "out"
    result = invoke("run", config, "--set", "n_clusters=100000000", "--output", output,
                    "--data-dir", data_dir)
    assert result.exit_code == 2
    assert "needs at least 952.6 GiB of memory" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not output.exists()


@pytest.mark.parametrize("command", [["run"], ["sweep", "--param", "alpha", "--values", "0.1"]])
def test_an_empty_output_is_refused_not_the_current_directory(config_path, tmp_path,
                                                               monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = invoke(command[0], config_path, *command[1:], "--output", "")
    assert result.exit_code == 2 and "--output is empty" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_data_info_describes_a_file_given_by_its_path(tmp_path):
    result = invoke("data", "info", write_corpus(tmp_path / "tiny.jsonl"))
    assert result.exit_code == 0, result.output
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines()
                 if not line.startswith(("empty texts",)))
    assert lines["docs"] == "12" and lines["labels"] == "3 classes"
    assert len(lines["sha256"]) == 64


# --- --cluster: parsed, checked and passed through (the executor: experiments/test_cluster) -


def test_cluster_option_reaches_run_sweep_and_reproduce(config_path, output_dir, monkeypatch):
    import shortclust.pipeline.cluster_probe as cluster_probe
    import shortclust.pipeline.runner as runner
    import shortclust.pipeline.sweep as sweep_module
    import shortclust.papers.registry as registry

    monkeypatch.setattr(cluster_probe, "check_cluster", lambda cluster: None)
    seen = {}
    monkeypatch.setattr(runner, "run_experiment",
                        lambda config, options: seen.setdefault("run", options.cluster))
    monkeypatch.setattr(sweep_module, "run_sweep",
                        lambda config, param, values, options: seen.setdefault(
                            "sweep", options.cluster))

    class Job:
        written = []
        results_dir = output_dir

    def fake_reproduce(name, **options):
        seen.setdefault("reproduce", options["cluster"])
        return Job()

    monkeypatch.setattr(registry, "reproduce", fake_reproduce)
    assert invoke("run", config_path, "--cluster", "local", "--quiet").exit_code == 0
    assert invoke("sweep", config_path, "--param", "alpha", "--values", "0.1,0.2",
                  "--cluster", "tcp://10.0.0.1:8786", "--quiet").exit_code == 0
    assert invoke("reproduce", "gsdmm", "--cluster", "local", "--quiet").exit_code == 0
    assert seen == {"run": "local", "sweep": "tcp://10.0.0.1:8786", "reproduce": "local"}


def test_cluster_without_dask_or_with_a_bad_address_is_one_line(config_path, monkeypatch):
    import sys

    result = invoke("run", config_path, "--cluster", "my-laptop")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert "'local' or a scheduler address" in result.stderr
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if dask were not installed
    for args in (["run", config_path], ["reproduce", "gsdmm"]):
        result = invoke(*args, "--cluster", "local", "--quiet")
        assert result.exit_code == 2
        assert result.stderr.strip() == \
            "error: --cluster needs dask.distributed: pip install 'shortclust[cluster]'"
