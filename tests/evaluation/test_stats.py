"""Tests of shortclust.evaluation.stats against numpy, pandas and scipy."""

import doctest
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ttest_1samp, ttest_ind_from_stats, ttest_rel

from shortclust.evaluation import stats
from shortclust.evaluation.stats import (
    ALPHA, format_mean_std, mean, mean_std, mean_std_text, paired_t_test, present_values,
    stat_row, summarize_groups, welch_t_test,
)


def test_the_docstring_examples_hold():
    result = doctest.testmod(stats)
    assert result.attempted >= 15 and result.failed == 0


def test_alpha_is_the_tables_significance_level():
    assert ALPHA == 0.05


# --- mean and std ------------------------------------------------------------------------------


def test_mean_std_is_numpys_sample_std():
    values = [0.2, 0.5, 0.9, 0.4]
    assert mean_std(values) == (np.mean(values), np.std(values, ddof=1))
    assert mean_std([7.0]) == (7.0, 0.0)  # one run: no spread
    assert all(math.isnan(v) for v in mean_std([]))


def test_missing_values_are_not_runs():
    assert present_values([1.0, None, float("nan"), 3.0]).tolist() == [1.0, 3.0]
    assert mean_std([1.0, None, 3.0]) == mean_std([1.0, 3.0])
    assert mean([None, None]) != mean([None, None])  # NaN: no value
    assert stat_row([0.5, None]) == {"runs": 1, "mean": 0.5, "std": 0.0}
    assert stat_row([])["runs"] == 0 and math.isnan(stat_row([])["mean"])


floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(floats, min_size=2, max_size=40) | st.lists(st.just(0.1), min_size=2,
                                                              max_size=40))
def test_mean_std_is_bit_identical_to_pandas_series(values):
    # The tables were computed with pandas before; their files must regenerate byte for byte.
    series = pd.Series(values, dtype=float)
    assert mean_std(values) == (series.mean(), series.std(ddof=1))
    assert mean(values) == series.mean()


def test_text_of_mean_and_std():
    assert mean_std_text([1.0, 2.0, 3.0]) == "2.000 ± 1.000"
    assert mean_std_text([0.5]) == "0.500 ± 0.000"
    assert mean_std_text([93.0, 95.0], digits=1) == "94.0 ± 1.4"
    assert mean_std_text([]) == "n/a" and mean_std_text([None]) == "n/a"
    assert format_mean_std(0.8745, 0.0071) == "0.875 ± 0.007"
    assert format_mean_std(float("nan"), float("nan"), missing="no runs") == "no runs"


def test_summarize_groups_is_pandas_grouped_mean_and_std():
    frame = pd.DataFrame({"k": [3, 2, 2, 3, 5], "nmi": [0.1, 0.5, 0.7, 0.4, 0.9],
                          "ari": [0.2, np.nan, 0.3, 0.6, 0.8]})
    table = summarize_groups(frame, "k", ["nmi", "ari"]).set_index("k")
    assert table["runs"].tolist() == [2, 2, 1]
    groups = frame.groupby("k")
    assert table["nmi_mean"].tolist() == groups["nmi"].mean().tolist()
    assert table.loc[2, "nmi_std"] == groups["nmi"].std().loc[2]
    assert table.loc[5, "nmi_std"] == 0.0  # one run
    assert table.loc[2, "ari_std"] == 0.0 and table.loc[2, "ari_mean"] == 0.3  # one present


# --- t-tests ---------------------------------------------------------------------------------


def test_paired_test_pairs_by_key_and_is_scipys():
    base = {0: 60.0, 1: 62.0, 2: 61.0, 3: 59.0}
    other = {3: 70.0, 1: 71.0, 0: 69.5, 2: 72.0, 9: 10.0}  # key 9 has no partner
    test = paired_t_test(base, other)
    expected = ttest_rel([69.5, 71.0, 72.0, 70.0], [60.0, 62.0, 61.0, 59.0]).pvalue
    assert test.kind == "paired" and test.n == 4
    assert test.p == pytest.approx(expected, rel=1e-12) and test.diff == pytest.approx(10.125)
    assert test.raised() and test.significant()
    reverse = paired_t_test(other, base)
    assert reverse.significant() and not reverse.raised()  # significantly lower


