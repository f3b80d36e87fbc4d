"""The IC paper's Tables 2-5 and the HAC_SD_IC quick check, from run records.

``results_by_dataset`` is ``{dataset: {row: records}}`` (rows as in :mod:`.reported`); a
dataset missing from it is not in the data directory. Nothing here fits a model: the
cells, marks and tests are computed from the records alone (:mod:`.significance`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from shortclust.evaluation.stats import ALPHA, format_mean_std, is_missing, mean, mean_std
from shortclust.pipeline.reproduce import counts_text, markdown_table, metric_values
from shortclust.papers.ic.notes import DATA_NOTES, gap_reasons, marks_note, representation_line
from shortclust.papers.ic.reported import (
    BEST, DATASETS, DETERMINISTIC, FIGURE_DATASETS, METHODS, PAPER, PAPER_ONLY, ROWS, SMALL,
    STOPPED, TABLE_ROWS, TABLES, Reported,
)
from shortclust.papers.ic.settings import PAPER_REPRESENTATION
from shortclust.representations import coverage_line
from shortclust.papers.ic.significance import effect_cell, marks_for, values_of


def mean_of(values: dict[int, float]) -> float:
    """Mean of ``{seed: value}`` (NaN for none)."""
    return mean_std(values.values())[0]


def mean_iterations(records: list[dict]) -> float:
    """Mean IC iterations of the records (NaN for none)."""
    return mean(metric_values(records, "n_iter"))


def paper_cell(reported: Reported | None) -> str:
    """The paper's cell as printed: ``mean ± std *`` (no std for one run)."""
    if reported is None:
        return "-"
    text = f"{reported.mean:.2f}"
    if reported.std is not None:
        text += f" ± {reported.std:.2f}"
    return text + (" *" if reported.star else "")


def ours_cell(values: dict[int, float], marks: str = "", bold: bool = False) -> str:
    """Our cell: ``mean ± std`` in percent (the value alone for one run), marks, bold."""
    if not values:
        return "n/a"
    mean_value, std = mean_std(values.values())
    text = f"{mean_value:.2f}" if len(values) == 1 else format_mean_std(mean_value, std, 2)
    if bold:
        text = f"**{text}**"
    return text + (f" {marks}" if marks else "")


@dataclass
class TableText:
    """A rendered table: its Markdown and its long-format CSV frame."""

    markdown: str
    frame: pd.DataFrame


def build_tables(name: str, by_representation: dict[str, dict[str, dict[str, list[dict]]]],
                 footer: str = "") -> TableText:
    """One of Tables 2-5 under each representation, after a side-by-side comparison.

    ``by_representation`` maps a name of :data:`REPRESENTATIONS` to ``{dataset: {row:
    records}}``; the paper's representation comes first.
    """
    metric, datasets, number = TABLES[name]
    paper_name = "ACC" if metric == "acc" else "NMI"
    present = [d for d in datasets if any(d in r for r in by_representation.values())]
    parts, frames = [], []
    for representation, results in by_representation.items():
        table = build_table(name, results, heading=_section_heading(representation))
        parts.append(table.markdown)
        frames.append(table.frame.assign(representation=representation))
    lines = [
        f"# Iterative-classification paper, Table {number}: {paper_name} (%) on "
        f"{', '.join(DATASETS[d][0] for d in datasets)}", "",
        "## The paper beside both representations", "",
        comparison_table(by_representation, present, metric), "",
        "Mean over the runs (percent); the full tables with std, marks and tests follow, one "
        "section per representation. The initial clusterings (HAC_SD ... k-means--) are "
        f"fitted on the representation; IC always works on TF-IDF. {REPRESENTATION_NOTE}", "",
        *closeness_lines(by_representation, present, metric), "",
        *coverage_lines(by_representation, present), "",
        *parts, footer,
    ]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if not frame.empty:
        frame = frame[["representation"] + [c for c in frame.columns if c != "representation"]]
    return TableText("\n".join(line for line in lines if line is not None) + "\n", frame)


#: Which representation is the paper's, said under every comparison.
REPRESENTATION_NOTE = (
    f"The paper's representation is averaged GloVe word vectors (42B 300-d; {PAPER_REPRESENTATION} "
    "here is GloVe 6B 50-d, the closest set that installs); MiniLM (all-MiniLM-L6-v2 "
    "sentence embeddings) is our earlier substitute.")


