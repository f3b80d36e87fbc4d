"""DCT's approximate parallel sweep (``DCT(threads=B)``), AD-LDA's scheme for Eq. 5 (Eq. 8).

Private: use :class:`~shortclust.models.dmm.dct.DCT`. The scheme is that of approximate
distributed LDA (Newman, Asuncion, Smyth and Welling, JMLR 10 (2009), section 2.1), as
GSDMM's (``_gsdmm_parallel``), applied to one time step of Algorithm 1 of Liang, Yilmaz &
Kanoulas (KDD 2016):

1. The step's documents are cut into B contiguous blocks of about equal tokens
   (:func:`~shortclust.models.common.threads.block_bounds`).
2. Each block takes a private copy of the step's counts ``m_z``, ``n_z`` and of the rows
   ``n_zv`` of the words its documents hold, as they stand at the start of the sweep, and
   re-samples its documents, in order, with DCT's exact sequential kernel
   (:func:`~shortclust.models.dmm._dct_kernels.gibbs_sweep`, Eq. 5 / Eq. 8) against that
   copy. A block sees its own moves, never the other blocks' moves of this sweep: within a
   sweep the other blocks' contributions to ``m_z``, ``n_z`` and ``n_zv`` are those of the
   start of the sweep (stale); that is the approximation.
3. After the sweep the copies' changes are added to the shared counts
   (``n += sum_b (n_b - n)``), so the counts are again exactly those of the topics.

The step's first sweep is not parallel (``DCT`` runs the sequential kernel): it starts
from topics drawn uniformly at random, so no topic yet holds a story, and two blocks
sweeping from that start against stale counts gathered different stories into the same
topics. Measured on MStream-News-T (16 steps, Z = 300, 10 sweeps per step, 20 seeds):
with every sweep parallel (version 1 of this sweep), NMI 0.850 ± 0.013 and 93 clusters
against the sequential chain's 0.896 ± 0.007 and 105
(``results/benchmark/threads/threads.md``); with the first sweep sequential (version 2),
3 seeds (1, 5, 7) came within 0.02 of the sequential chain, so version 2 was measured
again on MStream-Tweets-T, a stream not used to choose it.

The priors (``a_z``, ``b_vz``, ``B_z``) are not counts: they change only in the
fixed-point steps between sweeps, which stay sequential and exact. The Z topics are
fixed, so, unlike GSDMM's, no block opens a cluster and the merge is a plain sum.

A block copies and merges only the rows of its own words: the step's counts of a word
absent from the step are 0 and no document of the step reads or writes them, so a
sweep's copy costs the step's distinct words x Z, not V x Z.

Determinism: the sweep's uniform draws are those of the sequential sweep (one per
document, in document order) and block b reads its slice of them, so each block's result
depends only on the counts at the start of the sweep and on its own draws: the labels
depend on the seed and B, not on how many threads actually ran (numba's ``prange`` under
:func:`~shortclust.models.common.threads.thread_limit`) or in which order the blocks
finished. B = 1 is never routed here: ``threads=1`` is the exact sequential kernel.
"""

import numpy as np
from numba import njit, prange

from shortclust.models.common.threads import block_bounds, block_scratch
from shortclust.models.dmm._dct_kernels import gibbs_sweep


def block_layout(docs, n_blocks):
    """A step's blocks: ``(bounds, block_words, word_ptr, holds, step_words)``.

    ``bounds`` (B + 1 document offsets, about equal tokens); block b's distinct words are
    ``block_words[word_ptr[b]:word_ptr[b + 1]]``; ``holds[b, v]`` is 1 when block b holds
    word v; ``step_words``: the step's distinct words. The documents of a step do not
    change between its sweeps, so this is computed once per step.
    """
    doc_ptr, doc_words = docs[0], docs[1]
    token_ptr = np.concatenate([[0], np.cumsum(docs[3])])
    bounds = block_bounds(token_ptr, n_blocks)
    parts = [np.unique(doc_words[doc_ptr[bounds[b]]:doc_ptr[bounds[b + 1]]])
             for b in range(n_blocks)]
    word_ptr = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)
    block_words = np.concatenate(parts).astype(np.int64)
    n_words = int(doc_words.max()) + 1 if doc_words.size else 0
    holds = np.zeros((n_blocks, max(n_words, 1)), dtype=np.uint8)
    for b, part in enumerate(parts):
        holds[b, part] = 1
    return bounds, block_words, word_ptr, holds, np.unique(block_words)


def sweep_scratch(n_blocks, n_words, n_topics, count_dtype):
    """Per-block copies of the counts and the kernel's scratch, cache lines apart:
    ``(local_m, local_n, local_wz, scratch)`` of parts (Z,), (Z,), (V, Z), (3, Z)."""
    return (block_scratch(n_blocks, (n_topics,)), block_scratch(n_blocks, (n_topics,)),
            block_scratch(n_blocks, (n_words, n_topics), count_dtype),
            block_scratch(n_blocks, (3, n_topics)))


@njit(cache=True, parallel=True)
def parallel_sweep(docs, z, stats, prior, uniforms, layout, local_m, local_n, local_wz,
                   scratch):
    """One parallel sweep over the blocks of ``layout`` (:func:`block_layout`); moves.

    IN: ``docs``, ``prior`` (as for ``gibbs_sweep``), ``uniforms`` (one per document),
    ``layout``. IN/OUT: ``z``, ``stats``. Scratch (:func:`sweep_scratch`; block b's part
    is ``[b, :n]`` for the unpadded length n): ``local_m``, ``local_n``, ``local_wz``,
    ``scratch``. Only the rows of block b's words in ``local_wz[b]`` are written or read.
    """
    doc_ptr, doc_words, doc_counts, doc_len = docs
    m_z, n_z, n_wz = stats
    bounds, block_words, word_ptr, holds, step_words = layout
    n_blocks = bounds.shape[0] - 1
    n_topics = m_z.shape[0]
    n_words = n_wz.shape[0]
    moved = np.zeros(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        block_m, block_n = local_m[b, :n_topics], local_n[b, :n_topics]
        block_wz = local_wz[b, :n_words]
        block_m[:] = m_z
        block_n[:] = n_z
        for i in range(word_ptr[b], word_ptr[b + 1]):
            block_wz[block_words[i], :] = n_wz[block_words[i]]
        first, last = bounds[b], bounds[b + 1]
        if first < last:
            block_docs = (doc_ptr[first:last + 1], doc_words, doc_counts, doc_len[first:last])
            moved[b] = gibbs_sweep(block_docs, z[first:last], (block_m, block_n, block_wz),
                                   prior, uniforms[first:last], scratch[b, :3])
    # Summed in int64 (m_z and n_z are float64 holding whole numbers; n_wz may be
    # unsigned, whose decrease must not wrap).
    for k in range(n_topics):
        start_m, start_n = np.int64(m_z[k]), np.int64(n_z[k])
        total_m, total_n = start_m, start_n
        for b in range(n_blocks):
            total_m += np.int64(local_m[b, k]) - start_m
            total_n += np.int64(local_n[b, k]) - start_n
        m_z[k], n_z[k] = total_m, total_n
    for i in prange(step_words.shape[0]):
        w = step_words[i]
        for k in range(n_topics):
            start = np.int64(n_wz[w, k])
            total = start
            for b in range(n_blocks):
                if holds[b, w]:
                    total += np.int64(local_wz[b, w, k]) - start
            n_wz[w, k] = total
    return moved.sum()
