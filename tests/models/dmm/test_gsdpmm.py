"""GSDPMM: compiled kernel against the slow reference, invariants, API and real data."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import normalized_mutual_info_score

from tests.naive import gsdpmm as naive_gsdpmm
from shortclust.errors import ParameterError
from shortclust.models.dmm import _gsdmm_kernels as gsdmm_kernels
from shortclust.models.dmm import _gsdpmm_kernels as kernels
from shortclust.models.dmm.gsdpmm import GSDPMM, _SamplerState


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


def with_loners(X, n_loners, length):
    """X plus documents of ``length`` tokens whose words occur in no other document."""
    loners = sp.csr_matrix(np.kron(np.eye(n_loners, dtype=np.int64),
                                   np.ones((1, length), dtype=np.int64)))
    return sp.vstack([sp.hstack([X, sp.csr_matrix((X.shape[0], loners.shape[1]), dtype=np.int64)]),
                      sp.hstack([sp.csr_matrix((n_loners, X.shape[1]), dtype=np.int64), loners])]).tocsr()


def assert_matches_reference(X, alpha, beta, max_iter, seed):
    model = GSDPMM(alpha=alpha, beta=beta, max_iter=max_iter, random_state=seed).fit(X)
    expected = naive_gsdpmm.gsdpmm_fit(X, alpha, beta, max_iter, seed)
    np.testing.assert_array_equal(model.labels_, expected)
    return model


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha, beta", [(0.1, 0.1), (0.1, 0.02), (2.0, 0.01)])
def test_kernel_matches_reference(seed, alpha, beta):
    X, _ = planted_corpus(n_docs=100, seed=seed)
    assert_matches_reference(X, alpha, beta, 4, seed)


@pytest.mark.kernels
def test_kernel_matches_reference_with_long_documents():
    # Up to 300 tokens: many rescaling blocks, where plain products would underflow.
    X, _ = planted_corpus(n_docs=30, words_per_topic=40, seed=3, max_len=300)
    for alpha, seed in [(0.1, 7), (5.0, 8)]:
        assert_matches_reference(X, alpha, 0.05, 4, seed)


@pytest.mark.kernels
def test_kernel_matches_reference_when_the_slots_must_grow():
    # 150 documents with words of their own open more clusters than the 64 first slots.
    X, _ = planted_corpus(n_docs=40, seed=4)
    model = assert_matches_reference(with_loners(X, 150, 2), 0.5, 0.01, 3, 5)
    assert model.n_clusters_init_ > 64 and model.n_clusters_ > 64


@pytest.mark.kernels
@pytest.mark.parametrize("length", [16, 40])
def test_tiny_beta_falls_back_to_logs_and_matches_the_reference(length):
    # With beta = 1e-30 a loner's products underflow to 0 for every candidate, the new
    # cluster included; logs still rank them.
    X, _ = planted_corpus(n_docs=40, seed=15)
    X = with_loners(X, 3, length)
    for seed in range(3):
        assert_matches_reference(X, 0.1, 1e-30, 3, seed)


def random_cluster_state(rng, n_words=50, n_active=7):
    """Counts of a few clusters: one holds none of the words, one just emptied."""
    n_wz = rng.integers(0, 5000, size=(n_words, n_active)).astype(np.int32)
    n_wz[:, 3] = 0
    n_wz[rng.random(n_wz.shape) < 0.5] = 0  # sparse rows, as in real data
    n_z = n_wz.sum(axis=0).astype(np.float64) + rng.integers(0, 10**6, size=n_active)
    m_z = rng.integers(1, 10**4, size=n_active).astype(np.float64)
    n_wz[:, 5], n_z[5], m_z[5] = 0, 0.0, 0.0
    return m_z, n_z, n_wz


def kernel_probabilities(doc, stats, alpha_d, beta):
    """Normalised weights of the existing clusters and the new one, from the kernel."""
    m_z, n_z, n_wz = stats
    n_active = len(m_z)
    words = np.flatnonzero(doc).astype(np.int32)
    docs = (np.array([0, len(words)], dtype=np.int64), words, doc[words].astype(np.int32),
            np.array([doc.sum()], dtype=np.int64))
    v_beta = n_wz.shape[0] * beta
    inv_den = np.empty((gsdmm_kernels._BLOCK + 1, n_active + 1))
    gsdmm_kernels.refresh_all_inv_den(inv_den, np.append(n_z, 0.0), v_beta)
    cache = (inv_den[:, :n_active].copy(), inv_den[:, n_active].copy())
    num, den = np.empty(n_active), np.empty(n_active)
    new = kernels._dp_weights(0, docs, stats, cache, alpha_d, beta, v_beta, n_active, num, den)
    weights = np.append(num, new)
    return weights / weights.sum()


def reference_probabilities(doc, stats, alpha, beta, n_docs):
    m_z, n_z, n_wz = stats
    pairs = [(int(w), int(doc[w])) for w in np.flatnonzero(doc)]
    n_w = [dict(enumerate(n_wz[:, k])) for k in range(len(m_z))]
    log_w = naive_gsdpmm.gsdpmm_log_weights(pairs, m_z, n_z, n_w, alpha, beta, n_wz.shape[0],
                                            n_docs)
    # The reference's new-cluster weight is the formula written out.
    assert log_w[-1] == pytest.approx(
        naive_gsdpmm.new_cluster_log_weight(pairs, alpha, beta, n_wz.shape[0], n_docs))
    expected = np.exp(np.array(log_w) - max(log_w))
    return expected / expected.sum()


@pytest.mark.kernels
@pytest.mark.parametrize("length", [0, 1, 15, 16, 17, 60, 400, 2000])
@pytest.mark.parametrize("beta", [0.1, 0.001])
def test_weights_follow_the_dp_conditionals_at_any_length(length, beta):
    rng = np.random.default_rng(length)
    stats = random_cluster_state(rng, n_words=12 if length < 20 else 50)  # repeats when short
    doc = np.bincount(rng.integers(0, stats[2].shape[0], size=length), minlength=stats[2].shape[0])
    got = kernel_probabilities(doc, stats, 0.1 * 1000, beta)
    assert np.all(np.isfinite(got)) and got[5] == 0.0  # an emptied slot weighs nothing
    np.testing.assert_allclose(got, reference_probabilities(doc, stats, 0.1, beta, 1000),
                               rtol=1e-9, atol=1e-300)


@pytest.mark.kernels
def test_log_space_weights_follow_the_dp_conditionals():
    rng = np.random.default_rng(16)
    m_z, n_z, n_wz = stats = random_cluster_state(rng)
    doc = np.bincount(rng.integers(0, n_wz.shape[0], size=30), minlength=n_wz.shape[0])
    words = np.flatnonzero(doc).astype(np.int32)
    docs = (np.array([0, len(words)], dtype=np.int64), words, doc[words].astype(np.int32),
            np.array([doc.sum()], dtype=np.int64))
    num = np.empty(len(m_z))
    new = kernels._log_space_dp_weights(0, docs, stats, 0.1 * 1000, 0.1, n_wz.shape[0] * 0.1,
                                        len(m_z), num)
    got = np.append(num, new)
    np.testing.assert_allclose(got / got.sum(), reference_probabilities(doc, stats, 0.1, 0.1, 1000),
                               rtol=1e-9)


@pytest.mark.kernels
def test_free_slot_reuses_the_first_emptied_cluster():
    assert kernels._free_slot(np.array([3.0, 0.0, 1.0, 0.0]), 4) == 1
    assert kernels._free_slot(np.array([3.0, 2.0, 1.0, 0.0]), 3) == 3


@pytest.mark.kernels
def test_sweeps_keep_counts_and_cache_consistent():
    X, _ = planted_corpus(seed=5)
    X = with_loners(X, 70, 1).astype(np.int32)  # forces the slots to grow
    state = _SamplerState(X, 0.3, 0.05)
    rng = np.random.default_rng(0)
    for _ in range(3):
        state.sweep(rng)
        m_z, n_z, n_wz = state.stats
        fresh = (np.zeros_like(m_z), np.zeros_like(n_z), np.zeros_like(n_wz))
        gsdmm_kernels.build_counts(state.docs, state.z, fresh)
        for kept, rebuilt in zip(state.stats, fresh):
            np.testing.assert_array_equal(kept, rebuilt)
        cached = state.inv_den.copy()
        gsdmm_kernels.refresh_all_inv_den(state.inv_den, n_z, X.shape[1] * 0.05)
        np.testing.assert_array_equal(cached, state.inv_den)  # the cache tracked every move
    assert m_z.shape[0] > 64 and np.all(state.z >= 0)


def test_fitted_counts_add_up():
    X, _ = planted_corpus(seed=6)
    model = GSDPMM(max_iter=5, random_state=0).fit(X)
    assert model.cluster_sizes_.sum() == X.shape[0]
    assert np.all(model.cluster_sizes_ > 0)
    assert model.n_clusters_ == len(np.unique(model.labels_)) == model.n_clusters_history_[-1]
    np.testing.assert_array_equal(model.cluster_word_counts_.sum(axis=0),
                                  np.asarray(X.sum(axis=0)).ravel())
    assert set(model.labels_) == set(range(model.n_clusters_))
    assert model.n_iter_ == 5 and len(model.n_moved_history_) == 5


def test_recovers_planted_topics_without_being_told_how_many():
    X, topics = planted_corpus(n_docs=200, seed=8)
    model = GSDPMM(alpha=0.1, beta=0.05, max_iter=15, random_state=0).fit(X)
    keep = np.asarray(X.sum(axis=1)).ravel() > 0
    assert normalized_mutual_info_score(topics[keep], model.labels_[keep]) > 0.9


def test_same_seed_same_labels_and_different_seed_differs():
    X, _ = planted_corpus(seed=9)
    first = GSDPMM(max_iter=3, random_state=42).fit_predict(X)
    again = GSDPMM(max_iter=3, random_state=42).fit_predict(X)
    other = GSDPMM(max_iter=1, random_state=43).fit_predict(X)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_callback_reports_each_iteration():
    X, _ = planted_corpus(seed=1)
    seen = []
    model = GSDPMM(max_iter=4, random_state=0).fit(X, callback=lambda *a: seen.append(a))
    assert [s[0] for s in seen] == [1, 2, 3, 4] and all(s[1] == 4 for s in seen)
    assert [s[2] for s in seen] == model.n_clusters_history_


@pytest.mark.parametrize("params, name", [
    ({"alpha": 0.0}, "alpha"), ({"alpha": -0.1}, "alpha"), ({"alpha": float("nan")}, "alpha"),
    ({"alpha": True}, "alpha"), ({"beta": 0.0}, "beta"), ({"beta": "0.1"}, "beta"),
    ({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter"),
])
def test_out_of_range_parameters_are_named_on_one_line(params, name):
    X, _ = planted_corpus()
    with pytest.raises(ParameterError, match=name) as raised:
        GSDPMM(**params).fit(X)
    assert "\n" not in str(raised.value)


def test_rejects_negative_or_fractional_counts():
    with pytest.raises(ParameterError, match="non-negative integer"):
        GSDPMM().fit(sp.csr_matrix([[1.5, 0.0]]))


def test_a_single_document_forms_one_cluster():
    model = GSDPMM(max_iter=3, random_state=0).fit(sp.csr_matrix([[1, 2, 0]]))
    assert model.labels_.tolist() == [0] and model.n_clusters_ == 1


@pytest.mark.kernels
def test_all_empty_documents_are_placed():
    X = sp.csr_matrix((5, 3), dtype=int)
    model = GSDPMM(max_iter=2, random_state=0).fit(X)
    assert model.labels_.shape == (5,) and model.n_clusters_ >= 1
    np.testing.assert_array_equal(model.labels_, naive_gsdpmm.gsdpmm_fit(X, 0.1, 0.02, 2, 0))


def test_clone_and_params_follow_scikit_learn():
    model = GSDPMM(alpha=0.2, max_iter=7)
    copy = clone(model)
    assert copy.get_params() == model.get_params() == {
        "alpha": 0.2, "beta": 0.02, "max_iter": 7, "random_state": None}
    assert copy.set_params(beta=0.3).beta == 0.3


@pytest.mark.kernels
def test_predict_proba_is_the_existing_cluster_conditional():
    X, _ = planted_corpus(seed=10)
    model = GSDPMM(max_iter=5, random_state=0).fit(X)
    new, _ = planted_corpus(n_docs=12, seed=11)
    log_p = naive_gsdpmm.gsdpmm_log_posterior(new, model.cluster_sizes_,
                                              model.cluster_word_counts_, model.beta)
    expected = np.exp(log_p - log_p.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(new), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.predict(new), expected.argmax(axis=1))


def test_predict_proba_stays_finite_for_long_and_empty_documents():
    X, _ = planted_corpus(n_docs=30, words_per_topic=40, seed=3, max_len=300)
    model = GSDPMM(max_iter=3, random_state=0).fit(X)
    proba = model.predict_proba(X)  # holds 300-token documents and an empty one
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_predict_rejects_a_different_vocabulary():
    X, _ = planted_corpus()
    model = GSDPMM(max_iter=1, random_state=0).fit(X)
    with pytest.raises(ParameterError, match="word columns"):
        model.predict(sp.csr_matrix((2, X.shape[1] + 1), dtype=int))


def test_top_words_are_the_posterior_mean():
    X, _ = planted_corpus(seed=13)
    model = GSDPMM(max_iter=5, random_state=0).fit(X)
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


@pytest.mark.slow
def test_tweet_reaches_the_reported_nmi(data_dir):
    from shortclust.data import load_corpus

    corpus = load_corpus("Tweet", data_dir=data_dir)
    scores = [normalized_mutual_info_score(corpus.labels, GSDPMM(random_state=s).fit_predict(corpus))
              for s in range(20)]
    # Rakib et al. (Table 5) report GSDPMM's Tweet NMI as 0.861 +- 0.019 over 20 runs.
    assert np.mean(scores) >= 0.84