def _section_heading(representation: str) -> str:
    paper = " (the paper's kind of representation)" if representation == PAPER_REPRESENTATION else ""
    return f"## {representation}{paper}"


def comparison_table(by_representation, present, metric) -> str:
    """Per row and dataset: the paper's mean, then ours under each representation."""
    if not present:
        return "No dataset of this table is present in the data directory."
    names = list(by_representation)
    headers = ["method"] + [f"{DATASETS[d][0]} {who}" for d in present
                            for who in ["paper", *names]]
    body = []
    for row in ROWS:
        cells = [row]
        for dataset in present:
            reported = PAPER[metric].get(row, {}).get(dataset)
            cells.append("-" if reported is None else f"{reported.mean:.2f}")
            for name in names:
                records = by_representation[name].get(dataset, {}).get(row, [])
                value = mean_of(values_of(records, metric))
                cells.append("n/a" if is_missing(value) else f"{value:.2f}")
        body.append(cells)
    return markdown_table(headers, body)


def mean_gap(results: dict[str, list[dict]], dataset: str, metric: str) -> tuple[float, int]:
    """Mean |ours - paper| over the rows with both numbers, and how many rows that is."""
    gaps = []
    for row in ROWS:
        reported = PAPER[metric].get(row, {}).get(dataset)
        ours = mean_of(values_of(results.get(row, []), metric))
        if reported is not None and not is_missing(ours):
            gaps.append(abs(ours - reported.mean))
    return (float(np.mean(gaps)) if gaps else float("nan")), len(gaps)


def closeness_lines(by_representation, present, metric) -> list[str]:
    """Per dataset: which representation's numbers are closer to the paper's."""
    lines = [f"**Closer to the paper** (mean absolute difference from the paper's "
             f"{metric.upper()} over the {len(ROWS)} rows of both, lower is closer):"]
    for dataset in present:
        gaps = {name: mean_gap(results.get(dataset, {}), dataset, metric)
                for name, results in by_representation.items()}
        known = {name: g for name, (g, n) in gaps.items() if n == len(ROWS)}
        text = ", ".join(f"{name} {g:.2f} ({n} rows)" if n else f"{name} no runs"
                         for name, (g, n) in gaps.items())
        verdict = (f": {min(known, key=known.get)} is closer" if len(known) == len(gaps)
                   and len(known) > 1 else ": not every row has runs yet")
        lines.append(f"- {DATASETS[dataset][0]}: {text}{verdict}.")
    return lines


def coverage_lines(by_representation, present) -> list[str]:
    """Per dataset and word-vector representation: the words without a vector (from the
    records, where each run stores them)."""
    lines = []
    for name, results in by_representation.items():
        for dataset in present:
            found = next((r["representation_coverage"] for rows in results.get(dataset, {}).values()
                          for r in rows if r.get("representation_coverage")), None)
            if found is not None:
                lines.append(f"- {DATASETS[dataset][0]}, {name}: {coverage_line(found)}.")
    return (["**Out of vocabulary** (words of the preprocessed corpus without a vector; "
             "they are left out of a text's average):"] + lines) if lines else []


