"""Iterative classification as its authors' code runs it: each option, the variant, row order.

The options are checked against what they describe (scikit-learn's TfidfVectorizer for the
refitted TF-IDF, hand-made orders for the file order); the row-order tests show that the
paper's random trimming gives the same distribution of results whatever the order of the
rows, and that keeping each cluster's first texts in file order does not.
"""

import json

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from tests.models.ic.test_iterative_classification import corrupted, planted
from shortclust.errors import ParameterError
from shortclust.evaluation.metrics import acc, nmi
from shortclust.evaluation.stats import stat_row, welch_t_test
from shortclust.models.ic import _options as options
from shortclust.models.ic import _steps as steps
from shortclust.models.ic.iterative_classification import IterativeClassification
from shortclust.models.kmeans.kmeans import tfidf


def quick(**changes):
    return IterativeClassification(**{"max_iter": 4, "tol": None, "random_state": 0,
                                      **changes})


# --- parameters and the variant -----------------------------------------------------------------

@pytest.mark.parametrize("params, message", [
    ({"variant": "authors"}, "variant must be one of paper, authors_code"),
    ({"selection": "first"}, "selection must be one of random, file_order"),
    ({"p_draw": "percent"}, "p_draw must be one of uniform, whole_percent_apart"),
    ({"tfidf": "raw"}, "tfidf must be one of corpus, per_subset"),
    ({"row_order": "random"}, "row_order must be one of as_given, shuffled"),
    ({"p_draw": "whole_percent_apart", "P1": 0.555}, "P1 must be a whole percentage"),
    ({"outlier_params": {"random_state": -1}}, "outlier_params random_state must be"),
    ({"variant": "authors_code", "P2": 0.6}, r"P1=0\.7, P2=0\.6 \(variant 'authors_code'\)"),
])
def test_bad_options_are_refused_in_one_line(params, message):
    X, topics = planted(n_docs=40)
    with pytest.raises(ParameterError, match=message):
        quick(**params).fit(X, init_labels=topics)


def test_the_variant_sets_every_option_left_unset_and_what_is_given_wins():
    X, topics = planted(n_docs=60)
    paper = quick().fit(X, init_labels=topics).settings_
    assert paper == {"P1": 0.5, "P2": 0.95, "tol": None, "selection": "random",
                     "p_draw": "uniform", "tfidf": "corpus",
                     "classifier_params": None, "outlier_params": None}
    authors = IterativeClassification(variant="authors_code", max_iter=2, random_state=0)
    assert authors.fit(X, init_labels=topics).settings_ == {
        "P1": 0.7, "P2": 0.85, "tol": None, "selection": "file_order",
        "p_draw": "whole_percent_apart", "tfidf": "per_subset",
        "classifier_params": {"solver": "lbfgs", "warm_start": False},
        "outlier_params": {"random_state": 0}}
    mixed = quick(variant="authors_code", selection="random", P1=0.6, tol=0.1,
                  classifier_params={"C": 2.0}, outlier_params={"random_state": 3})
    settings = mixed.fit(X, init_labels=topics).settings_
    assert (settings["selection"], settings["P1"], settings["P2"], settings["tol"]) == (
        "random", 0.6, 0.85, 0.1)
    assert settings["classifier_params"] == {"solver": "lbfgs", "warm_start": False, "C": 2.0}
    assert settings["outlier_params"] == {"random_state": 3}
    assert isinstance(mixed.classifier_, type(quick(classifier_params={"solver": "lbfgs"})
                                              .fit(X, init_labels=topics).classifier_))


def test_the_authors_variant_keeps_another_detector_and_classifier_as_given():
    X, topics = planted(n_docs=60)
    settings = quick(variant="authors_code", classifier="knn", outlier="none").fit(
        X, init_labels=topics).settings_
    assert settings["classifier_params"] is None and settings["outlier_params"] is None


def test_per_subset_tfidf_needs_word_counts():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="tfidf='per_subset' refits TF-IDF on word counts"):
        quick(tfidf="per_subset").fit(rng.random((20, 5)), init_labels=np.arange(20) % 2)


# --- P ------------------------------------------------------------------------------------------

def test_whole_percentages_stay_in_range_and_move_away_from_the_last_one():
    drawer = options.WholePercentApart(0.70, 0.85)
    rng = np.random.default_rng(0)
    previous, draws = 70, []
    for _ in range(2000):
        p = drawer.draw(rng)
        percent = round(100 * p)
        assert abs(100 * p - percent) < 1e-9 and 70 <= percent <= 85
        # At least P_GAP points from the last draw, unless pushed against an end.
        assert abs(percent - previous) >= options.P_GAP or percent in (70, 85)
        previous = percent
        draws.append(percent)
    assert set(draws) == set(range(70, 86))
    # Draws within the gap of the last one are moved: the ends collect them.
    counts = np.bincount(draws, minlength=86)[70:]
    assert counts[0] > counts[7] and counts[-1] > counts[7]


