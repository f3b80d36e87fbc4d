"""Progress bars on standard error that cost nothing when switched off."""

from __future__ import annotations

from typing import Callable, Sequence


class ProgressBars:
    """A rich ``Progress`` used as a context manager; with ``enabled=False``, ``bar`` is None
    and entering or leaving does nothing (subclasses check ``bar`` before using it).

    Parameters
    ----------
    enabled : bool
        Show the bars.
    columns : callable
        Returns the bar's rich columns (called only when enabled, so rich is imported only
        then).
    console : rich.console.Console, optional
        Where to draw; default standard error.
    """

    def __init__(self, enabled: bool, columns: Callable[[], Sequence], console=None):
        self.bar = None
        if enabled:
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(*columns(), console=console or Console(stderr=True),
                                transient=False)

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc_info):
        if self.bar is not None:
            self.bar.stop()
        return False
