"""``shortclust cluster FILE``: cluster one file with :class:`~.text_clusterer.TextClusterer`,
and say what came out.

The command is a thin shell: it reads the file, fits a ``TextClusterer`` on its texts (the
options are its parameters), scores the clusters against the file's labels when it has
some, and writes, in ``<output>/``:

``assignments.csv``
    One row per input document, with its text (format: :mod:`.assignments`).
``clusters.csv``, ``clusters.md``
    Per cluster, largest first: its size, top words with weights (class-based TF-IDF over
    its members' words, whatever the model and representation) and three representative
    documents (those richest in its top words; with embeddings, those closest to its
    centre): ``TextClusterer.clusters_``.
``model.zip``
    The fitted clusterer (:meth:`TextClusterer.save`), for ``shortclust predict``; a model
    without ``predict`` (HAC, IC, HDBSCAN) predicts by the nearest centre of its clusters.
``record.json``
    What reproduces the run: the file's checksum, every setting and the seed, how the
    number of clusters was chosen, package versions, commit, metrics.
``report.html``
    One self-contained page: overview, map of the documents, the clusters' bars and texts
    (:mod:`shortclust.apps.report`); not with ``--no-report``.

Nothing is written until the fit has succeeded; the files are then written into a
temporary folder beside the output, which replaces the output only when complete, so a
failure or Ctrl-C never leaves a half-written folder (an earlier output stays as it was).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shortclust.data import temporaries
from shortclust.errors import ConfigError, involving

__all__ = ["ClusterRequest", "ClusterResult", "cluster_config", "cluster_file",
           "default_output", "report_lines", "safe_stem"]

#: Top words per cluster shown on the terminal (the files have ``top_words`` of them).
WORDS_SHOWN = 8
#: Clusters listed on the terminal; clusters.md has them all.
CLUSTERS_SHOWN = 30
_TEXT_SHOWN = 300  # characters of a representative text in clusters.md
#: The file that marks a folder as a ``cluster`` output (one it may replace).
RECORD = "record.json"


@dataclass
class ClusterRequest:
    """What ``shortclust cluster`` was asked: the file and the clusterer's settings."""

    dataset: str
    output: Path
    settings: dict[str, Any]
    default_note: str | None = None


@dataclass
class ClusterResult:
    """What :func:`cluster_file` wrote and what the terminal report says.

    Attributes
    ----------
    output_dir : Path
    clusterer : TextClusterer
        The fitted clusterer.
    n_docs : int
        Input documents.
    counts : dict
        Input documents per status (``ok``, ``empty``, ``dropped``).
    metrics : dict or None
        Against the file's labels; None when it has none.
    notes : list of str
        What preprocessing chose and how the number of clusters was chosen.
    files : list of Path
    record : dict
    model_note : str or None
        Why no model was saved, if none was.
    """

    output_dir: Path
    clusterer: Any
    n_docs: int
    counts: dict[str, int]
    metrics: dict[str, float] | None
    notes: list[str]
    files: list[Path] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)
    model_note: str | None = None
    report: bool = True


def default_output(dataset: str) -> Path:
    """``<file stem>_clusters`` in the current directory."""
    return Path(f"{safe_stem(dataset)}_clusters")


def safe_stem(dataset: str) -> str:
    """The file's name without its data suffix, made safe as a file name."""
    from shortclust.data.corpus import file_stem

    stem = re.sub(r"[^\w.-]+", "_", file_stem(str(dataset)))
    return stem.replace("..", "_").strip(".") or "corpus"


def cluster_config(dataset: str, *, model=None, n_clusters="auto", params=(),
                   preprocess: str = "auto", seed: int = 0, output=None, top_words: int = 10,
                   embeddings=None, language=None, reduce_to=None,
                   umap_dims=None) -> ClusterRequest:
    """The request ``shortclust cluster`` runs, checked before anything is read or written.

    ``params`` are ``NAME=VALUE`` strings (model parameters, as ``--set`` takes; values
    read as YAML scalars). ``model``, ``embeddings`` and ``umap_dims`` left None are
    filled in as :class:`~.text_clusterer.TextClusterer` fills them
    (:meth:`~.text_clusterer.TextClusterer.resolved_settings`; ``embeddings="none"``: none),
    so ``cluster`` and ``TextClusterer()`` have one default.

    Raises
    ------
    ShortclustError
        An unknown model or embeddings, a malformed or out-of-range parameter.
    """
    from shortclust.apps.text_clusterer import TextClusterer

    given = TextClusterer(model, _n_clusters(n_clusters), embeddings=embeddings,
                          umap_dims=umap_dims)
    chosen, note = given.resolved_settings()
    settings = {**chosen, "preprocess": preprocess, "language": language,
                "reduce_to": reduce_to, "params": _parse_params(params),
                "n_top_words": top_words, "random_state": seed}
    TextClusterer(**settings)._checked_settings()
    if str(preprocess).strip().lower() != "auto":
        from shortclust.data.preprocess import get_pipeline

        get_pipeline(preprocess)
    if language is not None:
        from shortclust.data.languages import stop_words_for

        stop_words_for(language)
    output = Path(output) if output is not None else default_output(dataset)
    return ClusterRequest(str(dataset), output, settings, note)


