"""Figures 2 and 3's analogues: retrieval per cutoff (heat maps) and per query (DCT - TTM).

The paper's Figure 2 shows, one heat map per metric, each method's retrieval at each of
its five test days; Figure 3 the per-query difference DCT minus TTM, averaged over the
test days. Here, on CrisisLexT26 as in Table 2's analogue (:mod:`.retrieval`): each
method's clusters are taken at the five cutoffs, every setting of the smoothing grid is
scored per cutoff and query, the 60/30/10 protocol chooses a setting per fold on the
cutoff-averaged values (as Table 2's analogue does), and the chosen setting's test values
are kept per cutoff (Figure 2) and per query (Figure 3, averaged over the cutoffs where
the query has relevant tweets, then over the protocol's repeats).

Measurements are archived in ``results/dct/records/retrieval_detail.json`` (method, seed,
per-cutoff means by kind of query, per-query values); the figures are drawn from that
file alone, so ``--no-fit`` redraws them byte for byte.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from shortclust.evaluation.ranking import METRIC_LABELS, RANKING_METRICS

ARCHIVE = "retrieval_detail.json"
#: The paper's rows, top to bottom (Figure 2's caption: DCT, TTM, DMM, TMS, LDA, LM).
METHODS = ("DCT", "TTM", "DMM", "TMS", "LDA", "LM")
#: Methods without clusters, deterministic: one run each.
DETERMINISTIC = ("TMS", "LM")
#: Seeds per model unless --runs.
RUNS = 2


def per_cutoff_values(tables: list[np.ndarray], tuned) -> np.ndarray:
    """The protocol's test values at each cutoff: shape (cutoffs, queries, metrics).

    ``tables[c]`` holds every setting's values at cutoff c (NaN for a query without a
    relevant tweet yet); each (repeat, fold) of ``tuned`` contributes its chosen setting's
    values for its test queries, averaged over the repeats where they are defined.
    """
    n_cutoffs = len(tables)
    n_queries, n_metrics = tables[0].shape[1:]
    sums = np.zeros((n_cutoffs, n_queries, n_metrics))
    counts = np.zeros((n_cutoffs, n_queries, 1))
    for best, test in zip(tuned.chosen, tuned.tests):
        for c, table in enumerate(tables):
            values = table[best, test]
            defined = ~np.isnan(values[:, :1])
            sums[c, test] += np.where(defined, values, 0.0)
            counts[c, test] += defined
    with np.errstate(invalid="ignore"):
        return sums / counts


def measure_detail(job, corpus, models: dict, method: str, seed: int) -> dict:
    """One method's (and seed's) retrieval per cutoff and per query."""
    from shortclust.evaluation.retrieval import SmoothingGrid, split_protocol
    from shortclust.papers.dct.crisis_retrieval import (answerable, crisis_queries,
                                                         cutoff_tables, method_points)
    from shortclust.papers.dct.retrieval import N_CUTOFFS, method_clusters

    job.say(f"{job.paper}: retrieval detail {method} (seed {seed})")
    specs = answerable(crisis_queries(corpus.label_names, corpus.preprocess), corpus)
    clusters, points = method_points(method_clusters(corpus, models, method, seed),
                                     SmoothingGrid())
    tables = list(cutoff_tables(corpus, specs, clusters, points, n_cutoffs=N_CUTOFFS))
    with np.errstate(invalid="ignore"):
        present = np.stack([~np.isnan(t[0, :, 0]) for t in tables])
        average = np.nansum(np.stack(tables), axis=0) / present.sum(axis=0)[None, :, None]
    tuned = split_protocol(average)
    cutoffs = per_cutoff_values(tables, tuned)
    kinds = np.array([s.kind for s in specs])
    per_cutoff = {kind: {metric: [_mean(cutoffs[c, kinds == kind, m])
                                  for c in range(len(tables))]
                         for m, metric in enumerate(RANKING_METRICS)}
                  for kind in ("event", "hazard") if kind in kinds}
    per_query = {spec.name: {"kind": spec.kind,
                             **dict(zip(RANKING_METRICS, map(float, tuned.per_query[i])))}
                 for i, spec in enumerate(specs)}
    return {"method": method, "seed": seed, "dataset_sha256": corpus.sha256,
            "preprocess": corpus.preprocess, "cutoff_dates": cutoff_dates(corpus),
            "per_cutoff": per_cutoff, "per_query": per_query}


def _mean(values) -> float | None:
    values = values[~np.isnan(values)]
    return float(values.mean()) if values.size else None


def cutoff_dates(corpus) -> list[str]:
    """The date of the last tweet before each cutoff (``YYYY-MM-DD``), or positions."""
    from shortclust.papers.dct.crisis_retrieval import cutoff_positions
    from shortclust.papers.dct.retrieval import N_CUTOFFS

    positions = cutoff_positions(corpus.n_docs, N_CUTOFFS)
    if corpus.times is None:
        return [str(n) for n in positions]
    return [str(np.datetime_as_string(np.asarray(corpus.times[n - 1]).astype(
        "datetime64[s]"), unit="D")) for n in positions]


def wanted(job, models: dict) -> list[tuple[str, int]]:
    seeds = range(job.runs or RUNS)
    return [(m, 0) for m in DETERMINISTIC] + [(m, s) for s in seeds for m in METHODS
                                              if m not in DETERMINISTIC and m in models]


def detail(job, models: dict) -> None:
    """Measure what the archive lacks (unless ``--no-fit``), then draw both figures."""
    from shortclust.pipeline.records import atomic_write_text
    from shortclust.pipeline.reproduce import RECORDS_DIR
    from shortclust.papers.dct.retrieval import crisis_corpus

    path = job.results_dir / job.paper / RECORDS_DIR / ARCHIVE
    rows = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    want = wanted(job, models)
    todo = [key for key in want if key not in {(r["method"], r["seed"]) for r in rows}]
    if todo and job.fit:
        corpus = crisis_corpus(job)
        for method, seed in todo:
            rows.append(measure_detail(job, corpus, models, method, seed))
            rows.sort(key=lambda r: (METHODS.index(r["method"]), r["seed"]))
            atomic_write_text(path, json.dumps(rows, indent=1, sort_keys=True) + "\n")
    shown = [r for r in rows if (r["method"], r["seed"]) in set(want)]
    job.collected += len(shown)
    write_figure2(job, shown)
    write_figure3(job, shown)


def figure2_frame(rows: list[dict], kind: str = "event") -> pd.DataFrame:
    """Mean over seeds of each method's per-cutoff means (event-name queries by default)."""
    out = []
    for method in METHODS:
        found = [r for r in rows if r["method"] == method and kind in r["per_cutoff"]]
        if not found:
            continue
        for metric in RANKING_METRICS:
            values = np.array([[np.nan if v is None else v for v in r["per_cutoff"][kind][metric]]
                               for r in found], dtype=float)
            for c, value in enumerate(np.nanmean(values, axis=0)):
                out.append({"method": method, "metric": metric, "cutoff": c + 1,
                            "date": found[0]["cutoff_dates"][c], "mean": float(value),
                            "runs": len(found)})
    return pd.DataFrame(out)


