"""Tests of shortclust.evaluation.metrics against scikit-learn and brute force."""

import math
from collections import Counter
from itertools import permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from sklearn import metrics as skm

from shortclust.evaluation import metrics as M

# Our name -> scikit-learn's function, for the metrics scikit-learn has.
SKLEARN = {
    "nmi": skm.normalized_mutual_info_score,
    "ami": skm.adjusted_mutual_info_score,
    "ari": skm.adjusted_rand_score,
    "homogeneity": skm.homogeneity_score,
    "completeness": skm.completeness_score,
    "v_measure": skm.v_measure_score,
}
FUNCTIONS = {name: getattr(M, name) for name in M.METRIC_NAMES}


# ---------------------------------------------------------------- helpers


def _cover(rng, n, k):
    """n labels in 0..k-1 with every value present (needs n >= k), shuffled."""
    labels = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    return rng.permutation(labels)


def _random_pair(seed, n, n_classes, n_clusters, noise):
    """Clusters that follow the classes except for a ``noise`` fraction of documents.

    noise=1 gives independent labelings; lower values give high scores, so that both
    ends of every metric's range are exercised.
    """
    rng = np.random.default_rng(seed)
    true = _cover(rng, n, n_classes)
    follow = true % n_clusters
    pred = np.where(rng.random(n) < noise, rng.integers(0, n_clusters, n), follow)
    pred[:n_clusters] = np.arange(n_clusters)  # every cluster used
    return true, pred


def _strings(labels, prefix):
    return np.array([f"{prefix}{x}" for x in labels])


RANDOM_CASES = {
    "tiny": _random_pair(0, 10, 2, 3, 1.0),
    "small": _random_pair(1, 57, 4, 9, 0.5),
    "more_classes": _random_pair(2, 300, 12, 5, 0.3),
    "more_clusters": _random_pair(3, 400, 5, 17, 0.2),
    "medium": _random_pair(4, 2000, 30, 45, 0.4),
    "independent": _random_pair(5, 3000, 8, 8, 1.0),
}
RANDOM_CASES["strings"] = tuple(
    _strings(x, p) for x, p in zip(_random_pair(6, 500, 7, 11, 0.35), ("topic-", "c"))
)
RANDOM_CASES["mixed_types"] = (
    _strings(_random_pair(7, 200, 6, 4, 0.3)[0], "w"),
    _random_pair(7, 200, 6, 4, 0.3)[1],
)

DEGENERATE_CASES = {
    "both_single": ([3] * 6, ["a"] * 6),
    "n_equals_1": ([0], [5]),
    "single_class": ([0] * 5, [0, 1, 2, 0, 1]),
    "single_cluster": ([0, 1, 2, 0, 1], [7] * 5),
    "own_clusters": ([0, 0, 1, 1, 2], [0, 1, 2, 3, 4]),
    "own_clusters_and_classes": ([0, 1, 2, 3], [9, 8, 7, 6]),
    "identical": ([0, 0, 1, 2, 2], [0, 0, 1, 2, 2]),
    # Exactly independent: rounding makes the raw MI sum -1e-16 here.
    "independent": ([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]),
}
ALL_CASES = {**RANDOM_CASES, **DEGENERATE_CASES}


def brute_acc(true, pred):
    """Best injective cluster->class mapping by enumerating all of them."""
    true, pred = list(true), list(pred)
    classes, clusters = sorted(set(true)), sorted(set(pred))
    best = 0
    if len(clusters) <= len(classes):
        for image in permutations(classes, len(clusters)):
            mapping = dict(zip(clusters, image))
            best = max(best, sum(mapping[p] == t for t, p in zip(true, pred)))
    else:  # more clusters than classes: each class takes one cluster, rest unmatched
        for chosen in permutations(clusters, len(classes)):
            mapping = dict(zip(chosen, classes))
            best = max(best, sum(mapping.get(p) == t for t, p in zip(true, pred)))
    return best / len(true)


