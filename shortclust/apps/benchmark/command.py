"""The options of ``shortclust benchmark`` and what the command does with them.

The command itself is declared in :mod:`shortclust.cli` (beside the others, with their
shared options); this module keeps its own options and its body there short.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

OnlyOption = Annotated[Optional[str], typer.Option(
    "--only", metavar="SUITE,...",
    help="Run only these suites (configs/benchmark/<suite>.yaml; e.g. quick). Default: "
         "every suite.")]
ModelsOption = Annotated[Optional[str], typer.Option(
    "--models", metavar="NAME,...",
    help="Fit only these declared models (configs/benchmark/models.yaml); the tables still "
         "show every cell recorded.")]
NoFitOption = Annotated[bool, typer.Option(
    "--no-fit", help="Fit nothing: rebuild the leaderboards from the archived records "
                     "(results/benchmark/records/).")]
ResultsOption = Annotated[Optional[Path], typer.Option(
    "--results", help="Parent of benchmark/ (default: results/ of the checkout).")]
WorkDirOption = Annotated[Optional[Path], typer.Option(
    "--work-dir", help="Parent of benchmark/ run folders (default: runs/ of the checkout).")]


def _names(text: str | None, option: str) -> list[str] | None:
    """The names of a comma-separated option; None when not given. Given but naming none
    (``--only ""``) is refused: it ran every suite, or fitted no model."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        from shortclust.errors import ConfigError

        raise ConfigError(f"{option} {text!r} names nothing: give one name or more, "
                          f"separated by commas, or leave {option} out for all")
    return names


def run_command(only, models, runs, fit, results, work_dir, data_dir, quiet, jobs,
                cluster) -> None:
    """Run the suites as the command line asked; an interruption exits 130 or 143 with one
    line (finished runs are kept)."""
    from shortclust.apps.benchmark import run_benchmark
    from shortclust.apps.benchmark.parallel import CellsInterrupted
    from shortclust.pipeline.runner import ExperimentInterrupted

    try:
        job = run_benchmark(_names(only, "--only"), runs=runs,
                            models=_names(models, "--models"), fit=fit, results_dir=results,
                            work_dir=work_dir, data_dir=data_dir,
                            quiet=quiet, jobs=jobs, cluster=cluster)
    except ExperimentInterrupted as exc:
        what = "terminated (SIGTERM)" if exc.exit_code == 143 else "interrupted"
        where = (f"{exc.n_done} of {exc.n_total} cells" if isinstance(exc, CellsInterrupted)
                 else f"{exc.n_done} of {exc.n_total} runs of the current cell")
        typer.echo(f"benchmark: {what} after {where} (finished runs are kept); rerun the "
                   "same command to continue", err=True)
        raise typer.Exit(exc.exit_code) from None
    if not quiet:
        typer.echo(f"benchmark: fitted {job.fitted} runs; wrote {len(job.written)} files "
                   f"under {job.results_dir}")
