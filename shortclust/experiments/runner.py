"""Run one experiment config: every seed once, a record per run, a summary at the end.

Everything that can be checked is checked before anything is written: the config, the
model and its parameters, the dataset (found and loadable) and, on ``resume``, the existing
records; creating the output directory comes last, before the first fit. The corpus is
loaded once and each seed fits a fresh estimator, whose labels and record are written
before the next run starts, so an interruption loses at most the run in progress.

With ``jobs > 1`` the runs are fitted in a pool of worker processes (loky, joblib's
process backend): each worker gets the features once, compiles (warms up) once, then fits
one planned run per task and sends back its labels and the fields of its record. The
parent process alone writes labels and records, as each run finishes, so records stay
whole lines and Ctrl-C keeps every finished run. A run gives the same labels and record
(but timings) whichever process fits it.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from shortclust.config import ExperimentConfig, check_model_params, full_model_params
from shortclust.errors import ConfigError, ShortclustError
from shortclust.experiments.records import RecordStore, make_record, make_run_id
from shortclust.experiments.summary import summarize, summary_table, write_summary


class ExperimentInterrupted(Exception):
    """The user stopped the experiment (Ctrl-C); finished runs are recorded.

    Attributes
    ----------
    n_done, n_total : int
        Runs recorded so far and runs planned.
    exit_code : int
        130, the shell convention for SIGINT.
    """

    exit_code = 130

    def __init__(self, n_done: int, n_total: int):
        self.n_done, self.n_total = n_done, n_total
        super().__init__(
            f"interrupted after {n_done} of {n_total} runs; rerun with --resume to continue"
        )


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` produced.

    Attributes
    ----------
    records : list of dict
        Every record in the output directory (this session's and resumed ones).
    summary : pandas.DataFrame
        :func:`~shortclust.experiments.summary.summarize` of ``records``.
    output_dir : Path
        Where records, labels and summaries were written.
    n_run, n_skipped : int
        Runs fitted in this call, and runs skipped because already recorded (``resume``).
    """

    records: list[dict[str, Any]]
    summary: pd.DataFrame
    output_dir: Path
    n_run: int
    n_skipped: int


@dataclass
class _PlannedRun:
    seed: int
    run_id: str
    params: dict[str, Any]


@dataclass
class _Outcome:
    """What fitting one run gives: everything its labels file and record need."""

    labels: np.ndarray
    n_clusters: int
    n_iter: int | None
    fit_seconds: float
    metrics: dict[str, float] | None


def resolve_jobs(jobs: int) -> int:
    """The number of worker processes ``jobs`` asks for: ``0`` or ``-1`` mean every core.

    Below -1 counts back from every core as joblib does (``-2``: all but one); a result
    below 1 is 1.
    """
    jobs = int(jobs)
    if jobs >= 1:
        return jobs
    from joblib import cpu_count

    cores = cpu_count()
    return max(1, cores if jobs in (0, -1) else cores + 1 + jobs)


