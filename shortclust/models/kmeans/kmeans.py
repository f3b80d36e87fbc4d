"""K-means on TF-IDF or document vectors: the GSDMM paper's similarity-based baseline (4.3).

The small helpers the scikit-learn baselines share (TF-IDF view, input rule, seeds, column
checks, top words from centroids) live in ``_tfidf_common`` and ``_validation``; the
TF-IDF ones are importable from here too, as before.
"""

from shortclust.models.common.tfidf import (
    CentroidMixin,
    n_nonempty,
    require_enough_documents,
    sklearn_random_state,
    tfidf,
    top_words_of,
)
from shortclust.models.common.validation import same_columns
from shortclust.models.base import Capabilities, ClusteringModel, Integer, Real, Seed
from shortclust.models.common.invariants import FITTED_INVARIANTS

__all__ = ["KMeans", "n_nonempty", "require_enough_documents", "same_columns",
           "sklearn_random_state", "tfidf", "top_words_of"]


class KMeans(CentroidMixin, ClusteringModel):
    """K-means (Lloyd) on l2-normalised TF-IDF or document vectors, best of several seedings.

    Word counts (a Corpus, or a matrix of integer dtype) are weighted by TF-IDF
    (scikit-learn's ``TfidfTransformer``: smoothed idf, rows scaled to unit length; empty
    documents stay zero vectors); document vectors (a float matrix, dense or sparse: TF-IDF
    from the representation layer, averaged word vectors, sentence embeddings) are used as
    given after scaling their rows to unit length (the rule of
    :func:`~shortclust.models.common.tfidf.unit_vectors`). The rows are clustered by
    :class:`sklearn.cluster.KMeans` with k-means++ seeding; a sparse matrix stays sparse.
    Each initialisation is a separate Lloyd run; the one with the lowest inertia is kept.

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
        Centroids in TF-IDF space (in the space of the unit vectors for vector input).
    inertia_ : float
        Sum of squared distances of the documents to their centroid (the objective).
    idf_ : ndarray of shape (n_features_in_,) or None
        Inverse document frequencies learnt in ``fit`` on counts, reused by ``predict``;
        None when fitted on document vectors.
    n_features_in_ : int
        Vocabulary size V (the vectors' dimension for vector input).
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

    ``predict`` takes the kind of input ``fit`` had (counts, weighted with the fitted idf,
    or vectors, l2-normalised) and refuses the other. ``top_words`` of a model fitted on
    vectors needs ``vocabulary=`` (one word per column).

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

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "n_init": Integer(1),
        "max_iter": Integer(1),
        "tol": Real(0.0, inclusive=True),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="both", predict=True, predict_proba=False,
                                top_words=True)
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["kmeans"]

    def __init__(self, *, n_clusters=8, n_init=20, max_iter=300, tol=1e-7, random_state=None):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_features), or Corpus
            Word counts (a Corpus, or non-negative integers in a matrix of integer dtype),
            weighted by TF-IDF; or document vectors (a float matrix), l2-normalised. Empty
            rows are allowed.
        y : ignored
        callback : callable, optional
            Called as ``callback(i, n_init, n_clusters)`` after each initialisation.

        Returns
        -------
        self : KMeans
        """
        weights, transformer = self._checked_vectors(X)
        best = self._best_of_runs(weights, callback)
        self._store_centroids(best, transformer, weights.shape[1])
        return self

    def _best_of_runs(self, rows, callback=None, init="k-means++"):
        """The fitted scikit-learn K-means of lowest inertia over ``n_init`` Lloyd runs."""
        from sklearn.cluster import KMeans as SklearnKMeans

        # One RandomState shared by the runs draws the seedings in the same sequence as
        # scikit-learn's own n_init loop would.
        seeds = sklearn_random_state(self.random_state)
        best = None
        for i in range(1, self.n_init + 1):
            run = SklearnKMeans(n_clusters=self.n_clusters, init=init, n_init=1,
                                max_iter=self.max_iter, tol=self.tol, random_state=seeds)
            run.fit(rows)
            if best is None or run.inertia_ < best.inertia_:
                best = run
            if callback is not None:
                callback(i, self.n_init, n_nonempty(best.labels_))
        return best
