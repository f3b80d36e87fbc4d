"""Outputs under hostile conditions (issue 30's path): a user's file is never replaced, a
write that fails leaves nothing half-written and a finished output as it was, folders and
files follow the umask, and absurd integer settings are refused before anything is
allocated (docs/hardening.md, section 8, lists the cases)."""

import pytest
from typer.testing import CliRunner

from shortclust import TextClusterer
from shortclust.cli import app
from tests.pipeline.fake_estimators import TEXTS
from tests.refusals import refused


def ran(args) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result.stdout


def _listing(folder):
    return sorted(path.name for path in folder.iterdir())


# --- 1. predict never replaces a file of the user's --------------------------------------------

def test_predict_never_replaces_a_file_that_is_not_an_assignments_csv(saved_gsdmm, tmp_path,
                                                                      monkeypatch):
    # `predict --output notes.csv` replaced any existing file, silently.
    new = saved_gsdmm.parent / "new.txt"
    notes = tmp_path / "notes.csv"
    notes.write_bytes(b"my,own\nnotes,here\n")
    line = refused(["predict", saved_gsdmm, new, "--output", notes])
    assert "exists and is not an assignments CSV" in line and "--output" in line, line
    assert notes.read_bytes() == b"my,own\nnotes,here\n"
    assert _listing(tmp_path) == ["notes.csv"]
    # The default output name too (<FILE stem>_assignments.csv in the current folder).
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    (here / "new_assignments.csv").write_text("id,text\n1,precious\n")
    line = refused(["predict", saved_gsdmm, new])
    assert "new_assignments.csv' exists and is not an assignments CSV" in line
    assert (here / "new_assignments.csv").read_text() == "id,text\n1,precious\n"


def test_predict_replaces_its_own_assignments_csv(saved_gsdmm, tmp_path):
    # As documented in --output's help: an earlier assignments CSV is written again.
    new = saved_gsdmm.parent / "new.txt"
    out = tmp_path / "p.csv"
    ran(["predict", saved_gsdmm, new, "--output", out, "--quiet"])
    first = out.read_bytes()
    new_texts = tmp_path / "more.txt"
    new_texts.write_text("apple pie\n")
    ran(["predict", saved_gsdmm, new_texts, "--output", out, "--quiet"])
    assert out.read_bytes() != first and out.read_text().count("\n") == 2
    assert _listing(tmp_path) == ["more.txt", "p.csv"]


# --- 2. outputs follow the umask ----------------------------------------------------------------

@pytest.fixture
def umask_027():
    import os

    before = os.umask(0o027)
    yield
    os.umask(before)


def _mode(path) -> int:
    return path.stat().st_mode & 0o777


def test_outputs_follow_the_users_umask(saved_gsdmm, tmp_path, umask_027):
    # The cluster output folder was 0700 (tempfile.mkdtemp's private mode, then renamed):
    # a group the umask lets read could not.
    from tests.pipeline.fake_estimators import write_corpus

    corpus = write_corpus(tmp_path / "docs.jsonl")
    out = tmp_path / "out"
    ran(["cluster", corpus, "-k", "3", "--output", out, "--quiet", "--no-report"])
    assert _mode(out) == 0o750
    assert {path.name: _mode(path) for path in out.iterdir()} == {
        name: 0o640 for name in _listing(out)}
    ran(["cluster", corpus, "-k", "3", "--output", out, "--quiet", "--no-report"])  # again
    assert _mode(out) == 0o750
    ran(["predict", saved_gsdmm, saved_gsdmm.parent / "new.txt", "--output", tmp_path / "p.csv",
         "--quiet"])
    assert _mode(tmp_path / "p.csv") == 0o640
    saved = TextClusterer("kmeans", n_clusters=2).fit(TEXTS).save(tmp_path / "m.zip")
    assert _mode(saved) == 0o640


# --- 3. a write that fails: one line, nothing half-written, a finished output as it was ---------

from tests.apps.test_safety import assert_one_line, guarded  # noqa: E402,F401 (a fixture)


def _snapshot(folder):
    """Every file under ``folder`` (hidden temporaries too) -> its bytes; folders -> None."""
    return {str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None
            for path in sorted(folder.rglob("*"))}


def _failing(monkeypatch, name, errno_code):
    """Make ``os.<name>`` (``replace`` or ``fsync``) fail as a full or read-only disk would."""
    import errno
    import os

    def fail(*args, **kwargs):
        raise OSError(errno_code, os.strerror(errno_code))

    monkeypatch.setattr(os, name, fail)
    return errno.errorcode[errno_code]


