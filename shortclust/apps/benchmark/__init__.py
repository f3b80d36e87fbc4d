"""``shortclust benchmark``: every declared model on every dataset of a suite, one harness.

Suites (:mod:`.suites`) expand into cells (dataset x model x K choice), each an ordinary
experiment config run through the run pipeline like a paper's (resumed; with ``--jobs N``
N cells at a time, :mod:`.parallel`; with ``--cluster`` each cell's runs on Dask), its
records archived in ``results/benchmark/records/<tag>.json``. From the records alone
(:mod:`.leaderboard`) each suite gets ``results/benchmark/<suite>/``: ``<dataset>.md``/
``.csv`` per dataset (streams as ``<dataset>_stream``) and ``ranks.md``/``.csv``, the mean
rank of every method over them. ``--no-fit`` fits nothing and rebuilds
the same files from the archive, byte for byte.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path

from shortclust.errors import ConfigError

__all__ = ["BenchmarkJob", "run_benchmark"]

PAPER_NAME = "benchmark"


@dataclass
class BenchmarkJob:
    """How to run suites: where records and results go, and how runs are fitted.

    Attributes
    ----------
    runs : int or None
        Seeds ``0..runs-1`` for every cell (default: each suite's own count).
    models : list of str or None
        Only these declared models (``--models``).
    results_dir, work_dir : Path, optional
        Parents of ``benchmark/`` (default ``results/`` and ``runs/`` of the checkout).
    fit : bool
        False: fit nothing; tables from the runs already recorded.
    root : Path, optional
        The checkout whose ``configs/benchmark/`` declares the suites (default: the one
        this package runs from).
    """

    runs: int | None = None
    models: list[str] | None = None
    results_dir: Path | None = None
    work_dir: Path | None = None
    data_dir: object = None
    quiet: bool = False
    jobs: int = 1
    cluster: str | None = None
    fit: bool = True
    root: Path | None = None
    written: list[Path] = field(default_factory=list)
    fitted: int = 0
    _true_k: dict = field(default_factory=dict)

    def __post_init__(self):
        from shortclust.pipeline.reproduce import is_checkout, project_root

        self.root = Path(self.root) if self.root is not None else project_root()
        if not is_checkout(self.root) and (self.results_dir is None or self.work_dir is None):
            raise ConfigError("an installed shortclust ships the suites and archives, not a "
                              "place to write: give --results DIR and --work-dir DIR")
        from shortclust.data.io import check_folder_option

        for option, given in (("--results", self.results_dir), ("--work-dir", self.work_dir)):
            if given is not None:
                check_folder_option(option, given)
        self.results_dir = Path(self.results_dir or self.root / "results") / PAPER_NAME
        self.work_dir = Path(self.work_dir or self.root / "runs") / PAPER_NAME

    def say(self, message: str) -> None:
        if not self.quiet:
            from rich.console import Console

            Console(stderr=True, highlight=False).print(message, markup=False)

    def true_k(self, dataset: str) -> int:
        """The number of classes of ``dataset`` after its default preprocessing."""
        if dataset not in self._true_k:
            from shortclust.data import load_corpus

            corpus = load_corpus(dataset, data_dir=self.data_dir)
            if corpus.labels is None:
                raise ConfigError(f"benchmark dataset '{dataset}' has no labels: a "
                                  "leaderboard needs gold labels")
            self._true_k[dataset] = len(set(corpus.labels.tolist()))
        return self._true_k[dataset]

    def run_cell(self, cell, fit: bool | None = None) -> tuple[list[dict], str | None]:
        """The records of a cell's seeds (fitting those missing unless ``fit``, by default
        the job's, is False), and why it has none when it was skipped."""
        from shortclust.config import config_from_mapping
        from shortclust.pipeline.reproduce import RECORDS_DIR, by_seed
        from shortclust.pipeline.runner import RunOptions, run_experiment

        # A model without a seed runs once whatever --runs says: more runs repeat its labels.
        overrides = [] if self.runs is None or not cell.seeded else [f"runs={self.runs}"]
        raw = dict(cell.config, output=str(self.work_dir / cell.tag))
        archive = self.results_dir / RECORDS_DIR / f"{cell.tag}.json"
        fit = (self.fit if fit is None else fit) and self.will_fit(cell)
        if not fit and not archive.exists():
            # The note depends on the archive and the declaration alone, never on the
            # extras installed here, so --no-fit writes the same bytes on any machine.
            if cell.needs is not None:
                return [], (f"not run: needs the optional extra shortclust[{cell.extra}] "
                            f"(pip install '.[{cell.extra}]')")
            if not (self.work_dir / cell.tag).exists():
                return [], None  # nothing recorded and nothing to fit: no need to plan it
        config = config_from_mapping(raw, overrides, where=f"benchmark cell {cell.tag}")
        self.say(f"benchmark: {cell.tag} ({config.runs} runs)")
        options = RunOptions(resume=True, data_dir=self.data_dir, quiet=True,
                             progress=not self.quiet, jobs=self.jobs, cluster=self.cluster,
                             fit=fit, archive=archive)
        result = run_experiment(config, options)
        self.fitted += result.n_run
        return by_seed(result.planned), None

    def fits_cells_in_workers(self) -> int:
        """Worker processes fitting whole cells at a time (:mod:`.parallel`): ``--jobs``
        resolved, when it is above 1 and there is no ``--cluster``; else 0."""
        from shortclust.pipeline.executors import resolve_jobs

        if not self.fit or self.cluster is not None:
            return 0
        workers = resolve_jobs(self.jobs)
        return workers if workers > 1 else 0

    def will_fit(self, cell) -> bool:
        """Whether the cell may be fitted here: chosen by ``--models``, its extra present."""
        return self.chosen(cell) and (
            cell.needs is None or importlib.util.find_spec(cell.needs) is not None)

    def chosen(self, cell) -> bool:
        """Whether ``--models`` lets this cell fit (the others are only collected, so a
        suite's tables always show every cell recorded)."""
        return self.models is None or cell.entry in self.models

    def write(self, path: Path, text: str) -> None:
        from shortclust.pipeline.records import atomic_write_text

        atomic_write_text(path, text)
        self.written.append(path)


def _provenance(job: BenchmarkJob, suite) -> str:
    # The same records give the same bytes whatever --runs the command had: the run
    # counts are in the table.
    return (f"Generated by `shortclust benchmark --only {suite.name}` from the records in "
            "`results/benchmark/records/` (the `runs` column counts each cell's, seeds "
            "0..N-1; the suite asks for "
            f"{suite.runs}, and 1 of a model without a seed, such as HAC and HDBSCAN, whose "
            "labels are the same for every seed); cells: mean ± sample std over runs; fit "
            "CPU seconds and peak "
            "memory (resident memory above the process's before the fit) are medians over "
            "runs. K true: the number of classes of the dataset; K own: the model chooses it. "
            "Rows are sorted by mean NMI.")


def run_suite(job: BenchmarkJob, name: str) -> None:
    """Run (or collect) one suite's cells and write its leaderboards and mean ranks."""
    from shortclust.apps.benchmark import leaderboard, suites
    from shortclust.apps.benchmark.parallel import fit_cells

    suite = suites.load_suite(job.root, name)
    declared = suites.load_models(job.root)
    cells = suites.cells(suite, declared, job.true_k)
    workers = job.fits_cells_in_workers()
    if workers:
        job.fitted += fit_cells(job, [cell for cell in cells if job.will_fit(cell)], workers)
    boards, notes = {}, {}
    rows: dict[str, list[dict]] = {}
    for cell in cells:
        # Fitted above already with workers: here only collected, as --no-fit does.
        records, why = job.run_cell(cell, fit=False if workers else None)
        board = cell.board
        rows.setdefault(board, []).append(leaderboard.cell_row(cell, records))
        if why is not None:
            notes.setdefault(board, {})[cell.method] = why
    folder = job.results_dir / name
    if not job.fit and not any(row["runs"] for board_rows in rows.values() for row in board_rows):
        # --no-fit never writes a suite's tables before any of its runs is recorded.
        job.say(f"benchmark: suite {name} has no recorded runs: no tables written")
        return
    footer = _provenance(job, suite)
    for board, board_rows in rows.items():
        if not any(row["runs"] for row in board_rows):
            continue  # a dataset none of whose cells has run yet gets no table
        frame = leaderboard.leaderboard_frame(board_rows)
        boards[board] = frame
        dataset = board.removesuffix("_stream")
        what = (f"the {dataset} stream (partial_fit over its batches; metrics of the whole "
                "stream at its end)" if board.endswith("_stream") else dataset)
        title = f"Benchmark `{name}`: {what}"
        job.write(folder / f"{board}.csv", frame.to_csv(index=False))
        job.write(folder / f"{board}.md", leaderboard.leaderboard_markdown(
            title, frame, notes.get(board, {})) + "\n" + footer + "\n")
    ranks = leaderboard.mean_ranks(boards)
    job.write(folder / "ranks.csv", ranks.to_csv(index=False))
    job.write(folder / "ranks.md", leaderboard.ranks_markdown(
        f"Benchmark `{name}`: mean rank over its leaderboards", ranks, list(boards))
        + "\n" + footer + "\n")


def run_benchmark(only: list[str] | None = None, **options) -> BenchmarkJob:
    """Run the suites named in ``only`` (default: every suite) and write their tables.

    ``options`` are :class:`BenchmarkJob`'s fields (``runs``, ``models``, ``fit``, ``jobs``,
    ``cluster``, ``data_dir``, ``quiet``, ``results_dir``, ``work_dir``).

    Raises
    ------
    ConfigError
        An unknown suite or model, a malformed suite file; DataError or ParameterError
        from the runs themselves.
    """
    from shortclust.apps.benchmark import suites

    job = BenchmarkJob(**options)
    names = suites.suite_names(job.root)
    for name in only or []:
        if name not in names:
            raise ConfigError(f"no benchmark suite '{name}': choose from {', '.join(names)}")
    if job.models is not None:
        declared = suites.load_models(job.root)
        unknown = [m for m in job.models if m not in declared]
        if unknown:
            raise ConfigError(f"--models: '{unknown[0]}' is not declared in "
                              f"{suites.SUITES_DIR / suites.MODELS_FILE}: choose from "
                              f"{', '.join(declared)}")
    for name in only or names:
        started = time.perf_counter()
        run_suite(job, name)
        job.say(f"benchmark: suite {name} done in {time.perf_counter() - started:.0f} s")
    return job
