"""Compiled hot loops of GSDPMM (Yin & Wang, ICDE 2016). Private: use :class:`GSDPMM`.

GSDPMM keeps GSDMM's arrays and reuses its helpers (see ``_gsdmm_kernels``): the
``docs``, ``stats`` and ``cache`` tuples, word-major ``n_wz``, cached inverse
denominators, the log-space Eq. 4, the chunked sampler and compaction; its weight pass
is GSDMM's running products with blocked rescaling. What the Dirichlet process changes:

* Prefactors. An existing cluster weighs ``m_z,-d`` (not ``m_z,-d + alpha``) and the
  new cluster ``alpha D``; both multiply the same word part of Eq. 4. A slot that
  emptied during the sweep therefore weighs exactly 0. The one new-cluster candidate
  is sampled after all slots and, when chosen, fills the first empty slot of the
  active range, or else slot ``n_active``.
* Unassigned documents. ``z[d] = -1`` marks a document in no cluster yet, so the
  initialisation (documents added one by one, each seeing only those before it) is
  the same sweep run over a fully unassigned corpus.
* Finite slots. There is no K: before each document the sweep checks that a slot
  beyond the active range is left and otherwise returns, so that Python can append slots and resume from that
  document. Appending slots changes no weight and no slot order, so the draws are the
  ones an unbounded array would give.
"""

import numpy as np
from numba import njit

from shortclust.models.dmm._gsdmm_kernels import (
    _BLOCK,
    _choose,
    _log_eq4,
    _move_document,
    _rescale_block,
    refresh_inv_den,
)


@njit(cache=True, fastmath=True)
def _dp_weights(d, docs, stats, cache, alpha_d, beta, v_beta, n_active, num, den):
    """Unnormalised GSDPMM weights of document ``d`` for slots ``0..n_active-1``.

    The document must already be out of the counts and ``inv_den`` match ``n_z``.
    Writes ``m_z * word part`` into ``num[:n_active]`` (``den`` is scratch) and returns
    the new cluster's weight ``alpha D * word part of an empty cluster`` on the same
    scale. When every weight underflows they all stay 0 (see ``_rescale_block``): the
    caller then finds a zero total and works in logs. Mirrors ``_eq4_weights`` of GSDMM;
    only the two prefactors differ, and the new cluster's weight must ride the same
    rescaling, so it cannot simply be called.
    """
    doc_ptr, doc_words, doc_counts, doc_len = docs
    m_z, n_z, n_wz = stats
    inv_den, empty_inv_den = cache
    n_tokens = doc_len[d]
    first = min(n_tokens, _BLOCK)
    cached = inv_den[first]
    for k in range(n_active):
        num[k] = m_z[k] * cached[k]
    new_num = alpha_d * empty_inv_den[first]
    new_den = 1.0
    if n_tokens > _BLOCK:
        den[:n_active] = 1.0
    position = 0  # i - 1 in Eq. 4's denominator
    for idx in range(doc_ptr[d], doc_ptr[d + 1]):
        row = n_wz[doc_words[idx]]
        for j in range(doc_counts[idx]):
            word_offset = beta + j
            if position < _BLOCK:
                for k in range(n_active):
                    num[k] *= row[k] + word_offset
            else:
                length_offset = v_beta + position
                for k in range(n_active):
                    num[k] *= row[k] + word_offset
                    den[k] *= n_z[k] + length_offset
                new_den *= length_offset
            new_num *= word_offset
            position += 1
            if position % _BLOCK == 0 and position < n_tokens:
                new_num = _rescale_block(num, den, n_active, new_num / new_den)
                new_den = 1.0
    if n_tokens > _BLOCK:
        for k in range(n_active):
            num[k] /= den[k]
    return new_num / new_den


