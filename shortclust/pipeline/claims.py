"""A paper's claims as code: each evaluated from the committed tables, with a verdict.

A paper package declares its claims (``papers/<paper>/claims.py``): what the paper says,
where, and a function of :class:`Tables` (the CSVs ``reproduce`` wrote from the archived
records) that compares cells by the test their evidence allows and returns a
:class:`Verdict`:

- ``holds``: every cell the claim names (or the share it names) goes the claimed way,
  significantly (two-tailed t-test over seeds at :data:`ALPHA`);
- ``fails``: a cell goes significantly against it (or too few cells can go its way);
- ``not distinguishable``: no cell goes against it, but not enough go its way
  significantly at our run count;
- ``absent``: a table or row the claim needs is not in this checkout (a baseline not
  implemented yet): no verdict, never a failure.

Cells are compared by Welch's t-test from their mean, sample std and run count (the runs
of two methods start from their own random states, so they are not paired), by a
one-sample t-test where one side is deterministic (one run), by their values where both
are. :func:`write_claims` writes ``results/<paper>/claims.md`` and ``claims.csv``; the
status table of every paper (:mod:`shortclust.pipeline.status`) reads the CSVs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from shortclust.pipeline.status import write_status

#: Significance level of every test here.
ALPHA = 0.05
HOLDS, FAILS, UNDECIDED, ABSENT = "holds", "fails", "not distinguishable", "absent"
VERDICTS = (HOLDS, FAILS, UNDECIDED, ABSENT)
ABOVE, BELOW, TIED = "above", "below", "not distinguishable"


@dataclass(frozen=True)
class Cell:
    """One table cell: ``mean``, sample ``std`` and the number of ``runs`` behind it."""

    mean: float
    std: float
    runs: int

    @classmethod
    def of(cls, row, prefix: str = "") -> "Cell":
        """From a CSV row with ``<prefix>mean``, ``<prefix>std``, ``<prefix>runs`` (or
        ``runs``)."""
        runs = row.get(f"{prefix}runs", row.get("runs"))
        std = row.get(f"{prefix}std")
        return cls(float(row[f"{prefix}mean"]),
                   0.0 if std is None or _nan(std) else float(std), int(runs))


def _nan(value) -> bool:
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return True


@dataclass(frozen=True)
class Comparison:
    """``first`` against ``second`` at one place (``where``): the outcome and its test."""

    where: str
    first: Cell
    second: Cell
    outcome: str
    test: str


def compare(where: str, first: Cell, second: Cell, alpha: float = ALPHA,
            lower_is_better: bool = False) -> Comparison:
    """Whether ``first`` is above, below or not distinguishable from ``second``.

    With ``lower_is_better`` (perplexity), ``above`` means better, that is lower.
    """
    from scipy import stats

    diff = first.mean - second.mean
    if first.runs >= 2 and second.runs >= 2:
        if first.std == 0 and second.std == 0:
            p, name = (0.0 if diff else 1.0), "no variance"
        else:
            p = float(stats.ttest_ind_from_stats(first.mean, first.std, first.runs,
                                                 second.mean, second.std, second.runs,
                                                 equal_var=False).pvalue)
            name = "Welch"
    elif max(first.runs, second.runs) >= 2:
        # One side deterministic: a one-sample t-test of the other against its value.
        varied, fixed = (first, second) if first.runs >= 2 else (second, first)
        if varied.std == 0:
            p = 0.0 if diff else 1.0
        else:
            t = (varied.mean - fixed.mean) / (varied.std / math.sqrt(varied.runs))
            p = float(2 * stats.t.sf(abs(t), varied.runs - 1))
        name = "one-sample"
    else:
        p, name = (0.0 if diff else 1.0), "one run each"
    if not math.isfinite(p):
        p = 1.0
    if lower_is_better:
        diff = -diff
    outcome = TIED if p >= alpha or diff == 0 else (ABOVE if diff > 0 else BELOW)
    test = name if name == "one run each" else f"{name} p = {p:.2g}"
    return Comparison(where, first, second, outcome, test)


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict and the numbers behind it (one line)."""

    status: str
    evidence: str