@pytest.fixture
def workplace(tmp_path):
    """A corpus, a regular file to put outputs under, texts to predict, a run config."""
    from tests.pipeline.fake_estimators import write_corpus, write_config

    corpus = write_corpus(tmp_path / "docs.jsonl")
    (tmp_path / "afile").write_text("a file, not a folder\n")
    (tmp_path / "new.txt").write_text("apple pie\ngoal match\n")
    config = write_config(tmp_path / "c.yaml", corpus, tmp_path / "runs",
                          model={"name": "gsdmm", "params": {"n_clusters": 3, "max_iter": 3}},
                          runs=2)
    return tmp_path, corpus, config


COMMANDS = {  # name -> (argv with OUT for the output, output's kind)
    "cluster": (["cluster", "{corpus}", "-k", "3", "--quiet", "--output", "OUT"], "dir"),
    "predict": (["predict", "{model}", "{place}/new.txt", "--quiet", "--output", "OUT"], "file"),
    "run": (["run", "{config}", "--quiet", "--output", "OUT"], "dir"),
    "report": (["report", "{place}/done_run", "--output", "OUT"], "file"),
}


def _argv(command, workplace, saved_gsdmm, out):
    place, corpus, config = workplace
    argv, _ = COMMANDS[command]
    return [str(out) if arg == "OUT" else arg.format(corpus=corpus, model=saved_gsdmm,
                                                      place=place, config=config)
            for arg in argv]


def _done_run(workplace):
    place, _, config = workplace
    ran(["run", config, "--quiet", "--output", place / "done_run"])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_output_under_a_regular_file_is_one_line_naming_it(workplace, saved_gsdmm, guarded,
                                                              command):
    # "cannot create it (File exists)" (cluster, predict), a FileExistsError traceback
    # (report), "the folder ... does not exist" (TextClusterer.save): the folder is a file.
    place = workplace[0]
    if command == "report":
        _done_run(workplace)
    before = _snapshot(place)
    out = place / "afile" / ("out" if COMMANDS[command][1] == "dir" else "out.csv")
    status, stderr = guarded(*_argv(command, workplace, saved_gsdmm, out))
    assert_one_line(status, stderr, f"'{place / 'afile'}' is a file, not a folder")
    assert _snapshot(place) == before


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("call, code", [("replace", 13), ("fsync", 28)])  # EACCES, ENOSPC
def test_a_write_that_fails_leaves_the_finished_output_as_it_was(workplace, saved_gsdmm, guarded,
                                                                 monkeypatch, command, call,
                                                                 code):
    place = workplace[0]
    if command == "report":
        _done_run(workplace)
    out = place / ("out" if COMMANDS[command][1] == "dir" else "out.html")
    argv = _argv(command, workplace, saved_gsdmm, out)
    ran(argv)  # a finished output
    before = _snapshot(place)
    _failing(monkeypatch, call, code)
    status, stderr = guarded(*argv)
    fragment = "permission denied" if code == 13 else "no space left on the device"
    assert_one_line(status, stderr, fragment)
    assert ".tmp" not in stderr, "the message names a hidden temporary, not the output"
    assert " on (files" not in stderr  # "permission denied on (files: ...)" before
    assert _snapshot(place) == before


@pytest.mark.parametrize("call, code", [("replace", 13), ("fsync", 28)])
def test_save_that_fails_is_one_exception_and_keeps_the_model(tmp_path, monkeypatch, call,
                                                              code):
    from shortclust.errors import ShortclustError

    clusterer = TextClusterer("gsdmm", n_clusters=3).fit(TEXTS)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ShortclustError, match="'.*afile' is a file, not a folder"):
        clusterer.save(tmp_path / "afile" / "m.zip")
    saved = clusterer.save(tmp_path / "m.zip")
    before = _snapshot(tmp_path)
    _failing(monkeypatch, call, code)
    with pytest.raises(ShortclustError, match="cannot save the model as '.*m.zip'"):
        clusterer.save(saved)
    assert _snapshot(tmp_path) == before


# --- 4. integers beyond what a kernel's int type or the memory holds ---------------------------