def run_experiment(
    config: ExperimentConfig,
    resume: bool = False,
    data_dir=None,
    quiet: bool = False,
    progress: bool | None = None,
    console=None,
    points: list[dict[str, Any]] | None = None,
    table: bool = True,
    jobs: int | None = None,
    fit: bool = True,
) -> ExperimentResult:
    """Fit the configured model once per seed (and grid point), record every run, summarise.

    Parameters
    ----------
    config : ExperimentConfig
        A config from :func:`shortclust.config.load_config` (checked again here).
    resume : bool
        Skip seeds whose run_id is already in ``records.jsonl``. Without it an existing
        ``records.jsonl`` is renamed to ``records.<timestamp>.jsonl.bak`` and the
        experiment starts fresh.
    data_dir : path-like, optional
        Where registered datasets live (else ``$SHORTCLUST_DATA`` or the user cache).
    quiet : bool
        Print nothing (no messages, progress bars or summary table); files are still written.
    progress : bool, optional
        Show progress bars; default: when not ``quiet``.
    console : rich.console.Console, optional
        Where messages, bars and the table go (default: stderr for messages and bars,
        stdout for the table).
    points : list of dict, optional
        Grid points of a sweep: each maps model parameter names to values that replace the
        config's. Every point runs every seed. Default: the config's parameters only.
    table : bool
        Print the summary table at the end (unless ``quiet``); a sweep prints its own.
    jobs : int, optional
        Worker processes fitting runs in parallel: 1 fits them here, one after another;
        ``0`` or ``-1`` use every core (see :func:`resolve_jobs`); never more workers than
        runs to do. Default: 1. Labels
        and records do not depend on it (only ``fit_seconds`` and timestamps do), though
        with several workers records are appended in the order runs finish; the summary
        lists them in plan order either way.
    fit : bool
        ``False``: fit nothing and write nothing (no directory, no summary), only collect
        the runs already recorded; used to rebuild tables while a long reproduction is
        still running.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ConfigError, DataError, ParameterError
        Before any fit, for a bad config, model, parameter, dataset or output directory.
    ExperimentInterrupted
        On Ctrl-C, after keeping every finished record and writing the summary of them.
    """
    model_class = _check_config(config)
    param_sets = _param_sets(config, points)
    corpus = load_experiment_corpus(config, data_dir)
    # Without fitting, the representation (sentence embeddings: minutes) is never needed.
    features = _features(config, corpus) if fit else None
    plan = _plan_runs(config, corpus, param_sets)
    store = RecordStore(config.output_dir)
    if not fit:
        return _recorded_only(store, plan)
    say = Messages(quiet, console)
    todo = _select_runs(store, plan, resume, say)
    created = make_output_dirs(store)
    show_bars = (not quiet) if progress is None else progress
    workers = min(resolve_jobs(1 if jobs is None else jobs), len(todo))
    order = plan if workers > 1 else None
    try:
        with RunProgress(show_bars, len(plan), len(plan) - len(todo), console) as bars:
            if workers > 1:
                _run_parallel(config, corpus, features, model_class, todo, store, bars, workers)
            else:
                if todo:
                    extras = _fit_extras(model_class, corpus)
                    _warm_up(model_class, todo[0].params, features, extras)
                for run in todo:
                    _run_once(config, corpus, features, model_class, run, store, bars)
    except KeyboardInterrupt:
        finish_records(store, say, print_table=False, order=order)
        raise ExperimentInterrupted(_count_done(store, plan), len(plan)) from None
    except ShortclustError:
        remove_if_unused(created)
        raise
    records, summary = finish_records(store, say, print_table=table and not quiet, order=order)
    return ExperimentResult(records, summary, store.output_dir, len(todo), len(plan) - len(todo))


# --------------------------------------------------------------------------------------------
# checks and planning (nothing written yet)


def _check_config(config: ExperimentConfig) -> type:
    if config.output_dir.exists() and not config.output_dir.is_dir():
        raise ConfigError(
            f"output '{config.output_dir}' is a file: choose a directory with --output"
        )
    return check_model_params(config.model, where=f"config '{config.name}'")


def load_experiment_corpus(config: ExperimentConfig, data_dir):
    from shortclust.data import load_corpus

    return load_corpus(config.dataset, preprocess=config.preprocess, data_dir=data_dir)


def _param_sets(config: ExperimentConfig, points) -> list[dict[str, Any]]:
    """Full, checked constructor parameters for each grid point (the config's alone if none).

    Every point is validated before anything runs, so a bad value in the middle of a grid
    stops the sweep up front instead of after hours of work.
    """
    param_sets = []
    for point in points or [{}]:
        spec = config.model.model_copy(update={"params": {**config.model.params, **point}})
        where = f"config '{config.name}'" + (f" at {_describe_point(point)}" if point else "")
        check_model_params(spec, where=where)
        param_sets.append(full_model_params(spec))
    return param_sets


def _describe_point(point: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in point.items())


