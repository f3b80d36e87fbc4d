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
2. Identical rows (repeated texts) are one point of the graph: the rows are grouped by
   their float32 vector, and each distinct vector is indexed and asked once. The rows of a
   group have the same similarities to every other row, so they share one neighbour list
   (of distinct vectors, each standing for all its rows).
3. Each distinct vector's ``k = 2 (l + 1)`` nearest distinct vectors from an HNSW graph
   (hnswlib, inner product on the unit rows); a group whose k-th neighbour still has
   ``s >= t_i`` for one of its rows (its list may stop short of ``t_i``) is asked again with
   twice the k, up to ``_MAX_DOUBLINGS`` times.
4. Each listed pair of groups is scored once (``v_i . v_j`` in float32, as the fast exact
   route does) and expanded to the pairs of their rows, and the pairs within a group
   (similarity ``v_i . v_i``) are added; each row pair is emitted from the row that
   realises its max (ties: from the smaller index), so it is counted once, and those
   reaching ``c`` go to ``_sparsify``'s candidate pool, which keeps the N best.
5. If fewer than N pairs reached ``c`` (the sample's estimate was too high: at a million
   texts of ``bench_hac_sd_scale.py`` only 91% of N did), ``c`` is estimated again for a
   target raised in proportion to the shortfall, and steps 3-4 run again with it (up to
   ``_CUTOFF_RETRIES`` times; the exact routes start again from -inf instead).

Why the groups. In the runs of ``benchmarks/bench_hac_sd_scale.py`` at 1,000,000 and
400,000 texts (each text present about five and two times) hnswlib refused queries
("Cannot return the results in a contiguous 2D array": a search reached fewer than k
points; that identical points cause it is presumed, not established). A refused call leaks
its result arrays: hnswlib 0.8's binding allocates them (rows x k x 12 bytes) before
searching and throws without freeing them (``benchmarks/check_hnswlib_refused_leak.py``
measures it). The 400,000-text run asked each refused batch of 30,727 rows again by
halves, and its resident memory grew from 1.2 to 5.2 GB during the queries as refusals
accumulated. With the groups no two points of the graph are identical, and the graph and
the queries are as large as the distinct texts, not the rows.

