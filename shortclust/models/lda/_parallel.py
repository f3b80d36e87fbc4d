"""Approximate distributed LDA (AD-LDA): one Gibbs sweep over blocks of documents in threads.

Newman, Asuncion, Smyth and Welling, "Distributed algorithms for topic models", JMLR 10
(2009), section 2.1. The documents are cut into B contiguous blocks of about equal tokens.
Each block is swept by the exact sequential kernel (:func:`~shortclust.models.lda._kernels.gibbs_sweep`,
Eq. 5 of Griffiths & Steyvers) against its own copy of the topic-word counts ``n_wk`` and
topic totals ``n_k`` taken at the start of the sweep (a block's document-topic rows are
its own); after the sweep the copies' changes are added to the shared counts
(``n_wk += sum_b (n_wk_b - n_wk)``). Within a sweep a block does not see the other blocks'
moves: that is the approximation (the sampler is no longer the exact collapsed Gibbs
chain); after every sweep the counts are again exactly those of the topics ``z``.

The blocks run under numba's ``prange``. Each block draws its own uniforms, one per
token in token order, from a generator of its own (numpy's ``Generator``, PCG64) seeded
for this sweep from the fit's generator (:func:`block_generators`: B seeds per sweep),
in its own thread: drawn by the fit's generator on one thread, the 2.2 million uniforms
of a 20NG sweep took about 5 ms, serial work beside a 2-thread sweep of about 45 ms. A
block's result depends only on the counts at the start of the sweep and on its
generator, so the labels depend on B and the seed, not on how many threads actually ran
or in which order.
"""

import numpy as np
from numba import njit, prange

from shortclust.models.lda._kernels import gibbs_sweep


def block_generators(rng, n_blocks):
    """This sweep's generator of each block: PCG64 seeded by B draws of the fit's ``rng``."""
    seeds = rng.integers(0, 2**63, size=n_blocks)
    return tuple(np.random.Generator(np.random.PCG64(int(seed))) for seed in seeds)


@njit(cache=True, parallel=True)
def ad_lda_sweep(token_ptr, words, bounds, z, n_dk, n_wk, n_k, alpha, beta, v_beta,
                 generators, uniforms, local_wk, local_k, weights, coef):
    """One AD-LDA sweep over the blocks ``bounds[b]..bounds[b+1]-1``; tokens moved.

    IN: ``token_ptr``, ``words``, ``bounds`` (B + 1 document offsets), ``alpha``, ``beta``,
    ``v_beta``, ``generators`` (B numpy Generators: block b's uniforms, one per token of
    the block in token order, are ``generators[b].random()`` drawn one after another).
    IN/OUT: ``z``, ``n_dk``, ``n_wk``, ``n_k``, ``generators`` (advanced). OUT:
    ``uniforms`` (one per token of the corpus: the draws made). Scratch, from
    :func:`~shortclust.models.common.threads.block_scratch` (block b's part is
    ``[b, :V]`` or ``[b, :K]``, apart from the other blocks' cache lines): ``local_wk``
    (B, V, K), ``local_k``, ``weights`` and ``coef`` (B, K).
    """
    n_blocks = bounds.shape[0] - 1
    n_words, n_topics = n_wk.shape
    moved = np.zeros(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        block_wk = local_wk[b, :n_words]
        block_k = local_k[b, :n_topics]
        block_wk[:, :] = n_wk
        block_k[:] = n_k
        first, last = bounds[b], bounds[b + 1]
        if first < last:
            generator = generators[b]
            block_uniforms = uniforms[token_ptr[first]:token_ptr[last]]
            for i in range(block_uniforms.shape[0]):
                block_uniforms[i] = generator.random()
            moved[b] = gibbs_sweep(token_ptr, words, first, last, z, n_dk, block_wk,
                                   block_k, alpha, beta, v_beta, block_uniforms,
                                   weights[b], coef[b])
    for w in prange(n_words):
        for k in range(n_topics):
            value = n_wk[w, k]
            total = value
            for b in range(n_blocks):
                total += local_wk[b, w, k] - value
            n_wk[w, k] = total
    for k in range(n_topics):
        value = n_k[k]
        total = value
        for b in range(n_blocks):
            total += local_k[b, k] - value
        n_k[k] = total
    return moved.sum()
