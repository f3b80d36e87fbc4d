"""GSDMM: compiled kernel against the slow reference, invariants, API and real data."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from sklearn.base import clone
from sklearn.metrics import normalized_mutual_info_score

from tests.naive import gsdmm as naive
from shortclust.errors import ParameterError
from shortclust.models.dmm import _gsdmm_kernels as kernels
from shortclust.models.dmm.gsdmm import GSDMM


def planted_corpus(n_docs=80, n_topics=4, words_per_topic=12, seed=0, max_len=8):
    """Documents drawn from disjoint topic vocabularies, with repeats and one empty row."""
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, n_topics, size=n_docs)
    rows = np.zeros((n_docs, n_topics * words_per_topic), dtype=np.int64)
    for d, t in enumerate(topics):
        for _ in range(rng.integers(1, max_len + 1)):
            rows[d, t * words_per_topic + rng.integers(0, words_per_topic)] += 1
    rows[n_docs // 2] = 0  # an empty document, as in GoogleNews-T
    return sp.csr_matrix(rows), topics


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("binary", [False, True])
def test_kernel_matches_reference(seed, binary):
    X, _ = planted_corpus(seed=seed)
    model = GSDMM(n_clusters=10, alpha=0.1, beta=0.1, max_iter=5, random_state=seed,
                  likelihood="eq3" if binary else "eq4").fit(X)
    expected = naive.gsdmm_fit(X, 10, 0.1, 0.1, 5, seed, binary=binary)
    np.testing.assert_array_equal(model.labels_, expected)


@pytest.mark.kernels
def test_kernel_matches_reference_with_long_documents():
    # 300-token documents cross many rescaling blocks; plain products would underflow.
    X, _ = planted_corpus(n_docs=30, words_per_topic=40, seed=3, max_len=300)
    model = GSDMM(n_clusters=6, alpha=0.5, beta=0.05, max_iter=4, random_state=7).fit(X)
    np.testing.assert_array_equal(model.labels_, naive.gsdmm_fit(X, 6, 0.5, 0.05, 4, 7))


@pytest.mark.kernels
def test_kernel_matches_reference_when_all_clusters_are_used():
    # K smaller than the number of topics: no empty slot is ever available.
    X, _ = planted_corpus(seed=4)
    model = GSDMM(n_clusters=2, max_iter=3, random_state=1).fit(X)
    np.testing.assert_array_equal(model.labels_, naive.gsdmm_fit(X, 2, 0.1, 0.1, 3, 1))


def widths_seen(monkeypatch):
    """Record ``(old width, new width)`` of every resize of the sampler's ``n_wz``."""
    from shortclust.models.dmm import gsdmm as module

    seen = []
    resize = module._SamplerState._resize

    def spy(state, width):
        seen.append((state.stats[2].shape[1], width))
        resize(state, width)

    monkeypatch.setattr(module._SamplerState, "_resize", spy)
    return seen


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counts_narrowed_to_the_occupied_clusters_give_the_reference_labels(seed, monkeypatch):
    # K = 120 for 12 topics: after the first sweep about 50 clusters are occupied, and
    # n_wz keeps about half of its 120 columns; the empty clusters still count K - n_active.
    seen = widths_seen(monkeypatch)
    X, _ = planted_corpus(n_docs=150, n_topics=12, seed=seed)
    model = GSDMM(n_clusters=120, alpha=1.0, beta=0.02, max_iter=6, random_state=seed).fit(X)
    assert any(new < old for old, new in seen)
    np.testing.assert_array_equal(model.labels_,
                                  naive.gsdmm_fit(X, 120, 1.0, 0.02, 6, seed))


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1])
def test_counts_widened_within_a_sweep_give_the_reference_labels(seed, monkeypatch):
    # No room beyond the occupied clusters: the sweep stops at every document that could
    # open a cluster, n_wz gains a column, and the sweep resumes there.
    from shortclust.models.dmm import gsdmm as module

    monkeypatch.setattr(module, "_room", lambda n_active, n_slots: min(n_slots, n_active + 1))
    seen = widths_seen(monkeypatch)
    X, _ = planted_corpus(n_docs=150, n_topics=12, seed=seed)
    model = GSDMM(n_clusters=120, alpha=1.0, beta=0.02, max_iter=6, random_state=seed).fit(X)
    assert sum(new > old for old, new in seen) > 5
    np.testing.assert_array_equal(model.labels_,
                                  naive.gsdmm_fit(X, 120, 1.0, 0.02, 6, seed))


