"""The ``shortclust`` command line: thin typer commands over :mod:`shortclust.experiments`.

Heavy modules (models and their numba kernels, pandas, scikit-learn) are imported inside the
commands, so ``shortclust --help`` starts fast. Every user error is a
:class:`~shortclust.errors.ShortclustError`, printed as one ``error: ...`` line on stderr with
exit status 2; Ctrl-C exits with status 130, SIGTERM (handled as
Ctrl-C: finished runs kept) with 143. Python warnings (a solver that did not
converge, say) are shown as one ``warning: ...`` line each, without the source line.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from shortclust._collector import startup_paused
from shortclust.apps.benchmark import command as bench
from shortclust.apps.report.command import report_app
from shortclust.apps.version import print_version
from shortclust.errors import (ShortclustError, interrupt_exit_code,
                               show_warnings_on_one_line)

app = typer.Typer(
    name="shortclust",
    help="Cluster short texts: a file of your own (cluster, predict), experiment configs "
    "(run, sweep), the papers' tables (reproduce), every model on every dataset (benchmark).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _options(
    show_version: bool = typer.Option(False, "--version", callback=print_version, is_eager=True,
                                      help="Print the version and exit."),
) -> None:
    """Cluster short texts: a file of your own (cluster, predict), experiment configs (run,
    sweep), the papers' tables (reproduce)."""


