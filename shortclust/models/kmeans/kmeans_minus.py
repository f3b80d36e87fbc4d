"""k-means-- (Chawla & Gionis 2013): k-means that sets the farthest points aside as outliers.

The IC paper's second initial clustering (Rakib, Zeh, Jankowska and Milios, section 5.1):
"outliers are removed in each iteration of the k-means clustering before recomputing the
cluster centers ... texts are ranked in decreasing order using their distances to their
nearest cluster centers and the d most distant texts are considered as outliers".
"""

import numbers

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.tfidf import (n_nonempty, require_enough_documents,
                                             sklearn_random_state, top_words_of, unit_vectors)
from shortclust.models.base import Capabilities, ClusteringModel, Integer, Interval, Seed


class KMeansMinus(ClusteringModel):
    """k-means-- with k-means++ seeding on l2-normalised document vectors.

    Each iteration (Chawla & Gionis 2013, Algorithm 1): assign every document to its
    nearest centre; set aside the ``l`` documents farthest from their nearest centre; move
    each centre to the mean of the remaining documents assigned to it. It stops when the
    assignment and the set aside are the same as in the previous iteration (the centres are
    then a fixed point) or after ``max_iter`` iterations. Centres are seeded by k-means++
    (Arthur & Vassilvitskii 2007), as the paper's k-means; of ``n_init`` seedings the one
    of lowest objective is kept. Finally every document, outliers included, is labelled
    with its nearest centre.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters K; the paper uses the true number of classes.
    n_outliers : int or float, default=0.05
        The paper's d (Chawla & Gionis' l): an int >= 0 is a number of documents, a float in
        [0, 1) a fraction of them (rounded down). 0 gives plain k-means (Lloyd). The paper
        states no value; 0.05 is the default rate of ELKI's ``KMeansMinusMinus``.
    n_init : int, default=10
        k-means++ seedings, each run to convergence; the lowest objective wins. 10 was
        scikit-learn's ``KMeans`` default when the paper was written.
    max_iter : int, default=300
        Maximum iterations per seeding.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the k-means++ seedings. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Nearest final centre of each document (outliers too), in ``0..n_clusters-1``.
    n_clusters_ : int
        Number of distinct labels.
    n_iter_ : int
        Iterations of the kept seeding.
    cluster_centers_ : ndarray of shape (n_clusters, n_features_in_)
        Final centres (means of unit vectors, so of norm <= 1).
    outlier_mask_ : ndarray of bool, shape (n_documents,)
        The ``n_outliers_`` documents farthest from their nearest final centre.
    n_outliers_ : int
        l, the number of documents set aside in each iteration.
    inertia_ : float
        The k-means-- objective: sum of squared distances of the other documents to their
        nearest centre.
    n_features_in_ : int
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    The input is handled by :func:`~shortclust.models.common.tfidf.unit_vectors`: counts
    (a Corpus or an integer matrix) become l2-normalised TF-IDF, float vectors are scaled
    to unit length, so squared Euclidean distances are ``2 - 2 cos`` away from the centres'
    shrinkage. An empty document (zero vector) is at squared distance ``|c|^2`` from centre
    c: no NaN; it is likely to be among the outliers. A centre left with no inlier keeps
    its position (as in ELKI); ties in the nearest centre go to the lowest index, ties in
    the ranking of outliers to the earlier document. ``fit`` calls
    ``callback(i, n_init, n_clusters)`` after each seeding, with the best run's count.

    References
    ----------
    S. Chawla and A. Gionis. k-means--: a unified approach to clustering and outlier
    detection. SDM 2013. M. R. H. Rakib, N. Zeh, M. Jankowska, E. Milios. Enhancement of
    short text clustering by iterative classification. NLDB 2020, section 5.1.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> labels = KMeansMinus(n_clusters=2, n_outliers=1, random_state=0).fit_predict(X)
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "n_init": Integer(1),
        "max_iter": Integer(1),
        "n_outliers": [Integer(0, note="a number of documents"),
                       Interval(0.0, 1.0, closed="left", kind="float", note="a fraction of them")],
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="both", predict=False, predict_proba=False,
                                top_words=True)

    def __init__(self, *, n_clusters=8, n_outliers=0.05, n_init=10, max_iter=300,
                 random_state=None):
        self.n_clusters = n_clusters
        self.n_outliers = n_outliers
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_features), or Corpus
            Document vectors, or word counts (weighted by TF-IDF); see
            :func:`~shortclust.models.common.tfidf.unit_vectors`.
        y : ignored
        callback : callable, optional
            Called as ``callback(i, n_init, n_clusters)`` after each seeding.

        Returns
        -------
        self : KMeansMinus
        """
        from sklearn.cluster import kmeans_plusplus

        self._validate_params()
        vectors, self.vocabulary_ = unit_vectors(X)
        require_enough_documents(vectors, self.n_clusters)
        self.n_outliers_ = self._outlier_count(vectors.shape[0])
        squares = _squared_norms(vectors)
        # One RandomState shared by the seedings, as scikit-learn's own n_init loop does.
        seeds = sklearn_random_state(self.random_state)
        best = None
        for i in range(1, self.n_init + 1):
            centres, _ = kmeans_plusplus(vectors, self.n_clusters, x_squared_norms=squares,
                                         random_state=seeds)
            run = _lloyd_minus(vectors, squares, centres, self.n_outliers_, self.max_iter)
            if best is None or run["inertia"] < best["inertia"]:
                best = run
            if callback is not None:
                callback(i, self.n_init, n_nonempty(best["labels"]))
        self._store(best, vectors.shape[1])
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def top_words(self, n=10, vocabulary=None):
        """Columns of highest weight in each centre (words when fitted on a Corpus)."""
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        return top_words_of(self.cluster_centers_, n, words)

    def _outlier_count(self, n_docs):
        """l, from a count or a fraction; refused if it leaves no document to average."""
        if isinstance(self.n_outliers, numbers.Integral):
            count = int(self.n_outliers)
        else:
            count = int(np.floor(self.n_outliers * n_docs))
        if count >= n_docs:
            raise ParameterError(
                f"n_outliers={self.n_outliers} sets aside all {n_docs} documents: lower it "
                "below the number of documents"
            )
        return count

    def _store(self, run, n_features):
        self.labels_ = run["labels"]
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_iter_ = int(run["n_iter"])
        self.cluster_centers_ = run["centres"]
        self.outlier_mask_ = run["outliers"]
        self.inertia_ = float(run["inertia"])
        self.n_features_in_ = n_features


