"""The command line's last line of defence: one ``error:`` line, never a traceback.

:func:`run_guarded` runs the typer app so that

* typer's and click's own refusals (a value out of range, not a number, a missing argument,
  an unknown option) print as the one ``error: ...`` line with exit status 2 that every
  other refusal gives, instead of a boxed panel;
* an exception no check foresaw, of the kinds that bad input or a full machine cause
  (:data:`SAFETY_NET`: ``OverflowError``, ``RecursionError``, ``MemoryError``, ``OSError``
  such as a full disk or a permission), prints one line naming it and the command's files,
  exit status 2;
* SIGTERM cannot be lost. The handler (:func:`on_sigterm`) records it before raising
  :class:`~shortclust.errors.Terminated`; if that exception is swallowed (raised inside a
  weakref callback or a ``__del__``, where Python prints "Exception ignored" and goes on),
  it is raised again at the next safe point (:func:`check_terminated`, which long loops
  call) and, at the latest, the command exits 143 when it returns. Python's report of the
  swallowed exception is silenced (:func:`_quiet_unraisable`), since the signal is handled.
"""

from __future__ import annotations

import errno
import os
import signal
import sys

from shortclust.errors import ShortclustError, Terminated, one_line

__all__ = ["SAFETY_NET", "check_terminated", "on_sigterm", "run_guarded", "usage_line"]

USER_ERROR = 2
TERMINATED = 143
#: Exceptions turned into one line by :func:`run_guarded` when no check caught them first.
SAFETY_NET = (OverflowError, RecursionError, MemoryError, OSError)

_received = {"sigterm": False}


def on_sigterm(signum, frame) -> None:
    """The SIGTERM handler: remember the signal, then raise :class:`Terminated`."""
    _received["sigterm"] = True
    raise Terminated()


def sigterm_received() -> bool:
    """Whether SIGTERM arrived during this process (handled or swallowed)."""
    return _received["sigterm"]


def check_terminated() -> None:
    """A safe point: raise :class:`Terminated` again if a SIGTERM's exception was swallowed.

    Long loops (fits, table building) call it between steps, so a signal whose exception
    was lost in a callback still stops the work there.
    """
    if _received["sigterm"]:
        raise Terminated()


def _quiet_unraisable(original):
    """A ``sys.unraisablehook`` that stays silent for a swallowed interruption (the flag has
    it) and hands anything else to ``original``."""

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        original(unraisable)

    return hook


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
        where = f" {exc.filename}" if exc.filename else _files_of_the_command(argv)
        reason = exc.strerror or one_line(exc) or type(exc).__name__
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return (f"no space left on the device writing{where}: free some space or choose "
                    "another --output; finished runs are kept and --resume continues")
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"permission denied on{where} ({reason}): choose a path you can write"
        return f"cannot read or write{where} ({reason}): check the path and the disk"
    what = {OverflowError: "a number too large to compute with",
            RecursionError: "input nested too deeply to read",
            MemoryError: "not enough memory"}
    kind = next((text for cls, text in what.items() if isinstance(exc, cls)),
                type(exc).__name__)
    detail = one_line(exc)
    return (f"{kind}{f' ({detail})' if detail else ''}{_files_of_the_command(argv)}: check "
            "the sizes, times and counts in the input and settings")


def run_guarded(app, prog_name: str = "shortclust", argv: list[str] | None = None) -> None:
    """Run the typer ``app`` under the safety net of the module docstring; exit with its
    status."""
    try:  # typer >= 0.22 ships its own copy of click
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover - older typer, on click itself
        from click import exceptions as click_errors

    argv = list(sys.argv if argv is None else argv)
    signal.signal(signal.SIGTERM, on_sigterm)
    sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
    try:
        status = app(prog_name=prog_name, args=argv[1:], standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:  # `shortclust` alone: its help
        _say(exc.ctx.get_help(), prefix="")
        status = USER_ERROR
    except click_errors.UsageError as exc:
        _say(usage_line(exc))
        status = USER_ERROR
    except typer_abort():
        _say("interrupted", prefix="")
        status = TERMINATED if sigterm_received() else 130
    except ShortclustError as exc:  # raised outside a command, e.g. while importing
        _say(str(exc))
        status = USER_ERROR
    except KeyboardInterrupt:
        _say("terminated (SIGTERM)" if sigterm_received() else "interrupted", prefix="")
        status = TERMINATED if sigterm_received() else 130
    except BrokenPipeError:  # the reader of our output went away (`| head`): nothing to say
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - held to the end of the process
        sys.stdout = sys.stderr
        status = 1
    except SAFETY_NET as exc:
        if sigterm_received():
            status = TERMINATED
        else:
            _say(net_line(exc, argv))
            status = USER_ERROR
    status = status if isinstance(status, int) else 0
    if sigterm_received() and status not in (TERMINATED, USER_ERROR):
        # The signal's exception was swallowed somewhere and the command ran on: the work
        # it finished is kept (as after any interruption), but the exit says SIGTERM.
        _say("terminated (SIGTERM)", prefix="")
        status = TERMINATED
    sys.exit(status)


def typer_abort():
    from typer.exceptions import Abort

    return Abort


def _say(message: str, prefix: str = "error: ") -> None:
    try:
        sys.stderr.write(f"{prefix}{message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nothing to show it on
        pass
