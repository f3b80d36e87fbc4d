"""K-means on TF-IDF vectors: the GSDMM paper's similarity-based baseline (section 4.3).

Also home of the small helpers the scikit-learn baselines share (TF-IDF view, seeds,
column checks, top words from centroids): ``minibatch_kmeans`` and ``hac`` import them.
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted

from shortclust.errors import ParameterError
from shortclust.models.gsdmm import _as_counts, _require_int, _require_real


class KMeans(ClusterMixin, BaseEstimator):
    """K-means (Lloyd) on l2-normalised TF-IDF vectors, best of several initialisations.

    The count matrix is weighted by TF-IDF (scikit-learn's ``TfidfTransformer``: smoothed
    idf, rows scaled to unit length; empty documents stay zero vectors) and clustered by
    :class:`sklearn.cluster.KMeans` with k-means++ seeding. The matrix stays sparse. Each
    initialisation is a separate Lloyd run; the one with the lowest inertia is kept.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters K; the paper uses the true number of classes.
    n_init : int, default=20
        Initialisations (k-means++ seedings); the paper uses 20 (section 4.3).
    max_iter : int, default=300
        Maximum Lloyd iterations per initialisation; the paper's timing protocol
        (section 4.8) uses one initialisation of 10 iterations.
    tol : float, default=1e-7
        Convergence tolerance (>= 0), passed to scikit-learn (see Notes).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the k-means++ seedings. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster of each document: the index of its centroid, in ``0..n_clusters-1``.
    n_clusters_ : int
        Number of non-empty clusters (``n_clusters`` unless a centroid lost all documents).
    n_iter_ : int
        Lloyd iterations of the kept initialisation.
    cluster_centers_ : ndarray of shape (n_clusters, n_features_in_)
        Centroids in TF-IDF space.
    inertia_ : float
        Sum of squared distances of the documents to their centroid (the objective).
    idf_ : ndarray of shape (n_features_in_,)
        Inverse document frequencies learnt in ``fit``, reused by ``predict``.
    n_features_in_ : int
        Vocabulary size V.
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    The paper stops each run when the relative change of the objective falls below
    1e-7. scikit-learn stops a Lloyd run when no label changes, or when the squared
    norm of the centroids' shift falls below ``tol`` times the mean per-word variance of
    the data; with ``tol=1e-7`` that is in practice "until the labels stop changing" or
    ``max_iter``, which is at least as strict as the paper's criterion.

    ``fit``'s ``callback(i, n_init, n_clusters)`` is called after each initialisation
    (scikit-learn offers no hook inside a Lloyd run), with the best clustering's count.

    References
    ----------
    J. MacQueen. Some methods for classification and analysis of multivariate
    observations. 1967 (the paper's [13]). D. Arthur and S. Vassilvitskii. k-means++: the
    advantages of careful seeding. SODA 2007.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> labels = KMeans(n_clusters=2, n_init=3, random_state=0).fit_predict(X)
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    def __init__(self, *, n_clusters=8, n_init=20, max_iter=300, tol=1e-7, random_state=None):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _validate_params(self):
        """Raise :class:`ParameterError` naming any hyperparameter out of range."""
        _require_int(self.n_clusters, "n_clusters", 1)
        _require_int(self.n_init, "n_init", 1)
        _require_int(self.max_iter, "max_iter", 1)
        _require_real(self.tol, "tol", 0.0, inclusive=True)

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts; empty rows are allowed.
        y : ignored
        callback : callable, optional
            Called as ``callback(i, n_init, n_clusters)`` after each initialisation.

        Returns
        -------
        self : KMeans
        """
        from sklearn.cluster import KMeans as SklearnKMeans

        self._validate_params()
        counts, self.vocabulary_ = _as_counts(X)
        require_enough_documents(counts, self.n_clusters)
        transformer, weights = tfidf(counts)
        # One RandomState shared by the runs draws the seedings in the same sequence as
        # scikit-learn's own n_init loop would.
        seeds = sklearn_random_state(self.random_state)
        best = None
        for i in range(1, self.n_init + 1):
            run = SklearnKMeans(n_clusters=self.n_clusters, init="k-means++", n_init=1,
                                max_iter=self.max_iter, tol=self.tol, random_state=seeds)
            run.fit(weights)
            if best is None or run.inertia_ < best.inertia_:
                best = run
            if callback is not None:
                callback(i, self.n_init, n_nonempty(best.labels_))
        self.labels_ = best.labels_.astype(np.int64)
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_iter_ = int(best.n_iter_)
        self.cluster_centers_ = best.cluster_centers_
        self.inertia_ = float(best.inertia_)
        self.idf_ = transformer.idf_
        self.n_features_in_ = counts.shape[1]
        self._estimator, self._transformer = best, transformer
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def predict(self, X):
        """Nearest fitted centroid of each new document (TF-IDF with the fitted idf)."""
        check_is_fitted(self, "labels_")
        counts = same_columns(X, self.n_features_in_)
        return self._estimator.predict(self._transformer.transform(counts)).astype(np.int64)

    def top_words(self, n=10, vocabulary=None):
        """Words of highest TF-IDF weight in each centroid.

        Returns
        -------
        list of list of (word, weight)
            One list per centroid (``n_clusters`` lists), heaviest word first.
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        return top_words_of(self.cluster_centers_, n, words)


# --- helpers shared by the scikit-learn baselines ---------------------------------------------

def tfidf(counts):
    """Fitted ``TfidfTransformer`` (smoothed idf, l2 rows) and the CSR TF-IDF of ``counts``.

    The same weighting as :meth:`shortclust.data.Corpus.tfidf`; empty rows stay zero.
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    transformer = TfidfTransformer(norm="l2")
    return transformer, transformer.fit_transform(counts).tocsr()


def sklearn_random_state(random_state):
    """A ``numpy.random.RandomState`` for scikit-learn, from any seed GSDMM accepts.

    One ``np.random.default_rng(random_state)`` per fit, as for every shortclust model, so
    an int, a Generator or None behave alike across models (and seeds above 2**32 work).
    """
    rng = np.random.default_rng(random_state)
    return np.random.RandomState(int(rng.integers(0, 2**32 - 1, dtype=np.int64)))


def require_enough_documents(counts, n_clusters):
    """A clustering into more groups than there are documents is refused in one line."""
    if counts.shape[0] < n_clusters:
        raise ParameterError(
            f"n_clusters={n_clusters} is more than the {counts.shape[0]} documents: "
            "lower n_clusters or use a larger corpus"
        )


def n_nonempty(labels):
    """Number of distinct labels."""
    return int(np.unique(labels).size)


def same_columns(X, n_features):
    """Counts of X, refused if its columns are not the training vocabulary's."""
    counts, _ = _as_counts(X)
    if counts.shape[1] != n_features:
        raise ParameterError(
            f"X has {counts.shape[1]} word columns but the model was fitted on "
            f"{n_features}: build it with the training vocabulary"
        )
    return counts


def top_words_of(centers, n, vocabulary):
    """Top ``n`` (word, weight) pairs of each row of ``centers``, heaviest first."""
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ParameterError(f"n must be an integer >= 1, got {n!r}")
    result = []
    for row in np.asarray(centers):
        top = np.argsort(-row, kind="stable")[:n]
        result.append([(vocabulary[w] if vocabulary is not None else int(w), float(row[w]))
                       for w in top])
    return result
