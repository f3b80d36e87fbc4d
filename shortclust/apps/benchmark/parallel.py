"""Whole cells at a time in worker processes: how ``benchmark --jobs N`` uses N cores.

The run pipeline's own ``--jobs`` spreads one experiment's seeds over N processes. A suite
is mostly cells of 5 runs and cells of 1 (a model without a seed), so with 2 processes
each cell of 5 left a core idle for its last run, and each cell of 1 for its whole run
(HDBSCAN on MiniLM vectors: about 130 s on GoogleNews-T). Cells are independent (each has
its own run folder, lock and archive), so the benchmark fits N *cells* at a time instead,
one single-threaded process each, every cell's runs one after another in its process,
and the cores stay busy until the last cells. A run's labels and record do not depend on
the process that fits it (timings aside), so the tables are the same as with ``--jobs 1``.

Only the parent writes tables, after every cell is fitted, from the archives alone (as
``--no-fit`` does). On Ctrl-C or SIGTERM the parent kills the workers: each cell's finished
runs stay in its run folder, and the next command archives them and fits the rest.
"""

from __future__ import annotations

from shortclust.pipeline.runner import ExperimentInterrupted

__all__ = ["CellsInterrupted", "fit_cells"]


class CellsInterrupted(ExperimentInterrupted):
    """The user stopped a parallel benchmark: ``n_done`` of ``n_total`` cells finished."""

    def __init__(self, n_done: int, n_total: int, exit_code: int = 130):
        super().__init__(n_done, n_total, exit_code)
        self.args = (f"interrupted after {n_done} of {n_total} cells",)


def fit_cells(job, cells, workers: int) -> int:
    """Fit the missing runs of ``cells`` in ``workers`` processes; the runs fitted.

    Cells start in suite order, each as soon as a process is free; a cell's failure (a
    missing dataset, say) stops the others and is raised here, as it would be one cell
    after another.
    """
    from functools import partial

    from shortclust.errors import interrupt_exit_code
    from shortclust.pipeline.executors import process_pool, run_in_pool

    if not cells:
        return 0
    job.say(f"benchmark: {len(cells)} cells, {workers} at a time")
    counts = {"fitted": 0, "cells": 0}

    def finished(cell, n_run: int) -> None:
        counts["fitted"] += n_run
        counts["cells"] += 1
        job.say(f"benchmark: {cell.tag}: {n_run} runs fitted "
                f"({counts['cells']} of {len(cells)} cells)")

    try:
        run_in_pool(process_pool(workers), partial(_fit_cell, job), cells, workers, finished)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM under the CLI
        raise CellsInterrupted(counts["cells"], len(cells),
                               interrupt_exit_code(exc)) from None
    return counts["fitted"]


def _fit_cell(job, cell) -> int:
    """In a worker: fit the cell's missing runs one after another, quietly; the runs fitted."""
    job.jobs, job.quiet, job.fitted = 1, True, 0
    job.run_cell(cell)
    return job.fitted
