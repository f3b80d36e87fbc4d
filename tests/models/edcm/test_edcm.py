"""Mixture of EDCM (batch EM, annealing, smoothing) and online EDCM, against the formulas
of Banerjee & Basu (SDM 2007, section 2.2) and the slow references of tests/naive/edcm.py."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma, gammaln

from shortclust.errors import ParameterError
from shortclust.models.edcm import _em as em
from shortclust.models.edcm import _kernels as kernels
from shortclust.models.edcm.edcm import EDCM
from tests.naive import edcm as naive


def topic_corpus(seed=0, n_docs=30, n_words=12, n_topics=3, length=(2, 9)):
    """Bursty documents: each topic owns a block of words; a word drawn once may repeat."""
    rng = np.random.default_rng(seed)
    block = n_words // n_topics
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    for i in range(n_docs):
        topic = i % n_topics
        for _ in range(rng.integers(*length)):
            word = topic * block + rng.integers(block) if rng.random() < 0.85 \
                else rng.integers(n_words)
            X[i, word] += 1 + (rng.random() < 0.3)
    return X


def finite_model(model):
    for name in ("beta_", "precisions_", "weights_", "component_sizes_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    assert np.all(model.beta_ >= 0)


# --- kernels against their references -------------------------------------------------------

@pytest.mark.kernels
@pytest.mark.parametrize("s", [1e-3, 0.5, 3.0, 250.0, 1e5, 1e8])
def test_log_rising_equals_the_rising_factorial(s):
    for n in [0, 1, 2, 7, 16, 17, 40, 500]:
        expected = naive.log_rising(s, n)
        assert kernels.log_rising(s, n) == pytest.approx(expected, rel=1e-10, abs=1e-12)
        if s <= 1e5:  # where lgamma's difference keeps its digits
            assert expected == pytest.approx(gammaln(s + n) - gammaln(s), rel=1e-9, abs=1e-9)
    lengths = np.array([0, 3, 40], dtype=np.int64)
    table = kernels.log_rising_table(np.array([s, 2.0 * s]), lengths)
    assert table[1, 2] == pytest.approx(naive.log_rising(2.0 * s, 40), rel=1e-10)


@pytest.mark.kernels
@pytest.mark.parametrize("s", [1e-4, 0.3, 7.0, 900.0, 1e5])
def test_precision_sums_equal_digamma_and_trigamma(s):
    lengths = np.array([0, 1, 4, 4, 30, 211], dtype=np.int64)
    weights = np.array([0.5, 1.0, 0.2, 0.3, 2.0, 0.7])
    value, slope = kernels.precision_sums(s, lengths, weights)
    expected_value, expected_slope = naive.precision_sums(s, lengths, weights)
    assert value == pytest.approx(expected_value, rel=1e-10)
    assert slope == pytest.approx(expected_slope, rel=1e-9)


@pytest.mark.kernels
@pytest.mark.parametrize("seed", range(6))
def test_solve_precision_finds_the_fixed_point_of_the_reference(seed):
    rng = np.random.default_rng(seed)
    lengths = np.sort(rng.integers(1, 60, size=25)).astype(np.int64)
    weights = rng.random(25)
    low, high = weights.sum(), float(weights @ lengths)  # s D(s) at s -> 0 and s -> inf
    total = low + rng.uniform(0.05, 0.95) * (high - low)
    s = kernels.solve_precision(lengths, weights, total, 1.0)
    assert s == pytest.approx(naive.solve_precision(lengths, weights, total), rel=1e-9)
    value, _ = naive.precision_sums(s, lengths, weights)
    assert s == pytest.approx(total / value, rel=1e-10)  # s = N / D(s): the fixed point


@pytest.mark.kernels
def test_solve_precision_at_the_limits():
    lengths = np.array([1, 2, 3], dtype=np.int64)
    ones = np.ones(3)
    # No document repeats a word (N = sum n): the root is at infinity, s = S_MAX.
    assert kernels.solve_precision(lengths, ones, 6.0, 1.0) == kernels.S_MAX
    # One distinct word per document (N = documents): the root is at 0, s = S_MIN.
    assert kernels.solve_precision(lengths, ones, 3.0, 1.0) == kernels.S_MIN


# --- the likelihood -------------------------------------------------------------------------

def test_score_samples_equals_the_formula_on_a_tiny_example():
    X = np.array([[2, 1, 0, 0], [0, 1, 3, 0], [0, 0, 0, 0], [1, 1, 1, 1]])
    model = EDCM(n_clusters=2, smoothing=0.1, random_state=0).fit(sp.csr_matrix(X[:2]))
    model.beta_ = np.array([[0.5, 0.25, 0.125, 2.0], [0.1, 0.2, 0.3, 0.4]])
    model.precisions_ = model.beta_.sum(axis=1)
    model.weights_ = np.array([0.3, 0.7])
    for x, got in zip(X, model.score_samples(sp.csr_matrix(X))):
        n = int(x.sum())
        mixture = 0.0
        for h in range(2):
            beta, s = model.beta_[h], model.precisions_[h]
            q = math.factorial(n) * math.gamma(s) / math.gamma(s + n)
            for j in np.flatnonzero(x):
                q *= beta[j] / x[j]
            mixture += model.weights_[h] * q
        assert got == pytest.approx(math.log(mixture), rel=1e-12)


def test_log_likelihood_is_the_sum_of_the_fitted_documents_scores():
    X = sp.csr_matrix(topic_corpus())
    model = EDCM(n_clusters=3, random_state=0).fit(X)
    assert model.log_likelihood_ == pytest.approx(model.score_samples(X).sum(), rel=1e-10)


def test_the_m_step_solves_the_papers_equations():
    X = topic_corpus(seed=3)
    docs = em.Documents.from_counts(sp.csr_matrix(X))
    r = np.random.default_rng(0).dirichlet(np.ones(3), size=X.shape[0])
    pseudo = np.full(X.shape[1], 0.05)
    start = em.Mixture(np.ones((3, X.shape[1])), np.full(3, float(X.shape[1])), np.ones(3) / 3)
    mixture = em.m_step(docs, r, pseudo, start)
    n = X.sum(axis=1)
    for h in range(3):
        s = mixture.s[h]
        denominator = np.sum(r[:, h] * digamma(s + n)) - r[:, h].sum() * digamma(s)
        counts = r[:, h] @ (X > 0) + pseudo
        np.testing.assert_allclose(mixture.beta[h], counts / denominator, rtol=1e-9)
        assert s == pytest.approx(counts.sum() / denominator, rel=1e-9)
    np.testing.assert_allclose(mixture.weights, r.mean(axis=0))


# --- EM against the slow reference ----------------------------------------------------------

@pytest.mark.kernels
@pytest.mark.parametrize("settings", [
    {"smoothing": 0.1, "anneal_start": 0.2, "anneal_factor": 1.5},
    {"smoothing": 0.0, "anneal_start": 1.0, "anneal_factor": 1.1},
    {"smoothing": 0.3, "anneal_start": 1.0, "anneal_factor": 1.1},
])
def test_em_equals_the_reference_under_the_same_seed(settings):
    X = topic_corpus(seed=1)
    model = EDCM(n_clusters=3, max_iter=12, tol=1e-8, random_state=5, **settings)
    model.fit(sp.csr_matrix(X))
    ref = naive.em(X, 3, settings["smoothing"], settings["anneal_start"],
                   settings["anneal_factor"], 12, 1e-8, 5)
    np.testing.assert_array_equal(model.labels_, ref["labels"])
    assert model.n_iter_ == ref["n_iter"]
    np.testing.assert_allclose(model.beta_, ref["beta"], rtol=1e-7)
    np.testing.assert_allclose(model.precisions_, ref["s"], rtol=1e-7)
    np.testing.assert_allclose(model.weights_, ref["weights"], rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(model.objective_history_, ref["objectives"], rtol=1e-9)
    np.testing.assert_allclose(model.word_prior_, ref["prior"], rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_em_never_decreases_its_objective_without_annealing(seed, smoothing):
    X = sp.csr_matrix(topic_corpus(seed=seed, n_docs=45, n_words=20, n_topics=4))
    model = EDCM(n_clusters=4, smoothing=smoothing, anneal_start=1.0, max_iter=60, tol=0.0,
                 random_state=seed).fit(X)
    history = np.array(model.objective_history_)
    assert len(history) > 5
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    if smoothing == 0.0:  # then the objective is the log-likelihood itself
        np.testing.assert_array_equal(history, model.log_likelihood_history_)


def test_annealing_follows_its_schedule_and_ends_at_one():
    X = sp.csr_matrix(topic_corpus())
    model = EDCM(n_clusters=3, anneal_start=0.1, anneal_factor=2.0, max_iter=30,
                 random_state=0).fit(X)
    np.testing.assert_allclose(model.inverse_temperatures_[:5], [0.1, 0.2, 0.4, 0.8, 1.0])
    assert model.inverse_temperatures_[-1] == 1.0
    plain = EDCM(n_clusters=3, anneal_start=1.0, random_state=0).fit(X)
    assert np.all(plain.inverse_temperatures_ == 1.0)


def test_annealed_em_separates_the_topics():
    X = sp.csr_matrix(topic_corpus(n_docs=60, length=(6, 14)))
    labels = EDCM(n_clusters=3, random_state=0).fit(X).labels_
    truth = np.arange(60) % 3
    agree = sum(np.bincount(labels[truth == t]).max() for t in range(3))
    assert agree >= 54  # at least 90% in the majority cluster of their topic


# --- beta, NaN and degenerate inputs --------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_the_fixed_point_never_makes_beta_negative(seed):
    rng = np.random.default_rng(seed)
    X = topic_corpus(seed=seed)
    docs = em.Documents.from_counts(sp.csr_matrix(X))
    r = rng.dirichlet(np.full(4, 0.3), size=X.shape[0])
    r[:, 3] = 0.0  # an empty component
    r /= r.sum(axis=1, keepdims=True)
    for pseudo in (np.zeros(X.shape[1]), np.full(X.shape[1], 0.1)):
        start = em.Mixture(np.ones((4, X.shape[1])), np.full(4, float(X.shape[1])),
                           np.ones(4) / 4)
        mixture = em.m_step(docs, r, pseudo, start)
        assert np.all(mixture.beta >= 0) and np.all(np.isfinite(mixture.beta))
        assert np.all(mixture.s > 0)
    model = EDCM(n_clusters=3, smoothing=0.0, random_state=seed, window=4)
    model.partial_fit(sp.csr_matrix(X[:10]))
    model.partial_fit(sp.csr_matrix(X[10:]))
    assert np.all(model.beta_ >= 0)


def test_an_empty_component_gives_no_nan():
    X = sp.csr_matrix(topic_corpus(n_docs=4))
    model = EDCM(n_clusters=7, random_state=0).fit(X)  # more components than documents
    finite_model(model)
    assert np.any(model.weights_ == 0.0)
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    model.partial_fit(X)
    finite_model(model)


def test_an_empty_document_gives_no_nan():
    X = topic_corpus()
    X[[0, 7]] = 0
    model = EDCM(n_clusters=3, smoothing=0.0, random_state=0).fit(sp.csr_matrix(X))
    finite_model(model)
    assert np.isfinite(model.log_likelihood_)
    empty = sp.csr_matrix((2, X.shape[1]), dtype=np.int64)
    np.testing.assert_allclose(model.predict_proba(empty), np.tile(model.weights_, (2, 1)))
    model.partial_fit(empty)
    finite_model(model)
    only_empty = EDCM(n_clusters=2, random_state=0).fit(empty)
    finite_model(only_empty)


def test_a_word_no_component_saw_gives_the_mixing_weights_without_smoothing():
    X = topic_corpus()
    X[:, -1] = 0
    model = EDCM(n_clusters=3, smoothing=0.0, random_state=0).fit(sp.csr_matrix(X))
    new = np.zeros((1, X.shape[1]), dtype=np.int64)
    new[0, -1] = 2
    np.testing.assert_allclose(model.predict_proba(sp.csr_matrix(new))[0], model.weights_)


def test_a_one_document_window_gives_no_nan():
    X = sp.csr_matrix(topic_corpus())
    for smoothing in (0.0, 0.1):
        model = EDCM(n_clusters=3, smoothing=smoothing, window=1, update_weight=1.0,
                     random_state=0)
        model.partial_fit(X[:12])
        model.partial_fit(X[12:])
        finite_model(model)
        assert np.all(model._windows.count <= 1)


# --- online EDCM ----------------------------------------------------------------------------

def windows_as_lists(model):
    """The model's windows as the reference keeps them: dense rows, oldest first."""
    windows = model._windows
    store = windows.store.toarray()
    lists = []
    for h in range(model.n_clusters):
        capacity = windows.slots.shape[1]
        ids = [windows.slots[h, (windows.start[h] + k) % capacity]
               for k in range(windows.count[h])]
        lists.append([store[i].astype(np.float64) for i in ids])
    return lists