def _features(config: ExperimentConfig, corpus):
    """What every run is fitted on: the counts, or the config's representation (built once)."""
    from shortclust.representations import build_representation

    return build_representation(corpus, config.representation_spec)


def _plan_runs(config: ExperimentConfig, corpus, param_sets) -> list[_PlannedRun]:
    # The pipeline actually applied ("auto" resolved), so ids do not depend on the spelling.
    # A representation other than counts is part of what a run is, so part of its id.
    model = config.model.name
    if config.representation is not None and config.representation["name"] != "counts":
        model = f"{model}@{json.dumps(config.representation, sort_keys=True)}"
    plan = []
    for params in param_sets:
        identity = (config.dataset, corpus.preprocess, model, params)
        plan += [
            _PlannedRun(seed, make_run_id(*identity, seed, config.metrics), params)
            for seed in config.seed_list
        ]
    return plan


def make_output_dirs(store: RecordStore) -> list[Path]:
    """Create the output and labels directories: the last check, after every other one.

    An unusable ``--output`` (under a file, not writable) then fails here in one line
    instead of as a traceback after the first fit. Returns the directories created here,
    deepest first, for :func:`remove_if_unused`.
    """
    missing = [d for d in (store.labels_dir, *store.labels_dir.parents) if not d.exists()]
    try:
        store.labels_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"output '{store.output_dir}': cannot create it ({exc.strerror or exc}): "
            "choose another directory with --output"
        ) from None
    return missing


def remove_if_unused(created: list[Path]) -> None:
    """Remove the directories a failed call created, if nothing was written into them.

    A model that refuses its input at the first fit (K above the number of documents)
    then leaves no empty output directory behind.
    """
    for directory in created:
        with contextlib.suppress(OSError):
            directory.rmdir()  # only empty directories go


def _select_runs(store: RecordStore, plan, resume: bool, say) -> list[_PlannedRun]:
    if not resume:
        if store.exists():
            backup = store.move_aside()
            say(f"moved existing {store.records_path.name} to {backup}; starting fresh")
        return list(plan)
    done = store.done_run_ids()
    todo = [run for run in plan if run.run_id not in done]
    say(f"resume: {len(plan) - len(todo)} of {len(plan)} runs already recorded, {len(todo)} to run")
    return todo


def _recorded_only(store: RecordStore, plan) -> ExperimentResult:
    """``fit=False``: the records already there; nothing is fitted, created or written."""
    records = store.load()
    summary = summarize(records)
    done = {record["run_id"] for record in records}
    return ExperimentResult(records, summary, store.output_dir, 0,
                            sum(run.run_id in done for run in plan))


def _count_done(store: RecordStore, plan) -> int:
    done = store.done_run_ids()
    return sum(run.run_id in done for run in plan)


# --------------------------------------------------------------------------------------------
# one run


def _fit_extras(model_class, corpus) -> dict[str, Any]:
    """Keyword arguments for ``fit`` beyond the features: ``counts`` if the model declares it.

    A model whose capabilities declare ``fit_counts`` (iterative classification) gets the
    corpus's term counts beside the configured representation, row for row.
    """
    return {"counts": corpus.counts} if model_class.capabilities.fit_counts else {}


def _warm_up(model_class, params, features, extras, n_docs: int = 32) -> None:
    """Fit once on the first few documents, untimed and unrecorded.

    Compiled kernels (numba) are built or loaded from cache on their first call; doing that
    here keeps the one-off cost out of the first run's ``fit_seconds``.
    """
    n = min(features.shape[0], n_docs)
    try:
        model_class(**params, random_state=0).fit(
            features[:n], **{key: value[:n] for key, value in extras.items()}
        )
    except Exception:  # noqa: BLE001 - a real problem shows up in the timed fit
        pass


def _run_once(config, corpus, features, model_class, run: _PlannedRun, store, bars) -> None:
    bars.start_run(run.seed)
    outcome = _fit_run(model_class, features, _fit_extras(model_class, corpus), run,
                       bars.iteration, corpus.labels, config.metrics)
    _write_run(config, corpus, run, outcome, store)
    bars.end_run()


