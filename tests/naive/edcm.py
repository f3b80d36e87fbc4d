"""Slow, obvious references for the mixture of EDCM (``shortclust.models.edcm.edcm``).

Dense arrays, one document and one component at a time, the formulas of Banerjee & Basu
(SDM 2007, section 2.2) written with scipy's gammaln, digamma and trigamma, and s found
by Brent's method instead of the kernels' Newton iteration. The online pass keeps each
window as a list of documents and re-counts the window from scratch after every
assignment. Each consumes the random generator exactly as the model does, so the same
seed must give the same labels and (to rounding) the same parameters.
"""

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import digamma, logsumexp, polygamma

S_MIN, S_MAX = 1e-10, 1e10
PERTURBATION = 1e-3


def log_rising(s, n):
    """log Gamma(s + n) - log Gamma(s) = log s(s+1)...(s+n-1), summed exactly (fsum)."""
    return math.fsum(math.log(s + k) for k in range(n))


def precision_sums(s, lengths, weights):
    """D(s) = sum_l w_l [Psi(s + n_l) - Psi(s)] and dD/ds, from digamma and trigamma."""
    lengths = np.asarray(lengths, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    value = float(np.sum(weights * (digamma(s + lengths) - digamma(s))))
    slope = float(np.sum(weights * (polygamma(1, s + lengths) - polygamma(1, s))))
    return value, slope


def solve_precision(lengths, weights, total):
    """The root of s D(s) = total in [S_MIN, S_MAX] by Brent's method on log s."""
    def gap(t):
        s = math.exp(t)
        return s * precision_sums(s, lengths, weights)[0] - total

    if gap(math.log(S_MAX)) <= 0.0:
        return S_MAX
    if gap(math.log(S_MIN)) >= 0.0:
        return S_MIN
    return math.exp(brentq(gap, math.log(S_MIN), math.log(S_MAX), xtol=1e-15, rtol=1e-15))


def doc_log_edcm(x, beta, s):
    """log q(x | beta) = log n! + log Gamma(s) - log Gamma(s + n) + sum_{x_j>=1} log(beta_j/x_j).

    The Gamma ratio as :func:`log_rising` (gammaln's difference loses digits at large s).
    """
    n = int(x.sum())
    total = math.lgamma(n + 1) - log_rising(s, n)
    for j in np.flatnonzero(x):
        total += math.log(beta[j]) - math.log(x[j]) if beta[j] > 0 else -math.inf
    return float(total)


def log_joint(X, beta, s, weights):
    """log pi_h + log q(x_i | beta_h), document by document, component by component."""
    m, K = X.shape[0], beta.shape[0]
    out = np.empty((m, K))
    for i in range(m):
        for h in range(K):
            log_weight = math.log(weights[h]) if weights[h] > 0 else -math.inf
            out[i, h] = log_weight + doc_log_edcm(X[i], beta[h], s[h])
    return out


def posteriors(joint, weights, b):
    out = np.empty_like(joint)
    for i in range(joint.shape[0]):
        row = joint[i]
        if not np.isfinite(row.max()):
            with np.errstate(divide="ignore"):
                row = np.log(weights)
        row = b * row
        out[i] = np.exp(row - logsumexp(row))
    return out


def m_step(X, r, pseudo, beta_prev, s_prev):
    """The SDM M-step with pseudo-counts, component by component, sums over documents."""
    m, V = X.shape
    K = r.shape[1]
    n = X.sum(axis=1)
    occurs = (X > 0).astype(np.float64)
    beta, s = beta_prev.copy(), s_prev.copy()
    for h in range(K):
        counts = np.array([sum(r[i, h] * occurs[i, j] for i in range(m)) for j in range(V)])
        counts = counts + pseudo
        if sum(r[i, h] for i in range(m) if n[i] > 0) <= 1e-10:
            continue
        s_h = solve_precision(n, r[:, h], counts.sum())
        candidate = s_h * counts / counts.sum()  # = counts / D(s_h) at the fixed point
        if np.all(np.isfinite(candidate)):
            beta[h] = candidate
            s[h] = candidate.sum()
    return beta, s, r.sum(axis=0) / m


def em(X, n_clusters, smoothing, anneal_start, anneal_factor, max_iter, tol, seed):
    """Annealed EM as the model runs it; returns a dict of its results."""
    X = np.asarray(X, dtype=np.float64)
    m, V = X.shape
    df = (X > 0).sum(axis=0)
    prior = smoothing * (df + 1.0) / m
    pseudo = prior * m / n_clusters
    rng = np.random.default_rng(seed)
    whole_beta, whole_s, _ = m_step(X, np.ones((m, 1)), pseudo * n_clusters,
                                    np.ones((1, V)), np.full(1, float(V)))
    labels = rng.integers(0, n_clusters, size=m)
    r = np.zeros((m, n_clusters))
    r[np.arange(m), labels] = 1.0
    beta, s, weights = m_step(X, r, pseudo, np.repeat(whole_beta, n_clusters, axis=0),
                              np.repeat(whole_s, n_clusters))

    def objective(joint, beta):
        value = float(sum(logsumexp(row) for row in joint))
        prior_term = float((np.log(beta) @ pseudo).sum()) if smoothing > 0 else 0.0
        return value, value + prior_term

    joint = log_joint(X, beta, s, weights)
    likelihoods, objectives = [objective(joint, beta)[0]], [objective(joint, beta)[1]]
    n_iter = 0
    for t in range(max_iter):
        b = min(1.0, anneal_start * anneal_factor ** t)
        r = posteriors(joint, weights, b)
        beta, s, weights = m_step(X, r, pseudo, beta, s)
        if b < 1.0:
            beta = beta * np.exp(PERTURBATION * rng.standard_normal(beta.shape))
            s = beta.sum(axis=1)
        joint = log_joint(X, beta, s, weights)
        like, obj = objective(joint, beta)
        likelihoods.append(like)
        objectives.append(obj)
        n_iter += 1
        if b >= 1.0 and np.isfinite(obj) and obj - objectives[-2] <= tol * abs(obj):
            break
    return {"labels": joint.argmax(axis=1), "beta": beta, "s": s, "weights": weights,
            "n_iter": n_iter, "likelihoods": likelihoods, "objectives": objectives,
            "prior": prior, "sizes": weights * m}


def online(batches, beta, s, sizes, window, update_weight, windows=None):
    """Online EDCM (section 3.2) over dense batches, in order; returns labels and state.

    ``windows`` is a list per component of the documents (dense rows) in its window,
    oldest first; empty if None.
    """
    beta, s, sizes = beta.copy(), s.copy(), sizes.astype(np.float64).copy()
    K = beta.shape[0]
    windows = [list(w) for w in windows] if windows is not None else [[] for _ in range(K)]
    labels = []
    for batch in batches:
        for x in np.asarray(batch, dtype=np.float64):
            n = int(x.sum())
            scores = []
            for h in range(K):
                if sizes[h] <= 0:
                    scores.append(-math.inf)
                    continue
                score = math.log(sizes[h]) - log_rising(s[h], n)
                for j in np.flatnonzero(x):
                    score += math.log(beta[h, j]) if beta[h, j] > 0 else -math.inf
                scores.append(score)
            h = int(np.argmax(scores)) if np.isfinite(max(scores)) else int(np.argmax(sizes))
            labels.append(h)
            sizes[h] += 1.0
            if n == 0:
                continue
            windows[h].append(x)
            if len(windows[h]) > window:
                windows[h].pop(0)
            held = np.array(windows[h])
            counts = (held > 0).sum(axis=0).astype(np.float64)
            lengths = held.sum(axis=1)
            s_hat = solve_precision(lengths, np.ones(len(held)), counts.sum())
            estimate = s_hat * counts / counts.sum()
            beta[h] = (1.0 - update_weight) * beta[h] + update_weight * estimate
            s[h] = beta[h].sum()
    return np.array(labels), beta, s, sizes, windows
