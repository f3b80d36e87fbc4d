"""k-means-- (Chawla & Gionis 2013) as the IC paper's section 5.1 uses it."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.cluster import KMeans as SklearnKMeans
from sklearn.cluster import kmeans_plusplus
from sklearn.metrics import adjusted_rand_score

from tests.pipeline.fake_estimators import write_config, write_corpus
from shortclust.config import load_config
from shortclust.data import Corpus
from shortclust.errors import ParameterError
from shortclust.pipeline.runner import run_experiment
from shortclust.models import get_model_class
from shortclust.models.hac.hac_similarity import unit_vectors
from shortclust.models.kmeans.kmeans_minus import (KMeansMinus, _assign, _farthest, _lloyd_minus,
                                            _means, _squared_norms)


def planted(n_docs=90, n_topics=3, dim=10, seed=0, n_far=0):
    """Unit-ish vectors around random directions, plus ``n_far`` points pointing elsewhere."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_topics, dim))
    topics = rng.integers(0, n_topics, size=n_docs)
    X = centres[topics] + 0.3 * rng.standard_normal((n_docs, dim))
    if n_far:
        X = np.vstack([X, rng.standard_normal((n_far, dim))])
    return X, topics


def naive_step(X, centres, n_outliers):
    """One iteration of Chawla & Gionis' Algorithm 1, written out with loops."""
    unit = [x / np.linalg.norm(x) if np.linalg.norm(x) > 0 else x for x in X]
    nearest, distance = [], []
    for x in unit:
        d = [float(np.sum((x - c) ** 2)) for c in centres]
        nearest.append(int(np.argmin(d)))
        distance.append(min(d))
    # Stable sort by decreasing distance: the first l are the outliers.
    order = sorted(range(len(unit)), key=lambda i: -distance[i])
    outliers = set(order[:n_outliers])
    new = []
    for j, c in enumerate(centres):
        members = [unit[i] for i in range(len(unit)) if nearest[i] == j and i not in outliers]
        new.append(np.mean(members, axis=0) if members else c)
    return np.array(new), outliers


def test_registered_as_kmeans_minus():
    assert get_model_class("kmeans_minus") is KMeansMinus


def test_clone_and_get_params_round_trip():
    model = KMeansMinus(n_clusters=4, n_outliers=3, n_init=2, random_state=5)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert KMeansMinus().set_params(**model.get_params()).get_params() == model.get_params()


@pytest.mark.parametrize("params, name", [
    ({"n_clusters": 0}, "n_clusters"), ({"n_init": 0}, "n_init"),
    ({"max_iter": 1.5}, "max_iter"), ({"n_outliers": -1}, "n_outliers"),
    ({"n_outliers": 1.0}, "n_outliers"), ({"n_outliers": -0.1}, "n_outliers"),
    ({"n_outliers": "5%"}, "n_outliers"), ({"n_outliers": True}, "n_outliers"),
    ({"n_outliers": float("nan")}, "n_outliers"), ({"n_outliers": 90}, "n_outliers=90"),
])
def test_bad_parameters_raise_one_line_parameter_errors(params, name):
    X, _ = planted()
    with pytest.raises(ParameterError, match=name) as raised:
        KMeansMinus(**params).fit(X)
    assert "\n" not in str(raised.value)


def test_fitted_attributes():
    X, _ = planted(n_far=5)
    calls = []
    model = KMeansMinus(n_clusters=3, n_outliers=5, n_init=3, random_state=0)
    model.fit(X, callback=lambda *a: calls.append(a))
    assert model.labels_.shape == (95,) and model.labels_.dtype == np.int64
    assert model.n_clusters_ == 3 and isinstance(model.n_iter_, int) and model.n_iter_ >= 1
    assert model.cluster_centers_.shape == (3, 10) and model.n_outliers_ == 5
    assert model.outlier_mask_.sum() == 5 and model.inertia_ > 0
    assert [c[:2] for c in calls] == [(1, 3), (2, 3), (3, 3)] and calls[-1][2] == 3
    np.testing.assert_array_equal(model.fit_predict(X), model.labels_)
    assert KMeansMinus(n_clusters=3, n_outliers=0.1).fit(X).n_outliers_ == 9  # floor(9.5)
    assert KMeansMinus(n_clusters=3).fit(X).n_outliers_ == 4  # default 5%: floor(4.75)


def test_same_seed_same_labels_and_seeds_matter():
    X, _ = planted(n_topics=6, seed=3)
    first = KMeansMinus(n_clusters=5, n_init=1, random_state=11).fit(X).labels_
    np.testing.assert_array_equal(first, KMeansMinus(n_clusters=5, n_init=1,
                                                     random_state=11).fit(X).labels_)
    np.testing.assert_array_equal(
        first, KMeansMinus(n_clusters=5, n_init=1,
                           random_state=np.random.default_rng(11)).fit(X).labels_)
    labelings = {tuple(KMeansMinus(n_clusters=5, n_init=1, random_state=s).fit(X).labels_)
                 for s in range(6)}
    assert len(labelings) > 1