def brute_purity(true, pred):
    total = 0
    for cluster in set(pred):
        members = [t for t, p in zip(true, pred) if p == cluster]
        total += Counter(members).most_common(1)[0][1]
    return total / len(true)


def _assert_close(actual, expected, tol=1e-10):
    assert math.isfinite(actual)
    assert actual == pytest.approx(expected, abs=tol, rel=0)


# ---------------------------------------------------------------- contingency


def test_contingency_hand_case():
    table = M.contingency(["b", "a", "a", "b", "c"], [2, 1, 2, 2, 1])
    # rows a, b, c; columns 1, 2
    np.testing.assert_array_equal(table, [[1, 1], [0, 2], [1, 0]])


@pytest.mark.parametrize("case", sorted(ALL_CASES))
def test_contingency_matches_sklearn(case):
    true, pred = ALL_CASES[case]
    expected = skm.cluster.contingency_matrix(true, pred)
    np.testing.assert_array_equal(M.contingency(true, pred), expected)
    np.testing.assert_array_equal(M.contingency(true, pred, sparse=True).toarray(), expected)


@pytest.mark.parametrize("func", [M.contingency, M.evaluate, *FUNCTIONS.values()])
@pytest.mark.parametrize(
    ("true", "pred", "message"),
    [
        ([0, 1, 1], [0, 1], "same length"),
        ([], [], "empty"),
        ([[0, 1], [1, 0]], [[0, 1], [1, 0]], "1-D"),
    ],
)
def test_bad_labels_raise_value_error(func, true, pred, message):
    with pytest.raises(ValueError, match=message):
        func(true, pred)


def test_unorderable_labels_fall_back_to_first_appearance():
    true = [None, 1, None, "a", "a", "a", 1]
    pred = [0, 0, 1, 1, 2, 2, 2]
    coded = [0, 1, 0, 2, 2, 2, 1]
    assert M.evaluate(true, pred) == pytest.approx(M.evaluate(coded, pred), abs=1e-12)


# ---------------------------------------------------------------- vs scikit-learn


@pytest.mark.parametrize("name", sorted(SKLEARN))
@pytest.mark.parametrize("case", sorted(ALL_CASES))
def test_metric_matches_sklearn(name, case):
    true, pred = ALL_CASES[case]
    expected = SKLEARN[name](true, pred)
    _assert_close(FUNCTIONS[name](true, pred), expected)
    _assert_close(M.evaluate(true, pred, [name])[name], expected)


@pytest.mark.parametrize("seed", range(40))
def test_ami_matches_sklearn_on_random_labelings(seed):
    # AMI is ours (Vinh et al. 2010, Eq. 24), not scikit-learn's: held to it over labelings
    # of every shape, from independent to nearly equal, both normalisations.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 600))
    true = rng.integers(0, int(rng.integers(1, 40)), n)
    noise = rng.integers(0, int(rng.integers(1, 80)), n)
    pred = np.where(rng.random(n) < rng.random(), true, noise)
    for name, average in (("ami", "arithmetic"), ("ami_max", "max")):
        expected = skm.adjusted_mutual_info_score(true, pred, average_method=average)
        _assert_close(M.evaluate(true, pred, [name])[name], expected)


@pytest.mark.parametrize("true, pred", [([0, 0, 1, 1], [0, 1, 0, 1]),
                                        ([0, 0, 0, 1, 1, 2], [0, 1, 1, 1, 2, 2]),
                                        ([0, 1, 2, 3, 3, 3, 3], [0, 0, 1, 1, 2, 2, 2])])
