"""External clustering metrics: compare predicted clusters with gold classes.

All metrics are computed from one classes x clusters contingency table, built with
``np.unique`` and a sparse COO sum, so there is no Python loop over documents and
millions of documents take well under a second. :func:`evaluate` builds the table
once and shares it (and the entropies and mutual information) between metrics.

Degenerate labelings (one class, one cluster, every document in its own cluster,
a single document) follow scikit-learn's conventions and never give NaN. Labels may
be any orderable hashable values (ints, strings); a document whose text was empty
is an ordinary labelled document here.
"""

from functools import cached_property
from math import lgamma, log

import numpy as np
import scipy.sparse as sp

#: Metrics computed when a config lists none, in this order.
METRIC_NAMES = (
    "nmi",
    "ami",
    "ari",
    "acc",
    "homogeneity",
    "completeness",
    "v_measure",
    "purity",
)
#: Metrics computed only when asked for by name: ``ami_max`` is AMI normalised by the larger
#: entropy, scikit-learn's default before 0.22, which the papers of 2012-2016 reported.
EXTRA_METRICS = ("ami_max",)
#: Every metric name a config may list.
KNOWN_METRICS = METRIC_NAMES + EXTRA_METRICS


#: Metrics undefined or degenerate on documents of one class, recorded as None there (a
#: stream's batch of one event, a file whose labels hold one class).
ONE_CLASS_UNDEFINED = frozenset({"nmi", "ami", "ami_max", "ari", "homogeneity",
                                 "completeness", "v_measure"})


def in_metric_order(names) -> list[str]:
    """``names`` in the canonical order (:data:`KNOWN_METRICS`, then the topic-quality
    measures), any others after, sorted.

    Tables list metrics in this order whatever order a record's dictionary has (archived
    records have their keys sorted), so a table does not depend on where its records came
    from.

    Examples
    --------
    >>> in_metric_order(["purity", "c_v", "ari", "npmi", "nmi", "zeta"])
    ['nmi', 'ari', 'purity', 'npmi', 'c_v', 'zeta']
    """
    from shortclust.evaluation.coherence import TOPIC_QUALITY_MEASURES

    known = KNOWN_METRICS + TOPIC_QUALITY_MEASURES
    names = set(names)
    return [m for m in known if m in names] + sorted(names - set(known))


