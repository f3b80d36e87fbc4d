"""What the iterative-classification paper (Rakib et al.) reports, transcribed.

Tables 2-5 (ACC and NMI of five initial clusterings with and without IC, the paper's
baselines), their layout (rows, columns, the paper's ``*`` marks) and the Appendix
figures' best values. The text copy of the paper lost its other mark (a base row
significantly below its ``_IC`` row), so only the ``*`` marks are transcribed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Our dataset name -> (the paper's name, true number of clusters K; Table 1).
DATASETS = {
    "SearchSnippets": ("SearchSnippet", 8),
    "SearchSnippets-test": ("SearchSnippetTest", 8),
    "AgNews-8000": ("AgNews", 4),
    "StackOverflow": ("StackOverflow", 20),
    "BioMedical": ("BioMedical", 20),
    "Tweet": ("Tweet", 89),
    "GoogleNews-TS": ("GoogleNews-TS", 152),
    "GoogleNews-T": ("GoogleNews-T", 152),
    "GoogleNews-S": ("GoogleNews-S", 152),
}
#: Columns of Tables 2-3 (fewer clusters) and of Tables 4-5 (more clusters), in order.
SMALL = ["SearchSnippets", "SearchSnippets-test", "AgNews-8000", "StackOverflow", "BioMedical"]
LARGE = ["Tweet", "GoogleNews-TS", "GoogleNews-T", "GoogleNews-S"]

#: The initial clusterings, the paper's row order; the HAC rows are deterministic (the
#: paper gives them no std), so each runs once.
METHODS = ["HAC_SD", "HAC_kNN", "HAC", "k-means", "k-means--"]
DETERMINISTIC = ["HAC_SD", "HAC_kNN", "HAC"]
#: The paper's best row, which its ``*`` marks compare every other row with.
BEST = "HAC_SD_IC"
#: Row suffixes: IC with 50 iterations (the paper's rows, as the authors' code runs) and
#: IC with the stopping rule of section 3.3 (a section of each of our tables).
FIXED, STOPPED = "_IC", "_IC (3.3)"
#: Rows with the paper's numbers only (not run here).
PAPER_ONLY = ("STC2-LE", "SIF-Auto")
ROWS = [row for method in METHODS for row in (method, method + FIXED)]
#: Rows of each table, the paper's order; the stopping-rule rows are a section of their own.
TABLE_ROWS = {"small": ROWS + [*PAPER_ONLY, "GSDPMM"], "large": ROWS + ["GSDPMM"]}
#: item -> (metric, datasets, the paper's table number).
TABLES = {"table2": ("acc", SMALL, 2), "table3": ("nmi", SMALL, 3),
          "table4": ("acc", LARGE, 4), "table5": ("nmi", LARGE, 5)}

# Tables 2 (ACC) and 3 (NMI): the SMALL datasets; after "|", Tables 4 (ACC) and 5 (NMI):
# the LARGE datasets. A cell is mean[*][±std] in percent, as printed; "-" where the paper
# has no number (STC2-LE and SIF-Auto were run on SearchSnippet, StackOverflow and
# BioMedical only, footnote 8). The HAC rows have no std: HAC is deterministic.
PAPER_TEXT = {
    "acc": {
        "HAC_SD": "82.69 89.47 81.84 64.80 40.13 | 89.62 85.76 81.75 80.63",
        "HAC_SD_IC": "87.67±0.63 92.16±0.85 84.52±0.50 78.73±0.17 47.78±0.51 "
                     "| 91.52±0.99 92.25±0.10 87.18±0.21 89.02±0.12",
        "HAC_kNN": "79.08* 87.14* 76.83* 58.11* 39.75* | 88.14* 85.56* 82.53* 78.77*",
        "HAC_kNN_IC": "83.19*±0.61 90.76*±1.79 81.83*±0.35 70.07*±0.11 46.17*±1.10 "
                      "| 90.09*±0.38 91.24*±0.15 85.86*±0.31 86.99*±0.34",
        "HAC": "76.54* 77.06* 76.56* 61.64* 38.86* | 87.94* 88.61* 81.54* 79.03*",
        "HAC_IC": "80.63*±0.69 83.92*±2.66 81.13*±1.22 67.69*±2.12 46.13*±0.92 "
                  "| 91.45±0.28 93.56±0.27 85.52*±0.33 88.33±0.18",
        "k-means": "63.89*±1.15 63.22*±1.79 58.17*±1.87 41.54*±2.16 36.92*±0.81 "
                   "| 82.85*±0.24 83.63*±0.76 78.15*±0.53 77.23*±0.66",
        "k-means_IC": "83.13*±0.69 82.84*±2.32 78.06*±3.13 69.89*±1.52 43.50*±1.38 "
                      "| 86.24*±1.27 85.52*±1.34 84.46*±0.62 84.88*±0.69",
        "k-means--": "47.42*±1.13 61.96*±1.98 62.48*±2.13 43.77*±0.39 39.95*±1.21 "
                     "| 84.18*±0.19 80.07*±0.88 71.83*±0.76 72.18*±1.11",
        "k-means--_IC": "79.77*±2.67 75.29*±2.79 77.45*±3.49 69.25*±1.88 45.61*±3.19 "
                        "| 87.67*±1.35 83.77*±1.14 81.70*±0.71 82.65*±0.77",
        "STC2-LE": "78.29*±2.72 - - 53.81*±3.37 44.81*±1.72 | - - - -",
        "SIF-Auto": "79.13*±1.27 - - 59.85*±1.81 55.73±1.97 | - - - -",
        "GSDPMM": "38.67*±2.78 50.91*±2.19 39.53*±1.89 29.36*±1.47 28.09*±1.81 "
                  "| 84.39*±2.19 79.51*±2.73 74.88*±1.93 71.04*±2.16",
    },
    "nmi": {
        "HAC_SD": "63.76 78.73 54.57 59.48 33.51 | 85.19 87.97 84.17 83.51",
        "HAC_SD_IC": "71.93±1.04 85.55±1.09 59.07±0.84 73.44±0.35 41.27±0.36 "
                     "| 86.87±0.13 93.21±0.14 87.87±1.00 89.96±0.11",
        "HAC_kNN": "60.51* 76.42* 52.43* 54.06* 32.19* | 84.65* 88.51* 85.62* 82.69*",
        "HAC_kNN_IC": "65.49*±0.97 83.17*±1.17 56.02*±0.86 68.88*±0.43 38.78*±0.53 "
                      "| 86.02±0.25 93.34±0.14 86.93±0.16 87.71*±0.16",
        "HAC": "59.41* 70.99* 52.82* 54.46* 31.01* | 83.87* 90.32* 85.27* 82.26*",
        "HAC_IC": "63.61*±1.09 77.49*±1.11 56.57*±1.23 61.76*±1.35 38.50*±0.61 "
                  "| 86.35±0.28 94.40±0.11 86.76±0.17 89.85±0.18",
        "k-means": "43.75*±1.31 51.54*±0.92 35.26*±2.01 38.01*±2.12 33.71*±0.29 "
                   "| 79.86*±0.25 86.65*±0.83 81.52*±0.41 80.88*±0.84",
        "k-means_IC": "66.27±1.00 76.88±2.64 52.32±2.47 69.84±0.66 38.08±0.81 "
                      "| 83.46*±1.01 91.97*±0.41 86.45*±0.30 87.10*±0.28",
        "k-means--": "47.43*±1.65 49.73*±2.15 39.68*±1.15 41.89*±0.86 34.49*±1.93 "
                     "| 80.37*±0.79 83.72*±1.34 70.78*±0.81 78.46*±1.63",
        "k-means--_IC": "63.01*±1.69 71.11*±2.40 51.05*±3.63 69.64*±1.28 35.63*±2.82 "
                        "| 84.51*±1.21 92.11*±0.40 85.70*±0.34 86.42*±0.43",
        "STC2-LE": "64.72*±1.37 - - 49.51*±1.63 38.42*±0.87 | - - - -",
        "SIF-Auto": "57.72*±1.43 - - 55.59*±1.23 47.21±1.19 | - - - -",
        "GSDPMM": "40.57*±1.86 48.96*±2.38 42.83*±2.14 30.62*±1.13 32.04*±1.58 "
                  "| 86.13±1.91 91.92*±2.25 86.19*±2.07 86.69*±2.21",
    },
}
_CELL = re.compile(r"^(\d+\.\d+)(\*?)(?:±(\d+\.\d+))?$")


@dataclass(frozen=True)
class Reported:
    """One number of the paper: mean and std in percent (std None: one run), its * mark."""

    mean: float
    std: float | None
    star: bool


def parse_reported(texts: dict) -> dict:
    """``{metric: {row: {dataset: Reported}}}`` from text like :data:`PAPER_TEXT`."""
    parsed = {}
    for metric, rows in texts.items():
        parsed[metric] = {}
        for row, text in rows.items():
            small, large = (part.split() for part in text.split("|"))
            if (len(small), len(large)) != (len(SMALL), len(LARGE)):
                raise ValueError(f"{metric} {row}: expected {len(SMALL)} | {len(LARGE)} cells")
            cells = {}
            for dataset, token in zip(SMALL + LARGE, small + large):
                if token == "-":
                    continue
                match = _CELL.match(token)
                if match is None:
                    raise ValueError(f"{metric} {row} {dataset}: cannot read {token!r}")
                std = float(match.group(3)) if match.group(3) else None
                cells[dataset] = Reported(float(match.group(1)), std, match.group(2) == "*")
            parsed[metric][row] = cells
    return parsed


#: The paper's Tables 2-5: ``PAPER[metric][row][dataset]`` is a :class:`Reported`.
PAPER = parse_reported(PAPER_TEXT)

#: Appendix figures: the paper's best ACC and where (its only numbers for the curves).
FIGURE_DATASETS = ["SearchSnippets-test", "Tweet"]
FIGURE_PAPER = {
    "figure1": {"SearchSnippets-test": (0.60, 80.25), "Tweet": (0.60, 84.88)},
    "figure2a": {"SearchSnippets-test": (0.50, 81.95), "Tweet": (0.50, 87.58)},
    "figure2b": {"SearchSnippets-test": (0.95, 82.21), "Tweet": (0.90, 87.70)},
}


def _grid(start: float, stop: float) -> list[float]:
    return [round(start + 0.05 * i, 2) for i in range(round((stop - start) / 0.05) + 1)]


#: Appendix A.1: fixed P = P1 = P2 from 0.40 to 0.95; A.2: P1 from 0.40 to 0.85 with
#: P2 = 0.90 (Figure 2a), then P2 from 0.55 to 0.95 with P1 = 0.5 (Figure 2b).
FIGURE_GRIDS = {
    "figure1": [(p, p) for p in _grid(0.40, 0.95)],
    "figure2a": [(p1, 0.90) for p1 in _grid(0.40, 0.85)],
    "figure2b": [(0.50, p2) for p2 in _grid(0.55, 0.95)],
}
