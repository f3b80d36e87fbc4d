"""Tiny deterministic estimators for testing the experiment harness without real models.

Registered by the ``register_...`` functions below (monkeypatching
``shortclust.models._MODELS``): ``fake`` (:class:`FakeClusterer`, by the ``fake_model``
fixtures), ``fake_counts``, ``fake_topics``, ``fake_stream`` and ``fake_vector_stream``.
Each follows the model contract of :mod:`shortclust.models.base` (declared constraints and
capabilities), which the runner relies on and ``tests/models/test_contract.py`` checks.
"""

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.base import Capabilities, ClusteringModel, Integer, Real, Seed

FAKE_MODEL_NAME = "fake"


class FakeClusterer(ClusteringModel):
    """Assigns each document a cluster drawn from ``default_rng(random_state)``.

    Class attributes (not parameters, so they do not change run ids): ``fit_calls`` counts
    the runs' fits since the last reset (those given a progress callback, as the runner's
    are) and ``warm_up_fits`` the runner's untimed warm-up fits (no callback);
    ``interrupt_on_fit`` makes the run fit with that 1-based number raise
    KeyboardInterrupt, as Ctrl-C would.
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "max_iter": Integer(1),
        "alpha": Real(0.0),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="both", predict=False, predict_proba=False,
                                top_words=False)

    fit_calls = 0
    warm_up_fits = 0
    interrupt_on_fit = None

    def __init__(self, *, n_clusters=3, max_iter=2, alpha=0.1, random_state=None):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.alpha = alpha
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        self._validate_params()
        if callback is None:
            type(self).warm_up_fits += 1
        else:
            type(self).fit_calls += 1
            if type(self).fit_calls == type(self).interrupt_on_fit:
                raise KeyboardInterrupt
        rng = np.random.default_rng(self.random_state)
        labels = rng.integers(0, self.n_clusters, X.shape[0])
        for iteration in range(1, self.max_iter + 1):
            if callback is not None:
                callback(iteration, self.max_iter, len(np.unique(labels)))
        self.labels_ = labels
        self.n_clusters_ = len(np.unique(labels))
        self.n_iter_ = self.max_iter
        return self


class FakeCountsClusterer(FakeClusterer):
    """:class:`FakeClusterer` whose ``fit`` also takes ``counts``, as iterative classification's.

    ``seen`` (class attribute) collects ``(X, counts, timed)`` of every fit, ``timed``
    being whether it had the runner's progress callback (a run, not the warm-up).
    """

    capabilities = Capabilities(input="both", fit_counts=True, predict=False,
                                predict_proba=False, top_words=False)
    seen = []

    def fit(self, X, y=None, callback=None, counts=None):
        type(self).seen.append((X, counts, callback is not None))
        return super().fit(X, callback=callback)


class FakeStreamClusterer(ClusteringModel):
    """An incremental fake: each batch's documents get clusters drawn at random.

    ``partial_fit(X_batch)`` draws a cluster in ``0..n_clusters-1`` for each new row from
    one generator, made from ``random_state`` by the first call and kept as
    ``random_state_``, and appends them to ``labels_`` (every document seen, in order).
    ``fit(X)`` starts afresh and is one such call. The same seed gives the same labels,
    and feeding X in batches gives the labels of fitting X (numpy draws bounded integers
    one after another). Takes counts or vectors.
    """

    _parameter_constraints = {"n_clusters": Integer(1), "random_state": Seed()}
    capabilities = Capabilities(input="both", incremental=True, predict=False,
                                predict_proba=False, top_words=False)

    def __init__(self, *, n_clusters=3, random_state=None):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        self._validate_params()
        self._check_input(X)
        self._start()
        self._add(X)
        if callback is not None:
            callback(1, 1, self.n_clusters_)
        return self

    def partial_fit(self, X_batch, y=None):
        self._validate_params()
        self._check_input(X_batch)
        if not hasattr(self, "random_state_"):
            self._start()
        self._add(X_batch)
        return self

    def _start(self):
        self.random_state_ = np.random.default_rng(self.random_state)
        self.labels_ = np.empty(0, dtype=np.int64)

    def _add(self, X):
        """Draw the new rows' clusters and append them; set the fitted attributes."""
        n_rows = (X.counts if hasattr(X, "counts") else X).shape[0]
        new = self.random_state_.integers(0, self.n_clusters, n_rows)
        self.labels_ = np.concatenate([self.labels_, new])
        self.n_clusters_ = len(np.unique(self.labels_))
        self.n_iter_ = 1

    def _check_input(self, X):
        """Any matrix will do (see :class:`FakeVectorStreamClusterer`)."""


