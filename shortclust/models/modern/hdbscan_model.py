"""HDBSCAN on document vectors (scikit-learn's implementation): a baseline that finds K itself.

Not in any of the five papers: with sentence embeddings it is what a practitioner would
run today (BERTopic clusters its reduced embeddings the same way).
"""

import numpy as np

from shortclust.models.common.tfidf import unit_vectors
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, NoneOr, Options,
                                    Seed)


def noise_as_cluster(labels) -> np.ndarray:
    """Density-clustering labels with the noise (``-1``) made one more cluster, numbered
    after the others, so every document has a cluster the metrics can score.

    Examples
    --------
    >>> noise_as_cluster([0, -1, 1, -1]).tolist()
    [0, 2, 1, 2]
    >>> noise_as_cluster([-1, -1]).tolist()
    [0, 0]
    """
    labels = np.asarray(labels, dtype=np.int64).copy()
    found = labels[labels >= 0]
    labels[labels < 0] = found.max() + 1 if found.size else 0
    return labels


class HDBSCAN(ClusteringModel):
    """HDBSCAN (Campello, Moulavi & Sander 2013) on l2-normalised document vectors.

    A thin estimator over :class:`sklearn.cluster.HDBSCAN`, at its defaults: the number
    of clusters comes from the density of the vectors, not a parameter. Documents it
    leaves as noise are scored as one more cluster (:func:`noise_as_cluster`; their number
    is ``n_noise_``). On unit rows the Euclidean distance ranks pairs as the cosine does.

    Parameters
    ----------
    min_cluster_size : int, default=5
        Smallest group of documents that counts as a cluster (scikit-learn's default).
    min_samples : int or None, default=None
        Neighbours of a core point; None: ``min_cluster_size``.
    cluster_selection_method : {"eom", "leaf"}, default="eom"
        Excess of mass (the default) or the leaves of the condensed tree.
    random_state : ignored
        HDBSCAN is deterministic; the runner passes every run's seed.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Clusters ``0..n_clusters_-1``, the noise the last one when there is noise.
    n_clusters_ : int
        Distinct labels (the noise group included).
    n_noise_ : int
        Documents HDBSCAN left as noise.
    n_iter_ : int
        0 (no iterations).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0.0], [0.99, 0.1], [0.98, 0.12], [0, 1], [0.1, 0.99], [0.12, 0.98]])
    >>> HDBSCAN(min_cluster_size=2).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints = {
        "min_cluster_size": Integer(2),
        "min_samples": NoneOr(Integer(1)),
        "cluster_selection_method": Options("eom", "leaf"),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="vectors", predict=False, predict_proba=False,
                                top_words=False, seeded=False)

    def __init__(self, *, min_cluster_size=5, min_samples=None, cluster_selection_method="eom",
                 random_state=None):
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.cluster_selection_method = cluster_selection_method
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Cluster the document vectors of X (a float matrix; counts are refused)."""
        from sklearn.cluster import HDBSCAN as SklearnHDBSCAN

        self._validate_params()
        vectors = _vectors_only(X)
        dense = vectors.toarray() if hasattr(vectors, "toarray") else vectors
        min_size = min(self.min_cluster_size, max(dense.shape[0], 2))
        found = SklearnHDBSCAN(min_cluster_size=min_size, min_samples=self.min_samples,
                               cluster_selection_method=self.cluster_selection_method,
                               copy=True).fit(dense).labels_
        self.n_noise_ = int(np.sum(found < 0))
        self.labels_ = noise_as_cluster(found)
        self.n_clusters_ = int(np.unique(self.labels_).size)
        self.n_iter_ = 0
        if callback is not None:
            callback(1, 1, self.n_clusters_)
        return self


def _vectors_only(X):
    """X's unit rows if X holds document vectors; ParameterError for word counts."""
    from shortclust.errors import ParameterError
    from shortclust.models.common.tfidf import _holds_counts

    if _holds_counts(X):
        raise ParameterError("X must be document vectors (a float matrix, e.g. "
                             "representation: sentence_embeddings), got word counts")
    return unit_vectors(X)[0]
