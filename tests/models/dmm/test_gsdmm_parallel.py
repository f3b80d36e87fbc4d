"""GSDMM's parallel sweep (``GSDMM(threads=B)``) against its slow reference, and its contract."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from shortclust.errors import ParameterError
from shortclust.models.dmm import _gsdmm_kernels as kernels
from shortclust.models.dmm.gsdmm import GSDMM, _SamplerState
from tests.models.dmm.test_gsdmm import planted_corpus
from tests.naive import gsdmm as naive

# (seed, K, blocks, alpha): K = 6 with 3 blocks and alpha = 2 makes the blocks open more
# clusters than there are free slots at seed 2, so the send-back path is compared too.
CASES = [(0, 10, 2, 0.1), (1, 10, 3, 1.0), (2, 6, 3, 2.0), (3, 12, 3, 0.5), (0, 2, 2, 0.1),
         (1, 8, 4, 5.0)]


@pytest.mark.kernels
def test_parallel_sweep_matches_the_reference():
    totals = {"kept": 0, "reverted": 0}
    for seed, n_clusters, blocks, alpha in CASES:
        X, _ = planted_corpus(seed=seed)
        model = GSDMM(n_clusters=n_clusters, alpha=alpha, beta=0.1, max_iter=6,
                      threads=blocks, random_state=seed).fit(X)
        events = {}
        expected = naive.gsdmm_parallel_fit(X, n_clusters, alpha, 0.1, 6, seed, blocks,
                                            events=events)
        np.testing.assert_array_equal(model.labels_, expected)
        for key in totals:
            totals[key] += events[key]
    # Both ways a new cluster can end were reached: kept in a free slot, and sent back.
    assert totals["kept"] > 0 and totals["reverted"] > 0


@pytest.mark.kernels
def test_first_sweep_from_the_random_start_is_the_sequential_one():
    # Version 2: one sweep with threads=B is the exact sweep; with more, the reference of
    # the new semantics (first sweep sequential) holds and that of version 1 (every sweep
    # in blocks) does not, so the comparison above could fail on the first sweep.
    differs = 0
    for seed, n_clusters, blocks, alpha in CASES:
        X, _ = planted_corpus(seed=seed)
        one_sweep = GSDMM(n_clusters=n_clusters, alpha=alpha, beta=0.1, max_iter=1,
                          threads=blocks, random_state=seed).fit(X)
        np.testing.assert_array_equal(one_sweep.labels_,
                                      naive.gsdmm_fit(X, n_clusters, alpha, 0.1, 1, seed))
        model = GSDMM(n_clusters=n_clusters, alpha=alpha, beta=0.1, max_iter=3,
                      threads=blocks, random_state=seed).fit(X)
        version_1 = naive.gsdmm_parallel_fit(X, n_clusters, alpha, 0.1, 3, seed, blocks,
                                             sequential_sweeps=0)
        differs += not np.array_equal(model.labels_, version_1)
    assert differs > 0


@pytest.mark.kernels
def test_parallel_sweep_matches_the_reference_with_long_documents_and_eq3():
    X, _ = planted_corpus(n_docs=40, words_per_topic=40, seed=3, max_len=300)
    model = GSDMM(n_clusters=8, alpha=0.5, beta=0.05, max_iter=4, threads=2,
                  random_state=7, likelihood="eq3").fit(X)
    expected = naive.gsdmm_parallel_fit(X, 8, 0.5, 0.05, 4, 7, 2, binary=True)
    np.testing.assert_array_equal(model.labels_, expected)


@pytest.mark.kernels
def test_parallel_sweep_keeps_the_counts_those_of_the_labels():
    X, _ = planted_corpus(seed=2)
    rng = np.random.default_rng(2)
    state = _SamplerState.initial(X, 6, 2.0, 0.1, rng)
    state.threads = 3
    for _ in range(6):
        state.compact()  # the sweep's own first step, so that labels compare
        moved_before = state.z.copy()
        n_moved = state.sweep(rng)
        assert n_moved == np.count_nonzero(moved_before != state.z)
        m_z, n_z, n_wz = state.stats
        fresh = (np.zeros_like(m_z), np.zeros_like(n_z), np.zeros_like(n_wz))
        kernels.build_counts(state.docs, state.z, fresh)
        for kept, rebuilt in zip(state.stats, fresh):
            np.testing.assert_array_equal(kept, rebuilt)
        assert state.z.max() < 6


def test_threads_one_is_the_sequential_kernel():
    X, _ = planted_corpus(seed=4)
    default = GSDMM(n_clusters=10, max_iter=4, random_state=3).fit(X)
    one = GSDMM(n_clusters=10, max_iter=4, threads=1, random_state=3).fit(X)
    np.testing.assert_array_equal(default.labels_, one.labels_)
    np.testing.assert_array_equal(default.labels_,
                                  naive.gsdmm_fit(X, 10, 0.1, 0.1, 4, 3))


def test_labels_do_not_depend_on_the_threads_that_ran(request):
    X, _ = planted_corpus(n_docs=150, seed=5)
    two = GSDMM(n_clusters=12, max_iter=5, threads=2, random_state=1).fit(X)

    request.getfixturevalue("blocks_in_one_thread")
    serial = GSDMM(n_clusters=12, max_iter=5, threads=2, random_state=1).fit(X)
    np.testing.assert_array_equal(two.labels_, serial.labels_)


def test_two_threads_recover_planted_topics_and_count_every_word():
    X, topics = planted_corpus(n_docs=200, seed=8)
    model = GSDMM(n_clusters=20, alpha=0.1, beta=0.05, max_iter=15, threads=2,
                  random_state=0).fit(X)
    keep = np.asarray(X.sum(axis=1)).ravel() > 0
    assert normalized_mutual_info_score(topics[keep], model.labels_[keep]) > 0.9
    assert model.cluster_sizes_.sum() == X.shape[0] and np.all(model.cluster_sizes_ > 0)
    np.testing.assert_array_equal(model.cluster_word_counts_.sum(axis=0),
                                  np.asarray(X.sum(axis=0)).ravel())


def test_partial_fit_batches_sweep_in_blocks_from_their_first_sweep():
    # A later batch starts from its classification, not at random: no sequential sweep.
    X, _ = planted_corpus(n_docs=120, seed=6)
    model = GSDMM(n_clusters=15, max_iter=5, threads=2, random_state=0).fit(X[:80])
    state = _SamplerState.resumed(X[80:], model)
    assert state.sequential_sweeps == 0
    assert _SamplerState.initial(X, 15, 0.1, 0.1, np.random.default_rng(0)).sequential_sweeps == 1


def test_partial_fit_with_threads_keeps_earlier_labels():
    X, _ = planted_corpus(n_docs=120, seed=6)
    model = GSDMM(n_clusters=15, max_iter=5, threads=2, random_state=0).fit(X[:80])
    before = model.labels_.copy()
    model.partial_fit(X[80:], n_iter=3)
    np.testing.assert_array_equal(model.labels_[:80], before)
    assert model.cluster_sizes_.sum() == 120
    np.testing.assert_array_equal(model.cluster_word_counts_.sum(axis=0),
                                  np.asarray(X.sum(axis=0)).ravel())


def test_more_blocks_than_documents():
    X = sp.csr_matrix([[1, 2, 0], [0, 1, 1]])
    model = GSDMM(n_clusters=3, max_iter=3, threads=4, random_state=0).fit(X)
    assert model.labels_.shape == (2,) and model.cluster_sizes_.sum() == 2


@pytest.mark.parametrize("threads", [0, 1.5, -2])
def test_threads_out_of_range_is_named(threads):
    X, _ = planted_corpus()
    with pytest.raises(ParameterError, match="threads"):
        GSDMM(threads=threads).fit(X)


def test_memory_bound_counts_the_block_copies():
    one = GSDMM.memory_bytes({"n_clusters": 100}, 1000, 5000)
    two = GSDMM.memory_bytes({"n_clusters": 100, "threads": 2}, 1000, 5000)
    assert two - one == 2 * 5000 * 100 * 2
