"""Term weights of the Ncut-NMF paper (01, idf, Eq. 5's Ncut) against dense references."""

import numpy as np
import pytest
import scipy.sparse as sp

from tests.naive import ncut as naive_ncut
from shortclust.models.common.term_weights import (
    binary_matrix,
    binary_weights,
    cooccurrence_degrees,
    idf_weights,
    ncut_weights,
    term_weights,
    weight_documents,
)


def random_counts(n_docs, n_terms, density, seed):
    rng = np.random.default_rng(seed)
    dense = rng.integers(1, 4, size=(n_docs, n_terms)) * (rng.random((n_docs, n_terms)) < density)
    return sp.csr_matrix(dense)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("scale", [True, False])
def test_ncut_weights_match_dense_eq5(seed, scale):
    counts = random_counts(30, 12, 0.25, seed)
    expected = naive_ncut.ncut_weights(counts, scale=scale)
    np.testing.assert_allclose(ncut_weights(counts, scale=scale), expected, rtol=1e-12)


def test_degrees_are_row_sums_of_x_xt_and_ignore_counts():
    counts = random_counts(25, 9, 0.3, 7)
    X = naive_ncut.paper_binary_x(counts)
    np.testing.assert_allclose(cooccurrence_degrees(counts), (X @ X.T).sum(axis=1))
    doubled = counts * 5
    np.testing.assert_allclose(ncut_weights(doubled), ncut_weights(counts))


def test_scaled_ncut_weights_lie_in_unit_interval_with_max_one():
    w = ncut_weights(random_counts(40, 15, 0.2, 3))
    assert np.all((w >= 0) & (w <= 1)) and w.max() == pytest.approx(1.0)


def test_term_without_cooccurrence_and_absent_term_get_finite_weights():
    # term 0 only ever appears alone (one-word documents); term 3 occurs nowhere.
    dense = np.array([[1, 0, 0, 0], [2, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0]])
    counts = sp.csr_matrix(dense)
    raw = ncut_weights(counts, scale=False)
    assert np.all(np.isfinite(raw))
    # d_00 = s_00 = df_0 = 2: the term is only its own neighbour.
    assert raw[0] == pytest.approx(2 ** -0.5)
    assert raw[3] == 0.0
    np.testing.assert_allclose(raw, naive_ncut.ncut_weights(counts, scale=False))
    scaled = ncut_weights(counts)
    assert np.all(np.isfinite(scaled)) and scaled.max() == pytest.approx(1.0)


def test_empty_matrix_gives_zero_weights_not_nan():
    counts = sp.csr_matrix((3, 4), dtype=np.int32)
    for weights in (ncut_weights(counts), idf_weights(counts)):
        assert np.array_equal(weights, np.zeros(4))


def test_idf_and_binary_weights():
    counts = random_counts(20, 10, 0.3, 1)
    counts = sp.csr_matrix(np.hstack([counts.toarray(), np.zeros((20, 1), dtype=int)]))
    np.testing.assert_allclose(idf_weights(counts), naive_ncut.idf_weights(counts))
    assert idf_weights(counts)[-1] == 0.0
    assert np.array_equal(binary_weights(counts), np.ones(11))
    np.testing.assert_allclose(term_weights(counts, "idf"), idf_weights(counts))
    with pytest.raises(ValueError, match="weighting"):
        term_weights(counts, "tfidf")


def test_weight_documents_scales_binary_columns_without_touching_input():
    counts = random_counts(15, 8, 0.4, 2)
    before = counts.copy()
    w = np.linspace(0.0, 1.0, 8)
    weighted = weight_documents(counts, w)
    np.testing.assert_allclose(weighted.toarray(), naive_ncut.weighted_y(counts, w).T)
    assert weighted.nnz == np.count_nonzero(weighted.toarray())   # zero weights dropped
    assert (counts != before).nnz == 0
    np.testing.assert_allclose(weight_documents(counts, w, binary=False).toarray(),
                               before.toarray() * w)
    assert (counts != before).nnz == 0
    with pytest.raises(ValueError, match="shape"):
        weight_documents(counts, np.ones(3))


def test_binary_matrix_sums_duplicates_before_binarising():
    coo = sp.coo_matrix((np.array([1, 1, 2]), (np.array([0, 0, 1]), np.array([1, 1, 0]))),
                        shape=(2, 2))
    assert np.array_equal(binary_matrix(coo).toarray(), [[0, 1], [1, 0]])


def test_ncut_weights_never_form_a_dense_term_by_term_matrix():
    # 300,000 terms: a dense V x V float matrix would need 720 GB.
    rng = np.random.default_rng(0)
    n_docs, n_terms = 2_000, 300_000
    rows = np.repeat(np.arange(n_docs), 5)
    cols = rng.integers(0, n_terms, size=rows.size)
    counts = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_docs, n_terms))
    w = ncut_weights(counts)
    assert w.shape == (n_terms,) and np.all(np.isfinite(w))
