"""RLSI: updates against the naive reference, objective descent, recovery, contract, edges."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score

from tests.pipeline.fake_estimators import write_config, write_corpus
from tests.naive.rlsi import (
    naive_objective,
    naive_rlsi_fit,
    naive_update_u,
    naive_update_v,
    naive_weighted_matrix,
)
from shortclust.config import load_config
from shortclust.data import Corpus
from shortclust.errors import ConfigError, ParameterError
from shortclust.pipeline.runner import run_experiment
from shortclust.models import get_model_class
from shortclust.models.nmf.rlsi import RLSI, rlsi_objective, update_u, update_v


def planted_corpus(n_docs=120, n_topics=4, words_per_topic=15, seed=0, noise_words=6):
    """Documents from disjoint topic vocabularies plus a few shared noise words."""
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, n_topics, size=n_docs)
    n_words = n_topics * words_per_topic + noise_words
    rows = np.zeros((n_docs, n_words), dtype=np.int64)
    for d, t in enumerate(topics):
        for _ in range(rng.integers(4, 9)):
            rows[d, t * words_per_topic + rng.integers(0, words_per_topic)] += 1
        if rng.random() < 0.5:
            rows[d, n_topics * words_per_topic + rng.integers(0, noise_words)] += 1
    return sp.csr_matrix(rows), topics


def random_problem(seed, M=30, N=25, K=4, density=0.2):
    """A sparse weighted D^T, a signed V and a signed warm-start U."""
    rng = np.random.default_rng(seed)
    Dt = sp.random(N, M, density=density, random_state=seed, format="csr") * 3.0
    V = rng.normal(size=(K, N))
    U = rng.normal(size=(M, K)) * (rng.random((M, K)) < 0.5)
    return Dt, V, U


def test_registered_under_rlsi():
    assert get_model_class("rlsi") is RLSI


@pytest.mark.parametrize("weighting", ["idf", "ncut"])
def test_runs_from_a_config(tmp_path, weighting):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    params = {"n_clusters": 3, "weighting": weighting, "lambda1": 0.1}
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": "rlsi", "params": params}, runs=2)
    result = run_experiment(load_config(path), quiet=True)
    assert [r["seed"] for r in result.records] == [0, 1]
    assert all(r["n_iter"] >= 1 and 1 <= r["n_clusters"] <= 3 for r in result.records)


def test_a_bad_config_parameter_fails_before_any_output(tmp_path):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": "rlsi", "params": {"lambda2": 0}})
    with pytest.raises(ConfigError, match="lambda2"):
        run_experiment(load_config(path), quiet=True)
    assert not (tmp_path / "out").exists()


def test_clone_and_get_params_round_trip():
    model = RLSI(n_clusters=3, weighting="ncut", lambda1=0.2, random_state=4)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert RLSI().set_params(**model.get_params()).get_params() == model.get_params()


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        RLSI(4)


@pytest.mark.parametrize("changes, name", [
    ({"n_clusters": 0}, "n_clusters"), ({"n_clusters": 2.5}, "n_clusters"),
    ({"lambda1": -0.1}, "lambda1"), ({"lambda1": float("nan")}, "lambda1"),
    ({"lambda2": 0.0}, "lambda2"), ({"max_iter": 0}, "max_iter"),
    ({"tol": -1.0}, "tol"), ({"weighting": "tfidf"}, "weighting"),
])
def test_bad_parameters_fail_in_one_line(changes, name):
    X, _ = planted_corpus(n_docs=20)
    with pytest.raises(ParameterError) as error:
        RLSI(**changes).fit(X)
    message = str(error.value)
    assert name in message and "\n" not in message


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lambda1", [0.0, 0.3, 2.0])
def test_update_u_matches_the_naive_coordinate_descent(seed, lambda1):
    Dt, V, U0 = random_problem(seed)
    fast = update_u(Dt, V, U0, lambda1)
    slow = naive_update_u(Dt.T.toarray(), V, U0, lambda1)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-10)


def test_update_u_with_a_dead_topic_sets_its_column_to_zero():
    Dt, V, U0 = random_problem(3)
    V[1] = 0.0
    fast = update_u(Dt, V, U0, 0.3)
    np.testing.assert_allclose(fast, naive_update_u(Dt.T.toarray(), V, U0, 0.3), atol=1e-10)
    assert np.all(fast[:, 1] == 0.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_update_v_and_objective_match_the_reference(seed):
    Dt, V, U = random_problem(seed)
    D = Dt.T.toarray()
    np.testing.assert_allclose(update_v(Dt, U, 0.7), naive_update_v(D, U, 0.7), atol=1e-10)
    assert rlsi_objective(Dt, U, V, 0.3, 0.7) == pytest.approx(
        naive_objective(D, U, V, 0.3, 0.7), rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("weighting", ["binary", "idf"])
def test_whole_fit_matches_the_naive_rlsi(weighting):
    X, _ = planted_corpus(n_docs=30, n_topics=3, words_per_topic=6, seed=5, noise_words=3)
    model = RLSI(n_clusters=3, weighting=weighting, lambda1=0.3, lambda2=1.0, max_iter=30,
                 tol=1e-6, random_state=7).fit(X)
    D = naive_weighted_matrix(X, weighting)
    U, V, history, labels = naive_rlsi_fit(D, 3, 0.3, 1.0, 30, 1e-6, seed=7)
    assert model.n_iter_ == len(history)
    np.testing.assert_allclose(model.objective_history_, history, rtol=1e-9)
    signs = np.where(U.sum(axis=0) < 0, -1.0, 1.0)
    np.testing.assert_allclose(model.components_, (U * signs).T, atol=1e-8)
    np.testing.assert_allclose(model.document_topics_, (V * signs[:, None]).T, atol=1e-8)
    np.testing.assert_array_equal(model.labels_, labels)


@pytest.mark.parametrize("weighting", ["idf", "ncut", "binary"])
def test_objective_never_increases(weighting):
    X, _ = planted_corpus(seed=1)
    model = RLSI(n_clusters=5, weighting=weighting, lambda1=0.2, max_iter=60, tol=0,
                 random_state=0).fit(X)
    history = np.array(model.objective_history_)
    assert len(history) == model.n_iter_ == 60
    assert np.all(np.diff(history) <= 1e-10 * history[:-1])
    assert np.isfinite(history).all()


@pytest.mark.parametrize("weighting", ["idf", "ncut"])
def test_planted_topics_are_recovered(weighting):
    X, topics = planted_corpus(seed=0)
    labels = RLSI(n_clusters=4, weighting=weighting, random_state=0).fit_predict(X)
    assert adjusted_rand_score(topics, labels) > 0.9


def test_labels_do_not_depend_on_the_scale_of_the_term_weights(monkeypatch):
    from shortclust.models.nmf import rlsi

    X, _ = planted_corpus(seed=1)
    plain = RLSI(n_clusters=4, random_state=0).fit(X)
    original = rlsi.term_weights
    monkeypatch.setattr(rlsi, "term_weights", lambda c, w: 37.0 * original(c, w))
    scaled = RLSI(n_clusters=4, random_state=0).fit(X)
    np.testing.assert_array_equal(plain.labels_, scaled.labels_)
    assert scaled.data_scale_ == pytest.approx(37.0 * plain.data_scale_)
    np.testing.assert_allclose(scaled.components_, plain.components_, atol=1e-8)


def test_sparsity_grows_with_lambda1():
    X, _ = planted_corpus(seed=3)
    zeros = []
    for lambda1 in (0.0, 0.2, 0.5, 2.0):
        model = RLSI(n_clusters=4, lambda1=lambda1, random_state=0).fit(X)
        zeros.append(np.mean(model.components_ == 0.0))
    assert zeros[0] < 0.05  # no l1 penalty: (almost) dense topics
    assert all(a <= b for a, b in zip(zeros, zeros[1:])) and zeros[-1] > zeros[1] > zeros[0]
    assert zeros[-1] < 1.0  # still some topic left


def test_same_seed_same_labels_and_callback():
    X, _ = planted_corpus(seed=4)
    calls = []
    first = RLSI(n_clusters=4, random_state=11).fit(
        X, callback=lambda i, total, k: calls.append((i, total, k)))
    second = RLSI(n_clusters=4, random_state=11).fit(X)
    np.testing.assert_array_equal(first.labels_, second.labels_)
    assert [c[0] for c in calls] == list(range(1, first.n_iter_ + 1))
    assert all(total == first.max_iter and 1 <= k <= 4 for _, total, k in calls)


def test_fitted_attributes_and_top_words_from_a_corpus():
    texts = ["apple banana cherry", "apple banana", "banana cherry apple",
             "car engine wheel", "engine wheel", "car wheel engine"]
    corpus = Corpus.from_texts(texts)
    model = RLSI(n_clusters=2, weighting="binary", lambda1=0.1, random_state=0).fit(corpus)
    assert model.labels_.shape == (6,) and model.labels_.dtype == np.int64
    assert model.n_clusters_ == 2 and len(set(model.labels_[:3])) == 1
    assert model.components_.shape == (2, len(corpus.vocabulary))
    assert model.document_topics_.shape == (6, 2)
    assert model.vocabulary_ == corpus.vocabulary and model.n_features_in_ == 6
    tops = model.top_words(3)
    assert len(tops) == 2 and all(len(t) == 3 for t in tops)
    assert {w for w, _ in tops[model.labels_[0]]} == {"apple", "banana", "cherry"}
    assert model.top_words(1, vocabulary=list("abcdef"))[0][0][0] in "abcdef"
    with pytest.raises(ParameterError):
        model.top_words(0)


def test_more_clusters_than_documents_is_refused_in_one_line():
    X = sp.csr_matrix(np.eye(3, 5, dtype=np.int64))
    with pytest.raises(ParameterError) as error:
        RLSI(n_clusters=4).fit(X)
    assert "n_clusters=4" in str(error.value) and "\n" not in str(error.value)


def test_more_clusters_than_the_rank_stays_finite():
    X = sp.csr_matrix(np.array([[1, 1, 0, 0]] * 4 + [[0, 0, 1, 1]] * 4))  # rank 2
    model = RLSI(n_clusters=6, weighting="binary", lambda1=0.1, random_state=0).fit(X)
    assert np.isfinite(model.components_).all() and np.isfinite(model.document_topics_).all()
    assert len(set(model.labels_[:4])) == 1 and len(set(model.labels_[4:])) == 1
    assert model.labels_[0] != model.labels_[4]


def test_empty_documents_join_the_largest_cluster_without_nan():
    X, _ = planted_corpus(n_docs=40, seed=6)
    X = X.tolil()
    X[5, :] = 0
    X[17, :] = 0
    X = X.tocsr()
    model = RLSI(n_clusters=4, random_state=0).fit(X)
    assert np.all(model.document_topics_[[5, 17]] == 0.0)
    largest = np.argmax(np.bincount(np.delete(model.labels_, [5, 17]), minlength=4))
    assert model.labels_[5] == model.labels_[17] == largest
    assert np.isfinite(model.objective_history_).all()


@pytest.mark.parametrize("weighting", ["idf", "ncut", "binary"])
def test_all_empty_or_all_thresholded_gives_zeros_not_nan(weighting):
    empty = sp.csr_matrix((5, 4), dtype=np.int64)
    model = RLSI(n_clusters=2, weighting=weighting, random_state=0).fit(empty)
    assert np.all(model.labels_ == 0) and model.n_clusters_ == 1
    assert np.all(model.components_ == 0.0) and model.objective_ == 0.0
    X, _ = planted_corpus(n_docs=20, seed=7)
    huge = RLSI(n_clusters=3, weighting=weighting, lambda1=1e6, random_state=0).fit(X)
    assert np.all(huge.components_ == 0.0) and np.all(huge.labels_ == 0)
    assert np.isfinite(huge.objective_)


def test_term_in_every_document_gets_idf_zero_and_does_not_break_the_fit():
    X, topics = planted_corpus(n_docs=60, seed=8)
    X = sp.hstack([X, sp.csr_matrix(np.ones((60, 1), dtype=np.int64))]).tocsr()
    model = RLSI(n_clusters=4, random_state=0).fit(X)
    assert model.term_weights_[-1] == 0.0 and np.all(model.components_[:, -1] == 0.0)
    assert adjusted_rand_score(topics, model.labels_) > 0.9
