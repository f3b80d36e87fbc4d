"""Iterative classification (Rakib et al.): refine a clustering by re-classifying outliers.

The estimator and its loop are here; the steps it composes (outlier detectors, the
reassigning classifier, trimming, the initial-clustering memo, the checks of the inner
estimators' settings) are in the private sibling ``_iterative_classification_steps``, and
the options that make it run as the authors' code does in ``_iterative_classification_options``.
"""

from dataclasses import asdict

import numpy as np

from shortclust.errors import ParameterError, ShortclustError
from shortclust.models.ic._steps import (
    _CLASSIFIER, _INITIAL, _INITIAL_MEMO, _IsolationForest, _Loop, _MEMO_SIZE,
    _OUTLIER, _OneClassSVM, _PARAMS, _Reassigner, _check_classifier_input,
    _check_params, _checked_counts, _checked_init_labels, _classifier_spec, _default_solver,
    _features, _initial_class, _memo_key, _outlier_settings, _param_names,
    mean_size_change,
)
from shortclust.models.ic import _options as options
from shortclust.models.common.tfidf import _holds_counts, n_nonempty, require_enough_documents
from shortclust.models.common.validation import as_counts
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, NoneOr, Options,
                                    Real, Seed)


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
    variant : {"paper", "authors_code"}, default="paper"
        Whose settings the options below take when left at None: the paper's, or those
        of the authors' code (see Notes, "The authors' code"). ``"authors_code"`` also
        sets ``P1, P2 = 0.70, 0.85`` and ``tol=None`` while they hold their defaults,
        and, under the settings given, ``classifier_params`` ``solver="lbfgs",
        warm_start=False`` (logistic regression) and ``outlier_params``
        ``random_state=0`` (Isolation Forest).
    selection : {"random", "file_order"} or None, default=None
        Which texts a cluster over the cap keeps (step 6): a uniform random subset (the
        paper), or its first texts in the running order of the documents (the authors'
        code; see Notes). None: the variant's.
    p_draw : {"uniform", "whole_percent_apart"} or None, default=None
        P uniform on ``[P1, P2]`` (the paper), or a whole percentage in ``[100 P1, 100
        P2]`` moved 5 points away from the previous iteration's when closer to it (the
        authors' code; P1 and P2 must then be whole percentages). None: the variant's.
    tfidf : {"corpus", "per_subset"} or None, default=None
        One TF-IDF of the whole collection (the paper), or TF-IDF refitted on each
        cluster for its outlier detector and on each training set for the classifier,
        the test texts weighted by the training set's vocabulary and idf (the authors'
        code; needs word counts). None: the variant's.
    row_order : {"as_given", "shuffled"}, default="as_given"
        ``"shuffled"``: iterate over the documents in an order drawn from
        ``random_state`` (the labels come back in X's order; the initial clusterer
        still sees X as given). Shows whether an option depends on the order of the
        rows (``selection="file_order"`` does).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of P, the forests, the trimming, the classifier (where it draws numbers),
        the row order and, unless ``initial_params`` sets one, the initial clusterer.
        Same seed, same labels.

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
    settings_ : dict
        The settings the fit ran with, the variant resolved (P1, P2, tol, selection,
        p_draw, tfidf, classifier_params, outlier_params).
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
    :class:`~shortclust.models.kmeans.kmeans.KMeans` and of the authors' ``TfidfVectorizer``)
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
    ``floor(n / K * P)``, as ``int(...)`` in that code.

    **The authors' code** (commit f363b66) departs from the paper; by default the paper
    is followed, and ``variant="authors_code"`` follows the code in each way at once:

    ===================  ===================================  ================================
    parameter            paper (default)                      authors' code
    ===================  ===================================  ================================
    P1, P2, p_draw       P uniform on [0.5, 0.95]             whole percent in [70, 85], moved
                                                              5 points from the last if closer
    tol                  0.05 (section 3.3)                   None: always ``max_iter`` (50)
    selection            random subset of a cluster           its first texts in file order
    tfidf                one TF-IDF of the collection         refitted per cluster and per
                                                              training set
    outlier_params       each forest seeded from the fit      every forest seeded with 0
    classifier_params    our compiled SAG, warm-started       lbfgs, from scratch
    ===================  ===================================  ================================

    *File order.* The code reads its texts from a file that it rewrites after every
    iteration: the training texts shuffled, then the test texts as they were set aside
    (the outliers cluster by cluster, then the texts beyond the cap cluster by cluster).
    ``selection="file_order"`` keeps this running order, starting from X's rows: a
    cluster's training texts are its first non-outliers in it, so texts trained on stay
    ahead of those reclassified, and the first iteration trains on the first rows of
    each cluster. On a file sorted by true class (SearchSnippets) that choice is not
    random; ``row_order="shuffled"`` shows what it does to the results.

    What needs no option: the code removes an outlier from its cluster's training texts by
    comparing whole records, which would take the outlier's copies (same text, cluster
    and true label) with it; but copies have the same vectors, hence the same outlier
    score, and are flagged together, so nothing more goes. It skips an iteration whose
    training share exceeds 85%, which ``P <= 0.85`` never reaches. What the options do
    not copy: its vocabulary is that of the raw texts lower-cased without English stop
    words (give such counts: the ``sklearn_english`` preprocessing); its forests are
    scikit-learn's (the same algorithm, another random stream, see below).

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
    (:class:`~shortclust.models.ic._logistic.MultinomialLogisticSAG`: the same objective,
    step size and stopping rule as scikit-learn's ``solver="sag"``, with the K weights
    of a feature contiguous): one fit on 75% of GoogleNews-T, 152 classes, 19 epochs
    each, 0.64 s against scikit-learn's 1.04 s, the same objective to 1e-6 and the same
    test predictions as a fit to tolerance 1e-8. Past 1 GiB of gradient memory (training
    texts x K x 8 bytes: e.g. 45,790 texts at K = 2,931) it keeps that memory in float32,
    halving it, with the same optimum to the solver's tolerance; below it (every dataset
    of the IC reproduction) the fit is unchanged (MultinomialLogisticSAG's Notes, "Memory").
    Each iteration starts from the last one's weights
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
        "variant": Options(*options.VARIANTS),
        "selection": NoneOr(Options(*options.OPTIONS["selection"])),
        "p_draw": NoneOr(Options(*options.OPTIONS["p_draw"])),
        "tfidf": NoneOr(Options(*options.OPTIONS["tfidf"])),
        "row_order": Options("as_given", "shuffled"),
        "random_state": Seed(),
    }
    # Added after the IC reproduction's runs were archived: at these values (the paper's
    # settings, what the model did before) they stay out of run ids and tags.
    _parameters_added_later = {"variant": "paper", "selection": None, "p_draw": None,
                               "tfidf": None, "row_order": "as_given"}
    # X may be counts or vectors; fit also takes the corpus's counts (see Notes).
    capabilities = Capabilities(input="both", fit_counts=True, predict=False,
                                predict_proba=False, top_words=False)

    def __init__(self, *, n_clusters=None, initial="kmeans", initial_params=None, P1=0.5,
                 P2=0.95, max_iter=50, tol=0.05, classifier="logistic_regression",
                 classifier_params=None, outlier="isolation_forest", outlier_params=None,
                 variant="paper", selection=None, p_draw=None, tfidf=None,
                 row_order="as_given", random_state=None):
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
        self.variant = variant
        self.selection = selection
        self.p_draw = p_draw
        self.tfidf = tfidf
        self.row_order = row_order
        self.random_state = random_state

    def _validate_joint_params(self):
        """P1 <= P2 <= 1 (whole percentages for ``whole_percent_apart``), and each
        ``*_params`` names parameters of its estimator; the variant resolved."""
        settings = self._settings()
        if not settings.P1 <= settings.P2 <= 1:
            by = "" if self.variant == "paper" else f" (variant {self.variant!r})"
            raise ParameterError(
                f"P1 and P2 must satisfy 0 < P1 <= P2 <= 1, got P1={settings.P1!r}, "
                f"P2={settings.P2!r}{by}"
            )
        options.check_whole_percentages(settings)
        _check_params(self.initial_params, "initial_params", _initial_class(self.initial))
        _classifier_spec(self.classifier, settings.classifier_params)
        _outlier_settings(self.outlier, settings.outlier_params)

    def _settings(self):
        """The settings of a fit: the variant resolved (:class:`options.Settings`)."""
        return options.resolve(self.get_params(deep=False))

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
        settings = self._settings()
        source = X if counts is None else _checked_counts(counts, X)
        features, self.vocabulary_ = _features(source)
        word_counts = self._word_counts(source, settings)
        n_docs = features.shape[0]
        _check_classifier_input(self.classifier, features)
        if self.n_clusters is not None:
            require_enough_documents(features, self.n_clusters)
        labels, n_slots = self._initial_labels(X, n_docs, init_labels)
        rng = np.random.default_rng(self.random_state)
        rows = rng.permutation(n_docs) if self.row_order == "shuffled" else None
        if rows is not None:  # every per-document input in the drawn order
            features, labels = features[rows], labels[rows]
            word_counts = None if word_counts is None else word_counts[rows]
        reassigner = _Reassigner(self.classifier, settings.classifier_params, rng,
                                 solver=_default_solver(features))
        loop = self._make_loop(features, word_counts, n_slots, reassigner, settings, rng)
        self._reset_history(n_docs, n_slots, settings)
        draw_p = options.p_drawer(settings)
        for iteration in range(1, self.max_iter + 1):
            labels = self._iterate(loop, labels, draw_p, rng)
            self.n_iter_ = iteration
            if callback is not None:
                callback(iteration, self.max_iter, n_nonempty(labels))
            if self.converged_:
                break
        if rows is not None:
            labels = _in_given_order(labels, rows)
        self._store_fitted(labels, loop, features)
        return self

    def fit_predict(self, X, y=None, callback=None, init_labels=None, counts=None):
        """Fit and return the enhanced cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback, init_labels=init_labels, counts=counts).labels_

    # --- one iteration -----------------------------------------------------------------------

    def _iterate(self, loop, labels, draw_p, rng):
        """Steps 4-9 of Algorithm 1 on ``labels``; returns the new labels."""
        p = draw_p.draw(rng)
        groups = loop.clusters(labels)
        outliers = loop.outliers(labels, groups)
        cap = max(1, int(np.floor(labels.shape[0] / loop.n_slots * p)))
        train = loop.training_set(labels, outliers, groups, cap, rng)
        new = loop.reassign(labels, train)
        loop.advance(train, rng)
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

    def _word_counts(self, source, settings):
        """The counts that ``tfidf="per_subset"`` refits TF-IDF on (None if not asked)."""
        if settings.tfidf == "corpus":
            return None
        if not _holds_counts(source):
            raise ParameterError(
                "tfidf='per_subset' refits TF-IDF on word counts: give a Corpus or an integer "
                "count matrix as X or counts=, or use tfidf='corpus'"
            )
        return as_counts(source)[0]

    def _make_loop(self, features, word_counts, n_slots, reassigner, settings, rng):
        """The iterations' shared state under ``settings`` (:class:`_Loop`)."""
        vectors = (options.SubsetVectors(word_counts) if settings.tfidf == "per_subset"
                   else None)
        order = options.FileOrder(features.shape[0]) if settings.selection == "file_order" \
            else None
        return _Loop(features, n_slots, self._make_detector(features, rng), reassigner,
                     vectors=vectors, order=order)

    def _make_detector(self, features, rng):
        """Per-cluster outlier detector: ``detect(rows) -> bool mask`` or None."""
        settings = _outlier_settings(self.outlier, self._settings().outlier_params)
        if self.outlier == "none":
            return None
        if self.outlier == "isolation_forest":
            return _IsolationForest(features, rng, **settings)
        return _OneClassSVM(features, settings)

    def _reset_history(self, n_docs, n_slots, settings):
        self.settings_ = asdict(settings)
        tol = settings.tol
        self.stop_threshold_ = None if tol is None else float(tol) * n_docs / n_slots
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


def _in_given_order(labels, rows):
    """Labels of the documents ``rows`` (a permutation), put back in X's order."""
    given = np.empty_like(labels)
    given[rows] = labels
    return given
