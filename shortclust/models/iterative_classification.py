"""Iterative classification (Rakib et al.): refine a clustering by re-classifying outliers."""

import hashlib
import json
import numbers
from collections import OrderedDict
from importlib import import_module

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from shortclust.errors import ParameterError, ShortclustError
from shortclust.models import _iterative_classification_kernels as kernels
from shortclust.models import _logistic
from shortclust.models._tfidf_common import (
    _holds_counts, n_nonempty, require_enough_documents, tfidf,
)
from shortclust.models._validation import as_counts
from shortclust.models.base import (Boolean, Capabilities, ClusteringModel, Integer, Interval,
                                    ModelName, NoneOr, Options, ParamDict, Real, Seed,
                                    check_declarations)

# name -> (module, class, defaults). Logistic regression: the authors' model (L2, C = 1,
# multinomial, at most 300 iterations; see the class Notes) started from the last
# iteration's weights; its solver depends on the features (_default_solver) unless given.
_CLASSIFIERS = {
    "logistic_regression": ("sklearn.linear_model", "LogisticRegression",
                            {"C": 1.0, "max_iter": 300, "warm_start": True}),
    "linear_svc": ("sklearn.svm", "LinearSVC", {}),
    "multinomial_nb": ("sklearn.naive_bayes", "MultinomialNB", {}),
    "knn": ("sklearn.neighbors", "KNeighborsClassifier", {"metric": "cosine"}),
}
_OUTLIERS = ("isolation_forest", "one_class_svm", "none")
# The constraints that name the inner estimators, also checked where those are built.
_CLASSIFIER = Options(*_CLASSIFIERS)
_OUTLIER = Options(*_OUTLIERS)
_INITIAL = ModelName(exclude=("iterative_classification",), allow_none=True)
_PARAMS = NoneOr(ParamDict())
_CONTAMINATION = Interval(0.0, 0.5, closed="right")
# Isolation Forest as the authors ran it (see the class Notes); max_samples 256 is
# scikit-learn's "auto" (min(256, cluster size)).
_IFOREST_DEFAULTS = {"n_estimators": 100, "max_samples": 256, "contamination": 0.1,
                     "bootstrap": True}
# nu bounds the fraction of outliers, as contamination does for the forest.
_OCSVM_DEFAULTS = {"nu": 0.1}
# A cluster smaller than this is kept whole: one text has nothing to be an outlier from.
_MIN_OUTLIER_CLUSTER = 2


