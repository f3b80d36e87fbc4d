"""Slow, obvious reference GSDPMM that the compiled kernel is tested against.

Plain Python loops and logs, no rescaling, no slot arrays: clusters are list entries
appended as they open. It consumes the random generator exactly as the model does
(one uniform per document for the initialisation, then for each sweep), so the same
seed must give the same labels.
"""

import math

import numpy as np

from tests.naive.gsdmm import _compact, _documents, _first_above, _move, gsdmm_log_weight


def gsdpmm_log_weights(doc, m, n, n_w, alpha, beta, n_words, n_docs):
    """log weights of every existing cluster, then of a new one, for one document.

    An existing cluster z weighs m_z times the word part of Eq. 4 (GSDMM's weight with
    alpha = 0; minus infinity for an empty cluster), a new one alpha * D times that
    part with empty counts. The document must be out of the counts.
    """
    log_w = [gsdmm_log_weight(doc, m[k], n[k], n_w[k], 0.0, beta, n_words)
             for k in range(len(m))]
    log_w.append(gsdmm_log_weight(doc, 0, 0, {}, alpha * n_docs, beta, n_words))
    return log_w


def gsdpmm_fit(X, alpha, beta, max_iter, seed):
    """Reference GSDPMM; returns the final labels.

    Mirrors the compiled sampler's conventions: documents start in no cluster and are
    added in order (the initialisation); before each sweep the non-empty clusters are
    renumbered in order; a cluster emptied during a sweep keeps its place (weight 0);
    the candidates are the clusters in order, then a new one; a document takes the
    first candidate whose cumulative weight exceeds u * total, and a new cluster
    takes the place of the first empty one, if any, else comes after all others.
    """
    rng = np.random.default_rng(seed)
    docs = _documents(X, binary=False)
    z = _sweep(docs, [None] * len(docs), alpha, beta, X.shape[1], rng)
    for _ in range(max_iter):
        z = _sweep(docs, _compact(z), alpha, beta, X.shape[1], rng)
    return np.array(_compact(z))


def _sweep(docs, z, alpha, beta, n_words, rng):
    """Re-sample each document in order; ``None`` marks one in no cluster yet."""
    uniforms = rng.random(len(docs))
    n_clusters = 1 + max((k for k in z if k is not None), default=-1)
    m, n, n_w = [0] * n_clusters, [0] * n_clusters, [dict() for _ in range(n_clusters)]
    for doc, k in zip(docs, z):
        if k is not None:
            _move(doc, k, +1, m, n, n_w)
    for d, doc in enumerate(docs):
        if z[d] is not None:
            _move(doc, z[d], -1, m, n, n_w)
        log_w = gsdpmm_log_weights(doc, m, n, n_w, alpha, beta, n_words, len(docs))
        chosen = _first_above(log_w, uniforms[d])
        if chosen == len(m):  # a new cluster: the first empty one, else one more
            chosen = m.index(0) if 0 in m else len(m)
        if chosen == len(m):
            m.append(0)
            n.append(0)
            n_w.append({})
        z[d] = chosen
        _move(doc, chosen, +1, m, n, n_w)
    return z


def gsdpmm_log_posterior(X, m, n_w_by_cluster, beta):
    """Reference scoring of new documents: the existing-cluster weights, fixed counts."""
    docs = _documents(X, binary=False)
    out = np.empty((len(docs), len(m)))
    for d, doc in enumerate(docs):
        for k in range(len(m)):
            n_w = {w: int(c) for w, c in enumerate(n_w_by_cluster[k]) if c}
            out[d, k] = gsdmm_log_weight(doc, m[k], sum(n_w.values()), n_w, 0.0, beta,
                                         X.shape[1])
    return out


def new_cluster_log_weight(doc, alpha, beta, n_words, n_docs):
    """log of alpha * D * prod (beta + j - 1) / prod (V beta + i - 1), written out."""
    log_w = math.log(alpha * n_docs)
    position = 0
    for _, c in doc:
        for j in range(c):
            log_w += math.log(beta + j) - math.log(n_words * beta + position)
            position += 1
    return log_w