@njit(cache=True)
def _log_space_dp_weights(d, docs, stats, alpha_d, beta, v_beta, n_active, num):
    """The weights of :func:`_dp_weights` through logs, scaled so the largest is 1.

    The fallback for a document whose product weights all underflowed (extreme beta).
    GSDMM's log helper with ``alpha = 0`` gives ``log m_z + log word part`` (minus
    infinity for an emptied slot); with no clusters and ``alpha = alpha D`` it gives the
    new cluster's log weight.
    """
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    _log_eq4(d, doc_ptr, doc_words, doc_counts, m_z, n_z, n_wz, 0.0, beta, v_beta,
             n_active, num)
    new = _log_eq4(d, doc_ptr, doc_words, doc_counts, m_z, n_z, n_wz, alpha_d, beta,
                   v_beta, 0, num)
    largest = new
    for k in range(n_active):
        largest = max(largest, num[k])
    for k in range(n_active):
        num[k] = np.exp(num[k] - largest)
    return np.exp(new - largest)


@njit(cache=True)
def _free_slot(m_z, n_active):
    """The first empty slot in the active range, else the one just beyond it.

    Reusing the slots that emptied during the sweep keeps the range, which every
    document's weight pass walks, near the number of clusters (on GoogleNews-T about a
    third of the range would otherwise be empty by the end of a sweep).
    """
    for k in range(n_active):
        if m_z[k] == 0.0:
            return k
    return n_active


@njit(cache=True)
def dp_sweep(docs, z, stats, cache, alpha_d, beta, v_beta, n_active, start, uniforms,
             num, den, saved):
    """Re-sample the cluster of documents ``start, start+1, ...`` in order (one sweep).

    Each assigned document leaves its cluster; then it joins an existing cluster with
    probability proportional to ``m_z,-d`` times the word part of Eq. 4, or a new one
    with probability proportional to ``alpha D`` times that part for an empty cluster.
    An unassigned document (``z[d] = -1``) only joins: a sweep over a fully unassigned
    corpus is the sequential initialisation. ``inv_den`` must match ``n_z`` on entry
    and stays current.

    IN: ``docs``, ``alpha_d`` (alpha * D), ``beta``, ``v_beta`` (V * beta), ``start``,
    ``uniforms`` (one U[0, 1) draw per document). IN/OUT: ``z``, ``stats``, ``cache``.
    Scratch: ``num``, ``den`` (length = slots), ``saved`` (length _BLOCK + 1).
    Returns ``(stop, n_active, n_moved)``: ``stop`` is the number of documents when the
    sweep is complete, else the document it stopped before because every slot was in
    use (grow the arrays and call again from there); ``n_active`` the slots in use;
    ``n_moved`` the documents of this call that changed cluster.
    """
    m_z, n_z, _ = stats
    inv_den = cache[0]
    n_moved = 0
    for d in range(start, z.shape[0]):
        if n_active == m_z.shape[0]:
            return d, n_active, n_moved  # no slot left for a new cluster
        old = z[d]
        if old >= 0:
            _move_document(d, docs, old, -1, stats)
            saved[:] = inv_den[:, old]
            refresh_inv_den(inv_den, old, n_z[old], v_beta)
        new_weight = _dp_weights(d, docs, stats, cache, alpha_d, beta, v_beta, n_active,
                                 num, den)
        new = _choose(num, n_active, new_weight, uniforms[d], den)
        if new < 0:
            # Every product underflowed (a zero total): redo this document in logs.
            new_weight = _log_space_dp_weights(d, docs, stats, alpha_d, beta, v_beta,
                                               n_active, num)
            new = _choose(num, n_active, new_weight, uniforms[d], den)
        if new < 0:
            # Unreachable for alpha > 0 (the new cluster's log weight is finite); a new
            # cluster is the safe answer, slot -1 would corrupt the counts.
            new = n_active
        if new == n_active:
            new = _free_slot(m_z, n_active)
            n_active = max(n_active, new + 1)
        _move_document(d, docs, new, 1, stats)
        if new == old:
            inv_den[:, old] = saved
        else:
            refresh_inv_den(inv_den, new, n_z[new], v_beta)
            z[d] = new
            n_moved += 1
    return z.shape[0], n_active, n_moved