@pytest.mark.kernels
@pytest.mark.parametrize("smoothing, update_weight", [(0.1, 0.3), (0.0, 1.0)])
def test_the_online_pass_equals_the_reference(smoothing, update_weight):
    X = topic_corpus(seed=2, n_docs=40)
    X[25] = 0  # an empty document mid-stream
    model = EDCM(n_clusters=3, smoothing=smoothing, window=3, update_weight=update_weight,
                 max_iter=20, random_state=1)
    model.fit(sp.csr_matrix(X[:15]))
    state = (model.beta_.copy(), model.precisions_.copy(), model.component_sizes_.copy())
    start_windows = windows_as_lists(model)
    model.partial_fit(sp.csr_matrix(X[15:28]))
    model.partial_fit(sp.csr_matrix(X[28:]))
    labels, beta, s, sizes, windows = naive.online(
        [X[15:28], X[28:]], *state, 3, update_weight, start_windows)
    np.testing.assert_array_equal(model.labels_[15:], labels)
    np.testing.assert_allclose(model.beta_, beta, rtol=1e-8)
    np.testing.assert_allclose(model.precisions_, s, rtol=1e-8)
    np.testing.assert_allclose(model.component_sizes_, sizes)
    for got, expected in zip(windows_as_lists(model), windows):
        np.testing.assert_array_equal(np.array(got).reshape(-1, X.shape[1]),
                                      np.array(expected).reshape(-1, X.shape[1]))