def _fit_run(model_class, features, extras, run: _PlannedRun, callback, truth,
             metric_names) -> _Outcome:
    """Fit one planned run (timed) and evaluate it: the same code here and in workers."""
    model = model_class(**run.params, random_state=run.seed)
    started = time.perf_counter()
    model.fit(features, callback=callback, **extras)
    fit_seconds = time.perf_counter() - started
    labels = _fitted_labels(model, features.shape[0])
    return _Outcome(
        labels=labels,
        n_clusters=int(getattr(model, "n_clusters_", len(np.unique(labels)))),
        n_iter=_optional_int(getattr(model, "n_iter_", None)),
        fit_seconds=fit_seconds,
        metrics=_metrics(truth, labels, metric_names),
    )


def _write_run(config, corpus, run: _PlannedRun, outcome: _Outcome, store) -> None:
    """Labels first, then the record (one whole line): only the parent process writes."""
    store.write_labels(run.run_id, outcome.labels)
    store.append(_record(config, corpus, run, outcome))


def _fitted_labels(model, n_docs: int) -> np.ndarray:
    labels = np.asarray(model.labels_)
    if labels.shape != (n_docs,):
        raise RuntimeError(
            f"{type(model).__name__}.labels_ has shape {labels.shape}, expected ({n_docs},)"
        )
    return labels


def _record(config, corpus, run: _PlannedRun, outcome: _Outcome) -> dict[str, Any]:
    return make_record(
        run_id=run.run_id,
        config_name=config.name,
        seed=run.seed,
        dataset=config.dataset,
        dataset_sha256=corpus.sha256,
        preprocess=corpus.preprocess,
        model=config.model.name,
        params=run.params,
        metrics=outcome.metrics,
        n_clusters=outcome.n_clusters,
        n_iter=outcome.n_iter,
        fit_seconds=outcome.fit_seconds,
        n_docs=int(corpus.n_docs),
        **({"representation": config.representation} if config.representation else {}),
    )


def _metrics(truth, labels, names) -> dict[str, float] | None:
    if truth is None:
        return None
    from shortclust.evaluation.metrics import evaluate

    return evaluate(truth, labels, metrics=names)


def _optional_int(value) -> int | None:
    return None if value is None else int(value)


# --------------------------------------------------------------------------------------------
# runs in worker processes

#: Environment of every worker, set before it imports anything: one thread per process for
#: OpenMP, the BLAS libraries and numba, so N workers use N cores rather than N x cores.
WORKER_ENV = {
    name: "1"
    for name in (
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS",
    )
}

#: A worker's share of the experiment, set once by :func:`_init_worker`.
_worker_state: dict[str, Any] = {}


def _init_worker(model_class, features, extras, truth, metric_names, warm_params) -> None:
    """Run once in each worker: keep the features, ignore Ctrl-C, show warnings as the
    parent does (one line each), warm up (untimed).

    The parent alone handles Ctrl-C (it stops the workers); the features arrive once per
    worker here instead of once per run.
    """
    import signal

    from shortclust.errors import show_warnings_on_one_line

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    show_warnings_on_one_line()  # as the parent shows them (the CLI's main)
    _setup_worker(model_class, features, extras, truth, metric_names, warm_params)


def _setup_worker(model_class, features, extras, truth, metric_names, warm_params) -> None:
    _worker_state.update(model_class=model_class, features=features, extras=extras,
                         truth=truth, metric_names=metric_names)
    _warm_up(model_class, warm_params, features, extras)


def _fit_in_worker(run: _PlannedRun) -> _Outcome:
    state = _worker_state
    return _fit_run(state["model_class"], state["features"], state["extras"], run,
                    _ignore_progress, state["truth"], state["metric_names"])


def _ignore_progress(iteration: int, max_iter: int, n_clusters: int) -> None:
    """A worker's fit callback: progress is counted in runs, by the parent."""


