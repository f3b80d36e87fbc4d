"""The sparse HAC_SD path against the dense reference: same pairs, same merges, same labels."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.cluster.hierarchy import linkage
from sklearn.metrics import adjusted_rand_score

from shortclust.models.hac._sparse_sd import sd_pairs
from shortclust.models.hac._sparse_ward import (pair_weights, sparse_ward, ward_adjacency,
                                                ward_merges)
from shortclust.models.hac._sparsify import sd_sparsify
from shortclust.models.hac.hac import _cut
from shortclust.models.hac.hac_similarity import (HACSimilarity, condensed_from_sparse,
                                              similarity_matrix)


def _unit_rows(rng, n, d, sparse=False):
    """Non-negative unit rows (similarities >= 0), as TF-IDF or a shifted embedding."""
    X = rng.random((n, d)) ** 3
    if sparse:
        X[X < 0.3] = 0.0
        X[np.arange(n), rng.integers(0, d, n)] = 1.0  # no empty row
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return sp.csr_matrix(X) if sparse else X


def _dense_pairs(vectors, k):
    upper = sp.triu(sd_sparsify(similarity_matrix(vectors), k), 1, format="coo")
    order = np.lexsort((upper.col, upper.row))
    return upper.row[order], upper.col[order], upper.data[order]


@pytest.mark.kernels
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n, k", [(60, 3), (97, 7), (150, 2)])
def test_sd_pairs_are_the_dense_sparsification(n, k, sparse):
    vectors = _unit_rows(np.random.default_rng(n + k), n, 12, sparse)
    rows, cols, values = sd_pairs(vectors, k)
    expected = _dense_pairs(vectors, k)
    np.testing.assert_array_equal(rows, expected[0])
    np.testing.assert_array_equal(cols, expected[1])
    np.testing.assert_allclose(values, expected[2], rtol=1e-6)


@pytest.mark.kernels
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 5, 9])
def test_sparse_ward_is_scipy_ward_on_the_sparsified_distances(seed, k):
    rng = np.random.default_rng(seed)
    n = 80
    vectors = _unit_rows(rng, n, 10)
    kept = sd_sparsify(similarity_matrix(vectors), k)
    reference = linkage(condensed_from_sparse(kept), method="ward")
    upper = sp.triu(kept, 1, format="coo")
    merges = sparse_ward(n, upper.row, upper.col, pair_weights(upper.data), 1)
    np.testing.assert_allclose(merges[:, 2], reference[:, 2], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(merges[:, 3], reference[:, 3])
    for clusters in (k, 2 * k, n // 2):
        np.testing.assert_array_equal(_cut(merges, n, clusters),
                                      _cut(reference, n, clusters))


@pytest.mark.kernels
@pytest.mark.parametrize("seed", range(3))
def test_sparse_ward_merges_do_not_depend_on_the_room_for_merged_lists(seed):
    # slack=0 makes the pool compact and grow and the heap purge and grow on the first
    # merges; the default and a roomy pool do so rarely or never: the merges are the same
    # (bit for bit) and scipy's.
    rng = np.random.default_rng(seed)
    n = 120
    kept = sd_sparsify(similarity_matrix(_unit_rows(rng, n, 8)), 4)
    reference = linkage(condensed_from_sparse(kept), method="ward")
    upper = sp.triu(kept, 1, format="coo")
    weights = pair_weights(upper.data)
    merges = [ward_merges(ward_adjacency(n, upper.row.astype(np.int32), upper.col, weights,
                                         slack), 1) for slack in (0.0, 0.25, 2.0)]
    for other in merges[1:]:
        np.testing.assert_array_equal(other, merges[0])
    np.testing.assert_allclose(merges[0][:, 2], reference[:, 2], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(_cut(merges[0], n, 4), _cut(reference, n, 4))


@pytest.mark.kernels
def test_sparse_ward_with_isolated_points_and_no_pairs():
    # Points 3..5 keep no pair: Ward on the dense matrix merges them at distance 1.
    rows, cols = np.array([0, 0, 1]), np.array([1, 2, 2])
    weights = pair_weights(np.array([0.9, 0.8, 0.7]))
    merges = sparse_ward(6, rows, cols, weights, 1)
    condensed = np.ones(15)
    for i, j, w in zip(rows, cols, weights):
        condensed[6 * i - i * (i + 1) // 2 + (j - i - 1)] = np.sqrt(1 - w)
    reference = linkage(condensed, method="ward")
    np.testing.assert_allclose(np.sort(merges[:, 2]), np.sort(reference[:, 2]), rtol=1e-12)
    assert sparse_ward(4, np.zeros(0), np.zeros(0), np.zeros(0), 1)[:, 2].tolist() == [1.0] * 3


def test_sparse_ward_refuses_negative_weights():
    with pytest.raises(ValueError, match=">= 0"):
        sparse_ward(3, np.array([0]), np.array([1]), pair_weights(np.array([-0.5])), 1)


@pytest.mark.parametrize("sparsify", ["sd"])
def test_estimator_sparse_graph_gives_the_dense_labels(sparsify):
    vectors = _unit_rows(np.random.default_rng(7), 300, 16)
    dense = HACSimilarity(n_clusters=6, sparsify=sparsify).fit(vectors)
    sparse = HACSimilarity(n_clusters=6, sparsify=sparsify, graph="sparse").fit(vectors)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    assert sparse.n_retained_ == dense.n_retained_
    assert sparse.merges_.shape == (300 - 6, 4)


@pytest.mark.parametrize("n, k", [(60, 3), (97, 7), (400, 5)])
def test_fast_sd_pairs_are_the_exact_ones_but_for_float32_ties(n, k):
    from shortclust.models.hac._sparse_sd import _gram_statistics, _row_statistics

    vectors = _unit_rows(np.random.default_rng(n * k), n, 12, False)
    for exact, fast in zip(_row_statistics(vectors), _gram_statistics(vectors)):
        np.testing.assert_allclose(fast, exact, rtol=1e-5)
    exact = set(zip(*sd_pairs(vectors, k)[:2]))
    fast = set(zip(*sd_pairs(vectors, k, fast=True)[:2]))
    assert len(fast) == len(exact)
    assert len(fast ^ exact) <= 2 * max(1, len(exact) // 1000)


def test_hac_sd_past_max_docs_takes_the_fast_route_and_agrees():
    vectors = _unit_rows(np.random.default_rng(5), 300, 8, False)
    exact = HACSimilarity(n_clusters=6, sparsify="sd", graph="sparse").fit(vectors)
    fast = HACSimilarity(n_clusters=6, sparsify="sd", graph="sparse", max_docs=100).fit(vectors)
    assert adjusted_rand_score(exact.labels_, fast.labels_) > 0.95
