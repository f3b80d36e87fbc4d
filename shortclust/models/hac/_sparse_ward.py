"""Ward agglomeration of a sparsified similarity matrix, in memory linear in its kept pairs.

The IC paper's HAC_SD (Rakib et al., sections 4.2 and 5.3) merges with Ward's criterion on
the distances ``d_ij = 1 - m_ij`` of the sparsified matrix M, a removed similarity counting
as 0 (distance 1). The dense path hands all ``n (n - 1) / 2`` of them to scipy's
``linkage``. This module runs the *same* Ward agglomeration from the kept pairs alone.

Why that is exact. Ward's Lance-Williams update (scipy's, on any dissimilarity ``D``)

    d(k, i+j)^2 = [(n_i + n_k) d(k, i)^2 + (n_j + n_k) d(k, j)^2 - n_k d(i, j)^2] / (n_i + n_j + n_k)

is linear in the squared distances, and by induction on the merges it equals, for two
clusters A and B (sizes a, b),

    d(A, B)^2 = 2ab/(a+b) * [mean_{A x B} D^2 - mean_{A x A} D^2 / 2 - mean_{B x B} D^2 / 2]

(the means over ordered pairs, the zero diagonal included; for points in a Euclidean space
this is Ward's ``2ab/(a+b) |c_A - c_B|^2``). Every off-diagonal ``D^2`` is ``1 - w`` with
``w_ij = 1 - max(1 - m_ij, 0)^2`` non-zero only at kept pairs, so with
``W_AB = sum_{A x B} w`` and ``W_A`` the sum over the pairs inside A::

    d(A, B)^2 = 1 + 2ab/(a+b) * (W_A / a^2 + W_B / b^2 - W_AB / (a b))        (*)

The distance of two clusters needs only their sizes, their inner weights and the weight
between them, which is zero unless a kept pair joins them. Pairs joined by kept pairs
("adjacent") sit in a heap; for the others (*) has ``W_AB = 0`` and, with ``q = W / a^2``,
depends on each cluster alone. With every ``w >= 0`` (every kept similarity >= 0) the
adjacent distance of a pair is at most its value at ``W_AB = 0``, so the closest pair
overall is the heap's top or the pair minimising (*) at ``W_AB = 0`` over all clusters:

* while the heap's top is below 1 nothing else can be closer (the rest are >= 1);
* else, two clusters with ``q = 0`` (no kept pair inside) are at exactly 1;
* else the minimum over all pairs of (*) at ``W_AB = 0``: for each size the two clusters
  of least q, then every pair of sizes (few distinct sizes remain by then).

Merging the closest pair every time is the greedy algorithm; Ward's criterion is
reducible, so it builds the hierarchy scipy's nearest-neighbour chain builds, up to the
order of exactly tied pairs and rounding (the distances are computed from (*), not by the
recurrence). Memory, for N kept pairs: their 2N list entries and a quarter more for the
merged clusters' lists (12 bytes an entry: 30 bytes a pair), a heap of 1.5N pair entries
(16 bytes each: 24 bytes a pair; purged of stale entries when full, grown only if a purge
leaves it over three quarters full) and O(n) per-cluster arrays; the caller's pair arrays
are freed once the lists are built (``ward_adjacency``, then ``ward_merges``).
"""

import numpy as np
from numba import njit

__all__ = ["sparse_ward", "ward_adjacency", "ward_merges", "pair_weights"]


def pair_weights(similarities):
    """``w = 1 - max(1 - m, 0)^2`` of kept similarities m (float64), as (*) needs."""
    distance = np.maximum(1.0 - np.asarray(similarities, dtype=np.float64), 0.0)
    return 1.0 - distance * distance


