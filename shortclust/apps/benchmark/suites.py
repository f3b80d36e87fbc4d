"""Benchmark suites: declarations of datasets x models x K choices x seeds, and their cells.

A suite is a YAML file in ``configs/benchmark/`` (its name is the file's stem); the models
it names are declared once, in ``configs/benchmark/models.yaml``:

.. code-block:: yaml

    # configs/benchmark/models.yaml
    models:
      gsdmm:                        # the name the suites and leaderboards use
        model: gsdmm                # a registered model (`shortclust models`)
        params: {}                  # beside the model's own defaults (none: its defaults)
        own: {n_clusters: 500}      # it chooses K itself, given these parameters
      minilm_kmeans:
        model: kmeans
        representation: {name: sentence_embeddings}
        note: MiniLM sentence embeddings + k-means (not in any of the papers)

    # configs/benchmark/quick.yaml
    description: Tweet and the MStream-News-T stream, every fast model
    runs: 5
    k: [true, own]                  # K choices: the true number of classes, the model's own
    batch: {datasets: [Tweet], models: [gsdmm, kmeans]}
    stream: {datasets: [MStream-News-T], models: [gsdmm, dct],
             settings: {batch_by: count, n_batches: 16}}

``models: all`` takes every declared model that applies: every model on a labelled set
(``batch``), the models with ``partial_fit`` on a stream. A model runs at the true K when
it has an ``n_clusters`` parameter, and at its own choice when it declares ``own``.

Each (dataset, model, K choice) is a *cell*, run as an ordinary experiment config through
the run pipeline (once, seed 0, for a model without a seed: ``capabilities.seeded`` False,
as HAC and HDBSCAN, whose runs with other seeds give the same labels); its records are
archived in ``results/benchmark/records/<tag>.json`` under a tag that does not name the
suite, so suites that share a cell share its runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from shortclust.errors import ConfigError

#: Where suites and the model declarations are, in the project checkout.
SUITES_DIR = Path("configs/benchmark")
MODELS_FILE = "models.yaml"
#: The metrics of every cell (coherence comes from ``topic_quality`` where top words exist).
METRICS = ("nmi", "ami", "ari", "acc", "purity")
#: The K choices: the true number of classes, or the model's own.
K_CHOICES = ("true", "own")

_STRICT = ConfigDict(extra="forbid")


class ModelEntry(BaseModel):
    """One model as the benchmark runs it (see the module docstring)."""

    model_config = _STRICT

    model: str
    params: dict[str, Any] = Field(default_factory=dict)
    representation: dict[str, Any] | None = None
    own: dict[str, Any] | None = None
    note: str = ""
    #: The optional extra the model needs (``bench``); a cell whose extra is missing is
    #: skipped with a note instead of failing the suite.
    extra: str | None = None
    #: Python module whose absence means the extra is missing.
    needs: str | None = None


class Part(BaseModel):
    """The batch or stream part of a suite: datasets and models (or ``all``)."""

    model_config = _STRICT

    datasets: list[str] = Field(min_length=1)
    models: list[str] | Literal["all"] = "all"
    settings: dict[str, Any] | None = None


class Suite(BaseModel):
    """A suite file's contents; ``name`` is the file's stem."""

    model_config = _STRICT

    name: str = ""
    description: str = ""
    runs: int = Field(default=5, ge=1)
    k: list[str] = Field(default_factory=lambda: list(K_CHOICES))
    batch: Part | None = None
    stream: Part | None = None

    @field_validator("k", mode="before")
    @classmethod
    def _k_choices(cls, value):
        # YAML reads `true` as a boolean: the true K.
        names = ["true" if v is True else str(v) for v in value]
        unknown = [v for v in names if v not in K_CHOICES]
        if unknown or not names:
            raise ValueError(f"k must list {' and/or '.join(K_CHOICES)}, got {value!r}")
        return names


@dataclass(frozen=True)
class Cell:
    """One dataset x model x K choice of a suite, as an experiment config mapping."""

    kind: str  # "batch" or "stream"
    dataset: str
    entry: str
    k: str
    tag: str
    config: dict[str, Any]
    extra: str | None = None
    needs: str | None = None
    #: False for a model whose labels do not depend on the seed: the cell runs once.
    seeded: bool = True

    @property
    def board(self) -> str:
        """The leaderboard the cell belongs to: its dataset's slug (``_stream`` added)."""
        return dataset_slug(self.dataset) + ("_stream" if self.kind == "stream" else "")

    @property
    def method(self) -> str:
        """The leaderboard's row name: ``gsdmm (K true)``."""
        return f"{self.entry} (K {self.k})"


def dataset_slug(dataset: str) -> str:
    """A registered name as it is; a file path as its name without suffixes.

    Examples
    --------
    >>> dataset_slug("Tweet"), dataset_slug("data/my.texts.jsonl.gz")
    ('Tweet', 'my')
    """
    if "/" in dataset or "\\" in dataset or "." in dataset:
        return Path(dataset).name.split(".")[0]
    return dataset


def _read_yaml(path: Path) -> dict:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: not found") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top")
    return raw


