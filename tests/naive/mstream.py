"""Slow, obvious reference MStream and MStreamF that the compiled pass is tested against.

Plain Python lists and dicts, weights in logs (Eq. 4-5 through ``gsdmm_log_weight``), no
slot arrays, no rescaling. Each batch draws one uniform per document for every iteration,
as the model does, so the same seed must give the same labels.
"""

import math

import numpy as np

from tests.naive.gsdmm import _documents, _first_above, _move, gsdmm_log_weight


def mstream_fit(batches, alpha, beta, max_iter, seed, stored_batches=None, window=None,
                binary=False):
    """Reference MStream (``stored_batches=None``) or MStreamF; returns all labels in order.

    Clusters are list entries: the live ones in order of creation, then those opened in the
    batch. Between batches the empty ones are dropped. A new cluster that keeps a document
    at the end of its batch gets the next id; the labels are those ids.
    """
    rng = np.random.default_rng(seed)
    ids, m, n, n_w = [], [], [], []  # live clusters
    last_seen = {}  # word -> last batch it occurred in
    history = []  # (docs, labels) of each batch
    labels = []
    next_id = 0
    if window is None and stored_batches is not None:
        window = stored_batches + 1
    for b, X in enumerate(batches):
        docs = _documents(X, binary)
        if stored_batches is not None and b > stored_batches:
            old_docs, old_labels = history[b - stored_batches - 1]
            for doc, label in zip(old_docs, old_labels):
                _move(doc, ids.index(label), -1, m, n, n_w)
            keep = [k for k in range(len(m)) if m[k] > 0]
            ids, m, n, n_w = ([seq[k] for k in keep] for seq in (ids, m, n, n_w))
        recorded = sum(m) + len(docs)
        known = {w for w, t in last_seen.items() if window is None or t >= b - window + 1}
        v_per_doc = []
        for doc in docs:
            known |= {w for w, _ in doc}
            v_per_doc.append(len(known))
        for doc in docs:
            for w, _ in doc:
                last_seen[w] = b
        z = [None] * len(docs)
        n_live = len(m)
        for iteration in range(1, max_iter + 1):
            uniforms = rng.random(len(docs))
            greedy = iteration == max_iter and iteration > 1
            for d, doc in enumerate(docs):
                n_words = v_per_doc[d] if iteration == 1 else v_per_doc[-1]
                if z[d] is not None:
                    _move(doc, z[d], -1, m, n, n_w)
                log_w = [gsdmm_log_weight(doc, m[k], n[k], n_w[k], 0.0, beta, n_words)
                         for k in range(len(m))]
                log_w.append(gsdmm_log_weight(doc, 0, 0, {}, alpha * recorded, beta, n_words))
                if greedy:
                    chosen = _argmax(log_w)
                else:
                    chosen = _first_above(log_w, uniforms[d])
                if chosen == len(m):
                    m.append(0), n.append(0), n_w.append({})
                z[d] = chosen
                _move(doc, chosen, +1, m, n, n_w)
        for k in range(n_live, len(m)):
            ids.append(next_id if m[k] > 0 else None)
            next_id += m[k] > 0
        batch_labels = [ids[k] for k in z]
        labels += batch_labels
        history.append((docs, batch_labels))
        keep = [k for k in range(len(m)) if m[k] > 0]
        ids, m, n, n_w = ([seq[k] for k in keep] for seq in (ids, m, n, n_w))
    return np.array(labels, dtype=np.int64)


def _argmax(log_w):
    """First largest existing cluster; the new one (last) only when strictly larger."""
    best = max(range(len(log_w) - 1), key=lambda k: (log_w[k], -k), default=None)
    if best is None or log_w[best] == -math.inf or log_w[-1] > log_w[best]:
        return len(log_w) - 1
    return best
