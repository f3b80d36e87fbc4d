"""Ncut-weighted NMF by ANLS (Yan et al. 2012): references, recovery, contract, edge cases."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score

from tests.naive import ncut as naive_ncut
from tests.pipeline.fake_estimators import LABELS, TEXTS
from shortclust.data import Corpus
from shortclust.errors import ParameterError
from shortclust.models import get_model_class
from shortclust.models.common.term_weights import term_weights, weight_documents
from shortclust.models.nmf.ncut_nmf import (
    NMFClustering,
    hals_iteration,
    hals_sweep,
    objective,
    update_documents,
    update_terms,
)

WEIGHTINGS = ["ncut", "idf", "binary"]


def planted_corpus(n_docs=120, n_topics=4, words_per_topic=10, n_shared=4, seed=0):
    """Documents from disjoint topic vocabularies plus a few shared words; one empty row."""
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, n_topics, size=n_docs)
    n_terms = n_topics * words_per_topic + n_shared
    rows = np.zeros((n_docs, n_terms), dtype=np.int64)
    for d, t in enumerate(topics):
        words = rng.choice(words_per_topic, size=rng.integers(3, 7), replace=False)
        rows[d, t * words_per_topic + words] = 1
        if rng.random() < 0.3:
            rows[d, n_topics * words_per_topic + rng.integers(0, n_shared)] = 1
    return sp.csr_matrix(rows), topics


def initial_u(counts, weighting, n_clusters, seed):
    """U as ``fit`` initialises it: K distinct non-empty columns of Y drawn by the seed."""
    Y = weight_documents(counts, term_weights(counts, weighting))
    usable = np.flatnonzero(np.diff(Y.indptr) > 0)
    chosen = np.random.default_rng(seed).choice(usable, size=n_clusters, replace=False)
    return Y, Y[chosen].toarray().T


def test_registered_as_ncut_nmf():
    assert get_model_class("ncut_nmf") is NMFClustering


def test_clone_and_params_round_trip():
    model = NMFClustering(n_clusters=3, weighting="idf", lam=0.5, max_iter=7, tol=1e-3,
                          random_state=4)
    assert clone(model).get_params() == model.get_params()
    assert NMFClustering().set_params(**model.get_params()).get_params() == model.get_params()
    with pytest.raises(TypeError):
        NMFClustering(3)


@pytest.mark.parametrize("params, name", [
    ({"n_clusters": 0}, "n_clusters"), ({"n_clusters": 2.0}, "n_clusters"),
    ({"weighting": "tfidf"}, "weighting"), ({"lam": -1.0}, "lam"),
    ({"lam": float("nan")}, "lam"), ({"max_iter": 0}, "max_iter"), ({"tol": -1e-3}, "tol"),
])
def test_bad_parameters_raise_one_line_parameter_error(params, name):
    counts, _ = planted_corpus()
    with pytest.raises(ParameterError, match=name) as info:
        NMFClustering(**params).fit(counts)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_planted_clusters_are_recovered(weighting):
    counts, topics = planted_corpus()
    model = NMFClustering(n_clusters=4, weighting=weighting, lam=0.1, random_state=0)
    labels = model.fit_predict(counts)
    assert adjusted_rand_score(topics, labels) > 0.95
    assert model.n_clusters_ == 4 and model.components_.shape == (4, counts.shape[1])
    assert model.document_factors_.shape == (counts.shape[0], 4)
    assert np.all(model.components_ >= 0) and np.all(model.document_factors_ >= 0)


def test_planted_low_rank_nonnegative_matrix_is_fitted():
    # An exactly rank-3 non-negative matrix: with tiny lambda the fit error vanishes.
    rng = np.random.default_rng(1)
    n_docs, n_terms, K = 60, 30, 3
    groups = rng.integers(0, K, size=n_docs)
    groups[:K] = np.arange(K)
    blocks = np.zeros((n_docs, n_terms), dtype=np.int64)
    for d, g in enumerate(groups):
        blocks[d, g * 10:(g + 1) * 10] = 1
    counts = sp.csr_matrix(blocks)
    # ANLS from random columns can stop in a local minimum (two starts in one block);
    # the best of a few starts, by Eq. 6 as a user would pick it, is the planted one.
    fits = [NMFClustering(n_clusters=K, weighting="binary", lam=1e-6, random_state=seed).fit(counts)
            for seed in range(5)]
    model = min(fits, key=lambda fitted: fitted.objective_)
    assert adjusted_rand_score(groups, model.labels_) == 1.0
    assert model.objective_ < 1e-3
    np.testing.assert_allclose(model.components_.T @ model.document_factors_.T,
                               blocks.T, atol=1e-3)


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_objective_never_increases(weighting):
    counts, _ = planted_corpus(seed=3)
    noisy = counts + sp.random(counts.shape[0], counts.shape[1], density=0.05,
                               random_state=0, data_rvs=lambda n: np.ones(n)).astype(np.int64)
    model = NMFClustering(n_clusters=5, weighting=weighting, tol=0, max_iter=40,
                          random_state=2).fit(noisy)
    history = np.array(model.objective_history_)
    assert len(history) == model.n_iter_ and np.all(np.isfinite(history))
    assert np.all(np.diff(history) <= 1e-10 * history[:-1])
    # Here Algorithm 1's projected step raises Eq. 6 now and then (not with idf): the
    # fallback is exercised, and the history still never rises.
    assert (model.n_fallback_steps_ > 0) == (weighting != "idf")


def test_hals_iteration_never_raises_the_objective():
    rng = np.random.default_rng(0)
    Y = sp.csr_matrix(rng.random((12, 9)) * (rng.random((12, 9)) < 0.5))
    for seed in range(5):
        start = np.random.default_rng(seed)
        U, Vt = start.random((9, 3)), start.random((12, 3))
        before = naive_ncut.objective(Y.toarray().T, U, Vt.T, 0.5)
        new_U, new_Vt, YVt = hals_iteration(Y, Y.T.tocsr(), U, Vt, 0.5)
        after = naive_ncut.objective(Y.toarray().T, new_U, new_Vt.T, 0.5)
        assert after <= before and np.all(new_U >= 0) and np.all(new_Vt >= 0)
        assert objective(float(Y.data @ Y.data), new_U, new_Vt, YVt, 0.5) == pytest.approx(after)


def test_hals_column_update_is_the_exact_nonnegative_minimiser():
    rng = np.random.default_rng(1)
    Y = rng.random((9, 12)) - 0.3                    # terms x documents, some negative pulls
    u = rng.random((9, 1))
    lam = 0.7
    Vt = hals_sweep(np.zeros((12, 1)), Y.T @ u, u.T @ u, lam)
    best = naive_ncut.objective(Y, u, Vt.T, lam)
    for d in range(12):
        for step in (1e-4, -1e-4):
            trial = Vt.copy()
            trial[d, 0] = max(trial[d, 0] + step, 0.0)
            assert naive_ncut.objective(Y, u, trial.T, lam) >= best - 1e-12


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("lam", [0.0, 0.3, 2.0])
def test_one_anls_step_matches_dense_reference(weighting, lam):
    counts, _ = planted_corpus(n_docs=40, seed=5)
    Y, U0 = initial_u(counts, weighting, 3, seed=11)
    Y_dense = naive_ncut.weighted_y(counts, naive_ncut.ncut_weights(counts) if weighting == "ncut"
                                    else naive_ncut.idf_weights(counts) if weighting == "idf"
                                    else np.ones(counts.shape[1]))
    U_ref, V_ref = naive_ncut.anls_step(Y_dense, U0, lam)

    Vt = update_documents(Y, U0, lam)
    U, YVt = update_terms(Y.T.tocsr(), Vt, lam)
    np.testing.assert_allclose(Vt, V_ref.T, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(U, U_ref, rtol=1e-9, atol=1e-12)
    expected = naive_ncut.objective(Y_dense, U_ref, V_ref, lam)
    assert objective(float(Y.data @ Y.data), U, Vt, YVt, lam) == pytest.approx(expected, rel=1e-9)

    model = NMFClustering(n_clusters=3, weighting=weighting, lam=lam, max_iter=1,
                          random_state=11).fit(counts)
    assert model.n_fallback_steps_ == 0      # the first iteration is always Algorithm 1's
    np.testing.assert_allclose(model.components_, U_ref.T, rtol=1e-9, atol=1e-12)
    assert model.objective_history_ == [pytest.approx(expected, rel=1e-9)]
    assert model.n_iter_ == 1


def test_same_seed_same_labels_and_callback():
    counts, _ = planted_corpus()
    calls = []
    first = NMFClustering(n_clusters=4, random_state=7, max_iter=15, tol=0)
    first.fit(counts, callback=lambda *args: calls.append(args))
    second = NMFClustering(n_clusters=4, random_state=7, max_iter=15, tol=0).fit(counts)
    assert np.array_equal(first.labels_, second.labels_)
    assert [c[0] for c in calls] == list(range(1, 16))
    assert all(c[1] == 15 and 1 <= c[2] <= 4 for c in calls)


def test_predict_on_training_data_gives_labels_and_top_words_from_u():
    corpus = Corpus.from_texts(TEXTS, labels=LABELS)
    model = NMFClustering(n_clusters=2, random_state=0).fit(corpus)
    # predict is one more V step from the final U: on converged training data it agrees.
    assert np.mean(model.predict(corpus) == model.labels_) >= 0.9
    top = model.top_words(3)
    assert len(top) == 2 and all(len(t) == 3 for t in top)
    assert all(isinstance(word, str) for t in top for word, _ in t)
    k = 0
    best = np.argsort(-model.components_[k], kind="stable")[:3]
    assert [w for w, _ in top[k]] == [corpus.vocabulary[i] for i in best]
    names = [f"w{i}" for i in range(model.n_features_in_)]
    assert model.top_words(1, vocabulary=names)[0][0][0].startswith("w")
    with pytest.raises(ParameterError, match="n must"):
        model.top_words(0)
    with pytest.raises(ParameterError):
        model.predict(sp.csr_matrix((2, model.n_features_in_ + 1), dtype=np.int64))


# --- degenerate input -------------------------------------------------------------------------

def test_more_clusters_than_usable_documents_is_a_parameter_error():
    counts = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [0, 0, 0]]))
    with pytest.raises(ParameterError, match="n_clusters=3 exceeds the 2 documents"):
        NMFClustering(n_clusters=3).fit(counts)


def test_idf_with_every_term_everywhere_leaves_no_usable_document():
    counts = sp.csr_matrix(np.ones((4, 3), dtype=np.int64))
    with pytest.raises(ParameterError, match="idf-weighted"):
        NMFClustering(n_clusters=1, weighting="idf").fit(counts)


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_k_larger_than_rank_gives_finite_documented_output(lam):
    # Rank 2 (two distinct document vectors), 4 terms, K = 5 clusters.
    counts = sp.csr_matrix(np.array([[1, 1, 0, 0]] * 4 + [[0, 0, 1, 1]] * 4))
    model = NMFClustering(n_clusters=5, lam=lam, random_state=0).fit(counts)
    for value in (model.components_, model.document_factors_, model.objective_history_):
        assert np.all(np.isfinite(value))
    assert model.labels_.min() >= 0 and model.labels_.max() < 5
    assert 1 <= model.n_clusters_ <= 5 and model.cluster_sizes_.sum() == 8
    assert len(set(model.labels_[:4])) == 1 and len(set(model.labels_[4:])) == 1


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_empty_document_and_isolated_term_never_give_nan(weighting):
    counts, topics = planted_corpus()
    dense = counts.toarray()
    dense[5] = 0                                                   # empty document
    isolated = np.zeros((dense.shape[0], 1), dtype=np.int64)
    isolated[7, 0] = 1
    dense[7] = 0                                                   # one-word document:
    dense = np.hstack([dense, isolated])  # a term co-occurring with nothing
    model = NMFClustering(n_clusters=4, weighting=weighting, random_state=0)
    model.fit(sp.csr_matrix(dense))
    assert np.all(np.isfinite(model.components_)) and np.all(np.isfinite(model.document_factors_))
    assert np.all(np.isfinite(model.term_weights_))
    assert np.all(model.document_factors_[5] == 0) and model.labels_[5] == 0
