"""The GSDMM paper's tables from run records (and Table 3 from archived measurements).

Each ``write_*`` function takes the job (where to write, how it was invoked) and the
records its item collected, and writes ``results/gsdmm/<name>.md`` and ``.csv`` (and the
figure drawn from the same table); nothing here fits a model.
"""

from __future__ import annotations

import pandas as pd

from shortclust.evaluation.stats import format_mean_std, mean, mean_std_text, stat_row
from shortclust.pipeline.modern import NOTE as MODERN_NOTE
from shortclust.pipeline.reproduce import (
    counts_text, markdown_table, metric_values, provenance_line,
)
from shortclust.papers.gsdmm import figures, kmeans_gap
from shortclust.papers.gsdmm.figures import figure_title
from shortclust.papers.gsdmm.kmeans_gap import COMPARED_WITH
from shortclust.papers.gsdmm.reported import (
    COPIES, DATASETS, GSDPMM_REPORTED, SHORT, SWEEP_FIGURES, TABLE2_METRICS, TABLE2_PAPER,
    TABLE3_PAPER, TITLESET_DOCS, XLABEL,
)

#: How our DMAFP differs from the paper's run of it (Table 2 and Figure 2 notes).
DMAFP_NOTE = ("Our DMAFP (`shortclust.models.dmm.dmafp`) is our own derivation from the DMAFP "
              "paper's description (Huang et al., TKDE 2013; its equations were not at hand), "
              "with a greedy sequential initialisation, 1 initialisation per run instead of the "
              "paper's 20 and 10 runs instead of 20 (time on 2 shared cores), alpha = 0.1 D and "
              "lam = 0.02 (GSDPMM's defaults), 3 initial passes (chosen on "
              "SearchSnippets-test, outside these tables; while the model was written, seven "
              "settings were tried once on Tweet). Its clusters are the components holding a "
              "document's largest q(z); on TitleSet nearly all 500 sticks are used. The "
              "paper's DMAFP numbers are the GSDMM paper's (its Table 2).")


def model_stat_row(model: str, metric: str, records: list[dict], **keys) -> dict:
    """A CSV row: ``keys``, then model, metric, runs, mean and sample std over records."""
    return {**keys, "model": model, "metric": metric,
            **stat_row(metric_values(records, metric))}


def run_counts(csv_rows) -> str:
    """``Runs per cell: GSDMM 20, K-means 20.``, from rows with ``model`` and ``runs``
    (and ``dataset``: a model whose count differs between sets gives it per set)."""
    by_model: dict = {}
    for row in csv_rows:
        by_model.setdefault(row["model"], {})[row.get("dataset")] = row["runs"]
    parts = []
    for model, counts in sorted(by_model.items()):
        if len(set(counts.values())) == 1:
            parts.append(f"{model} {next(iter(counts.values()))}")
        else:
            parts.append(f"{model} (" + ", ".join(f"{dataset} {n}" for dataset, n
                                                  in counts.items()) + ")")
    return "Runs per cell: " + ", ".join(parts) + "."


# --------------------------------------------------------------------------------------------
# Table 2 and Figure 2: GSDMM against K-means (and HAC on Tweet)