@pytest.mark.parametrize("model, params, fragment", [
    ("gsdmm", {"max_iter": 10**12}, "max_iter must be an integer from 1 to 2147483647"),
    ("gsdmm", {"max_iter": 2**64}, "max_iter must be an integer from 1 to 2147483647"),
    ("kmeans", {"n_init": 10**12}, "n_init must be an integer from 1 to 2147483647"),
    ("minibatch_kmeans", {"n_init": 10**15}, "n_init must be an integer from 1 to"),
    ("dmafp", {"init_passes": 10**12}, "init_passes must be an integer from 1 to"),
    ("hac_sd", {"max_docs": 10**19}, "max_docs must be an integer from 1 to"),
    ("hac_sd", {"k": 10**12}, "k must be an integer from 1 to 2147483647"),  # NoneOr
    ("gsdmm", {"partial_iter": 2**31}, "partial_iter must be an integer from 0 to"),
    ("lda", {"threads": 101}, "threads must be an integer from 1 to 100 (one numba Generator"),
    ("gsdmm", {"threads": 10**6}, "threads must be an integer from 1 to 1024 (one copy of the"),
    ("dct", {"threads": 1025}, "threads must be an integer from 1 to 1024 (one copy of the"),
])
def test_absurd_integers_are_refused_naming_the_range(model, params, fragment):
    # Each ran for ever (max_iter=10**12, n_init=10**12, init_passes=10**12: hours at least)
    # or was taken silently (max_docs=10**19, k=10**12); LDA with threads=101 raised
    # numba's UnsupportedParforsError, a traceback in the command line; GSDMM with
    # threads=10**6 made a million copies of its counts (9 s, 1.2 GB) before sampling.
    import time

    from shortclust.errors import ParameterError

    started = time.process_time()
    with pytest.raises(ParameterError, match=fragment.replace("(", r"\(")):
        TextClusterer(model, n_clusters=3, params=params).fit(TEXTS)
    assert time.process_time() - started < 5  # refused before fitting


def test_absurd_integers_are_one_line_in_cluster_and_run(workplace, guarded):
    place, corpus, config = workplace
    status, stderr = guarded("cluster", corpus, "-k", "3", "--set", "max_iter=1000000000000",
                             "--quiet", "--output", place / "out")
    assert_one_line(status, stderr, "max_iter must be an integer from 1 to 2147483647")
    status, stderr = guarded("run", config, "--set", "model.params.max_iter=1000000000000",
                             "--quiet", "--output", place / "runs")
    assert_one_line(status, stderr, "max_iter must be an integer from 1 to 2147483647")
    status, stderr = guarded("sweep", config, "--param", "max_iter", "--values",
                             "5,1000000000000", "--quiet", "--output", place / "sweep")
    assert_one_line(status, stderr, "max_iter must be an integer from 1 to 2147483647")
    assert not (place / "out").exists() and not (place / "runs").exists()
    assert not (place / "sweep").exists()


def test_large_but_sane_integers_are_accepted():
    from shortclust.models import get_model_class
    from shortclust.models.base import MAX_INTEGER, validate_params

    validate_params(get_model_class("gsdmm"), {"max_iter": MAX_INTEGER, "n_clusters": 10**6})
    validate_params(get_model_class("kmeans"), {"n_init": 1000, "max_iter": 100_000})
    validate_params(get_model_class("lda"), {"threads": 100})
    validate_params(get_model_class("hac_sd"), {"max_docs": 10**9})


# --- 5. sweep, benchmark, reproduce, streams, report folders, model zips ------------------------

def test_a_repeated_value_in_a_long_grid_is_named_not_quoted_whole(workplace, guarded):
    # The 80 KB --values was quoted whole in the one line.
    status, stderr = guarded("sweep", workplace[2], "--param", "alpha", "--values",
                             ",".join(["0.1"] * 20_000), "--quiet", "--output",
                             workplace[0] / "sw")
    assert_one_line(status, stderr, "--values: 0.1 is repeated")
    assert len(stderr) < 200


@pytest.mark.parametrize("argv", [
    ["benchmark", "--only", ""], ["benchmark", "--only", " , "],
    ["benchmark", "--only", "quick", "--models", ""], ["reproduce", "gsdmm", "--only", ""],
])
def test_an_option_naming_nothing_is_refused_not_taken_for_all(tmp_path, guarded, argv):
    # `benchmark --only ""` ran every suite (minutes of fitting before it was stopped);
    # `reproduce gsdmm --only ""` every item; `--models ""` fitted every model.
    status, stderr = guarded(*argv, "--results", tmp_path / "res", "--work-dir",
                             tmp_path / "work", "--quiet")
    assert_one_line(status, stderr, "names no")
    assert not (tmp_path / "res").exists() and not (tmp_path / "work").exists()


