"""Similarity-matrix sparsification: k-NN (section 4.1) and similarity distribution (Algorithm 2).

Rakib, Zeh, Jankowska and Milios, "Enhancement of Short Text Clustering by Iterative
Classification", section 4. Both functions take a square similarity matrix ``S`` and return
the sparsified matrix ``M`` as a symmetric-pattern ``scipy.sparse.csr_matrix`` with an
identity diagonal (Algorithm 2, line 1; the diagonal plays no part in clustering) and
``m_ij = s_ij``, ``m_ji = s_ji`` at every retained position. A retained pair is stored even
when its similarity is 0, so the pattern says what was kept.

Both work on a dense ``S`` one block of rows at a time, so that besides ``S`` itself (a
20,000 x 20,000 float32 matrix is 1.6 GB) they hold only a few blocks of about
``_BLOCK_VALUES`` values and the retained pairs: no second n x n array is made.

Ties are broken the same way in both, so the result is a function of ``S`` alone: among
equal candidates the one earlier in row-major order (smaller ``i``, then smaller ``j``) wins,
which is what a stable sort of Algorithm 2's list L (built row by row) gives.
"""

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.base import Integer

__all__ = ["knn_sparsify", "sd_sparsify", "sd_budget", "row_statistics"]

# Values per block of rows (float64 temporaries of 32 MiB each).
_BLOCK_VALUES = 2**22
# Algorithm 2's candidate pool is cut back to N once it holds more than 2 N + this.
_POOL_SLACK = 2**20
# Rows sampled to estimate Algorithm 2's cut-off, aimed at about this many times N pairs.
_SAMPLE_ROWS = 256
_SAMPLE_MARGIN = 1.5


