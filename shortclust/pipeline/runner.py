"""Run one experiment config: every seed once, a record per run, a summary at the end.

One pipeline for batch runs, sweeps (grid points) and streams (:mod:`.stream`):
plan (:mod:`.plan`: every check, nothing written) -> select the runs to do (``resume``)
-> create the output directory -> warm up and fit, here or in worker processes
(:mod:`.executors`, :mod:`.fitting`) -> write each run's labels, then its record, as it
finishes -> summarise. An interruption loses at most the runs in progress.

A run's id hashes what decides its labels (:func:`~.records.make_run_id`), not which
metrics are reported: on ``resume``, a recorded run that lacks a metric now asked for
gets it computed from its stored labels instead of being fitted again.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from shortclust._collector import resume as resume_collector
from shortclust._progress import ProgressBars
from shortclust.config import ExperimentConfig
from shortclust.errors import ConfigError, ShortclustError, interrupt_exit_code
from shortclust.data.temporaries import remove_stale
from shortclust.interrupts import check_terminated
from shortclust.apps.assignments import (SourceDocuments, auto_preprocess_note,
                                                preprocessing_note, write_assignments,
                                                write_clusters)
from shortclust.pipeline.executors import (cluster_client, cpu_cores, resolve_jobs, run_here,
                                              run_in_workers, run_on_cluster)
from shortclust.pipeline.fitting import Outcome, RunContext
from shortclust.pipeline.plan import Plan, PlannedRun, check_saveable, plan_experiment
from shortclust.pipeline.records import (
    RecordStore, first_of_each_run, make_record, read_archive, write_archive,
)
from shortclust.pipeline.resume import before_first_write, select_runs
from shortclust.pipeline.summary import summarize, summary_rows, summary_table, write_summary
from shortclust.representations import coverage_line

__all__ = ["ExperimentInterrupted", "ExperimentResult", "RunOptions", "resolve_jobs",
           "run_experiment"]


class ExperimentInterrupted(Exception):
    """The user stopped the experiment (Ctrl-C or SIGTERM); finished runs are recorded.

    Attributes
    ----------
    n_done, n_total : int
        Runs recorded so far and runs planned.
    exit_code : int
        130 (SIGINT, Ctrl-C) or 143 (SIGTERM), the shell conventions.
    """

    def __init__(self, n_done: int, n_total: int, exit_code: int = 130):
        self.n_done, self.n_total, self.exit_code = n_done, n_total, exit_code
        what = "terminated (SIGTERM)" if exit_code == 143 else "interrupted"
        super().__init__(
            f"{what} after {n_done} of {n_total} runs; rerun with --resume to continue"
        )


@dataclass(frozen=True)
class RunOptions:
    """How to run an experiment (not what it is: that is the config).

    Attributes
    ----------
    resume : bool
        Skip runs whose run_id is already in ``records.jsonl``. Without it an existing
        ``records.jsonl`` is renamed to ``records.<timestamp>.jsonl.bak`` and the
        experiment starts fresh.
    data_dir : path-like or None
        Where registered datasets live (else ``$SHORTCLUST_DATA`` or the user cache).
    quiet : bool
        Print nothing (no messages, progress bars or summary table); files are still written.
    progress : bool or None
        Show progress bars; default: when not ``quiet``.
    console : rich.console.Console or None
        Where messages, bars and the table go (default: stderr for messages and bars,
        stdout for the table).
    jobs : int
        Worker processes fitting runs in parallel: 1 fits them here, one after another;
        ``0`` or ``-1`` use every core (see :func:`resolve_jobs`); never more workers than
        cores or runs to do. Labels and records do not depend on it (only ``fit_seconds`` and
        timestamps do).
    fit : bool
        ``False``: fit nothing and write nothing (no directory, no summary), only collect
        the runs already recorded (and archived); used to rebuild tables from records.
    archive : path-like or None
        A record archive (:func:`~.records.write_archive`) kept with the results: on
        resume its runs count as recorded (restored into the output directory before any
        fit), and after the experiment, interrupted or not, it is rewritten with the
        output directory's records added (``fit=False``: only read).
    cluster : str or None
        Fit the runs on a Dask cluster: ``"local"`` (a LocalCluster started here, of
        ``jobs`` single-threaded worker processes, every core when ``jobs`` is 1) or a
        scheduler address ``"tcp://HOST:8786"``. Needs ``shortclust[cluster]``. Labels and
        records do not depend on it.
    save_models : bool
        Save each fitted run's model as ``models/<run_id>.zip``
        (:mod:`~shortclust.apps.model_files`); the model must have ``predict`` and
        be fitted on term counts. On resume a recorded run without its model file is
        fitted again.
    """

    resume: bool = False
    data_dir: Any = None
    quiet: bool = False
    progress: bool | None = None
    console: Any = None
    jobs: int = 1
    fit: bool = True
    archive: Any = None
    cluster: str | None = None
    save_models: bool = False

    @property
    def show_bars(self) -> bool:
        return (not self.quiet) if self.progress is None else self.progress


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` produced.

    Attributes
    ----------
    records : list of dict
        Every record in the output directory (this session's and resumed ones), those
        of planned runs in plan order.
    planned : list of dict
        The record of each planned run that has one (the first found), in plan order:
        what tables of this experiment are computed from.
    summary : pandas.DataFrame
        :func:`~shortclust.pipeline.summary.summarize` of ``records``, computed when first
        read (the command itself writes and prints the summary without pandas).
    output_dir : Path
        Where records, labels and summaries were written.
    n_run, n_skipped : int
        Runs fitted in this call, and runs skipped because already recorded (``resume``).
    stream_table : pandas.DataFrame or None
        A stream experiment's per-batch table (:func:`~.stream.stream_frame`).
    stream_paths : dict or None
        A stream experiment's ``{"csv": ..., "png": ...}`` (png None when unlabelled).
    corpus : Corpus or None
        The corpus the runs were fitted on.
    """

    records: list[dict[str, Any]]
    planned: list[dict[str, Any]]
    output_dir: Path
    n_run: int
    n_skipped: int
    stream_table: pd.DataFrame | None = None
    stream_paths: dict | None = field(default=None)
    corpus: Any = None

    @cached_property
    def summary(self) -> pd.DataFrame:
        return summarize(self.records)