def build_table(name: str, results_by_dataset: dict[str, dict[str, list[dict]]],
                footer: str = "", heading: str | None = None) -> TableText:
    """One of Tables 2-5 from the records (``{dataset: {row: records}}``; absent datasets
    are those missing from the mapping). With ``heading``, a section of a larger file:
    that heading instead of the title, its sub-headings one level down."""
    metric, datasets, number = TABLES[name]
    rows_kind = "small" if datasets is SMALL else "large"
    present = [d for d in datasets if d in results_by_dataset]
    extra = ["purity"] if metric == "acc" else []
    headers = ["method"]
    for dataset in datasets:
        short = DATASETS[dataset][0]
        if dataset not in results_by_dataset:
            headers.append(f"{short} paper (not present here)")
            continue
        headers += [f"{short} paper", f"{short} ours"] + [f"{short} ours purity"] * bool(extra)
    best = {d: _best_row(results_by_dataset[d], metric) for d in present}
    body, csv_rows = [], []
    for row in TABLE_ROWS[rows_kind]:
        cells = [row]
        for dataset in datasets:
            reported = PAPER[metric].get(row, {}).get(dataset)
            cells.append(paper_cell(reported))
            if dataset not in results_by_dataset:
                continue
            results = results_by_dataset[dataset]
            if row in PAPER_ONLY:
                cells += ["paper only"] * (1 + len(extra))
                continue
            marks, tests = marks_for(row, results, metric)
            values = values_of(results.get(row, []), metric)
            cells.append(ours_cell(values, marks, bold=row == best[dataset]))
            cells += [ours_cell(values_of(results.get(row, []), m)) for m in extra]
            csv_rows.append(_csv_row(dataset, row, metric, results, reported, marks, tests))
            # Purity is compared with the paper's ACC: the authors' code computes it as ACC.
            csv_rows += [_csv_row(dataset, row, m, results, reported, "", {}) for m in extra]
        body.append(cells)
    for dataset in present:
        for method in METHODS:
            row = method + STOPPED
            csv_rows += [_csv_row(dataset, row, m, results_by_dataset[dataset], None, "", {})
                         for m in [metric] + extra]
    paper_name = "ACC" if metric == "acc" else "NMI"
    sub = "##" if heading is None else "###"
    lines = [
        heading or (f"# Iterative-classification paper, Table {number}: {paper_name} (%) on "
                    f"{', '.join(DATASETS[d][0] for d in datasets)}"), "",
        markdown_table(headers, body), "",
        marks_note(metric),
        representation_line({d: results_by_dataset[d] for d in present}), "",
        f"{sub} Did iterative classification raise both ACC and NMI? (section 6.3.2)", "",
        _effect_table(results_by_dataset, present), "",
        "Mean change X_IC − X in percent points over the runs, with the two-tailed t-test "
        f"(alpha = {ALPHA}): paired by seed for k-means and k-means-- (X_IC with seed s "
        "starts from X with seed s); one-sample against the single HAC value for the "
        "deterministic HAC rows (the paper's paired test with a constant column). 'yes' "
        "needs both means higher, 'both significant' both p < 0.05.", "",
        f"{sub} With the stopping rule of section 3.3 ({paper_name}, ours)", "",
        _stopping_table(results_by_dataset, present, metric), "",
        "IC stopped when the mean absolute change of the cluster sizes was at most 5% of "
        "n/K, else after 50 iterations; 'it.' is the mean number of iterations. The main "
        "table's _IC rows always run 50 iterations, as the authors' code does (the paper's "
        "numbers come from that code; section 3.3 stops within a few iterations, while "
        "labels keep moving).", "",
        f"{sub} Gap to the paper", "",
        *_gap_lines(results_by_dataset, datasets, metric), "",
        gap_reasons(metric), "",
        run_count_line(results_by_dataset, present),
        footer or None,
    ]
    frame = pd.DataFrame(csv_rows)
    return TableText("\n".join(line for line in lines if line is not None) + "\n", frame)


def _best_row(results: dict[str, list[dict]], metric: str) -> str | None:
    means = {row: mean_of(values_of(results.get(row, []), metric))
             for row in TABLE_ROWS["small"] if row in results}
    means = {row: m for row, m in means.items() if not is_missing(m)}
    return max(means, key=means.get) if means else None


def _csv_row(dataset, row, metric, results, reported, marks, tests) -> dict:
    values = values_of(results.get(row, []), metric)
    mean_value, std = mean_std(values.values())
    vs_ic, vs_best = tests.get("vs_ic"), tests.get("vs_best")
    return {
        "dataset": dataset, "row": row, "metric": metric, "runs": len(values),
        "mean": mean_value, "std": std,
        "paper_mean": reported.mean if reported else None,
        "paper_std": reported.std if reported else None,
        "paper_star": reported.star if reported else None,
        "dagger": "†" in marks, "star": "*" in marks,
        "ic_diff": vs_ic.diff if vs_ic else None, "ic_p": vs_ic.p if vs_ic else None,
        "ic_test": vs_ic.kind if vs_ic else None,
        "best_diff": vs_best.diff if vs_best else None,
        "best_p": vs_best.p if vs_best else None,
        "n_iter_mean": mean_iterations(results.get(row, [])),
    }


def _effect_table(results_by_dataset, present) -> str:
    if not present:
        return "No dataset of this table is present in the data directory."
    headers = ["method"] + [DATASETS[d][0] for d in present]
    rows = [[method] + [effect_cell(results_by_dataset[d], method) for d in present]
            for method in METHODS]
    return markdown_table(headers, rows)