def write_figure2(job, rows: list[dict]) -> None:
    from shortclust.pipeline.plots import pyplot, save_figure
    from shortclust.pipeline.reproduce import markdown_table, provenance_line

    frame = figure2_frame(rows)
    if frame.empty:
        return
    methods = [m for m in METHODS if m in set(frame["method"])]
    dates = list(dict.fromkeys(frame["date"]))
    plt = pyplot()
    figure, axes = plt.subplots(1, len(RANKING_METRICS), figsize=(3.2 * len(RANKING_METRICS), 3.0))
    for axis, metric in zip(axes, RANKING_METRICS):
        part = frame[frame["metric"] == metric]
        grid = np.array([[part[(part["method"] == m) & (part["cutoff"] == c + 1)]["mean"].iloc[0]
                          for c in range(len(dates))] for m in methods])
        axis.imshow(grid, cmap="Blues", aspect="auto")
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                high = grid[i, j] > (grid.min() + grid.max()) / 2
                axis.text(j, i, f"{grid[i, j]:.3f}", ha="center", va="center", fontsize=6,
                          color="white" if high else "black")
        axis.set_xticks(range(len(dates)), [d[5:] for d in dates], fontsize=7, rotation=45)
        axis.set_yticks(range(len(methods)), methods, fontsize=8)
        axis.set_title(METRIC_LABELS[metric], fontsize=9)
    runs = ", ".join(f"{m} {int(frame[frame['method'] == m]['runs'].iloc[0])}" for m in methods)
    figure.suptitle("DCT paper, Figure 2 analogue on CrisisLexT26: retrieval per cutoff day "
                    f"(columns) and method (rows), event-name queries; runs per cell: {runs}",
                    fontsize=9)
    save_figure(figure, job.figure_path("figure2"))
    wide = frame.pivot_table(index=["metric", "method"], columns="date", values="mean",
                             sort=False).reset_index()
    body = [[METRIC_LABELS[r["metric"]], r["method"], *[f"{r[d]:.4f}" for d in dates]]
            for _, r in wide.iterrows()]
    text = "\n".join([
        "# DCT paper, Figure 2 analogue: retrieval per cutoff day and method (CrisisLexT26)", "",
        markdown_table(["metric", "method", *dates], body), "",
        "Event-name queries; each cell the mean over the queries with relevant tweets by that "
        "cutoff, of the setting the 60/30/10 protocol chose on the cutoff-averaged values "
        f"(as in `table2.md`), then the mean over seeds (runs per cell: {runs}). The paper's "
        "five test days are 20 days apart in its own collection; ours are the dates of the "
        "last tweet before each fifth of the stream. TMS and LM use no clusters "
        "(deterministic, one run); TMS is ours from its public description "
        "(`evaluation/temporal_feedback.py`).",
        provenance_line(job)]) + "\n"
    job.write_table("figure2", frame, text)


