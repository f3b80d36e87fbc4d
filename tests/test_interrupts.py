"""SIGTERM's handler (:mod:`shortclust.interrupts`): writes are never cut in the middle, a
swallowed exception is raised again at the next safe point, and once the command has
returned no exception is raised (issue 27, point 4)."""

import os
import signal
import sys

import pytest

from shortclust import interrupts
from shortclust.errors import Terminated


@pytest.fixture
def handler(monkeypatch):
    """The CLI's SIGTERM handler installed, the previous one restored afterwards."""
    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    monkeypatch.setattr(interrupts, "_state", dict(interrupts._state))
    interrupts.install()
    yield
    signal.signal(signal.SIGTERM, previous)


def sigterm():
    os.kill(os.getpid(), signal.SIGTERM)


def test_the_handler_raises_at_once_outside_a_deferred_block(handler):
    with pytest.raises(Terminated):
        sigterm()
    assert interrupts.sigterm_received()
    interrupts.check_terminated()  # raised once: not again (the catcher is saving work)


def test_an_atomic_write_is_finished_before_the_sigterm_is_raised(handler, tmp_path):
    from shortclust.data.io import atomic_write

    target = tmp_path / "table.md"

    def write(handle):
        handle.write(b"first half, ")
        sigterm()
        handle.write(b"second half")

    with pytest.raises(Terminated):
        atomic_write(target, write)
    assert target.read_bytes() == b"first half, second half"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.md"]  # no temporary left


def test_a_record_is_appended_whole_before_the_sigterm_is_raised(handler, tmp_path,
                                                                monkeypatch):
    from shortclust.pipeline import records

    store = records.RecordStore(tmp_path)
    write = os.write

    def write_a_little_then_signal(fd, data):  # the signal between two pieces of the line
        written = write(fd, data[:5])
        if written < len(data):
            sigterm()
        return written

    monkeypatch.setattr(records.os, "write", write_a_little_then_signal)
    with pytest.raises(Terminated):
        store.append({"run_id": "a", "metrics": {}})
    monkeypatch.setattr(records.os, "write", write)
    assert [r["run_id"] for r in store.load()] == ["a"]


def test_a_swallowed_sigterm_is_raised_at_the_next_safe_point(handler):
    class Finalised:
        def __del__(self):
            sigterm()

    Finalised()  # the handler's exception is raised in __del__ and dropped by Python
    assert interrupts.sigterm_received()
    with pytest.raises(Terminated):
        interrupts.check_terminated()


def test_after_the_command_returned_the_handler_only_records_and_the_status_is_143(handler):
    interrupts.exiting()
    sigterm()  # nothing raised
    assert interrupts.final_status(0) == 143


def test_with_no_sigterm_the_status_stands_and_sigterm_gets_its_default_action(handler):
    assert interrupts.final_status(0) == 0
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
