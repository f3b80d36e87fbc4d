"""The compiled multinomial SAG against its slow reference and scikit-learn's optimum."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from shortclust.errors import ParameterError
from shortclust.models.ic import _logistic_kernels as kernels
from shortclust.models.ic._logistic import MultinomialLogisticSAG
from tests.naive.logistic import naive_sag


def _problem(seed, n=30, n_features=12, n_classes=4, density=0.3):
    rng = np.random.default_rng(seed)
    X = sp.random(n, n_features, density=density, random_state=seed, format="csr")
    X.data = rng.uniform(0.1, 1.0, X.nnz)
    y = rng.integers(0, n_classes, n)
    return X, y


@pytest.mark.kernels
@pytest.mark.parametrize("seed, C, fit_intercept, warm", [
    (0, 1.0, True, False),
    (1, 10.0, True, True),
    (2, 1.0, False, True),
    (3, 1e-3, True, False),   # step * alpha ~ 0.99: the weight scale is folded many times
])
def test_kernel_equals_the_dense_reference(seed, C, fit_intercept, warm):
    # Same splitmix64 row stream, same updates: equal epochs and weights (any other draw
    # order would give other weights after 7 epochs).
    X, y = _problem(seed)
    n, n_classes = X.shape[0], 4
    rng = np.random.default_rng(seed + 100)
    W0 = rng.normal(size=(X.shape[1], n_classes)) if warm else np.zeros((X.shape[1], n_classes))
    b0 = rng.normal(size=n_classes) if warm else np.zeros(n_classes)
    alpha = 1.0 / (C * n)
    step = kernels.step_size(X.multiply(X).sum(axis=1).max(), alpha, fit_intercept)
    W, b = W0.copy(), b0.copy()
    epochs, _ = kernels.sag_multinomial(X.indptr, X.indices, X.data, y.astype(np.int64), W, b,
                                        alpha, step, 1e-6, 7, 99, 0.01, fit_intercept)
    W_ref, b_ref, epochs_ref = naive_sag(X.toarray(), y, W0, b0, alpha, step, 1e-6, 7, 99,
                                         0.01, fit_intercept)
    assert epochs == epochs_ref
    np.testing.assert_allclose(W, W_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b, b_ref, rtol=1e-9, atol=1e-12)


@pytest.mark.kernels
def test_reaches_scikit_learns_optimum_and_predictions():
    X, y = _problem(5, n=300, n_features=40, n_classes=5, density=0.15)
    ours = MultinomialLogisticSAG(C=1.0, tol=1e-9, max_iter=5000, random_state=0).fit(X, y)
    theirs = LogisticRegression(C=1.0, tol=1e-10, max_iter=10000, solver="lbfgs").fit(X, y)
    assert ours.converged_
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=2e-4)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=2e-4)
    assert np.array_equal(ours.predict(X), theirs.predict(X))


def test_warm_start_continues_from_the_last_weights():
    X, y = _problem(6, n=200, n_features=30)
    model = MultinomialLogisticSAG(tol=1e-6, max_iter=2000, warm_start=True, random_state=0)
    cold = model.fit(X, y).n_iter_[0]
    warm = model.fit(X, y).n_iter_[0]
    assert warm < cold
    relabelled = model.fit(X, np.where(y == 0, 9, y))  # other classes: starts from zero
    assert relabelled.classes_.tolist() == [1, 2, 3, 9]


def test_same_seed_same_weights_and_labels_keep_their_values():
    X, y = _problem(7, n=60)
    labels = np.array(["a", "b", "c", "d"])[y]
    one = MultinomialLogisticSAG(random_state=3).fit(X, labels)
    two = MultinomialLogisticSAG(random_state=3).fit(X.toarray(), labels)  # dense rows too
    np.testing.assert_array_equal(one.coef_, two.coef_)
    assert set(one.predict(X)) <= {"a", "b", "c", "d"}


def test_no_convergence_warns_and_bad_parameters_raise():
    X, y = _problem(8)
    with pytest.warns(ConvergenceWarning):
        assert MultinomialLogisticSAG(max_iter=1, tol=0.0).fit(X, y).converged_ is False
    with pytest.raises(ParameterError, match="C"):
        MultinomialLogisticSAG(C=0).fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        MultinomialLogisticSAG().fit(X, np.zeros(X.shape[0]))
