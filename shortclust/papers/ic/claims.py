"""Rakib et al. (iterative classification): the paper's claims our tables can test.

Tables 2-5 hold ACC (Hungarian matching, in %) and NMI (arithmetic normalisation, in %)
for two representations; each is a setting declared for every cell of its column, and
both are tested (a cell is a representation x dataset x metric). The ``(3.3)`` rows (the
authors' code's variant) are a second setting and are left out.
"""

from __future__ import annotations

import pandas as pd

from shortclust.pipeline.claims import (
    ALPHA, Agreement, Cell, Claim, Comparison, Exploratory, Reproduced, Tables, Verdict,
    absent, compare, count, every,
)

TABLES = {"table2": "ACC", "table3": "NMI", "table4": "ACC", "table5": "NMI"}
INITIAL = ("k-means", "k-means--", "HAC", "HAC_kNN", "HAC_SD")
BEST = "HAC_SD_IC"
#: The paper's rows (rows added later, such as other baselines, are not in its claims).
PAPER_ROWS = (*INITIAL, *(f"{row}_IC" for row in INITIAL), "GSDPMM")
#: The representation of the paper's kind (averaged word vectors): its agreement counts.
DECLARED = "GloVe"


def _frame(tables) -> pd.DataFrame | None:
    frames = [tables(name).assign(table=name) for name in TABLES if tables(name) is not None]
    if not frames:
        return None
    frame = pd.concat(frames, ignore_index=True)
    # The paper's metrics only (the tables also show purity beside ACC).
    return frame[~frame["row"].str.contains(r"\(3\.3\)", regex=True)
                 & frame["metric"].isin(("acc", "nmi"))]


def _cell(rows, name) -> Cell | None:
    found = rows[rows["row"] == name]
    return Cell.of(found.iloc[0]) if len(found) else None


def hac_sd_ic_best(tables) -> Verdict:
    frame = _frame(tables)
    if frame is None:
        return absent("Tables 2-5")
    best, not_best, lines = 0, 0, []
    for (rep, dataset), rows in frame.groupby(["representation", "dataset"], sort=False):
        if not (rows["row"] == BEST).any():
            continue  # the modern baselines' section has no HAC_SD_IC: not a cell of the claim
        beaten = []
        for metric, metric_rows in rows.groupby("metric", sort=False):
            mine = _cell(metric_rows, BEST)
            if mine is None:
                continue
            for other in metric_rows["row"].unique():
                if other != BEST and other in PAPER_ROWS:
                    c = compare(f"{other} {metric}", mine, _cell(metric_rows, other))
                    if c.outcome == "below":
                        beaten.append(c)
        if beaten:
            not_best += 1
            lines.append(f"{rep} {dataset}: below " + ", ".join(
                f"{c.where} ({c.first.mean:.1f} vs {c.second.mean:.1f})" for c in beaten[:3]))
        else:
            best += 1
    total = best + not_best
    status = "holds" if best > total / 2 else "fails"
    return Verdict(status, f"HAC_SD_IC not significantly below any row in ACC and NMI on "
                   f"{best} of {total} (representation, set) cells; " + "; ".join(lines[:8])
                   + ("; ..." if len(lines) > 8 else ""))


def ic_improves(tables) -> Verdict:
    frame = _frame(tables)
    if frame is None:
        return absent("Tables 2-5")
    comparisons = []
    for _, row in frame[frame["row"].isin(INITIAL) & frame["ic_p"].notna()].iterrows():
        p, diff = float(row["ic_p"]), float(row["ic_diff"])
        outcome = ("not distinguishable" if p >= ALPHA or diff == 0
                   else "above" if diff > 0 else "below")
        base = Cell.of(row)
        comparisons.append(Comparison(
            f"{row['representation']} {row['dataset']} {row['row']} {row['metric']}",
            Cell(base.mean + diff, 0.0, base.runs), base, outcome,
            f"{row['ic_test']} p = {p:.2g}"))
    return every(comparisons, "the IC rows")


def significance_marks(tables) -> Verdict:
    frame = _frame(tables)
    if frame is None:
        return absent("Tables 2-5")
    marked = frame[frame["paper_star"].astype(str) == "True"]
    ours = marked[marked["star"].astype(str) == "True"]
    return count(len(ours), len(marked), len(marked),
                 "cells the paper marks * (significantly below HAC_SD_IC) are significantly "
                 "below it here too (paired or Welch t-test, as the table says)")


CLAIMS = [
    Claim("HAC_SD_IC best", "for most of the datasets (except GoogleNews-TS) the best "
          "result (ACC, NMI) was obtained by HAC_SD_IC (section 5.2)",
          "Tables 2-5 (`table2.csv` to `table5.csv`): in each (representation, set) cell, "
          "HAC_SD_IC against every other row in ACC and NMI, Welch (one-sample against a "
          "deterministic row); best where no row is significantly above it; holds on more "
          "than half the cells.", hac_sd_ic_best, headline=True),
    Claim("IC improves every initial clustering", "iterative classification improves the "
          "initial clustering in terms of both ACC and NMI (section 5.2, Tables 2-5)",
          "Tables 2-5: each initial row (k-means, k-means--, HAC, HAC_kNN, HAC_SD) against "
          "its _IC row, the table's own test (paired over seeds, one-sample against a "
          "deterministic row); holds only if significantly above everywhere.",
          ic_improves, headline=True),
    Claim("significance marks", "the rows marked * are significantly inferior to HAC_SD_IC "
          "(Tables 2-5)", "Tables 2-5: of the cells the paper marks *, how many are "
          "significantly below HAC_SD_IC here too; holds if all.", significance_marks),
]


def agreement(tables) -> Agreement | None:
    frame = _frame(tables)
    if frame is None:
        return None
    rows = frame[(frame["representation"] == DECLARED) & frame["paper_mean"].notna()
                 & frame["paper_std"].notna() & (frame["runs"] >= 2)]
    agree = sum(compare("", Cell.of(r), Cell(float(r["paper_mean"]), float(r["paper_std"]),
                                              20)).outcome == "not distinguishable"
                for _, r in rows.iterrows())
    return Agreement(agree, len(rows), f"{DECLARED} (the paper's kind of representation) "
                     "cells of Tables 2-5 whose paper cell has a std, not distinguishable "
                     "from the paper's mean ± std over its 20 runs by Welch's t-test")


def exploratory(tables) -> list[Exploratory]:
    gap = tables("hac_sd_gap")
    return [] if gap is None else [Exploratory(
        "hac_sd_gap.md", len(gap), "HAC_SD on SearchSnippet-test under other linkage "
        "libraries, inputs and settings, looking for the paper's number")]


REPRODUCED = [
    Reproduced("Tables 2-3 (`table2.md`, `table3.md`)", "regenerated",
               "ACC and NMI on SearchSnippet(-test), StackOverflow, AgNews; BioMedical is "
               "not in our data"),
    Reproduced("Tables 4-5 (`table4.md`, `table5.md`)", "regenerated",
               "ACC and NMI on Tweet and Google News"),
    Reproduced("Appendix Figures 1-2 (`figure1.md`, `figure2.md`)", "regenerated", ""),
]


def write(job) -> None:
    """The paper's claims on the tables just written: claims.md, claims.csv, the status."""
    from shortclust.pipeline.claims import write_claims

    tables = Tables(job.results_dir / job.paper)
    write_claims(job, "Iterative classification (Rakib et al.)", CLAIMS, exploratory(tables),
                 reproduced=REPRODUCED, agreement=agreement(tables))