def knn_sparsify(S, k):
    """k-nearest-neighbours sparsification of a similarity matrix (section 4.1).

    For each text t_i the k highest similarities s_ij outside the diagonal are retained.
    The result is then symmetrised as the paper prescribes: "we symmetrize the sparsified
    similarity matrix by retaining both s_ij and s_ji, if any of the similarities among
    s_ij and s_ji is retained" -- the union (OR) of the two neighbour lists, not the mutual
    k-NN graph. A row can therefore keep more than k entries, never fewer.

    Parameters
    ----------
    S : array-like of shape (n, n)
        Similarities, finite; need not be symmetric (each row ranks its own entries).
        A sparse matrix is densified (meant for small matrices).
    k : int
        Neighbours kept per row, >= 1. ``k >= n - 1`` keeps every off-diagonal entry.

    Returns
    -------
    M : scipy.sparse.csr_matrix of shape (n, n)
        Identity diagonal, ``s_ij`` and ``s_ji`` at each retained pair, nothing else.

    Notes
    -----
    A row's k-th largest value is read from the row sorted by numpy (vectorised; its
    selection routine is much slower on rows of many equal zeros, as TF-IDF rows are).
    When several entries tie at that value, those with the smallest column index are kept.

    Examples
    --------
    >>> S = np.array([[1., .9, .1, .2], [.9, 1., .3, .8], [.1, .3, 1., .4], [.2, .8, .4, 1.]])
    >>> knn_sparsify(S, 1).toarray().tolist()
    [[1.0, 0.9, 0.0, 0.0], [0.9, 1.0, 0.0, 0.8], [0.0, 0.0, 1.0, 0.4], [0.0, 0.8, 0.4, 1.0]]
    """
    S = _square(S)
    Integer(1).check(k, "k")
    n = S.shape[0]
    if k >= n - 1:
        upper = np.triu_indices(n, 1)
        return _pattern_matrix(S, upper[0], upper[1])
    keys = _distinct(np.concatenate([_knn_block_keys(S, start, stop, k)
                                     for start, stop in _row_blocks(n)]))
    return _pattern_matrix(S, keys // n, keys % n)


def sd_sparsify(S, n_clusters):
    """Similarity-distribution-based sparsification: Algorithm 2 (section 4.2).

    For each row i, ``mu_i`` and ``sigma_i`` are the mean and standard deviation of its
    n - 1 entries outside the diagonal (line 6), and ``a_ij = (s_ij - mu_i) / sigma_i``
    (line 8). The pairs i < j are ranked by ``max(a_ij, a_ji)`` in descending order (lines
    11-17) and the first ``N = floor(n * l / 2)`` of them, with ``l = n / K - 1``, are copied
    from S into the identity matrix in both positions (lines 18-21): "sparsification with
    exclusion", a pair is dropped only if neither ``s_ij`` nor ``s_ji`` qualifies. The
    average number of off-diagonal entries per row is then ``2 N / n ~ l``, the count a row
    would have if the K clusters were of equal size n/K and only the similarities within a
    cluster were kept.

    Parameters
    ----------
    S : array-like of shape (n, n)
        Similarities, finite; need not be symmetric. A sparse matrix is densified.
    n_clusters : int
        K, the number of clusters wanted; ``1 <= K <= n``.

    Returns
    -------
    M : scipy.sparse.csr_matrix of shape (n, n)
        Identity diagonal, ``s_ij`` and ``s_ji`` at the N retained pairs, nothing else.

    Notes
    -----
    ``sigma_i`` is the population standard deviation (divide by n - 1, the number of
    entries); any other normalisation scales every ``a_ij`` by the same factor and leaves the
    ranking unchanged. A row whose off-diagonal entries are all equal (``sigma_i = 0``, e.g.
    an empty document's zero row) has ``a_ij = 0``: each of its entries is exactly its mean.
    ``a`` is computed in float64 whatever the dtype of S.

    The N-th largest score (the paper's alpha) is found without sorting the n(n-1)/2 pairs.
    A first guess at it comes from the scores of 256 evenly spaced rows (the value about
    1.5 N pairs reach); each block of rows then adds only its pairs at or above the cut-off
    to a pool, which ``np.partition`` cuts back to the N best (ties at the cut-off kept)
    whenever it grows past ~2N. The result is exact whatever the guess: if fewer than N
    pairs reach it, the search starts again from -inf. Finally the pairs above alpha are
    kept, and of those equal to it the earliest in row-major order. On StackOverflow
    (n = 20,000, K = 20, N = 9,990,000) this takes about 8-12 s on one core, beside S.

    Examples
    --------
    >>> S = np.array([[0, 3, 0, 0], [3, 0, 1, 2], [0, 1, 0, 2], [0, 2, 2, 0]], dtype=float)
    >>> sd_sparsify(S, 2).toarray().tolist()  # N = 2: pairs (0, 1) and (2, 3)
    [[1.0, 3.0, 0.0, 0.0], [3.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 2.0, 1.0]]
    """
    S = _square(S)
    n = S.shape[0]
    n_keep = sd_budget(n, n_clusters)
    if n_keep == 0:
        return _pattern_matrix(S, np.zeros(0, np.int64), np.zeros(0, np.int64))
    mean, std = row_statistics(S)
    keys = _top_pair_keys(S, mean, std, n_keep)
    return _pattern_matrix(S, keys // n, keys % n)


def sd_budget(n, n_clusters):
    """N = floor(n * l / 2) with l = n / K - 1: pairs i < j that Algorithm 2 retains (line 4)."""
    Integer(1).check(n_clusters, "n_clusters")
    if n_clusters > n:
        raise ParameterError(
            f"n_clusters={n_clusters} is more than the {n} rows of the similarity matrix: "
            "lower n_clusters"
        )
    # n * (n / K - 1) / 2 in integers, so that no rounding can move the floor.
    return (n * (n - n_clusters)) // (2 * n_clusters)


def row_statistics(S):
    """Mean and population standard deviation of each row's off-diagonal entries (float64).

    Two passes over each block of rows (mean, then squared deviations) rather than sums of
    squares, which lose precision when the spread is small against the mean.
    """
    n = S.shape[0]
    mean = np.zeros(n)
    std = np.zeros(n)
    if n < 2:
        return mean, std
    for start, stop in _row_blocks(n):
        block = np.array(S[start:stop], dtype=np.float64)
        rows = np.arange(stop - start)
        diagonal = block[rows, start + rows].copy()
        mean[start:stop] = (block.sum(axis=1) - diagonal) / (n - 1)
        block -= mean[start:stop, None]
        block[rows, start + rows] = 0.0  # the diagonal does not count
        std[start:stop] = np.sqrt(np.einsum("ij,ij->i", block, block) / (n - 1))
    return mean, std


# --- k-NN -------------------------------------------------------------------------------------

def _knn_block_keys(S, start, stop, k):
    """Row-major keys ``min(i,j) * n + max(i,j)`` of each row's k nearest, rows start..stop."""
    n = S.shape[0]
    block = np.array(S[start:stop])  # a copy: its diagonal is overwritten
    rows = np.arange(stop - start)
    block[rows, start + rows] = -np.inf  # never a neighbour of itself
    # A full sort, not np.partition: rows of sparse texts are mostly equal zeros, on which
    # numpy's introselect is many times slower than its vectorised sort (measured: 7x).
    kth = np.sort(block, axis=1)[:, n - k][:, None]
    above = block > kth
    # Of the entries equal to the k-th value, the leftmost fill the remaining places.
    tied = block == kth
    places = k - above.sum(axis=1, keepdims=True)
    keep = above | (tied & (np.cumsum(tied, axis=1) <= places))
    i, j = np.nonzero(keep)
    i += start
    return np.minimum(i, j).astype(np.int64) * n + np.maximum(i, j)


# --- similarity distribution ----------------------------------------------------------------

def _top_pair_keys(S, mean, std, n_keep):
    """Row-major keys ``i * n + j`` (i < j) of the ``n_keep`` pairs of highest max(a_ij, a_ji)."""
    scale = np.divide(1.0, std, out=np.zeros_like(std), where=std > 0)
    keys = _collect(S, mean, scale, n_keep, _estimated_cutoff(S, mean, scale, n_keep))
    if keys is None:  # the estimate was too high: fewer than N pairs reach it
        keys = _collect(S, mean, scale, n_keep, -np.inf)
    return keys


def _collect(S, mean, scale, n_keep, cutoff):
    """Keys of the best ``n_keep`` pairs, looking only at scores >= ``cutoff``; None if too few."""
    n = S.shape[0]
    pool = _CandidatePool(n_keep, cutoff)
    for start, stop in _row_blocks(n):
        scores = _block_scores(S, mean, scale, start, stop)
        # NaN on and below the diagonal: it fails every comparison, so only i < j is taken.
        square = scores[:, :stop - start]
        square[np.tril_indices(stop - start)] = np.nan
        rows, cols = np.nonzero(scores >= pool.cutoff)
        keys = (rows + start).astype(np.int64) * n + (cols + start)
        pool.add(scores[rows, cols], keys)
    return pool.best()


def _estimated_cutoff(S, mean, scale, n_keep):
    """A score that about ``_SAMPLE_MARGIN * N`` pairs reach, from the rows of a sample.

    Starting the candidate pool at this cut-off instead of -inf spares it most of the
    n(n-1)/2 scores. It is only an estimate: :func:`_collect` reports when fewer than N
    pairs reach it, and the caller then starts again from -inf, so the result stays exact.
    """
    n = S.shape[0]
    fraction = _SAMPLE_MARGIN * n_keep / (n * (n - 1) / 2)
    if fraction >= 0.5:
        return -np.inf  # most pairs are kept: nothing to spare
    rows = np.unique(np.linspace(0, n - 1, num=min(n, _SAMPLE_ROWS)).astype(np.int64))
    a_row = (np.array(S[rows], dtype=np.float64) - mean[rows, None]) * scale[rows, None]
    a_col = (np.array(S[:, rows].T, dtype=np.float64) - mean[None, :]) * scale[None, :]
    scores = np.maximum(a_row, a_col)
    scores[np.arange(rows.size), rows] = np.nan  # no pair with itself
    scores = scores[~np.isnan(scores)]
    position = int(scores.size * (1 - fraction))
    return np.partition(scores, position)[position]


def _block_scores(S, mean, scale, start, stop):
    """max(a_ij, a_ji) for rows i in start..stop and columns j in start..n-1 (float64).

    a_ji needs row j's statistics and s_ji, read as the column block ``S[start:, i]``; for a
    symmetric S that equals s_ij, but reading it keeps the function right for any S.
    """
    rows = np.array(S[start:stop, start:], dtype=np.float64)
    rows -= mean[start:stop, None]
    rows *= scale[start:stop, None]
    cols = np.array(S[start:, start:stop].T, dtype=np.float64)
    cols -= mean[None, start:]
    cols *= scale[None, start:]
    return np.maximum(rows, cols, out=rows)


class _CandidatePool:
    """The ``size`` best (score, key) pairs at or above ``cutoff``, with every tie.

    Keys arrive in increasing (row-major) order and every step keeps that order, so among
    equal scores the earlier pair is always the one found first.
    """

    def __init__(self, size, cutoff=-np.inf):
        self.size = size
        self.cutoff = cutoff  # no candidate below it can be among the best
        self.scores, self.keys, self.held = [], [], 0

    def add(self, scores, keys):
        self.scores.append(scores)
        self.keys.append(keys)
        self.held += scores.size
        if self.held > 2 * self.size + _POOL_SLACK:
            self._shrink()

    def _shrink(self):
        scores = np.concatenate(self.scores)
        keys = np.concatenate(self.keys)
        if scores.size > self.size:
            # The size-th largest score; everything at or above it stays (ties included).
            self.cutoff = np.partition(scores, scores.size - self.size)[scores.size - self.size]
            wanted = scores >= self.cutoff
            scores, keys = scores[wanted], keys[wanted]
        self.scores, self.keys, self.held = [scores], [keys], scores.size

    def best(self):
        """Keys of the best ``size`` pairs (above the cut-off, then the earliest ties), or None.

        None when fewer than ``size`` candidates reached the initial cut-off.
        """
        self._shrink()
        scores, keys = self.scores[0], self.keys[0]
        if scores.size < self.size:
            return None
        above = scores > self.cutoff
        tied = np.flatnonzero(scores == self.cutoff)[:self.size - int(above.sum())]
        return np.concatenate([keys[above], keys[tied]])


# --- shared -----------------------------------------------------------------------------------

def _row_blocks(n):
    """(start, stop) of consecutive blocks of rows holding about ``_BLOCK_VALUES`` values."""
    step = max(1, _BLOCK_VALUES // max(n, 1))
    return [(start, min(n, start + step)) for start in range(0, n, step)]


def _distinct(keys):
    """The distinct values of an int64 array, sorted.

    Sorting and dropping repeats: numpy 2's hash-based ``np.unique`` was 20x slower on
    the tens of millions of keys of a 20,000-text k-NN graph.
    """
    keys = np.sort(keys)
    first = np.ones(keys.size, dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return keys[first]


def _pattern_matrix(S, i, j):
    """CSR matrix with an identity diagonal and S's values at (i, j) and (j, i), i != j."""
    n = S.shape[0]
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    diagonal = np.arange(n)
    rows = np.concatenate([diagonal, i, j])
    cols = np.concatenate([diagonal, j, i])
    values = np.concatenate([np.ones(n, dtype=S.dtype), S[i, j], S[j, i]])
    # coo -> csr keeps explicit zeros: a retained similarity of 0 stays in the pattern.
    return sp.coo_matrix((values, (rows, cols)), shape=(n, n)).tocsr()


def _square(S):
    """A dense square float matrix with finite values, or a one-line ParameterError."""
    if sp.issparse(S):
        S = S.toarray()
    S = np.asarray(S)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ParameterError(
            f"the similarity matrix must be square and non-empty, got shape {S.shape}"
        )
    if not np.issubdtype(S.dtype, np.floating):
        if not (np.issubdtype(S.dtype, np.integer) or S.dtype == np.bool_):
            raise ParameterError(f"the similarity matrix must be numeric, got {S.dtype}")
        S = S.astype(np.float64)
    for start, stop in _row_blocks(S.shape[0]):
        if not np.isfinite(S[start:stop]).all():
            raise ParameterError("the similarity matrix contains NaN or infinite values")
    return S