class IterativeClassification(ClusteringModel):
    """Iterative classification: enhance a clustering of short texts (Rakib et al.).

    Algorithm 1 of the paper. Starting from initial cluster labels L, each iteration

    1. draws P uniformly from ``[P1, P2]`` (step 4);
    2. removes outliers from each cluster with an outlier detector, by default an
       Isolation Forest fitted on the cluster's vectors (step 5, section 3.1);
    3. trims every cluster holding more than ``floor(n / K * P)`` of the remaining texts
       to exactly that many, dropping texts uniformly at random (step 6);
    4. trains a classifier, by default multinomial logistic regression, on the texts
       kept, labelled by their clusters, and gives every removed text (the test set) the
       cluster the classifier predicts (steps 7-8, section 3.2);
    5. stops when the mean absolute change of the K cluster sizes over the iteration is
       at most ``tol * n / K`` (step 9, section 3.3), else after ``max_iter`` iterations.

    The initial labels are either given to :meth:`fit` (``init_labels=...``) or made by
    fitting the registered clusterer ``initial`` on the same X first.

    Parameters
    ----------
    n_clusters : int or None, default=None
        K, the number of clusters (the paper uses the true number of classes). Passed to
        the ``initial`` clusterer. ``None``: the initial clusterer's own setting, or the
        number of distinct ``init_labels``. K is the K of ``n / K`` in steps 3 and 5;
        initial labels with fewer than K distinct values leave the other clusters empty.
    initial : str or None, default="kmeans"
        Registered model (``shortclust models``) fitted on X to make the initial labels
        when :meth:`fit` gets no ``init_labels``; it gets ``n_clusters`` and this
        model's ``random_state`` unless ``initial_params`` sets them.
    initial_params : dict or None, default=None
        Constructor parameters of the initial clusterer.
    P1, P2 : float, default=0.5, 0.95
        Bounds of P, ``0 < P1 <= P2 <= 1`` (section 6.2.1 and Appendix A.2; ``P1 = P2``
        is the fixed P of Appendix A.1).
    max_iter : int, default=50
        Most iterations (Algorithm 1's maxIteration).
    tol : float or None, default=0.05
        Stop once the mean absolute change of the cluster sizes in an iteration is at
        most ``tol * n / K`` (section 3.3's 5%). ``None``: always run ``max_iter``.
    classifier : {"logistic_regression", "linear_svc", "multinomial_nb", "knn"}, \
default="logistic_regression"
        Classifier of step 8 (scikit-learn's ``LogisticRegression``, ``LinearSVC``,
        ``MultinomialNB``, ``KNeighborsClassifier``). The paper's choice is multinomial
        logistic regression; it names SVM and k-NN as the alternatives it tried.
    classifier_params : dict or None, default=None
        Constructor parameters, over the defaults: for logistic regression
        ``C=1.0, max_iter=300, warm_start=True``, and ``solver="compiled_sag"`` (our
        compiled SAG, see Notes) on sparse rows of length at most 1 (TF-IDF),
        ``"lbfgs"`` on any other features; any scikit-learn solver by name (``"sag"``
        for scikit-learn's SAG); for k-NN ``metric="cosine"``; scikit-learn's own
        otherwise.
    outlier : {"isolation_forest", "one_class_svm", "none"}, default="isolation_forest"
        Outlier detector of step 5, run on each cluster separately; ``"none"`` skips
        step 5 (only the random trimming makes the test set). The paper uses Isolation
        Forest and names the one-class SVM as the alternative it tried.
    outlier_params : dict or None, default=None
        Over the defaults: Isolation Forest ``n_estimators=100, max_samples=256,
        contamination=0.1, bootstrap=True`` (``contamination``: the fraction of each
        cluster called outliers, or ``"auto"`` for scikit-learn's fixed score threshold);
        one-class SVM ``nu=0.1`` and any other ``sklearn.svm.OneClassSVM`` parameter.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of P, the forests, the trimming, the classifier (where it draws numbers)
        and, unless ``initial_params`` sets one, the initial clusterer. Same seed, same
        labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Enhanced cluster of each document, numbered ``0..n_clusters_-1`` like
        ``initial_labels_`` (a cluster never empties, see Notes).
    n_clusters_ : int
        Number of non-empty clusters.
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the stopping criterion of section 3.3 ended the loop (else ``max_iter``).
    initial_labels_ : ndarray of shape (n_documents,)
        The initial labels, renumbered ``0..k-1`` in sorted order of their values.
    initial_model_ : estimator or None
        The fitted initial clusterer; ``None`` when ``init_labels`` were given.
    cluster_sizes_ : ndarray of shape (n_clusters_,)
        Documents per cluster.
    stop_threshold_ : float or None
        ``tol * n / K``.
    p_history_ : list of float
        P of each iteration.
    n_outliers_history_, n_test_history_, n_changed_history_ : list of int
        Per iteration: texts the detector removed, texts in the test set (outliers and
        trimmed), texts whose cluster changed.
    size_change_history_ : list of float
        Per iteration: mean absolute change of the K cluster sizes (section 3.3).
    classifier_ : estimator or None
        The classifier of the last iteration (``None`` if it had no test set or one
        class, see Notes).
    n_features_in_ : int
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    **Features (sections 3.1, 3.2, 6.2.1).** The paper represents the texts by TF-IDF
    vectors "for a given text collection" for both the outlier detector and the
    classifier, while the initial clusterings use averaged GloVe vectors (6.2.2). So
    :meth:`fit` computes TF-IDF (smoothed idf, unit rows: the weighting of
    :class:`~shortclust.models.kmeans.KMeans` and of the authors' ``TfidfVectorizer``)
    from a Corpus or a count matrix (integer dtype, as the ``counts`` representation
    gives), once for the whole collection, and uses a float matrix (the ``tfidf``,
    ``word_vectors`` or ``sentence_embeddings`` representations) as it is. To start
    from a clustering of another representation, as the paper's HAC_SD_IC does (HAC_SD
    on averaged word vectors, IC on TF-IDF), give the vectors as X and the word counts
    as ``counts``: ``IterativeClassification(n_clusters=K, initial="hac_sd").fit(
    vectors, counts=counts)``, or fit that clusterer yourself and pass its labels:
    ``.fit(counts, init_labels=labels)``. The ``initial`` clusterer always sees the X
    given to :meth:`fit`. The experiment runner always passes the corpus's counts, so
    from a config IC works on TF-IDF, as in the paper, whatever the ``representation``
    (which is then the initial clusterer's).

    **Initial clusterer.** Fitting the same ``initial`` clusterer with the same
    parameters on the same X gives the same labels when it draws no random numbers
    (``hac``, ``hac_ward``, ``hac_knn``, ``hac_sd``) or when its ``random_state`` is the
    same integer. Such fits are therefore done once per process and reused (the last 64,
    keyed by the clusterer, its parameters and a checksum of X): twenty seeds of
    HAC_SD_IC fit HAC_SD once, as the paper ran HAC once and IC twenty times (section
    6.3.1), and a grid of IC settings with seed s starts from one k-means fit with seed
    s. ``initial_model_`` may then be shared with other fits (its ``random_state`` is
    that of the first); ``fit`` time excludes the reused fit.

    **Settings the paper leaves open, taken from the authors' code**
    (github.com/rashadulrakib/short-text-clustering-enhancement, ``main.py``):
    ``IsolationForest(n_estimators=100, max_samples="auto", contamination=0.1,
    max_features=1.0, bootstrap=True)`` per cluster and ``LogisticRegression(
    solver="lbfgs", max_iter=300)`` (C = 1, L2, multinomial). The size cap is
    ``floor(n / K * P)``, as ``int(...)`` in that code. Where the code departs from the
    paper the paper is followed: P uniform on [0.5, 0.95] (the code draws whole
    percentages in [70, 85], at least 5 apart from the last), the stopping criterion of
    section 3.3 (the code always runs 50 iterations), random trimming (the code keeps
    each cluster's first texts in file order), one TF-IDF of the whole collection (the
    code refits the vectoriser on each cluster and on each training set).

    **The Isolation Forest** is scikit-learn's algorithm (random non-constant feature,
    uniform threshold, depth limit ``ceil(log2 psi)``, scores ``-2^(-E[h]/c(psi))``,
    the lowest ``contamination`` fraction of each cluster are outliers) compiled with
    numba (``_iterative_classification_kernels``): scikit-learn's Python overhead per
    tree made one iteration's forests cost 2.1 s of CPU on StackOverflow, 8.6 s on
    Tweet (89 forests) and 16.6 s on GoogleNews-TS (152); here 0.29, 0.08 and 0.53 s.
    Its random stream differs; its scores rank texts as scikit-learn's do (tested).

    **Solver** (``benchmarks/bench_ic.py``). The model is the authors' (multinomial,
    L2, C = 1); only the optimiser differs. On sparse TF-IDF it is SAG: lbfgs works on
    all K x V weights at once and its update dominates when they are many (one fit on
    75% of Tweet, 89 x 5,099 weights: lbfgs 2.6 s cold, 1.6 s warm; SAG 0.14 s; on
    GoogleNews-TS, 152 classes: 27 s and 12 s against 3.0 s and 2.6 s), and both give
    the same predictions as a fit to tolerance 1e-8 (SAG on all test texts checked,
    lbfgs on 99.8-100%). SAG converges fast only on features of similar scale, as unit
    TF-IDF rows are; other features (dense embeddings, of few dimensions; raw counts
    given as floats) get lbfgs. The SAG is our compiled one
    (:class:`~shortclust.models._logistic.MultinomialLogisticSAG`: the same objective,
    step size and stopping rule as scikit-learn's ``solver="sag"``, with the K weights
    of a feature contiguous): one fit on 75% of GoogleNews-T, 152 classes, 19 epochs
    each, 0.64 s against scikit-learn's 1.04 s, the same objective to 1e-6 and the same
    test predictions as a fit to tolerance 1e-8. Each iteration starts from the last one's weights
    (``warm_start``; dropped if the set of classes changes): consecutive training sets
    overlap and few labels move.

    **Stopping.** Section 3.3 compares cluster *sizes*, which move little even while
    many labels do: after k-means (TF-IDF, seed 0) it ends IC after 3 iterations on
    Tweet and after 1 on SearchSnippets-test, where 50 iterations (``tol=None``, as the
    authors' code runs) raise NMI further (Tweet 0.78 -> 0.81 at the criterion, 0.84
    after 50; SearchSnippets-test 0.21 -> 0.21 and 0.33).

    **Degenerate cases.** Every non-empty cluster keeps at least one training text (the
    cap is at least 1, and a detector flagging a whole cluster is overruled), so no
    cluster empties and the classifier always knows every cluster; clusters empty in
    the initial labels stay empty. A training set of one class (K = 1) assigns every
    test text to it; an empty test set changes nothing. Both end the loop by the
    criterion, as the sizes do not change. Documents without words are zero vectors.

    References
    ----------
    M. R. H. Rakib, N. Zeh, M. Jankowska and E. Milios. Enhancement of short text
    clustering by iterative classification. NLDB 2020. F. T. Liu, K. M. Ting and
    Z.-H. Zhou. Isolation forest. ICDM 2008 (the paper's [24]).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> model = IterativeClassification(n_clusters=2, random_state=0)
    >>> model.fit(X, init_labels=[0, 1, 1, 1]).labels_.tolist()
    [0, 0, 1, 1]
    """

    _parameter_constraints = {
        "n_clusters": NoneOr(Integer(1)),
        "max_iter": Integer(1),
        "P1": Real(0.0, inclusive=False),
        "P2": Real(0.0, inclusive=False),
        "tol": NoneOr(Real(0.0, inclusive=True)),
        "initial": _INITIAL,
        "initial_params": _PARAMS,
        "classifier": _CLASSIFIER,
        "classifier_params": _PARAMS,
        "outlier": _OUTLIER,
        "outlier_params": _PARAMS,
        "random_state": Seed(),
    }
    # X may be counts or vectors; fit also takes the corpus's counts (see Notes).
    capabilities = Capabilities(input="both", fit_counts=True, predict=False,
                                predict_proba=False, top_words=False)

    def __init__(self, *, n_clusters=None, initial="kmeans", initial_params=None, P1=0.5,
                 P2=0.95, max_iter=50, tol=0.05, classifier="logistic_regression",
                 classifier_params=None, outlier="isolation_forest", outlier_params=None,
                 random_state=None):
        self.n_clusters = n_clusters
        self.initial = initial
        self.initial_params = initial_params
        self.P1 = P1
        self.P2 = P2
        self.max_iter = max_iter
        self.tol = tol
        self.classifier = classifier
        self.classifier_params = classifier_params
        self.outlier = outlier
        self.outlier_params = outlier_params
        self.random_state = random_state

    def _validate_joint_params(self):
        """P1 <= P2 <= 1, and each ``*_params`` names parameters of its estimator."""
        if not self.P1 <= self.P2 <= 1:
            raise ParameterError(
                f"P1 and P2 must satisfy 0 < P1 <= P2 <= 1, got P1={self.P1!r}, P2={self.P2!r}"
            )
        _check_params(self.initial_params, "initial_params", _initial_class(self.initial))
        _classifier_spec(self.classifier, self.classifier_params)
        _outlier_settings(self.outlier, self.outlier_params)

    def fit(self, X, y=None, callback=None, init_labels=None, counts=None):
        """Enhance the initial clustering of X by iterative classification (Algorithm 1).

        Parameters
        ----------
        X : Corpus, scipy.sparse matrix or array of shape (n_documents, n_features)
            What the ``initial`` clusterer is fitted on. Without ``counts``, also the
            vectors of the outlier detector and the classifier: TF-IDF of a Corpus or of a
            count matrix, any other matrix as given (see Notes).
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each iteration.
        init_labels : array-like of shape (n_documents,), optional
            Initial cluster of each document (any hashable values); when given, no
            initial clusterer is fitted.
        counts : Corpus or integer matrix of shape (n_documents, n_words), optional
            Word counts of the same documents, row for row: the outlier detector and the
            classifier then work on their TF-IDF while the ``initial`` clusterer sees X
            (the paper's HAC_SD_IC: HAC_SD on averaged word vectors, IC on TF-IDF). The
            experiment runner passes the corpus's counts here.

        Returns
        -------
        self : IterativeClassification
        """
        self._validate_params()
        features, self.vocabulary_ = _features(X if counts is None else _checked_counts(counts, X))
        n_docs = features.shape[0]
        _check_classifier_input(self.classifier, features)
        if self.n_clusters is not None:
            require_enough_documents(features, self.n_clusters)
        labels, n_slots = self._initial_labels(X, n_docs, init_labels)
        rng = np.random.default_rng(self.random_state)
        reassigner = _Reassigner(self.classifier, self.classifier_params, rng,
                                 solver=_default_solver(features))
        loop = _Loop(features, n_slots, self._make_detector(features, rng), reassigner)
        self._reset_history(n_docs, n_slots)
        for iteration in range(1, self.max_iter + 1):
            labels = self._iterate(loop, labels, rng)
            self.n_iter_ = iteration
            if callback is not None:
                callback(iteration, self.max_iter, n_nonempty(labels))
            if self.converged_:
                break
        self._store_fitted(labels, loop, features)
        return self

    def fit_predict(self, X, y=None, callback=None, init_labels=None, counts=None):
        """Fit and return the enhanced cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback, init_labels=init_labels, counts=counts).labels_

    # --- one iteration -----------------------------------------------------------------------

    def _iterate(self, loop, labels, rng):
        """Steps 4-9 of Algorithm 1 on ``labels``; returns the new labels."""
        p = float(rng.uniform(self.P1, self.P2))
        outliers = loop.outliers(labels)
        cap = max(1, int(np.floor(labels.shape[0] / loop.n_slots * p)))
        train = _trimmed(labels, ~outliers, cap, rng)
        new = loop.reassign(labels, train)
        change = mean_size_change(labels, new, loop.n_slots)
        self.p_history_.append(p)
        self.n_outliers_history_.append(int(outliers.sum()))
        self.n_test_history_.append(int((~train).sum()))
        self.n_changed_history_.append(int((new != labels).sum()))
        self.size_change_history_.append(change)
        self.converged_ = self.stop_threshold_ is not None and change <= self.stop_threshold_
        return new

    # --- set-up --------------------------------------------------------------------------------

    def _initial_labels(self, X, n_docs, init_labels):
        """Initial labels as codes ``0..k-1`` and K, the clusters of ``n / K``."""
        if init_labels is not None:
            raw = _checked_init_labels(init_labels, n_docs)
            self.initial_model_ = None
        else:
            self.initial_model_ = self._fit_initial(X)
            raw = np.asarray(self.initial_model_.labels_)
        _, codes = np.unique(raw, return_inverse=True)
        codes = codes.reshape(-1).astype(np.int64)
        n_found = int(codes.max()) + 1
        n_slots = self.n_clusters if self.n_clusters is not None else n_found
        if n_found > n_slots:
            raise ParameterError(
                f"the initial labels form {n_found} clusters, more than n_clusters={n_slots}: "
                "raise n_clusters or leave it unset"
            )
        self.initial_labels_ = codes.copy()
        return codes, n_slots

    def _fit_initial(self, X):
        """The ``initial`` clusterer, constructed and fitted on X."""
        if self.initial is None:
            raise ParameterError(
                "no initial labels: pass init_labels to fit, or name an initial clusterer "
                "(initial='kmeans')"
            )
        model_class = _initial_class(self.initial)
        params = dict(self.initial_params or {})
        accepted = _param_names(model_class)
        if "n_clusters" in accepted and self.n_clusters is not None:
            if params.setdefault("n_clusters", self.n_clusters) != self.n_clusters:
                raise ParameterError(
                    f"initial_params n_clusters={params['n_clusters']!r} differs from "
                    f"n_clusters={self.n_clusters}: set one of them"
                )
        if "random_state" in accepted:
            params.setdefault("random_state", self.random_state)
        key = _memo_key(model_class, params, X)
        if key is not None and key in _INITIAL_MEMO:
            _INITIAL_MEMO.move_to_end(key)
            return _INITIAL_MEMO[key]
        try:
            model = model_class(**params).fit(X)
        except ShortclustError as error:
            raise ParameterError(f"initial clusterer {self.initial!r}: {error}") from None
        if key is not None:
            _INITIAL_MEMO[key] = model
            while len(_INITIAL_MEMO) > _MEMO_SIZE:
                _INITIAL_MEMO.popitem(last=False)
        return model

    def _make_detector(self, features, rng):
        """Per-cluster outlier detector: ``detect(rows) -> bool mask`` or None."""
        settings = _outlier_settings(self.outlier, self.outlier_params)
        if self.outlier == "none":
            return None
        if self.outlier == "isolation_forest":
            return _IsolationForest(features, rng, **settings)
        return _OneClassSVM(features, settings)

    def _reset_history(self, n_docs, n_slots):
        self.stop_threshold_ = None if self.tol is None else float(self.tol) * n_docs / n_slots
        self.p_history_, self.n_outliers_history_, self.n_test_history_ = [], [], []
        self.n_changed_history_, self.size_change_history_ = [], []
        self.converged_ = False
        self.n_iter_ = 0

    def _store_fitted(self, labels, loop, features):
        # Clusters never empty (see Notes), but renumber anyway so labels_ is compact.
        _, self.labels_ = np.unique(labels, return_inverse=True)
        self.labels_ = self.labels_.reshape(-1).astype(np.int64)
        self.cluster_sizes_ = np.bincount(self.labels_)
        self.n_clusters_ = int(self.cluster_sizes_.size)
        self.classifier_ = loop.reassigner.last
        self.n_features_in_ = features.shape[1]


class _Loop:
    """What the iterations share: the vectors, K, the detector and the classifier."""

    def __init__(self, features, n_slots, detector, reassigner):
        self.features = features
        self.n_slots = n_slots
        self.detector = detector
        self.reassigner = reassigner

    def outliers(self, labels):
        """Step 5: the outliers of each cluster, found within that cluster only."""
        mask = np.zeros(labels.shape[0], dtype=bool)
        if self.detector is None:
            return mask
        for members in _groups(np.arange(labels.shape[0]), labels):
            if members.size < _MIN_OUTLIER_CLUSTER:
                continue
            flagged = self.detector(members)
            # A cluster wholly "outlying" would lose its class: keep it whole instead.
            if not flagged.all():
                mask[members[flagged]] = True
        return mask

    def reassign(self, labels, train):
        """Step 8: classify the test texts with a classifier trained on the others."""
        new = labels.copy()
        test = np.flatnonzero(~train)
        if test.size:
            train_rows = np.flatnonzero(train)
            new[test] = self.reassigner.predict(self.features[train_rows], labels[train_rows],
                                                self.features[test])
        return new


class _Reassigner:
    """The classifier of step 8, kept across iterations for warm starts."""

    def __init__(self, name, params, rng, solver="lbfgs"):
        model_class, settings = _classifier_spec(name, params)
        if name == "logistic_regression":
            model_class, settings = _logistic_spec(model_class, settings, solver)
        if "random_state" in _param_names(model_class):
            settings.setdefault("random_state", int(rng.integers(0, 2**31 - 1)))
        self.prototype = model_class(**settings)
        self.last = None

    def predict(self, X_train, y_train, X_test):
        classes = np.unique(y_train)
        if classes.size == 1:
            # Nothing to learn: every text goes to the only cluster there is.
            self.last = None
            return np.full(X_test.shape[0], classes[0], dtype=np.int64)
        model = self.last
        if model is None or not np.array_equal(getattr(model, "classes_", []), classes):
            model = clone(self.prototype)  # a warm start needs the same classes
        if getattr(model, "n_neighbors", 0) > y_train.shape[0]:
            model.set_params(n_neighbors=y_train.shape[0])  # k-NN on a tiny training set
        model.fit(X_train, y_train)
        self.last = model
        return np.asarray(model.predict(X_test), dtype=np.int64)


class _IsolationForest:
    """Isolation Forest fitted on, and scoring, the rows of one cluster (compiled)."""

    def __init__(self, features, rng, n_estimators, max_samples, contamination, bootstrap):
        csr = sp.csr_matrix(features, dtype=np.float64)
        csr.eliminate_zeros()  # the kernel reads a missing entry as the zero
        csr.sort_indices()
        self.csr, self.rng = csr, rng
        self.n_estimators, self.max_samples = n_estimators, max_samples
        self.contamination, self.bootstrap = contamination, bootstrap

    def __call__(self, members):
        scores = np.empty(members.size)
        kernels.isolation_scores(
            self.csr.indptr, self.csr.indices, self.csr.data, members.astype(np.int64),
            self.n_estimators, min(self.max_samples, members.size), self.bootstrap,
            int(self.rng.integers(0, 2**31 - 1)), self.csr.shape[1], scores,
        )
        if self.contamination == "auto":
            return scores < -0.5  # scikit-learn's offset for "auto"
        return scores < np.percentile(scores, 100.0 * self.contamination)


class _OneClassSVM:
    """scikit-learn's one-class SVM fitted on, and predicting, one cluster's rows."""

    def __init__(self, features, settings):
        self.features, self.settings = features, settings

    def __call__(self, members):
        from sklearn.svm import OneClassSVM

        rows = self.features[members]
        return OneClassSVM(**self.settings).fit(rows).predict(rows) == -1


# --- helpers ------------------------------------------------------------------------------------

def mean_size_change(before, after, n_slots):
    """Section 3.3: ``1/K sum_i | |C_i'| - |C_i| |`` over the K clusters."""
    old = np.bincount(before, minlength=n_slots)
    new = np.bincount(after, minlength=n_slots)
    return float(np.abs(new - old).sum() / n_slots)


