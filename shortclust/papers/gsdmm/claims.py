"""Yin & Wang (KDD 2014): the paper's claims that our tables can test, with verdicts.

Every baseline row the tables hold is compared with GSDMM, so rows added later (DMAFP, the
modern baselines) get a claim of their own; the paper's baselines are its headline claims.
"""

from __future__ import annotations

from shortclust.pipeline.claims import (
    Agreement, Cell, Claim, Exploratory, Reproduced, Tables, Verdict, absent, compare, count,
    every, write_claims,
)
from shortclust.papers.gsdmm.reported import TRUE_K

#: The paper's five metrics, as our tables name them: its AMI is scikit-learn's of 2014,
#: normalised by the larger entropy (``ami_max``).
METRICS = ("nmi", "homogeneity", "completeness", "ari", "ami_max")
#: Baselines the paper compares GSDMM with (Figure 2: Tweet; Table 2: Google News).
PAPER_BASELINES = ("K-means", "HAC Ward", "HAC average", "DMAFP")
#: Largest change of NMI that "stable" allows (declared with the claims, before reading).
STABLE = 0.02


def _cells(frame, model: str, dataset: str | None = None) -> dict:
    rows = frame[frame["model"] == model]
    if dataset is not None:
        rows = rows.assign(dataset=dataset)
    return {(r["dataset"], r["metric"]): Cell.of(r) for _, r in rows.iterrows()
            if r["metric"] in METRICS}


def _all_cells(tables) -> dict[str, dict]:
    """Model -> {(dataset, metric): Cell} over Table 2 (Google News) and Figure 2 (Tweet)."""
    found: dict[str, dict] = {}
    for name, dataset in (("table2", None), ("figure2", "Tweet")):
        frame = tables(name)
        if frame is None:
            continue
        for model in frame["model"].unique():
            found.setdefault(model, {}).update(_cells(frame, model, dataset))
    return found


def above(baseline: str):
    def evaluate(tables) -> Verdict:
        cells = _all_cells(tables)
        if "GSDMM" not in cells or baseline not in cells:
            return absent(f"the {baseline} row")
        gsdmm, other = cells["GSDMM"], cells[baseline]
        return every([compare(f"{d} {m}", gsdmm[(d, m)], other[(d, m)])
                      for (d, m) in gsdmm if (d, m) in other], baseline)
    return evaluate


def true_k(tables) -> Verdict:
    frame = tables("k")
    if frame is None:
        return absent("k.csv")
    rows = frame[frame["n_clusters"] >= 300]
    near = [r for _, r in rows.iterrows()
            if TRUE_K[r["dataset"]] / 1.5 <= r["n_clusters_mean"] <= 1.5 * TRUE_K[r["dataset"]]]
    verdict = count(len(near), len(rows), len(rows),
                    "cells (K >= 300 on each set) find between 2/3 and 3/2 of the true number")
    found = ", ".join(f"{d} {g['n_clusters_mean'].min():.0f}-{g['n_clusters_mean'].max():.0f} "
                      f"(true {TRUE_K[d]})" for d, g in rows.groupby("dataset", sort=False))
    return Verdict(verdict.status, f"{verdict.evidence}: {found}")


def stable(name: str, param: str, at, against):
    """NMI at ``param = at`` within :data:`STABLE` of NMI at ``against`` on every set,
    unless the difference is not significant."""
    def evaluate(tables) -> Verdict:
        frame = tables(name)
        if frame is None:
            return absent(f"{name}.csv")
        comparisons = []
        for dataset, rows in frame.groupby("dataset", sort=False):
            one, other = rows[rows[param] == at], rows[rows[param] == against]
            if len(one) and len(other):
                comparisons.append(compare(dataset, Cell.of(one.iloc[0], "nmi_"),
                                           Cell.of(other.iloc[0], "nmi_")))
        if not comparisons:
            return absent(f"{param} = {at} and {against} in {name}.csv")
        off = [c for c in comparisons if c.outcome != "not distinguishable"
               and abs(c.first.mean - c.second.mean) > STABLE]
        text = "; ".join(f"{c.where} {c.first.mean:.3f} vs {c.second.mean:.3f} ({c.test})"
                         for c in comparisons)
        return Verdict("fails" if off else "holds",
                       f"NMI at {param} {at} vs {against}: {text}")
    return evaluate


def fewer_clusters_with_beta(tables) -> Verdict:
    frame = tables("beta")
    if frame is None:
        return absent("beta.csv")
    comparisons = []
    for dataset, rows in frame.groupby("dataset", sort=False):
        rows = rows.sort_values("beta")
        comparisons.append(compare(f"{dataset} beta {rows['beta'].iloc[0]:g} vs "
                                   f"{rows['beta'].iloc[-1]:g}",
                                   Cell.of(rows.iloc[0], "n_clusters_"),
                                   Cell.of(rows.iloc[-1], "n_clusters_")))
    return every(comparisons, "beta.csv")


