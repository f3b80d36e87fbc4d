"""DMAFP: the lower bound never decreases, one seed gives one result, planted clusters and
the planted partition of the vocabulary are recovered."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from shortclust.models.dmm.dmafp import (DMAFP, _Data, _dirichlet_expected_log,
                                         _VariationalState)

N_TOPICS, OWN_WORDS, SHARED_WORDS = 4, 30, 20


def planted(seed=0, n_docs=200, length=12):
    """Documents of 4 topics: each draws 2/3 of its tokens from its topic's own 30 words
    and 1/3 from 20 background words every topic shares (the non-discriminative ones)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, N_TOPICS, size=n_docs)
    n_words = N_TOPICS * OWN_WORDS + SHARED_WORDS
    rows = np.zeros((n_docs, n_words), dtype=np.int64)
    for d, topic in enumerate(labels):
        own = rng.integers(0, OWN_WORDS, size=2 * length // 3) + topic * OWN_WORDS
        shared = rng.integers(0, SHARED_WORDS, size=length // 3) + N_TOPICS * OWN_WORDS
        np.add.at(rows[d], np.concatenate([own, shared]), 1)
    return sp.csr_matrix(rows), labels


@pytest.mark.parametrize("init", ["sequential", "random", "soft"])
def test_the_lower_bound_never_decreases(init):
    X, _ = planted()
    model = DMAFP(n_clusters=20, init=init, max_iter=40, tol=0.0, random_state=1).fit(X)
    history = np.array(model.elbo_history_)
    assert history.size >= 3 and history[-1] > history[0]
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))


def test_the_last_update_of_q_z_maximises_the_bound():
    """After V7, mixing any other row into r lowers the bound: V7 and the bound agree."""
    X, _ = planted()
    model = DMAFP(n_clusters=10, random_state=0)
    state = _VariationalState(_Data(X), model, np.random.default_rng(0))
    for _ in range(3):
        state.iterate()
    elog_phi, elog_phi0 = _dirichlet_expected_log(state.mu), _dirichlet_expected_log(state.mu0)
    best = state.elbo(elog_phi, elog_phi0)
    rng = np.random.default_rng(2)
    optimal = state.r.copy()
    for _ in range(5):
        other = rng.dirichlet(np.ones(state.T), size=state.r.shape[0])
        state.r = 0.99 * optimal + 0.01 * other
        assert state.elbo(elog_phi, elog_phi0) < best
    state.r = optimal
    assert state.elbo(elog_phi, elog_phi0) == pytest.approx(best)


def test_same_seed_same_result_and_n_init_keeps_the_best_bound():
    X, _ = planted()
    first = DMAFP(n_clusters=20, n_init=3, random_state=5).fit(X)
    second = DMAFP(n_clusters=20, n_init=3, random_state=5).fit(X)
    assert np.array_equal(first.labels_, second.labels_)
    assert first.elbo_ == second.elbo_ == max(first.init_elbos_)
    assert len(first.init_elbos_) == 3


def test_planted_clusters_and_partition_are_recovered():
    X, labels = planted(seed=3, length=24)
    # Concentration A = alpha * D = 2 for a corpus of 4 topics (the default 0.1 * D = 20
    # is meant for corpora of a hundred topics and over-splits these 200 documents).
    model = DMAFP(n_clusters=30, n_init=2, alpha=0.01, random_state=0).fit(X)
    assert normalized_mutual_info_score(labels, model.labels_) > 0.9
    assert model.n_clusters_ <= 2 * N_TOPICS
    rho = model.discriminative_
    own, shared = rho[:N_TOPICS * OWN_WORDS], rho[N_TOPICS * OWN_WORDS:]
    # The topic words are discriminative, most background words are not.
    assert own.mean() > 0.9 and shared.mean() < 0.3


def test_predict_on_the_training_documents_gives_the_labels():
    X, _ = planted(seed=4)
    model = DMAFP(n_clusters=20, random_state=0).fit(X)
    assert np.array_equal(model.predict(X), model.labels_)
    proba = model.predict_proba(X)
    assert proba.shape == (X.shape[0], model.n_clusters_)
    assert np.allclose(proba.sum(axis=1), 1.0)
