"""What the IC reproduction runs: configs and tags (work-directory names); the items are in
:mod:`shortclust.papers.ic.plan`, the ablation in :mod:`shortclust.papers.ic.ablation`.

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

from shortclust.data.registry import resolve_data_dir
from shortclust.papers.ic.reported import DATASETS, DETERMINISTIC, FIXED, METHODS
from shortclust.papers.ic.settings import (
    CONFIGS, FIGURE_RUNS, GSDPMM_CONFIG, IC_CONFIG, METHOD_CONFIGS, REPRESENTATIONS, RULES,
)

# --------------------------------------------------------------------------------------------
# configs and tags


def present_datasets(job, datasets) -> list[str]:
    """The datasets whose files are in the data directory; says which are not."""
    present = [d for d in datasets if job.dataset_here(d)]
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


def records_of(results_by_dataset) -> list[dict]:
    return [r for rows in results_by_dataset.values() for rs in rows.values() for r in rs]
