"""k-NN (section 4.1) and similarity-distribution (Algorithm 2) sparsification of the IC paper."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from tests.naive.sparsify import knn_sparsify_naive, row_statistics_naive, sd_sparsify_naive
from shortclust.errors import ParameterError
from shortclust.models.hac import _sparsify
from shortclust.models.hac._sparsify import knn_sparsify, row_statistics, sd_budget, sd_sparsify

# A 4 x 4 similarity matrix whose k-NN lists are easy to read off.
S4 = np.array([[1.0, 0.9, 0.1, 0.2],
               [0.9, 1.0, 0.3, 0.8],
               [0.1, 0.3, 1.0, 0.4],
               [0.2, 0.8, 0.4, 1.0]])

# Integer similarities with hand-computable row statistics (Algorithm 2, lines 5-10):
# row 0 off-diagonal {3, 0, 0}: mu 1, sigma sqrt(2); row 1 {3, 1, 2}: 2, sqrt(2/3);
# row 2 {0, 1, 2}: 1, sqrt(2/3); row 3 {0, 2, 2}: 4/3, sqrt(8/9). Then
# max(a_ij, a_ji): (0,1) 1.414, (2,3) 1.225, (1,3) 0.707, (1,2) 0, (0,2) = (0,3) -0.707.
SD4 = np.array([[0, 3, 0, 0],
                [3, 0, 1, 2],
                [0, 1, 0, 2],
                [0, 2, 2, 0]], dtype=float)


def pairs(M):
    """Retained pairs i < j of a sparsified matrix (its pattern above the diagonal)."""
    upper = sp.triu(M, k=1, format="coo")
    return set(zip(upper.row.tolist(), upper.col.tolist()))


def circulant(values):
    n = len(values)
    return np.array([[values[(j - i) % n] for j in range(n)] for i in range(n)])


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few rows and a pool cut back at every block: every code path on tiny S."""
    monkeypatch.setattr(_sparsify, "_BLOCK_VALUES", 8)
    monkeypatch.setattr(_sparsify, "_POOL_SLACK", 0)


# --- k-NN, hand-computed ----------------------------------------------------------------------

def test_knn_keeps_each_rows_k_highest_then_the_union():
    M = knn_sparsify(S4, 1)
    # Row 0 -> 1, row 1 -> 0, row 2 -> 3, row 3 -> 1. Row 1 does not choose 3, but row 3
    # chooses 1, and the union keeps the pair in both places.
    assert pairs(M) == {(0, 1), (2, 3), (1, 3)}
    assert M[1, 3] == M[3, 1] == 0.8
    np.testing.assert_array_equal(M.diagonal(), np.ones(4))
    assert sp.isspmatrix_csr(M) and M.nnz == 4 + 2 * 3


def test_knn_with_k_two_and_the_full_matrix():
    assert pairs(knn_sparsify(S4, 2)) == {(0, 1), (0, 3), (1, 3), (2, 3), (1, 2)}
    everything = {(i, j) for i in range(4) for j in range(i + 1, 4)}
    assert pairs(knn_sparsify(S4, 3)) == pairs(knn_sparsify(S4, 50)) == everything
    np.testing.assert_array_equal(knn_sparsify(S4, 3).toarray(), S4)


def test_knn_ties_go_to_the_smaller_column():
    S = np.full((4, 4), 0.5)
    # Every row ties everywhere: rows 1, 2 and 3 all choose 0, row 0 chooses 1.
    assert pairs(knn_sparsify(S, 1)) == {(0, 1), (0, 2), (0, 3)}


def test_knn_copies_both_directions_of_a_non_symmetric_matrix():
    S = np.array([[0.0, 0.9, 0.1], [0.2, 0.0, 0.7], [0.1, 0.3, 0.0]])
    M = knn_sparsify(S, 1).toarray()
    # Row 0 -> 1, row 1 -> 2, row 2 -> 1: pairs (0,1) and (1,2), each with s_ij and s_ji.
    np.testing.assert_array_equal(M, [[1.0, 0.9, 0.0], [0.2, 1.0, 0.7], [0.0, 0.3, 1.0]])


# --- Algorithm 2, hand-computed ---------------------------------------------------------------