class FakeVectorStreamClusterer(FakeStreamClusterer):
    """:class:`FakeStreamClusterer` that takes document vectors only.

    ``fit`` and ``partial_fit`` refuse word counts (a Corpus or an integer matrix) with a
    ParameterError saying the model takes document vectors, so a test can prove a stream
    fed it vectors.
    """

    capabilities = Capabilities(input="vectors", incremental=True, predict=False,
                                predict_proba=False, top_words=False)

    def _check_input(self, X):
        dtype = getattr(X, "dtype", None)
        if hasattr(X, "counts") or (dtype is not None and np.issubdtype(dtype, np.integer)):
            raise ParameterError(
                "fake_vector_stream takes document vectors (a float matrix), got word "
                "counts: give it a representation such as tfidf"
            )


class FakeTopicsClusterer(FakeClusterer):
    """:class:`FakeClusterer` with ``top_words``: each cluster's words by their count in its
    documents, ties by column, as a topic model lists them (empty clusters included).

    ``top_words_calls`` (class attribute) counts the calls.
    """

    capabilities = Capabilities(input="both", predict=False, predict_proba=False,
                                top_words=True)
    top_words_calls = 0

    def fit(self, X, y=None, callback=None):
        import scipy.sparse as sp

        super().fit(X, callback=callback)
        rows = np.arange(X.shape[0])
        membership = sp.csr_matrix((np.ones(X.shape[0]), (self.labels_, rows)),
                                   shape=(self.n_clusters, X.shape[0]))
        self.cluster_word_counts_ = np.asarray((membership @ sp.csr_matrix(X)).todense())
        return self

    def top_words(self, n=10, vocabulary=None):
        type(self).top_words_calls += 1
        result = []
        for row in self.cluster_word_counts_:
            top = np.argsort(-row, kind="stable")[:n]
            result.append([(vocabulary[w] if vocabulary is not None else int(w), float(row[w]))
                           for w in top])
        return result


def _register(monkeypatch, name, model_class):
    import shortclust.models as models

    monkeypatch.setitem(models._MODELS, name, (model_class.__module__, model_class.__name__))
    return model_class


def register_fake_model(monkeypatch):
    """Register :class:`FakeClusterer` as model ``fake`` and reset its counters."""
    _register(monkeypatch, FAKE_MODEL_NAME, FakeClusterer)
    monkeypatch.setattr(FakeClusterer, "fit_calls", 0)
    monkeypatch.setattr(FakeClusterer, "warm_up_fits", 0)
    monkeypatch.setattr(FakeClusterer, "interrupt_on_fit", None)
    return FakeClusterer


def register_fake_counts_model(monkeypatch):
    """Register :class:`FakeCountsClusterer` as model ``fake_counts``, its ``seen`` emptied."""
    _register(monkeypatch, "fake_counts", FakeCountsClusterer)
    monkeypatch.setattr(FakeCountsClusterer, "seen", [])
    return FakeCountsClusterer


def register_fake_topics_model(monkeypatch):
    """Register :class:`FakeTopicsClusterer` as model ``fake_topics`` and reset its counters."""
    _register(monkeypatch, "fake_topics", FakeTopicsClusterer)
    monkeypatch.setattr(FakeTopicsClusterer, "fit_calls", 0)
    monkeypatch.setattr(FakeTopicsClusterer, "warm_up_fits", 0)
    monkeypatch.setattr(FakeTopicsClusterer, "top_words_calls", 0)
    return FakeTopicsClusterer


def register_fake_stream_model(monkeypatch):
    """Register :class:`FakeStreamClusterer` as model ``fake_stream``."""
    return _register(monkeypatch, "fake_stream", FakeStreamClusterer)


def register_fake_vector_stream_model(monkeypatch):
    """Register :class:`FakeVectorStreamClusterer` as model ``fake_vector_stream``."""
    return _register(monkeypatch, "fake_vector_stream", FakeVectorStreamClusterer)


TEXTS = [
    "apple banana fruit", "banana fruit salad", "apple pie fruit", "fruit juice apple",
    "python code bug", "code review python", "bug fix code", "python test code",
    "goal match football", "football league goal", "match referee goal", "league football cup",
]
LABELS = ["fruit"] * 4 + ["code"] * 4 + ["sport"] * 4


def write_corpus(path, labelled=True):
    """Write the 12-document test corpus as JSON Lines at ``path``; return ``path``."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        for text, label in zip(TEXTS, LABELS):
            doc = {"text": text, "label": label} if labelled else {"text": text}
            handle.write(json.dumps(doc) + "\n")
    return path


def write_config(path, corpus, output, **changes):
    """Write an experiment YAML using the fake model on ``corpus``; ``changes`` update keys."""
    import yaml

    config = {
        "name": "fake_test",
        "dataset": str(corpus),
        "preprocess": "none",
        "model": {"name": FAKE_MODEL_NAME, "params": {"n_clusters": 3, "alpha": 0.5}},
        "runs": 3,
        "output": str(output),
    }
    config.update(changes)
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path