def test_expected_mutual_information_is_the_mean_over_permutations(true, pred):
    # The definition: the mean MI of the labelings against every permutation of the
    # clusters (documents relabelled), by brute force.
    table = M._Table(true, pred)
    mis = [M._Table(true, np.asarray(pred)[list(order)]).mi
           for order in permutations(range(len(pred)))]
    expected = math.fsum(mis) / len(mis)
    assert M.expected_mutual_info(table.class_sizes, table.cluster_sizes, table.n) == \
        pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_expected_mutual_information_does_not_depend_on_its_chunks(seed, monkeypatch):
    # The terms are built for many class sizes at once, in chunks of at most _EMI_CHUNK:
    # any chunking gives the same float, bit for bit (each size's dot is the same).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 500))
    true = rng.integers(0, int(rng.integers(2, 30)), n)
    pred = np.where(rng.random(n) < 0.6, true, rng.integers(0, 50, n))
    table = M._Table(true, pred)
    whole = M.expected_mutual_info(table.class_sizes, table.cluster_sizes, n)
    for chunk in (1, 7, 100):
        monkeypatch.setattr(M, "_EMI_CHUNK", chunk)
        assert M.expected_mutual_info(table.class_sizes, table.cluster_sizes, n) == whole


def test_ari_does_not_overflow_on_large_inputs():
    # Pair-count products exceed int64 from n ~ 60k on; sklearn uses Python ints.
    true, pred = _random_pair(8, 200_000, 50, 80, 0.5)
    _assert_close(M.ari(true, pred), skm.adjusted_rand_score(true, pred))


@pytest.mark.parametrize("case", sorted(RANDOM_CASES))
def test_nmi_equals_v_measure(case):
    true, pred = RANDOM_CASES[case]
    _assert_close(M.nmi(true, pred), skm.v_measure_score(true, pred))


# ---------------------------------------------------------------- acc and purity


@pytest.mark.parametrize(
    ("true", "pred", "expected_acc", "expected_purity"),
    [
        ([0, 0, 1, 1], [1, 1, 0, 0], 1.0, 1.0),
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.5, 0.5),
        ([0, 0, 0, 0], [0, 0, 1, 1], 0.5, 1.0),  # one-to-one: one cluster is wrong
        ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2], 4 / 6, 5 / 6),
        ([0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 1, 1], 4 / 6, 4 / 6),
        (["x", "x", "y"], ["p", "q", "q"], 2 / 3, 2 / 3),
    ],
)
def test_acc_and_purity_hand_cases(true, pred, expected_acc, expected_purity):
    assert M.acc(true, pred) == pytest.approx(expected_acc, abs=1e-12)
    assert M.purity(true, pred) == pytest.approx(expected_purity, abs=1e-12)


GRID = [
    (n_classes, n_clusters, seed)
    for n_classes, n_clusters in product([1, 2, 3, 5], [1, 2, 4, 5])
    for seed in range(2)
]


@pytest.mark.parametrize(("n_classes", "n_clusters", "seed"), GRID)
def test_acc_and_purity_match_brute_force_grid(n_classes, n_clusters, seed):
    n = 3 * max(n_classes, n_clusters) + seed
    true, pred = _random_pair(100 + seed, n, n_classes, n_clusters, 0.5)
    assert M.acc(true, pred) == pytest.approx(brute_acc(true, pred), abs=1e-12)
    assert M.purity(true, pred) == pytest.approx(brute_purity(true, pred), abs=1e-12)


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=14)
)
def test_acc_and_purity_match_brute_force_random(pairs):
    true, pred = zip(*pairs)
    assert M.acc(true, pred) == pytest.approx(brute_acc(true, pred), abs=1e-12)
    assert M.purity(true, pred) == pytest.approx(brute_purity(true, pred), abs=1e-12)


def _labels_from_table(table):
    """Labelings whose contingency table is ``table`` (rows classes, columns clusters)."""
    rows, cols = np.nonzero(table)
    counts = np.asarray(table)[rows, cols]
    return np.repeat(rows, counts), np.repeat(cols, counts)


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # Both classes prefer cluster 0; the best one-to-one mapping gives it to one.
        ([[5, 4, 0], [5, 0, 1]], 9 / 15),
        ([[5, 5], [4, 0], [0, 1]], 9 / 15),
        ([[3, 3, 3, 0], [3, 0, 0, 2]], 6 / 14),
    ],
)
def test_acc_when_classes_compete_for_a_cluster(table, expected):
    assert M.acc(*_labels_from_table(table)) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("shape", [(3, 8), (8, 3), (2, 5), (4, 12)])