def test_p_is_drawn_as_the_option_says_inside_a_fit():
    X, topics = planted(n_docs=60)
    uniform = quick(max_iter=30).fit(X, init_labels=topics).p_history_
    assert all(0.5 <= p <= 0.95 for p in uniform) and any(
        abs(100 * p - round(100 * p)) > 1e-6 for p in uniform)
    whole = quick(max_iter=30, p_draw="whole_percent_apart", P1=0.6, P2=0.9).fit(
        X, init_labels=topics).p_history_
    assert all(abs(100 * p - round(100 * p)) < 1e-9 and 0.6 <= p <= 0.9 for p in whole)


# --- TF-IDF refitted per subset -------------------------------------------------------------------

TEXTS = ["apple banana fruit", "banana fruit salad", "apple pie", "fruit juice apple apple",
         "python code bug", "code review python", "bug fix code", "python test"]


def test_subset_tfidf_is_what_a_vectoriser_fitted_on_the_subset_gives():
    vectoriser = CountVectorizer()
    counts = vectoriser.fit_transform(TEXTS).astype(np.int64).tocsr()
    vectors = options.SubsetVectors(counts)
    members = np.array([4, 0, 6])
    expected = TfidfVectorizer().fit_transform([TEXTS[i] for i in members]).toarray()
    got = vectors.cluster(members).toarray()
    # Same vectors; ours keep the collection's columns (zero outside the cluster).
    present = got.any(axis=0)
    np.testing.assert_allclose(got[:, present], expected)
    train, test = np.array([0, 1, 4, 5]), np.array([2, 3, 6, 7])
    fitted = TfidfVectorizer().fit([TEXTS[i] for i in train])
    got_train, got_test = vectors.split(train, test)
    np.testing.assert_allclose(got_train.toarray(),
                               fitted.transform([TEXTS[i] for i in train]).toarray())
    # A test text's words unseen in training are ignored ("pie", "fix", "test").
    np.testing.assert_allclose(got_test.toarray(),
                               fitted.transform([TEXTS[i] for i in test]).toarray())


def test_the_classifier_sees_the_training_sets_vocabulary_only():
    counts = CountVectorizer().fit_transform(TEXTS).astype(np.int64).tocsr()
    seen = []

    class Recorder:
        def predict(self, train_vectors, train_labels, test_vectors):
            seen.append((train_vectors.shape, test_vectors.shape))
            return np.zeros(test_vectors.shape[0], dtype=np.int64)

    loop = steps._Loop(tfidf(counts)[1], 2, None, Recorder(),
                       vectors=options.SubsetVectors(counts))
    train = np.zeros(8, dtype=bool)
    train[[0, 1, 4, 5]] = True
    loop.reassign(np.repeat([0, 1], 4), train)
    words = len(CountVectorizer().fit([TEXTS[i] for i in (0, 1, 4, 5)]).vocabulary_)
    assert words < counts.shape[1] and seen == [((4, words), (4, words))]


def test_per_subset_tfidf_repairs_a_corrupted_labelling_of_easy_topics():
    X, topics = planted(n_docs=160)
    noisy = corrupted(topics, 0.3)
    model = quick(tfidf="per_subset", max_iter=10).fit(X, init_labels=noisy)
    assert nmi(topics, noisy) < 0.6 and nmi(topics, model.labels_) > nmi(topics, noisy) + 0.25


# --- the running file order ----------------------------------------------------------------------

def test_file_order_groups_by_first_appearance_and_keeps_the_first_texts():
    order = options.FileOrder(8)
    order.order = np.array([5, 1, 0, 7, 2, 6, 3, 4])
    #                  doc: 0  1  2  3  4  5  6  7
    labels = np.array([1, 0, 0, 2, 2, 1, 1, 0])
    groups = order.groups(labels)
    # Cluster 1 first (document 5 opens the file), then 0 (document 1), then 2.
    assert [g.tolist() for g in groups] == [[5, 0, 6], [1, 7, 2], [3, 4]]
    outliers = np.zeros(8, dtype=bool)
    outliers[[0, 3]] = True
    train = order.select(groups, outliers, cap=1)
    assert np.flatnonzero(train).tolist() == [1, 4, 5]
    order.advance(train, np.random.default_rng(0))
    # Training texts first (shuffled), then the outliers cluster by cluster, then the
    # texts beyond the cap cluster by cluster.
    assert sorted(order.order[:3].tolist()) == [1, 4, 5]
    assert order.order[3:].tolist() == [0, 3, 6, 7, 2]


