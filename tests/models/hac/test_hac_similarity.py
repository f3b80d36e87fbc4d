"""Ward HAC on dense, k-NN- and SD-sparsified cosine similarity matrices (IC paper 5.2-5.3)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import pdist, squareform
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score

from tests.pipeline.fake_estimators import write_config, write_corpus
from tests.naive.sparsify import knn_sparsify_naive, sd_sparsify_naive
from shortclust.config import load_config
from shortclust.data import Corpus
from shortclust.errors import ParameterError
from shortclust.pipeline.runner import run_experiment
from shortclust.models import get_model_class
from shortclust.models.hac.hac import _cut
from shortclust.models.hac.hac_similarity import (HACkNN, HACSD, HACSimilarity, HACWard,
                                              condensed_cosine_distances,
                                              condensed_from_sparse, similarity_matrix,
                                              unit_vectors)

CLASSES = [HACWard, HACkNN, HACSD]


def planted_counts(n_docs=90, n_topics=4, words_per_topic=10, seed=0, empty=True):
    """Documents drawn from disjoint topic vocabularies (integer counts), one of them empty."""
    rng = np.random.default_rng(seed)
    topics = np.sort(rng.integers(0, n_topics, size=n_docs))
    rows = np.zeros((n_docs, n_topics * words_per_topic), dtype=np.int64)
    for d, t in enumerate(topics):
        for _ in range(rng.integers(3, 8)):
            rows[d, t * words_per_topic + rng.integers(0, words_per_topic)] += 1
    if empty:
        rows[n_docs // 2] = 0
    return sp.csr_matrix(rows), topics


def planted_vectors(n_docs=60, n_topics=3, dim=12, seed=0, spread=0.3):
    """Dense float vectors around random directions, like averaged word embeddings."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_topics, dim))
    topics = rng.integers(0, n_topics, size=n_docs)
    return centres[topics] + spread * rng.standard_normal((n_docs, dim)), topics


# --- contract ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name, model_class, sparsify", [
    ("hac_ward", HACWard, "none"), ("hac_knn", HACkNN, "knn"), ("hac_sd", HACSD, "sd")])
def test_registered_under_their_config_names(name, model_class, sparsify):
    assert get_model_class(name) is model_class
    assert model_class().sparsify == sparsify and issubclass(model_class, HACSimilarity)


@pytest.mark.parametrize("model_class", CLASSES + [HACSimilarity])
def test_clone_and_get_params_round_trip(model_class):
    model = model_class(n_clusters=5, k=3, random_state=2)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert set(model.get_params()) == {"n_clusters", "sparsify", "k", "graph", "max_docs",
                                       "ann_docs", "random_state"}
    assert model_class().set_params(**model.get_params()).get_params() == model.get_params()


@pytest.mark.parametrize("params, name", [
    ({"n_clusters": 0}, "n_clusters"), ({"n_clusters": 2.0}, "n_clusters"),
    ({"sparsify": "mutual"}, "sparsify"), ({"k": 0}, "k must"), ({"k": 2.5}, "k must"),
    ({"k": True}, "k must"), ({"max_docs": 0}, "max_docs"), ({"ann_docs": 0}, "ann_docs"),
])
def test_bad_parameters_raise_one_line_parameter_errors(params, name):
    X, _ = planted_counts()
    with pytest.raises(ParameterError, match=name) as raised:
        HACSimilarity(**params).fit(X)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("model_class", CLASSES)
