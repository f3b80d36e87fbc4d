"""Experiment configuration: the YAML schema, ``--set`` overrides and up-front validation.

An experiment YAML names what to cluster, with which model, how many times and where to write::

    name: gsdmm_tweet
    dataset: Tweet            # a registry name or a path to a JSONL/CSV/txt file
    preprocess: none          # "auto" (the dataset's default), "none" or a named paper pipeline
    model:
      name: gsdmm
      params: {n_clusters: 500, alpha: 0.1, beta: 0.1, max_iter: 30}
    runs: 20                  # seeds 0..19; or `seeds: [3, 7, 11]`
    metrics: [nmi, ari, acc]  # default: all of shortclust.evaluation.metrics.METRIC_NAMES
    topic_quality: {top_n: 10}  # optional: NPMI, C_v and diversity of the clusters' top words
    output: runs/gsdmm_tweet  # default: runs/<name>

:func:`load_config` turns every mistake (missing file, malformed YAML, unknown key, wrong type,
unknown model or parameter, out-of-range parameter, malformed override) into a
:class:`~shortclust.errors.ConfigError` (or the model's
:class:`~shortclust.errors.ParameterError`) with a one-line message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from shortclust._overrides import (  # noqa: F401 (re-exported)
    NoAliasLoader, apply_overrides, parse_override)
from shortclust.errors import ConfigError, ShortclustError, allowed_hint, involving, one_line  # noqa: F401

_STRICT = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


#: The most runs one config may ask for (10**23 overflowed, 10**8 exhausted memory).
MAX_RUNS = 100_000

class ModelSpec(BaseModel):
    """The ``model`` section: a registered model name and its constructor parameters."""

    model_config = _STRICT

    name: str
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _lowercase_name(cls, value: str) -> str:
        return value.strip().lower()


class TopicQualitySpec(BaseModel):
    """The ``topic_quality`` section: coherence and diversity of each run's clusters' top words.

    Computed right after each fit from the model's ``top_words`` (models that have them,
    fitted on the corpus's words), recorded as the run's ``topic_quality`` and shown in
    summaries and sweep tables beside the clustering metrics; no gold labels needed (see
    :mod:`shortclust.evaluation.coherence`). Settings do not change run ids: on resume,
    runs recorded without these settings are scored again.

    Attributes
    ----------
    measures : list of str
        From ``npmi``, ``c_v`` (coherence) and ``diversity``; default all three.
    top_n : int
        Top words per cluster scored (default 10; words a cluster's documents do not hold
        are dropped, see :meth:`~shortclust.evaluation.coherence.Reference.cluster_topics`).
    reference : str or None
        The corpus the word probabilities come from: a registered dataset name or a corpus
        file, preprocessed with the clustered corpus's pipeline so that words are spelled
        alike; default the clustered corpus itself.
    """

    model_config = _STRICT

    measures: list[str] = Field(default_factory=lambda: list(_topic_measures()))
    top_n: int = Field(default=10, ge=2)
    reference: str | None = None

    @field_validator("measures")
    @classmethod
    def _known_measures(cls, measures: list[str]) -> list[str]:
        known = _topic_measures()
        names = list(dict.fromkeys(m.strip().lower() for m in measures))
        unknown = [m for m in names if m not in known]
        if unknown or not names:
            what = f"unknown measure '{unknown[0]}'" if unknown else "must list a measure"
            raise ValueError(f"{what} (choose from {', '.join(known)})")
        return names

    @field_validator("reference")
    @classmethod
    def _non_empty_reference(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must name a dataset or a corpus file (or be left out: the "
                             "clustered corpus)")
        return None if value is None else value.strip()


class ExperimentConfig(BaseModel):
    """One experiment: a dataset, a model with fixed parameters, a set of seeds and metrics.

    Attributes
    ----------
    name : str
        Experiment name; records carry it as ``config_name``.
    dataset : str
        A registered dataset name (``shortclust data list``) or a path to a corpus file
        (relative paths are relative to the current directory, as is ``output``).
    preprocess : str
        Preprocessing pipeline; ``"auto"`` uses the dataset's default.
    model : ModelSpec
        ``name`` and ``params`` (exactly the estimator's constructor parameters, without
        ``random_state``, which comes from the seeds).
    runs : int
        Number of runs, with seeds ``0..runs-1``, unless ``seeds`` is given.
    seeds : list of int or None
        Explicit non-negative seeds; overrides ``runs``.
    metrics : list of str
        Metric names from ``shortclust.evaluation.metrics.METRIC_NAMES``.
    output : str or None
        Output directory; ``None`` means ``runs/<name>`` (see :attr:`output_dir`).
    top_words : int or None
        Record each run's clusters: their sizes and ``top_words`` words with weights
        (models that have ``top_words`` only), so tables can show them from the records.
    topic_quality : TopicQualitySpec or None
        Score each run's clusters' top words: NPMI and C_v coherence, topic diversity
        (:class:`TopicQualitySpec`). ``topic_quality: [npmi, c_v]`` lists measures only;
        ``topic_quality: true`` (or ``{}``) takes every default.
    sweep : dict or None
        Grids for ``shortclust sweep``: model parameter name -> list of values, e.g.
        ``{beta: [0.02, 0.04, 0.1]}``. ``shortclust run`` ignores it and runs the base setting.
    stream : dict or None
        Streaming mode (see :mod:`shortclust.pipeline.batches`): the corpus is ordered by
        time and fed to the model in batches; checked when the config is loaded.
    representation : dict or None
        What the model is fitted on (see :mod:`shortclust.representations`):
        ``{name: counts | tfidf | word_vectors | glove | sentence_embeddings, path: ...}``, or just
        the name (``representation: tfidf``); default: the term counts.
    """

    model_config = _STRICT

    name: str
    dataset: str
    preprocess: str = "auto"
    model: ModelSpec
    runs: int = Field(default=1, ge=1, le=MAX_RUNS)
    # Seeds become numpy/scikit-learn random states, which must be non-negative; checking
    # here stops a bad seed before any run instead of as a traceback in the middle.
    seeds: list[Annotated[int, Field(ge=0)]] | None = None
    metrics: list[str] = Field(default_factory=lambda: list(_metric_names(default=True)))
    output: str | None = None
    top_words: int | None = Field(default=None, ge=1)
    topic_quality: TopicQualitySpec | None = None
    sweep: dict[str, Any] | None = None
    stream: dict[str, Any] | None = None
    representation: dict[str, Any] | None = None

    @field_validator("name", "dataset", "preprocess")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    @field_validator("name")
    @classmethod
    def _name_is_not_a_path(cls, value: str) -> str:
        # It names the default output folder runs/<name>: '../../x' would write elsewhere.
        if "/" in value or "\\" in value or ".." in value:
            raise ValueError(
                f"'{value}' must not contain '/', '\\' or '..' (it names the default output "
                "folder runs/<name>); choose a plain name, and the folder with output:"
            )
        return value

    @field_validator("seeds")
    @classmethod
    def _distinct_seeds(cls, seeds: list[int] | None) -> list[int] | None:
        if seeds is not None and not seeds:
            raise ValueError("must list at least one seed (or drop it and use runs)")
        if seeds is not None and len(set(seeds)) != len(seeds):
            raise ValueError("must not repeat a seed")
        return seeds

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, metrics: list[str]) -> list[str]:
        known = _metric_names()
        names = list(dict.fromkeys(m.strip().lower() for m in metrics))
        unknown = [m for m in names if m not in known]
        if unknown:
            raise ValueError(f"unknown metric '{unknown[0]}' (choose from {', '.join(known)})")
        if not names:
            raise ValueError(f"must list at least one metric (choose from {', '.join(known)})")
        return names

    @field_validator("topic_quality", mode="before")
    @classmethod
    def _topic_quality_shorthands(cls, section: Any) -> Any:
        """``true`` takes the defaults, ``false`` means none, a list names the measures."""
        if isinstance(section, bool):
            return {} if section else None
        return {"measures": section} if isinstance(section, list) else section

    @field_validator("sweep")
    @classmethod
    def _grids_are_lists(cls, sweep: dict[str, Any] | None) -> dict[str, Any] | None:
        if sweep is None:
            return None
        grids = {}
        for name, values in sweep.items():
            key = str(name).removeprefix("model.params.")
            if not isinstance(values, list) or not values:
                raise ValueError(
                    f"'{name}' must be a non-empty list of values, e.g. {key}: [0.05, 0.1]"
                )
            grids[key] = values
        return grids

    @field_validator("representation", mode="before")
    @classmethod
    def _bare_representation_name(cls, section: Any) -> Any:
        """``representation: tfidf`` (as the README writes it) means ``{name: tfidf}``."""
        return {"name": section} if isinstance(section, str) else section

    @field_validator("representation")
    @classmethod
    def _known_representation(cls, section: dict[str, Any] | None) -> dict[str, Any] | None:
        if section is None:
            return None
        from shortclust.representations import RepresentationSpec

        try:
            return RepresentationSpec.model_validate(section).model_dump()
        except ValidationError as exc:
            raise ValueError(_validation_message(exc)) from None

    @model_validator(mode="after")
    def _valid_stream(self) -> ExperimentConfig:
        if self.stream is not None:
            try:
                self.stream_spec
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return self

    @property
    def stream_spec(self):
        """The ``stream`` section as a checked StreamSpec, or None for a batch experiment."""
        from shortclust.pipeline.batches import parse_stream

        return None if self.stream is None else parse_stream(self.stream)

    @property
    def representation_spec(self):
        """The ``representation`` section as a RepresentationSpec, or None for counts."""
        from shortclust.representations import RepresentationSpec

        return None if self.representation is None else RepresentationSpec(**self.representation)

    @model_validator(mode="after")
    def _runs_match_seeds(self) -> ExperimentConfig:
        if self.seeds is not None and "runs" in self.model_fields_set:
            if self.runs != len(self.seeds):
                raise ValueError(
                    f"runs={self.runs} but {len(self.seeds)} seeds are listed; "
                    "keep only one of them"
                )
        if self.seeds is not None:
            self.runs = len(self.seeds)
        return self

    @property
    def seed_list(self) -> list[int]:
        """Seeds to run, in order: ``seeds`` if given, else ``0..runs-1``."""
        return list(self.seeds) if self.seeds is not None else list(range(self.runs))

    @property
    def output_dir(self) -> Path:
        """Where records, labels and summaries go: ``output`` or ``runs/<name>``."""
        return Path(self.output) if self.output else Path("runs") / self.name


def _metric_names(default: bool = False) -> tuple[str, ...]:
    """Every metric a config may list, or (``default``) those computed when it lists none."""
    from shortclust.evaluation.metrics import KNOWN_METRICS, METRIC_NAMES

    return tuple(METRIC_NAMES if default else KNOWN_METRICS)


def _topic_measures() -> tuple[str, ...]:
    from shortclust.evaluation.coherence import TOPIC_QUALITY_MEASURES

    return TOPIC_QUALITY_MEASURES


TOP_LEVEL_KEYS = tuple(ExperimentConfig.model_fields)
_SECTIONS: dict[tuple, type[BaseModel]] = {(): ExperimentConfig, ("model",): ModelSpec,
                                           ("topic_quality",): TopicQualitySpec}


# --------------------------------------------------------------------------------------------
# loading


def load_config(path, overrides=()) -> ExperimentConfig:
    """Read, override and validate an experiment YAML.

    Parameters
    ----------
    path : str or Path
        The YAML file.
    overrides : sequence of str
        ``key=value`` strings as given to ``--set``: a dotted path (``model.params.alpha=0.05``,
        ``runs=3``) or a bare model parameter (``alpha=0.05``). Values are parsed as YAML, so
        ``3`` is an int, ``0.05`` a float and ``[nmi, ari]`` a list. Setting ``runs`` drops the
        file's ``seeds`` and vice versa. ``null`` removes a key inside a section
        (``stream.n_batches=null``), except a model parameter, which it sets to None.

    Returns
    -------
    ExperimentConfig
        With the model name and every model parameter checked against the estimator.

    Raises
    ------
    ConfigError
        For any problem in the file or the overrides, with a one-line message.
    ParameterError
        When the model rejects a parameter value (out of range).
    """
    with involving(f"config file {path}"):
        return config_from_mapping(_read_yaml_mapping(Path(path)), overrides, where=str(path))


def config_from_mapping(raw: dict, overrides=(), where: str = "config") -> ExperimentConfig:
    """An experiment config from a mapping (a YAML file's, or one a command builds),
    checked as :func:`load_config` checks a file; ``where`` starts every error message.

    Raises
    ------
    ConfigError, ParameterError
        As :func:`load_config`.
    """
    raw = dict(raw)
    _apply_overrides(raw, list(overrides))
    try:
        config = ExperimentConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_validation_message(exc)}") from None
    check_model_params(config.model, where=where)
    return config


def _read_yaml_mapping(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found (check the path)") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, expected a YAML config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file ({one_line(exc)})") from None
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: {_yaml_problem(exc)}") from None
    if raw is None:
        raise ConfigError(
            f"{path}: config file is empty (expected keys: {', '.join(TOP_LEVEL_KEYS)})"
        )
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{path}: top level must be a mapping of key: value, got {_a_kind_of(raw)}"
        )
    return raw


class _UniqueKeyLoader(NoAliasLoader):
    """``yaml.safe_load`` refusing a key given twice in one mapping (YAML keeps the last,
    silently: a second ``model:`` would replace the first without a word)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key_node, _ in node.value:
                try:
                    key = self.construct_object(key_node, deep=True)
                    hash(key)
                except (TypeError, yaml.YAMLError):
                    continue  # left to the constructor's own error
                if key in first:
                    raise yaml.constructor.ConstructorError(
                        None, None,
                        f"duplicate key '{key}' (first at line {first[key] + 1}); keep one",
                        key_node.start_mark,
                    )
                first[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def _a_kind_of(value: Any) -> str:
    """``an integer``, ``a list``...: what a YAML value is, as a sentence says it."""
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or one_line(exc)
    if mark is None:
        return f"malformed YAML ({problem})"
    return f"malformed YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


# --------------------------------------------------------------------------------------------
# model parameters


def get_model_class(name: str) -> type:
    """The estimator class for ``name`` (imported lazily); ConfigError if unknown."""
    from shortclust.models import get_model_class as lookup

    return lookup(name)


def model_param_names(model_class: type) -> list[str]:
    """Constructor parameters a config may set: ``get_params()`` keys minus ``random_state``."""
    return sorted(k for k in model_class().get_params() if k != "random_state")


def check_model_params(spec: ModelSpec, where: str = "config") -> type:
    """Check ``spec`` against its estimator and return the estimator class.

    Unknown names raise ConfigError listing the allowed ones; values are checked against
    the estimator's declared constraints (:func:`shortclust.models.base.validate_params`),
    without fitting. A model class missing its declarations is a one-line ConfigError too.
    """
    try:
        model_class = get_model_class(spec.name)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if "random_state" in spec.params:
        raise ConfigError(
            f"{where}: model.params.random_state is set by the seeds; use 'runs' or 'seeds' instead"
        )
    _validate_param_values(model_class, spec, where)
    return model_class


def _validate_param_values(model_class: type, spec: ModelSpec, where: str) -> None:
    from shortclust.models.base import validate_params
    from shortclust.models.common.params import check_param_names

    try:
        check_param_names(model_class, spec.params, spec.name)
        validate_params(model_class, spec.params)
    except ShortclustError as exc:
        # Say where the value lives, so the fix is one edit or one --set away.
        raise ConfigError(
            f"{where}: model.params: {one_line(exc)} (edit the config or pass "
            f"--set model.params.NAME=VALUE)"
        ) from None
    except (TypeError, ValueError) as exc:
        # TypeError includes ModelDeclarationError: a model class missing its declarations,
        # whose message names the class and what to add.
        raise ConfigError(f"{where}: model '{spec.name}': {one_line(exc)}") from None


def full_model_params(spec: ModelSpec) -> dict[str, Any]:
    """Every constructor parameter of ``spec``'s estimator, defaults filled in, no ``random_state``.

    What identifies a run: its id and its record's ``params`` (and the IC reproduction's
    work-directory tags) are made from this. The values are made JSON-compatible (numpy
    scalars become Python numbers). A parameter the model added after runs were archived
    is left out while it holds the value that reproduces the behaviour from before it
    (:func:`shortclust.models.base.identity_params`), so archived runs keep their ids.
    """
    from shortclust.models.base import identity_params

    model_class = get_model_class(spec.name)
    params = model_class(**spec.params).get_params()
    params.pop("random_state", None)
    params = json.loads(json.dumps(params, sort_keys=True, default=_json_default))
    return identity_params(model_class, params)


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


# --------------------------------------------------------------------------------------------
# one-line messages


def _validation_message(exc: ValidationError) -> str:
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    message = _describe_error(errors[0])
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return message


def _describe_error(error: dict) -> str:
    loc = tuple(str(part) for part in error["loc"])
    key = ".".join(loc) or "config"
    if error["type"] == "extra_forbidden":
        section = _SECTIONS.get(loc[:-1])
        allowed = f" {allowed_hint(loc[-1], section.model_fields)}" if section else ""
        return f"unknown key '{key}'{allowed}"
    if error["type"] == "missing":
        return f"missing key '{key}'"
    message = one_line(error["msg"]).removeprefix("Value error, ")
    if error["type"] in ("value_error", "assertion_error") or "input" not in error:
        return f"'{key}': {message}" if loc else message
    return f"'{key}': {message} (got {_short_repr(error['input'])})"


def _apply_overrides(raw: dict, overrides: list[str]) -> None:
    """Apply ``--set`` overrides to ``raw`` against this schema's keys and the named model."""
    apply_overrides(raw, overrides, TOP_LEVEL_KEYS,
                    lambda name: model_param_names(get_model_class(name)))


def _short_repr(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