def test_row_statistics_leave_the_diagonal_out():
    S = SD4 + 100 * np.eye(4)  # the diagonal must not count
    mean, std = row_statistics(S)
    np.testing.assert_allclose(mean, [1, 2, 1, 4 / 3])
    np.testing.assert_allclose(std, [math.sqrt(2), math.sqrt(2 / 3), math.sqrt(2 / 3),
                                     math.sqrt(8 / 9)])


@pytest.mark.parametrize("n, K, expected", [
    (4, 1, 6), (4, 2, 2), (4, 3, 0), (4, 4, 0), (5, 2, 3), (1, 1, 0),
    (2472, 89, 33094), (2280, 8, 323760), (20000, 20, 9_990_000),
])
def test_budget_is_floor_of_n_l_over_two(n, K, expected):
    assert sd_budget(n, K) == expected == math.floor(n * (n / K - 1) / 2 + 1e-9)


def test_sd_keeps_the_top_n_pairs_by_max_deviation():
    assert pairs(sd_sparsify(SD4, 2)) == {(0, 1), (2, 3)}
    np.testing.assert_array_equal(sd_sparsify(SD4, 2).toarray(),
                                  [[1, 3, 0, 0], [3, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    assert len(pairs(sd_sparsify(SD4, 1))) == 6
    assert pairs(sd_sparsify(SD4, 3)) == pairs(sd_sparsify(SD4, 4)) == set()
    np.testing.assert_array_equal(sd_sparsify(SD4, 4).toarray(), np.eye(4))


@pytest.mark.kernels
def test_sd_ties_go_to_the_earlier_pair_in_row_major_order(small_blocks):
    # Every row holds {0.5, 0.25, 0.25, 0.5}: mu 0.375, sigma 0.125, a = +-1 exactly, so the
    # five neighbouring pairs tie at 1. N = floor(5 * 1.5 / 2) = 3 of them are kept: the
    # first three of (0,1), (0,4), (1,2), (2,3), (3,4).
    S = circulant([1.0, 0.5, 0.25, 0.25, 0.5])
    assert pairs(sd_sparsify(S, 2)) == {(0, 1), (0, 4), (1, 2)}
    assert sd_sparsify_naive(S.tolist(), 2)[1] == {(0, 1), (0, 4), (1, 2)}


@pytest.mark.kernels
def test_sd_rows_without_spread_score_zero_instead_of_nan():
    S = SD4.copy()
    S[0, :] = 0.0  # sigma_0 = 0: a_0j = 0, so (0, 2) and (0, 3) now score 0
    M = sd_sparsify(S, 1)
    assert np.isfinite(M.data).all() and len(pairs(M)) == 6
    assert pairs(sd_sparsify(S, 2)) == sd_sparsify_naive(S.tolist(), 2)[1]


def test_a_retained_similarity_of_zero_stays_in_the_pattern():
    S = np.zeros((3, 3))
    M = sd_sparsify(S, 1)  # N = 3: every pair, all with similarity 0
    assert M.nnz == 3 + 6 and pairs(M) == {(0, 1), (0, 2), (1, 2)}


def test_float32_in_float32_out():
    M = sd_sparsify(SD4.astype(np.float32), 2)
    assert M.dtype == np.float32 and knn_sparsify(S4.astype(np.float32), 1).dtype == np.float32


# --- against the slow references --------------------------------------------------------------

@pytest.mark.kernels
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [2, 3, 7, 23])
@pytest.mark.parametrize("symmetric", [True, False])
def test_both_match_the_naive_references(seed, n, symmetric, small_blocks):
    rng = np.random.default_rng(seed)
    S = rng.random((n, n))
    if symmetric:
        S = (S + S.T) / 2
    for k in sorted({1, 2, max(1, n // 3), n - 1, n + 3}):
        expected, kept = knn_sparsify_naive(S.tolist(), k)
        M = knn_sparsify(S, k)
        assert pairs(M) == kept
        np.testing.assert_array_equal(M.toarray(), expected)
    for K in sorted({1, 2, 3, max(1, n // 4), n} - {0}):
        if K > n:
            continue
        expected, kept = sd_sparsify_naive(S.tolist(), K)
        M = sd_sparsify(S, K)
        assert pairs(M) == kept
        np.testing.assert_array_equal(M.toarray(), expected)
    mean, std = row_statistics(S)
    ref_mean, ref_std = row_statistics_naive(S.tolist())
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(std, ref_std, rtol=1e-12, atol=1e-15)


@pytest.mark.kernels
@pytest.mark.parametrize("seed", range(6))
def test_knn_matches_the_reference_on_heavy_ties(seed, small_blocks):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 3, size=(17, 17)).astype(float)
    for k in (1, 2, 5, 9):
        assert pairs(knn_sparsify(S, k)) == knn_sparsify_naive(S.tolist(), k)[1]


@pytest.mark.kernels
@pytest.mark.parametrize("seed", range(6))
def test_sd_on_heavy_ties_keeps_n_pairs_none_beaten_by_a_dropped_one(seed, small_blocks):
    # Integer similarities tie a lot; rounding in mu and sigma may order mathematically
    # equal scores of different rows either way, so compare scores, not the pair sets.
    rng = np.random.default_rng(seed)
    n, K = 19, 3
    S = rng.integers(0, 3, size=(n, n)).astype(float)
    S = np.maximum(S, S.T)
    mean, std = row_statistics_naive(S.tolist())
    A = (S - np.array(mean)[:, None]) / np.array(std)[:, None]
    score = np.maximum(A, A.T)
    kept = pairs(sd_sparsify(S, K))
    dropped = {(i, j) for i in range(n) for j in range(i + 1, n)} - kept
    assert len(kept) == sd_budget(n, K)
    assert min(score[p] for p in kept) >= max(score[p] for p in dropped) - 1e-12


def test_block_size_does_not_change_the_result(monkeypatch):
    rng = np.random.default_rng(9)
    S = rng.random((40, 40)).astype(np.float32)
    S = (S + S.T) / 2
    big_knn, big_sd = knn_sparsify(S, 4), sd_sparsify(S, 5)
    monkeypatch.setattr(_sparsify, "_BLOCK_VALUES", 50)
    monkeypatch.setattr(_sparsify, "_POOL_SLACK", 0)
    assert (knn_sparsify(S, 4) != big_knn).nnz == 0
    assert (sd_sparsify(S, 5) != big_sd).nnz == 0


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: knn_sparsify(S4, 0), "k must be an integer >= 1"),
    (lambda: knn_sparsify(S4, 1.5), "k must be an integer"),
    (lambda: knn_sparsify(S4, True), "k must be an integer"),
    (lambda: sd_sparsify(S4, 0), "n_clusters must be an integer >= 1"),
    (lambda: sd_sparsify(S4, 5), "n_clusters=5 is more than the 4 rows"),
    (lambda: sd_sparsify(np.ones((2, 3)), 1), "square"),
    (lambda: knn_sparsify(np.ones(4), 1), "square"),
    (lambda: sd_sparsify(np.zeros((0, 0)), 1), "non-empty"),
    (lambda: sd_sparsify(np.array([[1.0, np.nan], [0.0, 1.0]]), 1), "NaN"),
    (lambda: knn_sparsify(np.array([["a", "b"], ["c", "d"]]), 1), "numeric"),
])
def test_bad_input_is_a_one_line_parameter_error(call, message):
    with pytest.raises(ParameterError, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_a_single_text_and_sparse_input():
    np.testing.assert_array_equal(sd_sparsify(np.array([[0.3]]), 1).toarray(), [[1.0]])
    np.testing.assert_array_equal(knn_sparsify(np.array([[0.3]]), 4).toarray(), [[1.0]])
    assert pairs(knn_sparsify(sp.csr_matrix(S4), 1)) == {(0, 1), (2, 3), (1, 3)}


@pytest.mark.kernels
@pytest.mark.parametrize("guess", [np.inf, 2.0, 0.0, -np.inf])
def test_sd_is_exact_whatever_the_sampled_cutoff(guess, monkeypatch):
    # The cut-off estimated from sampled rows only saves work: too high a guess (fewer than N
    # pairs reach it) is detected and the search restarts from -inf.
    rng = np.random.default_rng(21)
    S = rng.random((60, 60))
    S = (S + S.T) / 2
    expected = sd_sparsify_naive(S.tolist(), 6)[1]
    monkeypatch.setattr(_sparsify, "_estimated_cutoff", lambda *args: guess)
    assert pairs(sd_sparsify(S, 6)) == expected
