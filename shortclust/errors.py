"""Exceptions that the CLI turns into one-line messages with exit status 2.

Every error a user can cause (bad config, missing file, malformed data, out-of-range
parameter) is raised as a :class:`ShortclustError` whose message names the problem and
the way out, so the CLI never shows a traceback for bad input.
"""

import contextlib
import re

#: Characters a terminal acts on rather than shows (escape sequences, bidirectional
#: overrides); a message quoting a file's content shows them escaped.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def one_line(value) -> str:
    """``str(value)`` with every run of whitespace, newlines included, made one space, and
    every other control character escaped (``\\x1b``), so a quoted file cannot drive the
    terminal.

    An exception without a message gives its class name, so a message quoting it is never
    left with an empty gap.
    """
    text = " ".join(str(value).split())
    text = _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode(), text)
    if not text and isinstance(value, BaseException):
        return type(value).__name__
    return text


def short_repr(value, limit: int = 80) -> str:
    """``repr(value)`` cut at ``limit`` characters, and a long container named by its length
    without formatting it (a config's value can be megabytes: formatting it whole hung)."""
    if isinstance(value, (list, tuple, dict, set)) and len(value) > limit:
        return f"a {type(value).__name__} of {len(value)} items"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, a cluster scheduler) raised as an interruption, like Ctrl-C.

    A ``KeyboardInterrupt`` so every path that keeps finished runs on Ctrl-C keeps them on
    SIGTERM too; the CLI exits with status 143 (128 + 15) instead of 130.
    """


def interrupt_exit_code(exc: BaseException) -> int:
    """The shell's exit status for an interruption: 143 for SIGTERM, 130 for Ctrl-C."""
    return 143 if isinstance(exc, Terminated) else 130


#: Exceptions that no check foresaw but bad input can cause; :func:`involving` names their
#: source for the command line's safety net (:mod:`shortclust.apps.safety_net`).
UNFORESEEN = (OverflowError, RecursionError, MemoryError)


@contextlib.contextmanager
def involving(what: str):
    """Name what the block reads (``"input file x.csv"``, ``"--set runs=1e23"``) on an
    unforeseen exception (:data:`UNFORESEEN`) escaping it, as its ``involving`` attribute.

    The innermost block names it (the setting, rather than the config file holding it),
    and the command line's one-line message quotes it; nothing is caught.
    """
    try:
        yield
    except UNFORESEEN as exc:
        if getattr(exc, "involving", None) is None:
            with contextlib.suppress(AttributeError, TypeError):
                exc.involving = what
        raise


class ShortclustError(Exception):
    """Base class for user-facing errors: the message is shown as is, on one line.

    The message is flattened here rather than at each raise site, so a quoted exception or
    file content with a newline in it cannot break the one-line promise.
    """

    def __str__(self) -> str:
        return one_line(super().__str__())


class ConfigError(ShortclustError):
    """The experiment configuration is malformed or names something unknown."""


class DataError(ShortclustError):
    """A dataset or input file is missing, unreadable or malformed."""


class ModelFileError(ShortclustError):
    """A saved model file is missing, not a model file, of another format version, or
    altered since it was written."""


class ModelDeclarationError(TypeError):
    """A model class lacks part of the contract; the message names the class and the fix.

    A programming error of a model's author, not of a user's input: a ``TypeError``, not a
    :class:`ShortclustError`.
    """


class ParameterError(ShortclustError, ValueError):
    """A model hyperparameter is outside its allowed range.

    Also a ``ValueError``, as scikit-learn's estimator contract expects from ``fit``.
    """


def show_warnings_on_one_line(stream=None) -> None:
    """Print every Python warning as ``warning: <message>`` on one line of stderr.

    The default format quotes the source line that warned, which on a terminal reads like
    a traceback; a researcher needs what happened and what to do, which the message says
    (e.g. ``SAG did not converge in 300 epochs (tol=0.0001); raise max_iter``). Which
    warnings are shown (once per place, by default) is still up to Python's filters.
    """
    import sys
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        target = file or stream or sys.stderr
        try:
            target.write(f"warning: {one_line(message)}\n")
        except (OSError, ValueError):  # stderr closed: nothing to show it on
            pass

    warnings.showwarning = show


def allowed_hint(name: str, allowed) -> str:
    """``(did you mean 'x'? allowed: a, b, c)``, the suggestion only when one is close."""
    import difflib

    allowed = list(allowed)
    close = difflib.get_close_matches(str(name), allowed, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"({hint}allowed: {', '.join(allowed)})"
