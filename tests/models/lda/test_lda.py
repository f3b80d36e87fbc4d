"""LDA: kernels against the slow reference, count invariants, recovery, stream, API."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import normalized_mutual_info_score

from tests.naive.lda import NaiveLDA, current_first, draw
from shortclust.errors import ParameterError
from shortclust.models.lda import _kernels as kernels
from shortclust.models.lda import _state as _lda_state
from shortclust.models.lda.lda import LDA


def planted_corpus(n_docs=60, n_topics=4, words_per_topic=10, seed=0, max_len=12):
    """Documents mixing two disjoint topic vocabularies, a long one and an empty one.

    Document d draws most of its tokens from topic ``topics[d]`` and the rest from the
    next topic; document 5 has 60 tokens, document ``n_docs // 2`` none.
    """
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, n_topics, size=n_docs)
    rows = np.zeros((n_docs, n_topics * words_per_topic), dtype=np.int64)
    for d, t in enumerate(topics):
        length = 60 if d == 5 else rng.integers(1, max_len + 1)
        own = rng.random(length) < 0.8
        topic = np.where(own, t, (t + 1) % n_topics)
        np.add.at(rows[d], topic * words_per_topic + rng.integers(0, words_per_topic, length), 1)
    rows[n_docs // 2] = 0
    return sp.csr_matrix(rows), topics


def generated_corpus(n_docs=300, n_topics=5, words_per_topic=20, doc_len=40, seed=0):
    """A corpus drawn from LDA's generative model with well-separated topics.

    Each topic puts 95% of its mass on its own 20 words and 5% on the whole vocabulary;
    proportions theta ~ Dirichlet(0.1). Returns the counts and each document's dominant
    topic (the argmax of its theta).
    """
    rng = np.random.default_rng(seed)
    n_words = n_topics * words_per_topic
    phi = np.full((n_topics, n_words), 0.05 / n_words)
    for t in range(n_topics):
        phi[t, t * words_per_topic:(t + 1) * words_per_topic] += 0.95 / words_per_topic
    theta = rng.dirichlet(np.full(n_topics, 0.1), size=n_docs)
    rows = np.zeros((n_docs, n_words), dtype=np.int64)
    for d in range(n_docs):
        topic = rng.choice(n_topics, size=doc_len, p=theta[d])
        for t in topic:
            rows[d, rng.choice(n_words, p=phi[t])] += 1
    return sp.csr_matrix(rows), theta.argmax(axis=1)


# --- the kernels against the reference --------------------------------------------------------

@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_topics, alpha, beta", [(4, 0.5, 0.1), (7, 0.05, 0.01)])
def test_fit_matches_reference(seed, n_topics, alpha, beta):
    X, _ = planted_corpus(seed=seed)
    model = LDA(n_clusters=n_topics, alpha=alpha, beta=beta, max_iter=6, random_state=seed)
    expected = NaiveLDA(n_topics, alpha, beta, 6, 0, seed).fit(X)
    np.testing.assert_array_equal(model.fit(X).labels_, expected)


@pytest.mark.kernels
@pytest.mark.parametrize("n_topics", [1, 2, 5, 20])
def test_draws_follow_the_cumulative_weights_in_their_order(n_topics):
    rng = np.random.default_rng(n_topics)
    below_one = np.nextafter(1.0, 0.0)  # u * total may round to total: the fallbacks
    for trial in range(300):
        weights = rng.random(n_topics) * 10.0 ** rng.integers(-3, 4, size=n_topics)
        u = below_one if trial % 10 == 0 else rng.random()
        current = int(rng.integers(0, n_topics))
        total = float(weights.sum())
        assert kernels._draw(weights.copy(), n_topics, total, u) == draw(list(weights), u)
        assert kernels._draw_current_first(weights.copy(), n_topics, total, u, current) == \
            draw(list(weights), u, current_first(current, n_topics))


@pytest.mark.kernels
def test_drawing_a_sweep_in_slices_changes_nothing(monkeypatch):
    # Slices of at most 7 draws: every document but the shortest is a slice of its own.
    X, _ = planted_corpus(seed=3)
    whole = LDA(n_clusters=5, max_iter=4, partial_iter=2, random_state=1).fit(X[:40])
    monkeypatch.setattr(_lda_state, "DRAWS_PER_CALL", 7)
    sliced = LDA(n_clusters=5, max_iter=4, partial_iter=2, random_state=1).fit(X[:40])
    np.testing.assert_array_equal(sliced.labels_, whole.labels_)
    np.testing.assert_array_equal(sliced._state.z, whole._state.z)
    reference = NaiveLDA(5, 10.0, 0.1, 4, 2, 1)
    reference.fit(X[:40])
    np.testing.assert_array_equal(sliced.partial_fit(X[40:]).labels_,
                                  reference.partial_fit(X[40:]))


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("partial_iter", [0, 3])
def test_partial_fit_and_offline_steps_match_reference(seed, partial_iter):
    # Batches of 30 (the window), 1, 19 and 20 documents; OFFLINE steps after 35 and 70.
    X, _ = planted_corpus(n_docs=70, seed=seed + 10)
    model = LDA(n_clusters=4, alpha=0.3, beta=0.05, max_iter=5, partial_iter=partial_iter,
                offline_every=0.5, stream_length=70, random_state=seed)
    reference = NaiveLDA(4, 0.3, 0.05, 5, partial_iter, seed)
    reference.partial_fit(X[:30])
    reference.partial_fit(X[30:31])
    np.testing.assert_array_equal(model.partial_fit(X[:30]).partial_fit(X[30:31]).labels_,
                                  reference.labels())
    reference.partial_fit(X[31:35])
    reference.batch_step(1)  # the OFFLINE step in the middle of the third batch
    np.testing.assert_array_equal(model.partial_fit(X[31:50]).labels_,
                                  reference.partial_fit(X[35:50]))
    assert model.offline_at_ == [35] and model.n_iter_ == 2
    reference.partial_fit(X[50:])
    np.testing.assert_array_equal(model.partial_fit(X[50:]).labels_, reference.batch_step(1))
    assert model.offline_at_ == [35, 70]
    # Streaming again after an OFFLINE step starts from the rebuilt counts.
    extra, _ = planted_corpus(n_docs=10, seed=seed + 20)
    np.testing.assert_array_equal(model.partial_fit(extra).labels_,
                                  reference.partial_fit(extra))
    np.testing.assert_allclose(model.topic_word_counts_, np.array(reference.phi_w).T,
                               rtol=1e-12)


@pytest.mark.kernels
def test_folding_in_matches_reference():
    X, _ = planted_corpus(seed=4)
    model = LDA(n_clusters=4, alpha=0.5, max_iter=8, partial_iter=4, random_state=7).fit(X)
    reference = NaiveLDA(4, 0.5, 0.1, 8, 4, 7)
    reference.fit(X)
    new, _ = planted_corpus(n_docs=25, seed=5)
    expected = reference.predict_expected(new, seed=7)
    np.testing.assert_allclose(model._fold_in_expected(new), expected, rtol=1e-12)
    proba = model.predict_proba(new)
    np.testing.assert_allclose(proba, (expected + 0.5) / (expected.sum(1, keepdims=True) + 2.0))
    np.testing.assert_array_equal(model.predict(new), expected.argmax(axis=1))


# --- counts ----------------------------------------------------------------------------------

def test_counts_stay_consistent_after_sweeps():
    X, _ = planted_corpus(n_docs=80, seed=6)
    model = LDA(n_clusters=6, max_iter=7, random_state=0).fit(X)
    state = model._state
    lengths = np.asarray(X.sum(axis=1)).ravel()
    np.testing.assert_array_equal(state.n_dk.sum(axis=1), lengths)
    np.testing.assert_array_equal(state.n_wk.sum(axis=1), np.asarray(X.sum(axis=0)).ravel())
    np.testing.assert_array_equal(state.n_wk.sum(axis=0), state.n_k)
    assert state.n_k.sum() == X.sum() and state.n_dk.min() >= 0 and state.n_wk.min() >= 0
    # The tables are those of the tokens' topics: rebuilding them changes nothing.
    tables = (state.n_dk.copy(), state.n_wk.copy(), state.n_k.copy())
    state.rebuild()
    for before, after in zip(tables, (state.n_dk, state.n_wk, state.n_k)):
        np.testing.assert_array_equal(after, before)
    assert sum(model.n_moved_history_) > 0 and len(model.n_moved_history_) == 7


def test_streamed_expected_counts_add_up():
    X, _ = planted_corpus(n_docs=80, seed=7)
    model = LDA(n_clusters=5, max_iter=5, partial_iter=2, random_state=0).partial_fit(X[:50])
    model.partial_fit(X[50:])
    counts = model.topic_word_counts_
    assert counts.dtype == np.float64 and counts.min() >= 0
    np.testing.assert_allclose(counts.sum(axis=0), np.asarray(X.sum(axis=0)).ravel())
    np.testing.assert_allclose(model.topic_word_.sum(axis=1), 1.0)
    np.testing.assert_allclose(model.doc_topic_.sum(axis=1), 1.0)
    assert model.doc_topic_.shape == (80, 5) and model.n_batches_ == 2
    # An OFFLINE step returns to integer counts of the tokens' topics.
    model.set_params(offline_every=1.0, stream_length=90)
    model._stream_restart(X, model.labels_)  # as if the stream had kept its documents
    model.partial_fit(planted_corpus(n_docs=10, seed=17)[0])
    assert model.offline_at_ == [90] and model.n_iter_ == 2
    state = model._state
    np.testing.assert_array_equal(state.n_dk.sum(axis=1), np.diff(state.tokens.ptr))
    assert model.topic_word_counts_.dtype == np.int32 and model.topic_totals_.sum() == \
        state.tokens.words.size


def test_empty_documents_give_uniform_proportions_and_no_nan():
    X, _ = planted_corpus(seed=8)
    empty = sp.csr_matrix((3, X.shape[1]), dtype=np.int64)
    model = LDA(n_clusters=4, max_iter=3, random_state=0).fit(sp.vstack([X, empty]).tocsr())
    assert np.all(np.isfinite(model.doc_topic_)) and np.all(np.isfinite(model.topic_word_))
    np.testing.assert_allclose(model.doc_topic_[-3:], 0.25)
    assert list(model.labels_[-3:]) == [0, 0, 0]
    proba = model.predict_proba(empty)
    np.testing.assert_allclose(proba, 0.25)
    model.partial_fit(empty)  # a batch of empty documents only
    assert model.labels_.shape == (X.shape[0] + 6,) and np.all(np.isfinite(model.doc_topic_))


def test_all_documents_empty():
    model = LDA(n_clusters=3, max_iter=2, random_state=0).fit(sp.csr_matrix((4, 5)))
    assert list(model.labels_) == [0, 0, 0, 0] and model.n_clusters_ == 1
    np.testing.assert_allclose(model.topic_word_, 0.2)


# --- quality ---------------------------------------------------------------------------------

def test_recovers_well_separated_topics():
    X, dominant = generated_corpus(seed=0)
    model = LDA(n_clusters=5, alpha=0.1, beta=0.01, max_iter=200, random_state=0).fit(X)
    assert normalized_mutual_info_score(dominant, model.labels_) > 0.75  # 2 topics: 0.45
    # Each topic's ten top words come from one planted topic, a different one each.
    planted = [{w // 20 for w, _ in words} for words in model.top_words(10)]
    assert all(len(sources) == 1 for sources in planted)
    assert set().union(*planted) == set(range(5))


def test_incremental_lda_follows_a_stream():
    # The window holds every topic; later documents are labelled against its estimates.
    X, dominant = generated_corpus(n_docs=400, seed=1)
    model = LDA(n_clusters=5, alpha=0.1, beta=0.01, max_iter=200, partial_iter=5,
                random_state=0)
    model.partial_fit(X[:100])
    window = model.labels_.copy()
    for start in range(100, 400, 100):
        model.partial_fit(X[start:start + 100])
    np.testing.assert_array_equal(model.labels_[:100], window)  # earlier documents stay
    assert normalized_mutual_info_score(dominant[100:], model.labels_[100:]) > 0.7
    # Folding the streamed documents in against the final topics agrees with the stream.
    agreement = np.mean(model.predict(X[100:]) == model.labels_[100:])
    assert agreement > 0.9


def test_alpha_none_is_fifty_over_k():
    X, _ = planted_corpus(seed=9)
    default = LDA(n_clusters=5, max_iter=4, random_state=2).fit(X)
    explicit = LDA(n_clusters=5, alpha=10.0, max_iter=4, random_state=2).fit(X)
    np.testing.assert_array_equal(default.labels_, explicit.labels_)
    assert default.get_params()["alpha"] is None


# --- API -------------------------------------------------------------------------------------

def test_callback_reports_each_sweep():
    X, _ = planted_corpus(seed=10)
    calls = []
    LDA(n_clusters=4, max_iter=3, random_state=0).fit(X, callback=lambda *a: calls.append(a))
    assert [c[:2] for c in calls] == [(1, 3), (2, 3), (3, 3)]
    assert all(1 <= c[2] <= 4 for c in calls)


@pytest.mark.parametrize("params, name", [
    ({"alpha": 0.0}, "alpha"), ({"beta": 0}, "beta"), ({"n_clusters": 0}, "n_clusters"),
    ({"max_iter": 0}, "max_iter"), ({"partial_iter": -1}, "partial_iter"),
])
def test_out_of_range_parameters_are_named(params, name):
    X, _ = planted_corpus()
    with pytest.raises(ParameterError, match=f"^{name} must be"):
        LDA(**params).fit(X)


def test_bad_calls_are_refused_in_one_line():
    X, _ = planted_corpus()
    model = LDA(n_clusters=3, max_iter=2, random_state=0).fit(X)
    with pytest.raises(ParameterError, match="X_batch has 5 word columns but the model has 40"):
        model.partial_fit(sp.csr_matrix((2, 5)))
    with pytest.raises(ParameterError, match="fitted on 40"):
        model.predict(sp.csr_matrix((2, 5)))
    with pytest.raises(ParameterError, match="n_clusters=4 differs from the 3 topics fitted"):
        model.set_params(n_clusters=4).partial_fit(X)
    with pytest.raises(ParameterError, match="offline_every needs stream_length"):
        LDA(offline_every=0.5).fit(X)
    with pytest.raises(ParameterError, match="non-negative integer"):
        LDA().fit(sp.csr_matrix([[1.5, 0.0]]))


def test_predict_is_repeatable_and_clone_keeps_params():
    X, _ = planted_corpus(seed=11)
    model = LDA(n_clusters=4, max_iter=5, random_state=3).fit(X)
    np.testing.assert_array_equal(model.predict_proba(X), model.predict_proba(X))
    copy = clone(model)
    assert copy.get_params() == model.get_params() and not hasattr(copy, "labels_")


def test_memory_estimate_counts_both_tables():
    assert LDA.memory_bytes({"n_clusters": 20}, 1000, 5000) == 4 * 20 * 6000
    assert LDA.memory_bytes({"n_clusters": 20}, 1000, None) is None
    assert LDA.memory_bytes({}, 1000, 5000) == 4 * 10 * 6000  # the default K
    # AD-LDA: one more topic-word table per block.
    assert LDA.memory_bytes({"n_clusters": 20, "threads": 2}, 1000, 5000) == 4 * 20 * 16000


def test_a_loaded_model_streams_on_but_refuses_offline_steps():
    from shortclust.models.state import fitted_state, model_from_state

    X, _ = planted_corpus(n_docs=60, seed=12)
    model = LDA(n_clusters=4, max_iter=4, partial_iter=2, random_state=1).partial_fit(X[:20])
    model.partial_fit(X[20:25])  # the streamed counts are float64: saved as they are
    loaded = model_from_state(LDA, model.get_params(), *fitted_state(model))
    np.testing.assert_array_equal(loaded.partial_fit(X[25:40]).labels_,
                                  model.partial_fit(X[25:40]).labels_)
    np.testing.assert_array_equal(loaded.topic_word_counts_, model.topic_word_counts_)
    with pytest.raises(ParameterError, match="tokens are not all at hand"):
        loaded._batch_step(X[:40])
    hybrid = LDA(n_clusters=4, max_iter=4, offline_every=0.5, stream_length=60,
                 random_state=1).partial_fit(X[:20])
    loaded = model_from_state(LDA, hybrid.get_params(), *fitted_state(hybrid))
    with pytest.raises(ParameterError, match="loaded from a file"):
        loaded.partial_fit(X[20:25])
