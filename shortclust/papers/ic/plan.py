"""What the IC reproduction runs: configs, tags (work-directory names) and the items.

The initial clusterings (HAC_SD, HAC_kNN, HAC, k-means, k-means--) come from one config
each; their ``_IC`` enhancement is ``ic.yaml`` with the initial clusterer, its parameters
and its representation filled in from that config, so that IC's initial clustering is
exactly the row above it (k-means_IC with seed s starts from k-means with seed s). IC
itself works on the TF-IDF of the corpus counts (the runner passes them to ``fit``).
Every IC row is run twice: with 50 iterations, as the authors' code always runs (the
tables' main rows), and with the stopping rule of section 3.3.

A tag names what its config runs (:func:`config_digest`), so an edited config runs in a
new work directory instead of mixing with the old runs; renaming a tag orphans its
archived runs (``results/ic/records/<tag>.json``).
"""

from __future__ import annotations

import hashlib
import json

from shortclust.data.registry import dataset_present, resolve_data_dir
from shortclust.experiments.reproduce import provenance_line
from shortclust.papers.ic import figures, tables
from shortclust.papers.ic.ablation import ablation
from shortclust.papers.ic.hac_sd_gap import hac_sd_gap
from shortclust.papers.ic.notes import describe_representation
from shortclust.papers.ic.reported import (
    DATASETS, DETERMINISTIC, FIGURE_DATASETS, FIGURE_GRIDS, FIXED, METHODS, TABLES,
)
from shortclust.papers.ic.settings import (
    CONFIGS, FIGURE_RUNS, GSDPMM_CONFIG, IC_CONFIG, METHOD_CONFIGS, REPRESENTATIONS, RULES,
)
from shortclust.papers.ic.timing import timed_items

# --------------------------------------------------------------------------------------------
# configs and tags


def present_datasets(job, datasets) -> list[str]:
    """The datasets whose files are in the data directory; says which are not."""
    present = [d for d in datasets if dataset_present(d, job.data_dir)]
    missing = [d for d in datasets if d not in present]
    if missing:
        job.say(f"{job.paper}: not in {resolve_data_dir(job.data_dir)} (listed as not "
                f"present): {', '.join(missing)}")
    return present


def config_digest(config) -> str:
    """8 hex digits naming what a config runs (model, full parameters, representation)."""
    from shortclust.config import full_model_params

    identity = [config.model.name, full_model_params(config.model), config.representation,
                config.preprocess]
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _slug(method: str) -> str:
    return method.lower().replace("--", "_minus").replace("-", "")


def _run(job, path, slug: str, dataset: str, overrides: list[str]) -> list[dict]:
    """Run a config with its work directory named by what it runs (so edits never mix)."""
    config = job.config(path, dataset, overrides)
    return job.run(path, f"{slug}_{dataset}_{config_digest(config)}", dataset, overrides)


def base_overrides(method: str, dataset: str, representation: str | None = None) -> list[str]:
    """K = the true number of classes; a deterministic clusterer runs once (seed 0); the
    representation named in :data:`REPRESENTATIONS` (None: the config's own)."""
    section = REPRESENTATIONS.get(representation) if representation else None
    return [f"model.params.n_clusters={DATASETS[dataset][1]}"] + (
        ["seeds=[0]"] if method in DETERMINISTIC else []) + (
        [f"representation={json.dumps(section)}"] if section else [])


def _tag_prefix(representation: str | None) -> str:
    """Work-directory prefix of a representation's runs (none for the configs' own)."""
    return f"{representation.lower()}_" if representation and REPRESENTATIONS.get(
        representation) else ""


def ic_overrides(base, n_clusters: int) -> list[str]:
    """ic.yaml's overrides making IC start from the initial clustering ``base`` (a config)."""
    return [f"model.params.n_clusters={n_clusters}",
            f"model.params.initial={base.model.name}",
            f"model.params.initial_params={json.dumps(dict(base.model.params))}",
            f"representation={json.dumps(base.representation)}",
            f"preprocess={base.preprocess}"]


# --------------------------------------------------------------------------------------------
# runs


