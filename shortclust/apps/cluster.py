"""``shortclust cluster FILE``: cluster one corpus without a config, and say what came out.

Under the hood it is one run of one config (:func:`cluster_config`): the file, a model
(GSDMM unless told otherwise), ``preprocess: auto`` and one seed, run by
:func:`~shortclust.pipeline.runner.run_experiment` into ``<output>/run/`` with its
model saved. From that run's files it then writes, in ``<output>/``:

``assignments.csv``
    One row per input document, with its text (format: :mod:`.assignments`).
``clusters.csv``, ``clusters.md``
    Per cluster, largest first: its size, top words with weights and three representative
    documents: those of the cluster holding the most of its top words (summing their
    weights), then the most probable (``predict_proba``), then the first in the file.
``model.zip``
    The fitted model (:mod:`.model_files`), for ``shortclust predict``; models without
    ``predict`` have none.

Metrics appear only when the file has labels.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shortclust.errors import ShortclustError
from shortclust.apps.assignments import (EMPTY, OK, SourceDocuments,
                                                auto_preprocess_note, preprocessing_note,
                                                read_csv_rows)
from shortclust.pipeline.records import atomic_write_text

__all__ = ["ClusterResult", "cluster_config", "cluster_file", "default_output", "report_lines",
           "safe_stem"]

#: Representative documents shown per cluster.
N_REPRESENTATIVES = 3
#: Top words per cluster shown on the terminal (the files have ``top_words`` of them).
WORDS_SHOWN = 8
#: Clusters listed on the terminal; clusters.md has them all.
CLUSTERS_SHOWN = 30
_TEXT_SHOWN = 300  # characters of a representative text in clusters.md


@dataclass
class ClusterResult:
    """What :func:`cluster_file` wrote and what the terminal report says.

    Attributes
    ----------
    output_dir : Path
    clusters : list of dict
        ``cluster``, ``size``, ``top_words`` ([word, weight] pairs) and ``representatives``
        (``row``, ``id``, ``text``) of each cluster, largest first.
    n_docs : int
        Input documents.
    counts : dict
        Input documents per status (``ok``, ``empty``, ``dropped``).
    metrics : dict or None
        Against the file's labels; None when it has none.
    notes : list of str
        What preprocessing chose and did (one line each).
    files : list of Path
        The files written in ``output_dir``.
    record : dict
        The run's record.
    model_note : str or None
        Why no model was saved, if none was.
    """

    output_dir: Path
    clusters: list[dict[str, Any]]
    n_docs: int
    counts: dict[str, int]
    metrics: dict[str, float] | None
    notes: list[str]
    files: list[Path]
    record: dict[str, Any]
    model_note: str | None = None


def default_output(dataset: str) -> Path:
    """``<file stem>_clusters`` in the current directory."""
    return Path(f"{safe_stem(dataset)}_clusters")


def safe_stem(dataset: str) -> str:
    """The file's name without its data suffix, made safe as a config and file name."""
    from shortclust.data.corpus import file_stem

    stem = re.sub(r"[^\w.-]+", "_", file_stem(str(dataset)))
    return stem.replace("..", "_").strip(".") or "corpus"


def cluster_config(dataset: str, *, model: str = "gsdmm", n_clusters: int | None = None,
                   params=(), preprocess: str = "auto", seed: int = 0, output=None,
                   top_words: int = 10):
    """The one-run config ``shortclust cluster`` runs (checked like a config file).

    ``params`` are ``NAME=VALUE`` strings (model parameters, as ``--set`` takes); the run's
    files go to ``<output>/run`` (output: :func:`default_output` by default).
    """
    from shortclust.config import config_from_mapping

    output = Path(output) if output is not None else default_output(dataset)
    raw = {"name": f"cluster_{safe_stem(dataset)}", "dataset": str(dataset),
           "preprocess": preprocess, "model": {"name": model, "params": {}},
           "seeds": [seed], "top_words": top_words, "output": str(output / "run")}
    overrides = [*(params or ()), *([f"n_clusters={n_clusters}"] if n_clusters else [])]
    return config_from_mapping(raw, overrides, where="cluster")


def cluster_file(config, *, data_dir=None, progress: bool = True) -> ClusterResult:
    """Fit ``config``'s one run and write the files of the module docstring.

    Raises
    ------
    ShortclustError
        For a bad file, model, parameter or output directory, before anything is written
        (an output directory created here is removed again).
    """
    from shortclust.pipeline.runner import (RunOptions, lock_output_dir, make_directory,
                                               remove_if_unused, run_experiment)
    from shortclust.models import get_model_class

    output = config.output_dir.parent
    unsaved = _why_unsaved(config, get_model_class(config.model.name))
    options = RunOptions(data_dir=data_dir, quiet=True, progress=progress,
                         save_models=unsaved is None)
    if output.exists() and not output.is_dir():
        from shortclust.errors import ConfigError

        raise ConfigError(f"output '{output}' is a file: choose a directory with --output")
    created = make_directory(output)
    try:
        with lock_output_dir(output):
            result = run_experiment(config, options, table=False)
            return _write_outputs(config, result, output, unsaved)
    except ShortclustError:
        remove_if_unused(created)
        raise