def figure3_frame(rows: list[dict]) -> pd.DataFrame:
    """Per query: DCT's and TTM's values (mean over seeds) and their difference."""
    def means(method):
        found = [r["per_query"] for r in rows if r["method"] == method]
        return found, {q: {m: float(np.mean([f[q][m] for f in found])) for m in RANKING_METRICS}
                       for q in (found[0] if found else {})}

    dct_rows, dct = means("DCT")
    ttm_rows, ttm = means("TTM")
    out = []
    for query in sorted(dct):  # the archive (JSON, sorted keys) and a fresh run agree
        if query not in ttm:
            continue
        for metric in RANKING_METRICS:
            out.append({"query": query, "kind": dct_rows[0][query]["kind"], "metric": metric,
                        "dct": dct[query][metric], "ttm": ttm[query][metric],
                        "difference": dct[query][metric] - ttm[query][metric],
                        "runs_dct": len(dct_rows), "runs_ttm": len(ttm_rows)})
    return pd.DataFrame(out)


def write_figure3(job, rows: list[dict]) -> None:
    from shortclust.pipeline.plots import pyplot, save_figure
    from shortclust.pipeline.reproduce import markdown_table, provenance_line

    frame = figure3_frame(rows)
    if frame.empty:
        return
    plt = pyplot()
    figure, axes = plt.subplots(1, len(RANKING_METRICS), figsize=(3.2 * len(RANKING_METRICS), 3.0),
                                sharey=False)
    body = []
    for axis, metric in zip(axes, RANKING_METRICS):
        part = frame[frame["metric"] == metric].sort_values("difference", ascending=False,
                                                            kind="mergesort")
        values = part["difference"].to_numpy()
        axis.bar(range(len(values)), values,
                 color=["tab:blue" if v >= 0 else "tab:red" for v in values])
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_xticks([])
        axis.set_xlabel("queries (sorted)", fontsize=8)
        axis.set_title(METRIC_LABELS[metric], fontsize=9)
        wins, losses = int(np.sum(values > 0)), int(np.sum(values < 0))
        body.append([METRIC_LABELS[metric], len(values), wins, losses, len(values) - wins - losses,
                     f"{values.mean():+.4f}",
                     f"{values[values > 0].mean():+.4f}" if wins else "-",
                     f"{values[values < 0].mean():+.4f}" if losses else "-"])
    runs = f"DCT {int(frame['runs_dct'].iloc[0])}, TTM {int(frame['runs_ttm'].iloc[0])} runs"
    figure.suptitle("DCT paper, Figure 3 analogue on CrisisLexT26: per-query difference DCT "
                    f"minus TTM, averaged over the cutoffs ({runs}; all queries)", fontsize=9)
    save_figure(figure, job.figure_path("figure3"))
    text = "\n".join([
        "# DCT paper, Figure 3 analogue: per-query difference DCT minus TTM (CrisisLexT26)", "",
        markdown_table(["metric", "queries", "DCT better", "TTM better", "equal",
                        "mean difference", "mean of positive", "mean of negative"], body), "",
        "The paper reads its Figure 3 as: DCT beats TTM on more queries than the reverse, for "
        "every metric, and by larger margins. Each query's value is its test value under the "
        "60/30/10 protocol, averaged over the cutoffs where it has relevant tweets and over "
        f"the protocol's repeats, then over seeds ({runs}); all event-name and hazard-type "
        "queries. `figure3.csv` holds every query.",
        provenance_line(job)]) + "\n"
    job.write_table("figure3", frame, text)
