"""The cycle collector paused for a command's start-up (shortclust._collector)."""

import gc

import pytest

from shortclust import _collector


@pytest.fixture(autouse=True)
def _restore_collector():
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_paused_until_resumed_then_frozen_and_on():
    gc.enable()
    with _collector.startup_paused():
        assert not gc.isenabled()
        made_at_start_up = [object() for _ in range(10)]
        frozen_before = gc.get_freeze_count()
        _collector.resume()
        assert gc.isenabled() and gc.get_freeze_count() > frozen_before
        _collector.resume()  # again: nothing more to do
        assert gc.isenabled()
    assert gc.isenabled() and made_at_start_up


def test_the_end_of_the_block_resumes_even_on_an_error():
    gc.enable()
    with pytest.raises(KeyError), _collector.startup_paused():
        assert not gc.isenabled()
        raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    with _collector.startup_paused():
        _collector.resume()
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_resume_outside_a_pause_changes_nothing():
    gc.disable()
    frozen = gc.get_freeze_count()
    _collector.resume()
    assert not gc.isenabled() and gc.get_freeze_count() == frozen


def test_sentence_embeddings_are_computed_with_the_collector_on(monkeypatch):
    # Computing embeddings is long work, not start-up: no cyclic garbage may pile up there.
    from types import SimpleNamespace

    from shortclust.pipeline import runner

    seen = []
    monkeypatch.setattr("shortclust.representations.needs_embedding", lambda *args: True)
    monkeypatch.setattr(runner.RunContext, "from_plan",
                        classmethod(lambda cls, *args, **kwargs: seen.append(gc.isenabled())))
    plan = SimpleNamespace(corpus=None, config=SimpleNamespace(representation_spec=None))
    gc.enable()
    with _collector.startup_paused():
        runner._run_context(plan, runner.RunOptions())
    assert seen == [True]
