"""Planning an experiment: everything checked and fixed before anything is written.

:func:`plan_experiment` checks the config against the model's declared contract (its
parameters, the input it takes, whether it learns incrementally), loads the corpus, cuts a
stream into batches, and lists the runs to do with their ids. Batch runs, sweeps and
streams are planned here alike; nothing is fitted or written.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from shortclust.config import ExperimentConfig, check_model_params, full_model_params
from shortclust.errors import ConfigError, ParameterError, involving
from shortclust.pipeline.batches import Batch, StreamSpec, make_batches, stream_order
from shortclust.pipeline.records import make_run_id
from shortclust.pipeline.topic_quality import check_topic_quality, load_reference


@dataclass(frozen=True)
class PlannedRun:
    """One run: its seed, its id and the full constructor parameters (no random_state)."""

    seed: int
    run_id: str
    params: dict[str, Any]


@dataclass(frozen=True)
class StreamPlan:
    """How a stream experiment feeds the corpus: time order and batches of that order."""

    spec: StreamSpec
    order: np.ndarray
    batches: list[Batch]


@dataclass
class Plan:
    """A checked experiment: config, model, corpus, the runs and, for a stream, its batches
    (``reference``: the corpus of ``topic_quality.reference``, if one is named)."""

    config: ExperimentConfig
    model_class: type
    corpus: Any
    runs: list[PlannedRun]
    stream: StreamPlan | None = None
    reference: Any = None

    @cached_property
    def run_ids(self) -> frozenset[str]:
        """The ids of the planned runs."""
        return frozenset(run.run_id for run in self.runs)

    @cached_property
    def topic_scorer(self):
        """The :class:`~.topic_quality.TopicScorer` of ``topic_quality`` (None without it)."""
        from shortclust.pipeline.topic_quality import TopicScorer

        return TopicScorer.from_plan(self)


def plan_experiment(config: ExperimentConfig, data_dir=None,
                    points: list[dict[str, Any]] | None = None) -> Plan:
    """Check ``config`` (at each grid point of ``points``), load its corpus, list its runs.

    Raises
    ------
    ConfigError, DataError, ParameterError
        For a bad config, model, parameter, representation, stream section or dataset.
    """
    where = f"config '{config.name}'"
    if config.output_dir.exists() and not config.output_dir.is_dir():
        raise ConfigError(f"output '{config.output_dir}' is a file: choose a directory "
                          "with --output")
    model_class = check_model_params(config.model, where=where)
    check_input(model_class, config, where)
    check_topic_quality(model_class, config, where)
    _refuse_repeated_points(points, where)
    spec = config.stream_spec
    corpus = None
    if spec is not None:
        check_incremental(model_class, config, where)
        check_stream_perplexity(model_class, config, where)
        # A bad value fails here, before the corpus (minutes for a large one) is loaded.
        _param_sets(config, points, spec, model_class, where, complete=False)
        corpus = load_experiment_corpus(config, data_dir)  # its size fills stream_length
    param_sets = _param_sets(config, points, spec, model_class, where,
                             None if corpus is None else corpus.n_docs)
    corpus = corpus or load_experiment_corpus(config, data_dir)
    reference = load_reference(config, corpus, data_dir)
    stream = None
    if spec is not None:
        with involving(f"the stream: section of {where} on dataset {config.dataset}"):
            order = stream_order(corpus)
            stream = StreamPlan(spec, order, make_batches(spec, corpus, order,
                                                          where=f"{where}: stream"))
    for params in param_sets:
        check_memory(model_class, params, config, corpus, where)
    runs = [PlannedRun(seed, _run_id(config, corpus, params, seed, spec), params)
            for params in param_sets for seed in config.seed_list]
    return Plan(config, model_class, corpus, runs, stream, reference)


def _refuse_repeated_points(points, where: str) -> None:
    """A grid value listed twice (``[0.1, 0.1]``, or ``[1, 1.0]``, equal as numbers) would
    run the same setting twice and count its runs twice in a table."""
    points = list(points or [])
    for index, point in enumerate(points):
        for earlier in points[:index]:
            if earlier == point:
                raise ConfigError(f"{where}: grid points {_describe(earlier)} and "
                                  f"{_describe(point)} are the same setting: list each "
                                  "value once")


def load_experiment_corpus(config: ExperimentConfig, data_dir):
    from shortclust.data import load_corpus

    return load_corpus(config.dataset, preprocess=config.preprocess, data_dir=data_dir)


def _run_id(config, corpus, params, seed, spec) -> str:
    # The pipeline actually applied ("auto" resolved), so ids do not depend on the spelling.
    return make_run_id(config.dataset, corpus.preprocess, config.model.name, params, seed,
                       config.representation, None if spec is None else spec.as_record())


# --------------------------------------------------------------------------------------------
# the model's declared contract against the config


#: What each representation gives a model: term counts or document vectors.
_GIVES = {"counts": "counts", "tfidf": "vectors", "word_vectors": "vectors",
          "glove": "vectors", "sentence_embeddings": "vectors"}


def columns_are_words(config: ExperimentConfig) -> bool:
    """Whether the features' columns are the corpus's words (counts or TF-IDF), so a model's
    ``top_words`` can name them."""
    return (config.representation or {}).get("name", "counts") in ("counts", "tfidf")


def check_input(model_class: type, config: ExperimentConfig, where: str) -> None:
    """Refuse a representation whose kind (counts or vectors) the model does not take."""
    name = (config.representation or {}).get("name", "counts")
    takes = model_class.capabilities.input
    if takes in ("both", _GIVES[name]):
        return
    if takes == "counts":
        raise ConfigError(
            f"{where}: model '{config.model.name}' takes term counts, but representation "
            f"'{name}' gives document vectors: remove the representation section (counts "
            "are the default) or choose a model that takes vectors"
        )
    raise ConfigError(
        f"{where}: model '{config.model.name}' takes document vectors, but the config gives "
        "it term counts: set representation: {name: tfidf} (or glove, word_vectors, "
        "sentence_embeddings)"
    )


def check_memory(model_class: type, params: dict[str, Any], config: ExperimentConfig,
                 corpus, where: str) -> None:
    """Refuse a setting whose fit needs more memory than this machine has available
    (:func:`shortclust.models.common.memory.check_fit_memory`), before anything is written, so
    ``n_clusters=100000000`` is a one-line error, not a MemoryError."""
    from shortclust.models.common.memory import check_fit_memory

    name = (config.representation or {}).get("name", "counts")
    width = corpus.counts.shape[1] if _GIVES[name] == "counts" or name == "tfidf" else None
    check_fit_memory(model_class, params, config.model.name, corpus.n_docs, width,
                     corpus.counts.shape[1], where=where)


def check_saveable(plan: Plan) -> None:
    """``--save-models`` needs a model that can assign new texts: one with ``predict``,
    fitted on term counts (what a saved vocabulary and pipeline rebuild)."""
    from shortclust.models import get_model_class, model_names

    config = plan.config
    where = f"config '{config.name}': --save-models"
    if not plan.model_class.capabilities.predict:
        able = [name for name in model_names() if get_model_class(name).capabilities.predict]
        raise ConfigError(
            f"{where}: model '{config.model.name}' has no predict, so a saved model could "
            f"not assign new texts: leave --save-models out, or use one of {', '.join(able)}"
        )
    name = (config.representation or {}).get("name", "counts")
    if name != "counts":
        raise ConfigError(
            f"{where}: saved models take term counts, and representation '{name}' gives "
            "other features: leave --save-models out, or remove the representation section"
        )


def check_incremental(model_class: type, config: ExperimentConfig, where: str) -> None:
    """A stream needs a model that declares ``partial_fit``."""
    if not model_class.capabilities.incremental:
        raise ConfigError(
            f"{where}: model '{config.model.name}' has no partial_fit, which a stream needs: "
            "use an incremental model (gsdmm) or remove the stream section"
        )


def check_stream_perplexity(model_class: type, config: ExperimentConfig, where: str) -> None:
    """``stream.perplexity`` needs word counts and a model that declares ``topics``."""
    name = (config.representation or {}).get("name", "counts")
    if (config.stream or {}).get("perplexity") and (name != "counts" or not model_class.capabilities.topics):
        why = (f"representation '{name}' gives no word counts" if name != "counts" else
               f"model '{config.model.name}' gives no topic_proportions_ and topic_word_")
        raise ConfigError(f"{where}: stream.perplexity scores word counts under a model's "
                          f"topic and word distributions, but {why}: remove "
                          "stream.perplexity or use a topic model (gsdmm, lda, dct) on counts")


def _param_sets(config: ExperimentConfig, points, spec, model_class, where: str,
                stream_length: int | None = None, complete: bool = True):
    """Full, checked constructor parameters for each grid point (the config's alone if none).

    A stream's ``partial_iter`` becomes the model's, and so does its length (the corpus's
    documents) for a model with a ``stream_length`` parameter left unset (a hybrid model's
    OFFLINE steps fall at fractions of it). Every point is validated before anything
    runs, so a bad value in the middle of a grid stops the sweep up front instead of after
    hours of work. ``complete=False`` leaves out the checks that need the stream's length
    (made again once the corpus is loaded).
    """
    base = _with_partial_iter(config, spec, model_class, where)
    if (stream_length is not None and "stream_length" in model_class().get_params()
            and base.get("stream_length") is None):
        base["stream_length"] = int(stream_length)
    param_sets = []
    for point in points or [{}]:
        if spec is not None and spec.partial_iter is not None and "partial_iter" in point:
            raise ConfigError(f"{where}: partial_iter is set in both stream and the grid: "
                              "keep one")
        model = config.model.model_copy(update={"params": {**base, **point}})
        here = where + (f" at {_describe(point)}" if point else "")
        check_model_params(model, where=here)
        if complete:
            _check_stream_params(model_class, model, here)
        param_sets.append(full_model_params(model))
    return param_sets


def _check_stream_params(model_class, model, where: str) -> None:
    """A model's parameters that only a stream can complete (a hybrid model's
    ``stream_length``), checked once the stream has filled them in."""
    if not hasattr(model_class, "_validate_stream_params"):
        return
    try:
        model_class(**model.params)._validate_stream_params()
    except ParameterError as exc:
        raise ConfigError(f"{where}: {exc} (or add a stream section, which sets it)") from None


def _with_partial_iter(config, spec, model_class, where) -> dict[str, Any]:
    params = dict(config.model.params)
    if spec is None or spec.partial_iter is None:
        return params
    if "partial_iter" in params:
        raise ConfigError(f"{where}: partial_iter is set in both stream and model.params: "
                          "keep one")
    if "partial_iter" not in model_class().get_params():
        raise ConfigError(f"{where}: stream.partial_iter is not a parameter of model "
                          f"'{config.model.name}': remove it")
    return params | {"partial_iter": spec.partial_iter}


def _describe(point: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in point.items())
