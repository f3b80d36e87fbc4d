"""Banerjee & Basu's Tables 2-4 and Figure 1 from run records (nothing here fits a model).

``results`` maps a family (vMF, EDCM, LDA) to ``{paper dataset: records}``, or to None when
the family is not in this checkout. Cells are mean ± sample std over the runs; run times
are the records' ``fit_seconds`` (one core, this machine).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shortclust.evaluation.stats import format_mean_std, mean_std, stat_row
from shortclust.pipeline.plots import save_figure
from shortclust.pipeline.reproduce import markdown_table, metric_values, provenance_line
from shortclust.papers.streams.reported import (
    BATCH, DATASETS, EXTRA_DATASETS, OFFLINE_EVERY, ONLINE, SIZES, TABLE2, TABLE3, TABLE4,
)

NOT_PUBLIC = "Slashdot (slash-7, slash-6) was harvested by the authors and is not available"
DATASET_NOTE = (
    "Datasets: the paper's 20 Newsgroups sets (Banerjee et al., JMLR 2005) are built from "
    "the 18,846-post 'bydate' release (the paper: the 19,941-post release), registered as "
    "`20NG-news20`, `20NG-subset20` (100 posts per group, seed 0), `20NG-sim3`, `20NG-rel3`, "
    "`20NG-diff3`; preprocessing `newsgroups`: headers dropped, stop words, words in at least "
    "2 and at most 15% of the documents (the paper names these steps without numbers, so our "
    "vocabularies are larger than its dimensions). MStream-News-T and CrisisLexT26 are "
    f"short-text streams we add (not in the paper). {NOT_PUBLIC}.")
STREAM_NOTE = (
    "Stream order: 20NG has no dates; train before test, then each post's relative "
    "position among its group's posts by article number (groups number their articles "
    "independently, so sorting by the number itself would bring one group after another), "
    "which assumes every group posts at a steady rate; the short-text streams in their "
    "time order.")


def _cell(values) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    m, s = mean_std(values)
    return format_mean_std(m, s, 3) if len(values) > 1 else f"{m:.3f}"


def _paper(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _family_records(results, family, dataset):
    found = results.get(family)
    return None if found is None else found.get(dataset)


def _rows(results, names: list[str], paper: dict, metric_cell, time_cell, csv_kind: str):
    """Table rows and CSV rows: one row per dataset, paper and ours per family."""
    families = list(results)
    body, csv_rows = [], []
    for dataset in list(DATASETS) + list(EXTRA_DATASETS):
        cells = [dataset]
        for family, name in zip(families, names):
            reported = paper.get(dataset, {}).get(name)
            records = _family_records(results, family, dataset)
            nmi, seconds = (reported or (None, None))
            ours = "not run" if results[family] is None else (
                "not available" if DATASETS.get(dataset, "") is None else
                "n/a" if records is None else "no runs yet" if not records else
                metric_cell(records))
            cells += [_paper(nmi), ours]
            if records:
                csv_rows.append({"dataset": dataset, "model": name, "kind": csv_kind,
                                 "paper_nmi": nmi, "paper_time": seconds,
                                 **stat_row(metric_values(records, "nmi")),
                                 "time": time_cell(records)})
        for family, name in zip(families, names):
            reported = paper.get(dataset, {}).get(name)
            records = _family_records(results, family, dataset)
            paper_time = (reported or (None, None))[1]
            cells += ["-" if paper_time is None else f"{paper_time:g}",
                      "-" if not records else f"{time_cell(records):.3g}"]
        body.append(cells)
    headers = ["dataset"] + [f"{n} {who}" for n in names for who in ("paper", "ours")] + [
        f"{n} time {who}" for n in names for who in ("paper", "ours")]
    return headers, body, csv_rows


def mean_fit_seconds(records) -> float:
    return float(np.mean([r["fit_seconds"] for r in records]))


def seconds_per_document(records) -> float:
    return float(np.mean([r["fit_seconds"] / r["n_docs"] for r in records]))


def run_counts(results) -> str:
    counts = sorted({len(records) for found in results.values() if found
                     for records in found.values()})
    return "Runs per cell: " + (", ".join(map(str, counts)) if counts else "none") + \
        " (5 as in the paper; 10 on the 3-class sets)."


def not_run_line(results) -> str | None:
    missing = [family for family, found in results.items() if found is None]
    unfitted = [family for family, found in results.items()
                if found is not None and not any(found.values())]
    lines = []
    if missing:
        lines.append(f"Not run here yet: {', '.join(missing)} (its model or configs are not "
                     "in this checkout).")
    if unfitted:
        lines.append(f"No runs recorded yet: {', '.join(unfitted)} (`shortclust reproduce "
                     "streams` fits them).")
    return " ".join(lines) or None


def write_table2(job, results) -> None:
    """Table 2: batch NMI and run time of each family."""
    headers, body, csv_rows = _rows(results, BATCH, TABLE2, lambda r: _cell(
        metric_values(r, "nmi")), mean_fit_seconds, "batch")
    lines = [
        "# Banerjee & Basu (SDM 2007), Table 2: batch algorithms, NMI and run time", "",
        markdown_table(headers, body), "",
        *within_lines(results, BATCH, TABLE2), "",
        "NMI: arithmetic normalisation (scikit-learn's default; the paper's nMI cites Strehl "
        "& Ghosh, whose geometric normalisation changes no batch cell here by more than "
        "0.003, README), mean ± sample std over the runs; time: mean fit seconds (the "
        "paper: seconds to "
        "converge, on its 2007 machine; ours: one core here). K = the number of groups. "
        + DATASET_NOTE, not_run_line(results), run_counts(results), provenance_line(job), ""]
    job.write_table("table2", pd.DataFrame(csv_rows), "\n".join(x for x in lines if x is not None))


#: How far from the paper's NMI a cell may be and still count as reproduced.
WITHIN = 0.05


def within_lines(results, names, paper) -> list[str]:
    """Which cells are within :data:`WITHIN` of the paper's NMI, and which are not."""
    close, far = [], []
    for family, name in zip(results, names):
        for dataset, records in (results[family] or {}).items():
            reported = paper.get(dataset, {}).get(name)
            if reported is None or not records:
                continue
            gap = float(np.mean(metric_values(records, "nmi"))) - reported[0]
            (close if abs(gap) <= WITHIN else far).append(f"{name} {dataset} ({gap:+.3f})")
    return [f"**Within {WITHIN} NMI of the paper:** " + ("; ".join(close) or "none") + ".",
            "**Not within:** " + ("; ".join(far) or "none") + ". Why: `table2_dims.md` "
            "reruns every cell with the low-frequency cut raised to the paper's vocabulary "
            "size, then with the posts' headers kept, and says per cell which of the three "
            "lands within 0.05 (item `dims`); `table2_cells.md` gives each cell that none of "
            "them reaches a model setting of the time that does, run on its whole column "
            "(item `cells`)."] if close or far else []


