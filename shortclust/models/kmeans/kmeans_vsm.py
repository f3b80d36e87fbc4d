"""K-means in the vector space model with a chosen term weighting and initialisation.

:class:`~shortclust.models.kmeans.kmeans.KMeans` fixes the weighting (smoothed TF-IDF, rows scaled
to unit length) and the seeding (k-means++). This model exposes both, with the options of
scikit-learn's ``TfidfTransformer``, so that the K-means baselines papers ran with other
settings can be run as they were: the GSDMM paper (Yin & Wang, KDD 2014) says only that
similarity-based models represent documents as vectors of word weights "(e.g., TF-IDF)"
(section 2), and its Table 2 K-means numbers are those of raw term counts, not of unit
TF-IDF rows (``configs/papers/gsdmm/kmeans_counts.yaml``, ``results/gsdmm/table2.md``).
"""

from shortclust.models.common.validation import as_counts
from shortclust.models.base import Boolean, Capabilities, NoneOr, Options
from shortclust.models.kmeans.kmeans import KMeans
from shortclust.models.common.invariants import FITTED_INVARIANTS


class KMeansVSM(KMeans):
    """K-means (Lloyd, Euclidean) on term-weighted count vectors, best of ``n_init`` runs.

    The word counts are weighted as scikit-learn's ``TfidfTransformer`` with the given
    ``use_idf``, ``smooth_idf``, ``sublinear_tf`` and ``norm``: the term frequency (its
    ``1 + log`` with ``sublinear_tf``), times the idf if ``use_idf`` (``ln((1 + N) /
    (1 + df)) + 1`` when smoothed, ``ln(N / df) + 1`` otherwise), each row then scaled to
    unit length (``norm="l2"``, or ``"l1"``) or left as it is (``norm=None``). The rows are
    clustered by scikit-learn's K-means from ``init`` seedings, as in
    :class:`~shortclust.models.kmeans.kmeans.KMeans`; with the defaults the two give the same
    labels for the same seed.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters K.
    n_init : int, default=20
        Initialisations; the run of lowest inertia is kept.
    max_iter : int, default=300
        Maximum Lloyd iterations per initialisation.
    tol : float, default=1e-7
        Convergence tolerance (>= 0), passed to scikit-learn (see ``KMeans``' Notes).
    use_idf : bool, default=True
        Multiply the term frequencies by the idf; False keeps the term frequencies.
    smooth_idf : bool, default=True
        Add one to the document frequencies (and to N), as if a document held every word.
    sublinear_tf : bool, default=False
        Replace a term frequency tf by ``1 + ln(tf)``.
    norm : {"l2", "l1"} or None, default="l2"
        Scale each row to unit length in this norm; None leaves the rows as weighted, so
        Euclidean K-means sees the documents' lengths.
    init : {"k-means++", "random"}, default="k-means++"
        Seeding of each initialisation: k-means++, or ``n_clusters`` documents drawn at
        random.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the seedings. Same seed, same labels.

    Attributes
    ----------
    labels_, n_clusters_, n_iter_, cluster_centers_, inertia_, n_features_in_, vocabulary_
        As in :class:`~shortclust.models.kmeans.kmeans.KMeans`; the centroids are in the weighted
        space.
    idf_ : ndarray of shape (n_features_in_,) or None
        Inverse document frequencies learnt in ``fit`` (None when ``use_idf`` is False).

    Notes
    -----
    ``predict`` takes word counts and weights them as in ``fit`` (with the fitted idf); it
    refuses document vectors, as ``fit`` does (the weighting is the model's).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> model = KMeansVSM(n_clusters=2, n_init=3, use_idf=False, norm=None, random_state=0)
    >>> labels = model.fit_predict(X)
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        **KMeans._parameter_constraints,
        "use_idf": Boolean(),
        "smooth_idf": Boolean(),
        "sublinear_tf": Boolean(),
        "norm": NoneOr(Options("l2", "l1")),
        "init": Options("k-means++", "random"),
    }
    capabilities = Capabilities(input="counts", predict=True, predict_proba=False,
                                top_words=True)
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["kmeans_vsm"]

    def __init__(self, *, n_clusters=8, n_init=20, max_iter=300, tol=1e-7, use_idf=True,
                 smooth_idf=True, sublinear_tf=False, norm="l2", init="k-means++",
                 random_state=None):
        super().__init__(n_clusters=n_clusters, n_init=n_init, max_iter=max_iter, tol=tol,
                         random_state=random_state)
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf
        self.norm = norm
        self.init = init

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), or Corpus
            Word counts (non-negative integers); empty rows are allowed (they stay zero).
        y : ignored
        callback : callable, optional
            Called as ``callback(i, n_init, n_clusters)`` after each initialisation.

        Returns
        -------
        self : KMeansVSM
        """
        self._validate_params()
        counts, vocabulary = as_counts(X)
        self._check_corpus(counts)
        from sklearn.feature_extraction.text import TfidfTransformer  # where it is used

        transformer = TfidfTransformer(norm=self.norm, use_idf=self.use_idf,
                                       smooth_idf=self.smooth_idf,
                                       sublinear_tf=self.sublinear_tf)
        rows = transformer.fit_transform(counts).tocsr()
        best = self._best_of_runs(rows, callback, init=self.init)
        self._store_centroids(best, transformer, rows.shape[1])
        self.vocabulary_ = vocabulary
        return self


__all__ = ["KMeansVSM"]