What is approximate is the index alone: HNSW may miss a true neighbour, and a hub row still
incomplete after the doublings is cut. The pairs that are kept are scored exactly; on
20,000 texts the recall of the exact route's kept pairs is measured
(``benchmarks/bench_hac_sd_ann.py``, ``tests/models/test_hac_ann.py``). The HNSW graph is
built on one thread with a fixed seed, in the order of the groups' first rows, so a fit is
reproducible.
"""

import numpy as np
from numba import njit

from shortclust.models.hac._sparse_sd import (_estimated_cutoff, _gram_statistics,
                                              _grown_pairs, _pair_similarities)
from shortclust.models.hac._sparsify import _CandidatePool, sd_budget

__all__ = ["ann_sd_pairs", "hnswlib_available"]

# HNSW graph: links per node and the construction beam (hnswlib's documented defaults for
# good recall); the query beam is twice the neighbours asked for, at least _EF_MIN.
_HNSW_M = 16
_EF_CONSTRUCTION = 200
_EF_MIN = 64
_MAX_DOUBLINGS = 4
_CUTOFF_RETRIES = 2  # passes with a lower cut-off when fewer than N pairs reached it
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
        Filled with what the route did: ``distinct_rows`` (the groups of identical rows,
        each one point of the graph), ``neighbours`` (first k), and counted in groups:
        ``rows_requeried``, ``rows_truncated`` (still incomplete after the last doubling),
        ``rows_index_short`` (queries for which the index found fewer than k); then
        ``candidates`` (row pairs sent to the pool), these of the last pass; ``cutoff_retries``
        (passes asked again with a lower cut-off); and, as it goes, ``stage``,
        ``rows_indexed`` and ``rows_queried`` (for a watcher's progress).

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

    stats["stage"] = "identical rows"
    distinct, members, offsets = _identical_rows(v)
    m = offsets.size - 1
    stats["distinct_rows"] = int(m)

    stats["stage"] = "HNSW index"
    index = hnswlib.Index(space="ip", dim=d)
    index.init_index(max_elements=m, M=_HNSW_M, ef_construction=_EF_CONSTRUCTION,
                     random_seed=int(seed))
    index.set_num_threads(1)
    stats["rows_indexed"] = 0
    for start in range(0, m, _INDEX_CHUNK):  # in order, as one call would: the same graph
        stop = min(m, start + _INDEX_CHUNK)
        index.add_items(distinct[start:stop], np.arange(start, stop))
        stats["rows_indexed"] = stop

    # 2 (l + 1): about 1.5 N pairs reach the cut-off, 0.75 l per row on average, unevenly.
    k = min(m - 1, 2 * (n // n_clusters))
    stats["cutoff_retries"] = 0
    target = n_keep
    for attempt in range(_CUTOFF_RETRIES + 1):
        pool = _candidates(index, v, distinct, members, offsets, mean, std, scale, cutoff, k,
                           n_keep, stats)
        stats["stage"] = "best pairs"
        keys = pool.best()
        if keys is not None or cutoff == -np.inf or attempt == _CUTOFF_RETRIES:
            break
        # Fewer than N pairs reached the estimated cut-off (the sampled rows' scores
        # promised 1.5 N): aim the sample at more pairs, in proportion to the shortfall, and
        # ask again with a lower cut-off and longer lists. (At a million texts of
        # bench_hac_sd_scale.py 91% of N had reached the first estimate.)
        shortfall = n_keep / max(pool.held, 1)
        del pool
        target = int(min(target * 2 * shortfall, n * (n - 1) // 2))
        cutoff = _estimated_cutoff(v, mean, scale, target)
        k = min(m - 1, int(np.ceil(k * 2 * shortfall)))
        stats["cutoff_retries"] = attempt + 1
    if keys is None:  # still fewer than N candidates reached the cut-off: all are kept
        keys = pool.keys[0]
    keys = np.sort(keys)
    rows, cols = keys // n, keys % n
    return rows, cols, _pair_similarities(v, rows, cols)


def _candidates(index, v, distinct, members, offsets, mean, std, scale, cutoff, k, n_keep,
                stats):
    """The pool of scored row pairs reaching ``cutoff``, from k-NN lists grown by doubling."""
    # Row i's partners need s_ij >= t_i to score a_ij >= cutoff (none if sigma_i = 0).
    threshold = np.where(std > 0, mean + cutoff * std, np.inf)
    # A group is asked again while one of its rows' lists may stop short of its threshold.
    group_threshold = np.minimum.reduceat(threshold[members], offsets[:-1])
    m = offsets.size - 1
    stats.update(neighbours=k, rows_requeried=0, rows_truncated=0, candidates=0,
                 rows_queried=0, rows_index_short=0)
    pool = _CandidatePool(n_keep, cutoff)
    pending = np.arange(m, dtype=np.int64)
    for doubling in range(_MAX_DOUBLINGS + 1):
        k_query = min(m, k + 1)
        last = doubling == _MAX_DOUBLINGS or k_query == m
        index.set_ef(max(_EF_MIN, 2 * k_query))
        stats["stage"] = f"queries, {k_query} neighbours"
        incomplete = []
        step = max(1, _QUERY_VALUES // k_query)
        for start in range(0, pending.size, step):
            chunk = pending[start:start + step]
            labels = _knn(index, distinct[chunk], k_query, stats)
            scores, keys, short = _score_lists(v, chunk, labels, members, offsets, mean,
                                               scale, group_threshold, pool.cutoff, last)
            del labels
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
    return pool


def _knn(index, queries, k, stats):
    """Labels of each query's k nearest points (int64), -1 where the index found fewer.

    hnswlib refuses a whole call ("Cannot return the results in a contiguous 2D array")
    when one query reaches fewer than k points, and leaks that call's result arrays (rows
    x k x 12 bytes; module docstring). Met among repeated texts, before identical rows
    were grouped; kept as a safeguard: the queries are asked ``_QUERY_BLOCK`` at a time
    (a refused call leaks at most one block's arrays), a refused block row by row, and a
    refused row for k/2, k/4, ... points, the rest padded with -1 (counted in
    ``rows_index_short``).
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


def _identical_rows(v):
    """Groups of identical rows: their vectors, rows and offsets, in order of first row.

    Returns ``distinct`` (m, d): one row per group; ``members``: the rows of group g are
    ``members[offsets[g]:offsets[g + 1]]``, ascending; groups numbered by their first row.
    Rows are compared by their bytes (so 0.0 and -0.0 differ: two groups, still correct).
    """
    keys = np.ascontiguousarray(v).view(np.dtype((np.void, v.dtype.itemsize * v.shape[1])))
    _, first, inverse = np.unique(keys.ravel(), return_index=True, return_inverse=True)
    # np.unique numbers groups by their bytes; renumber them by their first row.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    group = rank[inverse.ravel()]
    members = np.argsort(group, kind="stable").astype(np.int64)
    offsets = np.zeros(order.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(group, minlength=order.size), out=offsets[1:])
    return v[first[order]], members, offsets


@njit(cache=True)
def _score_lists(v, groups, labels, members, offsets, mean, scale, threshold, cutoff, last):
    """Scores >= cutoff of the row pairs the groups' lists give, each from the row realising
    its max; which groups are short.

    ``labels[r]``: the groups listed for group ``groups[r]`` (-1: none). A group is short
    when its lowest listed similarity still reaches its ``threshold`` (the lowest of its
    rows': one of their lists may stop before it). A short group emits nothing unless
    ``last``: it is asked again with more neighbours, and emits then, so each group's pairs
    enter the pool once. A group also emits the pairs among its own rows.
    """
    n_groups, k = labels.shape
    n = v.shape[0]
    d = v.shape[1]
    capacity = 1024
    scores = np.empty(capacity)
    keys = np.empty(capacity, dtype=np.int64)
    short = np.zeros(n_groups, dtype=np.bool_)
    similarity = np.empty(k, dtype=np.float32)
    count = 0
    for r in range(n_groups):
        g = groups[r]
        first, stop = offsets[g], offsets[g + 1]
        i0 = members[first]
        lowest = np.inf
        for c in range(k):
            h = labels[r, c]
            s = np.float32(0.0)
            if h != g and h >= 0:
                j0 = members[offsets[h]]
                for f in range(d):
                    s += v[i0, f] * v[j0, f]
                lowest = min(lowest, np.float64(s))
            similarity[c] = s
        short[r] = lowest >= threshold[g]
        if short[r] and not last:
            continue
        # Room for every pair this group could emit, so the loops below never check.
        need = (stop - first) * (stop - first - 1) // 2
        for c in range(k):
            h = labels[r, c]
            if h != g and h >= 0:
                need += (stop - first) * (offsets[h + 1] - offsets[h])
        if count + need > capacity:
            capacity = max(2 * capacity, count + need)
            scores, keys = _grown_pairs(scores, keys, count, capacity)
        for c in range(k):
            h = labels[r, c]
            if h == g or h < 0:
                continue
            for a in range(first, stop):
                i = members[a]
                a_i = (similarity[c] - mean[i]) * scale[i]
                if a_i < cutoff:
                    continue
                for b in range(offsets[h], offsets[h + 1]):
                    j = members[b]
                    a_j = (similarity[c] - mean[j]) * scale[j]
                    if a_i < a_j or (a_i == a_j and i > j):
                        continue  # the other row emits it
                    scores[count] = a_i
                    keys[count] = min(i, j) * np.int64(n) + max(i, j)
                    count += 1
        if stop - first > 1:  # the pairs among identical rows (members ascending)
            s = np.float32(0.0)
            for f in range(d):
                s += v[i0, f] * v[i0, f]
            for a in range(first, stop):
                i = members[a]
                a_i = (s - mean[i]) * scale[i]
                for b in range(a + 1, stop):
                    j = members[b]
                    a_j = (s - mean[j]) * scale[j]
                    best = a_i if a_i >= a_j else a_j
                    if best >= cutoff:
                        scores[count] = best
                        keys[count] = i * np.int64(n) + j
                        count += 1
    return scores[:count].copy(), keys[:count].copy(), short