def test_fitted_attributes(model_class):
    X, _ = planted_counts()
    calls = []
    model = model_class(n_clusters=4).fit(X, callback=lambda *a: calls.append(a))
    n = X.shape[0]
    assert model.labels_.shape == (n,) and model.labels_.dtype == np.int64
    assert model.n_clusters_ == 4 and set(model.labels_) == set(range(4))
    assert model.n_iter_ == n - 4 and model.merges_.shape == (n - 1, 4)
    assert calls == [(1, 1, 4)]
    assert 0 < model.n_retained_ <= n * (n - 1) // 2
    assert model.k_ == (n // 4 - 1 if model.sparsify == "knn" else None)
    assert model.n_features_in_ == X.shape[1] and model.vocabulary_ is None
    np.testing.assert_array_equal(model.fit_predict(X), model.labels_)
    assert len(model.top_words(3)) == 4


@pytest.mark.parametrize("model_class", CLASSES)
def test_deterministic_and_the_seed_is_ignored(model_class):
    X, _ = planted_counts(seed=3, n_topics=6)
    first = model_class(n_clusters=5, random_state=0).fit(X).labels_
    np.testing.assert_array_equal(first, model_class(n_clusters=5, random_state=7).fit(X).labels_)
    np.testing.assert_array_equal(
        first, model_class(n_clusters=5, random_state=np.random.default_rng(1)).fit(X).labels_)


# --- what it computes -------------------------------------------------------------------------

@pytest.mark.parametrize("model_class", CLASSES)
def test_planted_clusters_are_recovered_from_counts_and_from_vectors(model_class):
    X, topics = planted_counts(seed=2)
    labels = model_class(n_clusters=4).fit(X).labels_
    keep = np.arange(X.shape[0]) != X.shape[0] // 2  # the empty document goes anywhere
    assert adjusted_rand_score(topics[keep], labels[keep]) == 1.0
    vectors, topics = planted_vectors(seed=4)
    assert adjusted_rand_score(topics, model_class(n_clusters=3).fit(vectors).labels_) == 1.0


def test_distances_are_one_minus_similarity_and_one_where_removed():
    kept = sp.csr_matrix(np.array([[1.0, 0.9, 0.0, 0.0],
                                   [0.9, 1.0, 0.0, 0.8],
                                   [0.0, 0.0, 1.0, 0.4],
                                   [0.0, 0.8, 0.4, 1.0]]))
    expected = np.array([[0, 0.1, 1, 1], [0.1, 0, 1, 0.2], [1, 1, 0, 0.6], [1, 0.2, 0.6, 0]])
    np.testing.assert_allclose(condensed_from_sparse(kept), squareform(expected), atol=1e-12)
    rng = np.random.default_rng(0)
    vectors, _ = unit_vectors(rng.random((9, 5)))
    np.testing.assert_allclose(condensed_cosine_distances(vectors), pdist(vectors, "cosine"),
                               atol=1e-12)


@pytest.mark.kernels
@pytest.mark.parametrize("sparsify", ["none", "knn", "sd"])
@pytest.mark.parametrize("seed", [0, 1])
def test_same_tree_as_scipy_on_the_reference_sparsified_matrix(sparsify, seed):
    # End to end against the slow references: cosine similarities, the naive sparsifier,
    # distances 1 - s (1 where removed), scipy's Ward, the same cut.
    vectors, _ = planted_vectors(n_docs=40, n_topics=4, seed=seed, spread=0.8)
    model = HACSimilarity(n_clusters=4, sparsify=sparsify, k=5).fit(vectors)
    unit, _ = unit_vectors(vectors)
    S = (unit @ unit.T).tolist()
    if sparsify == "none":
        kept = np.array(S)
    elif sparsify == "knn":
        kept = np.array(knn_sparsify_naive(S, 5)[0])
    else:
        kept = np.array(sd_sparsify_naive(S, 4)[0])
    distances = np.maximum(1.0 - kept, 0.0)
    np.fill_diagonal(distances, 0.0)
    reference = linkage(squareform(distances, checks=False), method="ward")
    np.testing.assert_allclose(model.merges_, reference, atol=1e-5)
    np.testing.assert_array_equal(model.labels_, _cut(reference, 40, 4))


def test_knn_with_every_neighbour_is_the_dense_hac():
    vectors, _ = planted_vectors(n_docs=30, n_topics=5, spread=1.0, seed=6)
    dense = HACWard(n_clusters=5).fit(vectors).labels_
    np.testing.assert_array_equal(HACkNN(n_clusters=5, k=29).fit(vectors).labels_, dense)
    np.testing.assert_array_equal(HACSD(n_clusters=1).fit(vectors).n_retained_, 30 * 29 // 2)


def test_default_k_is_the_average_cluster_size_minus_one():
    X, _ = planted_counts(n_docs=90)
    assert HACkNN(n_clusters=4).fit(X).k_ == 21
    assert HACkNN(n_clusters=60).fit(X).k_ == 1  # 90 // 60 - 1 = 0, raised to 1
    assert HACkNN(n_clusters=4, k=7).fit(X).k_ == 7


def test_sd_keeps_algorithm_2s_budget():
    X, _ = planted_counts(n_docs=90)
    assert HACSD(n_clusters=4).fit(X).n_retained_ == (90 * (90 - 4)) // 8


# --- input ------------------------------------------------------------------------------------

def test_counts_become_tfidf_and_vectors_unit_rows():
    corpus = Corpus.from_texts(["a b a", "b c", "", "c c d"])
    vectors, vocabulary = unit_vectors(corpus)
    assert vocabulary == corpus.vocabulary
    np.testing.assert_allclose(vectors.toarray(), corpus.tfidf().toarray())
    dense, none = unit_vectors(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert none is None and dense.tolist() == [[0.6, 0.8], [0.0, 0.0]]
    sparse, _ = unit_vectors(sp.csr_matrix([[3.0, 4.0], [0.0, 2.0]]))
    assert sp.issparse(sparse) and sparse.toarray().tolist() == [[0.6, 0.8], [0.0, 1.0]]
    assert sp.issparse(unit_vectors(np.array([[1, 2], [0, 1]]))[0])  # int: counts


def test_corpus_counts_and_dense_tfidf_give_the_same_labels():
    corpus = Corpus.from_texts(["apple banana fruit", "banana fruit salad", "apple pie fruit",
                                "python code bug", "code review python", "bug fix code"])
    for model_class in CLASSES:
        from_corpus = model_class(n_clusters=2).fit(corpus)
        np.testing.assert_array_equal(from_corpus.labels_,
                                      model_class(n_clusters=2).fit(corpus.counts).labels_)
        np.testing.assert_array_equal(
            from_corpus.labels_, model_class(n_clusters=2).fit(corpus.tfidf().toarray()).labels_)
        assert from_corpus.vocabulary_ == corpus.vocabulary
        assert all(isinstance(w, str) for words in from_corpus.top_words(2) for w, _ in words)


def test_similarity_matrix_is_float32_and_symmetric():
    vectors, _ = unit_vectors(planted_vectors(n_docs=20)[0])
    S = similarity_matrix(vectors)
    assert S.dtype == np.float32 and S.shape == (20, 20)
    np.testing.assert_allclose(S, vectors @ vectors.T, atol=1e-6)


@pytest.mark.parametrize("X, message", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN or infinite"),
    (sp.csr_matrix(np.array([[np.inf, 1.0], [0.0, 1.0]])), "NaN or infinite"),
    (np.ones(5), "2-D"),
    (np.zeros((0, 3)), "non-empty"),
    (np.array([["a", "b"]]), "numeric"),
    (sp.csr_matrix(np.array([[-1, 2]])), "non-negative integer"),
])
def test_malformed_input_is_a_one_line_parameter_error(X, message):
    for model_class in CLASSES:
        with pytest.raises(ParameterError, match=message) as raised:
            model_class(n_clusters=1).fit(X)
        assert "\n" not in str(raised.value)


# --- degenerate input -------------------------------------------------------------------------

@pytest.mark.parametrize("model_class", CLASSES)
def test_a_single_document(model_class):
    model = model_class(n_clusters=1).fit(np.array([[0.2, 0.5]]))
    assert model.labels_.tolist() == [0] and model.n_iter_ == 0 and model.n_clusters_ == 1
    assert model_class(n_clusters=1).fit(sp.csr_matrix([[0, 0]])).labels_.tolist() == [0]


@pytest.mark.parametrize("model_class", CLASSES)
def test_more_clusters_than_documents_is_refused(model_class):
    X, _ = planted_counts(n_docs=5)
    with pytest.raises(ParameterError, match="n_clusters=6 is more than the 5 documents"):
        model_class(n_clusters=6).fit(X)
    assert len(set(model_class(n_clusters=5).fit(X).labels_)) == 5  # K = n: singletons


@pytest.mark.parametrize("model_class", CLASSES)
def test_empty_documents_never_make_nan(model_class):
    X, _ = planted_counts(seed=8)
    X = sp.vstack([X, sp.csr_matrix((3, X.shape[1]), dtype=np.int64)]).tocsr()
    model = model_class(n_clusters=4).fit(X)
    assert np.isfinite(model.merges_).all() and model.n_clusters_ == 4
    everything_empty = model_class(n_clusters=2).fit(sp.csr_matrix((6, 3), dtype=np.int64))
    assert np.isfinite(everything_empty.merges_).all()
    assert everything_empty.n_clusters_ == 2


def test_a_corpus_above_max_docs_is_refused_before_any_work():
    X, _ = planted_counts(n_docs=50)
    with pytest.raises(ParameterError, match="50 documents.*max_docs=40") as raised:
        HACSD(n_clusters=2, max_docs=40).fit(X)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("name", ["hac_ward", "hac_knn", "hac_sd"])
def test_the_runner_runs_them_from_a_config(tmp_path, name):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": name, "params": {"n_clusters": 3}}, runs=2)
    records = run_experiment(load_config(path), quiet=True).records
    assert [r["seed"] for r in records] == [0, 1]
    assert all(r["n_clusters"] == 3 and r["metrics"]["acc"] == 1.0 for r in records)