def test_a_single_base_value_is_tested_one_sample():
    test = paired_t_test({0: 80.0}, {0: 82.0, 1: 83.5, 2: 81.0})
    assert test.kind == "one-sample" and test.n == 3
    assert test.p == pytest.approx(ttest_1samp([82.0, 83.5, 81.0], 80.0).pvalue, rel=1e-12)
    assert test.diff == pytest.approx(2.1666667)


@pytest.mark.parametrize("base, other, kind", [
    ({0: 1.0}, {0: 2.0}, "one run"),
    ({0: 1.0, 1: 2.0}, {0: 3.0, 1: 4.0}, "no variance"),
    ({}, {0: 1.0}, "missing"),
    ({5: 1.0}, {}, "missing"),
    ({0: 1.0, 1: 2.0}, {2: 1.0, 3: 2.0}, "missing"),  # no common seed
])
def test_no_paired_test_where_none_is_possible(base, other, kind):
    test = paired_t_test(base, other)
    assert test.kind == kind and test.p is None and not test.significant()


def test_welch_is_scipys_from_the_cells_statistics():
    first = {"mean": 0.62, "std": 0.03, "runs": 5}
    second = {"mean": 0.55, "std": 0.06, "runs": 4}
    test = welch_t_test(first, second)
    expected = ttest_ind_from_stats(0.62, 0.03, 5, 0.55, 0.06, 4, equal_var=False).pvalue
    assert test.kind == "welch" and test.n == 9
    assert test.p == pytest.approx(expected, rel=1e-12) and test.diff == pytest.approx(0.07)
    assert test.significant() == (expected < ALPHA)
    assert welch_t_test(stat_row([0.5, 0.6, 0.7]), stat_row([0.1, 0.15, 0.2])).raised()


@pytest.mark.parametrize("first, second, kind", [
    ({"mean": 0.5, "std": 0.0, "runs": 1}, {"mean": 0.4, "std": 0.1, "runs": 5}, "one run"),
    ({"mean": 0.5, "std": 0.0, "runs": 5}, {"mean": 0.4, "std": 0.0, "runs": 5},
     "no variance"),
])
def test_no_welch_test_where_none_is_possible(first, second, kind):
    test = welch_t_test(first, second)
    assert test.kind == kind and test.p is None and not test.significant()


def _records(rng, n=23):
    return [{"dataset": "A", "preprocess": None if i % 3 else "gsdmm", "model": "m",
             "params": {"alpha": [0.1, 0.3][i % 2]}, "seed": i,
             "metrics": {"nmi": float(rng.random()), "ari": float(rng.random())},
             "n_clusters": int(rng.integers(2, 9)), "fit_seconds": float(rng.random())}
            for i in range(n)]


def test_summarize_groups_gives_the_sweep_table_bit_for_bit_and_the_summary_to_rounding():
    # The sweep tables (committed, regenerated byte for byte) are pandas' grouped statistics.
    # A run's summary is mean_std per setting, computed without pandas (it is written on
    # every `shortclust run`): the same numbers up to the last bits of the sums.
    from shortclust.pipeline.summary import GROUP_KEYS, records_frame, summarize
    from shortclust.pipeline.sweep import sweep_frame

    records = _records(np.random.default_rng(1))
    frame = records_frame(records)
    columns = ["nmi", "ari", "n_clusters", "fit_seconds"]
    frame[columns] = frame[columns].apply(pd.to_numeric)
    expected = summarize_groups(frame, GROUP_KEYS, columns, sort=False)
    pd.testing.assert_frame_equal(expected, summarize(records), check_exact=False,
                                  rtol=1e-14, atol=0, check_like=True, check_dtype=False)
    frame["alpha"] = [r["params"]["alpha"] for r in records]
    ours = summarize_groups(frame, "alpha", columns)
    theirs = sweep_frame(records, "alpha")
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs, check_exact=True)
