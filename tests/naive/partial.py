"""Slow, obvious reference for ``GSDMM.partial_fit`` (incremental GSDMM, section 3.2).

Plain Python over lists and dicts, logs through ``naive.gsdmm_log_weight``. It consumes
the random generator exactly as the model does (the first batch as ``fit``, then one
``rng.random(n_batch)`` per sweep over a later batch), so the same seed must give the
same labels. Conventions it mirrors, as ``naive.gsdmm_fit`` does for ``fit``:

* clusters are renumbered (order kept) before each sweep and after each call;
* the empty slots count as one candidate, "a new cluster", placed last, with their
  total weight (one empty cluster's Eq. 4 weight times their number);
* classification takes the first candidate of largest weight, so a new cluster only when
  strictly more probable; sampling takes the first candidate whose cumulative weight
  exceeds ``u * total``.
"""

import math

import numpy as np

from tests.naive import gsdmm as naive


class NaivePartialGSDMM:
    """Reference incremental GSDMM: ``partial_fit`` returns the labels of every document.

    Parameters
    ----------
    n_clusters, alpha, beta, max_iter, partial_iter, seed
        As the model's ``n_clusters``, ``alpha``, ``beta``, ``max_iter``,
        ``partial_iter`` and ``random_state``.
    binary : bool
        Eq. 3 (each word once per document) instead of Eq. 4.
    """

    def __init__(self, n_clusters, alpha, beta, max_iter, partial_iter, seed, binary=False):
        self.n_clusters, self.alpha, self.beta = n_clusters, alpha, beta
        self.max_iter, self.partial_iter = max_iter, partial_iter
        self.seed, self.binary = seed, binary
        self.rng = None
        self.docs, self.z, self.n_words = [], [], None

    def partial_fit(self, X, n_iter=None):
        """Add the rows of X; return the labels of all documents so far (np.ndarray)."""
        docs = naive._documents(X, self.binary)
        if self.rng is None:
            self._fit(docs, X.shape[1])
        else:
            self._add(docs, self.partial_iter if n_iter is None else n_iter)
        return np.array(self.z)

    def _fit(self, docs, n_words):
        """Algorithm 1 on the first batch, drawing from the generator as ``fit`` does."""
        self.rng, self.n_words, self.docs = np.random.default_rng(self.seed), n_words, docs
        self.z = [int(k) for k in self.rng.integers(0, self.n_clusters, size=len(docs))]
        for _ in range(self.max_iter):
            self._sweep(range(len(docs)))
        self.z = naive._compact(self.z)

    def _add(self, docs, n_iter):
        start = len(self.docs)
        m, n, n_w = naive._counts(self.docs, self.z, self.n_clusters)
        n_active = max(self.z) + 1
        self.docs = self.docs + docs
        for doc in docs:
            log_w = self._log_weights(doc, m, n, n_w, n_active)
            chosen = log_w.index(max(log_w))  # the first of the largest
            n_active += chosen == n_active
            self.z.append(chosen)
            naive._move(doc, chosen, +1, m, n, n_w)
        for _ in range(n_iter):
            self._sweep(range(start, len(self.docs)))
        self.z = naive._compact(self.z)

    def _sweep(self, moving):
        """One Gibbs sweep over the documents ``moving``; the others stay put."""
        self.z = naive._compact(self.z)
        uniforms = self.rng.random(len(moving))
        m, n, n_w = naive._counts(self.docs, self.z, self.n_clusters)
        n_active = max(self.z) + 1
        for u, d in zip(uniforms, moving):
            doc = self.docs[d]
            naive._move(doc, self.z[d], -1, m, n, n_w)
            chosen = naive._first_above(self._log_weights(doc, m, n, n_w, n_active), u)
            if chosen is None:
                chosen = self.z[d]
            n_active += chosen == n_active
            self.z[d] = chosen
            naive._move(doc, chosen, +1, m, n, n_w)

    def _log_weights(self, doc, m, n, n_w, n_active):
        """log Eq. 4 for each occupied cluster, then for a new cluster if a slot is free."""
        args = (self.alpha, self.beta, self.n_words)
        log_w = [naive.gsdmm_log_weight(doc, m[k], n[k], n_w[k], *args) for k in range(n_active)]
        if n_active < self.n_clusters:
            empty = naive.gsdmm_log_weight(doc, 0, 0, {}, *args)
            log_w.append(empty + math.log(self.n_clusters - n_active))
        return log_w