def absent(what: str) -> Verdict:
    return Verdict(ABSENT, f"{what} is not in this checkout's tables: no verdict")


def _listing(comparisons: list[Comparison], limit: int = 6) -> str:
    shown = [f"{c.where} {c.first.mean:.3g} vs {c.second.mean:.3g} ({c.test})"
             for c in comparisons[:limit]]
    more = len(comparisons) - limit
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def tally(comparisons: list[Comparison]) -> dict[str, list[Comparison]]:
    return {kind: [c for c in comparisons if c.outcome == kind] for kind in (ABOVE, BELOW, TIED)}


def counts_text(comparisons: list[Comparison]) -> str:
    found = tally(comparisons)
    return (f"above in {len(found[ABOVE])} of {len(comparisons)} cells, below in "
            f"{len(found[BELOW])}, not distinguishable in {len(found[TIED])}")


def every(comparisons: Iterable[Comparison], what: str = "the claimed side") -> Verdict:
    """A claim about every cell: holds if ``first`` is significantly above in all; fails if
    it is significantly below in any; otherwise not distinguishable."""
    comparisons = list(comparisons)
    if not comparisons:
        return absent(what)
    found = tally(comparisons)
    text = counts_text(comparisons)
    if found[BELOW]:
        return Verdict(FAILS, f"{text}; below: {_listing(found[BELOW])}")
    if found[TIED]:
        return Verdict(UNDECIDED, f"{text}; not distinguishable: {_listing(found[TIED])}")
    return Verdict(HOLDS, text)


def most(comparisons: Iterable[Comparison], what: str = "the claimed side") -> Verdict:
    """A claim about most cells: holds if ``first`` is significantly above in more than
    half; fails if it cannot be (above plus undecided at most half); else undecided."""
    comparisons = list(comparisons)
    if not comparisons:
        return absent(what)
    found = tally(comparisons)
    half = len(comparisons) / 2
    text = counts_text(comparisons)
    if len(found[ABOVE]) > half:
        return Verdict(HOLDS, text)
    if len(found[ABOVE]) + len(found[TIED]) > half:
        return Verdict(UNDECIDED, text)
    return Verdict(FAILS, f"{text}; below: {_listing(found[BELOW])}")


def count(held: int, cells: int, needed: int, what: str) -> Verdict:
    """A claim counted in cells, each already decided: holds if ``held >= needed``."""
    if cells == 0:
        return absent(what)
    status = HOLDS if held >= needed else FAILS
    return Verdict(status, f"{held} of {cells} {what}")


