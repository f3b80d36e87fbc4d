"""Compiled pass of MStream and MStreamF (Yin et al., KDD 2018). Private: use the estimators.

MStream keeps GSDMM's arrays and helpers (see ``_gsdmm_kernels``): the ``docs`` and
``stats`` tuples, word-major ``n_wz``, moving a document in and out of a cluster
(``_move_document``, the addible and deletable properties of the CF vectors, Section 4.1),
the chunked sampler ``_choose``, the argmax ``_most_probable`` and, as the fallback when
every product underflows, GSDPMM's log-space weights. What differs from GSDPMM's sweep:

* V changes within the one pass. Eq. 4-5's V is "the size of the vocabulary of current
  recorded documents", which grows as each new document of the batch brings words not
  seen before, so each document carries its own ``V beta`` (``v_beta[d]``) and the
  weights are plain running products, without GSDMM's cached denominators (which are
  valid for one ``V beta`` only).
* The last iteration of a batch takes the most probable cluster instead of sampling
  (Algorithm 1, "Choose cluster index z for document d with the highest probability").
* A cluster's slot is never reused within a pass: a new cluster opens slot ``n_active``
  (the paper does not reuse cluster ids, Section 4.3); emptied slots weigh 0 until the
  estimator drops them between batches.
"""

import numpy as np
from numba import njit

from shortclust.models.dmm._gsdmm_kernels import _choose, _most_probable, _move_document
from shortclust.models.dmm._gsdpmm_kernels import _log_space_dp_weights

#: Tokens between two rescalings of the running products (keeps them far from underflow).
_RESCALE = 16


@njit(cache=True, fastmath=True)
def _weights(d, docs, stats, alpha_d, beta, v_beta, n_active, num):
    """Eq. 4 (existing clusters, into ``num[:n_active]``) and Eq. 5 (returned), unnormalised.

    Both without their shared denominator ``D - 1 + alpha D``: an existing cluster weighs
    ``m_z prod_w prod_j (n_z^w + beta + j - 1) / prod_i (n_z + V beta + i - 1)``, the new
    one ``alpha D`` times the same with empty counts. Every ``_RESCALE`` tokens all weights
    are divided by the largest, which changes no ratio. The document must be out of the
    counts. Every weight can still underflow to 0 (the caller then works in logs).
    """
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    for k in range(n_active):
        num[k] = m_z[k]
    new = alpha_d
    position = 0  # i - 1 in the denominators
    for idx in range(doc_ptr[d], doc_ptr[d + 1]):
        row = n_wz[doc_words[idx]]
        for j in range(doc_counts[idx]):
            length_offset = v_beta + position
            word_offset = beta + j
            for k in range(n_active):
                num[k] *= (row[k] + word_offset) / (n_z[k] + length_offset)
            new *= word_offset / length_offset
            position += 1
            if position % _RESCALE == 0:
                largest = new
                for k in range(n_active):
                    largest = max(largest, num[k])
                if largest > 0.0:
                    for k in range(n_active):
                        num[k] /= largest
                    new /= largest
    return new


@njit(cache=True)
def mstream_pass(docs, z, stats, alpha_d, beta, v_beta, n_active, start, uniforms, greedy,
                 num, chunk_sums):
    """One pass over the batch's documents ``start, start+1, ...`` in order (Algorithm 1).

    Each document in a cluster leaves it (the deletable property); then it joins an
    existing cluster with probability proportional to Eq. 4 or a new cluster with Eq. 5
    (sampled with ``uniforms[d]``; the cluster of highest probability when ``greedy``,
    the last iteration). A document with ``z[d] = -1`` only joins: a pass over a batch
    whose documents are all unassigned is the one pass clustering process.

    IN: ``docs``, ``alpha_d`` (alpha D), ``beta``, ``v_beta`` (V beta, one per document),
    ``start``, ``uniforms``, ``greedy``. IN/OUT: ``z``, ``stats``. Scratch: ``num``
    (length = slots), ``chunk_sums``. Returns ``(stop, n_active, n_moved)``: ``stop`` is the
    number of documents when the pass is complete, else the document it stopped before
    because no slot was left for a new cluster (grow the arrays and call again from
    there); ``n_active`` the slots in use; ``n_moved`` the documents that changed cluster.
    """
    m_z = stats[0]
    n_moved = 0
    for d in range(start, z.shape[0]):
        if n_active == m_z.shape[0]:
            return d, n_active, n_moved
        old = z[d]
        if old >= 0:
            _move_document(d, docs, old, -1, stats)
        new_weight = _weights(d, docs, stats, alpha_d, beta, v_beta[d], n_active, num)
        new = _pick(num, n_active, new_weight, uniforms[d], greedy, chunk_sums)
        if new < 0:
            # Every product underflowed: the same weights through logs.
            new_weight = _log_space_dp_weights(d, docs, stats, alpha_d, beta, v_beta[d],
                                               n_active, num)
            new = _pick(num, n_active, new_weight, uniforms[d], greedy, chunk_sums)
        if new < 0:
            new = n_active  # unreachable for alpha > 0: Eq. 5 is positive
        if new == n_active:
            n_active += 1
        _move_document(d, docs, new, 1, stats)
        if new != old:
            z[d] = new
            n_moved += 1
    return z.shape[0], n_active, n_moved


@njit(cache=True)
def _pick(num, n_active, new_weight, u, greedy, chunk_sums):
    """The sampled cluster, or the most probable one (first on ties) when ``greedy``."""
    if greedy:
        return _most_probable(num, n_active, new_weight)
    return _choose(num, n_active, new_weight, u, chunk_sums)


@njit(cache=True)
def subtract_documents(docs, clusters, stats):
    """Remove each document from its cluster (Definition 2's subtraction of a batch).

    A batch's documents are never re-sampled after it, so subtracting each of them from
    the cluster it ended in is subtracting the batch's CF vectors.
    """
    for d in range(clusters.shape[0]):
        _move_document(d, docs, clusters[d], -1, stats)


def growing_vocabulary(docs, n_docs, known):
    """``V`` as each document of a batch is added: ``known`` plus the words new so far.

    ``known`` is a boolean mask of the words in the recorded vocabulary before the batch
    (updated in place to include the batch's words). Returns an int64 array, one entry
    per document (counting its own words).
    """
    doc_ptr, doc_words = docs[0], docs[1]
    base = int(known.sum())
    first_doc = np.repeat(np.arange(n_docs), np.diff(doc_ptr))
    words, first = np.unique(doc_words, return_index=True)
    fresh = ~known[words]
    new_per_doc = np.bincount(first_doc[first[fresh]], minlength=n_docs)
    known[words] = True
    return base + np.cumsum(new_per_doc)
