"""Fixtures shared by the DMM family's tests."""

import contextlib

import pytest

from shortclust.models.common import threads as threads_module


@pytest.fixture
def blocks_in_one_thread(monkeypatch):
    """Run a parallel sweep's blocks with numba limited to one thread.

    The parallel kernels' labels must not depend on how many threads actually ran the
    blocks, only on the number of blocks; this fixture lets a test fit the same model
    both ways.
    """

    @contextlib.contextmanager
    def one_thread(_):
        import numba
        previous = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            yield
        finally:
            numba.set_num_threads(previous)

    monkeypatch.setattr(threads_module, "thread_limit", one_thread)