def write_table2(job, results: dict[str, dict[str, list[dict]]]) -> None:
    """Table 2 from ``{dataset: {model: records}}``, paper beside ours.

    The models are GSDMM, K-means and K-means on raw counts (:mod:`.kmeans_gap`, which
    also writes the paragraph reading the K-means columns).
    """
    rows, csv_rows = [], []
    for dataset, ours in results.items():
        for metric in TABLE2_METRICS + ["ami_max"]:
            rows.append(table2_row(dataset, metric, ours))
            csv_rows += table2_csv(dataset, metric, ours)
        csv_rows += table2_csv(dataset, "n_clusters", ours)
    frame = pd.DataFrame(csv_rows)
    checks = table2_checks(frame)
    first_set, first = next(iter(results.items()))
    headers = ["dataset", "metric", "GSDMM paper", "GSDMM ours", "K-means paper",
               "K-means ours", *[f"{m} ours" for m in first if m not in TABLE2_PAPER[first_set]],
               "DMAFP paper", *(["DMAFP ours"] if "DMAFP" in first else [])]
    text = "\n".join([
        "# GSDMM paper, Table 2: GSDMM, K-means and DMAFP on the Google News sets", "",
        markdown_table(headers, rows), "", *checks, "", *kmeans_gap.reading(frame), "",
        "Paper settings (section 4.3): GSDMM with K = 500, 30 iterations, alpha = beta = 0.1; "
        "K-means with the true K = 152 and 20 initialisations, stopping at a relative change "
        "of 1e-7 (the paper does not say which vectors; section 2 names TF-IDF as an example "
        "of word weights); DMAFP with 500 initial clusters and 20 initialisations, the same "
        "stopping rule. " + DMAFP_NOTE + " AMI is scikit-learn's current AMI (arithmetic-mean "
        "normalisation); the scikit-learn of 2014 that the paper used normalised by the larger "
        "entropy, recomputed from the same labels as 'AMI (max)', the row to compare with the "
        "paper's AMI. Our K-means is scikit-learn's, which stops when the assignment is stable "
        "or the centres move less than tol (it has no relative-objective rule). "
        + MODERN_NOTE,
        provenance_line(job, run_counts(csv_rows)),
    ]) + "\n"
    job.write_table("table2", frame, text)


def _reported_metric(metric: str) -> str:
    """The paper's AMI is the 2014 AMI, our ``ami_max``."""
    return "ami" if metric == "ami_max" else metric


def table2_row(dataset, metric, ours) -> list[str]:
    """GSDMM and K-means, paper then ours; our models without a paper column; DMAFP, paper
    then ours (where it ran)."""
    paper = TABLE2_PAPER[dataset]
    reported = _reported_metric(metric)
    cells = [DATASETS[dataset], SHORT[metric]]
    for model in ("GSDMM", "K-means"):
        cells += [format_mean_std(*paper[model][reported]),
                  mean_std_text(metric_values(ours[model], metric))]
    cells += [mean_std_text(metric_values(ours[m], metric)) for m in ours if m not in paper]
    cells.append(format_mean_std(*paper["DMAFP"][reported]))
    if "DMAFP" in ours:
        cells.append(mean_std_text(metric_values(ours["DMAFP"], metric)))
    return cells


def table2_csv(dataset, metric, ours) -> list[dict]:
    """One row per model of ours, with the paper's numbers for it (or for its stand-in)."""
    rows = []
    for model, records in ours.items():
        # Our models without a paper column (the modern baselines) have no reported numbers.
        column = TABLE2_PAPER[dataset].get(COMPARED_WITH.get(model, model), {})
        reported = column.get(_reported_metric(metric), (None, None))
        rows.append({**model_stat_row(model, metric, records, dataset=dataset),
                     "paper_mean": reported[0], "paper_std": reported[1]})
    return rows


def table2_checks(frame: pd.DataFrame) -> list[str]:
    """Per dataset: GSDMM's NMI within 0.015 of the paper's? K-means below GSDMM?"""
    nmi = frame[frame["metric"] == "nmi"].set_index(["dataset", "model"])
    lines = []
    for dataset in dict.fromkeys(frame["dataset"]):
        ours, paper = nmi.loc[(dataset, "GSDMM"), "mean"], nmi.loc[(dataset, "GSDMM"), "paper_mean"]
        kmeans = nmi.loc[(dataset, "K-means"), "mean"]
        dmafp = ""
        if (dataset, "DMAFP") in nmi.index:
            ours_d = nmi.loc[(dataset, "DMAFP"), "mean"]
            dmafp = (f" DMAFP {ours_d:.3f} (paper {nmi.loc[(dataset, 'DMAFP'), 'paper_mean']:.3f}) "
                     f"is {'below' if ours_d < ours else 'NOT below'} GSDMM.")
        lines.append(
            f"- {DATASETS[dataset]}: GSDMM NMI {ours:.3f} vs paper {paper:.3f} "
            f"(gap {ours - paper:+.3f}, {'within' if abs(ours - paper) <= 0.015 else 'outside'} "
            f"0.015); K-means {kmeans:.3f} is {'below' if kmeans < ours else 'NOT below'} GSDMM."
            + dmafp
        )
    return lines