data_app = typer.Typer(help="List, inspect and download the registered datasets.",
                       no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(report_app)  # `shortclust report` (shortclust.apps.report.command)

INTERRUPTED = 130
TERMINATED = 143
USER_ERROR = 2


def _echo_error(error: ShortclustError) -> None:
    # ShortclustError keeps its own message on one line.
    typer.echo(f"error: {error}", err=True)


@contextmanager
def _user_errors():
    """Turn ShortclustError into ``error: <message>`` + exit 2, and Ctrl-C into exit 130."""
    try:
        yield
    except ShortclustError as exc:
        _echo_error(exc)
        raise typer.Exit(USER_ERROR) from None
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (errors.Terminated)
        code = interrupt_exit_code(exc)
        typer.echo("terminated (SIGTERM)" if code == TERMINATED else "interrupted", err=True)
        raise typer.Exit(code) from None


_DATA_DIR_HELP = (
    "Directory holding the dataset files (default: $SHORTCLUST_DATA, else the user cache)."
)


# Options shared by `run` and `sweep`.
SetOption = Annotated[Optional[List[str]], typer.Option(
    "--set", metavar="KEY=VALUE",
    help="Override a config value, e.g. model.params.alpha=0.05, runs=3 or alpha=0.05 "
    "(a bare model parameter). Repeatable.",
)]
RunsOption = Annotated[Optional[int], typer.Option(
    "--runs", min=1, max=100_000,  # config.MAX_RUNS (not imported here: start-up time)
    help="Run seeds 0..N-1 (replaces the config's runs/seeds).",
)]
DataDirOption = Annotated[Optional[Path], typer.Option("--data-dir", help=_DATA_DIR_HELP)]
ResumeOption = Annotated[bool, typer.Option(
    "--resume", help="Skip runs already in records.jsonl instead of starting fresh.",
)]
QuietOption = Annotated[bool, typer.Option(
    "--quiet", help="No progress bars, messages or table.",
)]
_JOBS_HELP = (
    "Worker processes fitting independent runs in parallel (default 1: one after another; "
    "0 or -1: one per core). Results do not depend on it."
)
JobsOption = Annotated[int, typer.Option("--jobs", "-j", min=-1, help=_JOBS_HELP)]
_CLUSTER_HELP = (
    "Fit the runs on a Dask cluster: 'local' (worker processes here, --jobs of them or one "
    "per core) or a scheduler address tcp://HOST:8786. Needs the extra shortclust\\[cluster]."
)
ClusterOption = Annotated[Optional[str], typer.Option(
    "--cluster", metavar="local|tcp://HOST:PORT", help=_CLUSTER_HELP,
)]


def _check_cluster(cluster) -> None:
    """A ``--cluster`` that cannot be used fails here, in one line, before any run: called
    first, before the heavy imports, so the whole command fails within 5 s."""
    if cluster is not None:
        from shortclust.pipeline.cluster_probe import check_cluster

        check_cluster(cluster)


def _say_jobs(jobs: int, quiet: bool) -> None:
    """On stderr: how many workers ``--jobs 0/-1`` means here, or that ``--jobs`` above
    the number of cores is capped to it."""
    if quiet or jobs == 1:
        return
    from shortclust.pipeline.executors import cpu_cores
    from shortclust.pipeline.runner import resolve_jobs

    workers = resolve_jobs(jobs)
    if jobs < 1:
        typer.echo(f"--jobs {jobs}: using all {workers} cores", err=True)
    elif workers < jobs:
        typer.echo(f"--jobs {jobs}: only {cpu_cores()} cores here; using {workers} workers",
                   err=True)


def _run_options(data_dir, resume: bool, quiet: bool, jobs: int, cluster=None):
    """The command line's RunOptions (how to run; the config says what)."""
    from shortclust.pipeline.runner import RunOptions

    if cluster is None:
        _say_jobs(jobs, quiet)
    return RunOptions(resume=resume, data_dir=data_dir, quiet=quiet, jobs=jobs,
                      cluster=cluster)


def _output_dir(output: str | None) -> Path | None:
    """``--output`` as a path; an empty one would write into the current directory."""
    if output is None:
        return None
    if not output.strip():
        from shortclust.errors import ConfigError

        raise ConfigError("--output is empty: give a directory, or leave --output out for "
                          "the default")
    return Path(output)


def _load_with_overrides(config: Path, set_, runs, output=None):
    """The config with ``--set``, ``--runs`` and ``--output`` applied (checked)."""
    from shortclust.config import load_config

    overrides = list(set_ or [])
    if runs is not None:
        overrides.append(f"runs={runs}")
    if output is not None:
        overrides.append(f"output={json.dumps(str(output))}")
    return load_config(config, overrides)



_FILE_HELP = ("The texts: a CSV file (a 'text' column; optional 'id' and 'label'), JSON Lines "
              "({\"text\": ...} per line) or plain text (one document per line).")


@app.command()
def cluster(
    file: str = typer.Argument(..., metavar="FILE", help=_FILE_HELP),
    model: Optional[str] = typer.Option(
        None, "--model", help="Model (`shortclust models` lists them). Default: k-means on "
        "MiniLM embeddings reduced by UMAP when the embeddings extra is installed, else "
        "GSDMM on word counts (shortclust.apps.defaults; the protocol's choice)."),
    n_clusters: str = typer.Option(
        "auto", "--n-clusters", "-k", metavar="K|auto|gsdmm|hdbscan|silhouette|...",
        help="Number of clusters, or how it is chosen: auto (default: the default path's "
             "own, silhouette-cosine on embeddings, gsdmm on word counts), gsdmm (GSDMM "
             "with a generous bound, small clusters merged), or on embeddings hdbscan, silhouette, "
             "calinski, silhouette-cosine, hdbscan-kmeans (shortclust.apps.reduced)."),
    embeddings: Optional[str] = typer.Option(
        None, "--embeddings", metavar="minilm|glove|none",
        help="Fit a vector model on packaged embeddings: minilm (sentence embeddings, extra "
             "shortclust\\[embeddings]) or glove (extra shortclust\\[glove])."),
    umap: Optional[int] = typer.Option(None, "--umap", min=0, metavar="DIMS", help=(
        "With embeddings: reduce them by UMAP to DIMS dimensions (BERTopic's settings) and "
        "cluster there with k-means; 0: no UMAP.")),
    reduce_to: Optional[int] = typer.Option(None, "--reduce-to", min=1, metavar="N", help=(
        "Merge the clusters found into at most N, the most similar first.")),
    set_: Annotated[Optional[List[str]], typer.Option(
        "--set", metavar="NAME=VALUE",
        help="A model parameter, e.g. alpha=0.05 or max_iter=50. Repeatable.")] = None,
    preprocess: str = typer.Option(
        "auto", "--preprocess", metavar="NAME",
        help="none, gsdmm, ncut, newsgroups, newsgroups_headers, sklearn_english, basic, "
             "basic-LANG, chinese, or auto: basic for raw text or text full of stop words, "
             "none for text tokenised already, chinese for Chinese. NAME(min_df=N) changes "
             "a pipeline's document-frequency cut."),
    language: Optional[str] = typer.Option(None, "--language", metavar="LANG", help=(
        "Remove the stop words of this language (de, es, french, ...) instead of English "
        "ones (extra shortclust\\[languages]).")),
    seed: int = typer.Option(0, "--seed", min=0, help="Random seed (same seed, same clusters)."),
    output: Optional[str] = typer.Option(
        None, "--output", metavar="DIR", help="Output directory (default: <FILE stem>_clusters)."),
    top_words: int = typer.Option(10, "--top-words", min=1, help="Top words per cluster."),
    data_dir: DataDirOption = None,
    quiet: bool = typer.Option(False, "--quiet", help="No progress, notes or report."),
    report: bool = typer.Option(True, "--report/--no-report", help="Write report.html."),
) -> None:
    """Cluster the texts of one file: assignments, clusters, a saved model, an HTML report."""
    with _user_errors():
        from shortclust.apps.cluster import cluster_config, cluster_file, report_lines
        from shortclust.apps.safe_output import CLUSTER_WRITES, check_output_dir
        request = cluster_config(file, model=model, n_clusters=n_clusters, params=set_,
                                 preprocess=preprocess, seed=seed, output=_output_dir(output),
                                 top_words=top_words, embeddings=embeddings,
                                 language=language, reduce_to=reduce_to, umap_dims=umap)
        check_output_dir(request.output, {"input file": file}, CLUSTER_WRITES)
        result = cluster_file(request, data_dir=data_dir, progress=not quiet, report=report)
        if quiet:
            return
        for note in result.notes + ([result.model_note] if result.model_note else []):
            typer.echo(f"note: {note}", err=True)
        typer.echo("\n".join(report_lines(file, result)))


def _embeddings_override(embeddings) -> list[str]:
    """``--embeddings NAME`` of ``run`` as the config override it stands for."""
    name = _none_word(embeddings)
    if name is None:
        return []
    from shortclust.apps.text_clusterer import EMBEDDINGS

    if name not in EMBEDDINGS:
        from shortclust.errors import ConfigError

        raise ConfigError(f"unknown embeddings '{name}': choose one of {', '.join(EMBEDDINGS)}")
    return [f"representation={EMBEDDINGS[name]}"]


def _none_word(value):
    """``--embeddings none`` (or an empty value) means no embeddings."""
    return None if value is None or value.strip().lower() in ("", "none") else value


@app.command()
def predict(
    model: Path = typer.Argument(
        ..., metavar="MODEL", help="A model.zip written by `cluster` or `run --save-models`."),
    file: Path = typer.Argument(..., metavar="FILE", help=_FILE_HELP),
    output: Optional[str] = typer.Option(
        None, "--output", metavar="CSV",
        help="Assignments file to write (default: <FILE stem>_assignments.csv). An existing "
             "assignments CSV is replaced; any other existing file is refused."),
    quiet: bool = typer.Option(False, "--quiet", help="No report."),
) -> None:
    """Assign new texts to the clusters of a saved model, through its preprocessing."""
    with _user_errors():
        from shortclust.errors import ConfigError
        from shortclust.apps.predict import default_output, predict_file
        from shortclust.apps.safe_output import check_output_file

        target = _output_dir(output) or default_output(file)
        if target.is_dir():
            raise ConfigError(f"output '{target}' is a directory: give a file name with --output")
        check_output_file(target, {"input file": file, "model file": model})
        done = predict_file(model, file, target)
        if quiet:
            return
        counts = done.counts
        sizes = ", ".join(f"{cluster}: {size}" for cluster, size in list(done.sizes.items())[:10])
        more = " ..." if len(done.sizes) > 10 else ""
        typer.echo(f"{file}: {sum(counts.values())} documents given to {done.model.model} "
                   f"({done.model.saved_.path}): {counts['ok'] + counts['empty']} assigned, in "
                   f"{len(done.sizes)} clusters; {counts['empty']} of them had no word the "
                   f"model knows (status empty); {counts['dropped']} dropped by preprocessing")
        if sizes:
            typer.echo(f"documents per cluster: {sizes}{more}")
        typer.echo(f"wrote {done.path}")


@app.command()
def run(
    config: Path = typer.Argument(..., help="Experiment YAML file (see configs/)."),
    set_: SetOption = None,
    runs: RunsOption = None,
    output: Optional[str] = typer.Option(
        None, "--output", metavar="DIR",
        help="Output directory (default: the config's output, else runs/<name>)."),
    data_dir: DataDirOption = None,
    resume: ResumeOption = False,
    quiet: QuietOption = False,
    jobs: JobsOption = 1,
    cluster: ClusterOption = None,
    save_models: bool = typer.Option(
        False, "--save-models",
        help="Keep each run's fitted model as models/<run_id>.zip (for `shortclust predict`)."),
    embeddings: Optional[str] = typer.Option(
        None, "--embeddings", metavar="minilm|glove",
        help="Fit on packaged embeddings (the config's representation: sentence_embeddings "
             "or glove)."),
    report: bool = typer.Option(False, "--report", help="Also write OUTPUT/report.html "
                                "(of the first run; `shortclust report` for another)."),
) -> None:
    """Run an experiment: fit the model once per seed, record each run, print a summary."""
    with _user_errors(), startup_paused():  # the collector: resumed before the first fit
        _check_cluster(cluster)
        set_ = [*(set_ or ()), *_embeddings_override(embeddings)]
        from dataclasses import replace

        from shortclust.pipeline.runner import ExperimentInterrupted, run_experiment

        experiment = _load_with_overrides(config, set_, runs, _output_dir(output))
        try:
            options = _run_options(data_dir, resume, quiet, jobs, cluster)
            run_experiment(experiment, replace(options, save_models=save_models))
        except ExperimentInterrupted as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(exc.exit_code) from None
        if report:
            from shortclust.apps.report import write_report

            typer.echo(f"report: {write_report(Path(experiment.output), data_dir=data_dir)}")


DEFAULT_SWEEP_CONFIG = Path("configs/gsdmm_tweet.yaml")


@app.command()
def sweep(
    config: Path = typer.Argument(
        DEFAULT_SWEEP_CONFIG, help="Experiment YAML file (default: configs/gsdmm_tweet.yaml)."
    ),
    param: str = typer.Option(
        ..., "--param", help="Model parameter to vary, e.g. beta (or model.params.beta)."
    ),
    values: Optional[str] = typer.Option(
        None, "--values", metavar="V1,V2,...",
        help="Comma-separated grid (default: the config's `sweep:` grid for PARAM).",
    ),
    set_: SetOption = None,
    runs: RunsOption = None,
    output: Optional[str] = typer.Option(
        None, "--output", metavar="DIR",
        help="Output directory (default: <config output>_sweep_<PARAM>)."
    ),
    data_dir: DataDirOption = None,
    resume: ResumeOption = False,
    quiet: QuietOption = False,
    jobs: JobsOption = 1,
    cluster: ClusterOption = None,
) -> None:
    """Run a config over a grid of one model parameter; write a table and a figure."""
    with _user_errors():
        _check_cluster(cluster)
        from shortclust.pipeline.runner import ExperimentInterrupted
        from shortclust.pipeline.sweep import default_sweep_output, resolve_sweep, run_sweep

        experiment = _load_with_overrides(config, set_, runs)
        name, grid = resolve_sweep(experiment, param, values)
        target = _output_dir(output) or default_sweep_output(experiment, name)
        experiment = experiment.model_copy(update={"output": str(target)})
        try:
            options = _run_options(data_dir, resume, quiet, jobs, cluster)
            run_sweep(experiment, name, grid, options)
        except ExperimentInterrupted as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(exc.exit_code) from None


class _ReproduceCommand(typer.core.TyperCommand):
    """The ``reproduce`` command: its help ends with the registered papers, read when shown.

    Reading the registry imports every paper, so it happens only when this help is printed,
    not whenever the command line starts.
    """

    @property
    def epilog(self) -> str:
        from shortclust.papers.registry import describe_papers

        return ("Papers, their items and their own options (given after PAPER, e.g. "
                "`shortclust reproduce gsdmm --max-copies 16`):\n\n" + describe_papers())

    @epilog.setter
    def epilog(self, value) -> None:
        pass  # click sets it from the decorator; the property computes it instead


@app.command(cls=_ReproduceCommand,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def reproduce(
    ctx: typer.Context,
    paper: str = typer.Argument(..., help="Paper to reproduce (listed below) or 'all'."),
    runs: Optional[int] = typer.Option(
        None, "--runs", min=1, max=100_000,
        help="Seeds 0..N-1 for every config (default: the paper's run counts).",
    ),
    only: Optional[str] = typer.Option(
        None, "--only", metavar="ITEM,...",
        help="Reproduce only these items (e.g. table2,beta); default: every item.",
    ),
    results: Optional[Path] = typer.Option(
        None, "--results",
        help="Where tables and figures go (<results>/<paper>/; default: results/ of the "
             "checkout, or runs/reproduce/results/ with --runs, so that a smaller run never "
             "replaces a committed table; needed for an installed copy).",
    ),
    work_dir: Optional[Path] = typer.Option(
        None, "--work-dir",
        help="Where run records go; finished runs there are reused (default: "
             "runs/reproduce/ of the checkout).",
    ),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=_DATA_DIR_HELP),
    quiet: bool = typer.Option(False, "--quiet", help="No progress output."),
    jobs: JobsOption = 1,
    cluster: ClusterOption = None,
    no_fit: bool = typer.Option(
        False, "--no-fit",
        help="Fit nothing: build the tables from the runs already recorded (the archive in "
             "<results>/<paper>/records/ and --work-dir); each cell states its run count.",
    ),
) -> None:
    """Regenerate a paper's tables and figures, reproduced numbers beside the reported ones."""
    with _user_errors():
        _check_cluster(cluster)
        from shortclust.pipeline.runner import ExperimentInterrupted
        from shortclust.papers import registry

        names = registry.paper_names() if paper == "all" else [paper]
        # An unknown paper or a bad paper option fails before any run.
        options = registry.parse_paper_options([registry.get_paper(n) for n in names],
                                               ctx.args)
        items = None if only is None else [p.strip() for p in only.split(",") if p.strip()]
        if cluster is None:
            _say_jobs(jobs, quiet)
        for name in names:
            try:
                job = registry.reproduce(name, runs=runs, only=items, results_dir=results,
                                         work_dir=work_dir, data_dir=data_dir, quiet=quiet,
                                         jobs=jobs, cluster=cluster, fit=not no_fit,
                                         options=options[name])
            except ExperimentInterrupted as exc:
                what = "terminated (SIGTERM)" if exc.exit_code == TERMINATED else "interrupted"
                typer.echo(f"{name}: {what} after {exc.n_done} of {exc.n_total} runs of "
                           "the current config (finished runs are kept); rerun the same "
                           "command to continue", err=True)
                raise typer.Exit(exc.exit_code) from None
            if not quiet:
                scratch = (" (a scratch folder: --runs without --results never writes over "
                           "the committed tables)") if runs is not None and results is None else ""
                typer.echo(f"{name}: wrote {len(job.written)} files under "
                           f"{job.results_dir / name}{scratch}")


@app.command()
def benchmark(only: bench.OnlyOption = None, models: bench.ModelsOption = None,
              runs: RunsOption = None, no_fit: bench.NoFitOption = False,
              results: bench.ResultsOption = None, work_dir: bench.WorkDirOption = None,
              data_dir: DataDirOption = None, quiet: QuietOption = False, jobs: JobsOption = 1,
              cluster: ClusterOption = None) -> None:
    """Every declared model on every dataset of a suite: leaderboards per dataset, mean ranks."""
    with _user_errors():
        _check_cluster(cluster)
        if cluster is None:
            _say_jobs(jobs, quiet)
        bench.run_command(only, models, runs, not no_fit, results, work_dir, data_dir, quiet,
                          jobs, cluster)

@data_app.command("list")
def data_list(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=_DATA_DIR_HELP),
) -> None:
    """List every registered dataset, whether its file is in the data directory, and its
    upstream source."""
    with _user_errors():
        from rich.console import Console

        from shortclust.apps.datasets import datasets_table, sources_table
        from shortclust.data.registry import data_dir_origin, list_datasets, resolve_data_dir

        directory = resolve_data_dir(data_dir)
        console = Console(highlight=False)
        origin = data_dir_origin(data_dir)
        if origin == "the user cache":
            origin += "; set $SHORTCLUST_DATA or --data-dir to use another"
        console.print(f"data directory: {directory} (from {origin})", markup=False)
        entries = list_datasets(data_dir)
        console.print(datasets_table(entries, directory))
        console.print(sources_table(entries))


