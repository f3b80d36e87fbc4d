"""Statistics over runs: mean and sample standard deviation, their text, and t-tests.

Every table of the package states a number as mean ± sample std over runs (seeds) and
marks differences with two-tailed t-tests at :data:`ALPHA`; this module is the one place
those are computed, so two tables never disagree in the last digit about the same runs.
Values are plain numbers: nothing here knows of records, configs or models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Iterable, Mapping

import numpy as np

#: Significance level of every t-test the tables report (two-tailed).
ALPHA = 0.05


def present_values(values: Iterable) -> np.ndarray:
    """The values that are numbers, in order, as a float array (None and NaN dropped).

    A run that did not compute a metric (an unlabelled corpus, an older record) gives None;
    it is not a run of that metric.

    Examples
    --------
    >>> present_values([0.5, None, float("nan"), 2]).tolist()
    [0.5, 2.0]
    """
    kept = [value for value in values if value is not None]
    array = np.asarray(kept, dtype=float)
    return array[~np.isnan(array)]


def mean(values: Iterable) -> float:
    """Mean of the present values (:func:`present_values`); NaN when there are none.

    Examples
    --------
    >>> mean([1.0, None, 2.0])
    1.5
    >>> mean([])
    nan
    """
    array = present_values(values)
    return float(array.mean()) if array.size else math.nan


def mean_std(values: Iterable) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof=1) of the present values.

    The std of a single value is 0 (one deterministic run has no spread), and both are NaN
    when there is no value. The sums are numpy's pairwise sums over the values in the
    order given, so callers must give runs in a fixed order (by seed) for the last digit
    to be reproducible.

    Examples
    --------
    >>> mean_std([1.0, 2.0, 3.0])
    (2.0, 1.0)
    >>> mean_std([0.5])
    (0.5, 0.0)
    >>> mean_std([None])
    (nan, nan)
    """
    array = present_values(values)
    if not array.size:
        return math.nan, math.nan
    return float(array.mean()), float(array.std(ddof=1)) if array.size > 1 else 0.0


def is_missing(value) -> bool:
    """Whether a table value is absent: None or NaN.

    Examples
    --------
    >>> is_missing(None), is_missing(float("nan")), is_missing(0.0)
    (True, True, False)
    """
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


def format_mean_std(mean_value, std, digits: int = 3, missing: str = "n/a",
                    separator: str = " ± ") -> str:
    """``mean ± std`` with ``digits`` decimals, or ``missing`` when the mean is absent.

    ``separator="±"`` gives the compact cells of a narrow terminal table.

    Examples
    --------
    >>> format_mean_std(0.8745, 0.0071)
    '0.875 ± 0.007'
    >>> format_mean_std(93.7, 4.9, digits=1, separator="±")
    '93.7±4.9'
    >>> format_mean_std(None, None, missing="no runs")
    'no runs'
    """
    if is_missing(mean_value):
        return missing
    return f"{mean_value:.{digits}f}{separator}{std:.{digits}f}"


def mean_std_text(values: Iterable, digits: int = 3) -> str:
    """:func:`mean_std` of ``values`` as text (:func:`format_mean_std`); ``n/a`` for none.

    Examples
    --------
    >>> mean_std_text([1.0, 2.0, 3.0])
    '2.000 ± 1.000'
    >>> mean_std_text([0.5], digits=1)
    '0.5 ± 0.0'
    >>> mean_std_text([])
    'n/a'
    """
    return format_mean_std(*mean_std(values), digits=digits)


def counts_text(counts) -> str:
    """Distinct run counts, smallest first: ``20``, or ``2/20`` while runs are missing.

    Examples
    --------
    >>> counts_text([20, 20, 2])
    '2/20'
    >>> counts_text([])
    ''
    """
    return "/".join(str(count) for count in sorted({int(count) for count in counts}))


def stat_row(values: Iterable) -> dict[str, float]:
    """One cell of a long-format table: ``runs`` (present values), ``mean`` and ``std``.

    Examples
    --------
    >>> stat_row([0.2, 0.4, None])
    {'runs': 2, 'mean': 0.30000000000000004, 'std': 0.14142135623730953}
    """
    array = present_values(values)
    mean_value, std = mean_std(array)
    return {"runs": int(array.size), "mean": mean_value, "std": std}


def summarize_groups(frame: pd.DataFrame, by, columns: list[str],
                     sort: bool = True) -> pd.DataFrame:
    """Per group of ``by``: ``runs`` (rows), then ``<column>_mean`` and ``<column>_std``.

    The std is the sample std (ddof=1), 0 for a group of one row. This is pandas'
    grouped mean and std (compensated sums), not :func:`mean_std`: a table computed this
    way must keep being computed this way for its files to regenerate byte for byte.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per run.
    by : str or list of str
        Grouping columns; a missing key (None) is a group of its own.
    columns : list of str
        Numeric columns to summarise (NaN: the run lacks that value).
    sort : bool
        Groups sorted by their keys (default), or in order of first appearance.

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, ``runs``, and the mean and std of each column.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"k": [2, 2, 3], "nmi": [0.5, 0.7, 0.9]})
    >>> print(summarize_groups(frame, "k", ["nmi"]).round(4).to_string(index=False))
     k  runs  nmi_mean  nmi_std
     2     2       0.6   0.1414
     3     1       0.9   0.0000
    """
    groups = frame.groupby(by, sort=sort, dropna=False)
    table = groups.size().rename("runs").to_frame()
    for column in columns:
        table[f"{column}_mean"] = groups[column].mean()
        table[f"{column}_std"] = groups[column].std(ddof=1).mask(groups[column].count() == 1, 0.0)
    return table.reset_index()