def write_figure2(job, ours: dict[str, list[dict]]) -> None:
    """Figure 2 from ``{model: records}`` on Tweet: table and bar chart."""
    rows = [[SHORT[m]] + [mean_std_text(metric_values(ours[k], m)) for k in ours]
            for m in TABLE2_METRICS]
    rows.append(["clusters"] + [mean_std_text(metric_values(ours[k], "n_clusters"), 1)
                                for k in ours])
    frame = pd.DataFrame([model_stat_row(k, m, ours[k])
                          for k in ours for m in TABLE2_METRICS + ["n_clusters"]])
    nmi = frame[frame["metric"] == "nmi"].set_index("model")["mean"]
    better = all(nmi["GSDMM"] > nmi[k] for k in ("K-means", "HAC Ward"))
    dmafp = (f"DMAFP reaches NMI {nmi['DMAFP']:.3f} (GSDMM "
             f"{'above' if nmi['GSDMM'] > nmi['DMAFP'] else 'NOT above'} it). " + DMAFP_NOTE
             if "DMAFP" in nmi else "DMAFP is not in scope (not run).")
    text = "\n".join([
        "# GSDMM paper, Figure 2: GSDMM, K-means, HAC and DMAFP on the TweetSet", "",
        markdown_table(["metric"] + [f"{k} ours" for k in ours], rows), "",
        "The paper gives Figure 2 as a bar chart without numbers; it reports that GSDMM is "
        "significantly better than K-means and HAC on all five metrics. Ours: GSDMM NMI "
        f"{nmi['GSDMM']:.3f}, K-means {nmi['K-means']:.3f}, HAC (Ward) {nmi['HAC Ward']:.3f} "
        f"(GSDMM {'above both' if better else 'NOT above both'}). HAC with average linkage "
        f"on cosine distances, which the paper did not run, reaches {nmi['HAC average']:.3f}"
        f"{' and beats GSDMM here' if nmi['HAC average'] > nmi['GSDMM'] else ''}. "
        f"{gsdpmm_reference('Tweet')} {dmafp}",
        "K-means and HAC use TF-IDF vectors and the true K = 89. The paper does not name its "
        "HAC linkage; it used scikit-learn, whose only hierarchical clusterer in early 2014 "
        "was Ward linkage (Euclidean), so that is 'HAC Ward'; 'HAC average' is average linkage on "
        "cosine distances. Both are deterministic. " + MODERN_NOTE,
        provenance_line(job, run_counts(frame.to_dict("records"))),
    ]) + "\n"
    job.write_table("figure2", frame, text)
    figures.bar_chart(frame, job.figure_path("figure2"))


def gsdpmm_reference(dataset: str) -> str:
    """What the iterative-classification paper reports near GSDMM on ``dataset``: GSDPMM only.

    Rakib et al. (file 004) never run GSDMM; their Tables 4 and 5 give GSDPMM, the
    Dirichlet-process model without K, with no parameters stated. A number from there is
    no reference for GSDMM's setting, so it is named for what it is.
    """
    nmi, acc = GSDPMM_REPORTED[dataset]["nmi"], GSDPMM_REPORTED[dataset]["acc"]
    return (f"The iterative-classification paper (Rakib et al., file 004) does not run GSDMM; "
            f"on {dataset} it reports GSDPMM (Yin & Wang's Dirichlet-process "
            f"variant, no K given, parameters not stated): NMI {nmi[0]:.2f} ± {nmi[1]:.2f} % "
            f"(its Table 5) and ACC {acc[0]:.2f} ± {acc[1]:.2f} % (Table 4); our GSDPMM "
            "beside those numbers is in `gsdpmm.md`.")


# --------------------------------------------------------------------------------------------
# Figures 3-10: sweeps on the four datasets


