"""The command line's last line of defence: one ``error:`` line, never a traceback.

:func:`run_guarded` runs the typer app so that

* typer's and click's own refusals (a value out of range, not a number, a missing argument,
  an unknown option) print as the one ``error: ...`` line with exit status 2 that every
  other refusal gives, instead of a boxed panel;
* an exception no check foresaw, of the kinds that bad input or a full machine cause
  (:data:`SAFETY_NET`: ``OverflowError``, ``RecursionError``, ``MemoryError``, ``OSError``
  such as a full disk or a permission), prints one line naming it and the file or setting
  being read (:func:`~shortclust.errors.involving`; else the command's files), exit status 2;
* SIGTERM cannot be lost (:mod:`shortclust.interrupts`): the handler records it in a flag
  before raising :class:`~shortclust.errors.Terminated`; an exception swallowed (in a
  weakref callback or a ``__del__``, where Python prints "Exception ignored" and goes on)
  is raised again at the next safe point, and once the flag is set the command exits 143
  whatever it ended with: a status, a one-line error, or any exception at all (a library
  that caught the interruption and raised something else). Python's report of the
  swallowed exception is silenced, since the signal is handled.
"""

from __future__ import annotations

import atexit
import errno
import gc
import os
import sys

from shortclust import interrupts
from shortclust.errors import ShortclustError, one_line
from shortclust.interrupts import sigterm_received

__all__ = ["SAFETY_NET", "run_guarded", "usage_line"]

USER_ERROR = 2
TERMINATED = 143
#: Exceptions turned into one line by :func:`run_guarded` when no check caught them first.
SAFETY_NET = (OverflowError, RecursionError, MemoryError, OSError)


def usage_line(error) -> str:
    """A click ``UsageError`` (typer's range and type checks, a missing argument, an unknown
    option) as the one line of every refusal: the problem and where help is."""
    message = one_line(error.format_message()).rstrip(".").replace(": Input should be",
                                                                   ": it should be")
    message = message[:1].lower() + message[1:]
    context = getattr(error, "ctx", None)
    where = f" (see `{context.command_path} --help`)" if context is not None else ""
    return f"{message}{where}"


def _files_of_the_command(argv: list[str]) -> str:
    """The command's arguments that look like paths, for a message naming them."""
    paths = [arg for arg in argv[1:] if not arg.startswith("-") and ("/" in arg or "." in arg)]
    return f" (files: {', '.join(paths[:4])})" if paths else ""


def net_line(exc: BaseException, argv: list[str]) -> str:
    """The one line for an exception that reached the safety net."""
    if isinstance(exc, OSError):
        # "writing FILE" when the error names it, else "(files: the command's paths)"
        named = f" {exc.filename}" if exc.filename else ""
        files = "" if named else _files_of_the_command(argv)
        reason = exc.strerror or one_line(exc) or type(exc).__name__
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return (f"no space left on the device{' writing' if named else ''}{named}{files}: "
                    "free some space or choose another --output; finished runs are kept and "
                    "--resume continues")
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return (f"permission denied{' on' if named else ''}{named}{files} ({reason}): "
                    "choose a path you can write")
        return (f"cannot read or write{named}{files} ({reason}): check the path and the "
                "disk")
    what = {OverflowError: "a number too large to compute with",
            RecursionError: "input nested too deeply to read",
            MemoryError: "not enough memory"}
    kind = next((text for cls, text in what.items() if isinstance(exc, cls)),
                type(exc).__name__)
    detail = " ".join(str(exc).split())  # not one_line: no class name for an empty one
    involved = getattr(exc, "involving", None)  # errors.involving: the file or setting read
    where = f" in {involved}" if involved else _files_of_the_command(argv)
    return (f"{kind}{f' ({detail})' if detail else ''}{where}: check the sizes, times and "
            "counts there")


def run_guarded(app, prog_name: str = "shortclust", argv: list[str] | None = None) -> None:
    """Run the typer ``app`` under the safety net of the module docstring; exit with its
    status."""
    argv = list(sys.argv if argv is None else argv)
    # Python's shutdown walks every object still alive with its cycle collector (numba's
    # registries hold about a hundred thousand): 0.2-0.3 s of CPU on every command. Frozen,
    # they are left to the operating system. atexit runs this after the callbacks
    # registered later (temporary files' finalizers, logging); every output is written
    # and closed by then. Registered once, however often this runs in one process.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    # Start-up creates a few hundred thousand long-lived objects too (numpy, scipy, numba);
    # at the default threshold of 700 allocations the collector ran about 330 times over
    # them in `make run`, 0.15 s of its CPU. Every 10,000: about 43 times, 0.05 s; the
    # garbage cycles waiting meanwhile are a few MB at most (peak memory unchanged).
    gc.set_threshold(10_000, *gc.get_threshold()[1:])
    try:
        interrupts.install()  # inside: a signal the moment it is installed is handled below
        status = _run(app, prog_name, argv)
    except BaseException:
        # Whatever escaped: after a SIGTERM it is the interruption's doing (a library that
        # caught it and raised another exception, a cleanup that failed because it was cut
        # short); the finished work is kept and --resume continues, so exit 143.
        interrupts.exiting()
        if not sigterm_received():
            raise
        status = None
    interrupts.exiting()
    if sigterm_received() and status != TERMINATED:  # 143: the command has said so
        _say("terminated (SIGTERM)", prefix="")
    sys.exit(interrupts.final_status(status))


def _run(app, prog_name: str, argv: list[str]) -> int:
    """The app's exit status, every foreseen exception turned into its line and status."""
    try:  # typer >= 0.22 ships its own copy of click
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover - older typer, on click itself
        from click import exceptions as click_errors

    try:
        status = app(prog_name=prog_name, args=argv[1:], standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:  # `shortclust` alone: its help
        _say(exc.ctx.get_help(), prefix="")
        status = USER_ERROR
    except click_errors.UsageError as exc:
        _say(usage_line(exc))
        status = USER_ERROR
    except typer_abort():  # click's own Ctrl-C (it turns KeyboardInterrupt into Abort)
        if not sigterm_received():
            _say("interrupted", prefix="")
        status = 130
    except ShortclustError as exc:  # raised outside a command, e.g. while importing
        _say(str(exc))
        status = USER_ERROR
    except KeyboardInterrupt:
        if not sigterm_received():
            _say("interrupted", prefix="")
        status = 130
    except BrokenPipeError:  # the reader of our output went away (`| head`): nothing to say
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - held to the end of the process
        sys.stdout = sys.stderr
        status = 1
    except SAFETY_NET as exc:
        if not sigterm_received():
            _say(net_line(exc, argv))
        status = USER_ERROR
    return status if isinstance(status, int) else 0


def typer_abort():
    from typer.exceptions import Abort

    return Abort


def _say(message: str, prefix: str = "error: ") -> None:
    try:
        sys.stderr.write(f"{prefix}{message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nothing to show it on
        pass
