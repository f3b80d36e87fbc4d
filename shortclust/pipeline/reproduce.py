"""Paper reproductions: run each table's and figure's configs, then write reproduced beside reported.

A paper (``shortclust.papers.<name>``, see :mod:`shortclust.papers.registry`) lists its items
(a table or a figure each, or a group sharing runs) as functions of a :class:`Reproduction`,
which runs configs through the ordinary runner (records under ``runs/reproduce/<paper>/``,
resumed across invocations) and writes Markdown, CSV and PNG under ``results/<paper>/``.
Tables and figures are computed from the records of the seeds asked for, nothing else.
Config paths, and the default results and work directories, are relative to the project
checkout (:func:`project_root`), so a reproduction runs from any working directory.

What is committed is never overwritten by a smaller reproduction: ``--runs N`` without
``--results`` writes to a scratch results folder (``runs/reproduce/results/``), and any
results folder other than the checkout's own starts from a copy of the committed archives
(:meth:`Reproduction.archive_path`). An installed copy (no checkout) reads the configs and
archives it ships as package data (``shortclust/_packaged/``) and writes where ``--results``
says.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from shortclust.errors import ConfigError
from shortclust.data.io import atomic_write
from shortclust.interrupts import check_terminated
# Papers take the run-count text from here with the tables' other helpers.
from shortclust.evaluation.stats import counts_text as counts_text
from shortclust.pipeline.records import atomic_write_text

#: Folder of ``results/<paper>/`` holding the archived run records (see Reproduction).
RECORDS_DIR = "records"
#: Where, in the project checkout, the configs of the papers are (their presence marks it).
PAPER_CONFIGS = Path("configs/papers")
#: Where ``--runs N`` without ``--results`` writes its tables, in the checkout.
SCRATCH_RESULTS = Path("runs/reproduce/results")


def _package_dir() -> Path:
    import shortclust

    return Path(shortclust.__file__).resolve().parent


def project_root() -> Path:
    """The folder holding ``configs/papers`` and ``results/``: the checkout this package runs
    from, or else the copy of them an installed package ships (``shortclust/_packaged``).

    Raises
    ------
    ConfigError
        Neither is there (a package built without its data).
    """
    checkout = _package_dir().parent
    if (checkout / PAPER_CONFIGS).is_dir():
        return checkout
    packaged = _package_dir() / "_packaged"
    if (packaged / PAPER_CONFIGS).is_dir():
        return packaged
    raise ConfigError(f"no {PAPER_CONFIGS}/ in {checkout} nor in {packaged}: reinstall "
                      "shortclust (its package data is missing)")


def is_checkout(root: Path) -> bool:
    """Whether ``root`` (from :func:`project_root`) is a checkout, not an installed copy."""
    return root.resolve() != (_package_dir() / "_packaged").resolve()


def default_work_dir() -> Path:
    """``runs/reproduce`` of the checkout; for an installed copy, a cache folder of the user."""
    root = project_root()
    if is_checkout(root):
        return root / "runs" / "reproduce"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "shortclust" / "reproduce"


def default_results_dir(runs: int | None) -> Path:
    """Where a reproduction writes when ``--results`` is not given.

    The checkout's ``results/`` for the committed run counts; with ``--runs N``, the scratch
    folder ``runs/reproduce/results/``, so that a quick check never replaces a committed
    20-run table by a 2-run one.

    Raises
    ------
    ConfigError
        An installed copy has no results folder of its own: ``--results`` is needed.
    """
    root = project_root()
    if not is_checkout(root):
        raise ConfigError("this shortclust is installed, not a checkout: give --results DIR "
                          "for the tables (the archived records it ships are copied there)")
    return root / (SCRATCH_RESULTS if runs is not None else Path("results"))


@dataclass
class Reproduction:
    """Where one paper's reproduction reads configs, keeps records and writes results.

    Attributes
    ----------
    paper : str
        Paper name (``gsdmm``).
    runs : int or None
        Seeds ``0..runs-1`` for every config; ``None`` keeps each config's own count
        (the paper's).
    results_dir : Path, optional
        Parent of ``<paper>/``, the committed tables and figures (default: ``results/`` of
        the project checkout; a relative path is relative to the working directory).
    work_dir : Path, optional
        Parent of ``<paper>/``, records and labels of every run, resumable (default:
        ``runs/reproduce/`` of the project checkout).
    data_dir : path or None
        Dataset directory (default: ``$SHORTCLUST_DATA``).
    quiet : bool
        No progress output.
    options : dict
        The paper's own options (declared by the paper, defaults filled in), e.g. GSDMM's
        ``max_copies``.
    jobs : int
        Worker processes for the runs of every config (1: in this process; 0 or -1:
        every core).
    cluster : str or None
        Fit every config's runs on a Dask cluster: ``"local"`` or a scheduler address
        ``"tcp://HOST:8786"`` (:class:`~shortclust.pipeline.runner.RunOptions`).
    fit : bool
        ``False``: fit nothing; tables and figures use only the runs already recorded in
        ``work_dir`` and the archive (a cell then states how many runs it has).
    archive : bool
        Keep every run's record (not its labels) in ``results/<paper>/records/<tag>.json``
        as well, and before a config runs, add the archived records its work directory
        lacks: runs recorded on another machine (a committed archive) are reused like
        runs of an earlier invocation, so a reproduction longer than one sitting
        accumulates, and the committed tables can be rebuilt from the committed records
        (``fit=False``). Tables must therefore be computed from records alone, never
        from stored labels.
    project : Path, optional
        The checkout that relative config paths are read from (default:
        :func:`project_root`, looked up when first needed).
    """

    paper: str
    runs: int | None = None
    results_dir: Path | None = None
    work_dir: Path | None = None
    data_dir: Any = None
    quiet: bool = False
    options: dict = field(default_factory=dict)
    jobs: int = 1
    cluster: str | None = None
    fit: bool = True
    archive: bool = True
    project: Path | None = None
    written: list[Path] = field(default_factory=list)
    #: Runs fitted (not reused from earlier invocations) by this job so far.
    fitted: int = 0
    #: Runs (or archived measurements) the current item has found, fitted or recorded;
    #: :func:`~shortclust.papers.registry.reproduce` resets it before each item.
    collected: int = 0
    #: Datasets the current item looked for and did not find (reset with ``collected``):
    #: ``--no-fit`` then keeps the item's files rather than rewrite them without their rows.
    absent: list[str] = field(default_factory=list)
    #: Results files ``--no-fit`` left as they were, as its item found nothing to show or
    #: missed a dataset.
    kept: list[Path] = field(default_factory=list)

    def __post_init__(self):
        from shortclust.data.io import check_folder_option

        for option, given in (("--results", self.results_dir), ("--work-dir", self.work_dir)):
            if given is not None:
                check_folder_option(option, given)
        self.results_dir = Path(self.results_dir if self.results_dir is not None
                                else default_results_dir(self.runs))
        self.work_dir = Path(self.work_dir if self.work_dir is not None
                             else default_work_dir())

    def dataset_here(self, name: str) -> bool:
        """Whether a registered dataset's file is in the data directory; an absent one is
        remembered in ``absent`` (an item skips it, and ``--no-fit`` keeps the item's
        committed files instead of rewriting them without the dataset's rows)."""
        from shortclust.data.registry import dataset_names, dataset_present

        present = dataset_present(name, self.data_dir)
        # A name the registry does not know (IC's BioMedical) is absent from every data
        # directory by design, its columns the paper's numbers only: remembering it would
        # stop --no-fit from ever rewriting the item's tables.
        if not present and name.lower() in {known.lower() for known in dataset_names()}:
            self.absent.append(name)
        return present

    def _keeps(self, path: Path) -> bool:
        """``--no-fit`` leaves an existing file as it is when the item found no runs or
        missed a dataset: a committed table is never replaced by a poorer one."""
        return not self.fit and (self.collected == 0 or bool(self.absent)) and path.exists()

    def project_path(self, path) -> Path:
        """``path`` in the project checkout (an absolute path stays as it is)."""
        path = Path(path)
        if path.is_absolute():
            return path
        if self.project is None:
            self.project = project_root()
        return self.project / path

    def config(self, path, dataset: str | None = None, overrides=()):
        """Load a config, with ``--runs``, ``dataset`` and ``overrides`` applied in that order.

        ``path`` is relative to the project checkout. An item's own overrides come last
        and win: ``seeds=[0]`` runs a deterministic clusterer once whatever ``--runs`` says.
        """
        from shortclust.config import load_config

        changes = [] if self.runs is None else [f"runs={self.runs}"]
        if dataset is not None:
            changes.append(f"dataset={dataset}")
        return load_config(self.project_path(path), changes + list(overrides))

    def shown_work_dir(self) -> Path:
        """The work directory as results files name it: relative to the checkout if in it.

        The default work directory then reads ``runs/reproduce`` wherever the command ran,
        so committed files do not carry a machine's paths.
        """
        try:
            return self.work_dir.relative_to(self.project_path("."))
        except (ValueError, ConfigError):  # elsewhere, or no checkout: as given
            return self.work_dir

    def run(self, path, tag: str, dataset: str | None = None, overrides=()) -> list[dict]:
        """Run a config (resuming) and return the records of its seeds."""
        config = self._with_output(self.config(path, dataset, overrides), tag)
        self.say(f"{self.paper}: {tag} ({config.model.name} on {config.dataset}, "
                  f"{config.runs} runs)")
        result = self._resume(config, tag)
        return by_seed(result.planned)

    def grid(self, path, tag: str, points: list[dict], dataset: str | None = None,
             overrides=()) -> list[dict]:
        """Run a config at each grid point (model parameters), every seed at each (resuming).

        Returns the records of its seeds at all points; a record's ``params`` tell its point.
        """
        config = self._with_output(self.config(path, dataset, overrides), tag)
        self.say(f"{self.paper}: {tag} ({config.model.name} on {config.dataset}, "
                  f"{len(points)} points x {config.runs} runs)")
        result = self._resume(config, tag, points=points, table=False)
        return by_seed(result.planned)

    def stream(self, path, tag: str, overrides=()) -> list[dict]:
        """Run a config with a ``stream:`` section (resuming); return its seeds' records."""
        config = self._with_output(self.config(path, None, overrides), tag)
        self.say(f"{self.paper}: {tag} (stream of {config.dataset}, {config.runs} runs)")
        result = self._resume(config, tag)
        return by_seed(result.planned)

    def sweep(self, path, tag: str, dataset: str | None = None, overrides=()) -> pd.DataFrame:
        """Run a config's declared sweep grid (resuming); return its sweep table."""
        from shortclust.pipeline.sweep import sweep_frame

        config = self._with_output(self.config(path, dataset, overrides), tag)
        (param, values), = config.sweep.items()
        self.say(f"{self.paper}: {tag} ({param} sweep on {config.dataset}, "
                  f"{len(values)} values x {config.runs} runs)")
        result = self._resume(config, tag, points=[{param: v} for v in values])
        return sweep_frame(by_seed(result.planned), param, values)

    def _resume(self, config, tag: str, **options):
        """Run ``config`` in the tag's work directory, resuming, with the tag's archive."""
        from shortclust.pipeline.runner import RunOptions, run_experiment

        check_terminated()  # a safe point between configs: a swallowed SIGTERM stops here
        archive = self.archive_path(f"{tag}.json")
        run_options = RunOptions(resume=True, data_dir=self.data_dir, quiet=True,
                                 progress=not self.quiet, jobs=self.jobs, cluster=self.cluster,
                                 fit=self.fit,
                                 archive=archive if self.archive else None)
        result = run_experiment(config, run_options, **options)
        self.fitted += result.n_run
        self.collected += len(result.planned)
        return result

    def archive_path(self, name: str) -> Path:
        """``<results>/<paper>/records/<name>``, the archive of one tag or measurement.

        A results folder other than the project's own starts from a copy of the committed
        archive (when there is one and this folder has none), so ``--results DIR`` and the
        scratch folder of ``--runs`` reuse the committed runs without writing to them.
        """
        return self.seeded(Path(RECORDS_DIR) / name)

    def seeded(self, relative) -> Path:
        """``<results>/<paper>/<relative>``, copied first from the project's committed
        ``results/`` when missing here (see :meth:`archive_path`)."""
        path = self.results_dir / self.paper / relative
        if not path.exists():
            committed = self.project_path("results") / self.paper / relative
            if committed.is_file() and committed.resolve() != path.resolve():
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, lambda handle: handle.write(committed.read_bytes()))
        return path

    def _with_output(self, config, tag: str):
        return config.model_copy(update={"output": str(self.work_dir / self.paper / tag)})

    def write_text(self, name: str, text: str) -> Path:
        """Write a results file (atomically) and remember it.

        With ``fit=False``, an item that has found no runs at all, or missed a dataset,
        leaves an existing file as it is (listed in ``kept``): ``--no-fit`` never replaces
        a committed table by one that says that nothing was run or lacks a dataset's rows.
        """
        path = self.results_dir / self.paper / name
        if self._keeps(path):
            self.kept.append(path)
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
        self.written.append(path)
        return path

    def write_table(self, name: str, frame: pd.DataFrame, markdown: str) -> None:
        """``<name>.csv`` from ``frame`` and ``<name>.md`` from ``markdown``."""
        self.write_text(f"{name}.csv", frame.to_csv(index=False))
        self.write_text(f"{name}.md", markdown)

    def figure_path(self, name: str) -> Path:
        """Where ``<name>.png`` goes; the caller saves the figure there (with ``fit=False``
        and no runs found, a scratch path, so an existing figure stays: see
        :meth:`write_text`)."""
        path = self.results_dir / self.paper / f"{name}.png"
        if self._keeps(path):
            self.kept.append(path)
            # One scratch directory per job, removed when the job object goes (or at exit).
            if getattr(self, "_scratch", None) is None:
                self._scratch = tempfile.TemporaryDirectory(prefix="shortclust-kept-")
            return Path(self._scratch.name) / path.name
        self.written.append(path)
        return path

    def say(self, message: str) -> None:
        if not self.quiet:
            from rich.console import Console

            Console(stderr=True, highlight=False).print(message, markup=False)


def by_seed(records: list[dict]) -> list[dict]:
    """The records of a config's planned runs, by seed, then run id.

    The fixed order matters because means and sums of floats depend on the order of their
    terms in the last digit: ``--jobs`` records runs as they finish, a fresh clone restores
    them from the archive, and both must print the same tables.
    """
    return sorted(records, key=lambda record: (record["seed"], str(record.get("run_id"))))


def markdown_table(headers: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table from header and row cells (``|`` escaped)."""
    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(headers), line(["---"] * len(headers))] + [line(r) for r in rows])


#: Values a record holds beside its metrics (what the fit found and took).
RECORD_VALUES = ("n_clusters", "n_iter", "fit_seconds")


def metric_values(records: list[dict], metric: str) -> list[float | None]:
    """One metric of every record, in order (None where a record lacks it).

    ``metric`` may also be one of :data:`RECORD_VALUES`. Give the records in a fixed order
    (by seed, as :meth:`Reproduction.run` returns them): means depend on it in the last digit.
    """
    if metric in RECORD_VALUES:
        return [r.get(metric) for r in records]
    return [(r.get("metrics") or {}).get(metric) for r in records]


def provenance_line(job: Reproduction, extra: str = "") -> str:
    """The footer of every results file: the command and the run counts.

    No commit hash or date: the same records must give the same bytes, so that committed
    results can be checked against a regeneration (each record carries its commit).
    """
    runs = "each config's own run count" if job.runs is None else f"--runs {job.runs}"
    text = (f"Generated by `shortclust reproduce {job.paper}` ({runs}); numbers are "
            "mean ± sample std over runs with seeds 0..N-1; the records under "
            f"`{job.shown_work_dir()}/{job.paper}/` carry each run's commit, versions and "
            "checksum.")
    return text + (" " + extra if extra else "")