def test_counts_keep_all_columns_with_threads(monkeypatch):
    # The parallel sweep's block copies take the counts' width: with threads, the counts
    # are never narrowed, in the sequential first sweep either.
    seen = widths_seen(monkeypatch)
    X, _ = planted_corpus(n_docs=150, n_topics=12, seed=0)
    GSDMM(n_clusters=120, alpha=1.0, beta=0.02, max_iter=4, threads=2, random_state=0).fit(X)
    assert seen == []


@pytest.mark.kernels
def test_narrowed_counts_stay_those_of_the_labels(monkeypatch):
    from shortclust.models.dmm import gsdmm as module

    monkeypatch.setattr(module, "_room", lambda n_active, n_slots: min(n_slots, n_active + 2))
    X, _ = planted_corpus(n_docs=150, n_topics=12, seed=3)
    rng = np.random.default_rng(0)
    state = module._SamplerState.initial(X.astype(np.int32), 120, 1.0, 0.02, rng)
    widths = []
    for _ in range(4):
        state.sweep(rng)
        m_z, n_z, n_wz = state.stats
        widths.append(n_wz.shape[1])
        full = (np.zeros_like(m_z), np.zeros_like(n_z), np.zeros((X.shape[1], 120), n_wz.dtype))
        kernels.build_counts(state.docs, state.z, full)
        np.testing.assert_array_equal(m_z, full[0])
        np.testing.assert_array_equal(n_z, full[1])
        np.testing.assert_array_equal(n_wz, full[2][:, :n_wz.shape[1]])
        assert not full[2][:, n_wz.shape[1]:].any()
    assert min(widths) < 120


