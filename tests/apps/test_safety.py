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

from shortclust import interrupts
from shortclust.apps import safety_net
from shortclust.cli import app
from tests.pipeline.fake_estimators import write_corpus


@pytest.fixture
def guarded(monkeypatch, capsys):
    """Run the real entry point's safety net on ``argv``: ``(status, stderr)``."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(interrupts, "_state", dict(interrupts._state))

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


# --- a SIGTERM is never lost and never ends in a traceback (issue 27, point 4) ------------------

def _swallowed_sigterm():
    """A SIGTERM whose exception is raised in a finaliser, where Python drops it."""

    class Finalised:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)

    Finalised()


def test_an_exception_a_library_raised_instead_of_the_interruption_exits_143(guarded,
                                                                            monkeypatch):
    import shortclust.models as models

    def names():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        except KeyboardInterrupt:  # a library cut short mid-way, its state now broken
            raise RuntimeError("dictionary changed size during iteration") from None
        return ["gsdmm"]

    monkeypatch.setattr(models, "model_names", names)
    status, stderr = guarded("models")
    assert status == 143
    assert stderr == "terminated (SIGTERM)\n"


def test_a_sigterm_then_a_one_line_error_still_exits_143(guarded, monkeypatch):
    import shortclust.models as models
    from shortclust.errors import ConfigError

    def names():
        _swallowed_sigterm()
        raise ConfigError("model table damaged")

    monkeypatch.setattr(models, "model_names", names)
    status, stderr = guarded("models")
    assert status == 143
    assert stderr.splitlines()[-1] == "terminated (SIGTERM)" and "Traceback" not in stderr


def test_a_swallowed_sigterm_stops_the_runs_at_the_next_safe_point(guarded, monkeypatch,
                                                                   tmp_path):
    import json

    from tests.pipeline.fake_estimators import register_fake_model, write_config

    fake = register_fake_model(monkeypatch)
    fit = fake.fit

    def fit_swallowing_a_sigterm(self, X, y=None, callback=None):
        if callback is not None and fake.fit_calls == 1:
            _swallowed_sigterm()  # during the second run's fit
        return fit(self, X, y, None if callback is None else lambda *a: None)

    monkeypatch.setattr(fake, "fit", fit_swallowing_a_sigterm)
    corpus = write_corpus(tmp_path / "docs.jsonl")
    config = write_config(tmp_path / "fake.yaml", corpus, tmp_path / "out", runs=6)
    status, stderr = guarded("run", config, "--quiet")
    assert status == 143 and "Traceback" not in stderr and "Exception ignored" not in stderr
    records = (tmp_path / "out" / "records.jsonl").read_text().splitlines()
    # The signal came during the second run's fit; the first file it writes is a safe point
    # (without the flag, all 6 runs went on).
    assert [json.loads(line)["seed"] for line in records] == [0]


# --- the safety net names the file or setting being read (issue 27, point 3) ----------------

def _raise(error):
    def fail(*args, **kwargs):
        raise error

    return fail


@pytest.mark.parametrize("where, error, named", [
    ("shortclust.data.io._read_jsonl", OverflowError("int too large to convert"),
     "in input file {corpus}"),
    ("shortclust._overrides._set_path", RecursionError("maximum recursion depth"),
     "in --set stream.window=1e20"),
    ("shortclust.pipeline.fitting.RunContext._fit", MemoryError(),
     "in the fit of FakeClusterer with {{'alpha': 0.5, 'max_iter': 2, 'n_clusters': 3}} (seed 0)"),
])
def test_the_safety_net_names_the_file_or_setting_involved(guarded, monkeypatch, tmp_path,
                                                           where, error, named):
    from tests.pipeline.fake_estimators import register_fake_model, write_config

    register_fake_model(monkeypatch)
    corpus = write_corpus(tmp_path / "docs.jsonl")
    config = write_config(tmp_path / "fake.yaml", corpus, tmp_path / "out")
    monkeypatch.setattr(where, _raise(error))
    settings = ["--set", "stream.window=1e20"] if "--set" in named else []
    status, stderr = guarded("run", config, "--quiet", *settings)
    assert_one_line(status, stderr, named.format(corpus=corpus))
    assert str(config) not in stderr  # the setting, not the command's files


def test_the_safety_net_names_the_model_file(guarded, monkeypatch, clustered):
    import shortclust.apps.model_files as model_files

    corpus, output = clustered
    monkeypatch.setattr(model_files, "_rebuild", _raise(MemoryError()))
    status, stderr = guarded("predict", output / "model.zip", corpus, "--output",
                             output.parent / "new.csv")
    assert_one_line(status, stderr, f"not enough memory in model file {output / 'model.zip'}")