def sparse_ward(n, rows, cols, weights, n_clusters=1):
    """Ward merges of n points from the weights of their kept pairs, until ``n_clusters`` remain.

    :func:`ward_adjacency` then :func:`ward_merges`; a caller holding many pairs calls the
    two itself and frees its pair arrays in between (what ``HACSimilarity`` does).

    Parameters
    ----------
    n, rows, cols, weights
        The points and their kept pairs, as :func:`ward_adjacency` takes them.
    n_clusters : int, default=1
        Stop once this many clusters remain.

    Returns
    -------
    merges : ndarray of shape (n - n_clusters, 4)
        scipy's linkage format: the two clusters merged (points ``0..n-1``, the cluster
        made at step s is ``n + s``), their Ward distance, the new cluster's size.

    Raises
    ------
    ValueError
        If a weight is negative (see :func:`ward_adjacency`).
    """
    return ward_merges(ward_adjacency(n, rows, cols, weights), n_clusters)


def ward_adjacency(n, rows, cols, weights, slack=0.25):
    """Both directions of every kept pair as CSR lists, inside the pool the merges grow into.

    Parameters
    ----------
    n : int
        Points, >= 1.
    rows, cols : ndarray of int
        Kept pairs, ``rows[e] < cols[e]``, each pair once.
    weights : ndarray of float
        ``w_e = 1 - d_e^2`` of each kept pair (:func:`pair_weights`), all >= 0.
    slack : float, default=0.25
        Room past the 2N entries of the N pairs, as a fraction of them: the pool of neighbour
        lists has ``2N (1 + slack)`` entries, the heap of pairs ``N (1 + 2 slack)``. Only how
        often they are compacted (purged) and grown depends on it, never the merges.

    Returns
    -------
    tuple
        ``(n, indptr, pool_id, pool_w)``: point i's neighbours and weights are
        ``pool_id[indptr[i]:indptr[i + 1]]`` (int32) and the same slice of ``pool_w``, in the
        order of a stable sort of ``[rows, cols]``. :func:`ward_merges` appends each new
        cluster's list in the pool's room past them.

    Raises
    ------
    ValueError
        If a weight is negative (a kept similarity below 0): the bound the search for
        non-adjacent pairs relies on fails, use the dense path.
    """
    rows, cols = (_integer_array(ends) for ends in (rows, cols))
    weights = np.asarray(weights, dtype=np.float64)
    if weights.size and weights.min() < 0:
        raise ValueError("sparse Ward needs kept similarities >= 0 (weights >= 0)")
    n_entries = 2 * rows.size
    # The live lists never hold more than the 2N entries of the N pairs; the room past them
    # only spaces out the compactions (each O(n log n + 2N)), and a pool still short after
    # one is grown (_ward). Room for 2N more, as before, cost 24 of the ~170 bytes a kept
    # pair took at 400,000 texts.
    capacity = n_entries + int(slack * n_entries) + 16
    indptr, pool_id, pool_w = _fill_adjacency(n, rows, cols, weights, capacity)
    return n, indptr, pool_id, pool_w


def _integer_array(values):
    """The pair ends as they come if they are integers (no int64 copy of int32 ends)."""
    values = np.asarray(values)
    return values if values.dtype.kind in "iu" else values.astype(np.int64)


def ward_merges(adjacency, n_clusters=1):
    """Ward merges from :func:`ward_adjacency`'s lists (consumed), until ``n_clusters`` remain.

    Parameters
    ----------
    adjacency : tuple
        What :func:`ward_adjacency` returned; its pool is overwritten.
    n_clusters : int, default=1
        Stop once this many clusters remain.

    Returns
    -------
    merges : ndarray of shape (n - n_clusters, 4)
        As :func:`sparse_ward`.
    """
    n, indptr, pool_id, pool_w = adjacency
    if n_clusters < 1 or n_clusters > n:
        raise ValueError(f"n_clusters must be in 1..{n}, got {n_clusters}")
    return _ward(n, indptr, pool_id, pool_w, n_clusters)


