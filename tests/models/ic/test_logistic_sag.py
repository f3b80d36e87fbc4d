"""The compiled multinomial SAG against its slow reference and scikit-learn's optimum."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from shortclust.errors import ParameterError
from shortclust.models.ic import _logistic, _logistic_kernels as kernels
from shortclust.models.ic._logistic import MultinomialLogisticSAG
from tests.naive.logistic import naive_sag


def _problem(seed, n=30, n_features=12, n_classes=4, density=0.3):
    rng = np.random.default_rng(seed)
    X = sp.random(n, n_features, density=density, random_state=seed, format="csr")
    X.data = rng.uniform(0.1, 1.0, X.nnz)
    y = rng.integers(0, n_classes, n)
    return X, y


@pytest.mark.kernels
@pytest.mark.parametrize("seed, C, fit_intercept, warm, store", [
    (0, 1.0, True, False, np.float64),
    (1, 10.0, True, True, np.float64),
    (2, 1.0, False, True, np.float64),
    (3, 1e-3, True, False, np.float64),   # step * alpha ~ 0.99: the scale is folded many times
    (0, 1.0, True, False, np.float32),    # the float32 store of large fits
    (1, 10.0, True, True, np.float32),
])
def test_kernel_equals_the_dense_reference(seed, C, fit_intercept, warm, store):
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
                                        alpha, step, 1e-6, 7, 99, 0.01, fit_intercept, store)
    W_ref, b_ref, epochs_ref = naive_sag(X.toarray(), y, W0, b0, alpha, step, 1e-6, 7, 99,
                                         0.01, fit_intercept, store)
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


def test_the_float32_store_reaches_the_float64_fit_to_the_solvers_tolerance(monkeypatch):
    # Past FLOAT32_STORE_ABOVE the gradient memory is float32. At tol 1e-5 the float64 fit
    # is 5e-4 from the optimum (a fit to tol 1e-10); the float32 one differs from it by
    # less than 1% of that, with the same epochs and predictions.
    X, y = _problem(5, n=300, n_features=40, n_classes=5, density=0.15)
    optimum = MultinomialLogisticSAG(tol=1e-10, max_iter=20000, random_state=0).fit(X, y)
    exact = MultinomialLogisticSAG(tol=1e-5, max_iter=5000, random_state=0).fit(X, y)
    monkeypatch.setattr(_logistic, "FLOAT32_STORE_ABOVE", 0)
    rounded = MultinomialLogisticSAG(tol=1e-5, max_iter=5000, random_state=0).fit(X, y)
    assert (exact.gradient_store_, rounded.gradient_store_) == ("float64", "float32")

    def distance(one, other):
        return max(np.abs(one.coef_ - other.coef_).max(),
                   np.abs(one.intercept_ - other.intercept_).max())

    assert 0 < distance(rounded, exact) < 0.01 * distance(exact, optimum)
    assert rounded.n_iter_[0] == exact.n_iter_[0]
    assert np.array_equal(rounded.predict(X), exact.predict(X))


def test_predict_scores_blocks_of_rows_with_the_classes_of_the_whole(monkeypatch):
    X, y = _problem(9, n=500, n_features=30, n_classes=6)
    model = MultinomialLogisticSAG(random_state=0).fit(X, y)
    whole = model.classes_[np.argmax(model.decision_function(X), axis=1)]
    monkeypatch.setattr(_logistic, "SCORE_BLOCK", 6 * 7)  # 7 rows a block, a short last one
    assert np.array_equal(model.predict(X), whole)
    # Bounded: scoring 500 rows in blocks of 7 allocates about 7 rows of scores, not 500.
    tracemalloc.start()
    model.predict(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 500 * 6 * 8


def test_coef_is_a_view_of_the_weights_and_a_warm_start_refits_them_in_place():
    X, y = _problem(6, n=200, n_features=30)
    model = MultinomialLogisticSAG(tol=1e-6, warm_start=True, random_state=0).fit(X, y)
    weights = model.coef_
    assert weights.base is not None and weights.T.flags.c_contiguous  # no copy was made
    before = weights.copy()
    model.fit(X, y)
    assert model.coef_.base is weights.base and not np.array_equal(model.coef_, before)


def _without(X, columns):
    X = X.tolil()
    X[:, columns] = 0
    X = X.tocsr()
    X.eliminate_zeros()
    return X


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_columns_absent_from_the_rows_are_left_out_step_for_step(fit_intercept):
    # The estimator fits only the active columns; the kernel on every column must give
    # the same weights bit for bit, cold (column 15 absent) and warm (column 7 absent
    # but with weights from the first fit, so fitted; 15 still absent and zero).
    X, y = _problem(10, n=80, n_features=20)
    first, second = _without(X, [15]), _without(X, [7, 15])
    model = MultinomialLogisticSAG(tol=1e-6, max_iter=40, warm_start=True,
                                   fit_intercept=fit_intercept, random_state=4)
    W, b = np.zeros((20, 4)), np.zeros(4)
    for rows in (first, second):
        seed = int(np.random.RandomState(4).randint(0, 2**31 - 1))
        alpha = 1.0 / rows.shape[0]
        step = kernels.step_size(float(rows.multiply(rows).sum(axis=1).max()), alpha,
                                 fit_intercept)
        with pytest.warns(ConvergenceWarning):
            model.fit(rows, y)
        kernels.sag_multinomial(rows.indptr, rows.indices, rows.data, y.astype(np.int64),
                                W, b, alpha, step, 1e-6, 40, seed, 0.01, fit_intercept)
        assert np.array_equal(model.coef_.T, W) and np.array_equal(model.intercept_, b)
        assert model.n_features_in_ == 20 and model.coef_.shape == (4, 20)
    assert np.all(W[15] == 0) and np.any(W[7] != 0)


def test_the_reassigner_warm_starts_when_a_column_is_absent_from_the_training_rows():
    # n_features_in_ is X's width, not the fitted columns': IC keeps the model (a warm
    # start) when the next training set has the same classes and columns.
    from shortclust.models.ic._steps import _Reassigner

    X, y = _problem(11, n=80, n_features=20)
    X = _without(X, [15])
    reassigner = _Reassigner("logistic_regression", None, np.random.default_rng(0),
                             solver="compiled_sag")
    reassigner.predict(X, y, X)
    first = reassigner.last
    reassigner.predict(X, y, X)
    assert isinstance(first, MultinomialLogisticSAG) and reassigner.last is first