def _groups(rows, labels):
    """``rows`` split by their ``labels``: one array per label, in increasing label order."""
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return [group for group in np.split(rows[order], cuts) if group.size]


def _trimmed(labels, keep, cap, rng):
    """Step 6: ``keep`` with each cluster's kept texts cut to ``cap`` at random."""
    keep = keep.copy()
    kept = np.flatnonzero(keep)
    for members in _groups(kept, labels[kept]):
        if members.size > cap:
            keep[members[rng.permutation(members.size)[cap:]]] = False
    return keep


def _checked_counts(counts, X):
    """``counts`` for :func:`_features`: word counts with one row per row of X."""
    if not _holds_counts(counts):
        raise ParameterError(
            "counts must be word counts (a Corpus or an integer matrix), got "
            f"{type(counts).__name__} of dtype {getattr(counts, 'dtype', None)}"
        )
    n_counts, n_docs = _n_rows(counts), _n_rows(X)
    if n_docs is not None and n_counts != n_docs:
        raise ParameterError(
            f"counts has {n_counts} rows but X has {n_docs}: they must describe the same "
            "documents, row for row"
        )
    return counts


def _n_rows(X):
    if hasattr(X, "counts"):
        return X.counts.shape[0]
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except (TypeError, ValueError):
            return None
    return shape[0] if len(shape) else None