def run_experiment(config: ExperimentConfig, options: RunOptions | None = None, *,
                   points: list[dict[str, Any]] | None = None, table: bool = True,
                   **option_values) -> ExperimentResult:
    """Fit the configured model once per seed (and grid point), record every run, summarise.

    Parameters
    ----------
    config : ExperimentConfig
        A config from :func:`shortclust.config.load_config` (checked again here). With a
        ``stream:`` section every run streams the corpus in batches (:mod:`.stream`).
    options : RunOptions, optional
        How to run it; keyword arguments (``quiet=True``, ``jobs=2``, ...) set or change
        its fields.
    points : list of dict, optional
        Grid points of a sweep: each maps model parameter names to values that replace the
        config's. Every point runs every seed. Default: the config's parameters only.
    table : bool
        Print the summary table at the end (unless quiet); a sweep prints its own.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ConfigError, DataError, ParameterError
        Before any fit, for a bad config, model, parameter, dataset or output directory
        (one that another run is writing is locked: :func:`lock_output_dir`).
    ExperimentInterrupted
        On Ctrl-C (or SIGTERM under the CLI), after keeping every finished record and
        writing the summary of them.
    """
    options = replace(options or RunOptions(), **option_values)
    plan = plan_experiment(config, options.data_dir, points)
    if options.save_models:
        check_saveable(plan)
    store = RecordStore(config.output_dir)
    archived = _read_archive(options.archive)
    if not options.fit:
        return _recorded_only(plan, store, archived)
    say = Messages(options.quiet, options.console)
    created = make_output_dirs(store)
    try:
        # Another run writing this directory fails here, in one line; the runs to do are
        # chosen under the lock, so no seed is chosen by two writers.
        with lock_output_dir(store.output_dir):
            # What a killed writer of this folder left half-written (SIGKILL): removed.
            remove_stale(store.output_dir, recursive=True)
            selection = select_runs(store, plan, options.resume, archived,
                                    need_models=options.save_models)
            # The representation (its errors too) before the records file is touched.
            context = _run_context(plan, options) if selection.todo else None
            if context is not None and context.coverage is not None:
                say(coverage_line(context.coverage))
            selection.apply(store, say)
            if selection.todo:
                _say_preprocessing(plan, store, say)
            return _fit_and_write(plan, store, selection, context, options, archived, say,
                                  table)
    except (ShortclustError, OSError):  # OSError: a full disk, say
        remove_if_unused(created)  # empty once the lock file is gone
        raise


