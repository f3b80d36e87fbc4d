"""What a fit costs: CPU seconds and peak resident memory, measured around the timed fit.

:class:`FitResources` is a context manager put around a run's fit (:mod:`.fitting`). CPU
time is the process's (``time.process_time``: every thread of the process, so a fit that
uses a BLAS or OpenMP pool counts all of it). Peak memory is the process's peak resident
set during the fit above its resident set just before: on Linux the kernel's high-water
mark ``VmHWM`` is reset at the start (``/proc/self/clear_refs``, value 5) and read at the
end, so memory the fit allocates and frees again still counts. Elsewhere (or where the
reset is refused) the peak is not measured and reads ``None``: a number that would
include the peak of an earlier run is worse than none.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def status_kib(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``), or None."""
    try:
        match = re.search(rf"^{field}:\s+(\d+)\s+kB", _STATUS.read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def reset_peak() -> bool:
    """Reset the process's peak resident set to its current one; False if impossible."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


class FitResources:
    """CPU time and peak memory of the code run inside ``with FitResources() as cost:``.

    Attributes
    ----------
    cpu_seconds : float
        CPU time of the process (user + system, all threads) inside the block.
    peak_mb : float or None
        Peak resident memory inside the block above the resident memory at its start, in
        MiB (2**20 bytes); None where it cannot be measured.

    Examples
    --------
    >>> import numpy as np
    >>> with FitResources() as cost:
    ...     block = np.ones(4_000_000)  # 30.5 MiB, written so it is resident
    >>> cost.cpu_seconds >= 0
    True

    ``peak_mb`` counts only memory the process did not hold before the block: pages freed
    earlier and reused by the allocator add nothing, so inside a long test session it may
    be 0.0 for the block above.

    >>> cost.peak_mb is None or cost.peak_mb >= 0
    True
    """

    cpu_seconds: float = 0.0
    peak_mb: float | None = None

    def __enter__(self) -> "FitResources":
        self._resettable = reset_peak()
        self._rss = status_kib("VmRSS")
        self._cpu = time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.cpu_seconds = time.process_time() - self._cpu
        peak = status_kib("VmHWM") if self._resettable else None
        if peak is not None and self._rss is not None:
            self.peak_mb = max(peak - self._rss, 0) / 1024.0

    def fields(self) -> dict:
        """The record's fields: ``fit_cpu_seconds`` and ``fit_peak_mb``."""
        return {"fit_cpu_seconds": self.cpu_seconds, "fit_peak_mb": self.peak_mb}
