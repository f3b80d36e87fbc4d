"""What every benchmark does before numpy loads: one thread per numerical library.

The acceptance figures are stated for one core, and a second thread would make the
timings depend on what else the machine runs. Each benchmark imports this module (it sits
beside them, on ``sys.path`` when a benchmark runs as ``python benchmarks/bench_X.py``)
and calls :func:`one_thread` first; a variable already set by the caller wins.
"""

import os

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def one_thread() -> None:
    """Default every thread-count variable to 1 (before numpy, scipy or numba load)."""
    for variable in THREAD_VARIABLES:
        os.environ.setdefault(variable, "1")