@pytest.mark.kernels
@pytest.mark.parametrize("by_docs", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_compact_clusters_is_a_relabelling_to_the_leading_slots(seed, by_docs):
    """Against counts rebuilt from scratch after relabelling ``z`` in numpy: the kernel
    moves only the slots between the first empty one and the last non-empty one; the
    variant given the documents moves their counts instead, to the same result."""
    rng = np.random.default_rng(seed)
    n_docs, n_words, n_slots = 60, 30, 25
    X = sp.csr_matrix(rng.poisson(0.3, size=(n_docs, n_words)))
    used = rng.choice(n_slots, size=rng.integers(1, n_slots), replace=False)
    if seed == 0:
        used = np.arange(5)  # compact already: nothing moves
    z = rng.choice(used, size=n_docs).astype(np.int32)
    docs = (X.indptr, X.indices, X.data, np.asarray(X.sum(axis=1)).ravel())
    dtype = np.uint16 if seed % 2 else np.int32  # unsigned, as most corpora's counts
    stats = (np.zeros(n_slots), np.zeros(n_slots), np.zeros((n_words, n_slots), dtype))
    kernels.build_counts(docs, z, stats)
    order = np.unique(z)
    expected_z = np.searchsorted(order, z)
    expected = (np.zeros(n_slots), np.zeros(n_slots), np.zeros((n_words, n_slots), dtype))
    kernels.build_counts(docs, expected_z.astype(np.int32), expected)
    if by_docs:
        assert kernels.compact_clusters_of_docs(docs, z, stats) == order.size
    else:
        assert kernels.compact_clusters(z, stats) == order.size
    np.testing.assert_array_equal(z, expected_z)
    for got, want in zip(stats, expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_top_columns_are_a_stable_argsort_of_each_rows_weights(seed):
    # What top_words ranks by: Eq. 9's phi, increasing in the count; ties by column.
    from shortclust.models.dmm._common import _top_columns

    rng = np.random.default_rng(seed)
    counts = rng.poisson(0.4, size=(12, 40)).astype(np.int32)
    counts[3] = 0  # a cluster holding no word: the first columns
    counts[5, :2] = 1  # fewer held words than asked
    counts[5, 2:] = 0
    tops = _top_columns(counts, 6)
    for row, top in zip(counts, tops):
        phi = (row + 0.1) / (row.sum() + 40 * 0.1)
        np.testing.assert_array_equal(top, np.argsort(-phi, kind="stable")[:6])


@pytest.mark.parametrize("n", [0, 3, 10, 500])
def test_top_words_weights_are_eq9_cluster_by_cluster(n):
    # All clusters' weights at once must be the same numbers as each row's own division.
    from shortclust.models.dmm._common import _top_columns

    X, _ = planted_corpus(seed=4)
    model = GSDMM(n_clusters=8, max_iter=4, random_state=0).fit(X)
    counts = model.cluster_word_counts_
    expected = []
    for row, top in zip(counts, _top_columns(counts, n)):
        phi = (row[top] + model.beta) / (row.sum() + X.shape[1] * model.beta)
        expected.append(list(zip(top.tolist(), phi.tolist())))
    assert model.top_words(n, vocabulary=None) == [
        [(int(w), weight) for w, weight in cluster] for cluster in expected]
    assert all(len(cluster) == min(n, X.shape[1]) for cluster in expected)


def random_cluster_state(rng, n_words=50, n_active=7):
    """Counts of a few clusters, one of them holding none of the words."""
    n_wz = rng.integers(0, 5000, size=(n_words, n_active)).astype(np.int32)
    n_wz[:, 3] = 0
    n_wz[rng.random(n_wz.shape) < 0.5] = 0  # sparse rows, as in real data
    n_z = n_wz.sum(axis=0).astype(np.float64) + rng.integers(0, 10**6, size=n_active)
    m_z = rng.integers(1, 10**4, size=n_active).astype(np.float64)
    return m_z, n_z, n_wz


def kernel_probabilities(doc, m_z, n_z, n_wz, beta, n_slots):
    """Normalised Eq. 4 probabilities from one of the kernel's weight functions."""
    n_active = len(m_z)
    words = np.flatnonzero(doc).astype(np.int32)
    docs = (np.array([0, len(words)], dtype=np.int64), words, doc[words].astype(np.int32),
            np.array([doc.sum()], dtype=np.int64))
    v_beta = n_wz.shape[0] * beta
    inv_den, empty_inv_den = np.empty((kernels._BLOCK + 1, n_active)), np.empty((kernels._BLOCK + 1, 1))
    kernels.refresh_all_inv_den(inv_den, n_z, v_beta)
    kernels.refresh_inv_den(empty_inv_den, 0, 0.0, v_beta)
    cache = (inv_den, empty_inv_den[:, 0].copy())
    stats = (m_z, n_z, n_wz)
    num, den = np.empty(n_slots), np.empty(n_slots)
    empty = kernels._eq4_weights(0, docs, stats, cache, 0.1, beta, v_beta, n_active, num, den)
    weights = np.append(num[:n_active], empty * (n_slots - n_active))
    return weights / weights.sum()


def reference_probabilities(doc, m_z, n_z, n_wz, beta, n_slots):
    pairs = [(int(w), int(doc[w])) for w in np.flatnonzero(doc)]
    n_words, n_active = n_wz.shape
    log_w = [naive.gsdmm_log_weight(pairs, m_z[k], n_z[k], dict(enumerate(n_wz[:, k])),
                                    0.1, beta, n_words) for k in range(n_active)]
    log_w.append(naive.gsdmm_log_weight(pairs, 0, 0, {}, 0.1, beta, n_words)
                 + math.log(n_slots - n_active))
    expected = np.exp(np.array(log_w) - max(log_w))
    return expected / expected.sum()


@pytest.mark.kernels
@pytest.mark.parametrize("length", [1, 15, 16, 17, 60, 400, 2000])
def test_weights_equal_eq4_at_any_length(length):
    rng = np.random.default_rng(length)
    m_z, n_z, n_wz = random_cluster_state(rng)
    doc = np.bincount(rng.integers(0, n_wz.shape[0], size=length), minlength=n_wz.shape[0])
    got = kernel_probabilities(doc, m_z, n_z, n_wz, 0.1, 10)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, reference_probabilities(doc, m_z, n_z, n_wz, 0.1, 10),
                               rtol=1e-9, atol=1e-300)


@pytest.mark.kernels
@pytest.mark.parametrize("length", [0, 1, 2, 8, 16])
@pytest.mark.parametrize("beta", [0.1, 0.001])
def test_weights_equal_eq4_with_repeated_words(length, beta):
    rng = np.random.default_rng(length + 100)
    m_z, n_z, n_wz = random_cluster_state(rng, n_words=12)  # few words: repeats in a doc
    doc = np.bincount(rng.integers(0, n_wz.shape[0], size=length), minlength=n_wz.shape[0])
    got = kernel_probabilities(doc, m_z, n_z, n_wz, beta, 10)
    np.testing.assert_allclose(got, reference_probabilities(doc, m_z, n_z, n_wz, beta, 10),
                               rtol=1e-9, atol=1e-300)


@pytest.mark.kernels
@pytest.mark.parametrize("loner_length", [16, 40])
def test_extreme_beta_falls_back_to_logs_and_matches_the_reference(loner_length):
    # With beta = 1e-30 a document's products underflow to 0 in every cluster where it
    # has no words. The last documents' words occur nowhere else, so once removed from
    # its cluster every weight underflows; logs still rank the clusters. Past 16 tokens
    # the underflow happens inside the blocked rescaling, which must not divide by zero.
    X, _ = planted_corpus(n_docs=40, seed=15)
    loners = sp.csr_matrix(np.kron(np.eye(3, dtype=np.int64),
                                   np.ones((1, loner_length), dtype=np.int64)))
    X = sp.vstack([sp.hstack([X, sp.csr_matrix((40, 3 * loner_length), dtype=np.int64)]),
                   sp.hstack([sp.csr_matrix((3, X.shape[1]), dtype=np.int64), loners])]).tocsr()
    for seed in range(4):
        model = GSDMM(n_clusters=12, beta=1e-30, max_iter=3, random_state=seed).fit(X)
        np.testing.assert_array_equal(model.labels_, naive.gsdmm_fit(X, 12, 0.1, 1e-30, 3, seed))


@pytest.mark.kernels
def test_log_space_weights_equal_eq4():
    rng = np.random.default_rng(16)
    m_z, n_z, n_wz = random_cluster_state(rng)
    doc = np.bincount(rng.integers(0, n_wz.shape[0], size=30), minlength=n_wz.shape[0])
    words = np.flatnonzero(doc).astype(np.int32)
    docs = (np.array([0, len(words)], dtype=np.int64), words, doc[words].astype(np.int32),
            np.array([doc.sum()], dtype=np.int64))
    num = np.empty(len(m_z))
    empty = kernels._log_space_weights(0, docs, (m_z, n_z, n_wz), 0.1, 0.1,
                                       n_wz.shape[0] * 0.1, len(m_z), num)
    got = np.append(num, empty * 3)
    np.testing.assert_allclose(got / got.sum(),
                               reference_probabilities(doc, m_z, n_z, n_wz, 0.1, len(m_z) + 3),
                               rtol=1e-9)


@pytest.mark.kernels
def test_choose_follows_the_cumulative_weights():
    weights, scratch = np.array([1.0, 0.0, 3.0]), np.empty(4)
    assert kernels._choose(weights, 3, 0.0, 0.0, scratch) == 0
    assert kernels._choose(weights, 3, 0.0, 0.24, scratch) == 0
    assert kernels._choose(weights, 3, 0.0, 0.26, scratch) == 2
    assert kernels._choose(weights, 3, 4.0, 0.6, scratch) == 3  # the empty-cluster slot
    assert kernels._choose(np.zeros(3), 3, 0.0, 0.5, scratch) == -1


@pytest.mark.kernels
@pytest.mark.parametrize("n_active", [1, 7, 8, 9, 64, 301])
def test_chunked_choose_equals_a_plain_cumulative_search(n_active):
    rng = np.random.default_rng(n_active)
    weights = rng.random(n_active) ** 4
    weights[rng.random(n_active) < 0.3] = 0.0
    scratch = np.empty(n_active)
    for u in rng.random(200):
        tail = 0.5 if u < 0.5 else 0.0
        cumulative = np.cumsum(np.append(weights, tail))
        expected = int(np.searchsorted(cumulative, u * cumulative[-1], side="right"))
        assert kernels._choose(weights, n_active, tail, u, scratch) == expected


@pytest.mark.kernels
def test_sweep_keeps_counts_and_cache_consistent():
    from shortclust.models.dmm.gsdmm import _SamplerState

    X, _ = planted_corpus(seed=5)
    rng = np.random.default_rng(0)
    state = _SamplerState.initial(X.astype(np.int32), 12, 0.1, 0.1, rng)
    for _ in range(3):
        state.sweep(rng)
        m_z, n_z, n_wz = state.stats
        fresh = (np.zeros_like(m_z), np.zeros_like(n_z), np.zeros_like(n_wz))
        kernels.build_counts(state.docs, state.z, fresh)
        for kept, rebuilt in zip(state.stats, fresh):
            np.testing.assert_array_equal(kept, rebuilt)
        cached = state.inv_den.copy()
        kernels.refresh_all_inv_den(state.inv_den, n_z, X.shape[1] * 0.1)
        np.testing.assert_array_equal(cached, state.inv_den)  # the cache tracked every move


def test_fitted_counts_add_up():
    X, _ = planted_corpus(seed=6)
    model = GSDMM(n_clusters=20, max_iter=5, random_state=0).fit(X)
    assert model.cluster_sizes_.sum() == X.shape[0]
    assert np.all(model.cluster_sizes_ > 0)
    assert model.n_clusters_ == len(np.unique(model.labels_)) == model.n_clusters_history_[-1]
    np.testing.assert_array_equal(model.cluster_word_counts_.sum(axis=0),
                                  np.asarray(X.sum(axis=0)).ravel())
    assert set(model.labels_) == set(range(model.n_clusters_))
    assert model.n_iter_ == 5 and len(model.n_moved_history_) == 5


def test_recovers_planted_topics():
    X, topics = planted_corpus(n_docs=200, seed=8)
    labels = GSDMM(n_clusters=20, alpha=0.1, beta=0.05, max_iter=15, random_state=0).fit_predict(X)
    keep = np.asarray(X.sum(axis=1)).ravel() > 0
    assert normalized_mutual_info_score(topics[keep], labels[keep]) > 0.9


def test_same_seed_same_labels_and_different_seed_differs():
    X, _ = planted_corpus(seed=9)
    first = GSDMM(n_clusters=10, max_iter=3, random_state=42).fit_predict(X)
    again = GSDMM(n_clusters=10, max_iter=3, random_state=42).fit_predict(X)
    other = GSDMM(n_clusters=10, max_iter=1, random_state=43).fit_predict(X)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_callback_reports_each_iteration():
    X, _ = planted_corpus(seed=1)
    seen = []
    GSDMM(n_clusters=5, max_iter=4, random_state=0).fit(X, callback=lambda *a: seen.append(a))
    assert [s[0] for s in seen] == [1, 2, 3, 4] and all(s[1] == 4 for s in seen)


@pytest.mark.parametrize("params, name", [
    ({"alpha": -0.1}, "alpha"), ({"beta": 0.0}, "beta"), ({"n_clusters": 0}, "n_clusters"),
    ({"max_iter": 0}, "max_iter"), ({"n_clusters": 2.5}, "n_clusters"),
    ({"likelihood": "eq5"}, "likelihood"), ({"alpha": float("nan")}, "alpha"),
])
def test_out_of_range_parameters_are_named(params, name):
    X, _ = planted_corpus()
    with pytest.raises(ParameterError, match=name):
        GSDMM(**params).fit(X)


def test_rejects_negative_or_fractional_counts():
    with pytest.raises(ParameterError, match="non-negative integer"):
        GSDMM().fit(sp.csr_matrix([[1.5, 0.0]]))


def test_alpha_zero_and_a_single_document_are_handled():
    X = sp.csr_matrix([[1, 2, 0]])
    model = GSDMM(n_clusters=3, alpha=0.0, max_iter=3, random_state=0).fit(X)
    assert model.labels_.tolist() == [0] and model.n_clusters_ == 1


def test_all_empty_documents_are_placed():
    model = GSDMM(n_clusters=4, max_iter=2, random_state=0).fit(sp.csr_matrix((5, 3), dtype=int))
    assert model.labels_.shape == (5,) and model.n_clusters_ >= 1


def test_clone_and_params_follow_scikit_learn():
    model = GSDMM(n_clusters=7, alpha=0.2)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert copy.set_params(beta=0.3).beta == 0.3


@pytest.mark.kernels
def test_predict_proba_is_the_naive_bayes_form_of_eq4():
    X, _ = planted_corpus(seed=10)
    model = GSDMM(n_clusters=10, max_iter=5, random_state=0).fit(X)
    new, _ = planted_corpus(n_docs=12, seed=11)
    log_p = naive.gsdmm_log_posterior(new, model.cluster_sizes_, model.cluster_word_counts_,
                                      model.alpha, model.beta)
    expected = np.exp(log_p - log_p.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(new), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.predict(new), expected.argmax(axis=1))


@njit
def _dense_log_posterior(doc_ptr, doc_words, doc_counts, m_z, n_z, n_zw, alpha, beta, v_beta,
                         out):
    """log_posterior's sums as it computed them before it listed each word's holders: every
    cluster tested for every word (compiled like the kernel, so that both take the same log;
    interpreted, both take numpy's)."""
    n_docs, n_clusters = out.shape
    for d in range(n_docs):
        length = 0
        for idx in range(doc_ptr[d], doc_ptr[d + 1]):
            length += doc_counts[idx]
        for k in range(n_clusters):
            out[d, k] = np.log(m_z[k] + alpha)
        absent = 0.0
        for idx in range(doc_ptr[d], doc_ptr[d + 1]):
            count = doc_counts[idx]
            term = 0.0
            for j in range(count):
                term += np.log(beta + j)
            absent += term
            for k in range(n_clusters):
                if n_zw[k, doc_words[idx]] != 0:
                    held = 0.0
                    for j in range(count):
                        held += np.log(n_zw[k, doc_words[idx]] + beta + j)
                    out[d, k] += held - term
        for k in range(n_clusters):
            out[d, k] += absent - (math.lgamma(n_z[k] + v_beta + length)
                                   - math.lgamma(n_z[k] + v_beta))


@pytest.mark.kernels
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("seed", [0, 1])
def test_log_posterior_equals_the_dense_pass_bit_for_bit(dtype, seed):
    """Visiting only the clusters that hold a word adds the same terms in the same order."""
    rng = np.random.default_rng(seed)
    X, _ = planted_corpus(n_docs=60, seed=seed)
    n_zw = rng.integers(0, 4, size=(9, X.shape[1])).astype(dtype)
    n_zw[rng.random(n_zw.shape) < 0.6] = 0  # most words absent from most clusters
    n_zw[3] = 0  # a cluster holding no word
    n_zw[:, 5] = 0  # a word no cluster holds
    n_zw[0, 7] = 40_000  # a count beyond 16 bits
    m_z = rng.integers(0, 20, size=9).astype(np.float64)
    n_z = n_zw.sum(axis=1).astype(np.float64)
    args = (X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data.astype(np.int32),
            m_z, n_z, n_zw, 0.1, 0.05, X.shape[1] * 0.05)
    got, expected = np.empty((60, 9)), np.empty((60, 9))
    kernels.log_posterior(*args, got)
    _dense_log_posterior(*args, expected)
    # The kernel's log-gamma differences come from a table per length: same values.
    np.testing.assert_array_equal(got, expected)
    assert (X.data > 1).any() and (np.diff(X.indptr) == 0).any()


def test_predict_agrees_with_training_labels_on_clear_topics():
    X, _ = planted_corpus(n_docs=200, seed=12)
    model = GSDMM(n_clusters=20, beta=0.05, max_iter=10, random_state=0).fit(X)
    keep = np.asarray(X.sum(axis=1)).ravel() > 0
    agreement = np.mean(model.predict(X)[keep] == model.labels_[keep])
    assert agreement > 0.9


def test_predict_rejects_a_different_vocabulary():
    X, _ = planted_corpus()
    model = GSDMM(n_clusters=4, max_iter=1, random_state=0).fit(X)
    with pytest.raises(ParameterError, match="word columns"):
        model.predict(sp.csr_matrix((2, X.shape[1] + 1), dtype=int))


def test_top_words_follow_eq9():
    X, _ = planted_corpus(seed=13)
    model = GSDMM(n_clusters=8, max_iter=5, random_state=0).fit(X)
    vocabulary = [f"w{i}" for i in range(X.shape[1])]
    tops = model.top_words(3, vocabulary=vocabulary)
    assert len(tops) == model.n_clusters_
    counts = model.cluster_word_counts_
    for k, top in enumerate(tops):
        weights = [w for _, w in top]
        assert weights == sorted(weights, reverse=True)
        best = int(np.argmax(counts[k]))
        phi = (counts[k, best] + model.beta) / (counts[k].sum() + X.shape[1] * model.beta)
        assert top[0] == (vocabulary[best], pytest.approx(phi))



def test_top_words_rank_like_a_full_stable_sort_of_phi():
    """Small clusters hold fewer words than asked: the rest tie at beta's share, in column
    order, exactly as a stable sort of every word's Eq. 9 weight lists them."""
    X, _ = planted_corpus(seed=5)
    model = GSDMM(n_clusters=12, max_iter=3, random_state=1).fit(X)
    counts = model.cluster_word_counts_
    phi = (counts + model.beta) / (counts.sum(axis=1, keepdims=True)
                                   + X.shape[1] * model.beta)
    n = int((counts > 0).sum(axis=1).min()) + 3  # more than the smallest cluster holds
    for top, row in zip(model.top_words(n), phi):
        expected = np.argsort(-row, kind="stable")[:n]
        assert [word for word, _ in top] == expected.tolist()
        assert [weight for _, weight in top] == row[expected].tolist()

def load_real(data_dir, name):
    from shortclust.data import load_corpus

    return load_corpus(name, data_dir=data_dir)


def test_googlenews_t_reaches_the_papers_quality(data_dir):
    corpus = load_real(data_dir, "GoogleNews-T")
    scores = [normalized_mutual_info_score(
        corpus.labels, GSDMM(n_clusters=300, max_iter=10, random_state=s).fit_predict(corpus))
        for s in range(3)]
    # Table 2 reports 0.874 +- 0.007 with K=500 and 30 iterations; 10 iterations at K=300
    # already come close, and the full setting is checked by the run in the issue notes.
    assert np.mean(scores) > 0.85


@pytest.mark.slow
def test_long_documents_of_20ng_stay_finite(data_dir):
    corpus = load_real(data_dir, "20NG-bydate")
    model = GSDMM(n_clusters=40, max_iter=2, random_state=0).fit(corpus)
    assert model.n_clusters_ >= 2
    assert np.all(np.isfinite(model.predict_proba(corpus.counts[:50])))
