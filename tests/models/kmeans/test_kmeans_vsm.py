"""K-means with a chosen term weighting and seeding (``kmeans_vsm``)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans as SklearnKMeans
from sklearn.feature_extraction.text import TfidfTransformer

from tests.pipeline.fake_estimators import LABELS, TEXTS, write_config, write_corpus
from tests.models.test_baselines import planted_corpus
from shortclust.config import load_config
from shortclust.errors import ParameterError
from shortclust.pipeline.runner import run_experiment
from shortclust.models import get_model_class
from shortclust.models.kmeans.kmeans import KMeans, sklearn_random_state
from shortclust.models.kmeans.kmeans_vsm import KMeansVSM

RAW_COUNTS = {"use_idf": False, "norm": None}


def test_registered_as_kmeans_vsm():
    assert get_model_class("kmeans_vsm") is KMeansVSM


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_defaults_are_kmeans_unit_tfidf_rows_with_k_means_plus_plus(seed):
    X, _, _ = planted_corpus(n_topics=8, seed=seed)
    ours = KMeansVSM(n_clusters=5, n_init=3, random_state=seed).fit(X)
    kmeans = KMeans(n_clusters=5, n_init=3, random_state=seed).fit(X)
    np.testing.assert_array_equal(ours.labels_, kmeans.labels_)
    assert ours.inertia_ == kmeans.inertia_
    np.testing.assert_array_equal(ours.idf_, kmeans.idf_)


def test_raw_counts_are_clustered_unweighted_and_unnormalised():
    X, _, _ = planted_corpus(n_topics=8, seed=3)
    model = KMeansVSM(n_clusters=5, n_init=2, random_state=0, **RAW_COUNTS).fit(X)
    assert model.idf_ is None
    dense = X.toarray().astype(float)
    for k in range(5):  # each centroid is the mean count vector of its documents
        np.testing.assert_allclose(model.cluster_centers_[k],
                                   dense[model.labels_ == k].mean(axis=0), atol=1e-12)
    # The objective is measured on the counts themselves.
    inertia = sum(((dense[model.labels_ == k] - model.cluster_centers_[k]) ** 2).sum()
                  for k in range(5))
    assert model.inertia_ == pytest.approx(inertia, rel=1e-9)


@pytest.mark.parametrize("options", [
    {"use_idf": False, "norm": None},
    {"norm": None},
    {"smooth_idf": False},
    {"sublinear_tf": True, "norm": "l1"},
])
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_weighting_and_seeding_are_scikit_learns(options, init):
    X, _, _ = planted_corpus(n_topics=8, seed=4)
    X = X[:, np.flatnonzero(X.getnnz(axis=0))]  # every word in some document, as in a Corpus
    ours = KMeansVSM(n_clusters=4, n_init=4, init=init, random_state=7, **options).fit(X)
    rows = TfidfTransformer(**options).fit_transform(X)
    # The same seedings as scikit-learn's own n_init loop on the same RandomState.
    theirs = SklearnKMeans(n_clusters=4, n_init=4, init=init, tol=1e-7,
                           random_state=sklearn_random_state(7)).fit(rows)
    assert ours.inertia_ == pytest.approx(theirs.inertia_, rel=1e-12)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)


def test_random_seeding_is_not_k_means_plus_plus():
    X = sp.csr_matrix(np.random.default_rng(0).poisson(0.4, size=(60, 30)))
    labelings = {init: [tuple(KMeansVSM(n_clusters=6, n_init=1, init=init,
                                        random_state=s).fit(X).labels_) for s in range(4)]
                 for init in ("k-means++", "random")}
    assert labelings["k-means++"] != labelings["random"]


def test_predict_weights_new_counts_with_the_fitted_idf():
    X, _, _ = planted_corpus(seed=9)
    model = KMeansVSM(n_clusters=4, n_init=2, norm=None, random_state=0).fit(X)
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    np.testing.assert_array_equal(model.predict(X[:7]), model.labels_[:7])  # idf not refitted


def test_document_vectors_are_refused_in_fit_and_predict():
    X, _, _ = planted_corpus(seed=9)
    vectors = TfidfTransformer().fit_transform(X)
    with pytest.raises(ParameterError) as raised:
        KMeansVSM(n_clusters=4).fit(vectors)
    assert "\n" not in str(raised.value)
    model = KMeansVSM(n_clusters=4, n_init=1, random_state=0).fit(X)
    with pytest.raises(ParameterError, match="fitted on word counts"):
        model.predict(vectors)


@pytest.mark.parametrize("params, name", [
    ({"norm": "l3"}, "norm"), ({"init": "kmeans"}, "init"), ({"use_idf": "yes"}, "use_idf"),
    ({"smooth_idf": 1}, "smooth_idf"), ({"sublinear_tf": None}, "sublinear_tf"),
    ({"n_init": 0}, "n_init"),
])
def test_bad_parameters_raise_one_line_parameter_errors(params, name):
    X, _, _ = planted_corpus()
    with pytest.raises(ParameterError, match=name) as raised:
        KMeansVSM(n_clusters=3, **params).fit(X)
    assert "\n" not in str(raised.value)


def test_a_config_sets_norm_to_none_with_null(tmp_path):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": "kmeans_vsm",
                               "params": {"n_clusters": len(set(LABELS)), "n_init": 2,
                                          "use_idf": False, "norm": None}})
    config = load_config(path, ["model.params.init=random"])
    result = run_experiment(config, quiet=True)
    assert len(result.records) == 3
    for record in result.records:
        assert record["params"]["norm"] is None and record["params"]["init"] == "random"
        assert record["params"]["use_idf"] is False and record["n_docs"] == len(TEXTS)