@data_app.command("download")
def data_download(
    name: str = typer.Argument(..., metavar="NAME|all",
                               help="Registered dataset name, or `all`."),
    data_dir: DataDirOption = None,
    mirror: Optional[str] = typer.Option(
        None, "--mirror", metavar="URL",
        help="Base URL replacing raw.githubusercontent.com and github.com (a copy of the "
        "upstream files in the same layout)."),
    timeout: float = typer.Option(60.0, "--timeout", min=0.01, metavar="SECONDS",
                                  help="Seconds a connection or a read may stall."),
    force: bool = typer.Option(False, "--force", help="Replace a present file whose content "
                               "is not the registered one."),
    if_missing: bool = typer.Option(False, "--if-missing", help="Do nothing for a file that "
                                    "is present (without checking it)."),
) -> None:
    """Fetch datasets from their upstream repositories at the pinned commits, convert them to
    JSON Lines, check their SHA-256 and write them to the data directory."""
    with _user_errors():
        from shortclust.data.download import Fetcher, download, download_targets

        targets = download_targets(name)
        fetcher = Fetcher(timeout=timeout, mirror=mirror)
        failed = []
        for target in targets:
            try:
                result = download(target, data_dir, fetcher, force=force,
                                  if_missing=if_missing,
                                  log=lambda line: typer.echo(line, err=True))
            except ShortclustError as exc:
                if len(targets) == 1:
                    raise
                _echo_error(exc)
                failed.append(target)
            else:
                typer.echo(result.line())
        if failed:
            typer.echo(f"{len(targets) - len(failed)} of {len(targets)} datasets written or "
                       f"present; failed: {', '.join(failed)}", err=True)
            raise typer.Exit(USER_ERROR)