@pytest.mark.parametrize("stream, fragment", [
    ({"batch_by": "count", "batch_size": 10**12}, "batch_size must be an integer from 1 to"),
    ({"batch_by": "count", "n_batches": 2, "partial_iter": 2**40},
     "partial_iter must be an integer from 0 to"),
])
def test_absurd_stream_counts_are_one_line(workplace, guarded, stream, fragment):
    # batch_size=10**12 was taken (one batch); partial_iter=2**40 ran for ever.
    import yaml

    place, _, config = workplace
    settings = yaml.safe_load(config.read_text())
    settings["stream"] = stream
    config.write_text(yaml.safe_dump(settings))
    status, stderr = guarded("run", config, "--quiet", "--output", place / "s")
    assert_one_line(status, stderr, fragment)
    assert not (place / "s").exists()


def _edit_record(folder):
    import json

    record = json.loads((folder / "record.json").read_text())
    record["settings"] = 5
    (folder / "record.json").write_text(json.dumps(record))


FOLDER_EDITS = {  # a cluster folder's file edited -> what the message says
    "record_not_json": (lambda f: (f / "record.json").write_text("{not json"), "record.json"),
    "record_retyped": (_edit_record, "its settings is not an object"),
    "assignments_truncated": (lambda f: (f / "assignments.csv").write_text(
        (f / "assignments.csv").read_text()[:60]), "assignments.csv"),
    "assignments_cluster_out_of_range": (lambda f: (f / "assignments.csv").write_text(
        "row,text,cluster,status\n1,apple,99,ok\n"), "line 2: cluster '99'"),
    "clusters_representative_beyond_the_rows": (lambda f: (f / "clusters.csv").write_text(
        "cluster,size,top_words,representative_rows\n0,1,apple,100000\n"),
        "representative_rows '100000'"),
    "clusters_superscript_digit": (lambda f: (f / "clusters.csv").write_text(
        "cluster,size,top_words,representative_rows\n0,\u00b2,apple,1\n"), "size"),
}


@pytest.mark.parametrize("case", sorted(FOLDER_EDITS))
def test_report_of_an_edited_cluster_folder_is_one_line(workplace, guarded, case):
    # A garbled record.json (JSONDecodeError), a record whose settings is a number
    # (AttributeError), truncated assignments (TypeError): tracebacks in `report`.
    place, corpus, _ = workplace
    folder = place / "out"
    ran(["cluster", corpus, "-k", "3", "--quiet", "--no-report", "--output", folder])
    edit, fragment = FOLDER_EDITS[case]
    edit(folder)
    status, stderr = guarded("report", folder, "--output", place / "r.html")
    assert_one_line(status, stderr, fragment)
    assert "is damaged or edited" in stderr
    assert not (place / "r.html").exists()


def test_an_encrypted_model_member_is_named_by_its_file_name(saved_gsdmm, tmp_path):
    # The 120 characters of the reason were the member's ZipInfo repr ("File <ZipInfo
    # filename=... compress_si..."), cut before they said "encrypted".
    from shortclust.errors import ShortclustError

    raw = bytearray(saved_gsdmm.read_bytes())
    raw[raw.find(b"PK\x03\x04") + 6] |= 1  # the encrypted flag, local header
    raw[raw.find(b"PK\x01\x02") + 8] |= 1  # and central directory
    crafted = tmp_path / "enc.zip"
    crafted.write_bytes(bytes(raw))
    with pytest.raises(ShortclustError, match="'shortclust-model.json' is encrypted"):
        TextClusterer.load(crafted)


@pytest.mark.parametrize("command", [["benchmark", "--only", "quick", "--no-fit"],
                                     ["reproduce", "gsdmm", "--only", "table2", "--no-fit"]])
@pytest.mark.parametrize("option", ["--results", "--work-dir"])
def test_a_folder_option_that_is_a_file_is_refused_before_any_work(tmp_path, guarded, command,
                                                                   option):
    # benchmark --results FILE printed the suites' progress, then failed at the first table.
    (tmp_path / "afile").write_text("x\n")
    folders = {"--results": tmp_path / "res", "--work-dir": tmp_path / "work"}
    folders[option] = tmp_path / "afile"
    status, stderr = guarded(*command, "--results", folders["--results"], "--work-dir",
                             folders["--work-dir"])
    assert_one_line(status, stderr, f"{option} '{tmp_path / 'afile'}': '{tmp_path / 'afile'}'"
                    " is a file, not a folder")
    assert (tmp_path / "afile").read_text() == "x\n"


def test_report_of_a_file_says_the_run_folder_is_not_one(workplace, guarded):
    # It said the output under it (FILE/report.html) could not be written.
    status, stderr = guarded("report", workplace[0] / "afile")
    assert_one_line(status, stderr, "run directory '")
    assert "is not a folder" in stderr
