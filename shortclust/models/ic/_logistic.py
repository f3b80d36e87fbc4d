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
        weights, intercept = self._starting_point(classes, rows.shape[1])
        self.classes_ = classes
        alpha = 1.0 / (float(self.C) * rows.shape[0])
        longest = float(rows.multiply(rows).sum(axis=1).max()) if rows.nnz else 0.0
        seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1))
        epochs, converged = kernels.sag_multinomial(
            rows.indptr, rows.indices, rows.data, codes.reshape(-1).astype(np.int64),
            weights, intercept, alpha, kernels.step_size(longest, alpha, self.fit_intercept),
            float(self.tol), int(self.max_iter), seed, kernels.INTERCEPT_DECAY,
            bool(self.fit_intercept),
        )
        self.coef_, self.intercept_ = weights.T.copy(), intercept
        self.n_iter_, self.converged_ = np.array([epochs]), bool(converged)
        self.n_features_in_ = rows.shape[1]
        if not converged:
            warnings.warn(f"SAG did not converge in {epochs} epochs (tol={self.tol}); "
                          "raise max_iter", ConvergenceWarning, stacklevel=2)
        return self

    def _starting_point(self, classes, n_features):
        """(V x K weights, K intercepts): the last fit's when warm-starting on the same
        classes and features, else zeros."""
        previous = getattr(self, "coef_", None)
        if (self.warm_start and previous is not None
                and previous.shape == (classes.size, n_features)
                and np.array_equal(self.classes_, classes)):
            return np.ascontiguousarray(previous.T), self.intercept_.copy()
        return np.zeros((n_features, classes.size)), np.zeros(classes.size)

    def decision_function(self, X):
        """Scores ``X W^T + b`` of shape (n_samples, n_classes)."""
        check_is_fitted(self, "coef_")
        scores = _csr(X) @ self.coef_.T
        return np.asarray(scores) + self.intercept_

    def predict(self, X):
        """The class of highest score for each row."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


def _csr(X):
    """X as float64 CSR with sorted indices (explicit zeros are harmless: they add 0)."""
    rows = sp.csr_matrix(X, dtype=np.float64)
    if not rows.has_sorted_indices:
        rows = rows.copy()
        rows.sort_indices()
    return rows
