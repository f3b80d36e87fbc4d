"""What the GSDMM reproduction runs: configs, tags (work-directory names) and the items.

Each item runs configs under ``configs/papers/gsdmm/`` (paths relative to the project
checkout) through the job, then hands the records to :mod:`.tables`. Tags name the work
directories and the archived records (``results/gsdmm/records/<tag>.json``): renaming one
orphans its runs.
"""

from __future__ import annotations

from pathlib import Path

from shortclust.pipeline.modern import run_modern
from shortclust.papers.gsdmm import scaling, tables
from shortclust.papers.gsdmm.kmeans_gap import KMEANS_COUNTS
from shortclust.papers.gsdmm.reported import COPIES, FOUR, GOOGLE_NEWS, SWEEP_FIGURES, TRUE_K

CONFIGS = Path("configs/papers/gsdmm")
GSDPMM_CONFIG = Path("configs/gsdpmm_tweet.yaml")
#: Sweep item -> (config, swept model parameter); the figures are in SWEEP_FIGURES.
SWEEPS = {"iterations": ("iterations.yaml", "max_iter"), "k": ("k.yaml", "n_clusters"),
          "alpha": ("alpha.yaml", "alpha"), "beta": ("beta.yaml", "beta")}
#: Stream dataset -> (config, tag, which is also the figure's name).
STREAMS = {"MStream-News-T": ("configs/gsdmm_stream_news_t.yaml", "stream_news_t"),
           "MStream-Tweets-T": ("configs/gsdmm_stream_tweets_t.yaml", "stream_tweets_t")}


def baseline_overrides(dataset: str) -> list[str]:
    """K-means and HAC take the true number of clusters (section 4.3)."""
    return [f"model.params.n_clusters={TRUE_K[dataset]}"]


def run_gsdmm(job, dataset: str) -> list[dict]:
    """GSDMM in the Table 2 setting (shared by Table 2, Figure 2 and the GSDPMM table)."""
    return job.run(CONFIGS / "gsdmm.yaml", f"gsdmm_{dataset}", dataset)


def run_kmeans(job, dataset: str) -> list[dict]:
    return job.run(CONFIGS / "kmeans.yaml", f"kmeans_{dataset}", dataset,
                   baseline_overrides(dataset))


def run_kmeans_counts(job, dataset: str) -> list[dict]:
    """K-means on raw term counts: the vectors that give the paper's K-means numbers."""
    return job.run(CONFIGS / "kmeans_counts.yaml", f"kmeans_counts_{dataset}", dataset,
                   baseline_overrides(dataset))


def run_dmafp(job, dataset: str) -> list[dict]:
    """DMAFP, the paper's model-based baseline (500 initial clusters, see its config)."""
    return job.run(CONFIGS / "dmafp.yaml", f"dmafp_{dataset}", dataset)


def table2(job) -> None:
    """Table 2: GSDMM, K-means and DMAFP on GoogleNews-T/S/TS, five metrics, paper beside ours.

    K-means runs twice: on unit TF-IDF rows (ours) and on raw term counts (the paper's
    numbers, see :mod:`.kmeans_gap`).
    """
    results = {dataset: {"GSDMM": run_gsdmm(job, dataset), "K-means": run_kmeans(job, dataset),
                         KMEANS_COUNTS: run_kmeans_counts(job, dataset),
                         **run_modern(job, dataset, TRUE_K[dataset], "none"),
                         "DMAFP": run_dmafp(job, dataset)}
               for dataset in GOOGLE_NEWS}
    tables.write_table2(job, results)


def figure2(job) -> None:
    """Figure 2: GSDMM, K-means, HAC and DMAFP on Tweet, five metrics (bar chart)."""
    ours = {"GSDMM": run_gsdmm(job, "Tweet"),
            "K-means": run_kmeans(job, "Tweet"),
            "HAC Ward": job.run(CONFIGS / "hac.yaml", "hac_ward_Tweet", "Tweet",
                                baseline_overrides("Tweet")),
            "HAC average": job.run(CONFIGS / "hac_average.yaml", "hac_average_Tweet", "Tweet",
                                   baseline_overrides("Tweet")),
            **run_modern(job, "Tweet", TRUE_K["Tweet"], "none"),
            "DMAFP": run_dmafp(job, "Tweet")}
    tables.write_figure2(job, ours)


def sweep_item(name: str):
    """The function reproducing one pair of sweep figures (e.g. Figures 9-10 for beta)."""
    def item(job) -> None:
        config, param = SWEEPS[name]
        results = {d: job.sweep(CONFIGS / config, f"{name}_{d}", d) for d in FOUR}
        tables.write_sweep(job, name, param, results)

    count_fig, quality_fig = SWEEP_FIGURES[name][:2]
    item.__doc__ = f"Figures {count_fig[6:]}-{quality_fig[6:]}: the {name} sweep."
    return item


def table3(job) -> None:
    """Table 3: fit time and peak memory on 1, 2, ..., 256 copies of GoogleNews-T."""
    scaling.measure_missing(job, [c for c in COPIES if c <= job.options["max_copies"]])
    found = scaling.measured(job)
    job.collected += len(found)
    tables.write_table3(job, found, scaling.SCALING_MODELS, scaling.SCALING_ARCHIVE)


def gsdpmm(job) -> None:
    """GSDPMM beside GSDMM on the four sets, with the numbers Rakib et al. report for GSDPMM."""
    results = {dataset: {"GSDPMM": job.run(GSDPMM_CONFIG, f"gsdpmm_{dataset}", dataset),
                         "GSDMM": run_gsdmm(job, dataset)}
               for dataset in ["Tweet", *GOOGLE_NEWS]}
    tables.write_gsdpmm(job, results)


def stream(job) -> None:
    """partial_fit over 16 time-ordered batches against batch GSDMM on the same documents."""
    tables.write_stream(job, {dataset: (tag, job.stream(config, tag))
                              for dataset, (config, tag) in STREAMS.items()})


ITEMS = {
    "table2": table2,
    "figure2": figure2,
    **{name: sweep_item(name) for name in SWEEPS},
    "table3": table3,
    "gsdpmm": gsdpmm,
    "stream": stream,
}
