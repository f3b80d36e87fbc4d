"""Slow, obvious reference for DCT (Liang, Yilmaz & Kanoulas, KDD 2016).

Plain Python over lists: Eq. 5 / Eq. 8 as a sum of logs, the fixed-point rules of Appendix
B (Section 4.3 for L > 1) written out per topic and word, the posterior means of Eq. 9-10.
It consumes the random generator exactly as ``DCT`` does: per time step
``rng.integers(0, Z, size=n_docs)`` for the initial topics, then one ``rng.random(n_docs)``
per iteration; a document takes the first topic whose cumulative weight exceeds
``u * total``.
"""

import math

import numpy as np
from scipy.special import digamma

from tests.naive.gsdmm import _documents, _first_above


def dct_stream(batches, n_topics, lags, alpha, beta, max_iter, fixed_point_iter, floor, seed,
               shared_alpha=False, topic_beta=False, threads=1, min_work=0):
    """Run DCT over ``batches`` (CSR count matrices, one per step).

    ``shared_alpha``: one alpha_{t,l} for all topics; ``topic_beta``: one beta_{t,z,l} per
    topic instead of one beta_{t,v,l} per word (the model's ``topic_precision="shared"``
    and ``word_precision="topic"``). ``threads`` > 1: the reference of ``DCT(threads=B)``
    (every sweep after a step's first) for steps whose tokens x ``n_topics`` reach ``min_work`` (:func:`_parallel_sweep`).

    Returns ``(labels, theta, phi)``: every document's label (argmax of Eq. 11), and the
    last step's Theta_t (Z,) and Phi_t (Z, V) as nested lists.
    """
    rng = np.random.default_rng(seed)
    n_words = batches[0].shape[1]
    theta_history = [[1.0 / n_topics] * n_topics for _ in range(lags)]  # [l][z]
    phi_history = [[[1.0 / n_words] * n_words for _ in range(n_topics)]
                   for _ in range(lags)]  # [l][z][v]
    labels = []
    for X in batches:
        docs = _documents(X, binary=False)
        past = (theta_history, phi_history)
        width = n_topics if topic_beta else n_words
        precisions = ([[alpha / lags] * lags for _ in range(n_topics)],  # [z][l]
                      [[beta / lags] * width for _ in range(lags)])  # [l][v] or [l][z]
        floors = ([[floor * alpha / lags] * lags for _ in range(n_topics)],
                  [[floor * beta / lags] * width for _ in range(lags)])
        z = [int(k) for k in rng.integers(0, n_topics, size=len(docs))]
        counts = _counts(docs, z, n_topics)
        parallel = threads > 1 and X.sum() * n_topics >= min_work
        for iteration in range(max_iter):
            uniforms = rng.random(len(docs))
            prior = priors(precisions, past, topic_beta)
            if parallel and iteration > 0:  # the step's first sweep is sequential
                counts = _parallel_sweep(docs, z, uniforms, prior, n_topics, threads)
            else:
                _sweep(docs, range(len(docs)), z, uniforms, counts, prior, n_topics)
            for _ in range(fixed_point_iter):
                precisions = fixed_point_step(precisions, past, counts, floors, shared_alpha,
                                              topic_beta)
        prior = priors(precisions, past, topic_beta)
        for d, doc in enumerate(docs):
            _move(doc, z[d], -1, counts)
            log_w = [log_eq5(doc, k, counts, prior) for k in range(n_topics)]
            labels.append(max(range(n_topics), key=lambda k: (log_w[k], -k)))
            _move(doc, z[d], +1, counts)
        theta, phi = posterior(counts, prior)
        theta_history = [theta] + theta_history[:-1]
        phi_history = [phi] + phi_history[:-1]
    return np.array(labels), theta_history[0], phi_history[0]


def _sweep(docs, which, z, uniforms, counts, prior, n_topics):
    """Re-sample the documents ``which``, in order, from Eq. 5 against ``counts``."""
    for d in which:
        _move(docs[d], z[d], -1, counts)
        log_w = [log_eq5(docs[d], k, counts, prior) for k in range(n_topics)]
        chosen = _first_above(log_w, uniforms[d])
        z[d] = z[d] if chosen is None else chosen
        _move(docs[d], z[d], +1, counts)


def _parallel_sweep(docs, z, uniforms, prior, n_topics, threads):
    """The parallel sweep written out: each block of ``block_bounds`` (about equal
    tokens) re-samples its documents against its own copy of the counts of the topics at
    the start of the sweep; then the counts are those of the new topics. Returns them."""
    from shortclust.models.common.threads import block_bounds

    lengths = [sum(c for _, c in doc) for doc in docs]
    bounds = block_bounds(np.concatenate([[0], np.cumsum(lengths)]), threads)
    start = list(z)
    for b in range(threads):
        block_counts = _counts(docs, start, n_topics)
        _sweep(docs, range(bounds[b], bounds[b + 1]), z, uniforms, block_counts, prior,
               n_topics)
    return _counts(docs, z, n_topics)


