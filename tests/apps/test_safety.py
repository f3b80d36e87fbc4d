"""Issue 27, points 2-4: outputs never replace what the user owns, a failed re-run leaves a
finished folder as it was, typer's own errors and the safety net's exceptions are one
``error:`` line with exit status 2, and a swallowed SIGTERM still exits 143."""

import errno
import hashlib
import os
import signal
import sys

import pytest
from typer.testing import CliRunner

from shortclust.apps import safety_net
from shortclust.cli import app
from tests.pipeline.fake_estimators import write_corpus


@pytest.fixture
def guarded(monkeypatch, capsys):
    """Run the real entry point's safety net on ``argv``: ``(status, stderr)``."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setitem(safety_net._received, "sigterm", False)

    def run(*argv):
        capsys.readouterr()
        with pytest.raises(SystemExit) as done:
            safety_net.run_guarded(app, argv=["shortclust", *map(str, argv)])
        return done.value.code, capsys.readouterr().err

    yield run
    signal.signal(signal.SIGTERM, previous)


def assert_one_line(status, stderr, fragment=""):
    assert status == 2, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), stderr
    assert fragment in stderr and "Traceback" not in stderr


@pytest.mark.parametrize("argv, fragment", [
    (["cluster", "x.csv", "--seed", "abc"], "valid integer"),
    (["cluster", "x.csv", "--seed", "-1"], "'--seed'"),
    (["run", "x.yaml", "--jobs", "-3"], "'--jobs'"),
    (["cluster", "x.csv", "--top-words", "0"], "'--top-words'"),
    (["reproduce", "dct", "--runs", "0"], "'--runs'"),
    (["cluster"], "missing argument 'FILE'"),
    (["cluster", "x.csv", "--bogus"], "no such option: --bogus"),
])
def test_typer_errors_are_one_error_line_with_exit_2(guarded, argv, fragment):
    status, stderr = guarded(*argv)
    assert_one_line(status, stderr, fragment)
    assert "--help`" in stderr


@pytest.mark.parametrize("error, fragment", [
    (OSError(errno.ENOSPC, "No space left on device", "out.csv"), "no space left on the "
                                                                   "device writing out.csv"),
    (PermissionError(errno.EACCES, "Permission denied", "out.csv"), "permission denied"),
    (OverflowError("int too large"), "a number too large"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (MemoryError(), "not enough memory"),
])
def test_the_safety_net_turns_what_no_check_caught_into_one_line(guarded, monkeypatch, error,
                                                                  fragment):
    import shortclust.apps.predict as predict

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(predict, "predict_file", fail)
    status, stderr = guarded("predict", "model.zip", "new.csv", "--output", "out.csv")
    assert_one_line(status, stderr, fragment)


def test_a_sigterm_swallowed_in_a_finaliser_still_exits_143(guarded, monkeypatch):
    import shortclust.models as models

    class Finalised:
        def __del__(self):  # the handler's exception is raised here, and swallowed
            os.kill(os.getpid(), signal.SIGTERM)

    def names():
        Finalised()
        return ["gsdmm"]

    monkeypatch.setattr(models, "model_names", names)
    status, stderr = guarded("models")
    assert status == 143
    assert "terminated (SIGTERM)" in stderr and "Traceback" not in stderr
    assert "Exception ignored" not in stderr


# --- outputs never replace what the user owns ---------------------------------------------------

@pytest.fixture
def clustered(tmp_path):
    """A finished ``cluster`` folder (K-means, 3 clusters) of the 12-document corpus."""
    corpus = write_corpus(tmp_path / "docs.jsonl")
    output = tmp_path / "out"
    result = CliRunner().invoke(app, ["cluster", str(corpus), "--model", "kmeans", "-k", "3",
                                      "--output", str(output), "--quiet"])
    assert result.exit_code == 0, result.output
    return corpus, output


def digests(folder):
    return {path.relative_to(folder): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_failed_rerun_leaves_the_finished_folder_byte_identical(clustered):
    corpus, output = clustered
    before = digests(output)
    result = CliRunner().invoke(app, ["cluster", str(corpus), "--model", "kmeans", "-k",
                                      "1000", "--output", str(output), "--quiet"])
    assert result.exit_code == 2 and "more than the 12 documents" in result.stderr
    assert digests(output) == before


def predict(*args):
    return CliRunner().invoke(app, ["predict", *map(str, args)])


@pytest.mark.parametrize("which", ["input", "model"])
def test_predict_never_writes_over_its_input_or_its_model(clustered, which):
    corpus, output = clustered
    model = output / "model.zip"
    target = corpus if which == "input" else model
    before = target.read_bytes()
    result = predict(model, corpus, "--output", target)
    assert result.exit_code == 2 and f"is the {which} file" in result.stderr
    assert target.read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_predict_never_replaces_a_fifo_or_a_device(clustered, tmp_path, kind):
    corpus, output = clustered
    target = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(target)
    else:
        try:
            os.mknod(target, 0o644 | 0o020000, os.makedev(1, 3))  # a character device
        except PermissionError:
            pytest.skip("making a device node needs root")
    result = predict(output / "model.zip", corpus, "--output", target)
    assert result.exit_code == 2
    assert ("FIFO" if kind == "fifo" else "character device") in result.stderr
    assert not target.is_file() and target.exists()


def test_cluster_never_writes_over_its_input(clustered):
    corpus, output = clustered
    inside = output / "assignments.csv"
    before = inside.read_bytes()
    result = CliRunner().invoke(app, ["cluster", str(inside), "--model", "kmeans", "-k", "2",
                                      "--output", str(output), "--quiet"])
    assert result.exit_code == 2 and "would overwrite the input file" in result.stderr
    assert inside.read_bytes() == before


def test_a_full_disk_mid_run_leaves_no_file_of_the_unrecorded_run(guarded, monkeypatch,
                                                                   tmp_path):
    import shortclust.pipeline.runner as runner
    from tests.pipeline.fake_estimators import register_fake_model, write_config

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    register_fake_model(monkeypatch)
    monkeypatch.setattr(runner, "write_clusters", full)
    corpus = write_corpus(tmp_path / "docs.jsonl")
    config = write_config(tmp_path / "fake.yaml", corpus, tmp_path / "out")
    status, stderr = guarded("run", config, "--quiet")
    assert_one_line(status, stderr, "no space left on the device")
    assert not [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
