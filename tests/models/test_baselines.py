"""The scikit-learn baselines (KMeans, MiniBatchKMeans, HAC): contract, edge cases, recovery."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.cluster import AgglomerativeClustering
from sklearn.cluster import KMeans as SklearnKMeans
from sklearn.metrics import adjusted_rand_score

from tests.pipeline.fake_estimators import LABELS, TEXTS, write_config, write_corpus
from shortclust.config import load_config
from shortclust.data import Corpus
from shortclust.errors import ConfigError, ParameterError
from shortclust.pipeline.runner import run_experiment
from shortclust.models import get_model_class
from shortclust.models.hac.hac import HAC, _with_empty_axis
from shortclust.models.kmeans.kmeans import KMeans, sklearn_random_state, tfidf
from shortclust.models.kmeans.minibatch_kmeans import MiniBatchKMeans

# Small settings so every fit takes milliseconds.
FAST = {
    KMeans: {"n_clusters": 4, "n_init": 3},
    MiniBatchKMeans: {"n_clusters": 4, "batch_fraction": 0.25, "n_init": 3},
    HAC: {"n_clusters": 4},
}
MODELS = list(FAST)


def planted_corpus(n_docs=80, n_topics=4, words_per_topic=12, seed=0, max_len=8):
    """Documents drawn from disjoint topic vocabularies, with repeats and one empty row."""
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, n_topics, size=n_docs)
    rows = np.zeros((n_docs, n_topics * words_per_topic), dtype=np.int64)
    for d, t in enumerate(topics):
        for _ in range(rng.integers(2, max_len + 1)):
            rows[d, t * words_per_topic + rng.integers(0, words_per_topic)] += 1
    empty = n_docs // 2
    rows[empty] = 0  # an empty document, as in GoogleNews-T
    return sp.csr_matrix(rows), topics, empty


def make(model_class, **changes):
    return model_class(**{**FAST[model_class], **changes})


@pytest.mark.parametrize("name, model_class", [
    ("kmeans", KMeans), ("minibatch_kmeans", MiniBatchKMeans), ("hac", HAC)])
def test_registered_under_their_config_names(name, model_class):
    assert get_model_class(name) is model_class


@pytest.mark.parametrize("model_class", MODELS)
def test_clone_and_get_params_round_trip(model_class):
    model = make(model_class, random_state=3)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert model_class().set_params(**model.get_params()).get_params() == model.get_params()
    assert "random_state" in model.get_params()


@pytest.mark.parametrize("model_class, params, name", [
    (KMeans, {"n_clusters": 0}, "n_clusters"),
    (KMeans, {"n_init": 0}, "n_init"),
    (KMeans, {"max_iter": 2.5}, "max_iter"),
    (KMeans, {"tol": -1e-3}, "tol"),
    (KMeans, {"tol": float("nan")}, "tol"),
    (MiniBatchKMeans, {"n_clusters": True}, "n_clusters"),
    (MiniBatchKMeans, {"batch_fraction": 0.0}, "batch_fraction"),
    (MiniBatchKMeans, {"batch_fraction": 1.5}, "batch_fraction"),
    (MiniBatchKMeans, {"batch_fraction": "1%"}, "batch_fraction"),
    (MiniBatchKMeans, {"max_iter": 0}, "max_iter"),
    (MiniBatchKMeans, {"n_init": -1}, "n_init"),
    (HAC, {"n_clusters": -2}, "n_clusters"),
    (HAC, {"linkage": "centroid"}, "linkage"),
    (HAC, {"metric": "jaccard"}, "metric"),
    (HAC, {"linkage": "ward", "metric": "cosine"}, "ward"),
    (HAC, {"max_docs": 1}, "max_docs"),
])
def test_bad_parameters_raise_one_line_parameter_errors(model_class, params, name):
    X, _, _ = planted_corpus()
    with pytest.raises(ParameterError, match=name) as raised:
        model_class(**params).fit(X)
    assert "\n" not in str(raised.value)


def test_bad_parameter_in_a_config_is_caught_before_any_fit(tmp_path):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": "minibatch_kmeans", "params": {"batch_fraction": 2}})
    with pytest.raises(ConfigError, match="batch_fraction"):
        run_experiment(load_config(path), quiet=True)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("model_class", MODELS)
def test_fitted_attributes(model_class):
    X, _, _ = planted_corpus()
    calls = []
    model = make(model_class, random_state=0).fit(X, callback=lambda *a: calls.append(a))
    assert model.labels_.shape == (X.shape[0],) and model.labels_.dtype == np.int64
    assert model.n_clusters_ == len(np.unique(model.labels_)) == 4
    assert set(model.labels_) <= set(range(4))
    assert isinstance(model.n_iter_, int) and model.n_iter_ >= 1
    assert model.n_features_in_ == X.shape[1] and model.vocabulary_ is None
    assert calls and calls[-1][2] == model.n_clusters_
    np.testing.assert_array_equal(model.fit_predict(X), model.labels_)
    top = model.top_words(3)
    assert len(top) == 4 and all(len(words) == 3 for words in top)


@pytest.mark.parametrize("model_class", MODELS)
def test_same_seed_same_labels(model_class):
    X, _, _ = planted_corpus(n_topics=6, seed=5)
    first = make(model_class, n_clusters=5, random_state=11).fit(X).labels_
    again = make(model_class, n_clusters=5, random_state=11).fit(X).labels_
    generator = make(model_class, n_clusters=5,
                     random_state=np.random.default_rng(11)).fit(X).labels_
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, generator)


def test_seeds_change_the_kmeans_initialisation():
    X, _, _ = planted_corpus(n_topics=8, seed=6)
    labelings = {tuple(KMeans(n_clusters=3, n_init=1, random_state=s).fit(X).labels_)
                 for s in range(6)}
    assert len(labelings) > 1


def test_hac_ignores_the_seed():
    X, _, _ = planted_corpus(seed=7)
    np.testing.assert_array_equal(HAC(n_clusters=3, random_state=0).fit(X).labels_,
                                  HAC(n_clusters=3, random_state=99).fit(X).labels_)


@pytest.mark.parametrize("model_class", MODELS)
def test_corpus_and_csr_give_the_same_labels(model_class):
    corpus = Corpus.from_texts(TEXTS, labels=LABELS)
    from_corpus = make(model_class, n_clusters=3, random_state=1).fit(corpus)
    from_csr = make(model_class, n_clusters=3, random_state=1).fit(corpus.counts)
    np.testing.assert_array_equal(from_corpus.labels_, from_csr.labels_)
    assert from_corpus.vocabulary_ == corpus.vocabulary
    assert all(isinstance(word, str) for words in from_corpus.top_words(2) for word, _ in words)
    assert all(isinstance(word, int) for words in from_csr.top_words(2) for word, _ in words)


@pytest.mark.parametrize("model_class", MODELS)
def test_planted_clusters_are_recovered_empty_document_included(model_class):
    X, topics, empty = planted_corpus(n_docs=120, seed=2)
    params = {"batch_fraction": 0.1, "n_init": 5} if model_class is MiniBatchKMeans else {}
    labels = make(model_class, random_state=0, **params).fit(X).labels_
    keep = np.arange(X.shape[0]) != empty
    assert adjusted_rand_score(topics[keep], labels[keep]) == 1.0


@pytest.mark.parametrize("model_class", MODELS)
def test_several_empty_documents(model_class):
    X, _, _ = planted_corpus(seed=8)
    X = sp.vstack([X, sp.csr_matrix((3, X.shape[1]), dtype=np.int64)]).tocsr()
    labels = make(model_class, random_state=0).fit(X).labels_
    assert labels.shape == (X.shape[0],)
    if model_class is HAC:  # empty documents are identical to each other
        assert len(set(labels[-3:])) == 1


@pytest.mark.parametrize("model_class", MODELS)
def test_more_clusters_than_documents_is_refused(model_class):
    X, _, _ = planted_corpus(n_docs=5)
    with pytest.raises(ParameterError, match="n_clusters=6 is more than the 5 documents"):
        model_class(n_clusters=6).fit(X)


@pytest.mark.parametrize("model_class", [KMeans, MiniBatchKMeans])
def test_predict_uses_the_fitted_idf_and_centroids(model_class):
    X, _, _ = planted_corpus(seed=9)
    model = make(model_class, random_state=0).fit(X)
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    np.testing.assert_array_equal(model.predict(X[:7]), model.labels_[:7])  # idf not refitted
    with pytest.raises(ParameterError, match="word columns"):
        model.predict(X[:, :-1])


def test_kmeans_keeps_the_best_initialisation_as_scikit_learn_would():
    X, _, _ = planted_corpus(n_topics=8, seed=10)
    calls = []
    best = KMeans(n_clusters=3, n_init=5, random_state=0)
    best.fit(X, callback=lambda *a: calls.append(a))
    assert [c[:2] for c in calls] == [(i, 5) for i in range(1, 6)]
    assert best.inertia_ <= KMeans(n_clusters=3, n_init=1, random_state=0).fit(X).inertia_
    # The same seedings as scikit-learn's own n_init loop on the same RandomState.
    theirs = SklearnKMeans(n_clusters=3, n_init=5, tol=1e-7,
                           random_state=sklearn_random_state(0)).fit(tfidf(X)[1])
    assert best.inertia_ == pytest.approx(theirs.inertia_, rel=1e-12)
    assert adjusted_rand_score(theirs.labels_, best.labels_) == 1.0


def test_minibatch_batches_are_the_given_fraction():
    X, _, _ = planted_corpus(n_docs=200)
    model = MiniBatchKMeans(n_clusters=4, batch_fraction=0.05, max_iter=2, random_state=0).fit(X)
    assert model.batch_size_ == 10
    assert model.n_steps_ <= 2 * 200 // 10 and model.n_iter_ <= 2
    assert MiniBatchKMeans(n_clusters=1, batch_fraction=1e-6).fit(X).batch_size_ == 1


@pytest.mark.parametrize("linkage, metric", [
    ("average", "cosine"), ("complete", "cosine"), ("single", "cosine"),
    ("average", "euclidean"), ("ward", "euclidean")])
def test_hac_matches_scikit_learn_on_dense_vectors(linkage, metric):
    X, _, _ = planted_corpus(n_docs=90, n_topics=5, seed=12, words_per_topic=6)
    X = (X + sp.random(90, X.shape[1], density=0.05, random_state=1, format="csr")
         .ceil().astype(np.int64)).tocsr()  # overlapping topics: a real tree to cut
    ours = HAC(n_clusters=6, linkage=linkage, metric=metric).fit(X).labels_
    _, weights = tfidf(X)
    dense = _with_empty_axis(weights).toarray()
    theirs = AgglomerativeClustering(n_clusters=6, linkage=linkage, metric=metric).fit(dense)
    assert adjusted_rand_score(theirs.labels_, ours) == 1.0


def test_hac_labels_count_from_the_first_document():
    X, _, _ = planted_corpus(seed=13)
    labels = HAC(n_clusters=4).fit(X).labels_
    _, first = np.unique(labels, return_index=True)
    assert labels[np.sort(first)].tolist() == [0, 1, 2, 3]
    assert HAC(n_clusters=1).fit(X[:1]).labels_.tolist() == [0]


def test_hac_refuses_a_corpus_too_large_for_its_distance_matrix():
    X, _, _ = planted_corpus(n_docs=50)
    with pytest.raises(ParameterError, match="50 documents.*max_docs=40.*kmeans") as raised:
        HAC(n_clusters=2, max_docs=40).fit(X)
    assert "\n" not in str(raised.value)
    assert HAC(n_clusters=2, max_docs=50).fit(X).n_clusters_ == 2


@pytest.mark.parametrize("name, params", [
    ("kmeans", {"n_clusters": 3, "n_init": 2}),
    ("minibatch_kmeans", {"n_clusters": 3, "batch_fraction": 0.5}),
    ("hac", {"n_clusters": 3}),
])
def test_the_runner_runs_them_from_a_config(tmp_path, name, params):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": name, "params": params}, runs=2)
    result = run_experiment(load_config(path), quiet=True)
    assert [r["seed"] for r in result.records] == [0, 1]
    for record in result.records:
        assert record["n_clusters"] == 3 and record["n_iter"] >= 1
        assert record["params"]["n_clusters"] == 3


# --- document vectors (float input) for the K-means models ----------------------------------

KMEANS_MODELS = [KMeans, MiniBatchKMeans]


def planted_vectors(n_docs=80, n_topics=4, dim=10, seed=0):
    """Dense float vectors (embedding-like) around well separated directions, rows of any length."""
    rng = np.random.default_rng(seed)
    topics = np.arange(n_docs) % n_topics
    directions = rng.normal(size=(n_topics, dim)) * 5.0
    vectors = directions[topics] + rng.normal(scale=0.3, size=(n_docs, dim))
    return vectors * rng.uniform(0.5, 3.0, size=(n_docs, 1)), topics


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
def test_dense_float_vectors_are_clustered_as_given_after_l2_normalisation(model_class):
    vectors, topics = planted_vectors()
    model = make(model_class, random_state=0).fit(vectors)
    assert adjusted_rand_score(topics, model.labels_) == 1.0
    assert model.n_features_in_ == vectors.shape[1]
    assert model.idf_ is None and model.vocabulary_ is None
    assert model.labels_.dtype == np.int64 and model.cluster_centers_.shape == (4, 10)
    # Rows are scaled to unit length: rescaling a document changes nothing.
    rescaled = vectors * np.linspace(0.1, 10.0, vectors.shape[0])[:, None]
    np.testing.assert_array_equal(make(model_class, random_state=0).fit(rescaled).labels_,
                                  model.labels_)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert np.allclose(np.linalg.norm(model.cluster_centers_, axis=1), 1.0, atol=0.1)
    assert model.inertia_ == pytest.approx(
        ((unit - model.cluster_centers_[model.labels_]) ** 2).sum(), rel=1e-6)


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
def test_sparse_float_tfidf_gives_the_labels_of_the_counts(model_class):
    X, topics, empty = planted_corpus(n_docs=120, seed=2)
    params = {"batch_fraction": 0.1, "n_init": 5} if model_class is MiniBatchKMeans else {}
    weights = tfidf(X)[1]  # float CSR, as the representation layer's "tfidf"
    assert sp.issparse(weights) and weights.dtype == np.float64
    from_vectors = make(model_class, random_state=0, **params).fit(weights)
    from_counts = make(model_class, random_state=0, **params).fit(X)
    assert from_vectors.idf_ is None and from_counts.idf_ is not None
    assert adjusted_rand_score(from_counts.labels_, from_vectors.labels_) == 1.0
    keep = np.arange(X.shape[0]) != empty
    assert adjusted_rand_score(topics[keep], from_vectors.labels_[keep]) == 1.0
    assert from_vectors.inertia_ == pytest.approx(from_counts.inertia_, rel=1e-9)
    # The representation layer's TF-IDF: the same rows up to the last bit (normalised
    # twice), so K-means finds the same clusters. (Mini-batch K-means on 12 documents in
    # batches of 3 is too chaotic for a last-bit change to leave it alone.)
    if model_class is KMeans:
        corpus = Corpus.from_texts(TEXTS, labels=LABELS)
        from_representation = KMeans(n_clusters=3, n_init=3, random_state=1).fit(corpus.tfidf())
        from_corpus = KMeans(n_clusters=3, n_init=3, random_state=1).fit(corpus)
        assert adjusted_rand_score(from_corpus.labels_, from_representation.labels_) == 1.0


def test_a_float_matrix_is_vectors_an_integer_one_is_counts():
    X, _, _ = planted_corpus(seed=3)
    as_counts = KMeans(n_clusters=4, n_init=2, random_state=0).fit(X.toarray())
    as_vectors = KMeans(n_clusters=4, n_init=2, random_state=0).fit(X.toarray().astype(float))
    assert as_counts.idf_ is not None and as_vectors.idf_ is None
    np.testing.assert_array_equal(as_counts.labels_,
                                  KMeans(n_clusters=4, n_init=2, random_state=0).fit(X).labels_)


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
@pytest.mark.parametrize("sparse", [False, True])
def test_predict_on_vectors_normalises_the_rows(model_class, sparse):
    vectors, _ = planted_vectors(seed=4)
    fitted = sp.csr_matrix(vectors) if sparse else vectors
    model = make(model_class, random_state=0).fit(fitted)
    np.testing.assert_array_equal(model.predict(fitted), model.labels_)
    np.testing.assert_array_equal(model.predict(7.5 * vectors[:7]), model.labels_[:7])
    np.testing.assert_array_equal(model.predict(sp.csr_matrix(vectors[:7] / 3)),
                                  model.labels_[:7])  # dense or sparse: both are vectors
    assert model.predict(vectors[:5].tolist()).tolist() == model.labels_[:5].tolist()
    with pytest.raises(ParameterError, match="9 columns .* vectors of 10") as raised:
        model.predict(vectors[:, :-1])
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
def test_predict_refuses_another_kind_of_input_than_fit_had(model_class):
    X, _, _ = planted_corpus(seed=9)
    on_counts = make(model_class, random_state=0).fit(X)
    for vectors in (tfidf(X)[1], X.toarray().astype(np.float64), X.astype(np.float32)):
        with pytest.raises(ParameterError, match="fitted on word counts but X holds document "
                                                 "vectors") as raised:
            on_counts.predict(vectors)
        assert "\n" not in str(raised.value)
    on_vectors = make(model_class, random_state=0).fit(tfidf(X)[1])
    corpus = Corpus.from_texts(TEXTS, labels=LABELS)
    for counts in (X, X.toarray(), corpus):
        with pytest.raises(ParameterError, match="fitted on document vectors but X holds word "
                                                 "counts") as raised:
            on_vectors.predict(counts)
        assert "\n" not in str(raised.value)


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
def test_top_words_after_vectors_need_a_vocabulary(model_class):
    vectors, _ = planted_vectors(seed=5)
    model = make(model_class, random_state=0).fit(vectors)
    with pytest.raises(ParameterError, match="top_words needs a vocabulary") as raised:
        model.top_words(3)
    assert "\n" not in str(raised.value)
    words = [f"w{i}" for i in range(vectors.shape[1])]
    top = model.top_words(3, vocabulary=words)
    assert len(top) == 4 and all(len(row) == 3 and row[0][0] in words for row in top)
    with pytest.raises(ParameterError, match="n must be"):
        model.top_words(0, vocabulary=words)
    # Counts keep their behaviour: column indices without a vocabulary.
    X, _, _ = planted_corpus()
    assert isinstance(make(model_class, random_state=0).fit(X).top_words(2)[0][0][0], int)


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
@pytest.mark.parametrize("bad, message", [
    (np.array([[1.0, np.nan], [0.5, 0.5]]), "NaN or infinite"),
    (np.zeros((0, 3)), "non-empty 2-D"),
    (np.ones(4), "non-empty 2-D"),
    ([[1.0, 2.0], ["a", 0.5]], "numeric matrix"),
])
def test_malformed_vectors_raise_one_line_parameter_errors(model_class, bad, message):
    with pytest.raises(ParameterError, match=message) as raised:
        model_class(n_clusters=1).fit(bad)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("model_class", KMEANS_MODELS)
def test_more_clusters_than_vectors_is_refused(model_class):
    vectors, _ = planted_vectors(n_docs=5)
    with pytest.raises(ParameterError, match="n_clusters=6 is more than the 5 documents"):
        model_class(n_clusters=6).fit(vectors)


def test_the_input_rule_is_shared_and_still_importable_from_hac_similarity():
    from shortclust.models.common import tfidf as _tfidf_common
    from shortclust.models.hac import hac_similarity
    from shortclust.models.kmeans import kmeans_minus

    assert hac_similarity.unit_vectors is _tfidf_common.unit_vectors
    assert hac_similarity._holds_counts is _tfidf_common._holds_counts
    assert kmeans_minus.unit_vectors is _tfidf_common.unit_vectors
    assert _tfidf_common._holds_counts(Corpus.from_texts(TEXTS))
    assert _tfidf_common._holds_counts(np.array([[1, 0]], dtype=np.int32))
    assert not _tfidf_common._holds_counts(np.array([[1.0, 0.0]]))
    assert not _tfidf_common._holds_counts([[1.0], [1.0, 2.0]])  # ragged: refused as vectors


def test_the_runner_fits_kmeans_on_a_tfidf_representation(tmp_path):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": "kmeans", "params": {"n_clusters": 3, "n_init": 2}},
                        representation={"name": "tfidf"}, runs=1)
    result = run_experiment(load_config(path), quiet=True)
    assert result.records[0]["n_clusters"] == 3
