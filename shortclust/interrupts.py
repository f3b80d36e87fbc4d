"""SIGTERM as a flag first and an exception second, so that no signal is lost.

The command line (:func:`shortclust.apps.safety_net.run_guarded`) installs
:func:`on_sigterm`. The handler always records the signal in a flag, then raises
:class:`~shortclust.errors.Terminated` (a ``KeyboardInterrupt``: every path that keeps
finished runs on Ctrl-C keeps them on SIGTERM too) unless raising is unsafe at that moment:

* inside :func:`deferred` (a record being appended, a file being written and renamed), the
  exception is raised when the block ends, so no file is left half-written and no
  temporary file is left behind;
* after the command has returned (:func:`exiting`), nothing is raised: the exit status
  becomes 143, and from the moment the status is fixed the default action applies (the
  process ends at once; a shell shows 143).

An exception raised by the handler can still be lost: Python prints and drops an
exception raised in a weakref callback or a ``__del__`` ("Exception ignored in ..."), and a
library may catch it and raise something else. The flag covers both: long loops call
:func:`check_terminated` between steps (runs, batches, iterations, configs), which raises
again, and the command line exits 143 whenever the flag is set, whatever exception or
status the command ended with.
"""

from __future__ import annotations

import contextlib
import signal
import sys

from shortclust.errors import Terminated

__all__ = ["check_terminated", "deferred", "exiting", "install", "on_sigterm",
           "sigterm_received"]

#: ``received``: a SIGTERM arrived. ``pending``: its exception is still to be raised (it was
#: deferred, or raised and swallowed). ``deferred``: depth of :func:`deferred` blocks.
#: ``exiting``: the command has returned; the handler only records the signal.
_state = {"received": False, "pending": False, "deferred": 0, "exiting": False}


def on_sigterm(signum, frame) -> None:
    """The SIGTERM handler: record the signal; raise :class:`Terminated` where that is safe."""
    _state["received"] = _state["pending"] = True
    check_terminated()


def install() -> None:
    """Make :func:`on_sigterm` the SIGTERM handler of this process (main thread only), and
    make a swallowed :class:`Terminated` pending again instead of printed."""
    _state.update(received=False, pending=False, deferred=0, exiting=False)
    signal.signal(signal.SIGTERM, on_sigterm)
    if not getattr(sys.unraisablehook, "keeps_sigterm", False):
        sys.unraisablehook = _pending_if_swallowed(sys.unraisablehook)


def _pending_if_swallowed(original):
    """A ``sys.unraisablehook``: an interruption raised where Python can only drop it (a
    weakref callback, a ``__del__``, an atexit function) is not printed; a SIGTERM's is made
    pending, so the next :func:`check_terminated` raises it again. Anything else goes to
    ``original``."""

    def hook(unraisable):
        if isinstance(unraisable.exc_value, Terminated):
            _state["pending"] = True
        elif not isinstance(unraisable.exc_value, KeyboardInterrupt):
            original(unraisable)

    hook.keeps_sigterm = True
    return hook


def sigterm_received() -> bool:
    """Whether a SIGTERM arrived during this process (handled, deferred or swallowed)."""
    return _state["received"]


def check_terminated() -> None:
    """A safe point: raise :class:`Terminated` if a SIGTERM's exception is pending.

    Called between the steps of long loops, so that a signal whose exception was
    swallowed (in a callback) or deferred stops the work there. Costs one lookup. An
    exception already raised is not raised again (the code that caught it is keeping the
    finished work, and writes files to do so).
    """
    if _state["pending"] and _state["deferred"] == 0 and not _state["exiting"]:
        _state["pending"] = False
        raise Terminated()


@contextlib.contextmanager
def deferred():
    """Hold SIGTERM's exception until the block ends (the block itself is not cut short).

    For short writes that must not be cut in the middle: appending a record, writing a
    temporary file and renaming it over the output. A signal during the block is raised
    when the block ends normally; if the block raises, its own exception goes on (the
    flag still makes the exit status 143).
    """
    _state["deferred"] += 1
    try:
        yield
    finally:
        _state["deferred"] -= 1
    check_terminated()


def exiting() -> None:
    """The command has returned: from now on the handler only records the signal."""
    _state["exiting"] = True


def final_status(status: int) -> int:
    """The exit status, 143 if a SIGTERM ever arrived; then SIGTERM's default action.

    Once the status is fixed, a later SIGTERM ends the process at once (a shell shows
    143), so no signal can arrive between reading the flag and the exit unseen: the
    flag is read again after the default action is restored.
    """
    exiting()
    if not _state["received"]:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return 143 if _state["received"] else status
