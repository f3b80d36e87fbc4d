"""Mini-batch K-means on TF-IDF or document vectors: the GSDMM paper's scalability baseline."""

from shortclust.models.common.tfidf import CentroidMixin, sklearn_random_state
from shortclust.models.base import Capabilities, ClusteringModel, Integer, Interval, Seed
from shortclust.models.common.invariants import FITTED_INVARIANTS


class MiniBatchKMeans(CentroidMixin, ClusteringModel):
    """Mini-batch K-means (Sculley 2010) on l2-normalised TF-IDF or document vectors.

    The input is handled as by :class:`~shortclust.models.kmeans.kmeans.KMeans`: word counts (a
    Corpus or an integer matrix) are weighted by TF-IDF, document vectors (a float matrix,
    dense or sparse) are l2-normalised. The rows are clustered by
    :class:`sklearn.cluster.MiniBatchKMeans`, whose batches hold a fixed
    fraction of the documents (the paper: one percent). Each step moves the centroids of
    the batch's documents towards them, with a per-centroid learning rate.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters K; the paper uses the true number (152 for GoogleNews-T).
    batch_fraction : float, default=0.01
        Batch size as a fraction of the documents, in (0, 1], rounded; at least one document.
    max_iter : int, default=10
        Passes over the data (scikit-learn's epochs): ``max_iter * n_documents /
        batch_size`` steps at most, fewer if scikit-learn's early stopping fires.
    n_init : int, default=1
        k-means++ seedings tried on a sample; the best one is run.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the seeding and of the batch sampling. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Nearest final centroid of each document, in ``0..n_clusters-1``.
    n_clusters_ : int
        Number of non-empty clusters.
    n_iter_ : int
        Passes over the data run (scikit-learn's ``n_iter_``).
    n_steps_ : int
        Mini-batch steps run.
    batch_size_ : int
        Documents per batch.
    cluster_centers_ : ndarray of shape (n_clusters, n_features_in_)
    inertia_ : float
        Sum of squared distances of the documents to their centroid.
    idf_ : ndarray of shape (n_features_in_,) or None
        None when fitted on document vectors.
    n_features_in_ : int
    vocabulary_ : list of str or None

    Notes
    -----
    scikit-learn's defaults for the rest: early stopping after 10 steps without
    improvement of the smoothed batch inertia, re-seeding of nearly empty centroids
    (``reassignment_ratio=0.01``), seeding on ``3 * batch_size`` sampled documents (at
    least ``3 * n_clusters``). ``fit`` calls ``callback(n_iter_, max_iter, n_clusters_)``
    once, at the end (scikit-learn offers no hook between steps). ``predict`` and
    ``top_words`` follow :class:`~shortclust.models.kmeans.kmeans.KMeans`: ``predict`` takes the
    kind of input ``fit`` had, and ``top_words`` after vectors needs ``vocabulary=``.

    References
    ----------
    D. Sculley. Web-scale k-means clustering. WWW 2010 (the paper's [26]).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]] * 5)
    >>> model = MiniBatchKMeans(n_clusters=2, batch_fraction=0.2, random_state=0).fit(X)
    >>> model.batch_size_, model.n_clusters_
    (4, 2)
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "max_iter": Integer(1),
        "n_init": Integer(1),
        "batch_fraction": Interval(0.0, 1.0, closed="right"),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="both", predict=True, predict_proba=False,
                                top_words=True)
    _fitted_attributes = CentroidMixin._fitted_attributes + ("n_steps_", "batch_size_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["minibatch_kmeans"]

    def __init__(self, *, n_clusters=8, batch_fraction=0.01, max_iter=10, n_init=1,
                 random_state=None):
        self.n_clusters = n_clusters
        self.batch_fraction = batch_fraction
        self.max_iter = max_iter
        self.n_init = n_init
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
            Called once as ``callback(n_iter_, max_iter, n_clusters_)`` at the end.

        Returns
        -------
        self : MiniBatchKMeans
        """
        from sklearn.cluster import MiniBatchKMeans as SklearnMiniBatchKMeans

        weights, transformer = self._checked_vectors(X)
        self.batch_size_ = max(1, round(self.batch_fraction * weights.shape[0]))
        estimator = SklearnMiniBatchKMeans(
            n_clusters=self.n_clusters, init="k-means++", n_init=self.n_init,
            max_iter=self.max_iter, batch_size=self.batch_size_,
            random_state=sklearn_random_state(self.random_state),
        )
        estimator.fit(weights)
        self._store_centroids(estimator, transformer, weights.shape[1])
        self.n_steps_ = int(estimator.n_steps_)
        if callback is not None:
            callback(self.n_iter_, self.max_iter, self.n_clusters_)
        return self