def test_acc_matches_hungarian_on_random_tables(seed, shape):
    # Few rows and high counts: rows often share their best column, which is where
    # pruning columns before the Hungarian step could go wrong.
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 10, shape) * (rng.random(shape) < 0.7)
    table[:, table.sum(axis=0) == 0] = 1  # no empty cluster ...
    table[table.sum(axis=1) == 0, :] = 1  # ... and no empty class
    rows, cols = linear_sum_assignment(table, maximize=True)
    expected = table[rows, cols].sum() / table.sum()
    assert M.acc(*_labels_from_table(table)) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("n", "n_classes", "n_clusters"),
    [(3000, 3, 200), (3000, 200, 4), (2000, 20, 20), (500, 2, 500)],
)
def test_acc_matches_hungarian_on_full_table(n, n_classes, n_clusters):
    # Wide or tall tables exercise the column pruning in front of the Hungarian step.
    true, pred = _random_pair(n_clusters, n, n_classes, n_clusters, 0.7)
    table = skm.cluster.contingency_matrix(true, pred)
    rows, cols = linear_sum_assignment(table, maximize=True)
    assert M.acc(true, pred) == pytest.approx(table[rows, cols].sum() / n, abs=1e-12)


@pytest.mark.parametrize("case", sorted(ALL_CASES))
def test_acc_is_symmetric(case):
    true, pred = ALL_CASES[case]
    assert M.acc(true, pred) == pytest.approx(M.acc(pred, true), abs=1e-12)


# ---------------------------------------------------------------- invariances, edges


@pytest.mark.parametrize("case", sorted(ALL_CASES))
def test_renaming_labels_changes_no_metric(case):
    true, pred = (np.asarray(x) for x in ALL_CASES[case])
    rng = np.random.default_rng(9)
    _, true_codes = np.unique(true, return_inverse=True)
    _, pred_codes = np.unique(pred, return_inverse=True)
    new_true = _strings(rng.permutation(true_codes.max() + 1)[true_codes], "class")
    new_pred = 1000 + 7 * rng.permutation(pred_codes.max() + 1)[pred_codes]
    before = M.evaluate(true, pred)
    after = M.evaluate(new_true, new_pred)
    assert after == pytest.approx(before, abs=1e-12, rel=0)


EXPECTED_DEGENERATE = {
    "both_single": dict.fromkeys(M.METRIC_NAMES, 1.0),
    "n_equals_1": dict.fromkeys(M.METRIC_NAMES, 1.0),
    "single_class": {
        "nmi": 0.0, "ami": 0.0, "ari": 0.0, "acc": 2 / 5,
        "homogeneity": 1.0, "completeness": 0.0, "v_measure": 0.0, "purity": 1.0,
    },
    "single_cluster": {
        "nmi": 0.0, "ami": 0.0, "ari": 0.0, "acc": 2 / 5,
        "homogeneity": 0.0, "completeness": 1.0, "v_measure": 0.0, "purity": 2 / 5,
    },
    "own_clusters_and_classes": dict.fromkeys(M.METRIC_NAMES, 1.0),
    "identical": dict.fromkeys(M.METRIC_NAMES, 1.0),
    "independent": {
        "nmi": 0.0, "ari": -4 / 11, "acc": 2 / 6,
        "homogeneity": 0.0, "completeness": 0.0, "v_measure": 0.0, "purity": 3 / 6,
    },
}


@pytest.mark.parametrize("case", sorted(EXPECTED_DEGENERATE))
def test_degenerate_cases_hand_values(case):
    expected = EXPECTED_DEGENERATE[case]
    result = M.evaluate(*DEGENERATE_CASES[case], metrics=list(expected))
    assert result == pytest.approx(expected, abs=1e-12, rel=0)


def test_independent_labelings_score_exactly_zero_not_negative():
    result = M.evaluate(*DEGENERATE_CASES["independent"])
    for name in ("nmi", "homogeneity", "completeness", "v_measure"):
        assert result[name] == 0.0, name


