"""The IC reproduction's items: Tables 2-5, the HAC_SD_IC check, the appendix figures and the
ablation, each a function of a reproduction job. What they run (configs, tags) is in
:mod:`shortclust.papers.ic.runs`.
"""

from __future__ import annotations

import pandas as pd

from shortclust.pipeline.modern import modern_section, run_modern
from shortclust.pipeline.reproduce import provenance_line
from shortclust.papers.ic import figures, tables
from shortclust.papers.ic.ablation import ablation
from shortclust.papers.ic.hac_sd_gap import hac_sd_gap
from shortclust.papers.ic.reported import DATASETS, FIGURE_DATASETS, FIGURE_GRIDS, TABLES
from shortclust.papers.ic.runs import (
    present_datasets, run_dataset, run_figure_grid, run_method, totals, records_of,
)
from shortclust.papers.ic.notes import describe_representation
from shortclust.papers.ic.sparse_vs_dense import sparse_vs_dense
from shortclust.papers.ic.settings import CONFIGS, METHOD_CONFIGS, REPRESENTATIONS
from shortclust.papers.ic.timing import timed_items


# --------------------------------------------------------------------------------------------
# items


def hac_sd_ic(job) -> dict:
    """HAC_SD and HAC_SD_IC on SearchSnippets-test and Tweet against the paper (±5 ACC)."""
    present = present_datasets(job, FIGURE_DATASETS)
    by_representation = {rep: {d: run_method(job, "HAC_SD", d, rep) for d in present}
                         for rep in REPRESENTATIONS}
    text, frame = tables.build_check(by_representation, provenance_line(job))
    job.write_table("hac_sd_ic", frame, text)
    return totals([records_of(r) for r in by_representation.values()])


def table_item(name: str):
    """The function reproducing one of Tables 2-5 (its runs are shared with its twin)."""
    def item(job) -> dict:
        _, datasets, _ = TABLES[name]
        present = present_datasets(job, datasets)
        by_representation = {rep: {d: run_dataset(job, d, rep) for d in present}
                             for rep in REPRESENTATIONS}
        modern = {d: run_modern(job, d, DATASETS[d][1]) for d in present}
        section, modern_rows = modern_section(modern, [metric], scale=100, digits=2)
        table = tables.build_tables(name, by_representation,
                                    section + "\n" + provenance_line(job))
        frame = pd.concat([table.frame, pd.DataFrame(modern_rows).rename(
            columns={"method": "row"}).assign(
            representation="MiniLM (modern baselines, not in paper)")], ignore_index=True)
        job.write_table(name, frame, table.markdown)
        return totals([records_of(r) for r in by_representation.values()])

    metric, datasets, number = TABLES[name]
    item.__doc__ = (f"Table {number}: {metric.upper()} of the five methods with and without "
                    f"IC on {', '.join(datasets)}.")
    return item


def figure1(job) -> dict:
    """Appendix Figure 1: ACC of IC on k-means with a fixed P in every iteration."""
    frames, used = {}, []
    for dataset in present_datasets(job, FIGURE_DATASETS):
        grouped = run_figure_grid(job, dataset, FIGURE_GRIDS["figure1"], "figure1")
        frames[dataset] = figures.grid_frame(grouped, "P1")
        used += grouped.values()
    figures.write_figure(job, "figure1", {"figure1": frames}, figure_representation(job))
    return totals(used)


def figure2(job) -> dict:
    """Appendix Figure 2: ACC of IC on k-means with P drawn from [P1, P2]."""
    panels, used = {"figure2a": {}, "figure2b": {}}, []
    points = list(dict.fromkeys(FIGURE_GRIDS["figure2a"] + FIGURE_GRIDS["figure2b"]))
    for dataset in present_datasets(job, FIGURE_DATASETS):
        grouped = run_figure_grid(job, dataset, points, "figure2")
        used += grouped.values()
        for panel, x in (("figure2a", "P1"), ("figure2b", "P2")):
            panels[panel][dataset] = figures.grid_frame(
                {p: grouped[p] for p in FIGURE_GRIDS[panel]}, x)
    figures.write_figure(job, "figure2", panels, figure_representation(job))
    return totals(used)


def figure_representation(job) -> str:
    """What the figures' k-means runs on, from its config."""
    base = job.config(CONFIGS / METHOD_CONFIGS["k-means"], FIGURE_DATASETS[0])
    return (f"Representation: k-means on {describe_representation(base.representation)}; "
            "IC on TF-IDF of the counts.")


ITEMS = timed_items({
    "hac_sd_ic": hac_sd_ic,
    "hac_sd_gap": hac_sd_gap,
    **{name: table_item(name) for name in TABLES},
    "figure1": figure1,
    "figure2": figure2,
    "ablation": ablation,
    "sparse_vs_dense": sparse_vs_dense,
})
