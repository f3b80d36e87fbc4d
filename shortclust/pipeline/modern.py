"""Modern baselines beside the papers' methods: sentence embeddings + k-means, Ward HAC,
HDBSCAN, and BERTopic (with its HDBSCAN, and with k-means), none of them in the papers.

A paper's table adds them as extra rows or columns, labelled as not in the paper, from
runs archived like its own (``results/<paper>/records/modern_<method>_<dataset>...json``).
They need optional extras (``embeddings``; ``bench`` for BERTopic): where an extra is not
installed, :func:`run_modern` fits nothing and shows what the archive holds, so a
reproduction never fails for want of them.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

CONFIGS = Path("configs/papers/modern")


@dataclass(frozen=True)
class Modern:
    """One modern baseline: its label in tables, config, and what it needs."""

    label: str
    config: str
    takes_k: bool
    needs: str
    extra: str


#: Label -> baseline, in the order tables show them. The labels say they are ours.
MODERN = {m.label: m for m in (
    Modern("MiniLM k-means (not in paper)", "minilm_kmeans", True,
           "sentence_transformers", "embeddings"),
    Modern("MiniLM Ward HAC (not in paper)", "minilm_hac_ward", True,
           "sentence_transformers", "embeddings"),
    Modern("MiniLM HDBSCAN (not in paper)", "minilm_hdbscan", False,
           "sentence_transformers", "embeddings"),
    Modern("BERTopic (not in paper)", "bertopic", False, "bertopic", "bench"),
    Modern("BERTopic k-means (not in paper)", "bertopic_kmeans", True, "bertopic",
           "bench"),
)}

#: One sentence for a table's notes.
NOTE = ("Rows or columns marked 'not in paper' are ours: modern baselines the paper did not "
        "run: the packaged all-MiniLM-L6-v2 sentence embeddings clustered by k-means (K as "
        "the paper's baselines, 20 initialisations), Ward HAC (deterministic, 1 run) and "
        "HDBSCAN (scikit-learn's defaults, deterministic, 1 run, its noise one cluster), and "
        "BERTopic 0.17 on the same embeddings at its defaults (UMAP seeded, HDBSCAN: it "
        "chooses K; outliers one cluster) and with KMeans(K) (configs in "
        "`configs/papers/modern/`). Runs with the same dataset, K and preprocessing are the "
        "same runs in every paper that shows them (the GSDMM and IC tables share their Tweet "
        "and Google News runs; each paper's archive keeps a copy); each cell states its run "
        "count, fewer than its config's where the runs were cut short for time.")


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (its optional extra is installed)."""
    return importlib.util.find_spec(module) is not None


def run_modern(job, dataset: str, n_clusters: int, preprocess: str | None = None,
               labels=None) -> dict[str, list[dict]]:
    """Run (or, without their extra, only collect) the modern baselines on ``dataset``.

    Parameters
    ----------
    job : Reproduction
        The paper's job (its archive keeps the runs).
    n_clusters : int
        K for the baselines that take one (the paper's K for its baselines).
    preprocess : str, optional
        The paper's preprocessing of the dataset (default: the configs' ``auto``).
    labels : iterable of str, optional
        Only these baselines (default all of :data:`MODERN`).

    Returns
    -------
    dict
        Label -> records of its seeds (empty when never run).
    """
    out = {}
    for label in labels or MODERN:
        modern = MODERN[label]
        overrides = [f"model.params.n_clusters={n_clusters}"] if modern.takes_k else []
        if preprocess is not None:
            overrides.append(f"preprocess={preprocess}")
        tag = f"modern_{modern.config}_{dataset}"
        fit = job.fit
        if fit and not installed(modern.needs):
            job.say(f"{job.paper}: {tag} not fitted: needs shortclust[{modern.extra}]")
            job.fit = False
        try:
            out[label] = job.run(CONFIGS / f"{modern.config}.yaml", tag, dataset, overrides)
        finally:
            job.fit = fit
    return out


def modern_rows(results: dict[str, dict[str, list[dict]]], metrics: list[str],
                scale: float = 1.0, digits: int = 3) -> tuple[list[str], list[list[str]], list[dict]]:
    """A table of the modern baselines: a row per baseline and metric, a column per dataset.

    Parameters
    ----------
    results : dict
        Dataset -> :func:`run_modern`'s ``{label: records}``.
    metrics : list of str
        The metrics shown (``acc``, ``nmi``, ...).
    scale : float
        Multiplies the values (100 for percent).

    Returns
    -------
    headers, rows, csv_rows
        Markdown header and body cells (``mean ± std (runs)``, ``-`` for no run), and one
        CSV row per (baseline, metric, dataset) with mean, std and runs.
    """
    from shortclust.evaluation.stats import format_mean_std, mean_std
    from shortclust.pipeline.plots import label as metric_label
    from shortclust.pipeline.reproduce import metric_values

    datasets = list(results)
    rows, csv_rows = [], []
    for name in MODERN:
        for metric in metrics:
            cells = [name, metric_label(metric)]
            for dataset in datasets:
                values = [v * scale for v in metric_values(results[dataset].get(name, []),
                                                           metric) if v is not None]
                mean, std = mean_std(values)
                cells.append(f"{format_mean_std(mean, std, digits=digits)} ({len(values)})"
                             if values else "-")
                csv_rows.append({"dataset": dataset, "method": name, "metric": metric,
                                 "runs": len(values), "mean": mean if values else None,
                                 "std": std if values else None})
            rows.append(cells)
    return ["method", "metric", *datasets], rows, csv_rows


def modern_section(results: dict[str, dict[str, list[dict]]], metrics: list[str],
                   scale: float = 1.0, digits: int = 3) -> tuple[str, list[dict]]:
    """The modern baselines as a Markdown section (heading, table, note) and CSV rows."""
    from shortclust.pipeline.reproduce import markdown_table

    headers, rows, csv_rows = modern_rows(results, metrics, scale, digits)
    text = "\n".join([
        "## Modern baselines beside the paper's methods (ours, not in the paper)", "",
        markdown_table(headers, rows), "",
        "Cells: mean ± sample std (runs)" + (" in percent" if scale == 100 else "")
        + "; '-': not run yet. " + NOTE, ""])
    return text, csv_rows