def _why_unsaved(config, model_class) -> str | None:
    """Why the fitted model cannot be saved for ``predict``; None when it can."""
    if not model_class.capabilities.predict:
        return (f"model '{config.model.name}' has no predict, so no model.zip: new texts "
                "cannot be assigned to its clusters")
    if config.representation is not None:
        return (f"representation '{config.representation['name']}': saved models take term "
                "counts, so no model.zip")
    return None


def _write_outputs(config, result, output: Path, unsaved: str | None) -> ClusterResult:
    from shortclust.pipeline.records import RecordStore

    record, corpus = result.planned[0], result.corpus
    run_id = record["run_id"]
    store = RecordStore(result.output_dir)
    documents = SourceDocuments.of(corpus, texts=True)
    rows = read_csv_rows(store.assignments_path(run_id))
    clusters = _clusters(read_csv_rows(store.clusters_path(run_id)), rows, corpus, documents)
    notes = [note for note in (
        auto_preprocess_note(config, corpus, "give --preprocess NAME"),
        preprocessing_note(corpus, str(output / "assignments.csv"))) if note]
    result = ClusterResult(output, clusters, len(documents.status), documents.counts(),
                           record.get("metrics"), notes, [], record, unsaved)
    result.files = [_write_assignments(output / "assignments.csv", rows, documents.texts),
                    _write_clusters_csv(output / "clusters.csv", clusters),
                    _write_markdown(output / "clusters.md", config, result)]
    model = output / "model.zip"
    if unsaved is None:
        result.files.append(Path(shutil.copyfile(store.model_path(run_id), model)))
    else:
        model.unlink(missing_ok=True)  # an earlier clustering's model is not this one's
    return result


def _write_assignments(path: Path, rows: list[dict[str, str]], texts: list[str] | None):
    """The run's assignments with each document's text after its row and id."""
    header = list(rows[0]) if rows else ["row", "cluster", "status"]
    if texts is not None:
        header.insert(header.index("cluster"), "text")
        rows = [{**row, "text": texts[int(row["row"]) - 1]} for row in rows]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())
    return path


# --------------------------------------------------------------------------------------------
# clusters and their representative documents


def _clusters(cluster_rows, assignment_rows, corpus, documents: SourceDocuments):
    """Each cluster with its top words and representatives, largest first."""
    members: dict[int, list[dict[str, str]]] = {}
    for row in assignment_rows:
        if row["status"] == OK:
            members.setdefault(int(row["cluster"]), []).append(row)
    clusters = []
    for row in cluster_rows:
        words = row["top_words"].split()
        weights = [float(weight) for weight in row["weights"].split()]
        cluster = {"cluster": int(row["cluster"]), "size": int(row["size"]),
                   "top_words": [[word, weight] for word, weight in zip(words, weights)]}
        cluster["representatives"] = _representatives(
            members.get(cluster["cluster"], []), cluster["top_words"], corpus, documents)
        clusters.append(cluster)
    return sorted(clusters, key=lambda cluster: (-cluster["size"], cluster["cluster"]))


def _representatives(rows, top_words, corpus, documents: SourceDocuments):
    """The cluster's documents holding the most of its top words (by weight), then the most
    probable, then the first in the file."""
    weight = dict((word, float(value)) for word, value in top_words)
    vocabulary = corpus.vocabulary

    def score(row):
        position = int(row["row"]) - 1
        counts = corpus.counts[documents.rows[position]]
        held = sum(weight.get(vocabulary[column], 0.0) for column in counts.indices)
        probability = float(row["probability"]) if row.get("probability") else 0.0
        return (-held, -probability, position)

    chosen = sorted(rows, key=score)[:N_REPRESENTATIVES]
    return [{"row": int(row["row"]), "id": row.get("id"),
             "text": documents.texts[int(row["row"]) - 1] if documents.texts else ""}
            for row in chosen]


