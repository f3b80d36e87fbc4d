"""Slow, obvious reference for LDA by collapsed Gibbs sampling and its incremental form.

Plain Python over lists: the conditional (Griffiths & Steyvers 2004, Eq. 5) written out
for every topic, a cumulative sum, the first topic whose cumulative weight exceeds
``u * total``; a Gibbs sweep takes the topics in the order: the token's current topic,
then the others ascending (folding-in: ascending). It consumes the random generator exactly as ``LDA`` does:

* ``fit``: ``rng.integers(0, K, size=n_tokens)`` for the initial topics, then one
  ``rng.random(n_tokens)`` per sweep (the model draws a sweep's numbers in slices of
  whole documents, which gives the same numbers);
* ``partial_fit`` after the first call, and folding-in: ``rng.random`` of
  ``(1 + n_sweeps) * length`` numbers per document, in document order: the placing pass,
  then each sweep.

Tokens are each document's words in column order, a word repeated as often as it occurs.
"""

import numpy as np


def documents(X):
    """Each row of a CSR count matrix as its list of word ids (column order, repeated)."""
    docs = []
    for d in range(X.shape[0]):
        row = X.getrow(d)
        pairs = sorted(zip(row.indices.tolist(), row.data.tolist()))
        docs.append([w for w, c in pairs for _ in range(int(c))])
    return docs


def draw(weights, u, order=None):
    """First index, in ``order`` (default ascending), whose cumulative weight exceeds
    ``u * total``; the last of the order if none does."""
    order = list(range(len(weights))) if order is None else order
    total = sum(weights)
    running = 0.0
    for k in order:
        running += weights[k]
        if running > u * total:
            return k
    return order[-1]


def current_first(current, n_topics):
    """The order a Gibbs sweep tries the topics in: the token's current one, then the rest."""
    return [current] + [k for k in range(n_topics) if k != current]


class NaiveLDA:
    """Reference LDA; ``fit`` and ``partial_fit`` return every document's label.

    Parameters
    ----------
    n_topics, alpha, beta, max_iter, partial_iter, seed
        As the model's ``n_clusters``, ``alpha`` (a number here), ``beta``,
        ``max_iter``, ``partial_iter`` and ``random_state``.
    """

    def __init__(self, n_topics, alpha, beta, max_iter, partial_iter, seed):
        self.n_topics, self.alpha, self.beta = n_topics, alpha, beta
        self.max_iter, self.partial_iter, self.seed = max_iter, partial_iter, seed
        self.rng = None

    # --- batch Gibbs ----------------------------------------------------------------------

    def fit(self, X):
        """Collapsed Gibbs on the rows of X; labels: argmax of each document's counts."""
        self.rng = np.random.default_rng(self.seed)
        self.n_words = X.shape[1]
        self.docs = documents(X)
        n_tokens = sum(len(doc) for doc in self.docs)
        drawn = self.rng.integers(0, self.n_topics, size=n_tokens).tolist()
        self.z = []
        for doc in self.docs:
            self.z.append(drawn[:len(doc)])
            drawn = drawn[len(doc):]
        self.sweeps(self.max_iter)
        return self.labels()

    def sweeps(self, n_sweeps):
        """``n_sweeps`` Gibbs sweeps over every document, the counts rebuilt from ``z``."""
        K = self.n_topics
        n_dk = [[zs.count(k) for k in range(K)] for zs in self.z]
        n_wk = [[0] * K for _ in range(self.n_words)]
        n_k = [0] * K
        for doc, zs in zip(self.docs, self.z):
            for w, k in zip(doc, zs):
                n_wk[w][k] += 1
                n_k[k] += 1
        v_beta = self.n_words * self.beta
        for _ in range(n_sweeps):
            uniforms = iter(self.rng.random(sum(len(doc) for doc in self.docs)).tolist())
            for d, (doc, zs) in enumerate(zip(self.docs, self.z)):
                for i, w in enumerate(doc):
                    old = zs[i]
                    n_dk[d][old] -= 1
                    n_wk[w][old] -= 1
                    n_k[old] -= 1
                    weights = [(n_wk[w][k] + self.beta) / (n_k[k] + v_beta)
                               * (n_dk[d][k] + self.alpha) for k in range(K)]
                    new = draw(weights, next(uniforms), current_first(old, K))
                    zs[i] = new
                    n_dk[d][new] += 1
                    n_wk[w][new] += 1
                    n_k[new] += 1
        self.n_dk, self.n_wk, self.n_k = n_dk, n_wk, n_k
        self.phi_w = [[float(c) for c in row] for row in n_wk]
        self.phi_total = [float(c) for c in n_k]
        self.doc_labels = [_argmax(row) for row in n_dk]

    def labels(self):
        return np.array(self.doc_labels)

    # --- incremental ----------------------------------------------------------------------

    def partial_fit(self, X):
        """The first call fits; later ones add the rows of X one document at a time."""
        if self.rng is None:
            return self.fit(X)
        for doc in documents(X):
            zs, expected = self.fold_in(doc, self.partial_iter, self.rng, update=True)
            self.docs.append(doc)
            self.z.append(zs)
            self.doc_labels.append(_argmax(expected))
        return self.labels()

    def batch_step(self, n_sweeps):
        """Gibbs sweeps over every document seen, from the tokens' current topics."""
        self.sweeps(n_sweeps)
        return self.labels()

    def predict_expected(self, X, seed):
        """Expected topic counts of the rows of X folded in with phi fixed."""
        rng = np.random.default_rng(seed)
        return np.array([self.fold_in(doc, self.partial_iter, rng, update=False)[1]
                         for doc in documents(X)])

    def fold_in(self, doc, n_sweeps, rng, update):
        """Place, re-sample and take the expected assignments of one document's tokens."""
        K = self.n_topics
        uniforms = iter(rng.random((1 + n_sweeps) * len(doc)).tolist())
        v_beta = self.n_words * self.beta
        phi = [[(self.phi_w[w][k] + self.beta) / (self.phi_total[k] + v_beta)
                for k in range(K)] for w in range(self.n_words)]
        counts = [0] * K
        zs = []
        for w in doc:  # each token sees the tokens placed before it
            new = draw([phi[w][k] * (counts[k] + self.alpha) for k in range(K)],
                       next(uniforms))
            zs.append(new)
            counts[new] += 1
        for _ in range(n_sweeps):
            for i, w in enumerate(doc):
                counts[zs[i]] -= 1
                new = draw([phi[w][k] * (counts[k] + self.alpha) for k in range(K)],
                           next(uniforms))
                zs[i] = new
                counts[new] += 1
        expected = [0.0] * K
        token_proba = []
        for i, w in enumerate(doc):
            counts[zs[i]] -= 1
            weights = [phi[w][k] * (counts[k] + self.alpha) for k in range(K)]
            counts[zs[i]] += 1
            proba = [weight / sum(weights) for weight in weights]
            token_proba.append(proba)
            expected = [e + p for e, p in zip(expected, proba)]
        if update:
            for w, proba in zip(doc, token_proba):
                for k in range(K):
                    self.phi_w[w][k] += proba[k]
                    self.phi_total[k] += proba[k]
        return zs, expected


def _argmax(values):
    """Index of the largest value, the first on ties."""
    return max(range(len(values)), key=lambda k: (values[k], -k))