def write_sweep(job, name: str, param: str, tables: dict[str, pd.DataFrame]) -> None:
    """One sweep item's two figures and its table, from ``{dataset: sweep table}``."""
    count_fig, quality_fig, quality_set, count_claim, quality_claim = SWEEP_FIGURES[name]
    figures.count_figure(tables, param, job.figure_path(count_fig), count_fig)
    figures.quality_figure(tables, param, quality_set, job.figure_path(quality_fig),
                           quality_fig)
    frame = pd.concat([t.assign(dataset=d) for d, t in tables.items()], ignore_index=True)
    # Fit times are machine-dependent: they are not part of a table that must regenerate.
    frame = frame.drop(columns=[c for c in frame.columns if c.startswith("fit_seconds")])
    checks = trend_checks(param, tables)
    text = "\n".join([
        f"# GSDMM paper, {figure_title(count_fig)} and {figure_title(quality_fig)}: "
        f"{name} sweep", "",
        sweep_markdown(tables, param), "",
        f"Paper ({figure_title(count_fig)}): {count_claim}.",
        f"Paper ({figure_title(quality_fig)}): {quality_claim}.",
        "The paper's figures give no numbers; our reading of the same trends:", *checks, "",
        f"Figures: `{count_fig}.png` (clusters found), `{quality_fig}.png` "
        f"(NMI{', homogeneity, completeness on ' + DATASETS[quality_set] if quality_set else ''}).",
        provenance_line(job, f"Runs per value: {counts_text(frame['runs'])}."),
    ]) + "\n"
    job.write_table(name, frame, text)


def _row_cell(row, name: str, digits: int) -> str:
    return format_mean_std(row[f"{name}_mean"], row[f"{name}_std"], digits)


def sweep_markdown(tables: dict[str, pd.DataFrame], param: str) -> str:
    headers = [XLABEL[param]] + [f"{DATASETS[d]} {what}" for d in tables
                                 for what in ("clusters", "NMI")]
    values = list(next(iter(tables.values()))[param])
    rows = []
    for value in values:
        cells = [value]
        for table in tables.values():
            row = table[table[param] == value].iloc[0]
            cells += [_row_cell(row, "n_clusters", 1), _row_cell(row, "nmi", 3)]
        rows.append(cells)
    return markdown_table(headers, rows)


def trend_checks(param: str, tables: dict[str, pd.DataFrame]) -> list[str]:
    """Per dataset: clusters, NMI, H and C at the first and the last grid value."""
    lines = []
    for d, table in tables.items():
        lo, hi = table.iloc[0], table.iloc[-1]
        # Read the grid values from the column: a row mixes types and turns ints into floats.
        start, end = table[param].iloc[0], table[param].iloc[-1]
        lines.append(
            f"- {DATASETS[d]}: {XLABEL[param]} {start} -> {end}: clusters "
            f"{lo['n_clusters_mean']:.1f} -> {hi['n_clusters_mean']:.1f}, NMI "
            f"{lo['nmi_mean']:.3f} -> {hi['nmi_mean']:.3f}, H {lo['homogeneity_mean']:.3f} -> "
            f"{hi['homogeneity_mean']:.3f}, C {lo['completeness_mean']:.3f} -> "
            f"{hi['completeness_mean']:.3f}"
        )
    return lines


# --------------------------------------------------------------------------------------------
# Table 3: scaling on 1..256 copies of the TitleSet


