"""Slow, obvious SAG for multinomial logistic regression: the reference of the compiled one.

Dense rows, every weight updated at every step (no lazy updates, no weight scale), the same
splitmix64 row stream as ``shortclust.models.ic._logistic_kernels``.
"""

import numpy as np

MASK = (1 << 64) - 1


def splitmix64(state):
    """(new state, output) of splitmix64 on Python integers."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def naive_sag(X, y, W, b, alpha, step, tol, max_iter, seed, decay, fit_intercept=True,
              store=np.float64):
    """SAG on dense X (n x V), y in 0..K-1, from W (V x K) and b; returns (W, b, epochs).

    ``store``: the dtype the stored gradients and the epoch's starting weights are kept
    in; the sums move by the change of what is stored, computed in float64.
    """
    n = X.shape[0]
    W, b = W.astype(float).copy(), b.astype(float).copy()
    G = np.zeros_like(W)
    memory = np.zeros((n, W.shape[1]), dtype=store)
    h = np.zeros(W.shape[1])
    seen = np.zeros(n, dtype=bool)
    state, m = seed, 0
    for epoch in range(1, max_iter + 1):
        previous = W.astype(store)
        for _ in range(n):
            state, draw = splitmix64(state)
            i = draw % n
            z = X[i] @ W + b
            p = np.exp(z - z.max())
            p /= p.sum()
            p[y[i]] -= 1.0
            stored = memory[i].astype(float)
            memory[i] = p
            change = memory[i].astype(float) - stored
            h += change
            G += np.outer(X[i], change)
            if not seen[i]:
                seen[i] = True
                m += 1
            if fit_intercept:
                b = b - decay * step * h / m
            W = (1.0 - step * alpha) * W - step * G / m
        biggest = np.abs(W).max()
        if np.abs(W - previous).max() <= tol * biggest:
            return W, b, epoch
    return W, b, max_iter