def _run_context(plan: Plan, options: RunOptions) -> RunContext:
    """The runs' context; sentence embeddings computed in ``--jobs`` processes, or on the
    ``--cluster``'s workers (a client connected for them alone, closed before the runs)."""
    from shortclust.representations import needs_embedding

    arguments = (plan, options.save_models, options.show_bars, options.console)
    embedding = needs_embedding(plan.corpus, plan.config.representation_spec)
    if embedding:  # a long computation, not start-up: collected as usual
        resume_collector()
    if options.cluster is None or not embedding:
        return RunContext.from_plan(*arguments, workers=resolve_jobs(options.jobs))
    with cluster_client(options.cluster, _cluster_workers(options.jobs)) as (client, _):
        return RunContext.from_plan(*arguments, client=client)


def _fit_and_write(plan: Plan, store: RecordStore, selection, context, options: RunOptions,
                   archived, say, table: bool) -> ExperimentResult:
    """Fit the selected runs, writing each as it finishes; summarise (output dir locked)."""
    todo = selection.todo
    write = _writer(plan, store, context, selection, say)
    workers = min(resolve_jobs(options.jobs), len(todo))
    unit = "batches" if plan.stream is not None else "iterations"
    try:
        with RunProgress(options.show_bars, len(plan.runs), selection.n_skipped,
                         options.console, unit) as bars:
            if options.cluster is not None:
                run_on_cluster(context, todo, write, bars, options.cluster,
                               min(_cluster_workers(options.jobs), len(todo)))
            elif workers > 1:
                run_in_workers(context, todo, write, bars, workers)
            else:
                run_here(context, todo, write, bars)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM under the CLI (errors.Terminated)
        _finish(plan, store, say, print_table=False)
        raise ExperimentInterrupted(len(_planned(plan, store.load())), len(plan.runs),
                                    interrupt_exit_code(exc)) from None
    finally:  # an interrupted experiment keeps the runs it finished in the archive too
        _update_archive(options.archive, store, archived)
    result = _finish(plan, store, say, print_table=table and not options.quiet)
    result.n_run, result.n_skipped = len(todo), selection.n_skipped
    return result


def _cluster_workers(jobs: int) -> int:
    """Worker processes of a LocalCluster: ``--jobs`` if given (not 1), else every core."""
    return cpu_cores() if jobs == 1 else resolve_jobs(jobs)


# --------------------------------------------------------------------------------------------
# the output directory and the archive


def make_output_dirs(store: RecordStore) -> list[Path]:
    """Create the output and labels directories: the last check, after every other one.

    An unusable ``--output`` (under a file, not writable) then fails here in one line
    instead of as a traceback after the first fit. Returns the directories created here,
    deepest first, for :func:`remove_if_unused`.
    """
    return make_directory(store.labels_dir, store.output_dir)


def make_directory(directory: Path, output_dir: Path | None = None) -> list[Path]:
    """Create ``directory`` (inside the output ``output_dir``, itself by default) and its
    parents; return those created here, deepest first. An unusable path is a one-line
    ConfigError naming the output."""
    directory = Path(directory)
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from shortclust.data.io import write_problem

        raise ConfigError(
            f"output '{output_dir or directory}': cannot create it "
            f"({write_problem(exc, directory)}): choose another directory with --output"
        ) from None
    return missing


#: The lock file :func:`lock_output_dir` creates in the output directory while a run writes it.
LOCK_NAME = ".shortclust.lock"


