"""Outputs under hostile conditions (issue 30's path): a user's file is never replaced, a
write that fails leaves nothing half-written and a finished output as it was, folders and
files follow the umask, and absurd integer settings are refused before anything is
allocated (docs/hardening.md, section 8, lists the cases)."""

import pytest
from typer.testing import CliRunner

from shortclust import TextClusterer
from shortclust.cli import app
from tests.pipeline.fake_estimators import TEXTS


def refused(args) -> str:
    """Run ``shortclust *args``; assert exit 2 with one ``error:`` line; return it."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (
        result.exit_code, result.stderr, result.exception)
    return lines[0]


def ran(args) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result.stdout


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("model")
    path = TextClusterer("gsdmm", n_clusters=3).fit(TEXTS).save(folder / "model.zip")
    (folder / "new.txt").write_text("apple pie\ngoal match\n")
    return path


def _listing(folder):
    return sorted(path.name for path in folder.iterdir())


# --- 1. predict never replaces a file of the user's --------------------------------------------

def test_predict_never_replaces_a_file_that_is_not_an_assignments_csv(model_file, tmp_path,
                                                                      monkeypatch):
    # `predict --output notes.csv` replaced any existing file, silently.
    new = model_file.parent / "new.txt"
    notes = tmp_path / "notes.csv"
    notes.write_bytes(b"my,own\nnotes,here\n")
    line = refused(["predict", model_file, new, "--output", notes])
    assert "exists and is not an assignments CSV" in line and "--output" in line, line
    assert notes.read_bytes() == b"my,own\nnotes,here\n"
    assert _listing(tmp_path) == ["notes.csv"]
    # The default output name too (<FILE stem>_assignments.csv in the current folder).
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    (here / "new_assignments.csv").write_text("id,text\n1,precious\n")
    line = refused(["predict", model_file, new])
    assert "new_assignments.csv' exists and is not an assignments CSV" in line
    assert (here / "new_assignments.csv").read_text() == "id,text\n1,precious\n"


def test_predict_replaces_its_own_assignments_csv(model_file, tmp_path):
    # As documented in --output's help: an earlier assignments CSV is written again.
    new = model_file.parent / "new.txt"
    out = tmp_path / "p.csv"
    ran(["predict", model_file, new, "--output", out, "--quiet"])
    first = out.read_bytes()
    new_texts = tmp_path / "more.txt"
    new_texts.write_text("apple pie\n")
    ran(["predict", model_file, new_texts, "--output", out, "--quiet"])
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


def test_outputs_follow_the_users_umask(model_file, tmp_path, umask_027):
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
    ran(["predict", model_file, model_file.parent / "new.txt", "--output", tmp_path / "p.csv",
         "--quiet"])
    assert _mode(tmp_path / "p.csv") == 0o640
    saved = TextClusterer("kmeans", n_clusters=2).fit(TEXTS).save(tmp_path / "m.zip")
    assert _mode(saved) == 0o640
