"""The IC tables' significance marks and IC's effect, by two-tailed t-tests over the records.

A run's value is its metric in percent, keyed by seed: X_IC with seed s starts from X with
seed s, so a row and its ``_IC`` row are paired by seed (:func:`paired_t_test`); a
deterministic row run once is tested one-sample against its single value.
"""

from __future__ import annotations

from shortclust.evaluation.stats import TTest, paired_t_test
from shortclust.pipeline.reproduce import metric_values
from shortclust.papers.ic.reported import BEST, FIXED, METHODS


def values_of(records: list[dict], metric: str) -> dict[int, float]:
    """``{seed: metric in percent}`` of the records that have it."""
    return {int(record["seed"]): 100.0 * float(value)
            for record, value in zip(records, metric_values(records, metric))
            if value is not None}


def marks_for(row: str, results: dict[str, list[dict]], metric: str) -> tuple[str, dict]:
    """Our marks of one row on one dataset: † (below its _IC row) and * (below HAC_SD_IC).

    Returns the marks and the two tests (``vs_ic``, ``vs_best``; None where not made).
    """
    own = values_of(results.get(row, []), metric)
    tests = {"vs_ic": None, "vs_best": None}
    marks = ""
    if row in METHODS:
        tests["vs_ic"] = paired_t_test(own, values_of(results.get(row + FIXED, []), metric))
        marks += "†" if tests["vs_ic"].raised() else ""
    if row not in (BEST, "HAC_SD") and row in results:
        tests["vs_best"] = paired_t_test(own, values_of(results.get(BEST, []), metric))
        marks += "*" if tests["vs_best"].raised() else ""
    return marks, tests


def p_text(test: TTest) -> str:
    """``p=0.012``, ``p=3.1e-05``, or why there is no test."""
    if test.p is None:
        return f"no test: {test.kind}"
    return f"p={test.p:.1e}" if test.p < 0.001 else f"p={test.p:.3f}"


def effect_cell(results: dict[str, list[dict]], method: str) -> str:
    """Did IC (50 iterations) raise both ACC and NMI of ``method``? With the t-tests."""
    tests = {m: paired_t_test(values_of(results.get(method, []), m),
                              values_of(results.get(method + FIXED, []), m))
             for m in ("acc", "nmi")}
    if any(t.diff is None for t in tests.values()):
        return "n/a"
    both = all(t.diff > 0 for t in tests.values())
    significant = all(t.raised() for t in tests.values())
    verdict = ("yes, both significant" if significant else "yes, not both significant"
               if both else "no")
    details = "; ".join(f"{m.upper()} {t.diff:+.2f} ({p_text(t)})" for m, t in tests.items())
    return f"{verdict}: {details}"