# Initial clusterings already computed in this process: (clusterer, parameters, checksum
# of X) -> fitted model, most recently used last. See the class Notes ("Initial clusterer").
_INITIAL_MEMO = OrderedDict()
_MEMO_SIZE = 64


def _memo_key(model_class, params, X):
    """The memo key of fitting ``model_class(**params)`` on X, or None if not reusable.

    Reusable: a deterministic clusterer (``capabilities.seeded`` False), or one whose
    ``random_state`` is an integer seed; X a Corpus, a sparse matrix or a numeric array
    (hashed with its shape and dtype).
    """
    params = dict(params)
    seed = params.get("random_state")
    if not model_class.capabilities.seeded:
        params.pop("random_state", None)
    elif seed is not None and not isinstance(seed, numbers.Integral):
        return None
    fingerprint = _fingerprint(X)
    if fingerprint is None:
        return None
    try:
        settings = json.dumps(params, sort_keys=True)
    except TypeError:
        return None
    return (f"{model_class.__module__}.{model_class.__qualname__}", settings, fingerprint)


def _fingerprint(X):
    """A checksum of the matrix X (of a Corpus: of its counts and vocabulary), or None."""
    digest = hashlib.blake2b(digest_size=20)
    if hasattr(X, "counts"):
        digest.update("\x00".join(map(str, X.vocabulary or ())).encode())
        X = X.counts
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        parts = [X.indptr, X.indices, X.data]
    elif isinstance(X, np.ndarray) and X.dtype != object:
        parts = [X]
    else:
        return None
    digest.update(repr((type(X).__name__, X.shape, str(X.dtype))).encode())
    for part in parts:
        digest.update(np.ascontiguousarray(part).view(np.uint8).reshape(-1))
    return digest.hexdigest()


