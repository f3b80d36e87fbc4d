"""Algorithm 2's candidate pairs from an approximate nearest-neighbour index (HNSW).

Rakib, Zeh, Jankowska and Milios, section 4.2: Algorithm 2 keeps the ``N = floor(n l / 2)``
pairs of highest score ``max(a_ij, a_ji)`` (line 8), ``a_ij = (s_ij - mu_i) / sigma_i``.
:mod:`_sparse_sd` finds them by scoring all ``n (n - 1) / 2`` pairs: O(n^2 d) time, 313 s
of CPU at 200,000 texts, about 25 times that at a million. This module scores only the
pairs an index proposes, in about O(n k log n) time.

Why neighbour lists suffice. For a fixed row i, ``a_ij`` grows with ``s_ij``, so the j
with ``a_ij >= c`` are exactly i's nearest neighbours by cosine down to the similarity
``t_i = mu_i + c sigma_i``. A pair is kept when ``max(a_ij, a_ji) >= c*`` (c*: the N-th
best score); it is then in the neighbour list of the row that realises the max, provided
that list reaches down to ``t_i``. So:

1. ``mu_i``, ``sigma_i`` exactly from the Gram matrix (``_sparse_sd._gram_statistics``), and
   a cut-off ``c`` that about 1.5 N pairs reach, from 256 rows scored exactly
   (``_sparse_sd._estimated_cutoff``); c <= c* whenever at least N pairs reach c.
2. Each row's ``k = 2 (l + 1)`` nearest neighbours from an HNSW graph (hnswlib, inner product
   on the unit rows); a row whose k-th neighbour still has ``s >= t_i`` (its list may stop
   short of ``t_i``) is asked again with twice the k, up to ``_MAX_DOUBLINGS`` times.
3. Each listed pair is scored exactly (``v_i . v_j`` in float32, as the fast exact route
   does) and emitted from the row that realises its max (ties: from the smaller index), so
   a pair is counted once; those reaching ``c`` go to ``_sparsify``'s candidate pool, which
   keeps the N best.

What is approximate is the index alone: HNSW may miss a true neighbour, and a hub row still
incomplete after the doublings is cut. The pairs that are kept are scored exactly; on
20,000 texts the recall of the exact route's kept pairs is measured
(``benchmarks/bench_hac_sd_ann.py``, ``tests/models/test_hac_ann.py``). The HNSW graph is
built on one thread with a fixed seed, so a fit is reproducible.
"""

import numpy as np
from numba import njit

from shortclust.models.hac._sparse_sd import (_estimated_cutoff, _gram_statistics,
                                              _pair_similarities)
from shortclust.models.hac._sparsify import _CandidatePool, sd_budget

__all__ = ["ann_sd_pairs", "hnswlib_available"]

# HNSW graph: links per node and the construction beam (hnswlib's documented defaults for
# good recall); the query beam is twice the neighbours asked for, at least _EF_MIN.
_HNSW_M = 16
_EF_CONSTRUCTION = 200
_EF_MIN = 64
_MAX_DOUBLINGS = 4
_QUERY_VALUES = 2**23  # neighbour labels held per query chunk
_QUERY_BLOCK = 16  # rows per hnswlib query call (see _knn: a refused call is redone)
_INDEX_CHUNK = 2**16  # rows added to the graph per call (progress for a watcher)


def hnswlib_available():
    """Whether hnswlib (the ``ann`` extra) can be imported."""
    try:
        import hnswlib  # noqa: F401
    except ImportError:
        return False
    return True


