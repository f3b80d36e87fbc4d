"""AD-LDA sweeps (``LDA(threads=T)``) against a plain-Python emulation of the same scheme."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from shortclust.models.lda import _kernels as kernels
from shortclust.models.common.threads import CACHE_LINE, block_bounds, block_scratch
from shortclust.models.lda._state import GibbsState, Tokens
from shortclust.models.lda.lda import LDA


def _counts(seed=0, n_docs=90, n_words=40, topics=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, topics, n_docs)
    rows = []
    for t in truth:
        words = rng.choice(np.arange(t * 10, t * 10 + 14) % n_words, size=rng.integers(0, 9))
        rows.append(np.bincount(words, minlength=n_words))
    return sp.csr_matrix(np.array(rows)), truth


def _emulated_fit(counts, n_topics, alpha, beta, n_sweeps, threads, seed):
    """AD-LDA written out: each block swept against copies taken at the start of the
    sweep, one block after another, with uniforms from a PCG64 generator seeded by the
    sweep's b-th seed drawn from the fit's generator, the copies' changes then summed
    into the counts."""
    rng = np.random.default_rng(seed)
    state = GibbsState.initial(Tokens.from_counts(counts), counts.shape[1], n_topics, rng)
    tokens = state.tokens
    bounds = block_bounds(tokens.ptr, threads)
    for _ in range(n_sweeps):
        seeds = rng.integers(0, 2**63, size=threads)
        start_wk, start_k = state.n_wk.copy(), state.n_k.copy()
        delta_wk, delta_k = np.zeros_like(start_wk), np.zeros_like(start_k)
        for b in range(threads):
            first, last = bounds[b], bounds[b + 1]
            uniforms = np.random.default_rng(int(seeds[b])).random(
                int(tokens.ptr[last] - tokens.ptr[first]))
            wk, k = start_wk.copy(), start_k.copy()
            kernels.gibbs_sweep(tokens.ptr, tokens.words, first, last, state.z, state.n_dk,
                                wk, k, alpha, beta, counts.shape[1] * beta,
                                uniforms, np.empty(n_topics), np.empty(n_topics))
            delta_wk += wk - start_wk
            delta_k += k - start_k
        state.n_wk[...] = start_wk + delta_wk
        state.n_k[...] = start_k + delta_k
    return state


@pytest.mark.kernels
@pytest.mark.parametrize("threads", [2, 3])
def test_ad_lda_is_the_emulated_scheme(threads):
    counts, _ = _counts()
    model = LDA(n_clusters=3, alpha=0.5, beta=0.1, max_iter=6, threads=threads,
                random_state=4).fit(counts)
    state = _emulated_fit(counts, 3, 0.5, 0.1, 6, threads, 4)
    np.testing.assert_array_equal(model._state.z, state.z)
    np.testing.assert_array_equal(model._state.n_wk, state.n_wk)
    # After every sweep the counts are again those of the topics.
    rebuilt = GibbsState(model._state.tokens, model._state.z.copy(), counts.shape[1], 3)
    np.testing.assert_array_equal(model._state.n_wk, rebuilt.n_wk)
    np.testing.assert_array_equal(model._state.n_k, rebuilt.n_k)


def test_block_bounds_cover_every_document_once():
    ptr = np.array([0, 5, 5, 9, 20, 21, 30])
    for blocks in (1, 2, 4, 10):
        bounds = block_bounds(ptr, blocks)
        assert bounds[0] == 0 and bounds[-1] == 6 and np.all(np.diff(bounds) >= 0)
        assert bounds.size == blocks + 1


@pytest.mark.parametrize("shape, dtype", [((20,), np.float64), ((20,), np.int32),
                                          ((3,), np.uint16), ((17, 5), np.float64),
                                          ((40, 300), np.uint16), ((7, 1), np.int8)])
def test_block_scratch_keeps_blocks_a_cache_line_apart(shape, dtype):
    scratch = block_scratch(3, shape, dtype, fill=0)
    assert scratch.flags.c_contiguous and scratch.dtype == dtype
    assert scratch.shape[0] == 3 and scratch.shape[2:] == shape[1:]
    base = scratch.ctypes.data
    for b in range(2):
        part, following = scratch[b, :shape[0]], scratch[b + 1, :shape[0]]
        assert part.shape == shape and part.flags.c_contiguous and not part.any()
        end = part.ctypes.data - base + part.nbytes  # one past block b's last byte
        # At least a whole line between them: no line can hold bytes of both.
        assert following.ctypes.data - base - end >= CACHE_LINE


def test_threads_one_is_the_sequential_sweep_and_two_finds_the_topics():
    counts, truth = _counts(seed=3, n_docs=150)
    one = LDA(n_clusters=3, alpha=0.1, max_iter=40, random_state=1).fit(counts)
    same = LDA(n_clusters=3, alpha=0.1, max_iter=40, threads=1, random_state=1).fit(counts)
    np.testing.assert_array_equal(one.labels_, same.labels_)
    two = LDA(n_clusters=3, alpha=0.1, max_iter=40, threads=2, random_state=1).fit(counts)
    assert normalized_mutual_info_score(truth, one.labels_) > 0.6
    assert normalized_mutual_info_score(truth, two.labels_) > 0.6
