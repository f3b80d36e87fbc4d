"""Banerjee & Basu (SDM 2007): the paper's claims that our tables can test.

Only the paper's five 20 Newsgroups sets count (rows with the paper's nMI); our extension
streams (MStream-News-T, CrisisLexT26) are in the tables but not in these verdicts.
"""

from __future__ import annotations

from shortclust.pipeline.claims import (
    Agreement, Cell, Claim, Exploratory, Reproduced, Tables, Verdict, absent, compare, every,
    most, write_claims,
)

BATCH = ("vMF", "EDCM", "LDA")
#: How close to the paper's nMI a cell must be to count as agreeing (the paper gives no
#: std, so no test is possible; declared before the tables were read).
TOLERANCE = 0.05


def _paper_rows(frame):
    return frame[frame["paper_nmi"].notna()]


def _cells(frame) -> dict:
    return {(r["dataset"], r["model"]): Cell.of(r) for _, r in _paper_rows(frame).iterrows()}


def vmf_best_most(tables) -> Verdict:
    frame = tables("table2")
    if frame is None:
        return absent("table2.csv")
    cells = _cells(frame)
    datasets = list(dict.fromkeys(d for d, _ in cells))
    top, lost, per = [], [], []
    for dataset in datasets:
        here = [compare(f"{dataset} vs {m}", cells[(dataset, "vMF")], cells[(dataset, m)])
                for m in BATCH[1:] if (dataset, m) in cells and (dataset, "vMF") in cells]
        if here and all(c.outcome == "above" for c in here):
            top.append(dataset)
        elif any(c.outcome == "below" for c in here):
            lost.append(dataset)
        per.append(f"{dataset} vMF {here[0].first.mean:.3f}, " + ", ".join(
            f"{c.where.split(' vs ')[1]} {c.second.mean:.3f} ({c.test})" for c in here))
    half = len(datasets) / 2
    status = ("holds" if len(top) > half else
              "fails" if len(datasets) - len(lost) <= half else "not distinguishable")
    return Verdict(status, f"vMF significantly above both other batch models on "
                   f"{len(top)} of {len(datasets)} sets ({', '.join(top) or 'none'}), below "
                   f"one on {len(lost)}: " + "; ".join(per))


def online_below_batch(tables) -> Verdict:
    batch, online = tables("table2"), tables("table4")
    if batch is None or online is None:
        return absent("table2.csv or table4.csv")
    b, o = _cells(batch), _cells(online)
    return most([compare(f"{d} {m} vs o-{m}", b[(d, m)], o[(d, f"o-{m}")])
                  for (d, m) in b if (d, f"o-{m}") in o], "table4.csv")


def ovmf_above(tables) -> Verdict:
    online = tables("table4")
    if online is None:
        return absent("table4.csv")
    o = _cells(online)
    return every([compare(f"{d} vs {m}", o[(d, "o-vMF")], o[(d, m)])
                  for (d, m) in o if m in ("o-LDA", "o-EDCM") and (d, "o-vMF") in o],
                 "table4.csv")


def hybrid_above_online(tables) -> Verdict:
    frame = tables("figure1")
    if frame is None:
        return absent("figure1.csv")
    comparisons = []
    for dataset, rows in frame.groupby("dataset", sort=False):
        last = {m: g.sort_values("fraction").iloc[-1] for m, g in rows.groupby("model")}
        if "h-vMF" in last and "o-vMF" in last:
            comparisons.append(compare(f"{dataset} (end of stream)",
                                       Cell.of(last["h-vMF"], "nmi_"),
                                       Cell.of(last["o-vMF"], "nmi_")))
    return every(comparisons, "h-vMF and o-vMF in figure1.csv")


CLAIMS = [
    Claim("vMF best for most sets", "vMF performs best on most of the datasets (section 4, "
          "Table 2; abstract: 'vMF provides the best overall performance for batch document "
          "clustering')", "`table2.csv` (the default preprocessing, the pre-declared "
          "setting): on each of the paper's five sets, vMF against EDCM and LDA, Welch over "
          "5 seeds; holds if vMF is significantly above both on more than half the sets.",
          vmf_best_most, headline=True),
    Claim("online below batch", "in general, the online algorithms give worse nMI than the "
          "corresponding batch algorithms (section 4, Tables 2 and 4)",
          "`table2.csv` against `table4.csv`: each batch model above its online version on "
          "each of the five sets, Welch; 'in general' read as: holds if the batch model is significantly above in more than half the 15 cells.", online_below_batch, headline=True),
    Claim("o-vMF above o-LDA and o-EDCM", "o-vMF substantially outperforms o-LDA and "
          "o-EDCM for all datasets (section 4, Table 4)",
          "`table4.csv`: o-vMF against o-LDA and o-EDCM on each of the five sets, Welch.",
          ovmf_above, headline=True),
    Claim("h-vMF above o-vMF", "intermittent batch processing improves the clustering "
          "(section 4, Figure 1)", "`figure1.csv`: h-vMF against o-vMF at the end of the "
          "stream on each set, Welch.", hybrid_above_online),
]


def agreement(tables) -> Agreement | None:
    frame = tables("table2")
    if frame is None:
        return None
    rows = _paper_rows(frame)
    near = int(((rows["mean"] - rows["paper_nmi"]).abs() <= TOLERANCE).sum())
    return Agreement(near, len(rows), f"Table 2 cells within {TOLERANCE} nMI of the paper at "
                     "the default preprocessing and model settings, the same for every cell "
                     "(the paper gives no std, so no test)")


def exploratory(tables) -> list[Exploratory]:
    found = []
    dims, cells = tables("table2_dims"), tables("table2_cells")
    if dims is not None:
        n = int(dims.groupby(["model", "dataset"])["preprocess"].nunique().max())
        found.append(Exploratory("table2_dims.md", n, "Table 2's cells at other "
                                 "preprocessings (vocabulary size, headers kept)"))
    if cells is not None:
        n = int(cells.groupby(["model", "dataset"]).size().max())
        found.append(Exploratory("table2_cells.md", n, "Table 2's cells at other model "
                                 "settings the paper leaves unstated, at each preprocessing"))
    return found


REPRODUCED = [
    Reproduced("Table 2 (`table2.md`)", "regenerated", "batch vMF, EDCM, LDA on the five "
               "20 Newsgroups sets, 5 runs"),
    Reproduced("Table 3 (`table3.md`)", "regenerated", "top words (the paper's slash-7 "
               "set is not public: on a 20 Newsgroups set)"),
    Reproduced("Table 4 (`table4.md`)", "regenerated", "online vMF, EDCM, LDA, 5 runs"),
    Reproduced("Figure 1 (`figure1.md`)", "regenerated", "h-vMF against the stream fraction"),
]


def write(job) -> None:
    """The paper's claims on the tables just written: claims.md, claims.csv, the status."""
    tables = Tables(job.results_dir / job.paper)
    write_claims(job, "Banerjee & Basu (SDM 2007)", CLAIMS, exploratory(tables),
                 reproduced=REPRODUCED, agreement=agreement(tables))