def test_planted_clusters_recovered_and_far_points_set_aside():
    X, topics = planted(n_far=6, seed=1)
    model = KMeansMinus(n_clusters=3, n_outliers=6, random_state=0).fit(X)
    assert adjusted_rand_score(topics, model.labels_[:90]) == 1.0
    assert model.outlier_mask_[90:].all() and model.labels_.shape == (96,)  # labelled too


def test_one_iteration_matches_the_written_out_algorithm():
    X, _ = planted(n_far=4, seed=2)
    vectors, _ = unit_vectors(X)
    centres = kmeans_plusplus(vectors, 3, random_state=0)[0]
    squares = _squared_norms(vectors)
    nearest, distances = _assign(vectors, squares, centres)
    outliers = _farthest(distances, 7)
    expected_centres, expected_outliers = naive_step(X, centres, 7)
    assert set(np.flatnonzero(outliers)) == expected_outliers
    np.testing.assert_allclose(_means(vectors, nearest, ~outliers, centres), expected_centres)


def test_without_outliers_it_is_lloyds_kmeans_from_the_same_seeding():
    X, _ = planted(n_topics=5, seed=4)
    vectors, _ = unit_vectors(X)
    centres = kmeans_plusplus(vectors, 5, random_state=3)[0]
    ours = _lloyd_minus(vectors, _squared_norms(vectors), centres, 0, 300)
    theirs = SklearnKMeans(n_clusters=5, init=centres, n_init=1, tol=0,
                           algorithm="lloyd").fit(vectors)
    np.testing.assert_array_equal(ours["labels"], theirs.labels_)
    np.testing.assert_allclose(ours["centres"], theirs.cluster_centers_, atol=1e-12)
    assert ours["inertia"] == pytest.approx(theirs.inertia_, rel=1e-9)


def test_the_objective_never_increases_along_a_run():
    X, _ = planted(n_topics=4, n_far=8, seed=5)
    vectors, _ = unit_vectors(X)
    squares = _squared_norms(vectors)
    start = kmeans_plusplus(vectors, 4, random_state=1)[0]
    objectives = [_lloyd_minus(vectors, squares, start, 8, it)["inertia"] for it in range(1, 8)]
    assert all(b <= a + 1e-12 for a, b in zip(objectives, objectives[1:]))


def test_counts_and_sparse_and_dense_vectors():
    corpus = Corpus.from_texts(["apple banana fruit", "banana fruit salad", "apple pie fruit",
                                "python code bug", "code review python", "bug fix code", ""])
    model = KMeansMinus(n_clusters=2, n_outliers=1, random_state=0).fit(corpus)
    assert model.vocabulary_ == corpus.vocabulary
    assert adjusted_rand_score([0, 0, 0, 1, 1, 1], model.labels_[:6]) == 1.0
    assert model.outlier_mask_.sum() == 1
    for X in (corpus.counts, corpus.tfidf(), corpus.tfidf().toarray()):
        # The empty document is equally far (|c|^2) from two centres of nearly equal norm:
        # rounding in the sparse and dense products may tip it either way.
        labels = KMeansMinus(n_clusters=2, n_outliers=1, random_state=0).fit(X).labels_
        np.testing.assert_array_equal(labels[:6], model.labels_[:6])
    assert all(isinstance(w, str) for words in model.top_words(2) for w, _ in words)


def test_degenerate_inputs():
    assert KMeansMinus(n_clusters=1).fit(np.array([[1.0, 2.0]])).labels_.tolist() == [0]
    with pytest.raises(ParameterError, match="n_clusters=4 is more than the 3 documents"):
        KMeansMinus(n_clusters=4).fit(np.eye(3))
    with pytest.raises(ParameterError, match="n_outliers=1 sets aside all 1 documents"):
        KMeansMinus(n_clusters=1, n_outliers=1).fit(np.array([[1.0, 2.0]]))
    empty = KMeansMinus(n_clusters=2, n_outliers=1, random_state=0).fit(np.zeros((5, 3)))
    assert np.isfinite(empty.cluster_centers_).all() and np.isfinite(empty.inertia_)
    assert empty.labels_.shape == (5,)
    with pytest.raises(ParameterError, match="NaN"):
        KMeansMinus(n_clusters=2).fit(sp.csr_matrix(np.array([[np.nan, 1.0], [1.0, 0.0]])))


def test_the_runner_runs_it_from_a_config(tmp_path):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out", runs=2,
                        model={"name": "kmeans_minus",
                               "params": {"n_clusters": 3, "n_outliers": 1, "n_init": 2}})
    records = run_experiment(load_config(path), quiet=True).records
    assert [r["seed"] for r in records] == [0, 1]
    assert all(r["params"]["n_outliers"] == 1 for r in records)