def run_method(job, method: str, dataset: str,
               representation: str | None = None) -> dict[str, list[dict]]:
    """An initial clustering and its IC with both iteration rules: ``{row: records}``.

    ``representation`` names an entry of :data:`REPRESENTATIONS` (None: the config's own).
    """
    path = CONFIGS / METHOD_CONFIGS[method]
    overrides = base_overrides(method, dataset, representation)
    base = job.config(path, dataset, overrides)
    prefix = _tag_prefix(representation)
    rows = {method: _run(job, path, prefix + _slug(method), dataset, overrides)}
    for suffix, rule in RULES.items():
        ic = ic_overrides(base, DATASETS[dataset][1]) + rule
        slug = prefix + _slug(method) + ("_ic50" if suffix == FIXED else "_ic33")
        rows[method + suffix] = _run(job, IC_CONFIG, slug, dataset, ic)
    return rows


def run_dataset(job, dataset: str, representation: str | None = None) -> dict[str, list[dict]]:
    """Every row of the paper's tables that we run, on one dataset: ``{row: records}``
    (GSDPMM clusters the counts: the same runs under every representation)."""
    rows = {}
    for method in METHODS:
        rows.update(run_method(job, method, dataset, representation))
    rows["GSDPMM"] = _run(job, GSDPMM_CONFIG, "gsdpmm", dataset, [])
    return rows


def run_figure_grid(job, dataset: str, points: list[tuple[float, float]], tag: str):
    """IC (50 iterations) on k-means at each (P1, P2): ``{(P1, P2): records}``."""
    k = DATASETS[dataset][1]
    base = job.config(CONFIGS / METHOD_CONFIGS["k-means"], dataset,
                      base_overrides("k-means", dataset))
    overrides = ic_overrides(base, k) + RULES[FIXED]
    if job.runs is None:
        overrides.append(f"runs={FIGURE_RUNS}")
    config = job.config(IC_CONFIG, dataset, overrides)
    records = job.grid(IC_CONFIG, f"{tag}_{dataset}_{config_digest(config)}",
                       [{"P1": p1, "P2": p2} for p1, p2 in points], dataset, overrides)
    grouped = {point: [] for point in points}
    for record in records:
        point = (record["params"]["P1"], record["params"]["P2"])
        if point in grouped:
            grouped[point].append(record)
    return grouped


def totals(groups) -> dict:
    """Runs used and their summed fit time (for ``timing.md``), from groups of records.

    Summed group by group, in order: a float sum depends on the order of its terms, and
    ``timing.csv`` must regenerate unchanged from the same records.
    """
    result, seen = {"runs": 0, "fit_seconds": 0.0}, set()
    for records in groups:
        # A run shared by two groups (GSDPMM under both representations) counts once.
        fresh = [r for r in records if r.get("run_id") not in seen or r.get("run_id") is None]
        seen.update(r.get("run_id") for r in fresh)
        result["runs"] += len(fresh)
        result["fit_seconds"] += sum(r.get("fit_seconds") or 0.0 for r in fresh)
    return result


def _records_of(results_by_dataset) -> list[dict]:
    return [r for rows in results_by_dataset.values() for rs in rows.values() for r in rs]


# --------------------------------------------------------------------------------------------
# items


def hac_sd_ic(job) -> dict:
    """HAC_SD and HAC_SD_IC on SearchSnippets-test and Tweet against the paper (±5 ACC)."""
    present = present_datasets(job, FIGURE_DATASETS)
    by_representation = {rep: {d: run_method(job, "HAC_SD", d, rep) for d in present}
                         for rep in REPRESENTATIONS}
    text, frame = tables.build_check(by_representation, provenance_line(job))
    job.write_table("hac_sd_ic", frame, text)
    return totals([_records_of(r) for r in by_representation.values()])


def table_item(name: str):
    """The function reproducing one of Tables 2-5 (its runs are shared with its twin)."""
    def item(job) -> dict:
        _, datasets, _ = TABLES[name]
        present = present_datasets(job, datasets)
        by_representation = {rep: {d: run_dataset(job, d, rep) for d in present}
                             for rep in REPRESENTATIONS}
        table = tables.build_tables(name, by_representation, provenance_line(job))
        job.write_table(name, table.frame, table.markdown)
        return totals([_records_of(r) for r in by_representation.values()])

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
})
