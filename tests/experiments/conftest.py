"""Fixtures for the experiment harness tests: a fake model, a tiny corpus and a config."""

import pytest

from tests.experiments.fake_estimators import register_fake_model, write_config, write_corpus


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
