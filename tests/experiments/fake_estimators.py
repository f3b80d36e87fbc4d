"""A tiny deterministic estimator for testing the experiment harness without real models.

Registered under the model name ``fake`` by the ``fake_model`` fixtures (monkeypatching
``shortclust.models._MODELS``); it follows the estimator contract the runner relies on.
"""

import numpy as np
from sklearn.base import BaseEstimator

from shortclust.errors import ParameterError

FAKE_MODEL_NAME = "fake"


class FakeClusterer(BaseEstimator):
    """Assigns each document a cluster drawn from ``default_rng(random_state)``.

    Class attributes (not parameters, so they do not change run ids): ``fit_calls`` counts
    the runs' fits since the last reset (those given a progress callback, as the runner's
    are) and ``warm_up_fits`` the runner's untimed warm-up fits (no callback);
    ``interrupt_on_fit`` makes the run fit with that 1-based number raise
    KeyboardInterrupt, as Ctrl-C would.
    """

    fit_calls = 0
    warm_up_fits = 0
    interrupt_on_fit = None

    def __init__(self, n_clusters=3, max_iter=2, alpha=0.1, random_state=None):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.alpha = alpha
        self.random_state = random_state

    def _validate_params(self):
        if not isinstance(self.n_clusters, int) or self.n_clusters < 1:
            raise ParameterError(f"n_clusters must be an integer >= 1, got {self.n_clusters!r}")
        if not isinstance(self.max_iter, int) or self.max_iter < 1:
            raise ParameterError(f"max_iter must be an integer >= 1, got {self.max_iter!r}")
        if self.alpha < 0:
            raise ParameterError(f"alpha must be a finite number >= 0, got {self.alpha!r}")

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

    seen = []

    def fit(self, X, y=None, callback=None, counts=None):
        type(self).seen.append((X, counts, callback is not None))
        return super().fit(X, callback=callback)


def register_fake_model(monkeypatch):
    """Register :class:`FakeClusterer` as model ``fake`` and reset its counters."""
    import shortclust.models as models

    entry = (FakeClusterer.__module__, "FakeClusterer")
    monkeypatch.setitem(models._MODELS, FAKE_MODEL_NAME, entry)
    monkeypatch.setattr(FakeClusterer, "fit_calls", 0)
    monkeypatch.setattr(FakeClusterer, "warm_up_fits", 0)
    monkeypatch.setattr(FakeClusterer, "interrupt_on_fit", None)
    return FakeClusterer


def register_fake_counts_model(monkeypatch):
    """Register :class:`FakeCountsClusterer` as model ``fake_counts``, its ``seen`` emptied."""
    import shortclust.models as models

    entry = (FakeCountsClusterer.__module__, "FakeCountsClusterer")
    monkeypatch.setitem(models._MODELS, "fake_counts", entry)
    monkeypatch.setattr(FakeCountsClusterer, "seen", [])
    return FakeCountsClusterer


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
