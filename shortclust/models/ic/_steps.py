"""The steps of iterative classification (Rakib et al., Algorithm 1) and their checks.

Private to :mod:`shortclust.models.ic.iterative_classification`: the outlier detectors
(Isolation Forest, one-class SVM) applied per cluster, the classifier that reassigns the
texts left out, trimming to n/K * P, the stopping rule's size change, the memo of initial
clusterings, and the checks of the inner estimators' settings.
"""

import hashlib
import json
import numbers
from collections import OrderedDict
from importlib import import_module

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from shortclust.errors import ParameterError
from shortclust.models.ic import _kernels as kernels
from shortclust.models.ic import _options as options
from shortclust.models.ic import _logistic
from shortclust.models.common.tfidf import _holds_counts, tfidf
from shortclust.models.common.validation import as_counts
from shortclust.models.base import (Boolean, Integer, Interval, ModelName, NoneOr, Options,
                                    ParamDict, check_declarations)

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
# scikit-learn's "auto" (min(256, cluster size)). random_state None: each forest seeded
# from the fit's generator; an integer: every forest seeded with it.
_IFOREST_DEFAULTS = {"n_estimators": 100, "max_samples": 256, "contamination": 0.1,
                     "bootstrap": True, "random_state": None}
# nu bounds the fraction of outliers, as contamination does for the forest.
_OCSVM_DEFAULTS = {"nu": 0.1}
# A cluster smaller than this is kept whole: one text has nothing to be an outlier from.
_MIN_OUTLIER_CLUSTER = 2


class _Loop:
    """What the iterations share: the vectors, K, the detector, the classifier, and the
    state of the options (:mod:`._iterative_classification_options`).

    ``vectors`` gives the detector and the classifier their vectors (default: the rows of
    ``features``, one TF-IDF of the collection); ``order`` is the running document order
    of ``selection="file_order"`` (None: random trimming).
    """

    def __init__(self, features, n_slots, detector, reassigner, vectors=None, order=None):
        self.features = features
        self.n_slots = n_slots
        self.detector = detector
        self.reassigner = reassigner
        self.vectors = options.CorpusVectors(features) if vectors is None else vectors
        self.order = order

    def clusters(self, labels):
        """The documents by cluster: in increasing label and row order, or in the running
        order of ``selection="file_order"``."""
        if self.order is not None:
            return self.order.groups(labels)
        return _groups(np.arange(labels.shape[0]), labels)

    def outliers(self, labels, groups=None):
        """Step 5: the outliers of each cluster, found within that cluster only."""
        mask = np.zeros(labels.shape[0], dtype=bool)
        if self.detector is None:
            return mask
        for members in self.clusters(labels) if groups is None else groups:
            if members.size < _MIN_OUTLIER_CLUSTER:
                continue
            own = self.vectors.cluster(members)
            flagged = (self.detector(members) if own is None
                       else self.detector(np.arange(members.size), own))
            # A cluster wholly "outlying" would lose its class: keep it whole instead.
            if not flagged.all():
                mask[members[flagged]] = True
        return mask

    def training_set(self, labels, outliers, groups, cap, rng):
        """Step 6: each cluster's texts that are not outliers, cut to ``cap``."""
        if self.order is not None:
            return self.order.select(groups, outliers, cap)
        return _trimmed(labels, ~outliers, cap, rng)

    def reassign(self, labels, train):
        """Step 8: classify the test texts with a classifier trained on the others."""
        new = labels.copy()
        test = np.flatnonzero(~train)
        if test.size:
            train_rows = np.flatnonzero(train)
            train_vectors, test_vectors = self.vectors.split(train_rows, test)
            new[test] = self.reassigner.predict(train_vectors, labels[train_rows],
                                                test_vectors)
        return new

    def advance(self, train, rng):
        """After an iteration: the running order of ``selection="file_order"`` moves on."""
        if self.order is not None:
            self.order.advance(train, rng)


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
        if (model is None or not np.array_equal(getattr(model, "classes_", []), classes)
                or getattr(model, "n_features_in_", X_train.shape[1]) != X_train.shape[1]):
            model = clone(self.prototype)  # a warm start needs the same classes and columns
        if getattr(model, "n_neighbors", 0) > y_train.shape[0]:
            model.set_params(n_neighbors=y_train.shape[0])  # k-NN on a tiny training set
        model.fit(X_train, y_train)
        self.last = model
        return np.asarray(model.predict(X_test), dtype=np.int64)


class _IsolationForest:
    """Isolation Forest fitted on, and scoring, the rows of one cluster (compiled).

    Each forest is seeded from ``rng``, or with ``random_state`` when that is set (the
    same seed for every forest, as the authors' code does).
    """

    def __init__(self, features, rng, n_estimators, max_samples, contamination, bootstrap,
                 random_state=None):
        self.csr, self.rng = _kernel_csr(features), rng
        self.n_estimators, self.max_samples = n_estimators, max_samples
        self.contamination, self.bootstrap = contamination, bootstrap
        self.random_state = random_state

    def __call__(self, members, vectors=None):
        """Outlier mask of ``members``: rows of the collection's vectors, or of ``vectors``
        (the cluster's own)."""
        csr = self.csr if vectors is None else _kernel_csr(vectors)
        scores = np.empty(members.size)
        seed = (int(self.rng.integers(0, 2**31 - 1)) if self.random_state is None
                else int(self.random_state))
        kernels.isolation_scores(
            csr.indptr, csr.indices, csr.data, members.astype(np.int64),
            self.n_estimators, min(self.max_samples, members.size), self.bootstrap,
            seed, csr.shape[1], scores,
        )
        if self.contamination == "auto":
            return scores < -0.5  # scikit-learn's offset for "auto"
        return scores < np.percentile(scores, 100.0 * self.contamination)


def _kernel_csr(matrix):
    """``matrix`` as the forest kernel reads it: float64 CSR, sorted, no explicit zeros."""
    csr = sp.csr_matrix(matrix, dtype=np.float64)
    csr.eliminate_zeros()  # the kernel reads a missing entry as the zero
    csr.sort_indices()
    return csr


class _OneClassSVM:
    """scikit-learn's one-class SVM fitted on, and predicting, one cluster's rows."""

    def __init__(self, features, settings):
        self.features, self.settings = features, settings

    def __call__(self, members, vectors=None):
        from sklearn.svm import OneClassSVM

        rows = (self.features if vectors is None else vectors)[members]
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
    :class:`~shortclust.models.ic._logistic.MultinomialLogisticSAG`, which implements C, tol,
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
    NoneOr(Integer(0, maximum=2**32 - 1)).check(  # scikit-learn's seeds
        settings["random_state"], "outlier_params random_state")