def _as_labels(labels, name):
    """Return ``labels`` as a 1-D numpy array, or raise ValueError naming it."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    return arr


def _encode(labels):
    """Map labels to codes ``0..n_unique-1`` in sorted label order.

    Returns
    -------
    codes : ndarray of int64, shape (n,)
    n_unique : int
    """
    try:
        uniques, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        # Mixed object labels (e.g. None and ints) cannot be sorted; number them in
        # order of first appearance instead. Only this rare case loops in Python.
        index = {}
        codes = np.fromiter((index.setdefault(x, len(index)) for x in labels),
                            dtype=np.int64, count=len(labels))
        return codes, len(index)
    return codes.reshape(-1).astype(np.int64, copy=False), len(uniques)


class _Table:
    """Contingency table of one labeling pair, with lazily cached statistics.

    Rows are classes and columns clusters, both in sorted label order. Every row and
    column is non-empty by construction, which the metrics below rely on.
    """

    def __init__(self, labels_true, labels_pred):
        true = _as_labels(labels_true, "labels_true")
        pred = _as_labels(labels_pred, "labels_pred")
        if true.shape[0] != pred.shape[0]:
            raise ValueError(
                "labels_true and labels_pred must have the same length, got "
                f"{true.shape[0]} and {pred.shape[0]}"
            )
        if true.shape[0] == 0:
            raise ValueError("labels_true and labels_pred are empty: nothing to evaluate")
        self.true_codes, n_classes = _encode(true)
        self.pred_codes, n_clusters = _encode(pred)
        self.n = int(true.shape[0])
        # COO sums duplicate (class, cluster) pairs on conversion: a 2-D histogram
        # without a dense classes x clusters array, which would not fit in memory
        # when every document is its own cluster.
        ones = np.ones(self.n, dtype=np.int64)
        coords = (self.true_codes, self.pred_codes)
        self.counts = sp.coo_array((ones, coords), shape=(n_classes, n_clusters)).tocsr()
        self.counts.sum_duplicates()
        self.class_sizes = np.bincount(self.true_codes, minlength=n_classes)
        self.cluster_sizes = np.bincount(self.pred_codes, minlength=n_clusters)

    @cached_property
    def h_true(self):
        """Entropy of the classes (natural log)."""
        return _entropy(self.class_sizes, self.n)

    @cached_property
    def h_pred(self):
        """Entropy of the clusters (natural log)."""
        return _entropy(self.cluster_sizes, self.n)

    @cached_property
    def mi(self):
        """Mutual information between classes and clusters (natural log)."""
        return _mutual_info(self)


def _entropy(sizes, n):
    """Entropy of a labeling given its (all positive) group sizes."""
    if sizes.size == 1:
        return 0.0  # one group: exactly zero, which the callers test for
    p = sizes / n
    # log(a) - log(n) rather than log(a / n): as sklearn does, for precision.
    return float(-np.sum(p * (np.log(sizes) - log(n))))


def _mutual_info(table):
    """Mutual information from the non-zero cells, clipped at 0 like sklearn."""
    if table.class_sizes.size == 1 or table.cluster_sizes.size == 1:
        return 0.0  # MI <= min(H(C), H(K)) = 0
    coo = table.counts.tocoo()
    n_ij = coo.data.astype(np.float64)
    log_a = np.log(table.class_sizes[coo.row].astype(np.float64))
    log_b = np.log(table.cluster_sizes[coo.col].astype(np.float64))
    terms = n_ij / table.n * (np.log(n_ij) + log(table.n) - log_a - log_b)
    # Rounding can push an independent table's MI a hair below zero.
    return float(max(terms.sum(), 0.0))


# ---------------------------------------------------------------- table -> score


def _nmi(t):
    if t.class_sizes.size == t.cluster_sizes.size == 1:
        return 1.0  # neither labeling splits the data: a perfect match (sklearn)
    # Now at least one entropy is positive, so the mean is too; if only one is,
    # MI is exactly 0 and so is NMI, as in sklearn.
    return t.mi / ((t.h_true + t.h_pred) / 2.0)


def _ami(t, average_method="arithmetic"):
    # Vinh, Epps & Bailey (2010), Eq. 24-25: (MI - E[MI]) / (mean(H(C), H(K)) - E[MI]),
    # with scikit-learn's conventions for degenerate labelings and near-zero differences.
    n_classes, n_clusters = t.class_sizes.size, t.cluster_sizes.size
    if n_classes == n_clusters == 1:
        return 1.0  # neither labeling splits the data: a perfect match
    if n_classes == 1 or n_clusters == 1:
        return 0.0
    emi = expected_mutual_info(t.class_sizes, t.cluster_sizes, t.n)
    if average_method == "max":
        normaliser = max(t.h_true, t.h_pred)
    else:
        normaliser = (t.h_true + t.h_pred) / 2.0
    # E[MI] can exceed the normaliser or MI by rounding when the expectation is the
    # maximum (a perfect match): keep each difference's sign, at least one eps away
    # from 0, so that a perfect match gives 1 and not 0/0.
    eps = np.finfo(np.float64).eps
    denominator, numerator = normaliser - emi, t.mi - emi
    denominator = min(denominator, -eps) if denominator < 0 else max(denominator, eps)
    numerator = min(numerator, -eps) if numerator < 0 else max(numerator, eps)
    return numerator / denominator


def expected_mutual_info(class_sizes, cluster_sizes, n):
    """Expected mutual information of two labelings under random permutation (nats).

    Vinh, Epps & Bailey, "Information Theoretic Measures for Clusterings Comparison",
    JMLR 11 (2010), Eq. 24: with class sizes ``a_i``, cluster sizes ``b_j`` and ``N``
    documents, the cell count ``n_ij`` of a random table with those margins is
    hypergeometric, so

    ``E[MI] = sum_ij sum_{n_ij = max(1, a_i + b_j - N)}^{min(a_i, b_j)}
    n_ij / N * log(N n_ij / (a_i b_j)) * a_i! b_j! (N - a_i)! (N - b_j)!
    / (N! n_ij! (a_i - n_ij)! (b_j - n_ij)! (N - a_i - b_j + n_ij)!)``.

    A term depends on the pair of sizes only, so the sum runs over distinct sizes (at
    most ``sqrt(2 N)`` per side), weighted by how many classes and clusters have each;
    every factorial is read from one table of ``log k!`` (``math.lgamma``).

    Parameters
    ----------
    class_sizes, cluster_sizes : array of int
        The positive group sizes of each labeling, each summing to ``n``.
    n : int

    Returns
    -------
    float

    Examples
    --------
    Two halves against two halves of 4 documents: the tables with margins (2, 2) are
    [[1, 1], [1, 1]] (MI 0) with probability 4/6 and the two perfect matches (MI log 2)
    with 1/6 each.

    >>> round(expected_mutual_info(np.array([2, 2]), np.array([2, 2]), 4), 12)
    0.231049060187
    >>> round(log(2) / 3, 12)
    0.231049060187
    """
    log_fact = np.fromiter(map(lgamma, range(1, n + 2)), dtype=np.float64, count=n + 1)
    b_values, b_counts = np.unique(np.asarray(cluster_sizes, dtype=np.int64),
                                   return_counts=True)
    a_values, a_counts = np.unique(np.asarray(class_sizes, dtype=np.int64),
                                   return_counts=True)
    # Many class sizes' terms at once, at most _EMI_CHUNK (twenty numpy calls a size were
    # most of AMI's cost): the same operations, in the same order, as one size at a time.
    per_a = (np.minimum(a_values[:, None], b_values) + 1
             - np.maximum(1, a_values[:, None] + b_values - n)).sum(axis=1).tolist()
    total, first = 0.0, 0
    while first < a_values.size:
        last, size = first + 1, per_a[first]
        while last < a_values.size and size + per_a[last] <= _EMI_CHUNK:
            size, last = size + per_a[last], last + 1
        terms, weights = _emi_terms(a_values[first:last], b_values, b_counts, n, log_fact)
        start = 0
        for a_count, length in zip(a_counts[first:last].tolist(), per_a[first:last]):
            part = slice(start, start + length)
            total += a_count * float(np.dot(weights[part].copy(), terms[part].copy()))
            start += length
        first = last
    return total


_EMI_CHUNK = 1 << 20  # most terms of E[MI] held at once (unless one class size has more)


def _emi_terms(a_values, b_values, b_counts, n, log_fact):
    """Eq. 24's terms of the class sizes ``a_values``, and their clusters' counts."""
    pair_a, pair_b = np.repeat(a_values, b_values.size), np.tile(b_values, a_values.size)
    low = np.maximum(1, pair_a + pair_b - n)
    lengths = np.minimum(pair_a, pair_b) - low + 1
    starts = np.cumsum(lengths) - lengths
    a, b = np.repeat(pair_a, lengths), np.repeat(pair_b, lengths)
    nij = np.arange(lengths.sum()) - np.repeat(starts - low, lengths)
    log_p = (log_fact[a] + log_fact[b] + log_fact[n - a] + log_fact[n - b] - log_fact[n]
             - log_fact[nij] - log_fact[a - nij] - log_fact[b - nij] - log_fact[n - a - b + nij])
    log_a = np.repeat([log(value) for value in a_values.tolist()], b_values.size)  # not np.log
    mi_term = nij / n * (log(n) + np.log(nij) - np.repeat(log_a, lengths) - np.log(b))
    weights = np.repeat(np.tile(b_counts, a_values.size), lengths)
    return mi_term * np.exp(log_p), weights


def _ami_max(t):
    return _ami(t, average_method="max")


def _ari(t):
    # Pair counts as in sklearn's pair_confusion_matrix. Products of pair counts
    # reach n**4 (~1e26 for n = 3e6) and overflow int64, hence Python ints.
    n = t.n
    sum_sq = int(np.sum(t.counts.data.astype(np.int64) ** 2))
    sum_a2 = int(np.sum(t.class_sizes.astype(np.int64) ** 2))
    sum_b2 = int(np.sum(t.cluster_sizes.astype(np.int64) ** 2))
    tp = sum_sq - n
    fp = sum_b2 - sum_sq  # same cluster, different class
    fn = sum_a2 - sum_sq  # same class, different cluster
    tn = n * n - fp - fn - sum_sq
    if fp == 0 and fn == 0:
        return 1.0  # identical partitions, including n = 1 (sklearn)
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def _homogeneity(t):
    return t.mi / t.h_true if t.h_true else 1.0


def _completeness(t):
    return t.mi / t.h_pred if t.h_pred else 1.0


def _v_measure(t):
    h, c = _homogeneity(t), _completeness(t)
    return 0.0 if h + c == 0.0 else 2.0 * h * c / (h + c)


def _purity(t):
    # Each cluster votes for its majority class.
    return float(t.counts.max(axis=0).toarray().sum()) / t.n


def _hungarian_columns(m, r):
    """Columns of ``m`` (CSR, ``r`` rows) that some optimal matching may need.

    Each row only needs its ``r`` largest cells: if an optimal matching gives row i
    another column, one of those ``r`` is free (the other rows hold at most r - 1)
    and is at least as heavy, so swapping loses nothing. This bounds the dense
    matrix by r x r**2 even when every document is its own cluster.
    """
    keep = []
    for i in range(m.shape[0]):  # loops over classes or clusters, not documents
        lo, hi = m.indptr[i], m.indptr[i + 1]
        cols = m.indices[lo:hi]
        if hi - lo > r:
            cols = cols[np.argpartition(m.data[lo:hi], -r)[-r:]]
        keep.append(cols)
    return np.unique(np.concatenate(keep))


def _acc(t):
    m = t.counts
    if m.shape[1] < m.shape[0]:
        m = m.T.tocsr()  # match from the smaller side so that r is small
    dense = m[:, _hungarian_columns(m, m.shape[0])].toarray()
    # The assignment problem solved by scipy's LAPJVsp on the complete bipartite graph
    # (linear_sum_assignment's problem; scipy.optimize costs 0.2 s more to import). Its
    # edges need non-zero weights: count + 1 has the same best matchings, as every full
    # matching has min(rows, columns) edges.
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    rows, cols = min_weight_full_bipartite_matching(sp.csr_array(dense + 1), maximize=True)
    return float(dense[rows, cols].sum()) / t.n


_FROM_TABLE = {
    "nmi": _nmi,
    "ami": _ami,
    "ami_max": _ami_max,
    "ari": _ari,
    "acc": _acc,
    "homogeneity": _homogeneity,
    "completeness": _completeness,
    "v_measure": _v_measure,
    "purity": _purity,
}


#: Each metric's range: rounding can put a score one or two ulps outside it (identical
#: partitions gave NMI 1.0000000000000002), so every score is clipped to it. AMI and ARI
#: have no lower bound worth stating (below 0 is worse than chance).
RANGES = {
    "nmi": (0.0, 1.0),
    "ami": (None, 1.0),
    "ami_max": (None, 1.0),
    "ari": (None, 1.0),
    "acc": (0.0, 1.0),
    "homogeneity": (0.0, 1.0),
    "completeness": (0.0, 1.0),
    "v_measure": (0.0, 1.0),
    "purity": (0.0, 1.0),
}


def _clip(name, value):
    """``value`` of metric ``name`` as a Python float within :data:`RANGES`."""
    low, high = RANGES[name]
    value = float(value)
    if high is not None and value > high:
        return high
    if low is not None and value < low:
        return low
    return value


# ---------------------------------------------------------------- public API


def contingency(labels_true, labels_pred, *, sparse=False):
    """Count documents per (class, cluster) pair.

    Parameters
    ----------
    labels_true : array-like of shape (n,)
        Gold class of each document; any orderable hashable labels (ints, strings).
    labels_pred : array-like of shape (n,)
        Cluster of each document.
    sparse : bool, default=False
        Return a ``scipy.sparse.csr_array`` instead of a dense ndarray. Use it when
        the number of clusters can be huge (e.g. every document its own cluster).

    Returns
    -------
    ndarray or csr_array of int64, shape (n_classes, n_clusters)
        Row ``i`` is the ``i``-th smallest class label, column ``j`` the ``j``-th
        smallest cluster label.

    Raises
    ------
    ValueError
        If the inputs are not 1-D, differ in length, or are empty.
    """
    counts = _Table(labels_true, labels_pred).counts
    return counts if sparse else counts.toarray()


def nmi(labels_true, labels_pred):
    """Normalized mutual information, arithmetic normalisation.

    ``NMI = I(C; K) / ((H(C) + H(K)) / 2)``, which equals the V-measure and is
    scikit-learn's default ``normalized_mutual_info_score``. We use it because the
    GSDMM paper (Yin & Wang, KDD 2014) computed NMI with scikit-learn's
    implementation; papers using the geometric mean ``sqrt(H(C) H(K))`` report
    slightly different numbers.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)
        Gold classes and predicted clusters.

    Returns
    -------
    float
        In [0, 1]. 1.0 when both labelings are a single group (sklearn's
        convention); 0.0 when exactly one of them is.
    """
    return _clip("nmi", _nmi(_Table(labels_true, labels_pred)))


def ami(labels_true, labels_pred):
    """Adjusted mutual information (arithmetic normalisation), via scikit-learn.

    The expected mutual information under random labelings costs roughly
    ``O(n_classes * n_clusters * n)`` in the worst case, so this is by far the
    slowest metric for many clusters and millions of documents: about 20 s for
    3 million documents, 150 classes and 300 clusters, against under a second for
    all the other metrics together. Leave it out of :func:`evaluate` when speed
    matters.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        1.0 for identical partitions; about 0.0 for independent ones; may be negative.
    """
    return _clip("ami", _ami(_Table(labels_true, labels_pred)))


def ari(labels_true, labels_pred):
    """Adjusted Rand index, equal to scikit-learn's ``adjusted_rand_score``.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        1.0 for identical partitions; about 0.0 for independent ones; may be negative.
    """
    return _clip("ari", _ari(_Table(labels_true, labels_pred)))


def homogeneity(labels_true, labels_pred):
    """Homogeneity ``I(C; K) / H(C)``: does each cluster hold a single class?

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        In [0, 1]; 1.0 when there is a single class (sklearn's convention).
    """
    return _clip("homogeneity", _homogeneity(_Table(labels_true, labels_pred)))


def completeness(labels_true, labels_pred):
    """Completeness ``I(C; K) / H(K)``: is each class in a single cluster?

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        In [0, 1]; 1.0 when there is a single cluster (sklearn's convention).
    """
    return _clip("completeness", _completeness(_Table(labels_true, labels_pred)))


def v_measure(labels_true, labels_pred):
    """V-measure: harmonic mean of homogeneity and completeness (beta = 1).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        In [0, 1].
    """
    return _clip("v_measure", _v_measure(_Table(labels_true, labels_pred)))


def purity(labels_true, labels_pred):
    """Purity: each cluster counts its most frequent class, divided by ``n``.

    Several clusters may claim the same class, so putting every document in its
    own cluster scores 1.0; read it together with a one-to-one metric like
    :func:`acc`.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        In (0, 1].
    """
    return _clip("purity", _purity(_Table(labels_true, labels_pred)))


def acc(labels_true, labels_pred):
    """Clustering accuracy under the best one-to-one cluster-to-class mapping.

    The mapping maximises the number of correctly mapped documents on the
    (possibly rectangular) contingency table with the Hungarian algorithm
    (``scipy.optimize.linear_sum_assignment``). Each class receives at most one
    cluster, so with more clusters than classes the unmatched clusters' documents
    count as errors; with more classes than clusters the unmatched classes do.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)

    Returns
    -------
    float
        Matched documents divided by ``n``, in (0, 1].
    """
    return _clip("acc", _acc(_Table(labels_true, labels_pred)))


def evaluate(labels_true, labels_pred, metrics=None):
    """Compute several metrics from one shared contingency table.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)
        Gold classes and predicted clusters, any orderable hashable labels.
    metrics : iterable of str or str, optional
        Names from :data:`KNOWN_METRICS`; default all of :data:`METRIC_NAMES`, in that
        order.

    Returns
    -------
    dict of str to float
        Plain Python floats keyed by metric name, in the requested order, each within
        its range (:data:`RANGES`: rounding never gives 1.0000000000000002).

    Raises
    ------
    ValueError
        If a metric name is unknown (the message lists the valid ones), or the
        labels are not 1-D, differ in length, or are empty.
    """
    names = _check_metric_names(metrics)
    table = _Table(labels_true, labels_pred)
    return {name: _clip(name, _FROM_TABLE[name](table)) for name in names}


def _check_metric_names(metrics):
    """Validate names before any work, so a typo fails fast on a big input."""
    if metrics is None:
        return METRIC_NAMES
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    unknown = [name for name in names if name not in _FROM_TABLE]
    if unknown:
        raise ValueError(
            f"unknown metric {', '.join(map(repr, unknown))}: "
            f"valid metrics are {', '.join(KNOWN_METRICS)}"
        )
    return names