def _stopping_table(results_by_dataset, present, metric) -> str:
    if not present:
        return "No dataset of this table is present in the data directory."
    headers = ["method"] + [DATASETS[d][0] for d in present]
    rows = []
    for method in METHODS:
        cells = [method + STOPPED]
        for dataset in present:
            records = results_by_dataset[dataset].get(method + STOPPED, [])
            cell = ours_cell(values_of(records, metric))
            iterations = mean_iterations(records)
            cells.append(cell if is_missing(iterations) else f"{cell} ({iterations:.1f} it.)")
        rows.append(cells)
    return markdown_table(headers, rows)


def _gap_lines(results_by_dataset, datasets, metric) -> list[str]:
    lines = []
    for dataset in datasets:
        short = DATASETS[dataset][0]
        if dataset not in results_by_dataset:
            lines.append(f"- {short}: not present in the data directory, not run.")
            continue
        results = results_by_dataset[dataset]
        gaps = []
        for row in ROWS + ["GSDPMM"]:
            reported = PAPER[metric].get(row, {}).get(dataset)
            ours = mean_of(values_of(results.get(row, []), metric))
            if reported is not None and not is_missing(ours):
                gaps.append((row, ours - reported.mean))
        if not gaps:
            lines.append(f"- {short}: no runs.")
            continue
        by_row = dict(gaps)
        head = ""
        if BEST in by_row:
            ours = mean_of(values_of(results[BEST], metric))
            head = (f"HAC_SD_IC {ours:.2f} vs paper {PAPER[metric][BEST][dataset].mean:.2f} "
                    f"({by_row[BEST]:+.2f})")
            if metric == "acc":
                purity = mean_of(values_of(results[BEST], "purity"))
                head += (f", purity {purity:.2f} "
                         f"({purity - PAPER[metric][BEST][dataset].mean:+.2f})")
            head += "; "
        values = np.array([gap for _, gap in gaps])
        lines.append(
            f"- {short}: {head}ours − paper over the {len(gaps)} rows with both numbers: "
            f"mean {values.mean():+.2f}, from {values.min():+.2f} to {values.max():+.2f}. "
            f"Data: {DATA_NOTES[dataset]}."
        )
    return lines


def run_count_line(results_by_dataset, present) -> str:
    """Runs per cell, per dataset when they differ (a reproduction still under way, or a
    ``--no-fit`` regeneration from the runs recorded so far)."""
    per_dataset = {}
    for dataset in present:
        counts = set()
        for row, records in results_by_dataset[dataset].items():
            if row not in DETERMINISTIC:
                counts.add(len(records))
        per_dataset[DATASETS[dataset][0]] = counts_text(counts) or "0"
    if len(set(per_dataset.values())) <= 1:
        runs = next(iter(per_dataset.values()), "0")
    else:
        runs = "; ".join(f"{name} {count}" for name, count in per_dataset.items())
    # No fit times here: they change when the same runs are fitted again (see timing.md).
    return (f"Runs per cell: {runs} ({', '.join(DETERMINISTIC)}: one run, "
            "deterministic; the others one run per seed). Time taken: `timing.md`.")


#: The quick check: HAC_SD_IC within this many ACC points of the paper.
CHECK_POINTS = 5.0