class Tables:
    """The CSVs of one paper's results folder, read on demand (None if absent)."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self._frames: dict[str, pd.DataFrame | None] = {}

    def __call__(self, name: str) -> pd.DataFrame | None:
        if name not in self._frames:
            path = self.folder / f"{name}.csv"
            frame = pd.read_csv(path) if path.is_file() else None
            if frame is not None and "mean" in frame.columns:
                # A row with no runs yet (a baseline listed but not fitted) is absent.
                frame = frame[frame["mean"].notna()]
            self._frames[name] = frame
        return self._frames[name]


@dataclass(frozen=True)
class Claim:
    """One of a paper's claims that its tables can test.

    Attributes
    ----------
    key : str
        Short name (the CSV's ``claim`` column).
    says : str
        What the paper claims, where (section, table or figure).
    evidence : str
        Which committed table(s) test it, and how (test, cells, rule).
    evaluate : callable
        Tables -> Verdict.
    headline : bool
        One of the paper's headline claims (shown in the status table).
    """

    key: str
    says: str
    evidence: str
    evaluate: Callable[[Tables], Verdict]
    headline: bool = False


@dataclass(frozen=True)
class Exploratory:
    """A per-cell search kept beside the tables, never counted in a headline."""

    file: str
    settings: int
    what: str


def evaluate_claims(folder, claims: list[Claim]) -> list[tuple[Claim, Verdict]]:
    tables = Tables(folder)
    return [(claim, claim.evaluate(tables)) for claim in claims]


def claims_markdown(title: str, verdicts: list[tuple[Claim, Verdict]],
                    exploratory: list[Exploratory] = (), footer: str = "") -> str:
    totals = {v: sum(1 for _, verdict in verdicts if verdict.status == v) for v in VERDICTS}
    lines = [f"# {title}: the paper's claims, tested on our tables", "",
             "Verdicts: " + ", ".join(f"{n} {v}" for v, n in totals.items()) + ".", "",
             "| claim | the paper says | verdict | evidence |", "| --- | --- | --- | --- |"]
    for claim, verdict in verdicts:
        lines.append("| " + " | ".join(text.replace("|", "\\|") for text in (
            claim.key, claim.says, f"**{verdict.status}**", verdict.evidence)) + " |")
    lines += ["", "**How each is tested**", ""]
    lines += [f"- `{claim.key}`: {claim.evidence}" for claim, _ in verdicts]
    if exploratory:
        lines += ["", "**Exploratory (never in a headline)**", ""]
        lines += [f"- `{e.file}`: {e.what}; up to {e.settings} settings tried per cell, "
                  "chosen by looking at the results, so a search, not a reproduction."
                  for e in exploratory]
    lines += ["", f"Cells are compared by Welch's t-test over seeds (one-sample where one side "
              f"is deterministic), two-tailed at {ALPHA}: holds = every named cell (or the "
              "share named) significantly the claimed way; fails = a cell significantly "
              "against it (or too few can go its way); not distinguishable = neither, at our "
              "run count; absent = the table or row is not in this checkout. Generated from "
              "the committed CSVs (themselves built from the archived records) by "
              "`shortclust reproduce <paper>` (also with `--no-fit`)."]
    if footer:
        lines += ["", footer]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Reproduced:
    """One of the paper's tables or figures: ``regenerated``, ``partial`` or ``absent``."""

    name: str
    state: str
    why: str


@dataclass(frozen=True)
class Agreement:
    """Cells of ours that agree with the paper's numbers under the pre-declared setting."""

    agree: int
    cells: int
    rule: str


def claims_frame(paper: str, title: str, verdicts, reproduced=(), agreement=None,
                 exploratory=()) -> pd.DataFrame:
    rows = [{"kind": "title", "claim": "", "headline": False, "verdict": "", "says": title,
             "evidence": ""}]
    rows += [{"kind": "claim", "claim": c.key, "headline": c.headline, "verdict": v.status,
              "says": c.says, "evidence": v.evidence} for c, v in verdicts]
    rows += [{"kind": "table", "claim": r.name, "headline": False, "verdict": r.state,
              "says": "", "evidence": r.why} for r in reproduced]
    if agreement is not None:
        rows.append({"kind": "agreement", "claim": "", "headline": False, "verdict": "",
                     "says": agreement.rule,
                     "evidence": (f"{agreement.agree} of {agreement.cells} cells"
                                  if agreement.cells else "no comparable cell")})
    rows += [{"kind": "exploratory", "claim": e.file, "headline": False, "verdict": "",
              "says": e.what, "evidence": f"up to {e.settings} settings per cell"}
             for e in exploratory]
    frame = pd.DataFrame(rows)
    frame.insert(0, "paper", paper)
    return frame


def write_claims(job, title: str, claims: list[Claim], exploratory=(), footer: str = "",
                 reproduced=(), agreement: Agreement | None = None):
    """Evaluate ``claims`` on ``results/<paper>/`` and write ``claims.md`` and ``.csv``.

    Then the status of every paper (:func:`~shortclust.pipeline.status.write_status`).
    """
    folder = job.results_dir / job.paper
    verdicts = evaluate_claims(folder, claims)
    job.collected += len(verdicts)  # measurements found: --no-fit rewrites these files
    if agreement is not None:
        found = (f"{agreement.agree} of {agreement.cells} cells" if agreement.cells
                 else "no comparable cell")
        footer = (f"Agreement with the paper under the pre-declared setting: {found} "
                  f"({agreement.rule}). " + footer).strip()
    job.write_text("claims.md", claims_markdown(title, verdicts, exploratory, footer))
    frame = claims_frame(job.paper, title, verdicts, reproduced, agreement, exploratory)
    job.write_text("claims.csv", frame.to_csv(index=False))
    write_status(job)
    return verdicts