def _n_clusters(value):
    from shortclust.apps.reduced import PROCEDURES

    word = "auto" if value is None else str(value).strip().lower()
    if word == "auto" or word in PROCEDURES:
        return word
    try:
        number = int(str(value), 10)
    except ValueError:
        number = 0
    if number < 1:
        raise ConfigError(f"--n-clusters must be 'auto', {', '.join(PROCEDURES)} or an "
                          f"integer >= 1, not '{value}'")
    return number


#: ``--set`` names that ``cluster`` takes as its own options (``run``'s config keys among
#: them): the option to use instead.
_OWN_OPTIONS = {"n_clusters": "--n-clusters K (or -k K)", "random_state": "--seed N",
                "seed": "--seed N", "model": "--model NAME", "model.name": "--model NAME",
                "preprocess": "--preprocess NAME", "embeddings": "--embeddings NAME",
                "representation": "--embeddings NAME"}


def _parse_params(items) -> dict[str, Any]:
    import yaml

    params = {}
    for item in items or ():
        name, equals, value = str(item).partition("=")
        name = name.strip()
        if name in _OWN_OPTIONS:
            raise ConfigError(f"--set {name}=...: `cluster` takes this as an option: use "
                              f"{_OWN_OPTIONS[name]} instead")
        if name.startswith("model.params.") and name[len("model.params."):].isidentifier():
            raise ConfigError(f"--set '{item}': in `cluster`, --set takes a model parameter "
                              f"by its bare name: --set {name[len('model.params.'):]}="
                              f"{value if equals else 'VALUE'}")
        if not equals or not name.isidentifier():
            raise ConfigError(f"--set '{item}': write NAME=VALUE, e.g. --set alpha=0.05")
        try:
            params[name] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            params[name] = value
        if isinstance(params[name], (dict, list)):
            raise ConfigError(f"--set '{item}': a model parameter is one value, not a "
                              f"{type(params[name]).__name__}")
    return params


def _read(dataset: str, data_dir):
    """``(path, RawDocuments)`` of a file or a registered dataset."""
    from shortclust.data.corpus import names_a_file
    from shortclust.data.io import read_documents

    if names_a_file(dataset):
        path = Path(dataset)
    else:
        from shortclust.data.registry import dataset_path

        path = dataset_path(dataset, data_dir)
    return path, read_documents(path)


def cluster_file(request: ClusterRequest, *, data_dir=None, progress: bool = True,
                 report: bool = True):
    """Fit the request's clusterer on its file and write the files of the module docstring
    (``report``: ``report.html`` too, :mod:`shortclust.apps.report`).

    Raises
    ------
    ShortclustError
        For a bad file, model, parameter or output, before anything is written.
    """
    from shortclust.apps.text_clusterer import TextClusterer

    output = request.output
    _check_output(output)
    path, raw = _read(request.dataset, data_dir)
    # Progress lines only on a terminal: a log or a pipe gets the report alone.
    progress = progress and sys.stderr.isatty()
    say = _say if progress else (lambda message: None)
    say(f"read {len(raw.texts):,} documents from {path}")
    clusterer = TextClusterer(**request.settings, progress=progress)
    started = time.process_time()
    with involving(f"the fit of {request.settings.get('model', 'the model')} on {path}"):
        clusterer.fit(raw.texts)
    cpu_seconds = time.process_time() - started
    metrics = _metrics(raw.labels, clusterer.labels_)
    counts = {name: clusterer.status_.count(name) for name in ("ok", "empty", "dropped")}
    notes = [note for note in (request.default_note, _auto_note(request, path, clusterer),
                               _dropped_note(clusterer, output / "assignments.csv")) if note]
    unsaved = None if clusterer.model_.capabilities.predict else (
        f"model '{clusterer.model}' has no predict of its own: model.zip gives a new text "
        "the cluster of the nearest centre (the mean of its members' vectors)")
    result = ClusterResult(output, clusterer, len(raw.texts), counts, metrics, notes,
                           model_note=unsaved, report=report)
    result.record = _record(request, path, clusterer, metrics, cpu_seconds)
    _write_all(result, raw, clusterer.predictor_ is not None or unsaved is None)
    return result