def _features(X):
    """The vectors of the detector and the classifier, and the Corpus's vocabulary.

    TF-IDF of a Corpus or of a matrix of integer dtype (counts); any other matrix as
    float64 (CSR if sparse).
    """
    if _holds_counts(X):
        counts, vocabulary = as_counts(X)
        if counts.shape[1] == 0:
            raise ParameterError("X has no feature columns (an empty vocabulary)")
        return tfidf(counts)[1], vocabulary
    # A copy: the forest sorts the CSR indices in place, and the caller's matrix stays as is.
    matrix = sp.csr_matrix(X, dtype=np.float64, copy=True) if sp.issparse(X) else _dense(X)
    if matrix.ndim != 2 or 0 in matrix.shape:
        raise ParameterError("X must be a non-empty 2-D matrix (documents x features)")
    values = matrix.data if sp.issparse(matrix) else matrix
    if not np.all(np.isfinite(values)):
        raise ParameterError("X holds NaN or infinite values")
    return matrix, None


def _dense(X):
    try:
        return np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ParameterError(f"X must be a numeric matrix: {error}") from None


def _default_solver(features):
    """Compiled SAG for sparse rows of length at most 1 (TF-IDF), lbfgs otherwise (Notes).

    SAG's step is set by the longest row and it converges fast only on features of
    similar scale; raw counts or unscaled vectors can exhaust ``max_iter``.
    """
    if not sp.issparse(features) or features.shape[0] == 0:
        return "lbfgs"
    longest = np.sqrt(features.multiply(features).sum(axis=1).max())
    return _logistic.SOLVER_NAME if longest <= 1.0 + 1e-9 else "lbfgs"


