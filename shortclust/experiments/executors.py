"""Where runs are fitted: one after another in this process, or in worker processes.

Both executors take the planned runs still to do and call ``write(run, outcome)`` in this
process as each finishes, so only the parent writes labels and records (whole lines), and
an interruption keeps every finished run. A run gives the same labels and record (but
timings) whichever process fits it.

With ``workers > 1`` the runs go to a pool of worker processes (loky, joblib's process
backend): each worker gets the :class:`~shortclust.experiments.fitting.RunContext` once,
warms up once (untimed), then fits one planned run per task.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from shortclust.experiments.fitting import Outcome, RunContext
from shortclust.experiments.plan import PlannedRun

#: Environment of every worker, set before it imports anything: one thread per process for
#: OpenMP, the BLAS libraries and numba, so N workers use N cores rather than N x cores.
WORKER_ENV = {
    name: "1"
    for name in (
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS",
    )
}

Write = Callable[[PlannedRun, Outcome], None]


def resolve_jobs(jobs: int) -> int:
    """The number of worker processes ``jobs`` asks for, at most the number of cores.

    ``0`` or ``-1`` mean every core; below -1 counts back from every core as joblib does
    (``-2``: all but one); a result below 1 is 1. More workers than cores would only make
    every run slower (each worker fits with one thread), so ``--jobs 999`` means every core.
    """
    jobs = int(jobs)
    cores = cpu_cores()
    if jobs >= 1:
        return min(jobs, cores)
    return max(1, cores if jobs in (0, -1) else cores + 1 + jobs)


def cpu_cores() -> int:
    """The cores this process may use (joblib's count: affinity and cgroup quotas)."""
    from joblib import cpu_count

    return max(1, int(cpu_count()))


def run_here(context: RunContext, todo: list[PlannedRun], write: Write, bars) -> None:
    """Fit ``todo`` one after another in this process, after one untimed warm-up."""
    if todo:
        context.warm_up(todo[0].params)
    for run in todo:
        bars.start_run(run.seed)
        write(run, context.fit(run, bars.step))
        bars.end_run()


# --------------------------------------------------------------------------------------------
# worker processes

#: A worker's share of the experiment, set once by :func:`setup_worker`.
_worker_state: dict[str, Any] = {}


def _init_worker(context: RunContext, warm_params: dict[str, Any]) -> None:
    """Run once in each worker: ignore Ctrl-C and SIGTERM, show warnings as the parent
    does, set up.

    The parent alone handles Ctrl-C and SIGTERM (it writes the finished runs, then kills
    the workers), even when the signal is sent to the whole process group.
    """
    import signal

    from shortclust.errors import show_warnings_on_one_line

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _die_with_parent()
    show_warnings_on_one_line()  # as the parent shows them (the CLI's main)
    setup_worker(context, warm_params)


def _die_with_parent(poll_seconds: float = 0.5) -> None:
    """Make this worker exit when its parent dies, even by SIGKILL (no handler runs then).

    A worker left behind would go on fitting for hours, and keep loky's resource trackers
    alive (they exit when the last process holding their pipe is gone). Two guards:

    - Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, delivered by the kernel even while the
      worker is inside a compiled kernel holding the GIL. It fires when the parent's
      *thread* that started the worker exits: loky starts workers from the thread calling
      ``submit`` (the one running ``run_in_workers``, which outlives the pool) or from its
      manager thread (which lives as long as the pool), so it does not fire early here.
    - everywhere: a daemon thread that exits the worker as soon as its parent changes
      (the worker is re-parented to init or a subreaper), whatever started it.
    """
    import os
    import sys
    import threading
    import time

    parent = os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 is PR_SET_PDEATHSIG
    if parent == 1 or os.getppid() != parent:  # the parent died before the guard was set
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="shortclust-parent-watch", daemon=True).start()


def setup_worker(context: RunContext, warm_params: dict[str, Any]) -> None:
    """Keep the context for the worker's tasks and warm up (untimed)."""
    _worker_state["context"] = context
    context.warm_up(warm_params)


def _fit_in_worker(run: PlannedRun) -> Outcome:
    return _worker_state["context"].fit(run, _ignore_progress)


def _ignore_progress(step: int, steps: int, n_clusters: int) -> None:
    """A worker's fit callback: progress is counted in runs, by the parent."""


def worker_pool(workers: int, context: RunContext, warm_params: dict[str, Any]):
    """A loky pool of ``workers`` processes, each set up with ``context``."""
    from joblib.externals.loky import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                               initargs=(context, warm_params), env=dict(WORKER_ENV))


def run_in_workers(context: RunContext, todo: list[PlannedRun], write: Write, bars,
                   workers: int) -> None:
    """Fit ``todo`` in ``workers`` processes; write each run here as soon as it finishes.

    On any exception (Ctrl-C included) runs already finished are still written, then the
    workers are killed (loky fails the runs not finished) and the exception propagates.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    pool = worker_pool(workers, context, todo[0].params)
    bars.parallel(workers)
    # At most one queued run beyond the running ones (loky's own call-queue depth): runs
    # start in plan order and a shutdown finds no run between its queues.
    waiting, position = iter(todo), {run.run_id: index for index, run in enumerate(todo)}
    futures: dict = {}
    written: set = set()

    def submit_next() -> None:
        run = next(waiting, None)
        if run is not None:
            futures[pool.submit(_fit_in_worker, run)] = run

    try:
        for _ in range(workers + 1):
            submit_next()
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: position[futures[f].run_id]):
                write(futures[future], future.result())
                written.add(future)
                bars.end_run()
                submit_next()
            pending |= set(futures) - written
    except BaseException:
        _write_finished(futures, written, write)
        pool.shutdown(wait=False, kill_workers=True)
        raise
    pool.shutdown(wait=True)


def _write_finished(futures: dict, written: set, write: Write) -> None:
    """Write the runs that finished but were not written yet (after an exception).

    No future.cancel(): loky's kill_workers shutdown fails the pending futures itself and
    its manager thread breaks on a cancelled one.
    """
    with contextlib.suppress(Exception):
        for future, run in futures.items():
            if future in written or not future.done() or future.cancelled():
                continue
            if future.exception() is None:
                write(run, future.result())
