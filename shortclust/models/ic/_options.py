"""Iterative classification as the paper describes it or as its authors' code runs it.

Private to :mod:`shortclust.models.ic.iterative_classification`. The authors publish their
iterative classification (github.com/rashadulrakib/short-text-clustering-enhancement,
``main.py`` at commit f363b66); it departs from the paper (Rakib et al., sections 3.1-3.3
and 6.2.1) in the ways listed in :data:`AUTHORS_CODE`. Each departure is an option of the
estimator, and ``variant="authors_code"`` sets them all. Here: the variant's resolution
into settings, the two draws of P, the two TF-IDF views and the running document order
that ``selection="file_order"`` reads. The options are written from the paper and a
description of that code's behaviour, not from its text.
"""

from dataclasses import dataclass

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.common.tfidf import tfidf

VARIANTS = ("paper", "authors_code")
#: Option -> (the paper's value, the authors' code's value); an option left at None takes
#: the value of the variant.
OPTIONS = {
    "selection": ("random", "file_order"),
    "p_draw": ("uniform", "whole_percent_apart"),
    "tfidf": ("corpus", "per_subset"),
}
#: Parameters older than the variant -> (their default, the authors' code's value): the
#: variant replaces them only while they hold their default (a value given is kept).
OLDER = {"P1": (0.5, 0.70), "P2": (0.95, 0.85), "tol": (0.05, None)}
#: Logistic regression as the authors' code fits it: lbfgs, from scratch every iteration
#: (C = 1 and max_iter = 300 are the defaults of both). Keys the user sets win.
AUTHORS_CLASSIFIER = {"solver": "lbfgs", "warm_start": False}
#: The authors' code seeds every Isolation Forest with 0. Keys the user sets win.
AUTHORS_FOREST = {"random_state": 0}
#: ``p_draw="whole_percent_apart"``: a draw closer than this (percentage points) to the
#: previous one is moved this far away from it.
P_GAP = 5


@dataclass(frozen=True)
class Settings:
    """What one fit runs with, the variant resolved (the estimator's ``settings_``)."""

    P1: float
    P2: float
    tol: float | None
    selection: str
    p_draw: str
    tfidf: str
    classifier_params: dict | None
    outlier_params: dict | None


def resolve(params):
    """The :class:`Settings` of an estimator's parameters (``get_params()``)."""
    authors = params["variant"] == "authors_code"
    options = {name: params[name] if params[name] is not None else values[authors]
               for name, values in OPTIONS.items()}
    older = {name: value if not (authors and _is_default(value, default)) else theirs
             for name, (default, theirs) in OLDER.items() for value in [params[name]]}
    classifier_params, outlier_params = params["classifier_params"], params["outlier_params"]
    if authors and params["classifier"] == "logistic_regression":
        classifier_params = {**AUTHORS_CLASSIFIER, **(classifier_params or {})}
    if authors and params["outlier"] == "isolation_forest":
        outlier_params = {**AUTHORS_FOREST, **(outlier_params or {})}
    return Settings(**options, **older, classifier_params=classifier_params,
                    outlier_params=outlier_params)


def _is_default(value, default):
    return value is None if default is None else (value is not None and value == default)


def check_whole_percentages(settings):
    """``p_draw="whole_percent_apart"`` draws whole percentages: P1, P2 must be some."""
    if settings.p_draw != "whole_percent_apart":
        return
    for name in ("P1", "P2"):
        value = getattr(settings, name)
        if abs(100 * value - round(100 * value)) > 1e-9:
            raise ParameterError(
                f"{name} must be a whole percentage (e.g. 0.7) with "
                f"p_draw='whole_percent_apart', got {value!r}"
            )


# --- P ----------------------------------------------------------------------------------------

class UniformP:
    """Step 4 of Algorithm 1: P uniform on [P1, P2]."""

    def __init__(self, P1, P2):
        self.P1, self.P2 = P1, P2

    def draw(self, rng):
        return float(rng.uniform(self.P1, self.P2))


