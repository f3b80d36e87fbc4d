"""Hierarchical agglomerative clustering of TF-IDF vectors: the GSDMM paper's HAC baseline."""

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.common.tfidf import TfidfMixin, n_nonempty
from shortclust.models.base import Capabilities, ClusteringModel, Integer, Options, Seed

# Rows of pairwise similarities computed at once: at most this many float64 values.
_BLOCK_VALUES = 2**24


class HAC(TfidfMixin, ClusteringModel):
    """Agglomerative clustering of l2-normalised TF-IDF vectors, cut at ``n_clusters``.

    Documents are weighted as for :class:`~shortclust.models.kmeans.kmeans.KMeans`; their
    pairwise distances are computed from the sparse vectors and merged bottom-up by
    scipy's ``linkage`` (the routine scikit-learn's ``AgglomerativeClustering`` calls for
    these linkages) until ``n_clusters`` groups remain. HAC is deterministic:
    ``random_state`` is accepted, so experiment seeds work, and ignored.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters; the paper uses the true number of classes.
    linkage : {"average", "complete", "single", "ward"}, default="average"
        Distance between two groups: mean, largest or smallest pairwise distance, or
        Ward's increase in variance (``ward`` needs ``metric="euclidean"``).
    metric : {"cosine", "euclidean"}, default="cosine"
        Distance between two documents' unit TF-IDF vectors u, v: ``1 - u.v`` or
        ``|u - v| = sqrt(2 - 2 u.v)`` (both rank pairs alike; the linkages differ).
    max_docs : int, default=30000
        Largest corpus accepted. The ``D (D - 1) / 2`` pairwise distances are held twice
        while merging (``8 D (D - 1)`` bytes): about 7 GiB for 30,000 documents, 60 GiB
        for 90,000. A larger corpus is refused before anything is allocated.
    random_state : ignored
        Accepted for the experiment runner's seeds; HAC draws no random numbers.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster of each document, in ``0..n_clusters-1``, numbered in order of each
        cluster's first document.
    n_clusters_ : int
        Number of clusters (``n_clusters``).
    n_iter_ : int
        Merges performed to reach ``n_clusters`` groups: ``n_documents - n_clusters_``.
    merges_ : ndarray of shape (n_documents - 1, 4)
        The full merge tree in scipy's linkage format (for dendrograms).
    cluster_means_ : ndarray of shape (n_clusters_, n_features_in_)
        Mean TF-IDF vector of each cluster (used by ``top_words``).
    n_features_in_ : int
    vocabulary_ : list of str or None

    Notes
    -----
    Distances come from sparse dot products of the unit vectors, a block of rows at a
    time, instead of a dense document-word matrix: Tweet (2,472 documents) takes 0.2 s
    (scikit-learn's dense path about 10 s), GoogleNews-T (11,109) 5 s and 1 GiB. An empty document has no direction: it is given its own extra axis,
    so empty documents are identical to each other and as far from every other document
    as two documents sharing no word. ``fit`` calls ``callback(1, 1, n_clusters_)`` once,
    at the end. The labels equal scikit-learn's ``AgglomerativeClustering`` on the dense
    vectors up to the numbering (and rounding in exact ties).

    References
    ----------
    C. D. Manning, P. Raghavan and H. Schuetze. Introduction to Information Retrieval,
    chapter 17. 2008 (the paper's [15]).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> HAC(n_clusters=2).fit_predict(X).tolist()
    [0, 0, 1, 1]
    """

    _centres_attribute = "cluster_means_"  # what top_words ranks
    _parameter_constraints = {
        "n_clusters": Integer(1),
        "max_docs": Integer(2),
        "linkage": Options("average", "complete", "single", "ward"),
        "metric": Options("cosine", "euclidean"),
        "random_state": Seed(),
    }
    # Counts only: the TF-IDF weighting is part of the model (as_counts refuses floats).
    capabilities = Capabilities(input="counts", predict=False, predict_proba=False,
                                top_words=True, seeded=False)

    def __init__(self, *, n_clusters=8, linkage="average", metric="cosine", max_docs=30000,
                 random_state=None):
        self.n_clusters = n_clusters
        self.linkage = linkage
        self.metric = metric
        self.max_docs = max_docs
        self.random_state = random_state

    def _validate_joint_params(self):
        """Ward's criterion is defined on Euclidean distances only."""
        if self.linkage == "ward" and self.metric != "euclidean":
            raise ParameterError(
                f"linkage 'ward' needs metric 'euclidean', got {self.metric!r}: "
                "set metric to euclidean or choose another linkage"
            )

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts; empty rows are allowed.
        y : ignored
        callback : callable, optional
            Called once as ``callback(1, 1, n_clusters_)`` at the end.

        Returns
        -------
        self : HAC

        Raises
        ------
        ParameterError
            If the corpus has more than ``max_docs`` documents, or fewer than
            ``n_clusters``.
        """
        from scipy.cluster.hierarchy import linkage

        counts, _, weights = self._checked_tfidf(X)
        n_docs = counts.shape[0]
        if n_docs == 1:
            self.merges_ = np.zeros((0, 4))
        else:
            distances = _condensed_distances(_with_empty_axis(weights), self.metric)
            self.merges_ = linkage(distances, method=self.linkage)
            del distances
        self.labels_ = _cut(self.merges_, n_docs, self.n_clusters)
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_iter_ = n_docs - self.n_clusters_
        self.n_features_in_ = counts.shape[1]
        self.cluster_means_ = _cluster_means(weights, self.labels_, self.n_clusters_)
        if callback is not None:
            callback(1, 1, self.n_clusters_)
        return self

    def _check_corpus(self, counts):
        """Refuse a corpus over ``max_docs`` documents, then one under ``n_clusters``."""
        self._check_size(counts)
        super()._check_corpus(counts)

    def _check_size(self, counts):
        n_docs = counts.shape[0]
        if n_docs > self.max_docs:
            size = 8 * n_docs * (n_docs - 1)
            size = f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.0f} MiB"
            raise ParameterError(
                f"HAC on {n_docs} documents needs about {size} for its pairwise "
                f"distances, over the limit max_docs={self.max_docs}: use kmeans or "
                "minibatch_kmeans, cluster a subset, or raise max_docs if the machine "
                "has the memory"
            )


def _with_empty_axis(weights):
    """Unit TF-IDF rows plus one column that is 1 for empty documents only (CSR)."""
    empty = (np.diff(weights.indptr) == 0).astype(np.float64)
    return sp.hstack([weights, sp.csr_matrix(empty[:, None])], format="csr")


def _condensed_distances(unit_rows, metric):
    """Pairwise distances of unit rows in scipy's condensed order (i < j, row-major)."""
    n_docs = unit_rows.shape[0]
    out = np.empty(n_docs * (n_docs - 1) // 2)
    columns = unit_rows.T.tocsc()
    block = max(1, _BLOCK_VALUES // n_docs)
    position = 0
    for start in range(0, n_docs, block):
        stop = min(n_docs, start + block)
        similarity = (unit_rows[start:stop] @ columns[:, start:]).toarray()
        for row in range(stop - start):
            values = similarity[row, row + 1:]
            out[position:position + values.size] = values
            position += values.size
    if metric == "cosine":
        np.subtract(1.0, out, out=out)
    else:
        np.multiply(out, -2.0, out=out)
        np.add(out, 2.0, out=out)
    np.maximum(out, 0.0, out=out)  # rounding can leave -1e-16 for identical documents
    if metric == "euclidean":
        np.sqrt(out, out=out)
    return out


def _cut(merges, n_docs, n_clusters):
    """Labels of the documents once the first ``n_docs - n_clusters`` merges are done.

    Clusters are numbered in order of their first document.
    """
    group = np.arange(2 * n_docs - 1)
    # Walking the merges backwards, a merged node passes its group down to its children.
    for step in range(n_docs - n_clusters - 1, -1, -1):
        left, right = int(merges[step, 0]), int(merges[step, 1])
        group[left] = group[right] = group[n_docs + step]
    _, first, inverse = np.unique(group[:n_docs], return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse].astype(np.int64)


def _cluster_means(weights, labels, n_clusters):
    """Mean TF-IDF row of each cluster, as a dense (n_clusters, n_words) array."""
    n_docs = weights.shape[0]
    members = sp.csr_matrix((np.ones(n_docs), (labels, np.arange(n_docs))),
                            shape=(n_clusters, n_docs))
    sizes = np.asarray(members.sum(axis=1)).ravel()
    return np.asarray((members @ weights).todense()) / sizes[:, None]
