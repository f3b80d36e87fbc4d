"""Shared test set-up: locate the real datasets."""

import os
from pathlib import Path

import pytest

from tests.pipeline.fake_estimators import register_fake_model, write_config, write_corpus

# `shortclust cluster` without --model takes the embeddings path when the extra is
# installed: the suite runs the fast path on every machine (tests of the choice set it).
os.environ["SHORTCLUST_EMBEDDINGS"] = "none"

_DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def shared_data_dir():
    """The real datasets' folder, or None when this machine has none."""
    env = os.environ.get("SHORTCLUST_DATA")
    for candidate in (Path(env) if env else None, _DEFAULT_DATA):
        if candidate is not None and candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def data_dir():
    """Folder of the real datasets; skips the test when it is absent."""
    found = shared_data_dir()
    if found is None:
        pytest.skip("real datasets not present (set SHORTCLUST_DATA)")
    return found


# Fixtures of the harness tests (pipeline, apps, papers): a fake model, a tiny corpus, a config.
@pytest.fixture
def fake_model(monkeypatch):
    """The registered :class:`FakeClusterer` (model name ``fake``), counters reset."""
    return register_fake_model(monkeypatch)


@pytest.fixture
def corpus_path(tmp_path):
    """A 12-document labelled JSONL corpus."""
    return write_corpus(tmp_path / "tiny.jsonl")


@pytest.fixture
def output_dir(tmp_path):
    """Where the experiment writes (not created in advance)."""
    return tmp_path / "out"


@pytest.fixture
def config_path(tmp_path, corpus_path, output_dir, fake_model):
    """A valid 3-run config for the fake model."""
    return write_config(tmp_path / "fake.yaml", corpus_path, output_dir)


@pytest.fixture(scope="module")
def saved_gsdmm(tmp_path_factory):
    """A 3-cluster GSDMM ``TextClusterer`` of the tiny corpus saved as ``model.zip``, with a
    ``new.txt`` of two texts to predict beside it."""
    from shortclust import TextClusterer
    from tests.pipeline.fake_estimators import TEXTS

    folder = tmp_path_factory.mktemp("model")
    path = TextClusterer("gsdmm", n_clusters=3).fit(TEXTS).save(folder / "model.zip")
    (folder / "new.txt").write_text("apple pie\ngoal match\n")
    return path