def _write_clusters_csv(path: Path, clusters) -> Path:
    header = ["cluster", "size", "top_words", "weights"] + [
        f"representative_{i}" for i in range(1, N_REPRESENTATIVES + 1)] + ["representative_rows"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for cluster in clusters:
        texts = [doc["text"] for doc in cluster["representatives"]]
        writer.writerow([cluster["cluster"], cluster["size"],
                         " ".join(word for word, _ in cluster["top_words"]),
                         " ".join(f"{weight:.6g}" for _, weight in cluster["top_words"]),
                         *(texts + [""] * (N_REPRESENTATIVES - len(texts))),
                         " ".join(str(doc["row"]) for doc in cluster["representatives"])])
    atomic_write_text(path, buffer.getvalue())
    return path


# --------------------------------------------------------------------------------------------
# what it says: clusters.md and the terminal report


def _setting(config, record) -> str:
    params = ", ".join(f"{key}={value}" for key, value in sorted(config.model.params.items()))
    return f"{config.model.name}{f' ({params})' if params else ''}, seed {record['seed']}"


def summary_line(config, result: ClusterResult) -> str:
    """``FILE: N documents in K clusters (model, parameters, seed)``."""
    found = sum(1 for cluster in result.clusters if cluster["size"])
    return (f"{config.dataset}: {result.n_docs} documents in {found} clusters "
            f"({_setting(config, result.record)}; preprocessing "
            f"'{result.record['preprocess']}')")


def _status_sentence(counts: dict[str, int]) -> str:
    if not counts.get(EMPTY) and not counts.get("dropped"):
        return "every document kept a word after preprocessing"
    return (f"{counts.get(EMPTY, 0)} empty after preprocessing, {counts.get('dropped', 0)} "
            "dropped by it (status column of assignments.csv)")


def metrics_line(metrics: dict[str, float] | None) -> str | None:
    """The metrics against the file's labels, or None when it has none."""
    if not metrics:
        return None
    shown = ", ".join(f"{name} {value:.3f}" for name, value in metrics.items()
                      if value is not None)
    return f"against the file's labels: {shown}"


def report_lines(config, result: ClusterResult) -> list[str]:
    """The terminal report: clusters found, their sizes and top words, metrics if any."""
    shown = [cluster for cluster in result.clusters if cluster["size"]]
    width = max([len(str(cluster["cluster"])) for cluster in shown] + [7])
    lines = [summary_line(config, result), "",
             f"{'cluster':>{width}}  {'size':>5}  top words"]
    for cluster in shown[:CLUSTERS_SHOWN]:
        words = " ".join(word for word, _ in cluster["top_words"][:WORDS_SHOWN])
        lines.append(f"{cluster['cluster']:>{width}}  {cluster['size']:>5}  {words or '-'}")
    if len(shown) > CLUSTERS_SHOWN:
        lines.append(f"... and {len(shown) - CLUSTERS_SHOWN} smaller clusters (clusters.md "
                     "lists them all)")
    lines.append("")
    # Topic quality (coherence of each cluster's top words, issue 16 item 4) goes here.
    metric = metrics_line(result.metrics)
    if metric:
        lines.append(metric)
    names = ", ".join(path.name for path in result.files)
    lines.append(f"wrote {names} in {result.output_dir}")
    return lines


def _write_markdown(path: Path, config, result: ClusterResult) -> Path:
    lines = [f"# Clusters of {Path(config.dataset).name}", "",
             summary_line(config, result) + ".", "",
             f"Input documents: {result.n_docs}; {_status_sentence(result.counts)}. "
             "Representative documents are those of the cluster holding the most of its "
             "top words (by weight), then the most probable.", ""]
    # Topic quality (coherence of each cluster's top words, issue 16 item 4) goes here.
    metric = metrics_line(result.metrics)
    if metric:
        lines += [metric[0].upper() + metric[1:] + ".", ""]
    for cluster in result.clusters:
        if cluster["size"]:
            lines += _cluster_markdown(cluster, result.n_docs)
    atomic_write_text(path, "\n".join(lines).rstrip() + "\n")
    return path


def _cluster_markdown(cluster, n_docs: int) -> list[str]:
    share = 100 * cluster["size"] / max(n_docs, 1)
    lines = [f"## Cluster {cluster['cluster']}: {cluster['size']} documents ({share:.1f}%)", ""]
    if cluster["top_words"]:
        words = ", ".join(f"{_md(word)} ({weight:.3g})" for word, weight in cluster["top_words"])
        lines += [f"Top words: {words}", ""]
    for number, doc in enumerate(cluster["representatives"], 1):
        where = f"row {doc['row']}" + (f", id {_md(doc['id'])}" if doc.get("id") else "")
        lines.append(f"{number}. ({where}) {_md(_shorten(doc['text']))}")
    return lines + [""]


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_SHOWN else text[: _TEXT_SHOWN - 3] + "..."


def _md(text: str) -> str:
    """Text shown as itself in Markdown: signs that would format it are escaped."""
    return re.sub(r"([\\`*_{}\[\]<>()#+|!~])", r"\\\1", str(text))