def _logistic_spec(model_class, settings, default_solver):
    """(class, parameters) of the logistic regression: scikit-learn's or compiled SAG.

    ``solver="compiled_sag"`` (the default on TF-IDF) is
    :class:`~shortclust.models._logistic.MultinomialLogisticSAG`, which implements C, tol,
    max_iter, warm_start and fit_intercept. A defaulted solver with any other
    LogisticRegression parameter set falls back to scikit-learn's ``"sag"``; naming
    ``compiled_sag`` with such a parameter is an error.
    """
    chosen = settings.get("solver", default_solver)
    if chosen != _logistic.SOLVER_NAME:
        return model_class, {**settings, "solver": chosen}
    unsupported = sorted(set(settings) - _logistic.SUPPORTED_PARAMS)
    if unsupported and "solver" in settings:
        raise ParameterError(
            f"classifier_params {', '.join(unsupported)} not supported by solver "
            f"'{_logistic.SOLVER_NAME}': drop them or choose solver 'sag' or 'lbfgs'"
        )
    if unsupported:
        return model_class, {**settings, "solver": "sag"}
    settings = {key: value for key, value in settings.items() if key != "solver"}
    return _logistic.MultinomialLogisticSAG, settings


def _check_classifier_input(name, features):
    """Multinomial Naive Bayes models counts-like vectors: refuse negative entries."""
    values = features.data if sp.issparse(features) else features
    if name == "multinomial_nb" and values.size and values.min() < 0:
        raise ParameterError(
            "classifier 'multinomial_nb' needs non-negative features (counts or TF-IDF); "
            "X has negative values: choose logistic_regression or linear_svc"
        )