def claims(tables=None) -> list[Claim]:
    found = sorted(set(_all_cells(tables)) - {"GSDMM"} if tables is not None else set())
    baselines = list(PAPER_BASELINES) + [b for b in found if b not in PAPER_BASELINES]
    listed = [Claim(f"above {b}",
                    ("GSDMM performs significantly better than " + b + " in all five metrics "
                     "(section 4.3: Figure 2, Tweet; Table 2, Google News)")
                    if b in PAPER_BASELINES else
                    f"(not the paper's) GSDMM above {b}, a baseline the paper does not run",
                    "`table2.csv` and `figure2.csv`: GSDMM against the row in every cell it "
                    "has (set x NMI, homogeneity, completeness, ARI, AMI normalised by the "
                    "larger entropy); holds only if GSDMM is significantly above in every one.",
                    above(b), headline=b in PAPER_BASELINES)
              for b in baselines]
    return listed + [
        Claim("true K", "the number of clusters found is near the true number once K is "
              "large enough (section 4.5, Figure 5)",
              "`k.csv`, K >= 300: the mean number of non-empty clusters within a factor "
              "1.5 of the true number (152 Google News, 89 Tweet) in every cell.",
              true_k, headline=True),
        Claim("iterations", "stable performance with about five iterations on all four "
              "datasets (section 4.4, Figure 4)",
              f"`iterations.csv`: NMI at 5 iterations against 30, Welch; fails where "
              f"significantly different by more than {STABLE}.",
              stable("iterations", "max_iter", 5, 30)),
        Claim("alpha", "performance stable with different values of alpha (section 4.6, "
              "Figure 8)", f"`alpha.csv`: NMI at alpha 1 (the largest tested) against 0.1 "
              f"(the paper's setting), Welch; fails where significantly different by more "
              f"than {STABLE}.", stable("alpha", "alpha", 1.0, 0.1)),
        Claim("beta", "fewer clusters as beta grows (section 4.7, Figure 9)",
              "`beta.csv`: clusters found at the smallest beta above those at the largest, "
              "every set.", fewer_clusters_with_beta),
        Claim("K", "performance stable once K exceeds the true number (section 4.5, "
              "Figure 6)", f"`k.csv`: NMI at K = 500 against K = 300, Welch; fails where "
              f"significantly different by more than {STABLE}.", stable("k", "n_clusters",
                                                                          500, 300)),
    ]


#: K-means's vectors were varied to find the paper's K-means (results/gsdmm/README.md:
#: unit-length TF-IDF, TF-IDF unscaled, 0/1 counts unscaled, raw counts); only unit TF-IDF,
#: the declared setting, and raw counts have rows.
EXPLORATORY = [Exploratory("table2.md, the 'K-means raw counts' row", 4,
                           "K-means's vectors, varied to find the paper's K-means (its "
                           "agreement with the paper is a finding of that search)")]


def reproduced(tables) -> list[Reproduced]:
    cells = _all_cells(tables)
    dmafp = "DMAFP" in cells
    scaling = tables("table3")
    measured = 0 if scaling is None else int(
        ((scaling["model"] == "dmafp") & (scaling["status"] == "ok")).sum())
    sizes = 0 if scaling is None else int((scaling["model"] == "dmafp").sum())
    table3_done = dmafp and sizes > 0 and measured == sizes
    return [
        Reproduced("Table 2 (`table2.md`)", "regenerated" if dmafp else "partial",
                   "GSDMM and K-means on the three Google News sets, 20 runs" +
                   ("; DMAFP 10 runs of 1 initialisation (the paper: 20 of 20)" if dmafp
                    else "; DMAFP (a baseline of the paper) is not implemented")),
        Reproduced("Figure 2 (`figure2.md`)", "regenerated" if dmafp else "partial",
                   "Tweet: GSDMM, K-means, HAC (Ward and average)" +
                   (", DMAFP (10 runs)" if dmafp else "; DMAFP absent")),
        Reproduced("Figures 3-10 (`iterations`, `k`, `alpha`, `beta`)", "regenerated",
                   "every set, 20 runs per point"),
        Reproduced("Table 3 (`table3.md`)", "regenerated" if table3_done else "partial",
                   "scaling of GSDMM, K-means, MiniBatch K-means" +
                   ("" if table3_done else
                    f"; DMAFP measured on {measured} of {sizes} sizes" if dmafp
                    else "; DMAFP absent")),
    ]


def agreement(tables) -> Agreement | None:
    frame = tables("table2")
    if frame is None:
        return None
    rows = frame[frame["metric"].isin(METRICS) & frame["paper_mean"].notna()
                 & ~frame["model"].str.contains("raw counts")]
    agree = sum(compare("", Cell.of(r), Cell(float(r["paper_mean"]),
                                             float(r["paper_std"]), 20)).outcome
                == "not distinguishable" for _, r in rows.iterrows())
    return Agreement(agree, len(rows), "Table 2 cells of the paper's rows at the paper's "
                     "settings, each not distinguishable from the paper's mean ± std over its "
                     "20 runs by Welch's t-test; AMI normalised by the larger entropy; "
                     "K-means on raw counts, a second setting, left out")


def write(job) -> None:
    """The paper's claims on the tables just written: claims.md, claims.csv, the status."""
    tables = Tables(job.results_dir / job.paper)
    write_claims(job, "GSDMM (Yin & Wang, KDD 2014)", claims(tables), EXPLORATORY,
                 reproduced=reproduced(tables), agreement=agreement(tables))