@pytest.mark.parametrize("case", sorted(DEGENERATE_CASES))
def test_degenerate_cases_are_finite_and_in_range(case):
    result = M.evaluate(*DEGENERATE_CASES[case])
    for name, value in result.items():
        assert math.isfinite(value), name
        low = -1.0 if name in ("ami", "ari") else 0.0
        assert low <= value <= 1.0 + 1e-12, name


def test_own_clusters_is_pure_but_not_accurate():
    result = M.evaluate([0, 0, 1, 1, 2], [0, 1, 2, 3, 4])
    assert result["purity"] == 1.0
    assert result["homogeneity"] == 1.0
    assert result["acc"] == pytest.approx(3 / 5, abs=1e-12)


# ---------------------------------------------------------------- evaluate()


def test_evaluate_default_returns_all_metrics_in_order_as_floats():
    result = M.evaluate(*RANDOM_CASES["small"])
    assert tuple(result) == M.METRIC_NAMES
    assert all(type(value) is float for value in result.values())


def test_evaluate_keeps_requested_order_and_accepts_one_name():
    true, pred = RANDOM_CASES["small"]
    assert list(M.evaluate(true, pred, ["purity", "nmi", "acc"])) == ["purity", "nmi", "acc"]
    assert list(M.evaluate(true, pred, "ari")) == ["ari"]


@pytest.mark.parametrize("case", ["small", "strings", "single_cluster"])
def test_evaluate_agrees_with_single_metric_functions(case):
    true, pred = ALL_CASES[case]
    result = M.evaluate(true, pred)
    assert result == {name: FUNCTIONS[name](true, pred) for name in M.METRIC_NAMES}


def test_evaluate_unknown_metric_names_it_and_lists_valid_ones():
    with pytest.raises(ValueError, match=r"'nmx'.*nmi, ami, ari, acc, homogeneity"):
        M.evaluate([0, 1], [0, 1], ["nmi", "nmx"])


# --- every bounded metric is clipped to its range (rounding gave 1.0000000000000002) -----------

_ONE_ULP_OVER = [2, 1, 2, 1, 2, 2, 0, 1, 1, 0, 1, 1, 1, 2, 2, 1, 2, 2, 1, 1, 0, 1, 0, 1, 0, 2,
                 2, 0, 2, 1, 0]
_AMI_OVER = [5, 3, 1, 0, 5, 2, 5, 0, 5, 4, 5, 5, 1, 0, 5, 1, 1, 5, 3, 3, 3, 5, 1, 0, 4, 1, 0,
             2, 5, 4]


@pytest.mark.parametrize("labels", [_ONE_ULP_OVER, _AMI_OVER])
def test_identical_partitions_score_at_most_1_despite_rounding(labels):
    scores = M.evaluate(labels, labels, metrics=M.KNOWN_METRICS)
    assert all(value == pytest.approx(1.0) and value <= 1.0 for value in scores.values()), scores
    for name in M.KNOWN_METRICS:
        single = getattr(M, name if name != "ami_max" else "ami")
        assert single(labels, labels) <= 1.0, name


_UPPER_ONLY = {"ami", "ami_max", "ari"}


@pytest.mark.parametrize("name", M.KNOWN_METRICS)
@pytest.mark.parametrize("raw", [1 + 4e-16, -4e-16])
def test_table_rounding_outside_the_range_is_clipped(monkeypatch, name, raw):
    monkeypatch.setitem(M._FROM_TABLE, name, lambda table: raw)
    monkeypatch.setattr(M, f"_{name}", lambda table: raw)
    expected = 1.0 if raw > 1 else (raw if name in _UPPER_ONLY else 0.0)
    assert M.evaluate([0, 0, 1], [0, 1, 1], metrics=[name])[name] == expected
    if name != "ami_max":
        assert getattr(M, name)([0, 0, 1], [0, 1, 1]) == expected