def write_table4(job, results) -> None:
    """Table 4: online NMI (labels on arrival) and seconds per document of each family."""
    headers, body, csv_rows = _rows(results, ONLINE, TABLE4, lambda r: _cell(
        metric_values(r, "nmi")), seconds_per_document, "online")
    lines = [
        "# Banerjee & Basu (SDM 2007), Table 4: online algorithms, NMI and time per document",
        "", markdown_table(headers, body), "",
        *online_against_batch(results), "",
        "NMI of the whole stream with each document's label from when it arrived; time: fit "
        "seconds of the stream over its documents. " + STREAM_NOTE + " " + DATASET_NOTE,
        not_run_line(results), run_counts(results), provenance_line(job), ""]
    job.write_table("table4", pd.DataFrame(csv_rows), "\n".join(x for x in lines if x is not None))


def online_against_batch(results) -> list[str]:
    """Whether each online model scores below its batch version on the same seeds (the
    stream records carry the batch fit of the same seed)."""
    lines = ["**Online below batch?** (the paper: 'in general, the online algorithms give "
             "worse nMI results than the corresponding batch algorithms')"]
    for family, name in zip(results, ONLINE):
        if not results[family]:
            continue
        parts = []
        for dataset, records in results[family].items():
            if not records:
                continue
            online = np.mean(metric_values(records, "nmi"))
            batch = np.mean([r["batch_fit"]["metrics"]["nmi"] for r in records])
            parts.append(f"{dataset} {online:.3f} vs {batch:.3f} "
                         f"({'below' if online < batch else 'NOT below'})")
        if parts:
            lines.append(f"- {name}: " + "; ".join(parts) + ".")
    return lines