@njit(cache=True)
def _fill_adjacency(n, rows, cols, weights, capacity):
    """A stable counting sort of the heads ``[rows, cols]``: no argsort, no concatenations."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(rows.size):
        indptr[rows[e] + 1] += 1
        indptr[cols[e] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    fill = indptr[:n].copy()
    pool_id = np.empty(capacity, dtype=np.int32)
    pool_w = np.empty(capacity, dtype=np.float64)
    for e in range(rows.size):  # the pairs as (row, col) first, as the stable sort had them
        head = rows[e]
        pool_id[fill[head]] = cols[e]
        pool_w[fill[head]] = weights[e]
        fill[head] += 1
    for e in range(rows.size):
        head = cols[e]
        pool_id[fill[head]] = rows[e]
        pool_w[fill[head]] = weights[e]
        fill[head] += 1
    return indptr, pool_id, pool_w


# --- the heap of adjacent pairs (d2, a, b): least d2 first, then least a, then least b -------

@njit(cache=True, inline="always")
def _less(d, a, b, i, j):
    if d[i] != d[j]:
        return d[i] < d[j]
    if a[i] != a[j]:
        return a[i] < a[j]
    return b[i] < b[j]


@njit(cache=True, inline="always")
def _swap(d, a, b, i, j):
    d[i], d[j] = d[j], d[i]
    a[i], a[j] = a[j], a[i]
    b[i], b[j] = b[j], b[i]


@njit(cache=True)
def _sift_up(d, a, b, i):
    while i > 0:
        parent = (i - 1) >> 1
        if not _less(d, a, b, i, parent):
            break
        _swap(d, a, b, i, parent)
        i = parent


@njit(cache=True)
def _sift_down(d, a, b, i, size):
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and _less(d, a, b, left + 1, left):
            best = left + 1
        if not _less(d, a, b, best, i):
            break
        _swap(d, a, b, i, best)
        i = best


@njit(cache=True)
def _pair_d2(size_a, inner_a, size_b, inner_b, between):
    """Formula (*): Ward's squared distance from sizes and weights."""
    a = float(size_a)
    b = float(size_b)
    return 1.0 + 2.0 * a * b / (a + b) * (inner_a / (a * a) + inner_b / (b * b)
                                          - between / (a * b))


