"""Compiled Isolation Forest (Liu, Ting & Zhou, ICDM 2008) for iterative classification.

Private: use :class:`shortclust.models.ic.iterative_classification.IterativeClassification`.

Why not scikit-learn's ``IsolationForest``: iterative classification fits one forest per
cluster per iteration (Algorithm 1, step 5), and scikit-learn spends about 1 ms of Python
per tree (estimator cloning, parameter checks) whatever the tree's size. Measured CPU
time for one iteration's forests (100 trees per cluster, k-means clusters, one core):

=================  ========  ============  ======
dataset            clusters  scikit-learn  here
=================  ========  ============  ======
Tweet              89        8.6 s         0.08 s
StackOverflow      20        2.1 s         0.29 s
GoogleNews-TS      152       16.6 s        0.53 s
=================  ========  ============  ======

The algorithm is scikit-learn's (``ExtraTreeRegressor(max_features=1)`` under bagging):

* each tree grows on ``psi`` rows of the cluster, drawn without replacement, or with
  replacement when ``bootstrap``; growth stops at depth ``ceil(log2(psi))``, at a node of
  one row, or at a node whose rows are identical;
* a node splits on a feature drawn uniformly from those not constant on its rows, at a
  threshold drawn uniformly from ``[min, max)`` of that feature there; rows with a value
  ``<= threshold`` go left. Features constant at a node are moved to the front of the
  tree's feature list and skipped by its descendants (they are constant there too). The
  root's candidates are the features non-zero in at least one sampled row. A few draws
  from the candidates come first (they succeed at once on dense rows), then one exact
  pass over the node's entries (sparse rows, where a small node is zero on most
  candidates); see :func:`_draw_feature`;
* the path length of a row is the depth of its leaf plus ``c(leaf size)``, with
  ``c(n) = 2 (ln(n - 1) + 0.5772...) - 2 (n - 1) / n`` (``c(2) = 1``, ``c(1) = 0``), the
  average path length of an unsuccessful search in a binary search tree; the score is
  ``-2 ** (-mean path length / c(psi))`` (scikit-learn's ``score_samples``: lower is more
  anomalous).

Rows are CSR (sorted column indices); a feature's value is found by binary search in the
row. Random numbers come from numba's generator, seeded once per call with ``seed``.
"""

import numpy as np
from numba import njit

_EULER_GAMMA = 0.5772156649015329

# Draws from the candidate list before one exact pass over the node (see _draw_feature).
_TRIES = 4


@njit(cache=True)
def average_path_length(n):
    """c(n): average path length of an unsuccessful search among n points."""
    if n <= 1:
        return 0.0
    if n == 2:
        return 1.0
    return 2.0 * (np.log(n - 1.0) + _EULER_GAMMA) - 2.0 * (n - 1.0) / n


