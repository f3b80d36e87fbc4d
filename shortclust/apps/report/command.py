"""``shortclust report RUN_DIR``, declared here and merged into :mod:`shortclust.cli`'s
commands (``app.add_typer``), so that ``cli.py`` stays short."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

report_app = typer.Typer()


@report_app.command("report")
def report(
    run_dir: Path = typer.Argument(..., metavar="RUN_DIR",
                                   help="A folder `shortclust cluster` or `run` wrote."),
    output: Optional[Path] = typer.Option(None, "--output", metavar="HTML",
                                          help="File to write (default: RUN_DIR/report.html)."),
    run_id: Optional[str] = typer.Option(None, "--run-id",
                                         help="Which run (default: the first with labels)."),
    max_points: int = typer.Option(3000, "--max-points", min=10,
                                   help="Documents on the map at most (a random sample)."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", metavar="DIR",
                                            help="Directory holding the dataset files."),
) -> None:
    """Write one self-contained HTML report of a run: overview, map, clusters, labels, stream."""
    from shortclust.apps.report import write_report
    from shortclust.errors import ShortclustError

    try:
        written = write_report(run_dir, output, run_id=run_id, data_dir=data_dir,
                               max_points=max_points)
    except ShortclustError as error:  # one line and exit status 2, as every command
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"wrote {written} ({written.stat().st_size / 1e6:.1f} MB)")
