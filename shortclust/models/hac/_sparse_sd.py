"""Algorithm 2 (similarity-distribution sparsification) from the vectors, without S.

Rakib, Zeh, Jankowska and Milios, section 4.2. :func:`~shortclust.models.hac._sparsify.sd_sparsify`
reads a dense n x n similarity matrix S (1.6 GB in float32 at n = 20,000, 160 GB at
200,000). This module gives the same retained pairs from the unit vectors V alone, by
recomputing blocks of rows of ``S = V V^T`` with BLAS, twice:

1. each row's off-diagonal mean and standard deviation (Algorithm 2, line 6);
2. the pairs i < j whose score ``max(a_ij, a_ji)`` (line 8) reaches a cut-off, into the
   candidate pool of ``_sparsify`` that keeps the ``N`` best (ties: row-major order).

Each block is computed in float64 and rounded to float32, the values the dense path stores
in S, so the scores, the cut-off and the pairs kept are those of the dense path (up to
BLAS summing a product in another order in another block, a last-bit difference).
Memory: the vectors, one block of ``_BLOCK_VALUES`` products, and the pool of about
``2 N`` candidates (``N = floor(n l / 2)``, ``l = n / K - 1``, 16 bytes each) -- the method's
own output size, O(n l), instead of O(n^2). Time is still O(n^2 d): every pair is scored.

``fast=True`` (dense vectors only; what ``HACSimilarity`` uses past ``max_docs``, where the
dense path cannot run to be matched) skips the first pass: with ``u = sum_j v_j`` and the
d x d Gram matrix ``G = V^T V``, row i's off-diagonal sum is ``v_i . u - |v_i|^2`` and its
sum of squares ``v_i^T G v_i - |v_i|^4``, so the statistics cost O(n d^2), exact in float64
(the exact pass sums products rounded to float32). The second pass then multiplies in
float32. Both change scores in their last bits only, so the kept pairs can differ from
the exact ones only where two scores tie to float32 precision at the cut-off.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit

from shortclust.models.hac._sparsify import (_SAMPLE_MARGIN, _SAMPLE_ROWS, _CandidatePool,
                                             sd_budget)

__all__ = ["sd_pairs"]

# Products per block of rows (float64, 128 MiB, plus its float32 copy).
_BLOCK_VALUES = 2**24


def sd_pairs(vectors, n_clusters, fast=False):
    """The pairs Algorithm 2 keeps, from unit rows V (dense or CSR), and their similarities.

    ``fast``: for dense V, the row statistics from the Gram matrix and float32 products
    (module docstring); ignored for CSR.

    Returns
    -------
    rows, cols : ndarray of int64
        The ``N = sd_budget(n, K)`` retained pairs, ``rows < cols``, in row-major order.
    similarities : ndarray of float32
        ``s_ij`` of each pair.
    """
    n = vectors.shape[0]
    n_keep = sd_budget(n, n_clusters)
    empty = np.zeros(0, np.int64)
    if n_keep == 0 or n < 2:
        return empty, empty, np.zeros(0, np.float32)
    fast = fast and not sp.issparse(vectors)
    mean, std = _gram_statistics(vectors) if fast else _row_statistics(vectors)
    scale = np.divide(1.0, std, out=np.zeros_like(std), where=std > 0)
    products = vectors.astype(np.float32) if fast else vectors
    keys = _collect(products, mean, scale, n_keep,
                    _estimated_cutoff(vectors, mean, scale, n_keep))
    if keys is None:  # fewer than N pairs reached the estimate: start again from -inf
        keys = _collect(products, mean, scale, n_keep, -np.inf)
    del products
    keys = np.sort(keys)
    rows, cols = keys // n, keys % n
    return rows, cols, _pair_similarities(vectors, rows, cols)


def _blocks(n, columns):
    step = max(1, _BLOCK_VALUES // max(columns, 1))
    return [(start, min(n, start + step)) for start in range(0, n, step)]


def _products(vectors, start, stop, col_start=0):
    """``S[start:stop, col_start:]`` rounded to float32, as the dense path stores S (float32
    vectors: multiplied in float32)."""
    block = vectors[start:stop] @ vectors[col_start:].T
    if sp.issparse(block):
        block = block.toarray()
    return np.ascontiguousarray(block, dtype=np.float32)


def _row_statistics(vectors):
    """Off-diagonal mean and population std of each row of S (float64, two passes per row)."""
    n = vectors.shape[0]
    mean = np.zeros(n)
    std = np.zeros(n)
    for start, stop in _blocks(n, n):
        _statistics_kernel(_products(vectors, start, stop), start, mean, std)
    return mean, std


def _gram_statistics(vectors):
    """Off-diagonal mean and population std of each row of ``V V^T``, in O(n d^2).

    Row i's off-diagonal entries sum to ``v_i . u - |v_i|^2`` (``u``: the sum of the rows)
    and their squares to ``v_i^T G v_i - |v_i|^4`` (``G = V^T V``); all in float64.
    """
    v = np.asarray(vectors, dtype=np.float64)
    n = v.shape[0]
    norms = np.einsum("ij,ij->i", v, v)
    mean = (v @ v.sum(axis=0) - norms) / (n - 1)
    squares = np.einsum("ij,ij->i", v @ (v.T @ v), v) - norms * norms
    return mean, np.sqrt(np.maximum(squares / (n - 1) - mean * mean, 0.0))


@njit(cache=True)
def _statistics_kernel(block, start, mean, std):
    n = block.shape[1]
    for r in range(block.shape[0]):
        i = start + r
        total = 0.0
        for j in range(n):
            if j != i:
                total += np.float64(block[r, j])
        mu = total / (n - 1)
        spread = 0.0
        for j in range(n):
            if j != i:
                deviation = np.float64(block[r, j]) - mu
                spread += deviation * deviation
        mean[i] = mu
        std[i] = np.sqrt(spread / (n - 1))


def _collect(vectors, mean, scale, n_keep, cutoff):
    """Keys ``i n + j`` of the best ``n_keep`` pairs with scores >= ``cutoff``; None if too few."""
    n = vectors.shape[0]
    pool = _CandidatePool(n_keep, cutoff)
    for start, stop in _blocks(n, n // 2 + 1):
        scores, keys = _filter_kernel(_products(vectors, start, stop, start), start, n, mean,
                                      scale, pool.cutoff)
        pool.add(scores, keys)
    return pool.best()


@njit(cache=True)
def _grown_pairs(scores, keys, count, capacity):
    """Copies of the first ``count`` scores and pair keys in arrays of ``capacity`` slots.

    The kernels that collect pairs do not know how many they will keep; they grow their
    two buffers together with this when one is full.
    """
    grown_scores = np.empty(capacity)
    grown_scores[:count] = scores[:count]
    grown_keys = np.empty(capacity, dtype=np.int64)
    grown_keys[:count] = keys[:count]
    return grown_scores, grown_keys


@njit(cache=True)
def _filter_kernel(block, start, n, mean, scale, cutoff):
    """Scores max(a_ij, a_ji) >= cutoff of the pairs i < j in the block, row-major."""
    capacity = 1024
    scores = np.empty(capacity)
    keys = np.empty(capacity, dtype=np.int64)
    count = 0
    for r in range(block.shape[0]):
        i = start + r
        for j in range(i + 1, n):
            s = np.float64(block[r, j - start])
            a_ij = (s - mean[i]) * scale[i]
            a_ji = (s - mean[j]) * scale[j]
            score = a_ij if a_ij >= a_ji else a_ji
            if score >= cutoff:
                if count == capacity:
                    capacity *= 2
                    scores, keys = _grown_pairs(scores, keys, count, capacity)
                scores[count] = score
                keys[count] = np.int64(i) * n + j
                count += 1
    return scores[:count], keys[:count]


def _estimated_cutoff(vectors, mean, scale, n_keep):
    """The score about ``_SAMPLE_MARGIN * N`` pairs reach, from sampled rows (as ``_sparsify``)."""
    n = vectors.shape[0]
    fraction = _SAMPLE_MARGIN * n_keep / (n * (n - 1) / 2)
    if fraction >= 0.5:
        return -np.inf
    rows = np.unique(np.linspace(0, n - 1, num=min(n, _SAMPLE_ROWS)).astype(np.int64))
    # The sampled rows' scores, a few rows at a time: one float64 array of rows x n (2 GB
    # at a million texts) instead of four, partitioned in place.
    scores = np.empty((rows.size, n))
    step = max(1, _BLOCK_VALUES // (4 * n))
    for start in range(0, rows.size, step):
        chunk = rows[start:start + step]
        sample = vectors[chunk] @ vectors.T
        sample = np.asarray(sample.toarray() if sp.issparse(sample) else sample,
                            dtype=np.float32).astype(np.float64)
        np.maximum((sample - mean[chunk, None]) * scale[chunk, None],
                   (sample - mean[None, :]) * scale[None, :], out=scores[start:start + step])
    # The diagonal left out: -inf sorts below every score, so skip that many.
    scores[np.arange(rows.size), rows] = -np.inf
    scores = scores.ravel()
    position = rows.size + int((scores.size - rows.size) * (1 - fraction))
    scores.partition(position)
    return scores[position]


def _pair_similarities(vectors, rows, cols, chunk=1 << 20):
    """``v_i . v_j`` of each pair, rounded to float32, a chunk of pairs at a time."""
    out = np.empty(rows.size, dtype=np.float32)
    for start in range(0, rows.size, chunk):
        i, j = rows[start:start + chunk], cols[start:start + chunk]
        if sp.issparse(vectors):
            values = np.asarray(vectors[i].multiply(vectors[j]).sum(axis=1)).ravel()
        else:
            values = np.einsum("ij,ij->i", vectors[i], vectors[j])
        out[start:start + chunk] = values
    return out
