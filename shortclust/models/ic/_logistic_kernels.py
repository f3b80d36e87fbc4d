"""Compiled SAG for L2-regularised multinomial logistic regression on sparse rows.

Private: use :class:`shortclust.models.ic._logistic.MultinomialLogisticSAG`.

The problem is scikit-learn's ``LogisticRegression(C=C)`` with the multinomial loss::

    min_{W, b}  (1 / n) sum_i  -log softmax(W x_i + b)_{y_i}  +  (alpha / 2) ||W||^2,
    alpha = 1 / (C n),  the intercept b not penalised,

solved by stochastic average gradient (Schmidt, Le Roux & Bach 2017; the SAG of
scikit-learn's ``solver="sag"``). Step t draws a row i uniformly with replacement, replaces
its stored gradient ``g_i = softmax(W x_i + b) - e_{y_i}`` by the current one, and moves

    W <- (1 - step alpha) W - step * G / m,    b <- b - decay * step * h / m,

where ``G = sum_i x_i g_i^T`` and ``h = sum_i g_i`` are the sums of the stored gradients
and m the number of rows seen so far. ``step = 1 / (0.25 (max_i |x_i|^2 + 1) + alpha)``
is the inverse Lipschitz constant scikit-learn uses, and ``decay`` (0.01) damps the
intercept step on sparse data as scikit-learn's does. An epoch is n steps; after each one
the fit stops when ``max |W - W_prev| / max |W| <= tol`` (scikit-learn's rule).

Why our own: iterative classification fits this model once per iteration (Algorithm 1,
step 8) with up to 152 classes, and scikit-learn's SAG walks the weights class by class
with a stride of K. Here the weights are stored feature-major (``V x K``), so every
inner loop runs over the K classes of one feature, contiguously. Same objective and
algorithm; the sample stream and floating-point order differ, so the weights agree with
scikit-learn's to the solvers' tolerance, not bit for bit.

Lazy updates. A step changes every weight, but ``G`` changes only in the rows of the
sampled document's features. The weights are kept as ``W = scale * U``: the decay is a
multiplication of ``scale``, and the gradient part is owed to a feature until it is next
read, as ``(cum[t] - cum[last_j]) * G_j`` with ``cum[t] = sum_{s<=t} step / (m_s
scale_s)`` (``G_j`` is constant in between). When ``scale`` falls below 1e-9 every weight
is brought up to date and folded into ``U``.

Random numbers: a splitmix64 stream seeded with ``seed``; row ``i`` of step t is the next
output modulo n (bias below n / 2^64), so a Python reference can replay the same draws.
"""

import numpy as np
from numba import njit

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_RESCALE_BELOW = 1e-9
# scikit-learn's SPARSE_INTERCEPT_DECAY: the intercept's step on sparse rows.
INTERCEPT_DECAY = 0.01


@njit(cache=True)
def splitmix64(state):
    """One step of splitmix64: (new state, 64-bit output), both uint64."""
    state = state + np.uint64(_GOLDEN)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    return state, z ^ (z >> np.uint64(31))


def step_size(max_squared_norm, alpha, fit_intercept=True):
    """SAG's step for the log loss: ``1 / (0.25 (max |x|^2 + fit_intercept) + alpha)``."""
    return 1.0 / (0.25 * (max_squared_norm + int(fit_intercept)) + alpha)


@njit(cache=True)
def _softmax_gradient(z, label, out):
    """OUT ``out = softmax(z) - e_label`` (stable: the maximum is subtracted first)."""
    top = z.max()
    total = 0.0
    for k in range(z.shape[0]):
        out[k] = np.exp(z[k] - top)
        total += out[k]
    for k in range(z.shape[0]):
        out[k] /= total
    out[label] -= 1.0


@njit(cache=True)
def _catch_up(U, G, cum, last, feature, now):
    """Apply to feature's weights the gradient steps owed since it was last read."""
    owed = cum[now] - cum[last[feature]]
    if owed != 0.0:
        for k in range(U.shape[1]):
            U[feature, k] -= owed * G[feature, k]
    last[feature] = now


@njit(cache=True)
def _settle(U, G, cum, last, now, scale):
    """Bring every weight up to date and fold ``scale`` into U; return the new scale 1."""
    for feature in range(U.shape[0]):
        _catch_up(U, G, cum, last, feature, now)
    for feature in range(U.shape[0]):
        for k in range(U.shape[1]):
            U[feature, k] *= scale
    return 1.0