def write_table3(job, measured: dict, models: list[str], archive: str) -> None:
    """Table 3 from the measurements ``{(model, copies): row}`` (archived in ``archive``)."""
    rows = [table3_row(c, measured) for c in COPIES]
    frame = pd.DataFrame([{"model": m, "copies": c, **table3_fields(measured.get((m, c)))}
                          for m in models for c in COPIES])
    text = "\n".join([
        "# GSDMM paper, Table 3: running time on 1 to 256 copies of the TitleSet", "",
        markdown_table(["copies", "docs", "GSDMM paper (min)", "GSDMM ours", "GSDMM speed-up",
                        "DMAFP paper (min)", "DMAFP ours", "K-means paper (min)", "K-means ours",
                        "MiniBatch paper (min)", "MiniBatch ours"], rows), "",
        "Ours: whole fit in seconds (GSDMM: sampling sweeps alone in brackets) and the peak "
        "resident memory of the measurement's own process (about 190-250 MiB of it is Python and "
        "the libraries), one core, compilation excluded, one measurement per cell "
        "(`benchmarks/bench_scaling.py`). Settings (section 4.8): GSDMM K = 300, "
        "alpha = beta = 0.1, 10 iterations; K-means and MiniBatch K-means K = 152 and at most "
        "10 iterations (K-means: one initialisation; MiniBatch: batches of 1% of the "
        "documents, scikit-learn's early stopping on); DMAFP K = 300 and at most 10 iterations "
        "(one initialisation, its greedy sequential pass timed with the fit; our DMAFP keeps a "
        "dense documents x K matrix of q(z), so its memory grows with both). The paper ran Java "
        "on a 3.4 GHz machine with 8 GB; its N/A means the model did not scale to that size. "
        "Cells marked 'not run' were beyond `--max-copies` or a time/memory limit. "
        "Speed-up: the paper's GSDMM minutes over our whole GSDMM fit (different machines).",
        f"Generated by `shortclust reproduce {job.paper} --only table3` from the measurements "
        f"archived in `results/{job.paper}/records/{archive}` (the newest per model "
        "and copy count; each carries its machine, settings and time); timings vary from "
        "run to run by about ±10% on this machine.",
    ]) + "\n"
    job.write_table("table3", frame, text)


def table3_fields(row) -> dict:
    if row is None:
        return {"status": "not run", "fit_seconds": None, "sample_seconds": None,
                "peak_rss_mib": None}
    return {"status": "ok", "fit_seconds": row["fit_seconds"],
            "sample_seconds": row.get("sample_seconds"), "peak_rss_mib": row["peak_rss_mib"]}


def table3_row(copies: int, measured: dict) -> list[str]:
    index = COPIES.index(copies)
    cells = [copies, f"{TITLESET_DOCS * copies:,}"]
    for model in ["gsdmm", "dmafp", "kmeans", "minibatch_kmeans"]:
        reported = TABLE3_PAPER[model][index]
        cells.append("N/A" if reported is None else f"{reported:.3f}")
        cells.append(_measured_cell(measured.get((model, copies))))
        if model == "gsdmm":
            cells.append(_speed_up(reported, measured.get((model, copies))))
    return cells


def _speed_up(reported_minutes: float, row) -> str:
    """How many times faster our whole GSDMM fit is than the paper's reported time."""
    return "-" if row is None else f"{reported_minutes * 60 / row['fit_seconds']:.0f}x"


def _measured_cell(row) -> str:
    if row is None:
        return "not run"
    sampling = f" ({_seconds(row['sample_seconds'])})" if row.get("sample_seconds") else ""
    return f"{_seconds(row['fit_seconds'])} s{sampling}, {row['peak_rss_mib']:.0f} MiB"