@njit(cache=True)
def _value(indptr, indices, data, row, feature):
    """Entry (row, feature) of a CSR matrix with sorted indices."""
    lo, hi = indptr[row], indptr[row + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        col = indices[mid]
        if col < feature:
            lo = mid + 1
        elif col > feature:
            hi = mid
        else:
            return data[mid]
    return 0.0


@njit(cache=True)
def _draw_sample(rows, psi, bootstrap, perm, out):
    """OUT ``out[:psi]``: rows of the tree, with or without replacement.

    ``perm`` holds a permutation of ``0..len(rows)-1``; a partial Fisher-Yates shuffle of
    any permutation gives a uniform subset, so it is not reset between trees.
    """
    m = rows.shape[0]
    for i in range(psi):
        if bootstrap:
            out[i] = rows[np.random.randint(0, m)]
        else:
            j = i + np.random.randint(0, m - i)
            perm[i], perm[j] = perm[j], perm[i]
            out[i] = rows[perm[i]]


@njit(cache=True)
def _root_features(indptr, indices, points, marker, features):
    """OUT ``features[:n]``: the columns non-zero in some row of ``points``; return n.

    ``marker`` (one flag per column) is all False on entry and on return.
    """
    n = 0
    for r in points:
        for j in range(indptr[r], indptr[r + 1]):
            f = indices[j]
            if not marker[f]:
                marker[f] = True
                features[n] = f
                n += 1
    for i in range(n):
        marker[features[i]] = False
    return n


@njit(cache=True)
def _node_values(indptr, indices, data, points, start, end, feature, values):
    """OUT ``values[start:end]``: the feature's values on the node; return (min, max)."""
    lo, hi = np.inf, -np.inf
    for i in range(start, end):
        v = _value(indptr, indices, data, points[i], feature)
        values[i] = v
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


@njit(cache=True)
def _partition(points, values, start, end, threshold):
    """Rows with value <= threshold to the front of ``points[start:end]``; return the cut."""
    cut = start
    for i in range(start, end):
        if values[i] <= threshold:
            points[cut], points[i] = points[i], points[cut]
            values[cut], values[i] = values[i], values[cut]
            cut += 1
    return cut


@njit(cache=True)
def _exact_draw(indptr, indices, data, points, start, end, scratch, features):
    """A feature drawn uniformly among those not constant on the node; -1 if none.

    One pass over the node's non-zero entries: a column is non-constant if it is zero
    on some row (fewer entries than rows; the matrix holds no explicit zeros) or if its
    values differ. Scratch: ``scratch = (count, low, high)``, one slot per column, with
    ``count`` all zero on entry and on return; ``features`` receives the columns seen.
    """
    count, low, high = scratch
    n_seen = 0
    for i in range(start, end):
        r = points[i]
        for j in range(indptr[r], indptr[r + 1]):
            f, v = indices[j], data[j]
            if count[f] == 0:
                features[n_seen] = f
                n_seen += 1
                low[f], high[f] = v, v
            else:
                low[f], high[f] = min(low[f], v), max(high[f], v)
            count[f] += 1
    n_rows, n_free = end - start, 0
    for i in range(n_seen):
        f = features[i]
        if count[f] < n_rows or high[f] > low[f]:
            features[n_free] = f
            n_free += 1
        count[f] = 0
    if n_free == 0:
        return -1
    return features[np.random.randint(0, n_free)]


@njit(cache=True)
def _draw_feature(indptr, indices, data, points, start, end, candidates, n_candidates,
                  known, scratch, seen, values):
    """A feature drawn uniformly among those not constant on the node, and its range.

    First up to ``_TRIES`` draws without replacement from ``candidates[known:]`` (the
    features not known to be constant above this node): cheap when most candidates vary
    on the node (dense vectors). A drawn constant feature is moved to position ``known``
    and ``known`` grows. If all tries fail, one exact pass over the node's entries
    (:func:`_exact_draw`) draws among the non-constant features: cheap on sparse rows,
    where most candidates are zero on a small node. Either way the feature is uniform
    among the non-constant ones (the exact pass sees the same set, as only constants
    were discarded). Returns (feature or -1, known, min, max); ``values[start:end]`` hold
    the feature's values on the node.
    """
    for _ in range(_TRIES):
        if known >= n_candidates:
            return -1, known, 0.0, 0.0
        j = known + np.random.randint(0, n_candidates - known)
        lo, hi = _node_values(indptr, indices, data, points, start, end, candidates[j], values)
        if hi > lo:
            return candidates[j], known, lo, hi
        candidates[j], candidates[known] = candidates[known], candidates[j]
        known += 1
    f = _exact_draw(indptr, indices, data, points, start, end, scratch, seen)
    if f < 0:
        return -1, known, 0.0, 0.0
    lo, hi = _node_values(indptr, indices, data, points, start, end, f, values)
    return f, known, lo, hi


@njit(cache=True)
def grow_tree(indptr, indices, data, points, max_depth, marker, candidates, scratch, seen,
              values, feature, threshold, left, right, leaf_size):
    """Grow one isolation tree on the rows ``points`` (IN, reordered); return its node count.

    OUT per node: ``feature`` (-1 at a leaf), ``threshold``, ``left``, ``right``,
    ``leaf_size`` (rows reaching a leaf while growing). Node 0 is the root. Scratch:
    ``marker`` (False per column), ``candidates``, ``seen`` (a slot per column),
    ``scratch`` (see :func:`_exact_draw`), ``values`` (a slot per row).
    """
    n_candidates = _root_features(indptr, indices, points, marker, candidates)
    # Depth-first; each stack entry: node, rows [start, end), depth, known constants.
    stack = np.empty((max_depth + 2, 5), dtype=np.int64)
    stack[0] = (0, 0, points.shape[0], 0, 0)
    top, n_nodes = 1, 1
    while top > 0:
        top -= 1
        node, start, end, depth, known = stack[top]
        chosen, lo, hi = -1, 0.0, 0.0
        if depth < max_depth and end - start > 1:
            chosen, known, lo, hi = _draw_feature(indptr, indices, data, points, start, end,
                                                  candidates, n_candidates, known, scratch,
                                                  seen, values)
        if chosen < 0:
            feature[node] = -1
            leaf_size[node] = end - start
            continue
        cut_at = lo + np.random.random() * (hi - lo)
        if cut_at >= hi:  # rounding: keep the threshold in [lo, hi)
            cut_at = lo
        cut = _partition(points, values, start, end, cut_at)
        feature[node], threshold[node] = chosen, cut_at
        left[node], right[node] = n_nodes, n_nodes + 1
        stack[top] = (n_nodes + 1, cut, end, depth + 1, known)
        stack[top + 1] = (n_nodes, start, cut, depth + 1, known)
        top += 2
        n_nodes += 2
    return n_nodes


@njit(cache=True)
def path_length(indptr, indices, data, row, feature, threshold, left, right, leaf_size):
    """Depth of the row's leaf plus c(leaf size), in one tree."""
    node, depth = 0, 0
    while feature[node] >= 0:
        if _value(indptr, indices, data, row, feature[node]) <= threshold[node]:
            node = left[node]
        else:
            node = right[node]
        depth += 1
    return depth + average_path_length(leaf_size[node])


@njit(cache=True)
def isolation_scores(indptr, indices, data, rows, n_trees, psi, bootstrap, seed,
                     n_features, out):
    """Fit a forest of ``n_trees`` trees on the CSR rows ``rows`` and score those rows.

    IN: the CSR matrix (sorted indices), ``rows`` (int64, at least 1), ``psi`` (rows per
    tree, at most ``len(rows)`` unless ``bootstrap``), ``seed``. OUT: ``out[i]`` the
    score of ``rows[i]`` (negative; lower = more anomalous).
    """
    np.random.seed(seed)
    max_depth = max(1, int(np.ceil(np.log2(max(psi, 2)))))
    max_nodes = 2 * psi - 1
    feature = np.empty((n_trees, max_nodes), dtype=np.int64)
    threshold = np.empty((n_trees, max_nodes))
    left = np.empty((n_trees, max_nodes), dtype=np.int64)
    right = np.empty((n_trees, max_nodes), dtype=np.int64)
    leaf_size = np.zeros((n_trees, max_nodes), dtype=np.int64)
    marker = np.zeros(n_features, dtype=np.bool_)
    candidates = np.empty(n_features, dtype=np.int64)
    seen = np.empty(n_features, dtype=np.int64)
    scratch = (np.zeros(n_features, dtype=np.int64), np.empty(n_features), np.empty(n_features))
    values = np.empty(psi)
    perm = np.arange(rows.shape[0])
    points = np.empty(psi, dtype=np.int64)
    for t in range(n_trees):
        _draw_sample(rows, psi, bootstrap, perm, points)
        grow_tree(indptr, indices, data, points, max_depth, marker, candidates, scratch, seen,
                  values, feature[t], threshold[t], left[t], right[t], leaf_size[t])
    # Tree by tree, so that one tree's arrays stay in cache while every row goes down it.
    total = np.zeros(rows.shape[0])
    for t in range(n_trees):
        for i in range(rows.shape[0]):
            total[i] += path_length(indptr, indices, data, rows[i], feature[t], threshold[t],
                                    left[t], right[t], leaf_size[t])
    norm = average_path_length(psi)
    for i in range(rows.shape[0]):
        # c(1) = 0: a forest grown on one row isolates nothing; every score is equal.
        out[i] = -(2.0 ** (-total[i] / n_trees / norm)) if norm > 0 else -1.0
