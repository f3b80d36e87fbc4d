"""Slow, obvious online vMF pass: the reference of ``shortclust.models.vmf._kernels``.

Dense rows and dense unit means, each mean renormalised after every update exactly as
section 3.1 of Banerjee & Basu (SDM 2007) writes it (no lazy normalisation, no rescaling).
"""

import numpy as np


def naive_online_vmf(X, means, counts, started, bias, slope, log_prior, memory_length):
    """Process the rows of dense X in order; return (labels, means, counts, started).

    ``means`` is K x d (unit rows, or anything for components not started). A row of
    zeros goes to the first largest ``log_prior`` and moves nothing; while a component is
    not started, the next non-empty row becomes its mean with count 1; otherwise the row
    joins the first ``argmax bias + slope * means @ x`` and that mean moves to
    ``(mu + (x - mu) / c) / ||...||`` with ``c = (1 - 1/L) c + 1``.
    """
    means, counts, started = means.astype(float).copy(), counts.astype(float).copy(), \
        started.copy()
    decay = 1.0 if memory_length is None else 1.0 - 1.0 / memory_length
    labels = []
    for x in X:
        if not np.any(x):
            labels.append(int(np.argmax(log_prior)))
            continue
        waiting = np.flatnonzero(~started)
        if waiting.size:
            h = int(waiting[0])
            means[h], counts[h], started[h] = x, 1.0, True
            labels.append(h)
            continue
        h = int(np.argmax(bias + slope * (means @ x)))
        counts[h] = decay * counts[h] + 1.0
        moved = means[h] + (x - means[h]) / counts[h]
        means[h] = moved / np.linalg.norm(moved)
        labels.append(h)
    return np.array(labels), means, counts, started