def priors(precisions, past, topic_beta=False):
    """``(a_z, b_zv, B_z)`` of Eq. 3-4 (Eq. 6-7): the Dirichlet parameters of step t.

    ``beta`` is ``[l][v]`` (a precision per word) or, with ``topic_beta``, ``[l][z]``."""
    (alpha, beta), (theta_history, phi_history) = precisions, past
    n_topics, lags, n_words = len(alpha), len(beta), len(phi_history[0][0])
    a = [sum(alpha[k][l] * theta_history[l][k] for l in range(lags)) for k in range(n_topics)]
    b = [[sum(beta[l][k if topic_beta else v] * phi_history[l][k][v] for l in range(lags))
          for v in range(n_words)] for k in range(n_topics)]
    return a, b, [sum(row) for row in b]


def log_eq5(doc, k, counts, prior):
    """log of Eq. 5 (Eq. 8) without its constant; ``doc`` is a list of (word, count)."""
    (m, n, n_w), (a, b, b_total) = counts, prior
    log_w = math.log(m[k] + a[k]) if m[k] + a[k] > 0 else -math.inf
    for w, c in doc:
        for j in range(1, c + 1):
            log_w += math.log(n_w[k].get(w, 0) + b[k][w] + (j - 1))
    length = sum(c for _, c in doc)
    for i in range(1, length + 1):
        log_w -= math.log(n[k] + b_total[k] + (i - 1))
    return log_w


def fixed_point_step(precisions, past, counts, floors, shared_alpha=False, topic_beta=False):
    """One update of every alpha_{t,z,l} and beta_{t,v,l} (Appendix B, Section 4.3), or of
    a shared alpha_{t,l} and per-topic beta_{t,z,l} (the topic-tracking model's rules)."""
    (alpha, beta), (theta_history, phi_history) = precisions, past
    (m, n, n_w), (alpha_floor, beta_floor) = counts, floors
    a, b, b_total = priors(precisions, past, topic_beta)
    n_topics, lags, n_words = len(alpha), len(beta), len(phi_history[0][0])
    scale = digamma(sum(m) + sum(a)) - digamma(sum(a))
    gains = [digamma(m[k] + a[k]) - digamma(a[k]) if m[k] > 0 else 0.0
             for k in range(n_topics)]
    new_alpha = []
    for k in range(n_topics):
        row = []
        for l in range(lags):
            gain = (sum(theta_history[l][j] * gains[j] for j in range(n_topics))
                    if shared_alpha else gains[k])
            row.append(max(alpha[k][l] * gain / scale, alpha_floor[k][l]))
        new_alpha.append(row)
    topic_gain = [digamma(n[k] + b_total[k]) - digamma(b_total[k]) for k in range(n_topics)]
    word_gain = [[digamma(n_w[k].get(v, 0) + b[k][v]) - digamma(b[k][v])
                  if n_w[k].get(v, 0) > 0 else 0.0 for v in range(n_words)]
                 for k in range(n_topics)]
    new_beta = []
    for l in range(lags):
        row = []
        for i in range(len(beta[l])):
            if topic_beta:  # i is a topic: the sum runs over its words
                k = i
                if topic_gain[k] <= 0:
                    row.append(max(beta[l][k], beta_floor[l][k]))
                    continue
                numerator = sum(beta[l][k] * phi_history[l][k][v] * word_gain[k][v]
                                for v in range(n_words))
                row.append(max(numerator / topic_gain[k], beta_floor[l][k]))
            else:  # i is a word: the sum runs over the topics
                v = i
                numerator = sum(beta[l][v] * phi_history[l][k][v] * word_gain[k][v]
                                for k in range(n_topics))
                denominator = sum(phi_history[l][k][v] * topic_gain[k]
                                  for k in range(n_topics))
                row.append(max(numerator / denominator, beta_floor[l][v]))
        new_beta.append(row)
    return new_alpha, new_beta


def posterior(counts, prior):
    """Theta_t and Phi_t, the posterior means of Eq. 9 (Eq. 10)."""
    (m, n, n_w), (a, b, b_total) = counts, prior
    total = sum(m) + sum(a)
    theta = [(m[k] + a[k]) / total for k in range(len(m))]
    phi = [[(n_w[k].get(v, 0) + b[k][v]) / (n[k] + b_total[k]) for v in range(len(b[k]))]
           for k in range(len(m))]
    return theta, phi


def _counts(docs, z, n_topics):
    counts = ([0] * n_topics, [0] * n_topics, [dict() for _ in range(n_topics)])
    for doc, k in zip(docs, z):
        _move(doc, k, +1, counts)
    return counts


def _move(doc, k, sign, counts):
    m, n, n_w = counts
    m[k] += sign
    for w, c in doc:
        n[k] += sign * c
        n_w[k][w] = n_w[k].get(w, 0) + sign * c