def _worker_pool(workers: int, initargs: tuple):
    from joblib.externals.loky import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                               initargs=initargs, env=dict(WORKER_ENV))


def _run_parallel(config, corpus, features, model_class, todo, store, bars, workers) -> None:
    """Fit ``todo`` in ``workers`` processes; write each run here as soon as it finishes.

    On any exception (Ctrl-C included) runs already finished are still written, then the
    workers are killed (loky fails the runs not finished) and the exception propagates.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    extras = _fit_extras(model_class, corpus)
    initargs = (model_class, features, extras, corpus.labels, list(config.metrics),
                todo[0].params)
    pool = _worker_pool(workers, initargs)
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
                _write_run(config, corpus, futures[future], future.result(), store)
                written.add(future)
                bars.end_run()
                submit_next()
            pending |= set(futures) - written - done
    except BaseException:
        # No future.cancel(): loky's kill_workers shutdown fails the pending futures itself
        # and its manager thread breaks on a cancelled one.
        with contextlib.suppress(Exception):
            for future in futures:
                if future in written or not future.done() or future.cancelled():
                    continue
                if future.exception() is None:
                    _write_run(config, corpus, futures[future], future.result(), store)
        pool.shutdown(wait=False, kill_workers=True)
        raise
    pool.shutdown(wait=True)


# --------------------------------------------------------------------------------------------
# output


def finish_records(store: RecordStore, say, print_table: bool, order=None):
    """Load every record, write the summary and, if asked, print its table.

    ``order`` (planned runs): list the records in plan order (stably; records of runs not
    in the plan first), as parallel runs append them in the order they finish.
    """
    records = store.load()
    if order is not None:
        position = {run.run_id: index for index, run in enumerate(order)}
        records.sort(key=lambda record: position.get(record.get("run_id"), -1))
    summary = summarize(records)
    csv_path, md_path = write_summary(summary, store.output_dir)
    if print_table:
        say.table(summary_table(summary, title=f"{store.output_dir}"))
        say(f"records: {store.records_path}  summary: {md_path}")
    return records, summary


class Messages:
    """Status lines to stderr and the table to stdout, both silenced by ``quiet``."""

    def __init__(self, quiet: bool, console=None):
        from rich.console import Console

        self.quiet = quiet
        self.err = console or Console(stderr=True, highlight=False)
        self.out = console or Console(highlight=False)

    def __call__(self, message: str) -> None:
        if not self.quiet:
            self.err.print(message, markup=False)

    def table(self, table) -> None:
        if not self.quiet:
            self.out.print(table)


class RunProgress:
    """Two rich progress bars, over runs and over the current run's iterations.

    Used as a context manager; with ``enabled=False`` every method does nothing.
    """

    def __init__(self, enabled: bool, n_runs: int, n_done: int, console=None):
        self.enabled = enabled
        self.bar = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
            from rich.progress import TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console or Console(stderr=True),
                transient=False,
            )
            self.runs = self.bar.add_task("runs", total=n_runs, completed=n_done)
            self.iterations = self.bar.add_task("iterations", total=None, visible=False)

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc_info):
        if self.bar is not None:
            self.bar.stop()
        return False

    def parallel(self, workers: int) -> None:
        """Runs are fitted by ``workers`` processes: count runs only, no iteration bar."""
        if self.bar is not None:
            self.bar.update(self.runs, description=f"runs ({workers} workers)")

    def start_run(self, seed: int) -> None:
        if self.bar is not None:
            self.bar.update(self.runs, description=f"runs (seed {seed})")
            self.bar.reset(self.iterations, total=None, visible=True, description="iterations")

    def iteration(self, iteration: int, max_iter: int, n_clusters: int) -> None:
        """The model's fit callback: advance the inner bar."""
        if self.bar is not None:
            self.bar.update(
                self.iterations,
                completed=iteration,
                total=max_iter,
                description=f"iterations ({n_clusters} clusters)",
            )

    def end_run(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.runs)
