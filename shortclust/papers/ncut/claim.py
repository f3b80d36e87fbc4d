"""Section 4.4's claim on our runs: where NMF+nc is above every baseline, and where not.

The paper (section 4.4): "NMF+nc outperforms all the baselines significantly in all
evaluation metrics, especially when K is larger than 3"; its baselines (section 4.1.2) are
Kmeans+idf, RLSI+idf, RLSI+nc, NMF+01 and NMF+idf (:data:`CLAIM_BASELINES`). A comparison
is NMF+nc's mean against one baseline's mean in one cell (dataset, K, metric). The paper
reports no test, so each comparison is also tested by Welch's two-tailed t-test at
:data:`ALPHA` (from the means, sample stds and run counts: the methods' seeds are not
paired, each starting from its own random columns).

Frames here are long-format stat rows: dataset, method, K, metric, runs, mean, std.
"""

from __future__ import annotations

import pandas as pd

from shortclust.evaluation.stats import ALPHA, welch_t_test
from shortclust.pipeline.reproduce import markdown_table
from shortclust.papers.ncut.reported import CLAIM_BASELINES, METRICS, SHORT

#: Sets whose file is the first lines of another's (the data registry: SearchSnippets-test
#: is the first 2280 lines of SearchSnippets; tested on the files): same source and
#: classes, only smaller.
NESTED_SETS = {"SearchSnippets-test": "SearchSnippets"}

COMPARISON_COLUMNS = ["dataset", "K", "metric", "baseline", "runs", "nmf_nc_mean",
                      "baseline_mean", "gap", "p", "won", "significant"]


def comparisons(frame: pd.DataFrame, k_min: int = 4) -> pd.DataFrame:
    """Every comparison at K >= ``k_min``: both means, the gap (NMF+nc - baseline), Welch's p.

    Cells without runs yet (no mean) on either side are left out.
    """
    rows = []
    for dataset, part in frame[frame["K"] >= k_min].groupby("dataset", sort=False):
        cells = part.set_index(["method", "K", "metric"])
        for (method, k, metric), cell in cells.iterrows():
            if method not in CLAIM_BASELINES or ("NMF+nc", k, metric) not in cells.index:
                continue
            ours = cells.loc[("NMF+nc", k, metric)]
            if pd.isna(ours["mean"]) or pd.isna(cell["mean"]):
                continue
            test = welch_t_test(ours, cell)
            rows.append({"dataset": dataset, "K": k, "metric": metric, "baseline": method,
                         "runs": min(int(ours["runs"]), int(cell["runs"])),
                         "nmf_nc_mean": ours["mean"], "baseline_mean": cell["mean"],
                         "gap": test.diff, "p": test.p, "won": test.diff > 0,
                         "significant": test.significant()})
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def claim_check(frame: pd.DataFrame, k_min: int = 4) -> pd.DataFrame:
    """Per dataset: comparisons made and won, whether the claim holds at every K >= ``k_min``,
    the K where it holds (NMF+nc above every baseline on every metric) and where it fails,
    the significant wins and losses, and the losses (:func:`loss_text`)."""
    table = comparisons(frame, k_min)
    out = []
    for dataset in dict.fromkeys(frame.loc[frame["K"] >= k_min, "dataset"]):
        part = table[table["dataset"] == dataset]
        lost = part[~part["won"]]
        failing = sorted({int(k) for k in lost["K"]})
        holding = sorted({int(k) for k in part["K"]} - set(failing))
        out.append({"dataset": dataset, "comparisons": len(part), "won": len(part) - len(lost),
                    "holds": len(part) > 0 and lost.empty,
                    "won_significant": int((part["won"] & part["significant"]).sum()),
                    "lost_significant": int((~part["won"] & part["significant"]).sum()),
                    "holds_at": _k_list(holding), "fails_at": _k_list(failing),
                    "lost": loss_text(lost)})
    return pd.DataFrame(out, columns=["dataset", "comparisons", "won", "holds",
                                      "won_significant", "lost_significant", "holds_at",
                                      "fails_at", "lost"])


def _k_list(ks: list[int]) -> str:
    return ", ".join(map(str, ks)) or "none"


def _in_paper_order(table: pd.DataFrame) -> pd.DataFrame:
    """Rows ordered by baseline (the paper's order), then metric (Figure 3's), then K."""
    order = {"baseline": CLAIM_BASELINES, "metric": METRICS}
    keys = {column: table[column].map({v: i for i, v in enumerate(values)})
            for column, values in order.items()}
    return table.assign(**{f"_{c}": k for c, k in keys.items()}).sort_values(
        ["_baseline", "_metric", "K"], kind="stable").drop(columns=["_baseline", "_metric"])