def _lloyd_minus(vectors, squares, centres, n_outliers, max_iter):
    """One k-means-- run from the given centres; a dict of the final state."""
    previous = None
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        nearest, distances = _assign(vectors, squares, centres)
        outliers = _farthest(distances, n_outliers)
        state = np.where(outliers, -1, nearest)
        if previous is not None and np.array_equal(state, previous):
            break  # same inliers in the same clusters: the centres would not move
        centres = _means(vectors, nearest, ~outliers, centres)
        previous = state
    # Labels, outliers and objective with respect to the centres returned.
    nearest, distances = _assign(vectors, squares, centres)
    outliers = _farthest(distances, n_outliers)
    return {"labels": nearest, "outliers": outliers, "centres": centres, "n_iter": n_iter,
            "inertia": distances[~outliers].sum()}


def _assign(vectors, squares, centres):
    """Nearest centre of each row (lowest index on ties) and its squared distance."""
    products = np.asarray(vectors @ centres.T)
    distances = squares[:, None] - 2.0 * products + np.einsum("ij,ij->i", centres, centres)
    nearest = np.argmin(distances, axis=1)
    best = np.maximum(distances[np.arange(len(nearest)), nearest], 0.0)
    return nearest.astype(np.int64), best


def _farthest(distances, count):
    """Mask of the ``count`` largest distances; among equal ones the earlier rows."""
    mask = np.zeros(distances.shape[0], dtype=bool)
    if count:
        mask[np.argsort(-distances, kind="stable")[:count]] = True
    return mask


def _means(vectors, nearest, inliers, centres):
    """Mean of each cluster's inliers; a cluster without inliers keeps its centre."""
    n_clusters = centres.shape[0]
    rows = np.flatnonzero(inliers)
    members = sp.csr_matrix((np.ones(rows.size), (nearest[rows], rows)),
                            shape=(n_clusters, vectors.shape[0]))
    sums = members @ vectors
    sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    sizes = np.asarray(members.sum(axis=1)).ravel()
    moved = sizes > 0
    updated = centres.copy()
    updated[moved] = sums[moved] / sizes[moved, None]
    return updated


def _squared_norms(vectors):
    """|x|^2 of each row: 1 for unit rows, 0 for empty documents (float64)."""
    if sp.issparse(vectors):
        return np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", vectors, vectors)