def _auto_note(request, path, clusterer) -> str | None:
    """Which pipeline ``--preprocess auto`` chose, and why; None when one was named."""
    from shortclust.data.preprocess import PIPELINES

    if str(request.settings["preprocess"]).lower() != "auto":
        return None
    name = clusterer.pipeline_.name
    if name == "chinese":
        why = "is Chinese, so it is cut into words by jieba ('chinese')"
    elif name.startswith("basic-"):
        why = f"is preprocessed with '{name}' (--language: its stop words out)"
    elif name == "basic":
        why = ("looks like raw text or holds many stop words, so it is preprocessed with "
               "'basic' (lowercase; URLs, @-mentions, punctuation, digits and English stop "
               "words out; words in at least 2 documents)")
    else:
        why = (f"looks tokenised already (lowercase words, few stop words, no punctuation), "
               f"so it is preprocessed with '{name}' (split on white space)")
    return (f"{path.name} {why}; to choose another, give --preprocess NAME "
            f"({', '.join(PIPELINES)})")


def _dropped_note(clusterer, where) -> str | None:
    """How many documents preprocessing dropped or emptied, and where they are listed."""
    dropped, empty = clusterer.status_.count("dropped"), clusterer.status_.count("empty")
    if not dropped and not empty:
        return None
    parts = []
    total = len(clusterer.status_)
    if dropped:
        parts.append(f"dropped {dropped} of {total} documents (fewer than "
                     f"{clusterer.pipeline_.min_doc_words} words left)")
    if empty:
        parts.append(f"left {empty}{'' if dropped else f' of {total} documents'} empty "
                     "(no word left)")
    statuses = " / ".join(name for name, n in (("dropped", dropped), ("empty", empty)) if n)
    return (f"preprocessing '{clusterer.pipeline_.name}' {' and '.join(parts)}: {where} "
            f"lists every input document, these with status {statuses}")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _metrics(labels, predicted) -> dict[str, float] | None:
    """NMI and the other metrics of the kept documents against the file's labels."""
    if labels is None:
        return None
    import numpy as np

    from shortclust.data.corpus import encode_labels
    from shortclust.evaluation.metrics import evaluate

    kept = np.flatnonzero(np.asarray(predicted) >= 0)
    truth, _ = encode_labels([labels[i] for i in kept])
    values = evaluate(truth, np.asarray(predicted)[kept],
                      metrics=["nmi", "ami", "ari", "acc", "purity"])
    return {key: float(value) for key, value in values.items() if value is not None}


def _record(request, path, clusterer, metrics, cpu_seconds) -> dict[str, Any]:
    from shortclust.data.io import file_sha256
    from shortclust.pipeline.records import git_commit, package_versions, utc_timestamp

    return {"command": "cluster", "dataset": str(request.dataset), "file": str(path),
            "dataset_sha256": file_sha256(path), "settings": request.settings,
            "seed": request.settings["random_state"],
            "preprocess": {"name": clusterer.pipeline_.name,
                           "version": clusterer.pipeline_.version},
            "representation": clusterer._representation_record(),
            "k_choice": clusterer.k_choice_.as_dict(), "n_clusters": clusterer.n_clusters_,
            "metrics": metrics, "fit_cpu_seconds": round(cpu_seconds, 3),
            "versions": package_versions(), "git_commit": git_commit(),
            "timestamp": utc_timestamp()}


# --------------------------------------------------------------------------------------------
# writing: all files into a temporary folder, which then replaces the output


def _check_output(output: Path) -> None:
    """An output that exists must be a folder this command wrote (or empty)."""
    if output.exists() and not output.is_dir():
        raise ConfigError(f"output '{output}' is a file: choose a directory with --output")
    if output.is_dir() and any(output.iterdir()) and not (output / RECORD).is_file():
        raise ConfigError(f"output '{output}' holds files that `shortclust cluster` did not "
                          "write: choose a new or empty directory with --output")


