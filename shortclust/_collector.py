"""The cycle collector paused while a command starts up, and resumed before its first fit.

Starting ``shortclust run`` creates about 130,000 long-lived objects (numpy, scipy, numba's
typing registries, pydantic, typer, the config and corpus) and almost no garbage cycles
(about a thousand objects over the whole of ``make run``). Every collection in that phase
walks the young objects only to find them alive: in ``make run`` 39 young and 3 middle
collections, 0.05-0.06 s of CPU, all before the first fit. :func:`startup_paused` turns
the collector off for that phase; :func:`resume` (called by the runner once the kernels are
loaded, before the first timed fit or any worker process starts) freezes what start-up
created (:func:`gc.freeze`: moved to the permanent generation, never walked again; the few
cycles among them are left to the end of the process, as ``safety_net`` leaves everything
at exit) and turns the collector back on. A run that computes sentence embeddings resumes
it before them: that is long work, not start-up.
"""

from __future__ import annotations

import contextlib
import gc

__all__ = ["resume", "startup_paused"]

_paused = False


@contextlib.contextmanager
def startup_paused():
    """Pause the cycle collector until :func:`resume` or the end of the block.

    Does nothing if the collector is already off (the caller's choice is kept).
    """
    global _paused
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _paused = True
    try:
        yield
    finally:
        resume()


def resume() -> None:
    """End a pause of :func:`startup_paused`: freeze the objects made so far, collect again.

    Does nothing outside a pause, so any code path may call it before heavy work.
    """
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