def loss_text(lost: pd.DataFrame) -> str:
    """``NMF+idf ARI at K = 8; RLSI+nc NMI at K = 6, 8*`` (``*``: Welch p < ALPHA)."""
    parts = []
    for (baseline, metric), group in _in_paper_order(lost).groupby(["baseline", "metric"],
                                                                   sort=False):
        ks = ", ".join(f"{int(r.K)}{'*' if r.significant else ''}"
                       for r in group.itertuples())
        parts.append(f"{baseline} {SHORT.get(metric, metric)} at K = {ks}")
    return "; ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}es" if noun.endswith("s") else f"{n} {noun}s"


def claim_lines(checks: pd.DataFrame, scope: str = "for K > 3",
                losses: bool = True) -> list[str]:
    """One sentence per dataset: where the claim holds and fails, what is significant
    (and, with ``losses``, every comparison NMF+nc lost)."""
    lines = []
    for row in checks.itertuples():
        ks = [k for text in (row.holds_at, row.fails_at) if text != "none"
              for k in text.split(", ")]
        several_k = len(ks) > 1
        if row.holds:
            verdict = "the claim holds" + (f" at every K ({row.holds_at})" if several_k else "")
        elif several_k and row.comparisons:
            where = "no K" if row.holds_at == "none" else f"K = {row.holds_at}"
            verdict = f"the claim holds at {where} and fails at K = {row.fails_at}"
        else:
            verdict = "the claim does NOT hold"
        lines.append(f"- {row.dataset}: NMF+nc is above {', '.join(CLAIM_BASELINES)} in "
                     f"{row.won}/{row.comparisons} (K, metric, baseline) comparisons of the "
                     f"mean {scope}: {verdict}"
                     + (f" (below: {row.lost})" if row.lost and losses else "")
                     + f"; significant (Welch, p < {ALPHA}): "
                     f"{_count(row.won_significant, 'win')}, "
                     f"{_count(row.lost_significant, 'loss')}.")
    return lines


def baseline_rows(table: pd.DataFrame, metrics: list[str]) -> list[list]:
    """Per (dataset, baseline): wins / comparisons, then per metric the K where NMF+nc is
    below (``*`` significant) or ``-``."""
    rows = []
    for (dataset, baseline), part in table.groupby(["dataset", "baseline"], sort=False):
        part = part.sort_values("K", kind="stable")
        cells = []
        for metric in metrics:
            lost = part[(part["metric"] == metric) & ~part["won"]]
            cells.append(", ".join(f"{int(r.K)}{'*' if r.significant else ''}"
                                   for r in lost.itertuples()) or "-")
        rows.append([dataset, baseline, f"{int(part['won'].sum())}/{len(part)}", *cells])
    return rows


def claim_markdown(checks: pd.DataFrame, table: pd.DataFrame, metrics: list[str]) -> str:
    """The per-dataset verdicts and the per-baseline table of where NMF+nc is below."""
    return "\n".join([
        markdown_table(["dataset", "comparisons", "won", "holds at every K > 3",
                        "holds at K", "fails at K", "won, significant", "lost, significant"],
                       [[r.dataset, r.comparisons, r.won, "yes" if r.holds else "no",
                         r.holds_at, r.fails_at, r.won_significant, r.lost_significant]
                        for r in checks.itertuples()]), "",
        "## Where NMF+nc is below a baseline", "",
        "K values where NMF+nc's mean is below the baseline's (`*`: significant, Welch "
        f"p < {ALPHA}); `-`: above at every K > 3.", "",
        markdown_table(["dataset", "baseline", "NMF+nc above", *[f"below on {SHORT[m]} at K"
                                                                 for m in metrics]],
                       baseline_rows(table, metrics)),
    ])


# --------------------------------------------------------------------------------------------
# the claim at the true K: what the losses are, and what differs between the sets


def loss_findings(table: pd.DataFrame, data: dict[str, dict]) -> list[str]:
    """Per dataset where NMF+nc is below a baseline: by how much, the p-values, and whether
    the significant losses are to methods with the same (Ncut) weights or other weights."""
    lines = []
    for dataset, part in table.groupby("dataset", sort=False):
        lost = part[~part["won"]]
        if lost.empty:
            continue
        by_baseline = []
        for baseline, group in _in_paper_order(lost).groupby("baseline", sort=False):
            gaps = ", ".join(f"{SHORT[r.metric]} by {-r.gap:.3f} ({_p(r.p)})"
                             for r in group.itertuples())
            by_baseline.append(f"{baseline} on {gaps}")
        lines.append(f"- {dataset} ({_data_text(data.get(dataset))}): NMF+nc is below "
                     f"{'; '.join(by_baseline)}. {_loss_kind(lost)}")
    return lines


