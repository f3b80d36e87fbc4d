"""Where runs are fitted: one after another in this process, or in worker processes.

Both executors take the planned runs still to do and call ``write(run, outcome)`` in this
process as each finishes, so only the parent writes labels and records (whole lines), and
an interruption keeps every finished run. A run gives the same labels and record (but
timings) whichever process fits it.

With ``workers > 1`` the runs go to a pool of worker processes (loky, joblib's process
backend): each worker gets the :class:`~shortclust.pipeline.fitting.RunContext` once,
warms up once (untimed), then fits one planned run per task.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from shortclust._collector import resume as resume_collector
from shortclust.errors import ShortclustError, one_line
from shortclust.interrupts import check_terminated
from shortclust.pipeline.cluster_probe import (  # noqa: F401 (check_cluster re-exported)
    CLUSTER_INSTALL, CONNECT_TIMEOUT, ClusterError, check_cluster, probe_scheduler)
from shortclust.pipeline.fitting import Outcome, RunContext
from shortclust.pipeline.plan import PlannedRun

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
    if jobs == 1:
        return 1  # whatever the cores; counting them imports joblib (0.1 s)
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
    resume_collector()  # start-up is over (kernels loaded): see shortclust._collector
    for run in todo:
        check_terminated()  # a safe point: a swallowed SIGTERM stops here
        bars.start_run(run.seed)
        write(run, context.fit(run, bars.step))
        bars.end_run()


# --------------------------------------------------------------------------------------------
# worker processes

#: A worker's share of the experiment, set once by :func:`setup_worker`.
_worker_state: dict[str, Any] = {}


def _init_worker(context: RunContext, warm_params: dict[str, Any]) -> None:
    """Run once in each worker: :func:`prepare_worker_process`, then set up."""
    prepare_worker_process()
    setup_worker(context, warm_params)


def prepare_worker_process() -> None:
    """In a worker process, first: ignore Ctrl-C and SIGTERM, die with the parent, show
    warnings as the parent does.

    The parent alone handles Ctrl-C and SIGTERM (it writes the finished runs, then kills
    the workers), even when the signal is sent to the whole process group.
    """
    import signal

    from shortclust.errors import show_warnings_on_one_line

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _die_with_parent()
    show_warnings_on_one_line()  # as the parent shows them (the CLI's main)


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
    return process_pool(workers, _init_worker, (context, warm_params))


def process_pool(workers: int, initializer=prepare_worker_process, initargs=()):
    """A loky pool of ``workers`` single-threaded processes (:data:`WORKER_ENV`), each
    started with ``initializer(*initargs)``."""
    from joblib.externals.loky import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=initializer,
                               initargs=initargs, env=dict(WORKER_ENV))


def run_in_workers(context: RunContext, todo: list[PlannedRun], write: Write, bars,
                   workers: int) -> None:
    """Fit ``todo`` in ``workers`` processes; write each run here as soon as it finishes.

    On any exception (Ctrl-C included) runs already finished are still written, then the
    workers are killed (loky fails the runs not finished) and the exception propagates.
    """
    resume_collector()  # before any process starts: see shortclust._collector
    pool = worker_pool(workers, context, todo[0].params)
    bars.parallel(workers)

    def finished(run: PlannedRun, outcome: Outcome) -> None:
        write(run, outcome)
        bars.end_run()

    run_in_pool(pool, _fit_in_worker, todo, workers, finished)


def run_in_pool(pool, function: Callable, items: list, workers: int,
                finished: Callable) -> None:
    """``function(item)`` for every item in ``pool``, ``finished(item, result)`` here as
    each returns (those returning together in ``items``' order); the pool shut down after.

    At most one item is queued beyond the ``workers`` running (loky's own call-queue
    depth): items start in their order, and a shutdown finds none between loky's queues
    (with more queued, its manager thread raised KeyError at a shutdown). On any exception
    (Ctrl-C included) ``finished`` is still called for the items that returned, then the
    workers are killed and the exception propagates.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    waiting, position = iter(enumerate(items)), {}
    futures: dict = {}
    handled: set = set()

    def submit_next() -> None:
        index, item = next(waiting, (None, None))
        if index is not None:
            future = pool.submit(function, item)
            futures[future], position[future] = item, index

    try:
        for _ in range(workers + 1):
            submit_next()
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=position.__getitem__):
                finished(futures[future], future.result())
                handled.add(future)
                submit_next()
            pending |= set(futures) - handled
    except BaseException:
        _write_finished(futures, handled, finished)
        pool.shutdown(wait=False, kill_workers=True)
        raise
    pool.shutdown(wait=True)


def _write_finished(futures: dict, written: set, write: Write, succeeded=None) -> None:
    """Write the runs that finished but were not written yet (after an exception).

    ``succeeded(future)`` tells a finished run (default: a concurrent.futures future that
    is done, not cancelled, without exception; a Dask future says it by its status). No
    future.cancel() here: loky's kill_workers shutdown fails the pending futures itself
    and its manager thread breaks on a cancelled one.
    """
    succeeded = succeeded or _succeeded
    with contextlib.suppress(Exception):
        for future, run in futures.items():
            if future not in written and succeeded(future):
                write(run, future.result())
                written.add(future)


