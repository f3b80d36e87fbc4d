"""``shortclust report RUN_DIR``: one self-contained HTML page of a run's clusters.

:mod:`.data` reads the run and computes what is shown (plain numbers, testable without a
browser), :mod:`.layout` places the documents in 2-D, :mod:`.figures` draws plotly
figures and :mod:`.page` writes them, with plotly.js inlined, into one HTML file that opens
offline. ``shortclust cluster`` writes ``report.html`` this way unless told
``--no-report`` (:mod:`.cluster_output`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["REPORT_FILE", "write_report"]

REPORT_FILE = "report.html"


def write_report(run_dir, output=None, *, run_id: str | None = None, data_dir=None,
                 corpus=None, documents=None, clusters=None, notes=(), seed: int = 0,
                 max_points: int | None = None) -> Path:
    """Build the report of ``run_dir`` and write it (atomically) to ``output``.

    Parameters
    ----------
    run_dir : path-like
        A ``shortclust cluster`` output folder or a ``shortclust run`` output folder.
    output : path-like, optional
        Default ``run_dir/report.html``.
    run_id : str, optional
        Which run of the folder (default: the first with its labels file).
    data_dir : path-like, optional
        Where registered datasets are.
    corpus, documents, clusters : optional
        The run's corpus, input documents and described clusters
        (dicts of ``cluster``, ``size``, ``top_words``, ``representatives``) when the caller
        has them already.
    notes : sequence of str
        Lines for the overview (what preprocessing chose).
    seed : int
        Seeds the map.
    max_points : int, optional
        Documents on the map at most (default :data:`.data.MAX_MAP_POINTS`).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ShortclustError
        ``output`` is a directory, or the run or its dataset cannot be read (one line).
    """
    from shortclust.apps.report.data import (MAX_MAP_POINTS, load_run, load_run_corpus,
                                             report_data)
    from shortclust.apps.report.page import render
    from shortclust.data.io import file_in_the_way
    from shortclust.errors import ConfigError

    output = Path(output) if output is not None else Path(run_dir) / REPORT_FILE
    if output.is_dir():
        raise ConfigError(f"output '{output}' is a directory: give a file name with --output")
    if Path(run_dir).is_dir() and file_in_the_way(output) is not None:  # before the work
        raise ConfigError(f"output '{output}': cannot write it ('{file_in_the_way(output)}' is "
                          "a file, not a folder): choose another file with --output")
    from shortclust.apps.safe_output import check_replaces_only_its_own

    check_replaces_only_its_own(output, b"<!DOCTYPE html", "an HTML report")
    if (Path(run_dir) / "record.json").is_file():  # a `shortclust cluster` output
        from shortclust.apps.report.cluster_output import cluster_folder_data

        data = cluster_folder_data(run_dir, seed=seed, max_points=max_points or MAX_MAP_POINTS)
        return _write(output, render(data))
    run = load_run(run_dir, run_id)
    corpus = corpus if corpus is not None else load_run_corpus(run, data_dir)
    data = report_data(run, corpus, seed=seed, documents=documents, clusters=clusters,
                       extra_notes=notes, max_points=max_points or MAX_MAP_POINTS)
    return _write(output, render(data))


def _write(output: Path, page: str) -> Path:
    """Write the page atomically; a failure is one line naming the output."""
    from shortclust.data.io import write_problem
    from shortclust.errors import ConfigError
    from shortclust.pipeline.records import atomic_write_text

    try:
        atomic_write_text(output, page)
    except OSError as error:
        raise ConfigError(f"output '{output}': cannot write it ({write_problem(error, output)})"
                          ": choose another file with --output; a report there is kept") from None
    return output
