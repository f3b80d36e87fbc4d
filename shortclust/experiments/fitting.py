"""Fitting one planned run: the same code in this process and in worker processes.

A :class:`RunContext` holds what every run of an experiment needs (the model class, the
features, the gold labels, the metrics, a stream's batches); it is built once and sent
once to each worker. :meth:`RunContext.fit` fits one run, evaluates it and returns an
:class:`Outcome`: its labels and the fields of its record. Only the parent process writes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shortclust.experiments.plan import Plan, PlannedRun, StreamPlan

#: Documents a warm-up fit uses (twice over for a stream: a fit, then one more batch).
WARM_UP_DOCS = 32

#: The warm-up's cap on iteration-like parameters, for a model that has them: the warm-up
#: only compiles kernels, so ``max_iter: 1000000000`` must not run there (untimed, without
#: progress). The timed runs keep the config's values.
WARM_UP_CAPS = {"max_iter": 2, "n_init": 1, "partial_iter": 2}


@dataclass
class Outcome:
    """What fitting one run gives: its labels (document order) and its record's fields."""

    labels: np.ndarray
    fields: dict[str, Any]


@dataclass
class RunContext:
    """What every run of one experiment is fitted with.

    Attributes
    ----------
    model_class : type
        The registered estimator.
    features : matrix
        The config's representation of the corpus (term counts by default), row i being
        document i.
    counts : sparse matrix or None
        The corpus's term counts, for a model that declares ``fit_counts``.
    truth : ndarray or None
        Gold labels (None for an unlabelled corpus: no metrics).
    metrics : list of str
        Metric names to compute.
    words : tuple or None
        ``(n, vocabulary)``: record each run's cluster sizes and top ``n`` words.
    stream : StreamPlan or None
        A stream experiment's time order and batches.
    coverage : dict or None
        Averaged word vectors only: the words, tokens and documents without a vector
        (:func:`shortclust.representations.representation_coverage`), for the records.
    quality : TopicScorer or None
        Score each run's clusters' top words (the config's ``topic_quality``).
    """

    model_class: type
    features: Any
    counts: Any
    truth: np.ndarray | None
    metrics: list[str]
    words: tuple | None = None
    stream: StreamPlan | None = None
    coverage: dict | None = None
    quality: Any = None
    extras: dict[str, Any] = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.extras = {} if self.counts is None else {"counts": self.counts}

    @classmethod
    def from_plan(cls, plan: Plan, progress: bool = False, console=None) -> RunContext:
        """Build the representation (once) and everything else a run needs.

        ``progress``: show a progress bar while sentence embeddings are computed (on
        ``console``, default standard error).
        """
        from shortclust.representations import build_representation, representation_coverage

        config, corpus = plan.config, plan.corpus
        capabilities = plan.model_class.capabilities
        words = None if config.top_words is None else (config.top_words, corpus.vocabulary)
        spec = config.representation_spec
        features = build_representation(corpus, spec, progress=progress, console=console)
        return cls(plan.model_class, features,
                   corpus.counts if capabilities.fit_counts else None, corpus.labels,
                   list(config.metrics), words, plan.stream,
                   representation_coverage(corpus, spec), plan.topic_scorer)

    def warm_up(self, params: dict[str, Any]) -> None:
        """Fit once on a few documents, untimed and unrecorded.

        Compiled kernels (numba) are built or loaded from cache on their first call; doing
        that here keeps the one-off cost out of the first run's ``fit_seconds``.
        """
        n = WARM_UP_DOCS
        try:
            model = self.model_class(**warm_up_params(params),
                                     random_state=0)
            if self.stream is None:
                model.fit(self.features[:n], **_rows(self.extras, slice(0, n)))
            else:
                rows = self.stream.order[:2 * n]
                model.partial_fit(self.features[rows[:n]]).partial_fit(self.features[rows[n:]])
        except Exception:  # noqa: BLE001 - a real problem shows up in the timed run
            pass

    def fit(self, run: PlannedRun, callback) -> Outcome:
        """Fit one run (timed) and evaluate it; ``callback(step, steps, n_clusters)``."""
        if self.stream is not None:
            from shortclust.experiments.stream import fit_stream

            return fit_stream(self, run, callback)
        model, fit_seconds = self.fit_whole(run, callback)
        labels = fitted_labels(model, self.features.shape[0])
        fields = {"metrics": self.score(labels), "n_clusters": n_clusters_of(model, labels),
                  "n_iter": _optional_int(getattr(model, "n_iter_", None)),
                  "fit_seconds": fit_seconds}
        return Outcome(labels, fields | self.describe(model, labels))

    def fit_whole(self, run: PlannedRun, callback=None):
        """A fresh model of the run fitted on every document (timed): (model, seconds)."""
        model = self.model_class(**run.params, random_state=run.seed)
        started = time.perf_counter()
        model.fit(self.features, callback=callback, **self.extras)
        return model, time.perf_counter() - started

    def score(self, labels, rows=slice(None), truth=None) -> dict[str, float] | None:
        """Metrics of ``labels[rows]`` against ``truth[rows]`` (default: the gold labels in
        document order); None when the corpus is unlabelled."""
        if self.truth is None:
            return None
        from shortclust.evaluation.metrics import evaluate

        truth = self.truth if truth is None else truth
        return evaluate(truth[rows], np.asarray(labels)[rows], metrics=self.metrics)

    def describe(self, model, labels) -> dict[str, Any]:
        """Cluster sizes, top words and topic quality of a fitted model, when the config
        asks for them (untimed: after ``fit_seconds``)."""
        if not self.model_class.capabilities.top_words:
            return {}
        described = {}
        if self.words is not None:
            n, vocabulary = self.words
            words = model.top_words(n, vocabulary=list(vocabulary))
            sizes = np.bincount(np.asarray(labels, dtype=np.int64), minlength=len(words))
            described = {"cluster_sizes": [int(size) for size in sizes[:len(words)]],
                         "top_words": [[[str(word), float(weight)] for word, weight in cluster]
                                       for cluster in words]}
        if self.quality is not None:
            described["topic_quality"] = self.quality.of_model(model, labels)
        return described


def warm_up_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with each :data:`WARM_UP_CAPS` parameter at most its cap.

    A planned run's ``params`` are the model's full constructor parameters (defaults
    filled in by the plan), so no signature needs reading.
    """
    def capped(name, value):
        cap = WARM_UP_CAPS.get(name)
        is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        return min(value, cap) if cap is not None and is_int else value

    return {name: capped(name, value) for name, value in params.items()}


def fitted_labels(model, n_docs: int) -> np.ndarray:
    """The model's ``labels_``, checked to hold one label per document."""
    labels = np.asarray(model.labels_)
    if labels.shape != (n_docs,):
        raise RuntimeError(
            f"{type(model).__name__}.labels_ has shape {labels.shape}, expected ({n_docs},)"
        )
    return labels


def n_clusters_of(model, labels) -> int:
    """The model's ``n_clusters_``, else the number of distinct labels."""
    return int(getattr(model, "n_clusters_", len(np.unique(labels))))


def _rows(extras: dict[str, Any], rows) -> dict[str, Any]:
    return {key: value[rows] for key, value in extras.items()}


def _optional_int(value) -> int | None:
    return None if value is None else int(value)