# --------------------------------------------------------------------------------------------
# t-tests


@dataclass(frozen=True)
class TTest:
    """The outcome of a two-tailed t-test of one set of runs against another.

    Attributes
    ----------
    diff : float or None
        Mean difference, ``other - base`` (paired) or ``first - second`` (Welch); None
        when a side has no values.
    p : float or None
        Two-tailed p-value; None when no test is possible (see ``kind``).
    n : int
        Values compared: pairs (paired), runs of ``other`` (one-sample), or both sides'
        runs (Welch).
    kind : str
        ``paired``, ``one-sample``, ``welch``, or why there is no test: ``missing``,
        ``one run``, ``no variance``.
    """

    diff: float | None
    p: float | None
    n: int
    kind: str

    def significant(self, alpha: float = ALPHA) -> bool:
        """Whether the test rejects equal means at ``alpha``."""
        return self.p is not None and self.p < alpha

    def raised(self, alpha: float = ALPHA) -> bool:
        """Whether the second-named side (``other``, ``first``) is significantly higher."""
        return self.significant(alpha) and self.diff > 0


def paired_t_test(base: Mapping[Hashable, float], other: Mapping[Hashable, float]) -> TTest:
    """Two-tailed paired t-test of ``other`` against ``base``, paired by key (seed).

    A ``base`` of one value (a deterministic method run once) is compared with every value
    of ``other``: the paired test against a constant column is the one-sample t-test of
    ``other`` against that value (``scipy.stats.ttest_rel`` either way).

    Parameters
    ----------
    base, other : mapping of key to float
        Values by seed; keys present on one side only are left out of a paired test.

    Returns
    -------
    TTest
        No p-value (``kind`` says why) with no common key, one pair, or differences that
        do not vary (the t statistic is then undefined).

    Examples
    --------
    >>> test = paired_t_test({0: 60.0, 1: 62.0, 2: 61.0}, {0: 70.0, 1: 71.0, 2: 73.0})
    >>> test.kind, test.n, round(test.diff, 3), round(test.p, 4)
    ('paired', 3, 10.333, 0.0072)
    >>> paired_t_test({0: 80.0}, {0: 82.0, 1: 83.5, 2: 81.0}).kind
    'one-sample'
    >>> paired_t_test({0: 1.0, 1: 2.0}, {0: 3.0, 1: 4.0}).kind
    'no variance'
    """
    from scipy.stats import ttest_rel

    if not base or not other:
        return TTest(None, None, 0, "missing")
    if len(base) == 1 and len(other) > 1:
        kind = "one-sample"
        after = np.array([other[key] for key in sorted(other)])
        before = np.full(after.shape, next(iter(base.values())))
    else:
        kind = "paired"
        keys = sorted(set(base) & set(other))
        if not keys:
            return TTest(None, None, 0, "missing")
        after = np.array([other[key] for key in keys])
        before = np.array([base[key] for key in keys])
    differences = after - before
    diff = float(differences.mean())
    if differences.size < 2:
        return TTest(diff, None, int(differences.size), "one run")
    if np.ptp(differences) <= 1e-12 * max(1.0, float(np.abs(differences).max())):
        return TTest(diff, None, int(differences.size), "no variance")
    return TTest(diff, float(ttest_rel(after, before).pvalue), int(differences.size), kind)


def welch_t_test(first: Mapping[str, float], second: Mapping[str, float]) -> TTest:
    """Two-tailed Welch's t-test between two cells given as ``mean``, ``std`` and ``runs``.

    For runs that are not paired (two methods each starting from its own random state);
    the cells are :func:`stat_row` rows (or any mapping with those keys).

    Returns
    -------
    TTest
        ``diff`` = first mean - second mean; no p-value when a side has fewer than two
        runs, both stds are 0, or the statistic is not finite.

    Examples
    --------
    >>> test = welch_t_test({"mean": 0.6, "std": 0.01, "runs": 3},
    ...                     {"mean": 0.5, "std": 0.02, "runs": 4})
    >>> test.kind, round(test.p, 5), test.raised()
    ('welch', 0.00053, True)
    >>> welch_t_test({"mean": 0.6, "std": 0.0, "runs": 1},
    ...              {"mean": 0.5, "std": 0.02, "runs": 4}).kind
    'one run'
    """
    from scipy.stats import ttest_ind_from_stats

    diff = float(first["mean"] - second["mean"])
    n = int(first["runs"] + second["runs"])
    if min(first["runs"], second["runs"]) < 2:
        return TTest(diff, None, n, "one run")
    if first["std"] == 0 and second["std"] == 0:
        return TTest(diff, None, n, "no variance")
    result = ttest_ind_from_stats(first["mean"], first["std"], first["runs"], second["mean"],
                                  second["std"], second["runs"], equal_var=False)
    p = float(result.pvalue)
    return TTest(diff, p if math.isfinite(p) else None, n, "welch")
