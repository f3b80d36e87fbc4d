"""Slow, obvious reference for the topic tracking model (Iwata et al., IJCAI 2009) as
``shortclust.models.dmm.ttm.TTM`` runs it over a stream: the documents of a step are its users.

Plain Python over lists. It consumes the random generator exactly as ``TTM`` does: per
time step ``rng.integers(0, K, size=n_tokens)`` for the initial topics, then one
``rng.random(n_tokens)`` per iteration; tokens in document order, a document's words in
column order, each repeated as often as it occurs.
"""

import numpy as np
from scipy.special import digamma, gammaln

from tests.naive.gsdmm import _documents


def ttm_stream(batches, n_topics, alpha, beta, max_iter, fixed_point_iter, seed):
    """Run TTM over ``batches``; returns every document's label, the last theta_t (K,) and
    phi_t (K, V) as lists."""
    rng = np.random.default_rng(seed)
    n_words = batches[0].shape[1]
    theta = [1.0 / n_topics] * n_topics
    phi = [[1.0 / n_words] * n_words for _ in range(n_topics)]
    labels = []
    for X in batches:
        tokens = [(d, w) for d, doc in enumerate(_documents(X, binary=False))
                  for w, c in doc for _ in range(c)]
        z = [int(k) for k in rng.integers(0, n_topics, size=len(tokens))]
        a_prec, b_prec = alpha, [beta] * n_topics
        for _ in range(max_iter):
            uniforms = rng.random(len(tokens))
            for i, (d, w) in enumerate(tokens):
                weights = conditional(tokens, z, i, theta, phi, a_prec, b_prec, X.shape[0])
                z[i] = _first_above(weights, uniforms[i])
            for _ in range(fixed_point_iter):
                a_prec, b_prec = fixed_point_step(tokens, z, theta, phi, a_prec, b_prec,
                                                  X.shape[0])
        n_dk, n_kv, n_k = counts(tokens, z, n_topics, n_words, X.shape[0])
        theta_d = [[(n_dk[d][k] + a_prec * theta[k]) / (sum(n_dk[d]) + a_prec)
                    for k in range(n_topics)] for d in range(X.shape[0])]
        labels += [max(range(n_topics), key=lambda k: (row[k], -k)) for row in theta_d]
        theta = [sum(row[k] for row in theta_d) / len(theta_d) for k in range(n_topics)]
        phi = [[(n_kv[k][v] + b_prec[k] * phi[k][v]) / (n_k[k] + b_prec[k])
                for v in range(n_words)] for k in range(n_topics)]
    return np.array(labels), theta, phi


def counts(tokens, z, n_topics, n_words, n_docs):
    n_dk = [[0] * n_topics for _ in range(n_docs)]
    n_kv = [[0] * n_words for _ in range(n_topics)]
    n_k = [0] * n_topics
    for (d, w), k in zip(tokens, z):
        n_dk[d][k] += 1
        n_kv[k][w] += 1
        n_k[k] += 1
    return n_dk, n_kv, n_k


def conditional(tokens, z, i, theta, phi, alpha, beta, n_docs):
    """Unnormalised p(z_i = k | z_-i, words) for every k, from counts without token i."""
    n_topics, n_words = len(theta), len(phi[0])
    rest = tokens[:i] + tokens[i + 1:]
    n_dk, n_kv, n_k = counts(rest, z[:i] + z[i + 1:], n_topics, n_words, n_docs)
    d, w = tokens[i]
    return [(n_dk[d][k] + alpha * theta[k]) * (n_kv[k][w] + beta[k] * phi[k][w])
            / (n_k[k] + beta[k]) for k in range(n_topics)]


def log_joint(tokens, z, theta, phi, alpha, beta, n_docs):
    """log p(words, z | past, alpha, beta): the documents' and the topics' Dirichlet-
    multinomials."""
    n_topics, n_words = len(theta), len(phi[0])
    n_dk, n_kv, n_k = counts(tokens, z, n_topics, n_words, n_docs)
    total = 0.0
    for d in range(n_docs):
        total += gammaln(alpha) - gammaln(sum(n_dk[d]) + alpha)
        total += sum(gammaln(n_dk[d][k] + alpha * theta[k]) - gammaln(alpha * theta[k])
                     for k in range(n_topics))
    for k in range(n_topics):
        total += gammaln(beta[k]) - gammaln(n_k[k] + beta[k])
        total += sum(gammaln(n_kv[k][v] + beta[k] * phi[k][v]) - gammaln(beta[k] * phi[k][v])
                     for v in range(n_words))
    return float(total)


def fixed_point_step(tokens, z, theta, phi, alpha, beta, n_docs):
    """TTM's updates of alpha (shared by the documents) and of each topic's beta_k."""
    n_topics, n_words = len(theta), len(phi[0])
    n_dk, n_kv, n_k = counts(tokens, z, n_topics, n_words, n_docs)
    numerator = sum(theta[k] * (digamma(n_dk[d][k] + alpha * theta[k])
                                - digamma(alpha * theta[k]))
                    for d in range(n_docs) for k in range(n_topics) if n_dk[d][k] > 0)
    denominator = sum(digamma(sum(n_dk[d]) + alpha) - digamma(alpha) for d in range(n_docs))
    new_alpha = alpha * numerator / denominator if denominator > 0 else alpha
    new_beta = []
    for k in range(n_topics):
        scale = digamma(n_k[k] + beta[k]) - digamma(beta[k])
        if scale <= 0:
            new_beta.append(beta[k])
            continue
        gain = sum(phi[k][v] * (digamma(n_kv[k][v] + beta[k] * phi[k][v])
                                - digamma(beta[k] * phi[k][v]))
                   for v in range(n_words) if n_kv[k][v] > 0)
        new_beta.append(beta[k] * gain / scale)
    return new_alpha, new_beta


def _first_above(weights, u):
    target = u * sum(weights)
    running = 0.0
    for k, weight in enumerate(weights):
        running += weight
        if running > target:
            return k
    return len(weights) - 1
