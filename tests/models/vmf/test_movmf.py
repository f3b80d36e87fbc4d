"""movMF (batch EM), online vMF and the hybrid scheme (Banerjee & Basu, SDM 2007).

The log normaliser is checked in ``test_movmf_density.py``; here: the compiled online pass
against its slow reference, EM's guarantees, the edge cases that must not give NaN (empty
components, empty documents, one-document windows, kappa in the thousands with d in the
tens of thousands), the hybrid schedule, and a stream through the experiment pipeline.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from shortclust.errors import ParameterError
from shortclust.evaluation.metrics import evaluate
from shortclust.models.common.hybrid import offline_points
from shortclust.models.vmf._kernels import online_vmf_pass
from shortclust.models.vmf.movmf import MovMF
from tests.naive.movmf import naive_online_vmf


def topic_documents(n_per_topic=40, n_topics=3, d=300, words_per_doc=8, noise=0.2, seed=0):
    """Unit TF-IDF-like rows: each topic draws its words from its own block of columns,
    with a fraction ``noise`` of words from anywhere. Returns (CSR rows, topic labels)."""
    rng = np.random.default_rng(seed)
    block = d // n_topics
    rows, cols, labels = [], [], []
    for i in range(n_per_topic * n_topics):
        topic = i % n_topics
        own = rng.integers(topic * block, (topic + 1) * block, words_per_doc)
        anywhere = rng.integers(0, d, words_per_doc)
        words = np.where(rng.random(words_per_doc) < noise, anywhere, own)
        rows += [i] * words_per_doc
        cols += list(words)
        labels.append(topic)
    X = sp.csr_matrix((rng.random(len(rows)) + 0.5, (rows, cols)),
                      shape=(n_per_topic * n_topics, d))
    X.sum_duplicates()
    return normalize(X).tocsr(), np.array(labels)


def assert_finite(model):
    for name in ("means_", "concentrations_", "weights_"):
        assert np.all(np.isfinite(getattr(model, name))), name


# --- the compiled online pass against its reference -----------------------------------------

def kernel_state(rng, K, d, n_started):
    means = normalize(rng.random((K, d)))
    started = np.arange(K) < n_started
    return means, rng.integers(0, 5, K).astype(float), started


@pytest.mark.kernels
@pytest.mark.parametrize("memory_length", [None, 1.0, 3.0, 50.0])
@pytest.mark.parametrize("rule", ["cosine", "posterior"])
@pytest.mark.parametrize("n_started", [5, 2, 0])
def test_online_pass_equals_its_slow_reference(memory_length, rule, n_started):
    rng = np.random.default_rng(11)
    X, _ = topic_documents(n_per_topic=30, d=40, seed=3)
    X = sp.vstack([X[:10], sp.csr_matrix((2, 40)), X[10:]]).tocsr()  # two empty documents
    K = 5
    means, counts, started = kernel_state(rng, K, 40, n_started)
    if rule == "cosine":
        bias, slope, log_prior = np.zeros(K), np.ones(K), np.zeros(K)
    else:
        bias, slope, log_prior = rng.normal(0, 3, K), rng.uniform(1, 30, K), rng.normal(0, 1, K)
    expected = naive_online_vmf(X.toarray(), means, counts, started, bias, slope, log_prior,
                                memory_length)
    V = np.ascontiguousarray(means.T * rng.uniform(0.5, 4.0, K))  # scale must not matter
    norm2 = np.einsum("ij,ij->j", V, V)
    got_counts, got_started = counts.copy(), started.copy()
    labels = np.empty(X.shape[0], dtype=np.int64)
    decay = 1.0 if memory_length is None else 1.0 - 1.0 / memory_length
    online_vmf_pass(X.indptr, X.indices, X.data, V, norm2, got_counts, got_started, bias,
                    slope, log_prior, decay, labels)
    np.testing.assert_array_equal(labels, expected[0])
    np.testing.assert_allclose(V.T / np.sqrt(norm2)[:, None], expected[1], atol=1e-10)
    np.testing.assert_allclose(got_counts, expected[2])
    np.testing.assert_array_equal(got_started, expected[3])


@pytest.mark.kernels
def test_online_pass_rescales_a_growing_mean_without_changing_it():
    # With L = 1.0001 the count stays near 1 and ||v|| grows by ~1e4 per document.
    X, _ = topic_documents(n_per_topic=60, n_topics=1, d=30, seed=5)
    means = normalize(np.ones((1, 30)))
    args = (np.zeros(1), np.ones(1), np.zeros(1))
    expected = naive_online_vmf(X.toarray(), means, np.ones(1), np.ones(1, bool), *args, 1.0001)
    V, norm2, counts = means.T.copy(), np.ones(1), np.ones(1)
    labels = np.empty(X.shape[0], dtype=np.int64)
    online_vmf_pass(X.indptr, X.indices, X.data, V, norm2, counts, np.ones(1, bool), *args,
                    1.0 - 1.0 / 1.0001, labels)
    assert norm2[0] < 1e200
    np.testing.assert_allclose(V[:, 0] / np.sqrt(norm2[0]), expected[1][0], atol=1e-9)


def test_partial_fit_is_the_reference_pass_from_its_seeds():
    X, _ = topic_documents(seed=1)
    model = MovMF(n_clusters=3, memory_length=20.0, random_state=4)
    model.partial_fit(X[:30]).partial_fit(X[30:])
    seeded = MovMF(n_clusters=3, random_state=4)
    seeded._stream_start(seeded._stream_rows(X[:30]))  # the seeds alone, nothing assigned
    labels, means, counts, _ = naive_online_vmf(
        X.toarray(), seeded.means_, np.zeros(3), np.ones(3, bool), np.zeros(3), np.ones(3),
        np.zeros(3), 20.0)
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_allclose(model.means_, means, atol=1e-10)
    np.testing.assert_allclose(model.counts_, counts)


def test_effective_count_follows_the_recursion():
    X, _ = topic_documents(n_topics=1, seed=2)
    model = MovMF(n_clusters=1, memory_length=10.0, random_state=0).partial_fit(X)
    n = X.shape[0]
    np.testing.assert_allclose(model.counts_, [10.0 * (1 - 0.9 ** n)])
    unlimited = MovMF(n_clusters=1, random_state=0).partial_fit(X)
    np.testing.assert_allclose(unlimited.counts_, [n])


# --- batch EM -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_em_log_likelihood_never_decreases(seed):
    X, _ = topic_documents(n_per_topic=50, n_topics=4, d=500, noise=0.5, seed=seed)
    model = MovMF(n_clusters=6, tol=0.0, max_iter=40, random_state=seed).fit(X)
    history = np.array(model.log_likelihood_history_)
    assert history.size > 3
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:])), np.diff(history)


def test_hard_assignment_objective_never_decreases_and_stops_when_labels_settle():
    X, _ = topic_documents(n_per_topic=50, n_topics=4, d=500, noise=0.5, seed=7)
    model = MovMF(n_clusters=6, assignment="hard", tol=0.0, max_iter=60, random_state=1).fit(X)
    history = np.array(model.log_likelihood_history_)
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert model.n_iter_ < 60  # stopped because no label changed


def test_em_recovers_topics_and_labels_are_the_posterior_argmax():
    X, topics = topic_documents(noise=0.1, d=30)
    model = MovMF(n_clusters=3, random_state=0).fit(X)
    assert evaluate(topics, model.labels_, metrics=["nmi"])["nmi"] > 0.9
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    np.testing.assert_allclose(model.weights_.sum(), 1.0)
    np.testing.assert_allclose(np.linalg.norm(model.means_, axis=1), 1.0)


def test_annealing_cools_to_one_and_still_converges():
    X, topics = topic_documents(noise=0.1, d=30)
    plain = MovMF(n_clusters=3, random_state=0).fit(X)
    annealed = MovMF(n_clusters=3, temperature=200.0, cooling=0.5, random_state=0).fit(X)
    # T = 200 * 0.5^i reaches 1 after 8 M-steps; convergence is tested from the E-step
    # after the first M-step at T = 1, the 10th.
    assert annealed.n_iter_ >= 10 > plain.n_iter_
    assert evaluate(topics, annealed.labels_, metrics=["nmi"])["nmi"] > 0.9


def test_random_init_seeds_with_distinct_documents_and_still_recovers_topics():
    from shortclust.models.vmf._em import seed_directions

    X, topics = topic_documents(noise=0.1, d=30)
    seeds = seed_directions(X, 3, np.random.default_rng(4), init="random")
    dense = X.toarray()
    # Each seed is one of the documents, and no document is picked twice.
    rows = [int(np.flatnonzero(np.all(np.isclose(dense, seed), axis=1))[0]) for seed in seeds.T]
    assert len(set(rows)) == 3
    again = seed_directions(X, 3, np.random.default_rng(4), init="random")
    np.testing.assert_array_equal(seeds, again)
    model = MovMF(n_clusters=3, init="random", random_state=0).fit(X)
    assert evaluate(topics, model.labels_, metrics=["nmi"])["nmi"] > 0.9
    # Fewer documents than components: the rest stay unseeded (zero), no error.
    few = seed_directions(X[:2], 3, np.random.default_rng(0), init="random")
    assert np.count_nonzero(np.abs(few).sum(axis=0)) == 2


def test_random_init_and_k_means_plus_plus_start_differently():
    X, _ = topic_documents(noise=0.3, d=60, seed=3)
    from shortclust.models.vmf._em import seed_directions

    plus = seed_directions(X, 3, np.random.default_rng(1))
    random = seed_directions(X, 3, np.random.default_rng(1), init="random")
    assert not np.array_equal(plus, random)


def test_an_unknown_init_is_refused_in_one_line():
    with pytest.raises(ParameterError, match="init"):
        MovMF(n_clusters=2, init="forgy").fit(topic_documents(d=30)[0])


def test_large_kappa_and_dimension_give_finite_log_likelihoods():
    X, _ = topic_documents(n_per_topic=30, d=30000, words_per_doc=3, noise=0.0, seed=9)
    model = MovMF(n_clusters=3, random_state=0).fit(X)
    assert model.concentrations_.min() > 1000 and X.shape[1] == 30000
    assert np.isfinite(model.log_likelihood_history_).all()
    assert_finite(model)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_sparse_input_is_never_densified(monkeypatch):
    X, _ = topic_documents(seed=4)
    real = sp.csr_matrix.toarray

    def one_row_only(self, *args, **kwargs):
        assert self.shape[0] <= 1, "a sparse matrix of many rows was densified"
        return real(self, *args, **kwargs)

    monkeypatch.setattr(sp.csr_matrix, "toarray", one_row_only)
    monkeypatch.setattr(sp.csr_matrix, "todense", one_row_only)
    model = MovMF(n_clusters=3, random_state=0).fit(X)
    model.predict_proba(X)
    MovMF(n_clusters=3, offline_every=0.5, stream_length=X.shape[0],
          random_state=0).partial_fit(X[:50]).partial_fit(X[50:])


# --- edge cases without NaN ----------------------------------------------------------------

def test_more_components_than_distinct_documents_leaves_empty_components_finite():
    X = normalize(sp.csr_matrix([[1.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0], [0, 1.0, 0]]))
    model = MovMF(n_clusters=4, random_state=0).fit(X)
    assert_finite(model)
    assert (model.weights_ == 0).sum() == 2  # two components never got a document
    assert np.isfinite(model.log_likelihood_)
    assert model.n_clusters_ == 2


def test_empty_documents_get_the_prior_and_no_nan():
    X, _ = topic_documents(seed=6)
    X = sp.vstack([sp.csr_matrix((1, X.shape[1])), X, sp.csr_matrix((1, X.shape[1]))]).tocsr()
    model = MovMF(n_clusters=3, random_state=0).fit(X)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba[0], model.weights_)
    assert model.labels_[0] == np.argmax(model.weights_)
    stream = MovMF(n_clusters=3, random_state=0).partial_fit(X[:1]).partial_fit(X[1:])
    assert_finite(stream)


def test_one_document_windows_give_no_nan():
    X, _ = topic_documents(n_per_topic=5, seed=8)
    single = MovMF(n_clusters=1, random_state=0).fit(X[:1])
    assert_finite(single) and np.isfinite(single.log_likelihood_)
    assert single.concentrations_[0] > 0
    model = MovMF(n_clusters=3, offline_every=0.25, stream_length=X.shape[0], random_state=0)
    for i in range(X.shape[0]):
        model.partial_fit(X[i:i + 1])
        assert_finite(model)
        assert model.labels_.size == i + 1
    assert np.isfinite(model.predict_proba(X)).all()


def test_all_empty_documents_are_refused_in_one_line():
    with pytest.raises(ParameterError, match="every document is empty"):
        MovMF(n_clusters=2).fit(sp.csr_matrix((3, 5)))


def test_word_counts_are_refused_with_the_fix():
    counts = sp.csr_matrix(np.array([[1, 2, 0], [0, 1, 1]]))
    with pytest.raises(ParameterError, match="representation: {name: tfidf}"):
        MovMF(n_clusters=2).fit(counts)


# --- the hybrid scheme ----------------------------------------------------------------------

def test_offline_every_needs_a_stream_length():
    with pytest.raises(ParameterError, match="offline_every needs stream_length"):
        MovMF(offline_every=0.2).fit(topic_documents()[0])


def test_offline_steps_fall_at_fractions_of_the_stream_even_inside_a_batch():
    X, _ = topic_documents(n_per_topic=40, seed=3)  # 120 documents
    n = X.shape[0]
    assert offline_points(0.2, n) == [24, 48, 72, 96, 120]
    runs = []
    for sizes in ([30, 90], [30, 1, 89], [30] + [7] * 12 + [6]):
        model = MovMF(n_clusters=3, offline_every=0.2, stream_length=n, random_state=2)
        stops = np.cumsum(sizes)
        for start, stop in zip(np.r_[0, stops[:-1]], stops):
            model.partial_fit(X[start:stop])
        assert model.offline_at_ == [24, 48, 72, 96, 120] or sizes[0] > 24
        runs.append(model.labels_)
    # The first batch (30 documents) passes the point at 24 inside it in every run.
    for labels in runs[1:]:
        np.testing.assert_array_equal(labels, runs[0])


def test_an_offline_step_relabels_every_document_seen():
    X, topics = topic_documents(n_per_topic=60, noise=0.3, seed=12)
    n = X.shape[0]
    online = MovMF(n_clusters=3, random_state=1).partial_fit(X)
    hybrid = MovMF(n_clusters=3, offline_every=1.0, stream_length=n, random_state=1)
    hybrid.partial_fit(X)
    assert hybrid.offline_at_ == [n] and hybrid.n_iter_ == 2
    # Up to the last document the two runs are the same online pass; the OFFLINE E-step
    # then labels every document by the final means, as predict would.
    np.testing.assert_array_equal(hybrid.labels_, online.predict(X))


def test_partial_fit_after_fit_continues_from_the_fitted_mixture():
    X, _ = topic_documents(seed=13)
    model = MovMF(n_clusters=3, random_state=0).fit(X[:60])
    weights = model.weights_.copy()
    model.partial_fit(X[60:])
    assert model.labels_.size == X.shape[0] and model.n_seen_ == X.shape[0]
    np.testing.assert_array_equal(model.weights_, weights)  # STREAM moves the means only
    assert_finite(model)


# --- through the experiment pipeline --------------------------------------------------------

def test_a_stream_experiment_runs_movmf_on_tfidf(tmp_path):
    from shortclust.pipeline.records import RecordStore
    from tests.pipeline.test_stream import run, write_stream_config

    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 4}, runs=1)
    result = run(path, "model.name=movmf", "model.params={n_clusters: 3}",
                 "representation={name: tfidf}", "top_words=2")
    record = RecordStore(result.output_dir).load()[0]
    assert [b["n_docs"] for b in record["batches"]] == [9, 9, 9, 9]
    assert record["batch_fit"]["metrics"]["nmi"] >= 0 and len(record["top_words"]) == 3


def test_annealing_with_hard_assignment_is_refused():
    with pytest.raises(ParameterError, match="set assignment: soft or temperature: 1"):
        MovMF(assignment="hard", temperature=5.0).fit(topic_documents()[0])


def test_stream_labels_and_cluster_count_follow_every_call():
    X, _ = topic_documents(n_per_topic=20, seed=14)
    model = MovMF(n_clusters=4, offline_every=0.5, stream_length=X.shape[0], random_state=0)
    held = []
    for start in range(0, X.shape[0], 5):
        model.partial_fit(X[start:start + 5])
        assert model.n_clusters_ == np.unique(model.labels_).size
        held.append((model.labels_, model.labels_.copy()))
    assert model.offline_at_ == [30, 60]
    for view, copy in held:  # a relabelling never rewrites labels someone holds
        np.testing.assert_array_equal(view, copy)


def test_unnormalised_batches_are_scaled_like_unit_ones():
    X, _ = topic_documents(seed=15)
    scaled = sp.diags(np.linspace(0.5, 3.0, X.shape[0])) @ X
    unit = MovMF(n_clusters=3, random_state=0).partial_fit(X[:40]).partial_fit(X[40:])
    other = MovMF(n_clusters=3, random_state=0).partial_fit(scaled[:40].tocsr())
    other.partial_fit(scaled[40:].tocsr())
    np.testing.assert_array_equal(other.labels_, unit.labels_)
    np.testing.assert_allclose(other.means_, unit.means_, atol=1e-12)


def test_a_loaded_model_streams_on_online_but_a_loaded_hybrid_refuses(tmp_path):
    from shortclust.apps.model_files import load_model, save_model
    from shortclust.models.state import fitted_state

    X, _ = topic_documents()
    words = [f"w{j}" for j in range(X.shape[1])]
    for offline_every, stream_on in ((None, True), (0.5, False)):
        model = MovMF(n_clusters=3, offline_every=offline_every, stream_length=X.shape[0],
                      random_state=0).partial_fit(X[:60])
        path = save_model(tmp_path / f"m{stream_on}.zip", "movmf", model.get_params(),
                          fitted_state(model), vocabulary=words)
        loaded = load_model(path).model
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        if stream_on:
            np.testing.assert_array_equal(loaded.partial_fit(X[60:]).labels_,
                                          model.partial_fit(X[60:]).labels_)
        else:
            with pytest.raises(ParameterError, match="loaded from a file"):
                loaded.partial_fit(X[60:])