def test_partial_fit_starts_from_em_on_the_first_batch_then_streams():
    X = sp.csr_matrix(topic_corpus(n_docs=40))
    model = EDCM(n_clusters=3, random_state=0)
    model.partial_fit(X[:20])
    reference = EDCM(n_clusters=3, random_state=0)
    reference._fit_mixture(X[:20])
    assert model.n_iter_ == len(reference.inverse_temperatures_) + 1
    assert model.labels_.shape == (20,)
    model.partial_fit(X[20:])
    assert model.labels_.shape == (40,) and model.n_iter_ == 1
    assert model.component_sizes_.sum() == pytest.approx(20 + 40)  # EM's 20, then 1 each
    np.testing.assert_allclose(model.precisions_, model.beta_.sum(axis=1))


def test_partial_fit_refuses_a_batch_of_another_width():
    X = sp.csr_matrix(topic_corpus())
    model = EDCM(n_clusters=3, random_state=0)
    model.partial_fit(X)
    with pytest.raises(ParameterError, match="word columns"):
        model.partial_fit(sp.csr_matrix(np.ones((2, X.shape[1] + 1), dtype=np.int64)))


def test_the_batch_step_is_an_em_iteration_over_everything_seen():
    X = sp.csr_matrix(topic_corpus(n_docs=36))
    model = EDCM(n_clusters=3, smoothing=0.1, window=4, random_state=0)
    model.partial_fit(X[:18])
    model.partial_fit(X[18:])
    docs = em.Documents.from_counts(X)
    pseudo = model.word_prior_ * X.shape[0] / 3

    def objective():
        mixture = model._mixture()
        return em.log_likelihood(em.log_joint(mixture, docs)) + em.log_prior(mixture, pseudo)

    before = objective()
    labels = model._batch_step(X)
    assert objective() >= before - 1e-9 * abs(before)
    np.testing.assert_array_equal(labels, model.predict(X))
    assert np.all(model._windows.count <= 4)
    for h in range(3):
        held = model._windows.count[h]
        assert held == min(4, int(np.sum((labels == h) & (np.diff(X.indptr) > 0))))
    np.testing.assert_array_equal(model._windows.df.sum(axis=1), model._windows.distinct)


def test_a_stream_config_runs_online_edcm_batch_by_batch(tmp_path):
    import json

    import yaml

    from shortclust.config import load_config
    from shortclust.pipeline.runner import run_experiment
    from tests.pipeline.test_stream import stream_documents

    corpus = tmp_path / "stream.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in stream_documents()))
    config = {"name": "edcm_stream", "dataset": str(corpus), "preprocess": "none",
              "model": {"name": "edcm", "params": {"n_clusters": 3, "window": 5}},
              "stream": {"batch_by": "count", "batch_size": 12}, "runs": 2,
              "output": str(tmp_path / "out")}
    path = tmp_path / "edcm.yaml"
    path.write_text(yaml.safe_dump(config))
    result = run_experiment(load_config(path, []), quiet=True)
    assert len(result.records) == 2
    for record in result.records:
        assert [b["n_docs"] for b in record["batches"]] == [12, 12, 12]
        assert all(np.isfinite(v) for v in record["metrics"].values())
        assert record["batch_fit"]["n_clusters"] >= 1