def _write_all(result: ClusterResult, raw, save_model: bool) -> None:
    from shortclust.data.io import ordinary_mode, write_problem

    output = result.output_dir
    parent = output.parent if str(output.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        _recover(output)
        staging = Path(tempfile.mkdtemp(prefix=temporaries.prefix(output.name),
                                        suffix=temporaries.SUFFIX, dir=parent))
        staging.chmod(ordinary_mode(directory=True))  # not mkdtemp's 0700 once renamed
    except OSError as error:
        raise ConfigError(f"output '{output}': cannot create it "
                          f"({write_problem(error, output)}): choose another directory with "
                          "--output") from None
    try:
        names = _write_files(staging, result, raw, save_model)
        _replace(output, staging)
    except OSError as error:  # the message names the output, not the hidden temporary
        shutil.rmtree(staging, ignore_errors=True)
        raise ConfigError(f"output '{output}': cannot write it ({write_problem(error)}): "
                          "choose another directory with --output; an earlier output there "
                          "is kept") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result.files = [output / name for name in names]


def _write_files(folder: Path, result: ClusterResult, raw, save_model: bool) -> list[str]:
    clusterer = result.clusterer
    names = ["assignments.csv", "clusters.csv", "clusters.md"]
    _write_assignments(folder / names[0], clusterer, raw)
    from shortclust.apps.assignments import safe_cell

    # Representative texts and words are the user's text: no cell may run as a formula.
    clusterer.clusters_.map(safe_cell).to_csv(folder / names[1], index=False,
                                              lineterminator="\n")
    (folder / names[2]).write_text(_markdown(result, raw), encoding="utf-8")
    if save_model:
        clusterer.training_ = {"dataset": result.record["dataset"],
                               "dataset_sha256": result.record["dataset_sha256"],
                               "seed": result.record["seed"]}
        clusterer.save(folder / "model.zip")
        names.append("model.zip")
    (folder / RECORD).write_text(json.dumps(result.record, indent=1, default=str) + "\n",
                                 encoding="utf-8")
    names.append(RECORD)
    if result.report:
        from shortclust.apps.report.cluster_output import clusterer_data
        from shortclust.apps.report.page import render

        data = clusterer_data(clusterer, raw.texts, result.record, truth=raw.labels,
                              notes=result.notes, seed=result.record["seed"])
        (folder / "report.html").write_text(render(data), encoding="utf-8")
        names.append("report.html")
    return names


def _replace(output: Path, staging: Path) -> None:
    """Put ``staging`` where ``output`` is; an earlier output is removed only after."""
    old = None
    if output.exists():
        old = Path(tempfile.mkdtemp(prefix=temporaries.prefix(f"{output.name}.old"),
                                    suffix=temporaries.SUFFIX, dir=staging.parent))
        try:
            os.replace(output, old / "previous")
        except BaseException:
            old.rmdir()
            raise
    try:
        os.replace(staging, output)
    except BaseException:
        if old is not None:
            os.replace(old / "previous", output)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _recover(output: Path) -> None:
    """Undo what a killed ``cluster`` into ``output`` left: the previous output put back if
    it was moved aside and nothing replaced it, then the stale temporaries removed."""
    parent = output.parent if str(output.parent) else Path(".")
    for old in temporaries.stale(parent, {f"{output.name}.old"}):
        if not output.exists() and (old / "previous").is_dir():
            os.replace(old / "previous", output)
    temporaries.remove_stale(parent, {output.name, f"{output.name}.old"})


def _write_assignments(path: Path, clusterer, raw) -> None:
    """The assignments CSV of :mod:`.assignments`, written by its one writer."""
    import numpy as np

    from shortclust.apps.assignments import SourceDocuments, write_assignments

    kept = clusterer.doc_index_
    rows = np.full(clusterer.n_texts_, -1, dtype=np.int64)
    rows[kept] = np.arange(kept.size)
    documents = SourceDocuments(rows, list(clusterer.status_), raw.ids, raw.texts)
    probabilities = (clusterer.probability_[kept]
                     if clusterer.model_.capabilities.predict_proba else None)
    write_assignments(path, documents, clusterer.labels_[kept], probabilities)


# --------------------------------------------------------------------------------------------
# what it says: clusters.md and the terminal report


def _setting(result: ClusterResult) -> str:
    clusterer = result.clusterer
    params = ", ".join(f"{key}={value}" for key, value in sorted((clusterer.params or {})
                                                                 .items()))
    on = f" on {clusterer.embeddings} embeddings" if clusterer.embeddings else ""
    if clusterer.embeddings and getattr(clusterer, "umap_dims", 0):
        on += f" reduced by UMAP to {clusterer.umap_dims} dimensions"
    return (f"{clusterer.model}{on}{f' ({params})' if params else ''}, seed "
            f"{clusterer.random_state}")


def summary_line(dataset: str, result: ClusterResult) -> str:
    """``FILE: N documents in K clusters (model, parameters, seed; preprocessing)``."""
    return (f"{dataset}: {result.n_docs} documents in {result.clusterer.n_clusters_} clusters "
            f"({_setting(result)}; preprocessing '{result.clusterer.pipeline_.name}')")


def _status_sentence(counts: dict[str, int]) -> str:
    if not counts.get("empty") and not counts.get("dropped"):
        return "every document kept a word after preprocessing"
    return (f"{counts.get('empty', 0)} empty after preprocessing, {counts.get('dropped', 0)} "
            "dropped by it (status column of assignments.csv)")


def metrics_line(metrics: dict[str, float] | None) -> str | None:
    """The metrics against the file's labels, or None when it has none."""
    if not metrics:
        return None
    shown = ", ".join(f"{name} {value:.3f}" for name, value in metrics.items())
    return f"against the file's labels: {shown}"


def report_lines(dataset: str, result: ClusterResult) -> list[str]:
    """The terminal report: clusters found, how many and why, sizes, top words, metrics."""
    table = result.clusterer.clusters_
    width = max([len(str(len(table)))] + [7])
    lines = [summary_line(dataset, result), result.clusterer.k_choice_.sentence(), "",
             f"{'cluster':>{width}}  {'size':>5}  top words"]
    for row in table.head(CLUSTERS_SHOWN).itertuples():
        words = " ".join(row.top_words.split()[:WORDS_SHOWN])
        lines.append(f"{row.cluster:>{width}}  {row.size:>5}  {words or '-'}")
    if len(table) > CLUSTERS_SHOWN:
        lines.append(f"... and {len(table) - CLUSTERS_SHOWN} smaller clusters (clusters.md "
                     "lists them all)")
    lines.append("")
    metric = metrics_line(result.metrics)
    if metric:
        lines.append(metric)
    names = ", ".join(path.name for path in result.files)
    lines.append(f"wrote {names} in {result.output_dir}")
    return lines


def _markdown(result: ClusterResult, raw) -> str:
    clusterer = result.clusterer
    dataset = result.record["dataset"]
    lines = [f"# Clusters of {Path(dataset).name}", "", summary_line(dataset, result) + ".",
             "", clusterer.k_choice_.sentence()[0].upper()
             + clusterer.k_choice_.sentence()[1:] + ".", "",
             f"Input documents: {result.n_docs}; {_status_sentence(result.counts)}. Top words "
             "are class-based TF-IDF over each cluster's documents; representative documents "
             + ("are those closest to the cluster's centre." if clusterer.embeddings else
                "are those holding the most of its top words (by weight)."), ""]
    metric = metrics_line(result.metrics)
    if metric:
        lines += [metric[0].upper() + metric[1:] + ".", ""]
    ids = raw.ids
    for row in clusterer.clusters_.itertuples():
        share = 100 * row.size / max(result.n_docs, 1)
        lines += [f"## Cluster {row.cluster}: {row.size} documents ({share:.1f}%)", ""]
        words, weights = row.top_words.split(), row.weights.split()
        if words:
            shown = ", ".join(f"{_md(w)} ({float(x):.3g})" for w, x in zip(words, weights))
            lines += [f"Top words: {shown}", ""]
        for number, position in enumerate(row.representative_rows.split(), 1):
            index = int(position) - 1
            where = f"row {position}" + (f", id {_md(ids[index])}" if ids else "")
            lines.append(f"{number}. ({where}) {_md(_shorten(raw.texts[index]))}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_SHOWN else text[: _TEXT_SHOWN - 3] + "..."


def _md(text: str) -> str:
    """Text shown as itself in Markdown: signs that would format it are escaped."""
    return re.sub(r"([\\`*_{}\[\]<>()#+|!~])", r"\\\1", " ".join(str(text).split()))

