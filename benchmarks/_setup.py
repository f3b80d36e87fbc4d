"""What every benchmark does before numpy loads: one thread per numerical library.

The acceptance figures are stated for one core, and a second thread would make the
timings depend on what else the machine runs. Each benchmark imports this module (it sits
beside them, on ``sys.path`` when a benchmark runs as ``python benchmarks/bench_X.py``)
and calls :func:`one_thread` first; a variable already set by the caller wins. It also
holds :func:`chosen_names`, the check of an ``--only`` list that several benchmarks share.
"""

import os
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def one_thread() -> None:
    """Default every thread-count variable to 1 (before numpy, scipy or numba load)."""
    for variable in THREAD_VARIABLES:
        os.environ.setdefault(variable, "1")


def chosen_names(text: str, known, what: str):
    """The comma-separated names in ``text``, or None after one error line on stderr.

    ``known`` are the names the benchmark declares and ``what`` names them in the message
    (e.g. ``"cell"``), so that a mistyped ``--only`` stops before any fit.
    """
    names = [name for name in text.split(",") if name]
    unknown = [name for name in names if name not in known]
    if unknown:
        print(f"error: unknown {what}(s) {', '.join(unknown)}; choose from {', '.join(known)}",
              file=sys.stderr)
        return None
    return names
