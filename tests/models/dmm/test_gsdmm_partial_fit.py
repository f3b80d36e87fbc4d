"""GSDMM.partial_fit: against the slow reference, count invariants, API and real data."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from tests.naive import gsdmm as naive
from tests.naive.partial import NaivePartialGSDMM
from shortclust.errors import ParameterError
from shortclust.models.dmm.gsdmm import GSDMM


def topic_stream(n_docs=90, n_topics=6, words_per_topic=10, seed=0, max_len=8):
    """Documents whose topic drifts with their position, as in a time-ordered stream.

    Topic t uses words ``t*words_per_topic..``; document d draws from topic
    ``d * n_topics // n_docs`` or its successor, so later batches bring new topics.
    One empty row and a few long documents are included.
    """
    rng = np.random.default_rng(seed)
    rows = np.zeros((n_docs, n_topics * words_per_topic), dtype=np.int64)
    topics = np.minimum(np.arange(n_docs) * n_topics // n_docs + rng.integers(0, 2, n_docs),
                        n_topics - 1)
    for d, t in enumerate(topics):
        length = rng.integers(1, max_len + 1) if d % 23 else 40  # some beyond 16 tokens
        words = t * words_per_topic + rng.integers(0, words_per_topic, size=length)
        np.add.at(rows[d], words, 1)
    rows[n_docs // 3] = 0  # an empty document, as in GoogleNews-T
    return sp.csr_matrix(rows), topics


def batches_of(X, sizes):
    """Consecutive row blocks of X with the given sizes."""
    edges = np.cumsum([0, *sizes])
    assert edges[-1] == X.shape[0]
    return [X[a:b] for a, b in zip(edges[:-1], edges[1:])]


PARAMS = dict(n_clusters=12, alpha=0.1, beta=0.1, max_iter=4)


@pytest.mark.kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("partial_iter", [0, 2])
@pytest.mark.parametrize("binary", [False, True])
def test_partial_fit_matches_reference(seed, partial_iter, binary):
    X, _ = topic_stream(seed=seed)
    likelihood = "eq3" if binary else "eq4"
    model = GSDMM(**PARAMS, partial_iter=partial_iter, likelihood=likelihood, random_state=seed)
    reference = NaivePartialGSDMM(**PARAMS, partial_iter=partial_iter, seed=seed, binary=binary)
    for batch in batches_of(X, [30, 1, 20, 39]):
        expected = reference.partial_fit(batch)
        np.testing.assert_array_equal(model.partial_fit(batch).labels_, expected)


@pytest.mark.kernels
def test_n_iter_overrides_partial_iter_as_in_the_reference():
    X, _ = topic_stream(seed=3)
    model = GSDMM(**PARAMS, partial_iter=1, random_state=5)
    reference = NaivePartialGSDMM(**PARAMS, partial_iter=1, seed=5)
    for batch, n_iter in zip(batches_of(X, [40, 25, 25]), [None, 3, 0]):
        expected = reference.partial_fit(batch, n_iter=n_iter)
        np.testing.assert_array_equal(model.partial_fit(batch, n_iter=n_iter).labels_, expected)
    assert model.n_iter_ == 0 and model.n_clusters_history_ == []


def test_reference_first_batch_is_the_batch_reference():
    X, _ = topic_stream(seed=4)
    labels = NaivePartialGSDMM(**PARAMS, partial_iter=2, seed=9).partial_fit(X)
    np.testing.assert_array_equal(labels, naive.gsdmm_fit(X, 12, 0.1, 0.1, 4, 9))


def test_partial_fit_on_a_single_batch_equals_fit():
    X, _ = topic_stream(seed=5)
    once = GSDMM(**PARAMS, random_state=3).partial_fit(X)
    fitted = GSDMM(**PARAMS, random_state=3).fit(X)
    np.testing.assert_array_equal(once.labels_, fitted.labels_)
    np.testing.assert_array_equal(once.cluster_word_counts_, fitted.cluster_word_counts_)
    np.testing.assert_array_equal(once.cluster_sizes_, fitted.cluster_sizes_)
    assert once.n_iter_ == fitted.n_iter_ == PARAMS["max_iter"] and once.n_batches_ == 1


def test_partial_fit_after_fit_continues_the_same_generator():
    X, _ = topic_stream(seed=6)
    first, second = batches_of(X, [50, 40])
    after_fit = GSDMM(**PARAMS, random_state=2).fit(first).partial_fit(second)
    streamed = GSDMM(**PARAMS, random_state=2).partial_fit(first).partial_fit(second)
    np.testing.assert_array_equal(after_fit.labels_, streamed.labels_)
    assert after_fit.n_batches_ == 2


def assert_counts_match(model, X_seen):
    """Sizes and word counts equal those rebuilt from labels_; labels are 0..K-1, all used."""
    labels = model.labels_
    assert labels.shape == (X_seen.shape[0],)
    assert set(labels.tolist()) == set(range(model.n_clusters_))
    assert model.cluster_sizes_.shape == (model.n_clusters_,)
    np.testing.assert_array_equal(model.cluster_sizes_, np.bincount(labels))
    one_hot = sp.csr_matrix((np.ones(len(labels)), (labels, np.arange(len(labels)))))
    np.testing.assert_array_equal(model.cluster_word_counts_, (one_hot @ X_seen).toarray())


def test_counts_and_labels_stay_consistent_after_each_batch():
    X, _ = topic_stream(n_docs=120, seed=7)
    model = GSDMM(**PARAMS, random_state=0)
    seen = 0
    previous = np.array([], dtype=np.int64)
    for batch in batches_of(X, [40, 30, 1, 49]):
        model.partial_fit(batch)
        seen += batch.shape[0]
        assert_counts_match(model, X[:seen])
        # Earlier documents never move, so their clusters never empty or get renumbered.
        np.testing.assert_array_equal(model.labels_[: len(previous)], previous)
        previous = model.labels_.copy()
    assert model.n_batches_ == 4


def test_same_seed_same_labels_and_different_seed_differs():
    X, _ = topic_stream(seed=8)

    def stream(seed):
        model = GSDMM(**PARAMS, random_state=seed)
        for batch in batches_of(X, [30, 30, 30]):
            model.partial_fit(batch)
        return model.labels_

    np.testing.assert_array_equal(stream(11), stream(11))
    assert not np.array_equal(stream(11), stream(12))


def test_a_new_topic_opens_clusters_by_classification_alone():
    X, topics = topic_stream(n_docs=120, n_topics=4, seed=9)
    old, new = topics < 2, topics >= 2
    model = GSDMM(n_clusters=30, alpha=0.1, beta=0.05, max_iter=10, partial_iter=0,
                  random_state=0)
    model.partial_fit(X[old])
    n_before = model.n_clusters_
    model.partial_fit(X[new])
    new_labels = model.labels_[old.sum():]
    assert model.n_clusters_ > n_before
    assert np.mean(new_labels >= n_before) > 0.9  # new topic, new clusters


def test_count_type_widens_before_it_could_overflow():
    # Word 0 occurs 60000 times in the first batch (uint16 is enough), 70000 after the second.
    first = sp.csr_matrix(np.array([[10000, 1]] * 6))
    second = sp.csr_matrix(np.array([[5000, 1]] * 2))
    model = GSDMM(n_clusters=3, max_iter=2, random_state=0).partial_fit(first)
    model.partial_fit(second)
    assert model.cluster_word_counts_[:, 0].sum() == 70000
    assert_counts_match(model, sp.vstack([first, second]))


def test_a_batch_of_another_width_is_a_one_line_error():
    X, _ = topic_stream(seed=10)
    model = GSDMM(**PARAMS, random_state=0).partial_fit(X[:30])
    wider = sp.hstack([X[30:40], sp.csr_matrix((10, 1), dtype=np.int64)]).tocsr()
    with pytest.raises(ParameterError, match="word columns") as error:
        model.partial_fit(wider)
    assert "\n" not in str(error.value) and "same vocabulary" in str(error.value)
    assert model.labels_.shape == (30,)  # the failed call changed nothing


def test_a_corpus_batch_with_other_words_is_rejected():
    from shortclust.data.corpus import Corpus

    first = Corpus.from_texts(["apple pie", "apple tart"])
    other = Corpus.from_texts(["beef stew", "beef pie"])  # same width, other words
    model = GSDMM(n_clusters=3, max_iter=2, random_state=0).partial_fit(first)
    with pytest.raises(ParameterError, match="vocabulary differs"):
        model.partial_fit(other)


def test_bad_iteration_counts_and_a_shrunken_k_are_named():
    X, _ = topic_stream(seed=11)
    with pytest.raises(ParameterError, match="partial_iter"):
        GSDMM(partial_iter=-1).partial_fit(X)
    model = GSDMM(**PARAMS, random_state=0).partial_fit(X[:60])
    with pytest.raises(ParameterError, match="n_iter"):
        model.partial_fit(X[60:], n_iter=1.5)
    model.set_params(n_clusters=1)
    with pytest.raises(ParameterError, match="n_clusters=1 is below"):
        model.partial_fit(X[60:])


def test_partial_iter_is_a_constructor_parameter():
    model = GSDMM(partial_iter=3)
    assert model.get_params()["partial_iter"] == 3
    assert GSDMM().partial_iter == 2


# --------------------------------------------------------------------------------------------
# acceptance on real data


def test_stream_then_predict_agrees_with_the_batch_model(data_dir):
    """Cluster 90% of GoogleNews-T in 4 partial_fit batches, predict the other 10%.

    The held-back titles' predicted clusters must agree with the clusters a batch fit of
    the whole corpus gives them (NMI >= 0.75, where relabelling the predictions at
    random scores about 0.3) and be nearly as good against the true labels (within 0.1
    of the batch fit's NMI on the same titles), averaged over three seeds.
    """
    from shortclust.data import load_corpus

    corpus = load_corpus("GoogleNews-T", data_dir=data_dir)
    X, truth = corpus.counts, corpus.labels
    agreement, stream_quality, batch_quality = [], [], []
    for seed in range(3):
        order = np.random.default_rng(100 + seed).permutation(corpus.n_docs)
        held, train = order[: corpus.n_docs // 10], order[corpus.n_docs // 10:]
        params = dict(n_clusters=300, alpha=0.1, beta=0.1, max_iter=15, random_state=seed)
        model = GSDMM(**params)
        for part in np.array_split(train, 4):
            model.partial_fit(X[part])
        predicted = model.predict(X[held])
        batch = GSDMM(**params).fit(X).labels_[held]
        agreement.append(normalized_mutual_info_score(batch, predicted))
        stream_quality.append(normalized_mutual_info_score(truth[held], predicted))
        batch_quality.append(normalized_mutual_info_score(truth[held], batch))
    assert np.mean(agreement) >= 0.75
    assert np.mean(stream_quality) >= np.mean(batch_quality) - 0.1
