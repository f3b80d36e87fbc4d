"""A stream drawn from DCT's generative process (Liang et al., KDD 2016, Section 4.2).

The held-out stream table (:mod:`.heldout`) runs the shipped stream configs on a stream
whose generating process is DCT's own, so that DCT is measured where its assumptions hold
exactly and its settings were not chosen. :func:`dct_stream` is also the generator of the
model's synthetic tests (``tests/models/test_dct.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from shortclust.pipeline.records import atomic_write_text

#: The held-out synthetic stream, declared before any fit: 12 true steps of 250 documents
#: of 8 words, 20 topics over 2000 words. 12 steps, so that 16 equal batches cut across
#: the true steps (a batch then mixes the ends of two steps).
SYNTHETIC = dict(seed=0, n_steps=12, n_topics=20, n_words=2000, docs_per_step=250, length=8,
                 persistence=(30.0, 300.0))


def dct_stream(seed, n_steps=8, n_topics=5, n_words=120, docs_per_step=40, length=8,
               persistence=(30.0, 300.0)):
    """Documents drawn from DCT's generative process (Section 4.2, steps i-iii).

    Time 0 is uniform; the first step's precisions are small (the topics take shape), the
    later ones ``persistence`` = (alpha, beta): Theta_t ~ Dir(alpha Theta_{t-1}) and
    phi_{t,z} ~ Dir(beta phi_{t-1,z}) (the topics drift around the previous step); each
    document draws one topic from Theta_t and its words from that topic (Eq. 1-2).

    Returns
    -------
    batches : list of scipy.sparse.csr_matrix
        Each step's document-word counts.
    labels : list of ndarray
        Each step's true topics.
    thetas : list of ndarray
        Each step's true Theta_t.
    """
    rng = np.random.default_rng(seed)
    theta = np.full(n_topics, 1.0 / n_topics)
    phi = np.full((n_topics, n_words), 1.0 / n_words)
    batches, labels, thetas = [], [], []
    for step in range(n_steps):
        alpha, beta = (n_topics, 0.1 * n_words) if step == 0 else persistence
        theta = rng.dirichlet(alpha * theta + 1e-12)
        phi = np.array([rng.dirichlet(beta * row + 1e-12) for row in phi])
        z = rng.choice(n_topics, size=docs_per_step, p=theta)
        rows = np.array([rng.multinomial(length, phi[k]) for k in z])
        batches.append(sp.csr_matrix(rows))
        labels.append(z)
        thetas.append(theta)
    return batches, labels, thetas


def write_stream_file(path, **settings) -> Path:
    """Write :func:`dct_stream`'s documents as a JSON Lines dataset (atomically).

    Each line: ``text`` (word ``w0042`` repeated by its count, in word order), ``label``
    (the true topic) and ``time`` (the true step, an integer stream position), steps in
    order. The same settings give the same bytes, so the records' dataset checksum ties
    them to it.
    """
    batches, labels, _ = dct_stream(**{**SYNTHETIC, **settings})
    width = len(str(batches[0].shape[1] - 1))
    lines = []
    for step, (batch, truth) in enumerate(zip(batches, labels)):
        for row, label in zip(batch, truth):
            words = [f"w{v:0{width}d}" for v, n in zip(row.indices, row.data) for _ in range(n)]
            lines.append(json.dumps({"text": " ".join(words), "label": str(int(label)),
                                     "time": step}))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