class WholePercentApart:
    """P as the authors' code draws it: a whole percentage, kept apart from the last one.

    A whole number of percent is drawn uniformly from ``[100 P1, 100 P2]``; if it lies
    less than :data:`P_GAP` points from the previous iteration's, it is moved
    :data:`P_GAP` points further from it (up if it is not below it, else down), but not
    past the interval's ends. Before the first iteration "the previous" is ``P1``.
    """

    def __init__(self, P1, P2):
        self.low, self.high = round(100 * P1), round(100 * P2)
        self.previous = self.low

    def draw(self, rng):
        percent = int(rng.integers(self.low, self.high + 1))
        if abs(percent - self.previous) < P_GAP:
            if percent >= self.previous:
                percent = min(percent + P_GAP, self.high)
            else:
                percent = max(percent - P_GAP, self.low)
        self.previous = percent
        return percent / 100


def p_drawer(settings):
    """The draw of P that ``settings.p_draw`` names."""
    if settings.p_draw == "uniform":
        return UniformP(settings.P1, settings.P2)
    return WholePercentApart(settings.P1, settings.P2)


# --- TF-IDF -------------------------------------------------------------------------------------

class CorpusVectors:
    """One TF-IDF of the whole collection for the detector and the classifier (6.2.1)."""

    def __init__(self, features):
        self.features = features

    def cluster(self, members):
        """The vectors of a cluster's members, row for row; None: the collection's rows."""
        return None

    def split(self, train, test):
        """(training vectors, test vectors) of two sets of rows."""
        return self.features[train], self.features[test]


class SubsetVectors:
    """TF-IDF refitted on each cluster (detector) and each training set (classifier).

    As the authors' code vectorises: the idf of a cluster's texts for its outlier
    detector; the vocabulary and idf of the training texts for the classifier, the test
    texts weighted by them and their words outside it ignored. Smoothed idf, unit rows
    (:func:`~shortclust.models.common.tfidf.tfidf`), as for the whole collection.
    """

    def __init__(self, counts):
        self.counts = counts

    def cluster(self, members):
        return tfidf(self.counts[members])[1]

    def split(self, train, test):
        train_counts = self.counts[train]
        words = np.flatnonzero(np.bincount(train_counts.indices,
                                           minlength=train_counts.shape[1]))
        transformer, train_vectors = tfidf(train_counts[:, words])
        return train_vectors, transformer.transform(self.counts[test][:, words]).tocsr()


# --- the running order of the documents -----------------------------------------------------

class FileOrder:
    """Which texts each cluster keeps under ``selection="file_order"``, and in what order.

    The authors' code keeps each cluster's first texts (after its outliers are out) in the
    order of its data file, and rewrites that file every iteration: the training texts,
    shuffled, then the test texts in the order they were set aside (each cluster's
    outliers, cluster by cluster, then each cluster's texts beyond the cap, cluster by
    cluster). Clusters come in the order of their first text in the file. The order
    starts as the rows of X.
    """

    def __init__(self, n_docs):
        self.order = np.arange(n_docs)
        self._set_aside = np.empty(0, dtype=np.int64)

    def groups(self, labels):
        """The documents by cluster: clusters by first appearance, members in order."""
        order = self.order
        _, first, inverse = np.unique(labels[order], return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        key = rank[inverse.reshape(-1)]
        by_cluster = np.argsort(key, kind="stable")
        cuts = np.flatnonzero(np.diff(key[by_cluster])) + 1
        return np.split(order[by_cluster], cuts)

    def select(self, groups, outliers, cap):
        """The training set (a mask): each group's first ``cap`` texts that are not
        ``outliers``; the outliers are set aside first, then the texts beyond the cap."""
        train = np.zeros(outliers.shape[0], dtype=bool)
        outlying, beyond = [], []
        for members in groups:
            kept = members[~outliers[members]]
            train[kept[:cap]] = True
            outlying.append(members[outliers[members]])
            beyond.append(kept[cap:])
        self._set_aside = np.concatenate(outlying + beyond) if groups else self._set_aside
        return train

    def advance(self, train, rng):
        """The order after an iteration: the training texts shuffled, then the test texts."""
        self.order = np.concatenate([rng.permutation(np.flatnonzero(train)), self._set_aside])