@njit(cache=True)
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:  # path compression
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@njit(cache=True)
def _ward(n, indptr, pool_id, pool_w, n_clusters):
    slots = 2 * n - 1
    size = np.zeros(slots, dtype=np.int64)
    inner = np.zeros(slots, dtype=np.float64)
    parent = np.arange(slots)
    alive = np.zeros(slots, dtype=np.bool_)
    size[:n] = 1
    alive[:n] = True
    # Each cluster's neighbour list lives in the pool: [start, start + length); the points'
    # lists are the pool's first indptr[n] entries, the merged clusters' are appended.
    n_entries = indptr[n]
    start = np.zeros(slots, dtype=np.int64)
    length = np.zeros(slots, dtype=np.int64)
    start[:n] = indptr[:n]
    length[:n] = indptr[1:] - indptr[:n]
    used = n_entries
    # The heap of adjacent pairs, one entry per kept pair to begin with. A purge leaves at most
    # one entry per adjacent pair of clusters, so at most the N kept pairs: the room past them
    # (the pool's, 2N x slack) makes purges that many pushes apart, and the heap rarely grows.
    heap_cap = max(16, n_entries // 2 + (pool_id.size - n_entries))
    hd = np.empty(heap_cap, dtype=np.float64)
    ha = np.empty(heap_cap, dtype=np.int32)
    hb = np.empty(heap_cap, dtype=np.int32)
    hsize = 0
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            j = pool_id[e]
            if i < j:
                hd[hsize] = 1.0 - pool_w[e]  # (*) for two points
                ha[hsize] = i
                hb[hsize] = j
                hsize += 1
    for i in range(hsize // 2 - 1, -1, -1):
        _sift_down(hd, ha, hb, i, hsize)
    # Clusters with no kept pair inside (q = 0): a stack, entries checked when popped.
    zero_stack = np.empty(slots, dtype=np.int64)
    zero_top = 0
    for i in range(n - 1, -1, -1):
        zero_stack[zero_top] = i
        zero_top += 1
    n_zero = n
    # The live clusters, for the full search of the last phase (swap-remove).
    live = np.arange(slots)
    live_at = np.arange(slots)
    n_live = n

    n_steps = n - n_clusters
    merges = np.zeros((n_steps, 4))
    stamp = np.full(slots, -1, dtype=np.int64)
    accumulated = np.zeros(slots)
    by_size_1 = np.full(n + 1, -1, dtype=np.int64)
    by_size_2 = np.full(n + 1, -1, dtype=np.int64)
    sizes_seen = np.empty(n + 1, dtype=np.int64)

    for step in range(n_steps):
        # 1. The heap's top, stale entries (a cluster since merged) dropped.
        while hsize > 0 and not (alive[ha[0]] and alive[hb[0]]):
            hsize -= 1
            _swap(hd, ha, hb, 0, hsize)
            _sift_down(hd, ha, hb, 0, hsize)
        top = hd[0] if hsize > 0 else np.inf
        first, second, d2 = -1, -1, top
        if top >= 1.0:
            if n_zero >= 2:
                # 2. Two clusters with nothing kept inside: exactly 1 apart.
                if top > 1.0:
                    picked = 0
                    while picked < 2:
                        zero_top -= 1
                        c = zero_stack[zero_top]
                        if alive[c] and inner[c] == 0.0:
                            if picked == 0:
                                first = c
                            else:
                                second = c
                            picked += 1
                    d2 = 1.0
            else:
                # 3. The least (*) at W_AB = 0 over all pairs: per size, the two of least q.
                n_sizes = 0
                for p in range(n_live):
                    c = live[p]
                    s = size[c]
                    q = inner[c] / (s * s)
                    if by_size_1[s] < 0:
                        by_size_1[s] = c
                        sizes_seen[n_sizes] = s
                        n_sizes += 1
                    elif q < inner[by_size_1[s]] / (s * s):
                        by_size_2[s] = by_size_1[s]
                        by_size_1[s] = c
                    elif by_size_2[s] < 0 or q < inner[by_size_2[s]] / (s * s):
                        by_size_2[s] = c
                best = np.inf
                for x in range(n_sizes):
                    s = sizes_seen[x]
                    for y in range(x, n_sizes):
                        t = sizes_seen[y]
                        u = by_size_1[s]
                        v = by_size_1[t] if y > x else by_size_2[s]
                        if v < 0:
                            continue
                        value = _pair_d2(s, inner[u], t, inner[v], 0.0)
                        if value < best:
                            best, first, second = value, u, v
                for x in range(n_sizes):
                    by_size_1[sizes_seen[x]] = -1
                    by_size_2[sizes_seen[x]] = -1
                if best < top:
                    d2 = best
                else:
                    first = -1
        if first < 0:
            first, second = ha[0], hb[0]
            hsize -= 1
            _swap(hd, ha, hb, 0, hsize)
            _sift_down(hd, ha, hb, 0, hsize)
        if first > second:
            first, second = second, first

        # 4. Merge: the new cluster's neighbour list from its parts', ids brought up to date.
        new = n + step
        total = length[first] + length[second]
        if used + total > pool_id.size:  # compact while the parts' lists still count as live
            used = _compact(pool_id, pool_w, start, length, alive, slots)
            if used + total > pool_id.size:  # rare: the slack is a quarter of the pairs
                grown = max(pool_id.size + pool_id.size // 4, used + total)
                pool_id2 = np.empty(grown, dtype=np.int32)
                pool_w2 = np.empty(grown, dtype=np.float64)
                pool_id2[:used] = pool_id[:used]
                pool_w2[:used] = pool_w[:used]
                pool_id, pool_w = pool_id2, pool_w2
        parent[first] = new
        parent[second] = new
        alive[first] = False
        alive[second] = False
        alive[new] = True
        size[new] = size[first] + size[second]
        # Sum the parts' weights per current neighbour in an accumulator indexed by cluster
        # (no sort: O(list length) per merge); ``stamp`` marks the neighbours seen.
        start[new] = used
        count = 0
        self_weight = 0.0
        for part in (first, second):
            for e in range(start[part], start[part] + length[part]):
                r = _find(parent, pool_id[e])
                if r == new:
                    self_weight += pool_w[e]
                elif stamp[r] != step:
                    stamp[r] = step
                    accumulated[r] = pool_w[e]
                    pool_id[used + count] = r
                    count += 1
                else:
                    accumulated[r] += pool_w[e]
        for e in range(used, used + count):
            pool_w[e] = accumulated[pool_id[e]]
        # Each pair between the parts was listed by both: half the sum is W_AB.
        inner[new] = inner[first] + inner[second] + 0.5 * self_weight
        length[new] = count
        used += count
        length[first] = 0
        length[second] = 0
        # The new cluster's pairs with its neighbours. A full heap is purged of its stale
        # entries first, and grown only if that leaves it over three quarters full (growing
        # before purging, as this did, let the stale entries pile up to several per pair).
        if hsize + count > hd.size:
            hsize = _purge(hd, ha, hb, hsize, alive)
            if 4 * (hsize + count) > 3 * hd.size:
                grown = max(hd.size + hd.size // 2, hsize + count)
                hd2 = np.empty(grown, dtype=np.float64)
                ha2 = np.empty(grown, dtype=np.int32)
                hb2 = np.empty(grown, dtype=np.int32)
                hd2[:hsize] = hd[:hsize]
                ha2[:hsize] = ha[:hsize]
                hb2[:hsize] = hb[:hsize]
                hd, ha, hb = hd2, ha2, hb2
        for e in range(start[new], start[new] + count):
            other = pool_id[e]
            hd[hsize] = _pair_d2(size[new], inner[new], size[other], inner[other], pool_w[e])
            ha[hsize] = other
            hb[hsize] = new
            hsize += 1
            _sift_up(hd, ha, hb, hsize - 1)
        # Book-keeping of the q = 0 clusters and of the live list.
        if inner[first] == 0.0:
            n_zero -= 1
        if inner[second] == 0.0:
            n_zero -= 1
        if inner[new] == 0.0:
            n_zero += 1
            zero_stack[zero_top] = new
            zero_top += 1
        for gone in (first, second):
            p = live_at[gone]
            n_live -= 1
            last = live[n_live]
            live[p] = last
            live_at[last] = p
        live[n_live] = new
        live_at[new] = n_live
        n_live += 1
        merges[step, 0] = first
        merges[step, 1] = second
        merges[step, 2] = np.sqrt(max(d2, 0.0))
        merges[step, 3] = size[new]
    return merges


@njit(cache=True)
def _purge(hd, ha, hb, hsize, alive):
    """Drop the heap's stale entries (a cluster since merged) and restore the heap; new size."""
    kept = 0
    for e in range(hsize):
        if alive[ha[e]] and alive[hb[e]]:
            hd[kept] = hd[e]
            ha[kept] = ha[e]
            hb[kept] = hb[e]
            kept += 1
    for i in range(kept // 2 - 1, -1, -1):
        _sift_down(hd, ha, hb, i, kept)
    return kept


@njit(cache=True)
def _compact(pool_id, pool_w, start, length, alive, slots):
    """Move the live clusters' lists to the front of the pool, in their order; new end."""
    owners = np.flatnonzero(alive)
    order = np.argsort(start[owners], kind="mergesort")
    end = 0
    for o in range(owners.size):
        c = owners[order[o]]
        s = start[c]
        for e in range(length[c]):
            pool_id[end + e] = pool_id[s + e]
            pool_w[end + e] = pool_w[s + e]
        start[c] = end
        end += length[c]
    return end
