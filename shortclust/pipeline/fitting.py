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

from shortclust.errors import involving, short_repr
from shortclust.pipeline.plan import Plan, PlannedRun, StreamPlan
from shortclust.pipeline.resources import FitResources

#: Documents a warm-up fit uses (twice over for a stream: a fit, then one more batch).
WARM_UP_DOCS = 32

#: The warm-up's cap on iteration-like parameters, for a model that has them: the warm-up
#: only compiles kernels, so ``max_iter: 1000000000`` must not run there (untimed, without
#: progress). The timed runs keep the config's values.
WARM_UP_CAPS = {"max_iter": 2, "n_init": 1, "partial_iter": 2}


#: Top words per cluster written with every run (``clusters/<run_id>.csv``) when the config
#: does not ask for another number (``top_words: N``).
DEFAULT_TOP_WORDS = 10

#: Documents scored at a time for their cluster's probability (bounds the memory).
PROBABILITY_CHUNK = 4096


@dataclass
class Outcome:
    """What fitting one run gives, for the parent process to write.

    Attributes
    ----------
    labels : ndarray
        The cluster of each document, in document order.
    fields : dict
        The record's fields.
    clusters : list of dict
        Each cluster's ``cluster``, ``size`` and ``top_words`` (``[word, weight]`` pairs;
        empty when the model has no ``top_words`` or the columns are not words).
    probabilities : ndarray or None
        Each document's probability of its cluster under the fitted model
        (``predict_proba``); None for a model without it.
    model_state : tuple or None
        :func:`~shortclust.models.state.fitted_state` of the model, when models are kept.
    """

    labels: np.ndarray
    fields: dict[str, Any]
    clusters: list[dict[str, Any]] = field(default_factory=list)
    probabilities: np.ndarray | None = None
    model_state: tuple | None = None


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
    words : tuple
        ``(n, vocabulary)``: each run's clusters are described by their top ``n`` words
        (``vocabulary`` None when the features' columns are not words).
    record_words : bool
        Put the cluster sizes and top words in the record too (the config's ``top_words``).
    keep_models : bool
        Return each run's fitted state (``run --save-models``).
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
    words: tuple = (DEFAULT_TOP_WORDS, None)
    record_words: bool = False
    keep_models: bool = False
    stream: StreamPlan | None = None
    coverage: dict | None = None
    quality: Any = None
    extras: dict[str, Any] = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.extras = {} if self.counts is None else {"counts": self.counts}

    @classmethod
    def from_plan(cls, plan: Plan, keep_models: bool = False, progress: bool = False,
                  console=None, workers: int = 1, client=None) -> RunContext:
        """Build the representation (once) and everything else a run needs.

        ``progress``: show a progress bar while sentence embeddings are computed (on
        ``console``, default standard error); they are computed in ``workers`` processes,
        or on the workers of the Dask ``client`` if given.
        """
        from shortclust.pipeline.plan import columns_are_words
        from shortclust.representations import build_representation, representation_coverage

        config, corpus = plan.config, plan.corpus
        capabilities = plan.model_class.capabilities
        vocabulary = corpus.vocabulary if columns_are_words(config) else None
        words = (config.top_words or DEFAULT_TOP_WORDS, vocabulary)
        spec = config.representation_spec
        features = build_representation(corpus, spec, progress=progress, console=console,
                                        workers=workers, client=client)
        return cls(plan.model_class, features,
                   corpus.counts if capabilities.fit_counts else None, corpus.labels,
                   list(config.metrics), words, config.top_words is not None, keep_models,
                   plan.stream, representation_coverage(corpus, spec), plan.topic_scorer)

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
        with involving(f"the fit of {self.model_class.__name__} with "
                       f"{short_repr(run.params)} (seed {run.seed})"):
            return self._fit(run, callback)

    def _fit(self, run: PlannedRun, callback) -> Outcome:
        if self.stream is not None:
            from shortclust.pipeline.stream import fit_stream

            return fit_stream(self, run, callback)
        with FitResources() as cost:
            model, fit_seconds = self.fit_whole(run, callback)
        labels = fitted_labels(model, self.features.shape[0])
        fields = {"metrics": self.score(labels), "n_clusters": n_clusters_of(model, labels),
                  "n_iter": _optional_int(getattr(model, "n_iter_", None)),
                  "fit_seconds": fit_seconds, **cost.fields()}
        return self.outcome(model, labels, fields)

    def outcome(self, model, labels, fields: dict[str, Any]) -> Outcome:
        """The :class:`Outcome` of a fitted model: its clusters described, its documents'
        probabilities and, when models are kept, its state (untimed)."""
        clusters = self.clusters(model, labels)
        state = None
        if self.keep_models:
            from shortclust.models.state import fitted_state

            state = fitted_state(model)
        quality = {} if self.quality is None else {"topic_quality": self.quality.of_model(
            model, labels, [cluster["top_words"] for cluster in clusters])}
        return Outcome(labels, fields | self.describe(clusters) | quality, clusters,
                       self.probabilities(model, labels), state)

    def fit_whole(self, run: PlannedRun, callback=None):
        """A fresh model of the run fitted on every document (timed): (model, seconds)."""
        model = self.model_class(**run.params, random_state=run.seed)
        started = time.perf_counter()
        model.fit(self.features, callback=callback, **self.extras)
        return model, time.perf_counter() - started

    def score(self, labels, rows=slice(None), truth=None) -> dict[str, float] | None:
        """Metrics of ``labels[rows]`` against ``truth[rows]`` (default: the gold labels in
        document order); None when the corpus is unlabelled. Against labels of one class
        the metrics undefined there are None (null in the record)."""
        if self.truth is None:
            return None
        from shortclust.evaluation.metrics import ONE_CLASS_UNDEFINED, evaluate

        truth = (self.truth if truth is None else truth)[rows]
        scores = evaluate(truth, np.asarray(labels)[rows], metrics=self.metrics)
        if np.unique(truth).size < 2:  # NMI, completeness... compare nothing with one class
            scores = {m: None if m in ONE_CLASS_UNDEFINED else v for m, v in scores.items()}
        return scores

    def clusters(self, model, labels) -> list[dict[str, Any]]:
        """Each cluster's number, size and top words (none without ``top_words`` or words).

        The clusters are those ``top_words`` lists (a K-means model's may be empty), else
        those of the labels.
        """
        n, vocabulary = self.words
        words = []
        if self.model_class.capabilities.top_words and vocabulary is not None:
            words = model.top_words(n, vocabulary=list(vocabulary))
        labels = np.asarray(labels, dtype=np.int64)
        sizes = np.bincount(labels, minlength=len(words)) if labels.size else np.zeros(0, int)
        return [{"cluster": k, "size": int(sizes[k]),
                 "top_words": [[str(word), float(weight)] for word, weight in words[k]]
                 if k < len(words) else []}
                for k in range(max(len(words), sizes.size))]

    def describe(self, clusters: list[dict[str, Any]]) -> dict[str, Any]:
        """The record's ``cluster_sizes`` and ``top_words``, when the config asks for them."""
        if not self.record_words or not clusters or not clusters[0]["top_words"]:
            return {}
        return {"cluster_sizes": [cluster["size"] for cluster in clusters],
                "top_words": [cluster["top_words"] for cluster in clusters]}

    def probabilities(self, model, labels) -> np.ndarray | None:
        """Each document's probability of its cluster (``predict_proba``), or None.

        Computed :data:`PROBABILITY_CHUNK` documents at a time, so a large corpus with many
        clusters never holds its whole probability matrix.
        """
        if not self.model_class.capabilities.predict_proba:
            return None
        labels = np.asarray(labels, dtype=np.int64)
        out = np.empty(labels.shape[0])
        for start in range(0, labels.shape[0], PROBABILITY_CHUNK):
            rows = slice(start, start + PROBABILITY_CHUNK)
            whole = labels.shape[0] <= PROBABILITY_CHUNK  # no copy of the rows then
            proba = model.predict_proba(self.features if whole else self.features[rows])
            out[rows] = proba[np.arange(proba.shape[0]), labels[rows]]
        return out


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