def _validated(kind: type[BaseModel], raw: Any, where: str):
    try:
        return kind.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(p) for p in first["loc"]) or "top"
        raise ConfigError(f"{where}: {place}: {first['msg']}") from None


def load_models(root: Path) -> dict[str, ModelEntry]:
    """The model declarations (``configs/benchmark/models.yaml``), each checked against
    the model registry."""
    from shortclust.models import get_model_class

    path = root / SUITES_DIR / MODELS_FILE
    raw = _read_yaml(path).get("models")
    if not isinstance(raw, dict) or not raw:
        raise ConfigError(f"{path}: expected `models:` mapping names to declarations")
    entries = {name: _validated(ModelEntry, value, f"{path}: {name}")
               for name, value in raw.items()}
    for name, entry in entries.items():
        get_model_class(entry.model)  # an unknown model fails here, in one line
    return entries


def suite_names(root: Path) -> list[str]:
    """The suites declared in the checkout, sorted (every YAML but the models file)."""
    folder = root / SUITES_DIR
    return sorted(p.stem for p in folder.glob("*.yaml") if p.name != MODELS_FILE)


def load_suite(root: Path, name: str) -> Suite:
    """The suite ``name``; ConfigError naming the suites there are otherwise."""
    if name not in suite_names(root):
        raise ConfigError(f"no benchmark suite '{name}': choose from "
                          f"{', '.join(suite_names(root))}")
    path = root / SUITES_DIR / f"{name}.yaml"
    suite = _validated(Suite, _read_yaml(path), str(path))
    return suite.model_copy(update={"name": name})


def has_k(model_name: str) -> bool:
    """Whether the registered model takes the number of clusters (``n_clusters``)."""
    from shortclust.config import model_param_names
    from shortclust.models import get_model_class

    return "n_clusters" in model_param_names(get_model_class(model_name))


def applies(entry: ModelEntry, kind: str) -> bool:
    """Whether a declared model runs on a labelled set (any) or a stream (``partial_fit``)."""
    from shortclust.models import get_model_class

    return kind == "batch" or get_model_class(entry.model).capabilities.incremental


def choose_models(part: Part, kind: str, declared: dict[str, ModelEntry],
                  only: list[str] | None, where: str) -> list[str]:
    """The part's models (declared order for ``all``), cut to ``only`` (``--models``)."""
    if part.models == "all":
        names = [name for name, entry in declared.items() if applies(entry, kind)]
    else:
        unknown = [name for name in part.models if name not in declared]
        if unknown:
            raise ConfigError(f"{where}: model '{unknown[0]}' is not declared in "
                              f"{SUITES_DIR / MODELS_FILE}")
        names = list(part.models)
        refused = [name for name in names if not applies(declared[name], kind)]
        if refused:
            raise ConfigError(f"{where}: model '{refused[0]}' has no partial_fit and cannot "
                              "run on a stream")
    return [name for name in names if only is None or name in only]


def topic_quality_applies(entry: ModelEntry) -> bool:
    """Coherence where top words exist: a model with ``top_words`` on the corpus's words."""
    from shortclust.models import get_model_class

    words = (entry.representation or {}).get("name", "counts") in ("counts", "tfidf")
    return words and get_model_class(entry.model).capabilities.top_words


def cells(suite: Suite, declared: dict[str, ModelEntry], true_k, only=None) -> list[Cell]:
    """Every cell of ``suite``: its parts' datasets x models x K choices, in that order.

    Parameters
    ----------
    true_k : callable
        Dataset name -> its number of classes (after preprocessing).
    only : list of str, optional
        Model names to keep (``--models``); the others are left out.
    """
    from shortclust.models import get_model_class

    out = []
    for kind in ("batch", "stream"):
        part = getattr(suite, kind)
        if part is None:
            continue
        where = f"suite '{suite.name}', {kind}"
        models = choose_models(part, kind, declared, only, where)
        for dataset in part.datasets:
            for name in models:
                entry = declared[name]
                for k in suite.k:
                    if k == "true" and not has_k(entry.model):
                        continue
                    if k == "own" and entry.own is None:
                        continue
                    seeded = get_model_class(entry.model).capabilities.seeded
                    params = dict(entry.params)
                    params.update({"n_clusters": true_k(dataset)} if k == "true" else entry.own)
                    tag = (f"{name}_K{k}_{'stream_' if kind == 'stream' else ''}"
                           f"{dataset_slug(dataset)}")
                    config = {"name": f"benchmark_{tag}", "dataset": dataset,
                              "model": {"name": entry.model, "params": params},
                              "runs": suite.runs if seeded else 1,
                              "metrics": list(METRICS)}
                    if entry.representation:
                        config["representation"] = dict(entry.representation)
                    if kind == "stream":
                        config["stream"] = dict(part.settings or {})
                    if topic_quality_applies(entry):
                        config["topic_quality"] = {"measures": ["npmi"], "top_n": 10}
                    out.append(Cell(kind, dataset, name, k, tag, config, entry.extra,
                                    entry.needs, seeded))
    return out