def _checked_init_labels(init_labels, n_docs):
    labels = np.asarray(init_labels)
    if labels.ndim != 1 or labels.shape[0] != n_docs:
        raise ParameterError(
            f"init_labels must hold one label per document ({n_docs}), "
            f"got an array of shape {labels.shape}"
        )
    try:
        np.unique(labels)
    except TypeError:
        raise ParameterError("init_labels must be mutually comparable (e.g. all ints)") from None
    return labels


def _initial_class(name):
    """The registered estimator class named by ``initial`` (None stays None)."""
    from shortclust.models import get_model_class

    _INITIAL.check(name, "initial")
    if name is None:
        return None
    model_class = get_model_class(name)
    check_declarations(model_class)  # its capabilities decide whether its fit is reusable
    return model_class


def _param_names(model_class):
    """Constructor parameter names of a scikit-learn-style class (empty if unknown)."""
    names = getattr(model_class, "_get_param_names", None)
    return set(names()) if names is not None else set()


def _check_params(params, what, model_class):
    """``params`` must be a dict of constructor parameters of ``model_class``."""
    _PARAMS.check(params, what)
    if params is None:
        return {}
    if model_class is not None and _param_names(model_class):
        unknown = sorted(set(params) - _param_names(model_class))
        if unknown:
            raise ParameterError(
                f"{what} has unknown parameter(s) {', '.join(map(str, unknown))} for "
                f"{model_class.__name__}"
            )
    return dict(params)


