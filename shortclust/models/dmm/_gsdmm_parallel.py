"""GSDMM's approximate parallel sweep (``GSDMM(threads=B)``), AD-LDA's scheme for Eq. 4.

Private: use :class:`~shortclust.models.dmm.gsdmm.GSDMM`. The scheme is that of
approximate distributed LDA (Newman, Asuncion, Smyth and Welling, JMLR 10 (2009),
section 2.1) applied to the Dirichlet multinomial mixture of Yin & Wang (KDD 2014):

1. The documents are cut into B contiguous blocks of about equal tokens
   (:func:`~shortclust.models.common.threads.block_bounds`).
2. Each block takes a private copy of the cluster counts ``m_z``, ``n_z``, ``n_z^w`` (and
   of the cached Eq. 4 denominators) as they stand at the start of the sweep, and
   re-samples its documents, in order, with GSDMM's exact sequential kernel
   (:func:`~shortclust.models.dmm._gsdmm_kernels.gibbs_sweep`, Eq. 4) against that copy.
   A block sees its own moves, never the other blocks' moves of this sweep: that is the
   approximation; the chain is no longer the collapsed Gibbs sampler of Algorithm 1.
3. After the sweep the copies' changes are added to the shared counts
   (``n += sum_b (n_b - n)``), so the counts are again exactly those of the labels.

The first sweep of a fit is not parallel (``GSDMM`` runs the sequential kernel; version
2 of this scheme, 27 Nov 2026): it starts from clusters drawn uniformly at random, and in a
2-block first sweep each block is sampled against counts in which the other block still
sits at its random start, so it commits less (on GoogleNews-T x16, K = 500, seed 0:
log joint after sweep 1 -7,362,901 against -6,647,501, 406.6 effective clusters against
369.6, and 105,958 documents moved in sweep 2 against 29,893). The chain then settles in
a different mode, which it leaves slowly: with every sweep parallel (version 1), NMI
after 10 sweeps 0.7016 ± 0.0033 against the sequential chain's 0.6788 ± 0.0047 over 20
seeds, outside the 2 std the parallel sweep is held to, and still 0.7210 against 0.7067
after 100 sweeps (11 seeds). Seed 0's trace, sweep by sweep
(``results/benchmark/threads/trace.md``, ``benchmarks/threads_trace.py``): with the first
sweep sequential and the later ones in 2 blocks, NMI 0.6765 at sweep 10, against 0.6775
with every sweep sequential; with the first sweep in 2 blocks and the later ones
sequential, 0.6937. From the state one exact sweep leaves, the 2-block sweeps track the
sequential chain. The cost: one sweep of ``max_iter`` runs on one thread. The batches of
:meth:`GSDMM.partial_fit <shortclust.models.dmm.gsdmm.GSDMM.partial_fit>` after the
first start from their classification, not at random: every sweep of theirs is parallel.

New clusters. In a block, as in the sequential kernel, the empty slots beyond the
``n_active`` occupied ones form one candidate weighted by their number (as the block
sees it: the empty slots at the start of the sweep less those it opened itself), and
choosing it opens the block's next slot. Two blocks may both open a cluster; they are
different clusters, so at the merge block b's new clusters move to the free slots after
those of blocks 0..b-1. Should the blocks open more clusters than there are free slots
(only when K barely exceeds the clusters in use), the documents of the clusters that do
not fit return to the cluster they had at the start of the sweep, block by block, last
block last; the counts stay exact.

Determinism: the sweep's uniform draws are those of the sequential sweep (one per
document, in document order) and block b reads its slice of them, so each block's
result depends only on the counts at the start of the sweep and on its own draws. The
labels depend on the seed and B, not on how many threads actually ran (numba's
``prange`` under :func:`~shortclust.models.common.threads.thread_limit`) or in which
order the blocks finished. B = 1 is never routed here: ``threads=1`` is the exact
sequential kernel.
"""

import numpy as np
from numba import njit, prange

from shortclust.models.dmm._gsdmm_kernels import _move_document, gibbs_sweep


