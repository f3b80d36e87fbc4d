"""Topic quality of a run's clusters: what the config's ``topic_quality`` asks for, computed.

A :class:`TopicScorer` is built once per experiment (from the plan: the clustered corpus and
the reference corpus as boolean documents) and sent with the run context to every worker.
Right after a fit it takes the model's ``top_words``, keeps each non-empty cluster's words
that its documents hold, and scores them (:mod:`shortclust.evaluation.coherence`). The
record's ``topic_quality`` holds the measures, the settings they were computed with
(``top_n``, ``reference``), the clusters scored and the seconds it took (top words
included), which are not part of ``fit_seconds``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from shortclust.errors import ConfigError

#: Representations whose columns are the corpus's words, so that top words are words.
WORD_COLUMNS = ("counts", "tfidf")


@dataclass
class TopicScorer:
    """Scores the clusters of one experiment's runs.

    Attributes
    ----------
    measures : tuple of str
        Names from :data:`~shortclust.evaluation.coherence.TOPIC_QUALITY_MEASURES`.
    top_n : int
        Top words asked of the model per cluster.
    reference_name : str or None
        The config's ``reference`` (None: the clustered corpus), recorded with the values.
    vocabulary : list of str
        The clustered corpus's words, passed to ``top_words``.
    corpus, reference : Reference
        The clustered corpus and the reference corpus as boolean documents (the same
        object when the reference is the clustered corpus).
    """

    measures: tuple
    top_n: int
    reference_name: str | None
    vocabulary: list
    corpus: Any
    reference: Any

    @classmethod
    def from_plan(cls, plan) -> TopicScorer | None:
        """The scorer of ``plan`` (None when its config asks for no topic quality)."""
        from shortclust.evaluation.coherence import Reference

        spec = plan.config.topic_quality
        if spec is None:
            return None
        corpus = Reference(plan.corpus.counts, plan.corpus.vocabulary)
        reference = corpus if plan.reference is None else Reference(
            plan.reference.counts, plan.reference.vocabulary)
        return cls(tuple(spec.measures), spec.top_n, spec.reference,
                   list(plan.corpus.vocabulary), corpus, reference)

    def of_model(self, model, labels, top_words=None) -> dict[str, Any]:
        """The record's ``topic_quality`` of a fitted model (timed, top words included).

        ``top_words``: the model's top words per cluster if already computed, used when
        they hold at least ``top_n`` words (the per-run clusters file has them).
        """
        started = time.perf_counter()
        if not top_words or any(len(words) < min(self.top_n, len(self.vocabulary))
                                for words in top_words):
            top_words = model.top_words(self.top_n, vocabulary=self.vocabulary)
        entry = self.of_top_words(top_words, labels)
        return entry | {"seconds": time.perf_counter() - started}

    def of_top_words(self, top_words, labels) -> dict[str, Any]:
        """``topic_quality`` from each cluster's top words (at least ``top_n`` of them,
        best first; only the first ``top_n`` count) and the documents' labels."""
        topics = self.corpus.cluster_topics([words[:self.top_n] for words in top_words],
                                            labels)
        values = self.reference.quality(topics, self.measures)
        return {name: _finite(value) for name, value in values.items()} | {
            "top_n": self.top_n, "reference": self.reference_name, "clusters": len(topics)}

    def is_current(self, entry: dict[str, Any] | None) -> bool:
        """Whether a record's ``topic_quality`` has every measure, with these settings."""
        return (entry is not None and all(name in entry for name in self.measures)
                and entry.get("top_n") == self.top_n
                and entry.get("reference") == self.reference_name)

    def can_score(self, record: dict[str, Any]) -> bool:
        """Whether a record keeps enough top words (``top_words: N`` with N >= top_n) to be
        scored from it and its stored labels, without fitting its model again."""
        recorded = record.get("top_words")
        return bool(recorded) and all(len(words) >= min(self.top_n, len(self.vocabulary))
                                      for words in recorded)


def _finite(value: float) -> float | None:
    """A value for JSON: NaN (no topic had two words) becomes null."""
    return None if value is None or math.isnan(value) else float(value)


def check_topic_quality(model_class: type, config, where: str) -> None:
    """Refuse topic quality for a model without top words, or top words that are not words.

    Raises
    ------
    ConfigError
        The model declares no ``top_words``, or the representation's columns are not the
        corpus's words (word or sentence vectors).
    """
    if config.topic_quality is None:
        return
    if not model_class.capabilities.top_words:
        raise ConfigError(
            f"{where}: model '{config.model.name}' has no top_words, which topic_quality "
            "scores: remove topic_quality or choose a model with top words "
            f"({', '.join(_models_with_top_words())})"
        )
    name = (config.representation or {}).get("name", "counts")
    if name not in WORD_COLUMNS:
        raise ConfigError(
            f"{where}: topic_quality scores top words, but representation '{name}' gives "
            "vectors whose columns are not words: use counts or tfidf, or remove topic_quality"
        )


def _models_with_top_words() -> list[str]:
    from shortclust.models import get_model_class, model_names

    return [name for name in model_names() if get_model_class(name).capabilities.top_words]


def load_reference(config, corpus, data_dir):
    """The reference corpus of ``topic_quality`` (None: the clustered corpus itself),
    preprocessed with the clustered corpus's pipeline.

    Raises
    ------
    DataError
        A missing or malformed reference file, or an unknown dataset name.
    """
    spec = config.topic_quality
    if spec is None or spec.reference is None:
        return None
    from shortclust.data import load_corpus

    return load_corpus(spec.reference, preprocess=corpus.preprocess, data_dir=data_dir)
