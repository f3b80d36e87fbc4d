"""Multinomial logistic regression by compiled SAG: iterative classification's classifier.

Private: :class:`~shortclust.models.ic.iterative_classification.IterativeClassification`
uses it by default on TF-IDF rows (``classifier_params={"solver": "compiled_sag"}``).
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from shortclust.models.ic import _logistic_kernels as kernels
from shortclust.models.base import Integer, Real

SOLVER_NAME = "compiled_sag"
# LogisticRegression parameters this solver implements; any other goes to scikit-learn.
SUPPORTED_PARAMS = frozenset({"C", "tol", "max_iter", "warm_start", "fit_intercept",
                              "random_state", "solver"})
#: Past this many bytes of float64 gradient memory (rows x classes x 8) the memory and the
#: stopping rule's copy of the weights are stored in float32 (see the class Notes).
FLOAT32_STORE_ABOVE = 2**30
#: Scores are computed this many (rows x classes) at a time in predict: 64 MiB of float64.
SCORE_BLOCK = 2**23


class MultinomialLogisticSAG(ClassifierMixin, BaseEstimator):
    """L2-regularised multinomial logistic regression fitted by compiled SAG.

    The model of scikit-learn's ``LogisticRegression(C=C, solver="sag")`` (multinomial
    loss, L2 penalty ``1 / (2 C)`` on the weights, intercept not penalised), solved by
    the same stochastic average gradient with the same step size and stopping rule, in
    numba with feature-major weights (see :mod:`~shortclust.models.ic._logistic_kernels`).

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength (> 0).
    tol : float, default=1e-4
        Stop when an epoch changes no weight by more than ``tol`` times the largest.
    max_iter : int, default=300
        Most epochs (passes of n random rows).
    warm_start : bool, default=False
        Start from the previous fit's weights when the classes are the same.
    fit_intercept : bool, default=True
    random_state : int, RandomState or None, default=None
        Seed of the row sampling.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
    n_iter_ : ndarray of shape (1,)
        Epochs run.
    converged_ : bool
        Whether the stopping rule ended the fit (else ``max_iter``; a
        ``ConvergenceWarning`` is issued, as scikit-learn does).
    n_features_in_ : int
    gradient_store_ : str
        ``"float64"``, or ``"float32"`` for a fit past :data:`FLOAT32_STORE_ABOVE`.

    Notes
    -----
    **Memory.** SAG keeps one stored gradient of K values per training row (n x K) and,
    for its stopping rule, the weights of the epoch's start (V x K), besides the weights
    and their gradient sum (V x K each). The fit works in the weights it returns, ``coef_``
    is a view of them (no copy), only the features present in the training rows (or with
    weights to start from) are fitted, the others' weights being zero and staying so,
    and :meth:`predict`
    scores :data:`SCORE_BLOCK` / K rows at a time, so predicting n rows adds K floats a
    row of a block, not n x K. When the n x K gradient memory would pass
    :data:`FLOAT32_STORE_ABOVE` (1 GiB: n K > 1.34e8, e.g. 120,000 rows and 1,466
    classes) it and the epoch's start are kept in float32 (each stored gradient rounded,
    the sums kept consistent with it: see
    :func:`~shortclust.models.ic._logistic_kernels.sag_multinomial`). The weights then
    agree with the float64 fit's to the solver's tolerance, not bit for bit; below the
    limit (every dataset of the IC reproduction: at most 20,000 texts and 152 classes,
    24 MB) the fit is the float64 one, unchanged.
    """

    def __init__(self, *, C=1.0, tol=1e-4, max_iter=300, warm_start=False,
                 fit_intercept=True, random_state=None):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    @property
    def solver(self):
        """The solver's name, as ``LogisticRegression.solver`` gives scikit-learn's."""
        return SOLVER_NAME

    def fit(self, X, y):
        """Fit the weights on the rows of X (sparse or dense) labelled by y."""
        # Not a ClusteringModel (a classifier inside one): the same rules, checked here.
        Real(0.0, inclusive=False).check(self.C, "C")
        Real(0.0, inclusive=True).check(self.tol, "tol")
        Integer(1).check(self.max_iter, "max_iter")
        rows = _csr(X)
        classes, codes = np.unique(np.asarray(y), return_inverse=True)
        if classes.size < 2:
            raise ValueError("logistic regression needs at least 2 classes in y")
        n_features = rows.shape[1]
        start, intercept = self._starting_point(classes, n_features)
        # Only the features of these rows, or with weights to start from, move: the others'
        # weights are zero and stay zero (every update of them adds or multiplies a zero),
        # so the fit runs on the active columns alone, step for step the same.
        active = _active_features(rows, start)
        rows = _columns(rows, active)
        if start is None:
            weights = np.zeros((active.size, classes.size))
        else:
            weights = start if active.size == n_features else start[active]
            self.coef_ = start = None  # the old weights are no longer needed
        self.classes_ = classes
        alpha = 1.0 / (float(self.C) * rows.shape[0])
        longest = float(rows.multiply(rows).sum(axis=1).max()) if rows.nnz else 0.0
        seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1))
        store = (np.float32 if 8 * rows.shape[0] * classes.size > FLOAT32_STORE_ABOVE
                 else np.float64)
        epochs, converged = kernels.sag_multinomial(
            rows.indptr, rows.indices, rows.data, codes.reshape(-1).astype(np.int64),
            weights, intercept, alpha, kernels.step_size(longest, alpha, self.fit_intercept),
            float(self.tol), int(self.max_iter), seed, kernels.INTERCEPT_DECAY,
            bool(self.fit_intercept), store,
        )
        if active.size < n_features:
            # Zeros never written are not resident: the full array costs the active rows.
            full = np.zeros((n_features, classes.size))
            full[active] = weights
            weights = full
        # A view of the feature-major weights (K x V, Fortran order): no second copy.
        self.coef_, self.intercept_ = weights.T, intercept
        self.gradient_store_ = np.dtype(store).name
        self.n_iter_, self.converged_ = np.array([epochs]), bool(converged)
        self.n_features_in_ = n_features
        if not converged:
            warnings.warn(f"SAG did not converge in {epochs} epochs (tol={self.tol}); "
                          "raise max_iter", ConvergenceWarning, stacklevel=2)
        return self

    def _starting_point(self, classes, n_features):
        """(V x K weights or None for zeros, K intercepts): the last fit's when
        warm-starting on the same classes and features (its own array), else zeros."""
        previous = getattr(self, "coef_", None)
        if (self.warm_start and previous is not None
                and previous.shape == (classes.size, n_features)
                and np.array_equal(self.classes_, classes)):
            return np.ascontiguousarray(previous.T), self.intercept_.copy()
        return None, np.zeros(classes.size)

    def decision_function(self, X):
        """Scores ``X W^T + b`` of shape (n_samples, n_classes)."""
        check_is_fitted(self, "coef_")
        return _scores(_csr(X), self.coef_, self.intercept_)

    def predict(self, X):
        """The class of highest score for each row, scored a block of rows at a time.

        Each row's scores are those of :meth:`decision_function` (a row's products do
        not depend on the other rows), so the classes are the same.
        """
        check_is_fitted(self, "coef_")
        rows = _csr(X)
        block = max(1, SCORE_BLOCK // self.classes_.size)
        best = np.empty(rows.shape[0], dtype=np.int64)
        for start in range(0, rows.shape[0], block):
            scores = _scores(rows[start:start + block], self.coef_, self.intercept_)
            best[start:start + block] = np.argmax(scores, axis=1)
        return self.classes_[best]


def _active_features(rows, start, block=4096):
    """Indices of the columns present in ``rows`` or with a nonzero weight in ``start``."""
    active = np.bincount(rows.indices, minlength=rows.shape[1]) > 0
    if start is not None:
        for first in range(0, start.shape[0], block):  # no V x K temporary
            active[first:first + block] |= (start[first:first + block] != 0).any(axis=1)
    return np.flatnonzero(active)


def _columns(rows, active):
    """``rows`` restricted to the columns ``active`` (sorted), renumbered in order."""
    if active.size == rows.shape[1]:
        return rows
    position = np.zeros(rows.shape[1], dtype=rows.indices.dtype)
    position[active] = np.arange(active.size, dtype=rows.indices.dtype)
    return sp.csr_matrix((rows.data, position[rows.indices], rows.indptr),
                         shape=(rows.shape[0], active.size))


def _scores(rows, coef, intercept):
    """``rows W^T + b`` (W^T is the feature-major weights: scipy reads them without a copy)."""
    scores = np.asarray(rows @ coef.T)
    scores += intercept
    return scores


def _csr(X):
    """X as float64 CSR with sorted indices (explicit zeros are harmless: they add 0)."""
    rows = sp.csr_matrix(X, dtype=np.float64)
    if not rows.has_sorted_indices:
        rows = rows.copy()
        rows.sort_indices()
    return rows
