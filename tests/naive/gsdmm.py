"""Slow, obvious reference implementations that the compiled kernels are tested against.

Written for clarity, not speed: plain Python loops, logs through ``math.lgamma``, no
rescaling tricks. Each reference consumes the random generator exactly as the model
does, so the same seed must give the same result.
"""

import math

import numpy as np


def gsdmm_log_weight(doc, m, n, n_w, alpha, beta, n_words):
    """log of Eq. 4 (without its constant) for one document and one cluster.

    ``doc`` is a list of (word, count); ``m``, ``n`` the cluster's documents and tokens,
    ``n_w`` a mapping word -> count in the cluster (document d already removed).
    """
    if m + alpha == 0:
        return -math.inf
    log_w = math.log(m + alpha)
    for w, c in doc:
        for j in range(1, c + 1):
            log_w += math.log(n_w.get(w, 0) + beta + (j - 1))
    length = sum(c for _, c in doc)
    for i in range(1, length + 1):
        log_w -= math.log(n + n_words * beta + (i - 1))
    return log_w


def gsdmm_fit(X, n_clusters, alpha, beta, max_iter, seed, binary=False):
    """Reference GSDMM (Algorithm 1 with Eq. 4); returns the final labels.

    Mirrors the compiled sampler's conventions: before each sweep non-empty clusters
    are renumbered to the leading slots (order kept); the empty slots beyond the ones
    in use form a single candidate, placed last, that opens the next slot; a document
    takes the first candidate whose cumulative weight exceeds u * total.
    """
    rng = np.random.default_rng(seed)
    docs = _documents(X, binary)
    z = [int(k) for k in rng.integers(0, n_clusters, size=len(docs))]
    for _ in range(max_iter):
        z = _compact(z)
        _sequential_sweep(docs, z, rng.random(len(docs)), n_clusters, alpha, beta, X.shape[1])
    return np.array(_compact(z))


def _sequential_sweep(docs, z, uniforms, n_clusters, alpha, beta, n_words):
    """One sweep of Algorithm 1 over compact clusters ``z`` (changed in place)."""
    _resample(docs, range(len(docs)), z, _counts(docs, z, n_clusters), max(z) + 1, uniforms,
              n_clusters, alpha, beta, n_words)


def _resample(docs, order, z, counts, n_active, uniforms, n_clusters, alpha, beta, n_words):
    """Re-sample documents ``order`` one by one against ``counts`` (updated); new n_active.

    Clusters ``0..n_active-1`` are the occupied ones; a document opening a cluster takes
    slot ``n_active``. ``z`` is changed in place.
    """
    m, n, n_w = counts
    for d in order:
        doc = docs[d]
        _move(doc, z[d], -1, m, n, n_w)
        log_w = [gsdmm_log_weight(doc, m[k], n[k], n_w[k], alpha, beta, n_words)
                 for k in range(n_active)]
        if n_active < n_clusters:
            empty = gsdmm_log_weight(doc, 0, 0, {}, alpha, beta, n_words)
            log_w.append(empty + math.log(n_clusters - n_active))
        chosen = _first_above(log_w, uniforms[d])
        if chosen is None:
            chosen = z[d]
        elif chosen == n_active:
            n_active += 1
        z[d] = chosen
        _move(doc, chosen, +1, m, n, n_w)
    return n_active


def gsdmm_parallel_fit(X, n_clusters, alpha, beta, max_iter, seed, threads, binary=False,
                       events=None, sequential_sweeps=1):
    """Reference for ``GSDMM(threads=B)``: the parallel sweep written out, block by block.

    The first ``sequential_sweeps`` sweeps (1, GSDMM's: the one from the random start) are
    :func:`gsdmm_fit`'s. Each later sweep: compact; one uniform per document; each block of ``block_bounds`` re-samples
    its documents as :func:`gsdmm_fit` does, against its own copy of the counts at the
    start of the sweep, opening new clusters at its own next slots; then block b's new
    clusters take the free slots after those of blocks 0..b-1, and those beyond the last
    slot send their documents back to their cluster at the start of the sweep. ``events``,
    a dict, receives how many clusters were opened (``"kept"``) and documents sent back
    (``"reverted"``), so that a test can show it reached both.
    """
    events = {} if events is None else events
    events.update(kept=0, reverted=0)
    from shortclust.models.common.threads import block_bounds

    rng = np.random.default_rng(seed)
    docs = _documents(X, binary)
    n_words = X.shape[1]
    lengths = [sum(c for _, c in doc) for doc in docs]
    bounds = block_bounds(np.concatenate([[0], np.cumsum(lengths)]), threads)
    z = [int(k) for k in rng.integers(0, n_clusters, size=len(docs))]
    for sweep in range(max_iter):
        z = _compact(z)
        uniforms = rng.random(len(docs))
        if sweep < sequential_sweeps:
            _sequential_sweep(docs, z, uniforms, n_clusters, alpha, beta, n_words)
            continue
        n_active = max(z) + 1
        start = list(z)
        new_z = list(z)
        next_free = n_active
        for b in range(threads):
            block_active = _resample(docs, range(bounds[b], bounds[b + 1]), new_z,
                                     _counts(docs, start, n_clusters), n_active, uniforms,
                                     n_clusters, alpha, beta, n_words)
            kept = max(0, min(block_active - n_active, n_clusters - next_free))
            for d in range(bounds[b], bounds[b + 1]):
                if new_z[d] >= n_active + kept:
                    new_z[d] = start[d]
                    events["reverted"] += 1
                elif new_z[d] >= n_active:
                    new_z[d] += next_free - n_active
            next_free += kept
            events["kept"] += kept
        z = new_z
    return np.array(_compact(z))


def gsdmm_log_posterior(X, m, n_w_by_cluster, alpha, beta):
    """Reference for the Naive Bayes scoring of new documents (Eq. 4, fixed counts)."""
    docs = _documents(X, binary=False)
    n_words = X.shape[1]
    out = np.empty((len(docs), len(m)))
    for d, doc in enumerate(docs):
        for k in range(len(m)):
            n_w = {w: int(c) for w, c in enumerate(n_w_by_cluster[k]) if c}
            out[d, k] = gsdmm_log_weight(doc, m[k], sum(n_w.values()), n_w, alpha, beta, n_words)
    return out


def _documents(X, binary):
    docs = []
    for d in range(X.shape[0]):
        row = X.getrow(d)
        pairs = sorted(zip(row.indices.tolist(), row.data.tolist()))
        docs.append([(w, 1 if binary else int(c)) for w, c in pairs if c])
    return docs


def _compact(z):
    new_id = {k: i for i, k in enumerate(sorted(set(z)))}
    return [new_id[k] for k in z]


def _counts(docs, z, n_clusters):
    m, n, n_w = [0] * n_clusters, [0] * n_clusters, [dict() for _ in range(n_clusters)]
    for doc, k in zip(docs, z):
        _move(doc, k, +1, m, n, n_w)
    return m, n, n_w


def _move(doc, k, sign, m, n, n_w):
    m[k] += sign
    for w, c in doc:
        n[k] += sign * c
        n_w[k][w] = n_w[k].get(w, 0) + sign * c


def _first_above(log_w, u):
    top = max(log_w)
    if top == -math.inf:
        return None
    weights = [math.exp(x - top) for x in log_w]
    target = u * sum(weights)
    running = 0.0
    for k, w in enumerate(weights):
        running += w
        if running > target:
            return k
    return max(k for k, w in enumerate(weights) if w > 0)