def sag_multinomial(indptr, indices, data, y, W, b, alpha, step, tol, max_iter, seed,
                    intercept_decay, fit_intercept, store=np.float64):
    """Fit multinomial logistic regression by SAG, in place; return the epochs run.

    IN: the CSR rows (``indptr``, ``indices``, ``data``), ``y`` (int64 class codes in
    ``0..K-1``), ``alpha`` (L2 weight, ``1 / (C n)``), ``step``, ``tol``, ``max_iter``
    (epochs), ``seed`` (of the splitmix64 stream), ``intercept_decay``, ``fit_intercept``,
    ``store`` (the dtype of the n x K gradient memory and of the V x K weights kept for
    the stopping rule: float64, or float32 to halve them, see below).
    IN/OUT: ``W`` (V x K, float64, C order: the starting point, then the solution; the
    fit works in it, no copy) and ``b`` (K). Returns ``(epochs, converged)``.

    float32 ``store``: each stored gradient is rounded to float32 and the sums ``G`` and
    ``h`` move by the rounded change, so they stay the sums of what is stored (a SAG whose
    stored gradients carry a relative error below 6e-8); the epoch's start is kept
    rounded, which moves the stopping rule's ratio by less than 6e-8. float64 is the
    exact algorithm above, bit for bit as before ``store`` existed.
    """
    memory = np.zeros((y.shape[0], W.shape[1]), dtype=store)
    previous = np.empty(W.shape, dtype=store)
    return _sag(indptr, indices, data, y, W, b, memory, previous, alpha, step, tol,
                max_iter, seed, intercept_decay, fit_intercept)


@njit(cache=True)
def _sag(indptr, indices, data, y, U, b, memory, previous, alpha, step, tol, max_iter,
         seed, intercept_decay, fit_intercept):
    """:func:`sag_multinomial` with its two stores allocated (``U`` is its ``W``)."""
    n = y.shape[0]
    n_features, n_classes = U.shape
    G = np.zeros((n_features, n_classes))
    h = np.zeros(n_classes)
    seen = np.zeros(n, dtype=np.bool_)
    last = np.zeros(n_features, dtype=np.int64)
    cum = np.zeros(n + 1)
    z = np.empty(n_classes)
    grad = np.empty(n_classes)
    state = np.uint64(seed)
    scale, m = 1.0, 0
    epochs, converged = 0, False
    for epoch in range(max_iter):
        previous[:, :] = U
        for t in range(1, n + 1):
            state, draw = splitmix64(state)
            i = np.int64(draw % np.uint64(n))
            lo, hi = indptr[i], indptr[i + 1]
            for k in range(n_classes):
                z[k] = b[k]
            for p in range(lo, hi):
                feature, value = indices[p], data[p]
                _catch_up(U, G, cum, last, feature, t - 1)
                for k in range(n_classes):
                    z[k] += scale * value * U[feature, k]
            _softmax_gradient(z, y[i], grad)
            for k in range(n_classes):
                stored = np.float64(memory[i, k])
                memory[i, k] = grad[k]  # rounded to the store's dtype
                change = np.float64(memory[i, k]) - stored  # in float64 for both
                h[k] += change
                grad[k] = change  # reused below as the change of g_i
            for p in range(lo, hi):
                feature, value = indices[p], data[p]
                for k in range(n_classes):
                    G[feature, k] += value * grad[k]
            if not seen[i]:
                seen[i] = True
                m += 1
            if fit_intercept:
                for k in range(n_classes):
                    b[k] -= intercept_decay * step * h[k] / m
            scale *= 1.0 - step * alpha
            cum[t] = cum[t - 1] + step / (m * scale)
            if scale < _RESCALE_BELOW:
                scale = _settle(U, G, cum, last, t, scale)
                _restart_clock(cum, last, t)
        scale = _settle(U, G, cum, last, n, scale)
        _restart_clock(cum, last, 0)
        epochs = epoch + 1
        if _relative_change(U, previous) <= tol:
            converged = True
            break
    return epochs, converged


@njit(cache=True)
def _restart_clock(cum, last, t):
    """After a settle at step t nothing is owed: reset every feature's clock to step t.

    ``cum`` keeps its values up to t (later steps overwrite the rest; ``cum[0]`` is always
    0), so the owed amount ``cum[now] - cum[last]`` counts only steps after the settle.
    """
    for feature in range(last.shape[0]):
        last[feature] = t


@njit(cache=True)
def _relative_change(U, previous):
    """``max |U - previous| / max |U|`` (0 when all weights are zero and unchanged)."""
    change, size = 0.0, 0.0
    for feature in range(U.shape[0]):
        for k in range(U.shape[1]):
            change = max(change, abs(U[feature, k] - previous[feature, k]))
            size = max(size, abs(U[feature, k]))
    if size == 0.0:
        return 0.0 if change == 0.0 else np.inf
    return change / size