def _classifier_spec(name, params):
    """(class, constructor parameters) of the named classifier."""
    _CLASSIFIER.check(name, "classifier")
    module, cls, defaults = _CLASSIFIERS[name]
    model_class = getattr(import_module(module), cls)
    return model_class, {**defaults, **_check_params(params, "classifier_params", model_class)}


def _outlier_settings(name, params):
    """Validated settings of the named outlier detector."""
    _OUTLIER.check(name, "outlier")
    if name == "none":
        if params:
            raise ParameterError("outlier_params must be empty with outlier='none'")
        return {}
    if name == "one_class_svm":
        from sklearn.svm import OneClassSVM

        return {**_OCSVM_DEFAULTS, **_check_params(params, "outlier_params", OneClassSVM)}
    settings = {**_IFOREST_DEFAULTS, **_check_params(params, "outlier_params", None)}
    unknown = sorted(set(settings) - set(_IFOREST_DEFAULTS))
    if unknown:
        raise ParameterError(
            f"outlier_params has unknown parameter(s) {', '.join(map(str, unknown))} for "
            f"isolation_forest: use {', '.join(_IFOREST_DEFAULTS)}"
        )
    _check_forest_settings(settings)
    return settings


def _check_forest_settings(settings):
    Integer(1).check(settings["n_estimators"], "outlier_params n_estimators")
    if settings["max_samples"] == "auto":
        settings["max_samples"] = 256
    Integer(2).check(settings["max_samples"], "outlier_params max_samples")
    contamination = settings["contamination"]
    if contamination != "auto" and not _CONTAMINATION.accepts(contamination):
        raise ParameterError(
            "outlier_params contamination must be 'auto' or a number in (0, 0.5], "
            f"got {contamination!r}"
        )
    Boolean().check(settings["bootstrap"], "outlier_params bootstrap")