def ann_sd_pairs(vectors, n_clusters, seed=0, stats=None):
    """The pairs Algorithm 2 keeps, with candidates from an HNSW index; as ``sd_pairs``.

    Parameters
    ----------
    vectors : ndarray of shape (n, d)
        Unit rows (dense).
    n_clusters : int
        K of ``l = n / K - 1``.
    seed : int, default=0
        hnswlib's random seed (the levels of the graph's nodes).
    stats : dict, optional
        Filled with what the route did: ``neighbours`` (first k), ``rows_requeried``,
        ``rows_truncated`` (still incomplete after the last doubling), ``candidates``,
        ``rows_index_short`` (queries for which the index found fewer than k rows);
        and, as it goes, ``stage`` and ``rows_queried`` (for a watcher's progress).

    Returns
    -------
    rows, cols : ndarray of int64
        At most ``N = sd_budget(n, K)`` pairs, ``rows < cols``, row-major.
    similarities : ndarray of float32
    """
    import hnswlib

    stats = {} if stats is None else stats
    v = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = v.shape
    n_keep = sd_budget(n, n_clusters)
    empty = np.zeros(0, np.int64)
    if n_keep == 0 or n < 2:
        return empty, empty, np.zeros(0, np.float32)
    stats["stage"] = "row statistics and cut-off"
    mean, std = _gram_statistics(vectors)
    scale = np.divide(1.0, std, out=np.zeros_like(std), where=std > 0)
    cutoff = _estimated_cutoff(v, mean, scale, n_keep)
    # Row i's partners need s_ij >= t_i to score a_ij >= cutoff (none if sigma_i = 0).
    threshold = np.where(std > 0, mean + cutoff * std, np.inf)

    stats["stage"] = "HNSW index"
    index = hnswlib.Index(space="ip", dim=d)
    index.init_index(max_elements=n, M=_HNSW_M, ef_construction=_EF_CONSTRUCTION,
                     random_seed=int(seed))
    index.set_num_threads(1)
    stats["rows_indexed"] = 0
    for start in range(0, n, _INDEX_CHUNK):  # in order, as one call would: the same graph
        stop = min(n, start + _INDEX_CHUNK)
        index.add_items(v[start:stop], np.arange(start, stop))
        stats["rows_indexed"] = stop

    # 2 (l + 1): about 1.5 N pairs reach the cut-off, 0.75 l per row on average, unevenly.
    k = min(n - 1, 2 * (n // n_clusters))
    stats.update(neighbours=k, rows_requeried=0, rows_truncated=0, candidates=0,
                 rows_queried=0, rows_index_short=0)
    pool = _CandidatePool(n_keep, cutoff)
    pending = np.arange(n, dtype=np.int64)
    for doubling in range(_MAX_DOUBLINGS + 1):
        k_query = min(n, k + 1)
        last = doubling == _MAX_DOUBLINGS or k_query == n
        index.set_ef(max(_EF_MIN, 2 * k_query))
        stats["stage"] = f"queries, {k_query} neighbours"
        incomplete = []
        step = max(1, _QUERY_VALUES // k_query)
        for start in range(0, pending.size, step):
            chunk = pending[start:start + step]
            labels = _knn(index, v[chunk], k_query, stats)
            scores, keys, short = _score_lists(v, chunk, labels, mean, scale, threshold,
                                               pool.cutoff, last)
            stats["candidates"] += scores.size
            stats["rows_queried"] += chunk.size
            pool.add(scores, keys)
            incomplete.append(chunk[short])
        pending = np.concatenate(incomplete)
        if last:
            stats["rows_truncated"] = int(pending.size)
            break
        if pending.size == 0:
            break
        stats["rows_requeried"] += int(pending.size)
        k *= 2
    stats["stage"] = "best pairs"
    keys = pool.best()
    if keys is None:  # fewer than N candidates reached the cut-off: all of them are kept
        keys = pool.keys[0]
    keys = np.sort(keys)
    rows, cols = keys // n, keys % n
    return rows, cols, _pair_similarities(v, rows, cols)


def _knn(index, queries, k, stats):
    """Labels of each query's k nearest rows (int64), -1 where the index found fewer.

    hnswlib refuses a whole call ("Cannot return the results in a contiguous 2D array")
    when one query reaches fewer than k rows. Met on 400,000 and a million texts, where
    each text is repeated (11 to 53 rows per 30,727; presumably identical points keeping
    links among themselves, so a search ends in a group of fewer than k). In that run,
    which asked whole batches again by halves, resident memory grew from 1.2 to 5.2 GB
    during the queries while the pool held under 0.6 M pairs; the cause was not
    established (a refused call's result arrays are one suspect). So the rows are asked
    ``_QUERY_BLOCK`` at a time, a refused block row by row, and a refused row for k/2,
    k/4, ... rows, the rest padded with -1 (counted in ``rows_index_short``); whether this
    keeps the memory flat was not measured.
    """
    blocks = []
    for start in range(0, queries.shape[0], _QUERY_BLOCK):
        block = queries[start:start + _QUERY_BLOCK]
        try:
            blocks.append(index.knn_query(block, k=k)[0].astype(np.int64))
        except RuntimeError:
            blocks.extend(_knn_row(index, block[r:r + 1], k, stats)
                          for r in range(block.shape[0]))
    return np.concatenate(blocks)


def _knn_row(index, query, k, stats):
    try:
        return index.knn_query(query, k=k)[0].astype(np.int64)
    except RuntimeError:
        pass
    labels = np.full((1, k), -1, dtype=np.int64)
    stats["rows_index_short"] = stats.get("rows_index_short", 0) + 1
    fewer = k // 2
    while fewer >= 1:
        try:
            labels[0, :fewer] = index.knn_query(query, k=fewer)[0][0]
            break
        except RuntimeError:
            fewer //= 2
    return labels


@njit(cache=True)
def _score_lists(v, rows, labels, mean, scale, threshold, cutoff, last):
    """Scores >= cutoff of the listed pairs, each from the row realising its max; short rows.

    A row is short when its lowest listed similarity still reaches its ``threshold`` (the
    list may stop before it). A short row emits nothing unless ``last``: it is asked again
    with more neighbours, and emits then, so each row's pairs enter the pool once.
    """
    n_rows, k = labels.shape
    scores = np.empty(n_rows * k)
    keys = np.empty(n_rows * k, dtype=np.int64)
    short = np.zeros(n_rows, dtype=np.bool_)
    similarity = np.empty(k)
    n = v.shape[0]
    d = v.shape[1]
    count = 0
    for r in range(n_rows):
        i = rows[r]
        lowest = np.inf
        for c in range(k):
            j = labels[r, c]
            s = np.float32(0.0)
            if j != i and j >= 0:
                for f in range(d):
                    s += v[i, f] * v[j, f]
                lowest = min(lowest, np.float64(s))
            similarity[c] = s
        short[r] = lowest >= threshold[i]
        if short[r] and not last:
            continue
        for c in range(k):
            j = labels[r, c]
            if j == i or j < 0:
                continue
            a_ij = (similarity[c] - mean[i]) * scale[i]
            a_ji = (similarity[c] - mean[j]) * scale[j]
            if a_ij < a_ji or (a_ij == a_ji and i > j) or a_ij < cutoff:
                continue  # the other row emits it, or it cannot be kept
            scores[count] = a_ij
            keys[count] = min(i, j) * np.int64(n) + max(i, j)
            count += 1
    return scores[:count], keys[:count], short
