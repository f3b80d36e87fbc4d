"""Iterative classification (Rakib et al., Algorithm 1) and its compiled Isolation Forest."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.ensemble import IsolationForest

from tests.pipeline.fake_estimators import write_config, write_corpus
from shortclust.config import load_config
from shortclust.data import Corpus
from shortclust.errors import ParameterError
from shortclust.evaluation.metrics import nmi
from shortclust.pipeline.runner import run_experiment
from shortclust.models.ic import _kernels as kernels
from shortclust.models.ic import _steps as steps
from shortclust.models import get_model_class
from shortclust.models.ic import iterative_classification as ic
from shortclust.models.ic.iterative_classification import IterativeClassification
from shortclust.models.kmeans.kmeans import KMeans, tfidf


def planted(n_docs=120, n_topics=4, words_per_topic=10, seed=0, empty_row=True):
    """Counts from disjoint topic vocabularies (2-6 tokens each), with one empty row."""
    rng = np.random.default_rng(seed)
    topics = np.sort(rng.integers(0, n_topics, size=n_docs))
    rows = np.zeros((n_docs, n_topics * words_per_topic), dtype=np.int64)
    for d, t in enumerate(topics):
        for _ in range(rng.integers(2, 7)):
            rows[d, t * words_per_topic + rng.integers(0, words_per_topic)] += 1
    if empty_row:
        rows[n_docs // 2] = 0
    return sp.csr_matrix(rows), topics


def corrupted(labels, fraction, seed=0):
    """``labels`` with ``fraction`` of them replaced by a shuffled copy of themselves."""
    rng = np.random.default_rng(seed)
    noisy = labels.copy()
    picked = rng.choice(labels.size, size=int(fraction * labels.size), replace=False)
    noisy[picked] = rng.permutation(noisy[picked])
    return noisy


def quick(**changes):
    return IterativeClassification(**{"max_iter": 5, "random_state": 0, **changes})


# --- contract -------------------------------------------------------------------------------

def test_registered_under_its_config_name():
    assert get_model_class("iterative_classification") is IterativeClassification


def test_clone_and_get_params_round_trip():
    model = IterativeClassification(n_clusters=3, P1=0.6, classifier_params={"C": 2.0},
                                    random_state=4)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert IterativeClassification().set_params(**model.get_params()).get_params() \
        == model.get_params()


@pytest.mark.parametrize("params, name", [
    ({"n_clusters": 0}, "n_clusters"),
    ({"n_clusters": 2.0}, "n_clusters"),
    ({"P1": 0.0}, "P1"),
    ({"P1": 0.9, "P2": 0.8}, "P1 <= P2"),
    ({"P2": 1.5}, "P2 <= 1"),
    ({"P1": float("nan")}, "P1"),
    ({"max_iter": 0}, "max_iter"),
    ({"tol": -0.1}, "tol"),
    ({"classifier": "svm"}, "classifier"),
    ({"classifier_params": {"alpha": 1}}, "classifier_params"),
    ({"classifier_params": [1]}, "classifier_params"),
    ({"outlier": "lof"}, "outlier"),
    ({"outlier_params": {"contamination": 0.7}}, "contamination"),
    ({"outlier_params": {"n_estimators": 0}}, "n_estimators"),
    ({"outlier_params": {"max_samples": 1}}, "max_samples"),
    ({"outlier_params": {"bootstrap": "yes"}}, "bootstrap"),
    ({"outlier_params": {"max_features": 0.5}}, "max_features"),
    ({"outlier": "none", "outlier_params": {"contamination": 0.1}}, "outlier_params"),
    ({"outlier": "one_class_svm", "outlier_params": {"trees": 3}}, "trees"),
    ({"initial": "nope"}, "initial"),
    ({"initial": "iterative_classification"}, "initial"),
    ({"initial_params": {"n_init": 0, "colour": 1}}, "colour"),
])
def test_bad_parameters_raise_one_line_parameter_errors(params, name):
    X, topics = planted(n_docs=20)
    with pytest.raises(ParameterError, match=name) as raised:
        IterativeClassification(**params).fit(X, init_labels=topics)
    assert "\n" not in str(raised.value)


def test_fit_sets_the_fitted_attributes_and_reports_each_iteration():
    X, topics = planted()
    calls = []
    model = quick(n_clusters=4, tol=None)
    assert model.fit(X, init_labels=corrupted(topics, 0.3),
                     callback=lambda *args: calls.append(args)) is model
    assert model.labels_.shape == (X.shape[0],) and model.labels_.dtype == np.int64
    assert model.n_clusters_ == 4 and model.cluster_sizes_.sum() == X.shape[0]
    assert model.n_iter_ == 5 and not model.converged_
    assert [c[:2] for c in calls] == [(i, 5) for i in range(1, 6)]
    assert all(c[2] == 4 for c in calls)
    for history in (model.p_history_, model.n_outliers_history_, model.n_test_history_,
                    model.n_changed_history_, model.size_change_history_):
        assert len(history) == 5
    assert all(0.5 <= p <= 0.95 for p in model.p_history_)
    assert model.initial_model_ is None and model.n_features_in_ == X.shape[1]
    assert np.array_equal(model.fit_predict(X, init_labels=corrupted(topics, 0.3)),
                          model.labels_)


def test_same_seed_same_labels_and_other_seeds_other_draws():
    X, topics = planted()
    noisy = corrupted(topics, 0.4)
    runs = [quick(tol=None, random_state=s).fit(X, init_labels=noisy) for s in (7, 7, 8)]
    assert np.array_equal(runs[0].labels_, runs[1].labels_)
    assert runs[0].p_history_ == runs[1].p_history_
    assert runs[0].n_test_history_ == runs[1].n_test_history_
    assert runs[0].p_history_ != runs[2].p_history_


def test_initial_clusterer_is_fitted_first_with_the_same_seed():
    X, _ = planted()
    model = quick(n_clusters=4, initial="kmeans", initial_params={"n_init": 2},
                  random_state=3).fit(X)
    alone = KMeans(n_clusters=4, n_init=2, random_state=3).fit(X)
    assert isinstance(model.initial_model_, KMeans)
    assert nmi(model.initial_labels_, alone.labels_) == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="differs from n_clusters=4"):
        quick(n_clusters=4, initial_params={"n_clusters": 3}).fit(X)


def test_counts_give_ic_its_tfidf_while_the_initial_clusterer_sees_x():
    X, topics = planted()
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(3, 8))[topics % 3] + rng.normal(scale=0.3, size=(120, 8))
    model = quick(n_clusters=4, initial="hac_sd").fit(vectors, counts=X)
    hac = get_model_class("hac_sd")(n_clusters=4).fit(vectors)
    assert np.array_equal(model.initial_labels_, np.unique(hac.labels_, return_inverse=True)[1])
    by_hand = quick(n_clusters=4).fit(X, init_labels=hac.labels_)
    assert np.array_equal(model.labels_, by_hand.labels_)
    assert model.n_features_in_ == X.shape[1]  # TF-IDF of the counts, not the 8-d vectors
    corpus = Corpus(name="planted", counts=X, vocabulary=[f"w{i}" for i in range(X.shape[1])])
    assert quick(n_clusters=4, initial="hac_sd").fit(vectors, counts=corpus).vocabulary_ \
        == corpus.vocabulary


@pytest.mark.parametrize("counts, message", [
    (lambda X: X[:-1], "counts has 119 rows but X has 120"),
    (lambda X: X.astype(np.float64), "counts must be word counts"),
])
def test_counts_must_be_counts_of_the_same_documents(counts, message):
    X, topics = planted()
    with pytest.raises(ParameterError, match=message):
        quick(n_clusters=4).fit(X, init_labels=topics, counts=counts(X))


def test_a_deterministic_or_seeded_initial_fit_is_reused(monkeypatch):
    monkeypatch.setattr(ic, "_INITIAL_MEMO", type(ic._INITIAL_MEMO)())
    X, _ = planted()
    fits = []
    original = KMeans.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self.random_state)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(KMeans, "fit", counting_fit)
    seeded = [quick(n_clusters=4, initial_params={"n_init": 1}, random_state=seed, max_iter=1)
              for seed in (3, 3, 4)]
    models = [model.fit(X) for model in seeded]
    assert fits == [3, 4] and models[0].initial_model_ is models[1].initial_model_
    quick(n_clusters=4, initial_params={"n_init": 1}, random_state=3, max_iter=1).fit(X + X)
    quick(n_clusters=4, initial_params={"n_init": 2}, random_state=3, max_iter=1).fit(X)
    generator = np.random.default_rng(0)
    quick(n_clusters=4, initial_params={"n_init": 1}, random_state=generator, max_iter=1).fit(X)
    quick(n_clusters=4, initial_params={"n_init": 1}, random_state=generator, max_iter=1).fit(X)
    assert len(fits) == 6  # other X, other parameters, a Generator (not a fixed seed)
    # HAC draws no random numbers: every seed shares one fit.
    hac = [quick(n_clusters=4, initial="hac_sd", random_state=seed, max_iter=1).fit(X)
           for seed in range(3)]
    assert hac[0].initial_model_ is hac[1].initial_model_ is hac[2].initial_model_
    assert hac[0].p_history_ != hac[1].p_history_


def test_init_labels_take_any_values_and_are_renumbered_in_sorted_order():
    X, topics = planted(n_docs=40)
    names = np.array(["d", "a", "c", "b"])[topics]
    model = quick(max_iter=1).fit(X, init_labels=names)
    assert np.array_equal(model.initial_labels_, np.array([3, 0, 2, 1])[topics])


# --- the steps of Algorithm 1 ---------------------------------------------------------------

def test_mean_size_change_reproduces_the_papers_example():
    # Section 3.3: 100 texts, sizes 48/52 then 49/51: mean change 1 <= 0.05 * 100 / 2.
    before = np.repeat([0, 1], [48, 52])
    after = np.repeat([0, 1], [49, 51])
    assert ic.mean_size_change(before, after, 2) == 1.0
    # An empty slot counts in K (here K = 4): (1 + 1 + 0 + 0) / 4.
    assert ic.mean_size_change(before, after, 4) == 0.5


def test_stops_at_the_first_iteration_whose_size_change_is_within_tol():
    X, topics = planted(n_docs=200)
    # A third of the texts of topics 1-3 wrongly in cluster 0: repairing them changes the
    # sizes far more than 5% of n / K = 2.5 texts at first. (Shuffled labels would not:
    # a shuffle keeps the sizes.)
    swollen = topics.copy()
    swollen[np.flatnonzero(topics > 0)[::3]] = 0
    model = IterativeClassification(tol=0.05, random_state=0).fit(X, init_labels=swollen)
    threshold = 0.05 * 200 / 4
    assert model.stop_threshold_ == threshold and model.converged_
    history = model.size_change_history_
    assert len(history) == model.n_iter_ >= 2
    assert all(change > threshold for change in history[:-1]) and history[-1] <= threshold
    # Correct labels on separable topics do not move: stable after one iteration.
    settled = IterativeClassification(tol=0.05, random_state=0).fit(X, init_labels=topics)
    assert settled.n_iter_ == 1 and settled.converged_
    assert settled.size_change_history_ == [0.0]
    assert IterativeClassification(tol=None, max_iter=3).fit(X, init_labels=topics).n_iter_ == 3


def test_trimming_keeps_exactly_floor_n_over_k_times_p_per_cluster():
    labels = np.repeat([0, 1, 2], [10, 3, 7])
    keep = np.ones(20, dtype=bool)
    keep[[0, 1, 12]] = False  # outliers already out: cluster 0 has 8 left, cluster 1 has 2
    trimmed = steps._trimmed(labels, keep, 5, np.random.default_rng(0))
    assert np.bincount(labels[trimmed]).tolist() == [5, 2, 5]
    assert not trimmed[[0, 1, 12]].any()  # outliers stay out
    # Inside a fit, without outlier removal: the test set is exactly what exceeds the cap.
    X, topics = planted(n_docs=90, empty_row=False)
    init = np.repeat([0, 1, 2], [50, 30, 10])
    model = IterativeClassification(outlier="none", max_iter=1, random_state=1).fit(
        X, init_labels=init)
    cap = int(np.floor(90 / 3 * model.p_history_[0]))
    assert model.n_outliers_history_ == [0]
    assert model.n_test_history_ == [sum(max(0, size - cap) for size in (50, 30, 10))]


def test_trimming_is_uniform_at_random():
    labels = np.zeros(10, dtype=np.int64)
    rng = np.random.default_rng(0)
    counts = sum(steps._trimmed(labels, np.ones(10, dtype=bool), 5, rng).astype(int)
                 for _ in range(2000))
    assert np.all(np.abs(counts / 2000 - 0.5) < 0.05)


def test_outliers_are_found_within_each_cluster():
    # Topic A words 0-4, topic B words 5-9. Cluster 0 holds 30 A texts and one B text;
    # cluster 1 holds 30 B texts. The B text is common in the collection but an outlier
    # in its cluster, and only a per-cluster detector can see it.
    rng = np.random.default_rng(0)
    rows = np.zeros((61, 10), dtype=np.int64)
    for d in range(61):
        topic = 1 if d >= 30 else 0
        rows[d, topic * 5 + rng.choice(5, size=3, replace=False)] = 1
    labels = np.repeat([0, 1], [31, 30])  # document 30 is a B text in cluster 0
    features = tfidf(sp.csr_matrix(rows))[1]
    model = IterativeClassification(outlier_params={"n_estimators": 300})
    detector = model._make_detector(features, np.random.default_rng(0))
    loop = ic._Loop(features, 2, detector, None)
    flagged = loop.outliers(labels)
    assert flagged[30]
    # contamination 0.1: at most ceil(0.1 (m - 1)) per cluster of m distinct scores.
    assert flagged[:31].sum() <= 3 and flagged[31:].sum() <= 3


def test_a_cluster_is_never_emptied_and_tiny_clusters_are_kept_whole():
    X, topics = planted(n_docs=60, empty_row=False)
    init = topics.copy()
    init[0] = 9  # a cluster of one text
    model = IterativeClassification(tol=None, max_iter=10, random_state=0).fit(
        X, init_labels=init)
    assert model.n_clusters_ == 5 and model.cluster_sizes_.min() >= 1
    assert model.labels_[0] == model.initial_labels_[0]


@pytest.mark.parametrize("classifier, outlier", [
    ("logistic_regression", "isolation_forest"),
    ("logistic_regression", "none"),
    ("logistic_regression", "one_class_svm"),
    ("linear_svc", "isolation_forest"),
    ("multinomial_nb", "isolation_forest"),
    ("knn", "isolation_forest"),
])
def test_it_repairs_a_corrupted_labelling_of_easy_topics(classifier, outlier):
    X, topics = planted(n_docs=160)
    noisy = corrupted(topics, 0.3)
    model = IterativeClassification(n_clusters=4, classifier=classifier, outlier=outlier,
                                    tol=None, max_iter=10, random_state=0)
    model.fit(X, init_labels=noisy)
    before, after = nmi(topics, noisy), nmi(topics, model.labels_)
    assert before < 0.6 and after > before + 0.25


def test_sag_reaches_the_same_labels_as_the_authors_lbfgs():
    X, topics = planted(n_docs=160)
    noisy = corrupted(topics, 0.3)
    runs = [IterativeClassification(classifier_params=params, tol=None, max_iter=4,
                                    random_state=0).fit(X, init_labels=noisy).labels_
            for params in ({}, {"solver": "sag"}, {"solver": "lbfgs", "warm_start": False})]
    assert np.array_equal(runs[0], runs[2])  # compiled SAG (the default) and lbfgs
    assert np.array_equal(runs[1], runs[2])  # scikit-learn's SAG and lbfgs


def test_the_solver_follows_the_features():
    X, topics = planted(n_docs=80)
    weighted = tfidf(X)[1]
    assert ic._default_solver(weighted) == "compiled_sag"
    assert ic._default_solver(X.astype(np.float64)) == "lbfgs"  # raw counts: rows > 1
    assert ic._default_solver(weighted.toarray()) == "lbfgs"
    assert quick(max_iter=1).fit(X, init_labels=topics).classifier_.solver == "compiled_sag"
    mine = quick(max_iter=1, classifier_params={"solver": "newton-cg"})
    assert mine.fit(X, init_labels=topics).classifier_.solver == "newton-cg"
    # A parameter the compiled solver lacks: scikit-learn's SAG when the solver is defaulted,
    # a one-line error when compiled_sag is named.
    weighted_classes = quick(max_iter=1, classifier_params={"class_weight": "balanced"})
    assert weighted_classes.fit(X, init_labels=topics).classifier_.solver == "sag"
    named = quick(max_iter=1, classifier_params={"solver": "compiled_sag",
                                                 "class_weight": "balanced"})
    with pytest.raises(ParameterError, match="class_weight not supported by solver"):
        named.fit(X, init_labels=topics)


def test_warm_start_is_dropped_when_the_classes_change():
    X, topics = planted(n_docs=80, empty_row=False)
    features = tfidf(X)[1]
    reassigner = ic._Reassigner("logistic_regression", None, np.random.default_rng(0))
    reassigner.predict(features, topics, features[:5])
    three = topics < 3
    predicted = reassigner.predict(features[three], topics[three], features[:5])
    assert set(predicted) <= {0, 1, 2} and list(reassigner.last.classes_) == [0, 1, 2]


# --- features ---------------------------------------------------------------------------------

def test_counts_corpus_and_a_ready_tfidf_matrix_give_the_same_labels():
    X, topics = planted()
    noisy = corrupted(topics, 0.3)
    vocabulary = [f"w{i}" for i in range(X.shape[1])]
    corpus = Corpus(name="planted", counts=X, vocabulary=vocabulary, labels=topics)
    runs = [quick().fit(data, init_labels=noisy)
            for data in (X, corpus, tfidf(X)[1], tfidf(X)[1].toarray())]
    for run in runs[1:]:
        assert np.array_equal(run.labels_, runs[0].labels_)
    assert runs[1].vocabulary_ == vocabulary and runs[0].vocabulary_ is None
    # Floats are vectors, not counts, even when whole (the rule of the other models).
    assert quick().fit(X.astype(np.float64), init_labels=noisy).n_features_in_ == X.shape[1]


def test_the_callers_matrix_is_not_modified():
    X = sp.csr_matrix((np.array([0.5, 0.0, 0.2, 0.7]), np.array([2, 0, 1, 0]),
                       np.array([0, 2, 3, 4])), shape=(3, 3))  # unsorted, an explicit zero
    before = (X.data.copy(), X.indices.copy())
    quick(max_iter=2).fit(X, init_labels=[0, 1, 1])
    assert np.array_equal(X.data, before[0]) and np.array_equal(X.indices, before[1])


def test_the_callers_count_matrix_is_not_modified_and_a_second_fit_sees_the_same():
    # Unsorted column indices, as scikit-learn's CountVectorizer gives them.
    X, topics = planted(n_docs=60, empty_row=False)
    unsorted = X.copy()
    for row in range(X.shape[0]):  # reverse each row's entries: still the same matrix
        start, end = X.indptr[row], X.indptr[row + 1]
        unsorted.indices[start:end] = X.indices[start:end][::-1]
        unsorted.data[start:end] = X.data[start:end][::-1]
    assert not unsorted.has_sorted_indices and (unsorted != X).nnz == 0
    before = (unsorted.data.copy(), unsorted.indices.copy())
    first = quick(max_iter=3).fit(unsorted, init_labels=corrupted(topics, 0.3)).labels_
    assert np.array_equal(unsorted.data, before[0])
    assert np.array_equal(unsorted.indices, before[1])
    again = quick(max_iter=3).fit(unsorted, init_labels=corrupted(topics, 0.3)).labels_
    assert np.array_equal(first, again)


def test_dense_embeddings_are_used_as_given():
    rng = np.random.default_rng(0)
    topics = np.repeat([0, 1, 2], 30)
    centres = rng.normal(size=(3, 16)) * 3
    X = centres[topics] + rng.normal(size=(90, 16))
    model = quick(tol=None).fit(X, init_labels=corrupted(topics, 0.3))
    assert nmi(topics, model.labels_) > 0.9
    with pytest.raises(ParameterError, match="multinomial_nb.*negative"):
        quick(classifier="multinomial_nb").fit(X, init_labels=topics)


# --- degenerate inputs ------------------------------------------------------------------------

def test_a_single_document():
    one = sp.csr_matrix([[1, 2, 0]])
    model = IterativeClassification(random_state=0).fit(one, init_labels=["only"])
    assert model.labels_.tolist() == [0] and model.n_iter_ == 1 and model.converged_
    assert IterativeClassification(n_clusters=1, random_state=0).fit(one).labels_.tolist() == [0]
    with pytest.raises(ParameterError, match="initial clusterer 'kmeans': n_clusters=8 is more "
                                             "than the 1 documents") as raised:
        IterativeClassification().fit(one)
    assert "\n" not in str(raised.value)


def test_more_clusters_than_documents_is_refused():
    with pytest.raises(ParameterError, match="n_clusters=5 is more than the 3 documents"):
        IterativeClassification(n_clusters=5).fit(sp.csr_matrix(np.eye(3, dtype=int)),
                                                  init_labels=[0, 1, 2])


def test_one_cluster_means_a_single_class_training_set():
    X, _ = planted(n_docs=30)
    model = IterativeClassification(random_state=0).fit(X, init_labels=np.zeros(30))
    assert model.labels_.tolist() == [0] * 30 and model.n_iter_ == 1 and model.converged_
    assert model.classifier_ is None
    # K = 3 asked, one cluster given: the other two stay empty and count in n / K.
    wide = IterativeClassification(n_clusters=3, random_state=0).fit(X, init_labels=np.zeros(30))
    assert wide.n_clusters_ == 1 and wide.stop_threshold_ == pytest.approx(0.05 * 30 / 3)


def test_empty_documents_alone_or_among_others():
    empty = sp.csr_matrix((6, 4), dtype=np.int64)
    model = IterativeClassification(random_state=0).fit(empty, init_labels=[0, 0, 0, 1, 1, 1])
    assert model.labels_.shape == (6,) and set(model.labels_) <= {0, 1}
    X, topics = planted(n_docs=60)  # row 30 is empty
    assert quick().fit(X, init_labels=topics).labels_.shape == (60,)


@pytest.mark.parametrize("X, init, message", [
    (sp.csr_matrix((0, 3)), None, "non-empty"),
    (sp.csr_matrix((3, 0), dtype=np.int64), [0, 1, 2], "no feature columns"),
    (np.array([[np.nan, 1.0], [0.5, 1.0]]), [0, 1], "NaN"),
    (np.array([["a", "b"], ["c", "d"]]), [0, 1], "numeric"),
    (np.array([1.5, 2.5]), [0, 1], "2-D"),
    (sp.csr_matrix(np.eye(3, dtype=int)), [0, 1], "one label per document"),
    (sp.csr_matrix(np.eye(3, dtype=int)), [[0], [1], [2]], "one label per document"),
])
def test_malformed_input_gets_a_one_line_parameter_error(X, init, message):
    with pytest.raises(ParameterError, match=message) as raised:
        IterativeClassification(n_clusters=1 if init is None else None).fit(X, init_labels=init)
    assert "\n" not in str(raised.value)


def test_too_many_initial_clusters_or_none_at_all():
    X = sp.csr_matrix(np.eye(3, dtype=int))
    with pytest.raises(ParameterError, match="form 3 clusters, more than n_clusters=2"):
        IterativeClassification(n_clusters=2).fit(X, init_labels=[0, 1, 2])
    with pytest.raises(ParameterError, match="pass init_labels"):
        IterativeClassification(initial=None).fit(X)


# --- the compiled Isolation Forest --------------------------------------------------------------

def forest_scores(X, rows, n_trees=100, psi=None, bootstrap=False, seed=0):
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    out = np.empty(len(rows))
    kernels.isolation_scores(X.indptr, X.indices, X.data, np.asarray(rows, dtype=np.int64),
                             n_trees, psi or len(rows), bootstrap, seed, X.shape[1], out)
    return out


@pytest.mark.kernels
def test_average_path_length_is_scikit_learns():
    from sklearn.ensemble._iforest import _average_path_length

    sizes = np.array([1, 2, 3, 10, 256])
    expected = _average_path_length(sizes)
    assert [kernels.average_path_length(n) for n in sizes] == pytest.approx(expected)


@pytest.mark.kernels
def test_hand_computed_forests():
    # Two distinct rows: the root splits them, each leaf holds one: path 1, c(2) = 1.
    assert forest_scores([[0.0, 1.0], [1.0, 0.0]], [0, 1]).tolist() == [-0.5, -0.5]
    # Identical rows cannot be split: path c(psi), score -2^-1 for every row.
    assert forest_scores(np.ones((5, 3)), range(5)) == pytest.approx([-0.5] * 5)


@pytest.mark.kernels
def test_forest_scores_agree_with_scikit_learn_and_are_reproducible():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    X[:4] += 6  # four planted outliers
    ours = forest_scores(X, range(80), n_trees=300, seed=1)
    theirs = IsolationForest(n_estimators=300, random_state=0).fit(X).score_samples(X)
    assert spearmanr(ours, theirs).statistic > 0.9
    assert set(np.argsort(ours)[:4]) == set(np.argsort(theirs)[:4]) == {0, 1, 2, 3}
    assert np.array_equal(ours, forest_scores(X, range(80), n_trees=300, seed=1))
    # Sparse rows, bootstrap samples, a subset of the rows: still the planted outliers.
    sparse = sp.csr_matrix(np.abs(X) * (rng.random(X.shape) < 0.5))
    subset = np.arange(0, 80, 2)
    scores = forest_scores(sparse, subset, n_trees=300, psi=16, bootstrap=True, seed=2)
    assert scores.shape == (40,) and np.all((scores < 0) & (scores > -1))


# --- harness ----------------------------------------------------------------------------------

def test_the_runner_runs_it_from_a_config(tmp_path):
    corpus = write_corpus(tmp_path / "tiny.jsonl")
    params = {"n_clusters": 3, "initial": "kmeans", "initial_params": {"n_init": 2},
              "max_iter": 3}
    path = write_config(tmp_path / "c.yaml", corpus, tmp_path / "out",
                        model={"name": "iterative_classification", "params": params}, runs=2)
    result = run_experiment(load_config(path), quiet=True)
    assert [r["seed"] for r in result.records] == [0, 1]
    for record in result.records:
        assert 1 <= record["n_iter"] <= 3 and record["n_clusters"] <= 3


def test_the_runner_gives_it_the_counts_beside_the_representation(tmp_path):
    from shortclust.data import load_corpus

    corpus_path = write_corpus(tmp_path / "tiny.jsonl")
    params = {"n_clusters": 3, "initial": "hac_sd", "max_iter": 3}
    path = write_config(tmp_path / "c.yaml", corpus_path, tmp_path / "out", runs=1,
                        model={"name": "iterative_classification", "params": params},
                        representation={"name": "tfidf"})
    record = run_experiment(load_config(path), quiet=True).records[0]
    labels = (tmp_path / "out" / "labels" / f"{record['run_id']}.txt").read_text().split()
    corpus = load_corpus(str(corpus_path), preprocess="none")
    expected = IterativeClassification(**params, random_state=0).fit(
        corpus.tfidf(), counts=corpus.counts)
    assert [int(x) for x in labels] == expected.labels_.tolist()
    assert record["representation"]["name"] == "tfidf"