def build_check(by_representation: dict[str, dict[str, dict[str, list[dict]]]],
                footer: str = ""):
    """The HAC_SD_IC check under each representation: Markdown and frame.

    ``by_representation`` maps a name of :data:`REPRESENTATIONS` to ``{dataset: {row:
    records}}``.
    """
    headers = ["dataset", "representation", "row", "ACC paper", "ACC ours", "purity ours",
               "NMI paper", "NMI ours", "iterations"]
    body, csv_rows, checks = [], [], []
    for dataset in FIGURE_DATASETS:
        short = DATASETS[dataset][0]
        if not any(dataset in r for r in by_representation.values()):
            checks.append(f"- {short}: not present in the data directory.")
            continue
        for representation, results_by_dataset in by_representation.items():
            results = results_by_dataset.get(dataset, {})
            for row in ("HAC_SD", "HAC_SD_IC", "HAC_SD_IC (3.3)"):
                body.append(_check_row(short, representation, row, results))
                csv_rows += _check_csv_rows(dataset, representation, row, results)
            checks.append(_check_line(dataset, representation, results))
    text = "\n".join([
        "# Iterative-classification paper: HAC_SD_IC on the two representative datasets", "",
        markdown_table(headers, body), "",
        f"Check: HAC_SD_IC (50 iterations) within {CHECK_POINTS:.0f} ACC points of the paper "
        "(92.16 on SearchSnippet-test, 91.52 on Tweet):",
        *checks, "",
        "HAC_SD_IC: 50 IC iterations (the authors' code); HAC_SD_IC (3.3): the stopping rule "
        "of section 3.3. " + gap_reasons("acc"), "",
        REPRESENTATION_NOTE + " IC itself works on TF-IDF under both.",
        *(f"{name}: " + representation_line(results) + " "
          + run_count_line(results, list(results))
          for name, results in by_representation.items()),
        footer,
    ]) + "\n"
    return text, pd.DataFrame(csv_rows)


_CHECK_ROWS = {"HAC_SD": "HAC_SD", "HAC_SD_IC": BEST, "HAC_SD_IC (3.3)": BEST}


def _check_row(short: str, representation: str, row: str, results) -> list[str]:
    records = results.get(row, [])
    paper_row = _CHECK_ROWS[row]
    acc, nmi = PAPER["acc"][paper_row], PAPER["nmi"][paper_row]
    dataset = next(d for d in FIGURE_DATASETS if DATASETS[d][0] == short)
    iterations = mean_iterations(records) if row != "HAC_SD" else None
    return [short, representation, row, paper_cell(acc[dataset]),
            ours_cell(values_of(records, "acc")), ours_cell(values_of(records, "purity")),
            paper_cell(nmi[dataset]), ours_cell(values_of(records, "nmi")),
            "-" if is_missing(iterations) else f"{iterations:.1f}"]


def _check_csv_rows(dataset: str, representation: str, row: str, results) -> list[dict]:
    records = results.get(row, [])
    paper_row = _CHECK_ROWS[row]
    iterations = mean_iterations(records) if row != "HAC_SD" else None
    rows = []
    for metric, paper_metric in (("acc", "acc"), ("purity", "acc"), ("nmi", "nmi")):
        reported = PAPER[paper_metric][paper_row][dataset]
        mean_value, std = mean_std(values_of(records, metric).values())
        rows.append({"dataset": dataset, "representation": representation, "row": row,
                     "metric": metric, "runs": len(records), "mean": mean_value, "std": std,
                     "paper_mean": reported.mean, "paper_std": reported.std,
                     "n_iter_mean": iterations})
    return rows


def _check_line(dataset: str, representation: str, results: dict[str, list[dict]]) -> str:
    short = f"{DATASETS[dataset][0]} ({representation})"
    paper = PAPER["acc"][BEST][dataset].mean
    acc = mean_of(values_of(results.get(BEST, []), "acc"))
    purity = mean_of(values_of(results.get(BEST, []), "purity"))
    if is_missing(acc):
        return f"- {short}: no runs."
    verdict = lambda v: "within" if abs(v - paper) <= CHECK_POINTS else "NOT within"  # noqa: E731
    line = (f"- {short}: ACC {acc:.2f} vs {paper:.2f} ({acc - paper:+.2f}): "
            f"{verdict(acc)} {CHECK_POINTS:.0f} points; purity (the authors' code's 'acc') "
            f"{purity:.2f} ({purity - paper:+.2f}): {verdict(purity)}.")
    paper_base = PAPER["acc"]["HAC_SD"][dataset].mean
    parts = []
    for metric in ("acc", "purity"):
        base = mean_of(values_of(results.get("HAC_SD", []), metric))
        enhanced = mean_of(values_of(results.get(BEST, []), metric))
        if not is_missing(base) and not is_missing(enhanced):
            parts.append(f"with {metric.replace('acc', 'ACC')}, HAC_SD itself is "
                         f"{base - paper_base:+.2f} from the paper ({base:.2f} vs "
                         f"{paper_base:.2f}) and IC adds {enhanced - base:+.2f} (paper "
                         f"{paper - paper_base:+.2f})")
    return line + (" Of the gap: " + "; ".join(parts) + "." if parts else "")