def _seconds(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


# --------------------------------------------------------------------------------------------
# Extensions: GSDPMM, and incremental clustering of a stream


def write_gsdpmm(job, results: dict[str, dict[str, list[dict]]]) -> None:
    """GSDPMM beside GSDMM from ``{dataset: {"GSDPMM": records, "GSDMM": records}}``."""
    rows, csv_rows = [], []
    for dataset, ours in results.items():
        reported = GSDPMM_REPORTED[dataset]
        cells = [DATASETS[dataset]]
        for metric in ("nmi", "acc"):
            mean_pct, std_pct = reported[metric]
            cells += [format_mean_std(mean_pct / 100, std_pct / 100),
                      mean_std_text(metric_values(ours["GSDPMM"], metric)),
                      mean_std_text(metric_values(ours["GSDMM"], metric))]
        cells += [mean_std_text(metric_values(ours[m], "n_clusters"), 1) for m in ours]
        rows.append(cells)
        csv_rows += [model_stat_row(m, metric, ours[m], dataset=dataset)
                     for m in ours for metric in ("nmi", "acc", "n_clusters")]
    headers = ["dataset", "NMI reported", "GSDPMM NMI", "GSDMM NMI", "ACC reported",
               "GSDPMM ACC", "GSDMM ACC", "GSDPMM clusters", "GSDMM clusters"]
    text = "\n".join([
        "# Extension: GSDPMM (Yin & Wang, ICDE 2016) beside GSDMM", "",
        markdown_table(headers, rows), "",
        "Reported: GSDPMM as given by Rakib et al. (iterative-classification paper, Tables 4 "
        "and 5, 20 runs; their parameters are not stated). GSDPMM here: alpha = 0.1, "
        "beta = 0.02, 30 iterations (`configs/gsdpmm_tweet.yaml`); GSDMM: the Table 2 setting. "
        "ACC is the best one-to-one matching of clusters to classes, every further cluster "
        "counted as an error, which penalises GSDPMM's many small clusters.",
        provenance_line(job, run_counts(csv_rows)),
    ]) + "\n"
    job.write_table("gsdpmm", pd.DataFrame(csv_rows), text)


def write_stream(job, streams: dict[str, tuple[str, list[dict]]]) -> None:
    """The stream table and figures from ``{dataset: (figure name, stream records)}``."""
    from shortclust.pipeline.stream import plot_stream, stream_frame

    rows, frames = [], []
    for dataset, (figure_name, records) in streams.items():
        table = stream_frame(records)
        # Per-batch times are machine-dependent: not part of a table that must regenerate.
        table = table.drop(columns=[c for c in table.columns if c.startswith("seconds")])
        frames.append(table.assign(dataset=dataset))
        plot_stream(table, "nmi", job.figure_path(figure_name),
                    f"Extension (no figure in the paper): incremental against batch GSDMM "
                    f"on {dataset}")
        rows.append(stream_row(dataset, records))
    headers = ["stream", "runs", "per-batch NMI, stream", "per-batch NMI, batch fit",
               "final NMI, stream", "NMI, batch fit", "clusters, stream", "clusters, batch fit"]
    text = "\n".join([
        "# Extension: incremental GSDMM on time-ordered streams", "",
        markdown_table(headers, rows), "",
        "Each stream is ordered by time and cut into 16 equal batches. The first batch is "
        "clustered by GSDMM; each later batch is classified with the model learned so far "
        "(Eq. 4 with the current counts, a document at a time, section 3.2), then re-sampled "
        "for 2 sweeps while earlier documents stay fixed (`GSDMM.partial_fit`). Per-batch NMI "
        "is prequential: a batch is scored on its own documents right after it is clustered, "
        "and averaged over the 16 batches; the batch fit is ordinary GSDMM on the whole corpus "
        "(same seed and parameters), scored on the same batches. The paper proposes this "
        "scheme without evaluating it, so there are no reported numbers. Per-batch series: "
        "`stream.csv`; figures: `stream_news_t.png`, `stream_tweets_t.png`.",
        provenance_line(job),
    ]) + "\n"
    job.write_table("stream", pd.concat(frames, ignore_index=True), text)


def stream_row(dataset: str, records: list[dict]) -> list:
    """One stream's row: per-batch and final NMI and clusters, stream against batch fit."""
    # A batch of one class has no NMI (None, see shortclust.pipeline.stream): left out.
    per_batch = [mean(b["prequential"]["nmi"] for b in r["batches"]
                      if b["prequential"]["nmi"] is not None) for r in records]
    per_batch_fit = [mean(b["batch_fit"]["nmi"] for b in r["batches"]
                          if b["batch_fit"]["nmi"] is not None) for r in records]
    return [dataset, len(records), mean_std_text(per_batch), mean_std_text(per_batch_fit),
            mean_std_text(metric_values(records, "nmi")),
            mean_std_text([r["batch_fit"]["metrics"]["nmi"] for r in records]),
            mean_std_text(metric_values(records, "n_clusters"), 1),
            mean_std_text([r["batch_fit"]["n_clusters"] for r in records], 1)]