def _succeeded(future) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None


# --------------------------------------------------------------------------------------------
# a Dask cluster (optional: ``pip install 'shortclust[cluster]'``)

#: Per worker process: context keys already warmed up there (one warm-up per experiment).
_cluster_warmed: set = set()


def cluster_environment() -> dict[str, str]:
    """Environment of every cluster worker: one thread each, this process's numba cache."""
    import os

    env = dict(WORKER_ENV)
    if os.environ.get("NUMBA_CACHE_DIR"):
        env["NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"]
    return env


def connect_cluster(cluster: str, workers: int, timeout: float = CONNECT_TIMEOUT):
    """``(client, local_cluster)``: a client of a LocalCluster of ``workers`` single-threaded
    processes started here (``local``; closed by the caller), or of the scheduler at
    ``cluster`` (``local_cluster`` None)."""
    check_cluster(cluster)
    import logging

    import dask
    from distributed import Client, LocalCluster

    if cluster == "local":
        environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
        environ.update(cluster_environment())
        try:
            with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}), \
                    _environment_restored(environ):
                local = LocalCluster(n_workers=workers, threads_per_worker=1,
                                     processes=True, host="127.0.0.1", dashboard_address=None,
                                     silence_logs=logging.ERROR)
        except (OSError, RuntimeError, TimeoutError) as exc:
            raise ClusterError(f"--cluster local: the Dask workers did not start "
                               f"({one_line(exc)})") from None
        try:
            return Client(local), local
        except BaseException:
            local.close()
            raise
    try:
        client = Client(cluster, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"--cluster {cluster}: no scheduler answers there "
                           f"({one_line(exc)})") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise ClusterError(f"--cluster {cluster}: the scheduler has no worker (none joined "
                           f"within {timeout:g} s): start some with `dask worker "
                           f"{cluster}`") from None
    return client, None


@contextlib.contextmanager
def _environment_restored(names):
    """Put this process's values of ``names`` back on leaving the block.

    distributed's nanny hands ``pre-spawn-environ`` to the worker it spawns by writing it into
    the parent's ``os.environ`` and leaves it there; numba then raises on the parent's next
    compilation ("Cannot set NUMBA_NUM_THREADS ... once the threads have been launched").
    """
    import os

    saved = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def cluster_client(cluster: str, workers: int):
    """``(client, local_cluster)`` as :func:`connect_cluster`, closed on leaving the block."""
    client, local = connect_cluster(cluster, workers)
    try:
        yield client, local
    finally:
        with contextlib.suppress(Exception):
            client.close()
        if local is not None:
            with contextlib.suppress(Exception):
                local.close()


def _set_worker_environment(env: dict[str, str]) -> None:
    """On a cluster worker (``client.run``): set ``env`` before any run (numba's cache
    directory is read again if numba was already imported)."""
    import os
    import sys

    os.environ.update(env)
    if "numba" in sys.modules and "NUMBA_CACHE_DIR" in env:
        from numba.core import config

        config.reload_config()


def _ignore_interrupts() -> None:
    """On a LocalCluster's worker (``client.run``, in its main thread): ignore Ctrl-C and
    SIGTERM sent to the whole process group; the parent cancels the runs and closes the
    cluster (as with ``--jobs``)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _fit_on_cluster(context: RunContext, key: str, warm_params: dict[str, Any],
                    run: PlannedRun) -> Outcome:
    """A cluster task: warm up once per worker and experiment (untimed), fit one run."""
    if key not in _cluster_warmed:
        context.warm_up(warm_params)
        _cluster_warmed.add(key)
    return context.fit(run, _ignore_progress)


def run_on_cluster(context: RunContext, todo: list[PlannedRun], write: Write, bars,
                   cluster: str, workers: int) -> None:
    """Fit ``todo`` on a Dask cluster; write each run here as soon as it finishes.

    ``cluster`` is ``local`` (a LocalCluster of ``workers`` single-threaded processes,
    started here and closed at the end) or a scheduler address. The context is scattered
    once to every worker; each worker warms up once. On any exception (Ctrl-C included)
    the runs already finished are written, the others cancelled, the client closed, and
    the exception propagates.
    """
    from distributed import as_completed

    resume_collector()  # before any process starts: see shortclust._collector
    futures: dict = {}
    written: set = set()
    with cluster_client(cluster, workers) as (client, local):
        try:
            client.run(_set_worker_environment, cluster_environment())
            if local is not None:
                client.run(_ignore_interrupts)
            n_threads = sum(info.get("nthreads", 1)
                            for info in client.scheduler_info()["workers"].values())
            bars.parallel(max(1, n_threads))
            shared = client.scatter(context, broadcast=True)
            warm_params = todo[0].params
            for index, run in enumerate(todo):  # earlier runs first (plan order)
                future = client.submit(_fit_on_cluster, shared, shared.key, warm_params, run,
                                       pure=False, priority=len(todo) - index)
                futures[future] = run
            for future in as_completed(list(futures)):
                write(futures[future], future.result())
                written.add(future)
                bars.end_run()
        except BaseException:
            _write_finished(futures, written, write, lambda f: f.status == "finished")
            with contextlib.suppress(Exception):
                client.cancel([f for f in futures if f not in written])
            raise