def test_file_order_trains_on_each_clusters_first_rows_in_the_first_iteration():
    X, topics = planted(n_docs=90, empty_row=False)
    init = corrupted(topics, 0.2)
    model = quick(selection="file_order", outlier="none", max_iter=1, P1=0.5, P2=0.5)
    model.fit(X, init_labels=init)
    cap = int(np.floor(90 / 4 * 0.5))
    first = np.concatenate([np.flatnonzero(init == c)[:cap] for c in np.unique(init)])
    # The first rows of each cluster were trained on, so they keep their labels.
    assert np.array_equal(model.labels_[first], model.initial_labels_[first])
    assert model.n_test_history_ == [90 - first.size]


# --- the forests' seed ----------------------------------------------------------------------------

def test_a_fixed_forest_seed_flags_the_same_texts_whatever_the_fit_seed():
    X, topics = planted(n_docs=80, empty_row=False)
    features = tfidf(X)[1]
    members = np.flatnonzero(topics == 0)

    def flags(outlier_params, seed):
        model = IterativeClassification(outlier_params=outlier_params)
        return model._make_detector(features, np.random.default_rng(seed))(members)

    fixed = [flags({"random_state": 0}, seed) for seed in range(4)]
    assert all(np.array_equal(fixed[0], other) for other in fixed[1:])
    drawn = [flags(None, seed) for seed in range(4)]
    assert any(not np.array_equal(drawn[0], other) for other in drawn[1:])


def test_copies_of_a_text_are_flagged_together():
    """Why no option removes an outlier's copies as the authors' code would: equal
    texts have equal vectors, so equal scores, and are outliers together or not at all."""
    X, topics = planted(n_docs=120, words_per_topic=3, empty_row=False)
    features = tfidf(X)[1]
    members = np.flatnonzero(topics == 1)
    rows = [X[row].toarray().tobytes() for row in members]
    for seed in range(5):
        flagged = IterativeClassification()._make_detector(
            features, np.random.default_rng(seed))(members)
        assert flagged.any()
        for i in range(members.size):
            for j in range(i):
                if rows[i] == rows[j]:
                    assert flagged[i] == flagged[j]


# --- row order -------------------------------------------------------------------------------------

def test_shuffled_row_order_gives_labels_in_the_order_of_x():
    X, topics = planted(n_docs=120, empty_row=False)
    model = quick(row_order="shuffled", max_iter=3).fit(X, init_labels=topics)
    # Clean initial labels of easy topics stay: a wrong un-shuffling would scramble them.
    assert acc(topics, model.labels_) > 0.95
    assert np.array_equal(model.initial_labels_, topics)


def permuted_fit(counts, truth, initial, params, seed, shuffled):
    """ACC of a fit on the rows in file order or in an order drawn from the seed."""
    rows = (np.random.default_rng(1000 + seed).permutation(counts.shape[0]) if shuffled
            else np.arange(counts.shape[0]))
    model = IterativeClassification(random_state=seed, **params).fit(
        counts[rows], init_labels=initial[rows])
    return acc(truth[rows], model.labels_)


@pytest.mark.slow
def test_row_order_leaves_the_default_alone_and_moves_file_order_selection(data_dir):
    """SearchSnippets-test is stored sorted by true class. From a noisy labelling (half
    the labels redrawn at random), 8 seeds of 10 iterations on the rows as stored and on
    rows shuffled by each seed: the default's ACC has the same distribution (Welch's test
    does not reject, and the means are within 3 standard errors), while keeping each
    cluster's first texts in file order gives clearly different results."""
    from shortclust.data import load_corpus

    corpus = load_corpus("SearchSnippets-test", data_dir=data_dir)
    rng = np.random.default_rng(0)
    initial = corpus.labels.copy()
    redrawn = rng.choice(corpus.n_docs, size=corpus.n_docs // 2, replace=False)
    initial[redrawn] = rng.integers(0, 8, size=redrawn.size)
    base = {"n_clusters": 8, "tol": None, "max_iter": 10}
    results = {}
    for name, params in (("default", {}), ("file_order", {"selection": "file_order"})):
        results[name] = [
            stat_row([permuted_fit(corpus.counts, corpus.labels, initial, {**base, **params},
                                   seed, shuffled) for seed in range(8)])
            for shuffled in (False, True)]
    as_given, shuffled = results["default"]
    same = welch_t_test(as_given, shuffled)
    standard_error = np.hypot(as_given["std"], shuffled["std"]) / np.sqrt(8)
    assert not same.significant(0.01) and abs(same.diff) < 3 * standard_error
    as_given, shuffled = results["file_order"]
    moved = welch_t_test(as_given, shuffled)
    assert moved.significant(0.001) and abs(moved.diff) > 0.02
    print(json.dumps(results))
