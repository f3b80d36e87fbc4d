"""MStream and MStreamF: the compiled pass against the slow reference, forgetting, labels."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from tests.models.dmm.test_gsdpmm import planted_corpus, with_loners
from tests.naive.mstream import mstream_fit
from shortclust.errors import ParameterError
from shortclust.models.dmm.mstream import MStream, MStreamF


def batches_of(X, n_batches):
    bounds = np.linspace(0, X.shape[0], n_batches + 1).astype(int)
    return [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def streamed(model, batches):
    for batch in batches:
        model.partial_fit(batch)
    return model


def assert_matches_reference(X, n_batches, seed, stored_batches=None, **params):
    batches = batches_of(X, n_batches)
    model = (MStream(random_state=seed, **params) if stored_batches is None else
             MStreamF(stored_batches=stored_batches, random_state=seed, **params))
    streamed(model, batches)
    expected = mstream_fit(batches, params.get("alpha", 0.03), params.get("beta", 0.03),
                           params.get("max_iter", 10), seed, stored_batches,
                           params.get("vocabulary_window"), params.get("binary", False))
    np.testing.assert_array_equal(model.labels_, expected)
    return model


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", [{}, {"alpha": 0.3, "beta": 0.1, "max_iter": 4},
                                    {"binary": True, "vocabulary_window": 2, "max_iter": 1}])
def test_mstream_matches_reference(seed, params):
    X, _ = planted_corpus(n_docs=120, seed=seed)
    assert_matches_reference(X, 4, seed, **params)


@pytest.mark.kernels
@pytest.mark.parametrize("stored_batches", [1, 2])
@pytest.mark.parametrize("window", [None, 3])
def test_mstreamf_matches_reference(stored_batches, window):
    X, _ = planted_corpus(n_docs=150, seed=5)
    model = assert_matches_reference(X, 5, 7, stored_batches, vocabulary_window=window,
                                     max_iter=3)
    kept = sum(b.shape[0] for b in batches_of(X, 5)[-(stored_batches + 1):])
    assert model.cluster_sizes_.sum() == kept  # only the stored batches are in the CF vectors


@pytest.mark.kernels
def test_long_documents_rescale_and_match_the_reference():
    # Up to 300 tokens: the running products are rescaled many times per document.
    X, _ = planted_corpus(n_docs=40, words_per_topic=40, seed=3, max_len=300)
    assert_matches_reference(X, 2, 8, max_iter=3, beta=0.05)


@pytest.mark.kernels
def test_tiny_beta_falls_back_to_logs_and_matches_the_reference():
    # beta = 1e-30: a loner's products underflow for every cluster, the new one included.
    X, _ = planted_corpus(n_docs=40, seed=15)
    assert_matches_reference(with_loners(X, 3, 40), 2, 4, max_iter=3, beta=1e-30)


@pytest.mark.kernels
def test_matches_the_reference_when_the_slots_must_grow():
    # 150 documents with words of their own open more clusters than the first 64 slots.
    X, _ = planted_corpus(n_docs=40, seed=4)
    model = assert_matches_reference(with_loners(X, 150, 2), 2, 5, max_iter=3, alpha=0.5)
    assert model.n_clusters_ > 64


def test_recovers_planted_topics_and_labels_are_ids_in_order_of_creation():
    X, topics = planted_corpus(n_docs=200, seed=1)
    model = streamed(MStream(random_state=0), batches_of(X, 4))
    assert normalized_mutual_info_score(topics, model.labels_) > 0.9
    assert model.n_clusters_ == np.unique(model.labels_).size
    assert set(np.unique(model.labels_)) == set(range(model.n_clusters_))
    # A cluster's id is the order of its creation: the first document opens cluster 0.
    first_seen = [np.flatnonzero(model.labels_ == k)[0] for k in range(model.n_clusters_)]
    assert model.labels_[0] == 0 and first_seen[:1] == [0]


def test_fit_with_steps_equals_partial_fit_in_step_order():
    X, _ = planted_corpus(n_docs=90, seed=2)
    steps = np.repeat([2, 0, 1], 30)  # rows of step 0 come second in X
    fitted = MStreamF(random_state=4).fit(X, steps=steps)
    order = np.argsort(steps, kind="stable")
    stream = streamed(MStreamF(random_state=4), [X[order[i:i + 30]] for i in (0, 30, 60)])
    np.testing.assert_array_equal(fitted.labels_[order], stream.labels_)
    assert fitted.n_iter_ == 3 * 10


def test_forgotten_clusters_keep_their_ids_and_predict_names_live_clusters():
    X, topics = planted_corpus(n_docs=160, seed=6)
    X = X[np.argsort(topics, kind="stable")]  # one topic after another: old ones are forgotten
    model = streamed(MStreamF(stored_batches=1, random_state=0), batches_of(X, 4))
    assert set(model.cluster_ids_) <= set(np.unique(model.labels_[80:]))
    assert set(model.predict(X)) <= set(model.cluster_ids_)
    # Columns and top-word lists are indexed by label; forgotten clusters weigh 0.
    proba = model.predict_proba(X)
    forgotten = np.setdiff1d(np.arange(model.n_clusters_), model.cluster_ids_)
    assert forgotten.size and proba.shape == (X.shape[0], model.n_clusters_)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba[:, forgotten] == 0)
    np.testing.assert_array_equal(proba.argmax(axis=1), model.predict(X))
    assert len(model.top_words(3)) == model.n_clusters_


def test_a_batch_over_other_columns_is_refused():
    X, _ = planted_corpus(n_docs=40, seed=0)
    model = MStream(random_state=0).partial_fit(X[:20])
    with pytest.raises(ParameterError, match="word columns"):
        model.partial_fit(sp.csr_matrix(X[20:].toarray()[:, :-1]))