@njit(cache=True, parallel=True)
def parallel_sweep(docs, z, stats, cache, alpha, beta, v_beta, n_active, uniforms, bounds,
                   local_m, local_n, local_wz, local_inv_den, num, den, saved, z_start,
                   opened, dirty):
    """One parallel sweep over the blocks ``bounds[b]..bounds[b+1]-1``; documents moved.

    On entry clusters must be compact (slots ``0..n_active-1`` occupied, the rest empty)
    and ``cache`` current, as for ``gibbs_sweep``. IN: ``docs``, ``alpha``, ``beta``,
    ``v_beta``, ``n_active``, ``uniforms`` (one per document), ``bounds`` (B + 1
    document offsets). IN/OUT: ``z``, ``stats`` (``cache`` is left stale: refresh it
    before the next sweep). Scratch, from
    :func:`~shortclust.models.common.threads.block_scratch` (block b's part is ``[b, :n]``
    for the unpadded length n, apart from the other blocks' cache lines): ``local_m``,
    ``local_n`` (B, K), ``local_wz`` (B, V, K), ``local_inv_den`` (B, _BLOCK + 1, K),
    ``num``, ``den`` (B, K), ``saved`` (B, _BLOCK + 1); and ``z_start`` (like ``z``),
    ``opened`` (B, int64). ``local_wz`` and ``dirty`` (B, int64) persist between sweeps:
    ``local_wz[b][:, c]`` is zero for every ``c >= dirty[b]`` (allocate both zeroed), so
    a copy costs V x ``n_active`` rather than V x K (the sweep itself reads only
    ``n_active`` columns of each row it touches).
    """
    doc_ptr, doc_words, doc_counts, doc_len = docs
    m_z, n_z, n_wz = stats
    inv_den, empty_inv_den = cache
    n_blocks = bounds.shape[0] - 1
    n_slots = m_z.shape[0]
    n_words = n_wz.shape[0]
    n_rows = inv_den.shape[0]
    moved = np.zeros(n_blocks, dtype=np.int64)
    z_start[:] = z
    for b in prange(n_blocks):
        block_m, block_n = local_m[b, :n_slots], local_n[b, :n_slots]
        block_wz, block_inv_den = local_wz[b, :n_words], local_inv_den[b, :n_rows]
        block_m[:] = m_z
        block_n[:] = n_z
        for w in range(n_words):
            block_wz[w, :n_active] = n_wz[w, :n_active]
            if dirty[b] > n_active:
                block_wz[w, n_active:dirty[b]] = 0
        dirty[b] = n_active
        block_inv_den[:, :] = inv_den
        opened[b] = 0
        first, last = bounds[b], bounds[b + 1]
        if first < last:
            block_docs = (doc_ptr[first:last + 1], doc_words, doc_counts, doc_len[first:last])
            # Each block's copy has all K columns, so its sweep runs to the end.
            block_active, moved[b], _ = gibbs_sweep(
                block_docs, z[first:last], (block_m, block_n, block_wz),
                (block_inv_den, empty_inv_den), alpha, beta, v_beta, n_active,
                uniforms[first:last], num[b], den[b], saved[b, :n_rows], 0)
            opened[b] = block_active - n_active
            dirty[b] = block_active  # the columns this block may have written
    # Global slot of each block's first new cluster; clusters beyond the last slot revert.
    offsets = np.empty(n_blocks, dtype=np.int64)
    kept = np.empty(n_blocks, dtype=np.int64)
    next_free = n_active
    for b in range(n_blocks):
        offsets[b] = next_free
        kept[b] = max(0, min(opened[b], n_slots - next_free))
        next_free += kept[b]
    for b in prange(n_blocks):
        first, last = bounds[b], bounds[b + 1]
        block_docs = (doc_ptr[first:last + 1], doc_words, doc_counts, doc_len[first:last])
        block_stats = (local_m[b, :n_slots], local_n[b, :n_slots], local_wz[b, :n_words])
        for d in range(last - first):
            k = z[first + d]
            if k >= n_active + kept[b]:  # a new cluster with no free slot: undo the move
                _move_document(d, block_docs, k, -1, block_stats)
                _move_document(d, block_docs, z_start[first + d], 1, block_stats)
                z[first + d] = z_start[first + d]
                moved[b] -= 1
            elif k >= n_active:
                z[first + d] = k - n_active + offsets[b]
    _merge(m_z, local_m, n_active, offsets, kept)
    _merge(n_z, local_n, n_active, offsets, kept)
    for w in prange(n_words):
        _merge(n_wz[w], local_wz[:, w, :], n_active, offsets, kept)
    return moved.sum()


@njit(cache=True)
def _merge(shared, local, n_active, offsets, kept):
    """Add the blocks' changes to one row of counts: ``shared[k] += sum_b (local[b, k] -
    shared[k])`` for the slots occupied at the start, and each block's kept new clusters
    copied to their global slots (empty at the start). Summed in int64 (the float counts
    ``m_z``, ``n_z`` hold whole numbers), so that an unsigned count's decrease cannot wrap."""
    for k in range(n_active):
        start = np.int64(shared[k])
        total = start
        for b in range(local.shape[0]):
            total += np.int64(local[b, k]) - start
        shared[k] = total
    for b in range(local.shape[0]):
        for j in range(kept[b]):
            shared[offsets[b] + j] = local[b, n_active + j]