def _loss_kind(lost: pd.DataFrame) -> str:
    significant = lost[lost["significant"]]
    if significant.empty:
        return (f"Every loss is within noise (no Welch p < {ALPHA}; the largest gap "
                f"{-lost['gap'].min():.3f}).")
    winners = list(dict.fromkeys(significant["baseline"]))
    largest = f"up to {-significant['gap'].min():.3f}"
    if all(_weighting(b) == "nc" for b in winners):
        return (f"The significant losses ({largest}) are to {', '.join(winners)} only, "
                "which uses the same Ncut weights: what separates them here is the "
                "factorization, not the weighting.")
    return (f"Significant losses ({largest}) to {', '.join(winners)}: here NMF with "
            "Ncut weights is behind methods with other weights.")


def _weighting(method: str) -> str:
    """``RLSI+nc`` -> ``nc``: the paper's names end in the term weighting."""
    return method.split("+")[1]


def _p(p) -> str:
    if p is None or pd.isna(p):
        return "no test"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _data_text(stats: dict | None) -> str:
    if not stats:
        return "data not loaded"
    return (f"{stats['docs']:,} documents, {stats['words']:,} words, {stats['classes']} "
            f"classes, {stats['docs'] / stats['classes']:.1f} documents per class")


def gap_cell(table: pd.DataFrame, dataset: str, baseline: str, metric: str = "nmi") -> str:
    """NMF+nc minus ``baseline`` on ``metric`` at the true K, with its p-value."""
    row = table[(table["dataset"] == dataset) & (table["baseline"] == baseline)
                & (table["metric"] == metric)]
    if row.empty:
        return "n/a"
    r = row.iloc[0]
    return f"{r.gap:+.3f} ({_p(r.p)})"


def data_rows(table: pd.DataFrame, checks: pd.DataFrame, data: dict[str, dict]) -> list[list]:
    """Per dataset: its size, classes, the weighting's and the factorization's NMI gaps."""
    verdict = checks.set_index("dataset")["holds"]
    return [[d, f"{s['docs']:,}", f"{s['words']:,}", s["classes"],
             f"{s['docs'] / s['classes']:.1f}", gap_cell(table, d, "NMF+idf"),
             gap_cell(table, d, "RLSI+nc"),
             "yes" if verdict.get(d, False) else "no"] for d, s in data.items()]


def nested_lines(table: pd.DataFrame, data: dict[str, dict]) -> list[str]:
    """For a set nested in another (:data:`NESTED_SETS`), both present: the same gaps on
    both, which differ in size alone."""
    from shortclust.data.registry import get_info

    lines = []
    for part, whole in NESTED_SETS.items():
        if part not in data or whole not in data:
            continue
        lines.append(
            f"- {part} is the first {get_info(part).n_docs:,} lines of {whole} (same source, "
            "same classes, same preprocessing), so the two differ only in how many documents "
            "they hold (and so in the words left by df >= 6): "
            "NMF+nc - NMF+idf in NMI is "
            f"{gap_cell(table, whole, 'NMF+idf')} on {whole} ({_data_text(data[whole])}) and "
            f"{gap_cell(table, part, 'NMF+idf')} on {part} ({_data_text(data[part])}).")
    return lines


def true_k_findings(frame: pd.DataFrame, data: dict[str, dict]) -> list[str]:
    """The claim at the true K, measured: the verdicts, the losses, the sets side by side."""
    table = comparisons(frame, k_min=0)
    checks = claim_check(frame, k_min=0)
    return [
        *claim_lines(checks, "at the true K", losses=False), "",
        "**Where NMF+nc is below a baseline at the true K** (by how much its mean is below "
        "the baseline's; p: Welch's two-tailed t-test over the runs of the two cells):",
        *loss_findings(table, data), *nested_lines(table, data), "",
        "**The sets side by side** (after the paper's preprocessing; NMI gaps NMF+nc minus "
        "the other method at the true K: against NMF+idf the weighting changes, against "
        "RLSI+nc the factorization):", "",
        markdown_table(["dataset", "documents", "words", "classes", "documents per class",
                        "NMF+nc - NMF+idf (NMI)", "NMF+nc - RLSI+nc (NMI)",
                        "claim holds"], data_rows(table, checks, data)),
    ]
