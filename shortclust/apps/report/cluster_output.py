"""The report of a ``shortclust cluster`` output: from its fitted clusterer, or its folder.

``cluster`` writes no run records; what it fitted is a
:class:`~shortclust.apps.text_clusterer.TextClusterer` (labels per input text, the
clusters' class TF-IDF top words and representatives, ``clusters_``) and its
``record.json`` (settings, how the number of clusters was chosen, metrics). The term counts
the map and the similarity are computed from are the clusterer's own pipeline and
vocabulary applied to the texts again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from shortclust.apps.report.data import (MAX_HEATMAP_CLUSTERS, MAX_MAP_POINTS, ReportData,
                                         cluster_similarity, contingency, map_data, shorten)
from shortclust.errors import DataError

__all__ = ["cluster_folder_data", "clusterer_data"]


def clusterer_data(clusterer, texts, record: dict[str, Any], *, table=None, truth=None,
                   notes=(), seed: int = 0, max_points: int = MAX_MAP_POINTS) -> ReportData:
    """What the report shows of a fitted ``TextClusterer`` on ``texts`` (its input);
    ``table``: the rows of its ``clusters.csv`` (default: its ``clusters_``)."""
    from shortclust.data.corpus import counts_over, encode_labels

    kept = np.flatnonzero(np.asarray(clusterer.labels_) >= 0)
    counts = counts_over(clusterer.pipeline_.tokenize([texts[i] for i in kept]),
                         clusterer.vocabulary_)
    labels = np.asarray(clusterer.labels_)[kept]
    table = clusterer.clusters_.to_dict("records") if table is None else table
    words = clusterer.top_words()
    clusters = []
    for row in table:
        k = int(row["cluster"])
        rows = [int(r) for r in str(row["representative_rows"]).split()]
        clusters.append({"cluster": k, "size": int(row["size"]),
                         "share": int(row["size"]) / max(len(texts), 1),
                         "top_words": [[w, float(v)] for w, v in words[k]],
                         "representatives": [{"row": r, "text": shorten(texts[r - 1])}
                                             for r in rows]})
    clusters.sort(key=lambda c: (-c["size"], c["cluster"]))
    status = list(clusterer.status_)
    choice = record.get("k_choice") or {}
    settings = record.get("settings") or {}
    overview = [
        ("dataset", f"{record.get('dataset')} (sha256 {str(record.get('dataset_sha256'))[:12]})"),
        ("documents", f"{len(texts)} in the file: {status.count('ok')} clustered, "
                      f"{status.count('empty')} empty after preprocessing, "
                      f"{status.count('dropped')} dropped by it"),
        ("clusters", f"{int(np.unique(labels).size)} holding documents"),
        ("number of clusters", "; ".join(f"{k}: {v}" for k, v in choice.items()) or "-"),
        ("model", f"{settings.get('model')}, seed {record.get('seed')}"),
        ("settings", ", ".join(f"{k}={v}" for k, v in sorted(settings.items()))),
        ("preprocessing", f"{clusterer.pipeline_.name} ({len(clusterer.vocabulary_)} words "
                          "kept)"),
        ("made", f"{record.get('timestamp', '?')}, commit "
                 f"{str(record.get('git_commit', '?'))[:10]}"),
    ]
    data = ReportData(title=f"shortclust report: {Path(str(record.get('dataset'))).name}",
                      overview=overview, notes=[n for n in notes if n], clusters=clusters,
                      metrics=record.get("metrics") or None)
    shown = [texts[i] for i in kept]

    class _Corpus:  # what map_data reads of a corpus
        pass

    corpus = _Corpus()
    corpus.counts = counts
    data.map = map_data(corpus, labels, shown, record, seed=seed, max_points=max_points)
    order = [c["cluster"] for c in clusters if c["size"]]
    data.similarity = cluster_similarity(counts, labels, order[:MAX_HEATMAP_CLUSTERS])
    if truth is not None:
        codes, names = encode_labels([truth[i] for i in kept])
        data.contingency = contingency(labels, codes, names, MAX_HEATMAP_CLUSTERS)
    return data


def cluster_folder_data(folder, *, seed: int = 0, max_points: int = MAX_MAP_POINTS):
    """The report data of a ``cluster`` output folder (``record.json``, ``model.zip``,
    ``assignments.csv``): the saved clusterer, the texts from the assignments."""
    from shortclust.apps.text_clusterer import TextClusterer

    folder = Path(folder)
    if not (folder / "model.zip").is_file():
        raise DataError(f"'{folder}' has no model.zip (its model cannot predict): its "
                        "report is the one shortclust cluster wrote")
    record = _read_record(folder / "record.json")
    clusterer = TextClusterer.load(folder / "model.zip")
    # The folder's files are read as untrusted as the model is: each value checked first.
    n_clusters = len(clusterer.top_words())
    rows = _rows(folder / "assignments.csv", {"cluster": _label(n_clusters),
                                              "status": _one_of("ok", "empty", "dropped")})
    texts = [row.get("text") or "" for row in rows]
    table = _rows(folder / "clusters.csv", {
        "cluster": _label(n_clusters, empty=False), "size": _count(len(texts)),
        "representative_rows": _rows_of(len(texts))})
    clusterer.labels_ = np.array([int(r["cluster"] or -1) for r in rows], dtype=np.int64)
    clusterer.status_ = [r["status"] for r in rows]
    return clusterer_data(clusterer, texts, record, seed=seed, max_points=max_points,
                          table=table)


def _damaged(path, what: str) -> DataError:
    return DataError(f"{path} is damaged or edited ({what}): run `shortclust cluster` again "
                     "to write the folder")


def _read_record(path: Path) -> dict[str, Any]:
    """``record.json``: a JSON object whose sections the report reads are objects."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _damaged(path, f"not JSON: {type(error).__name__}") from None
    if not isinstance(record, dict):
        raise _damaged(path, "not a JSON object")
    for key in ("settings", "k_choice", "metrics"):
        if not isinstance(record.get(key) or {}, dict):
            raise _damaged(path, f"its {key} is not an object")
    return record


def _rows(path: Path, checks) -> list[dict[str, str]]:
    """The rows of a CSV of the folder, each column of ``checks`` passing its check."""
    from shortclust.apps.assignments import read_csv_rows

    try:
        rows = read_csv_rows(path)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise _damaged(path, f"not a CSV: {type(error).__name__}") from None
    for number, row in enumerate(rows, start=2):
        for column, check in checks.items():
            value = row.get(column)
            if not isinstance(value, str) or not check(value):
                raise _damaged(path, f"line {number}: {column} {str(value)[:40]!r}")
    return rows


def _natural(text: str) -> bool:
    """Digits int() reads (ASCII: "²" is a digit to isdigit; at most 18 of them)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def _label(n_clusters: int, empty: bool = True):
    return lambda v: (empty and v == "") or (_natural(v) and int(v) < n_clusters)


def _count(limit: int):
    return lambda v: _natural(v) and int(v) <= limit


def _rows_of(n_rows: int):
    return lambda v: all(_natural(part) and 1 <= int(part) <= n_rows for part in v.split())


def _one_of(*values):
    return lambda v: v in values