def write_table3(job, records: list[dict]) -> None:
    """Table 3: the five largest batch vMF clusters' top words (first run)."""
    lines = ["# Banerjee & Basu (SDM 2007), Table 3: top words of five vMF clusters", ""]
    rows = []
    if records and records[0].get("top_words"):
        record = records[0]
        sizes = np.asarray(record["cluster_sizes"])
        largest = np.argsort(-sizes, kind="stable")[:5]
        words = [[w for w, _ in record["top_words"][k]] for k in largest]
        lines += ["Ours: batch movMF on news-20 (20NG-bydate), seed "
                  f"{record['seed']}, the five largest of its {len(sizes)} clusters "
                  f"(sizes {', '.join(str(sizes[k]) for k in largest)}):", "",
                  markdown_table([f"cluster {k}" for k in largest],
                                 [list(r) for r in zip(*words)]), ""]
        rows = [{"source": "ours", "cluster": int(k), "rank": i, "word": w}
                for k, ws in zip(largest, words) for i, w in enumerate(ws)]
    else:
        lines += ["Ours: no batch vMF run on news-20 yet.", ""]
    lines += ["The paper: batch vMF on slash-7 (not public, so ours is on news-20):", "",
              markdown_table([t[0] for t in TABLE3], [list(r) for r in zip(*TABLE3)]), "",
              provenance_line(job), ""]
    rows += [{"source": "paper (slash-7)", "cluster": i, "rank": r, "word": w}
             for i, topic in enumerate(TABLE3) for r, w in enumerate(topic)]
    job.write_table("table3", pd.DataFrame(rows), "\n".join(lines))


def curve(records: list[dict]) -> pd.DataFrame:
    """Cumulative NMI against the fraction of the stream processed, mean and std over seeds."""
    rows = []
    for record in records:
        n = record["n_docs"]
        done = 0
        for batch in record["batches"]:
            done += batch["n_docs"]
            rows.append({"seed": record["seed"], "fraction": done / n,
                         "nmi": batch["cumulative"]["nmi"]})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=["fraction", "nmi_mean", "nmi_std", "runs"])
    grouped = frame.groupby("fraction")["nmi"]
    return pd.DataFrame({"nmi_mean": grouped.mean(), "nmi_std": grouped.std(ddof=1).fillna(0.0),
                         "runs": grouped.count()}).reset_index()


def write_figure1(job, hybrid: dict[str, list[dict]], online: dict[str, list[dict]]) -> None:
    """Figure 1: h-vMF (and o-vMF) cumulative NMI against the fraction processed."""
    import matplotlib.pyplot as plt

    frames, lines = [], []
    fig, ax = plt.subplots(figsize=(8, 5))
    for dataset, records in hybrid.items():
        h, o = curve(records), curve(online.get(dataset, []))
        frames += [h.assign(dataset=dataset, model="h-vMF"), o.assign(dataset=dataset,
                                                                       model="o-vMF")]
        line, = ax.plot(h["fraction"], h["nmi_mean"], label=f"{dataset} h-vMF")
        ax.plot(o["fraction"], o["nmi_mean"], linestyle=":", color=line.get_color(),
                label=f"{dataset} o-vMF")
        if len(h) and len(o):
            end_h, end_o = h["nmi_mean"].iloc[-1], o["nmi_mean"].iloc[-1]
            lines.append(f"- {dataset}: h-vMF {end_h:.3f}, o-vMF {end_o:.3f} at the end "
                         f"({'above' if end_h > end_o else 'NOT above'}).")
    for mark in np.arange(OFFLINE_EVERY, 1.0 + 1e-9, OFFLINE_EVERY):
        ax.axvline(mark, color="grey", linewidth=0.5)
    runs = sorted({len(r) for r in hybrid.values()})
    ax.set(xlabel="fraction of the stream processed", ylabel="NMI (documents so far)",
           title=f"Figure 1: h-vMF, OFFLINE every {OFFLINE_EVERY:.0%} of the stream "
                 f"(mean over {', '.join(map(str, runs)) or 0} runs per point)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    save_figure(fig, job.figure_path("figure1"))
    plt.close(fig)
    text = "\n".join([
        "# Banerjee & Basu (SDM 2007), Figure 1: h-vMF on the news datasets", "",
        "![Figure 1](figure1.png)", "",
        "**h-vMF above o-vMF?** (the paper: intermittent batch processing improves the "
        "clustering)", *lines, "",
        "NMI of the documents seen so far, each with its current label (an OFFLINE step "
        "relabels every document seen), against the fraction of the stream; dotted: o-vMF "
        "(no OFFLINE step); grey lines: the OFFLINE points. " + STREAM_NOTE,
        provenance_line(job), ""])
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    job.write_table("figure1", frame, text)


__all__ = ["write_table2", "write_table3", "write_table4", "write_figure1", "SIZES"]