@data_app.command("info")
def data_info(
    name: str = typer.Argument(
        ..., help="Registered dataset name (see `shortclust data list`) or a file's path."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=_DATA_DIR_HELP),
) -> None:
    """Show what the registry knows about one dataset, and where its file is; or what a
    corpus file holds."""
    with _user_errors():
        from shortclust.apps.datasets import dataset_fields, file_fields
        from shortclust.data.registry import find_dataset_file, get_info, resolve_data_dir

        if Path(name).is_file():
            fields = file_fields(Path(name))
        else:
            info = get_info(name)
            directory = resolve_data_dir(data_dir)
            fields = dataset_fields(info, find_dataset_file(info, directory), directory)
        for key, value in fields.items():
            typer.echo(f"{key:<18} {value}")


@app.command()
def models(
    names_only: bool = typer.Option(False, "--names", help="Only the names, one a line."),
) -> None:
    """List the models (the names `model.name` and `--model` accept), with what each takes."""
    with _user_errors():
        if names_only:
            from shortclust.models import model_names

            for name in model_names():
                typer.echo(name)
            return
        from rich import box
        from rich.console import Console
        from rich.table import Table

        from shortclust.apps.datasets import yes_no
        from shortclust.models import model_table

        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for header in ("name", "source", "input", "incremental", "predict", "finds K itself"):
            table.add_column(header)
        for row in model_table():
            table.add_row(row["name"], row["source"], row["input"], yes_no(row["incremental"]),
                          yes_no(row["predict"]), row["finds_k"])
        Console(width=120).print(table)


def main() -> None:
    """Console-script entry point (``shortclust``); also ``python -m shortclust``."""
    from shortclust.apps.safety_net import run_guarded

    show_warnings_on_one_line()
    # SIGTERM is handled as Ctrl-C (finished runs kept) with exit 143; typer's errors and
    # any OverflowError, RecursionError, MemoryError or OSError left: one `error:` line.
    run_guarded(app, prog_name="shortclust")