@contextlib.contextmanager
def lock_output_dir(output_dir: Path):
    """Hold an exclusive lock on ``output_dir`` (``fcntl.flock`` on :data:`LOCK_NAME`).

    Two runs writing one output directory at once would record every seed twice; the
    second gets a one-line error instead. The lock is taken before the runs to do are
    chosen and released (the file removed) on any exit; the kernel releases it if the process
    dies. A lock file removed by its holder between our open and our lock is opened again.

    Raises
    ------
    ConfigError
        When another process holds the lock.
    """
    import fcntl
    import os

    path = Path(output_dir) / LOCK_NAME
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ConfigError(
                f"output '{output_dir}': cannot create its lock file {LOCK_NAME} "
                f"({exc.strerror or exc}): choose another directory with --output"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ConfigError(
                f"output '{output_dir}' is being written by another shortclust run (it holds "
                f"{path}): wait for it to finish or choose another directory with --output"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # its holder removed it as we opened it: lock the new one
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)


def remove_if_unused(created: list[Path]) -> None:
    """Remove the directories a failed call created, if nothing was written into them.

    A model that refuses its input at the first fit (K above the number of documents)
    then leaves no empty output directory behind.
    """
    for directory in created:
        with contextlib.suppress(OSError):
            directory.rmdir()  # only empty directories go


# --------------------------------------------------------------------------------------------
# records


def _say_preprocessing(plan: Plan, store: RecordStore, say) -> None:
    """The pipeline ``auto`` chose for a file, and the documents preprocessing dropped or
    emptied (and where they are listed): one line each, before the first fit."""
    choose = "set preprocess: in the config or --set preprocess=NAME"
    for note in (auto_preprocess_note(plan.config, plan.corpus, choose),
                 preprocessing_note(plan.corpus,
                                    f"each run's {store.assignments_path('<run_id>')}")):
        if note:
            say(note)


def _writer(plan: Plan, store: RecordStore, context, selection=None, say=None):
    """``write(run, outcome)``: the run's files first (labels, assignments, clusters, model),
    then its record (one whole line). Old records to start fresh over are moved aside just
    before the first write (:func:`before_first_write`), not before the first fit."""
    config, corpus = plan.config, plan.corpus
    found = None if context is None else context.coverage  # None: nothing left to fit
    coverage = {} if found is None else {"representation_coverage": found}
    documents = []  # the input's ids and statuses, read once, when the first run is written

    def write(run: PlannedRun, outcome: Outcome) -> None:
        moved = None if selection is None else before_first_write(selection, store, say)
        paths = (store.labels_path(run.run_id), store.assignments_path(run.run_id),
                 store.clusters_path(run.run_id), store.model_path(run.run_id))
        existed = {path for path in paths if moved is not None and path.exists()}
        try:
            _write_run_files(plan, store, run, outcome, documents)
        except OSError:  # a full disk: no file of a run without its record is left behind
            for path in paths:
                if path not in existed:  # the finished run's own, kept with its record
                    path.unlink(missing_ok=True)
                with contextlib.suppress(OSError):
                    path.parent.rmdir()  # only if empty: other runs' files stay
            if moved is not None:  # the first write of a fresh start: the folder as it was
                os.replace(moved, store.records_path)
            raise
        store.append(make_record(
            run_id=run.run_id, config_name=config.name, seed=run.seed,
            dataset=config.dataset, dataset_sha256=corpus.sha256,
            preprocess=corpus.preprocess, model=config.model.name, params=run.params,
            n_docs=int(corpus.n_docs),
            **({"representation": config.representation} if config.representation else {}),
            **coverage, **outcome.fields,
        ))

    return write


def _write_run_files(plan: Plan, store: RecordStore, run: PlannedRun, outcome: Outcome,
                     documents: list) -> None:
    """The run's labels, assignments, clusters and model files (before its record)."""
    store.write_labels(run.run_id, outcome.labels)
    if not documents:
        documents.append(SourceDocuments.of(plan.corpus))
    write_assignments(store.assignments_path(run.run_id), documents[0], outcome.labels,
                      outcome.probabilities)
    write_clusters(store.clusters_path(run.run_id), outcome.clusters)
    if outcome.model_state is not None:
        _save_run_model(plan, store, run, outcome)


def _save_run_model(plan: Plan, store: RecordStore, run: PlannedRun, outcome: Outcome) -> None:
    """``models/<run_id>.zip``: the fitted model with its vocabulary and preprocessing."""
    from shortclust.data.preprocess import get_pipeline
    from shortclust.apps.model_files import pipeline_record, save_model

    config, corpus = plan.config, plan.corpus
    path = store.model_path(run.run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_model(path, config.model.name, {**run.params, "random_state": run.seed},
               outcome.model_state, vocabulary=corpus.vocabulary,
               preprocess=pipeline_record(get_pipeline(corpus.preprocess)),
               training={"dataset": config.dataset, "dataset_sha256": corpus.sha256,
                         "n_docs": int(corpus.n_docs), "config_name": config.name,
                         "run_id": run.run_id, "seed": run.seed})


def _planned(plan: Plan, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record of each planned run among ``records`` (the first found), in plan order."""
    by_id = {record["run_id"]: record for record in reversed(records)}
    return [by_id[run.run_id] for run in plan.runs if run.run_id in by_id]


def _recorded_only(plan: Plan, store: RecordStore, archived) -> ExperimentResult:
    """``fit=False``: the runs recorded or archived; nothing is fitted, created or written."""
    records = first_of_each_run(store.load(), archived)
    planned = _planned(plan, records)
    return ExperimentResult(records, planned, store.output_dir, 0,
                            len(planned), corpus=plan.corpus)


def _read_archive(path) -> list[dict[str, Any]]:
    return read_archive(path) if path is not None and Path(path).is_file() else []


def _update_archive(path, store: RecordStore, archived) -> None:
    """Rewrite the archive with the output directory's records (its first record wins)."""
    if path is None:
        return
    records = first_of_each_run(store.load(), archived)
    if records:
        write_archive(path, records)


# --------------------------------------------------------------------------------------------
# output


def _finish(plan: Plan, store: RecordStore, say, print_table: bool) -> ExperimentResult:
    """Load every record, write the summary (and a stream's table and figure), report.

    Records of planned runs are listed in plan order (those of runs not in the plan
    first, as found), as parallel runs append them in the order they finish.
    """
    records = store.load()
    position = {run.run_id: index for index, run in enumerate(plan.runs)}
    records.sort(key=lambda record: position.get(record.get("run_id"), -1))
    summary = summary_rows(records)
    _, md_path = write_summary(summary, store.output_dir)
    if print_table:
        say.table(summary_table(summary, title=f"{store.output_dir}"))
        say(f"records: {store.records_path}  summary: {md_path}")
    result = ExperimentResult(records, _planned(plan, records), store.output_dir, 0, 0,
                              corpus=plan.corpus)
    if plan.stream is not None:
        _finish_stream(plan, store, say, result, report=print_table)
    return result


def _finish_stream(plan: Plan, store: RecordStore, say, result: ExperimentResult,
                   report: bool) -> None:
    from shortclust.pipeline.stream import report_stream, write_stream_outputs

    config = plan.config
    table, paths = write_stream_outputs(result.planned, store.output_dir,
                                        title=f"{config.name}: {config.dataset}")
    result.stream_table, result.stream_paths = table, paths
    if report:
        report_stream(say, table, paths, result.planned)


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


def _run_columns():
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn())


class RunProgress(ProgressBars):
    """Two rich progress bars, over runs and over the current run's steps.

    A step is what the model's fit callback counts (``unit``: iterations of a batch fit,
    batches of a stream). Used as a context manager; with ``enabled=False`` every method
    does nothing.
    """

    def __init__(self, enabled: bool, n_runs: int, n_done: int, console=None,
                 unit: str = "iterations"):
        super().__init__(enabled, _run_columns, console)
        self.enabled, self.unit = enabled, unit
        if self.bar is not None:
            self.runs = self.bar.add_task("runs", total=n_runs, completed=n_done)
            self.steps = self.bar.add_task(unit, total=None, visible=False)

    def parallel(self, workers: int) -> None:
        """Runs are fitted by ``workers`` processes: count runs only, no inner bar."""
        if self.bar is not None:
            self.bar.update(self.runs, description=f"runs ({workers} workers)")

    def start_run(self, seed: int) -> None:
        if self.bar is not None:
            self.bar.update(self.runs, description=f"runs (seed {seed})")
            self.bar.reset(self.steps, total=None, visible=True, description=self.unit)

    def step(self, step: int, steps: int, n_clusters: int) -> None:
        """The model's fit callback (an iteration, or a stream's batch): advance the inner bar.

        Also a safe point: a SIGTERM whose exception was swallowed stops the fit here."""
        check_terminated()
        if self.bar is not None:
            self.bar.update(self.steps, completed=step, total=steps,
                            description=f"{self.unit} ({n_clusters} clusters)")

    def end_run(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.runs)
