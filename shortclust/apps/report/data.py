"""What an HTML report shows, read from a run directory: plain numbers and strings.

Nothing here draws. :func:`load_run` finds a run's files (a ``shortclust cluster`` output
folder, a ``shortclust run`` output folder, a stream run's), :func:`report_data` turns
them, with the run's corpus, into a :class:`ReportData`; :mod:`.figures` draws it. The
clusters' top words and sizes are the run's own (``clusters/<run_id>.csv``, written from
the model's ``top_words``), their representative documents chosen by
:func:`shortclust.apps.describe.representatives`, as ``shortclust cluster`` chooses them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from shortclust.errors import DataError

__all__ = ["MAX_HEATMAP_CLUSTERS", "MAX_MAP_POINTS", "ReportData", "RunFiles",
           "batch_sizes", "cluster_similarity", "contingency", "load_run", "report_data",
           "stream_data", "subsample"]

#: Documents drawn on the map; above this, a random sample of this many (stated on it).
MAX_MAP_POINTS = 3000
#: Clusters in the similarity and contingency heat maps (the largest); labels likewise.
MAX_HEATMAP_CLUSTERS = 60
#: Clusters offered in the per-batch top-words view of a stream (the largest).
MAX_DRIFT_CLUSTERS = 30
#: Characters of a document's text on the map's hover and in the tables.
TEXT_SHOWN = 200
_TOP_WORDS = 10


@dataclass
class RunFiles:
    """One run of a run directory, and where its files are.

    Attributes
    ----------
    run_dir : Path
        The folder the user named.
    store_dir : Path
        The folder of ``records.jsonl`` (``run_dir/run`` for a ``cluster`` output).
    record : dict
        The run's record.
    n_runs : int
        Records in the folder (the report shows one).
    """

    run_dir: Path
    store_dir: Path
    record: dict[str, Any]
    n_runs: int

    @property
    def run_id(self) -> str:
        return self.record["run_id"]

    @property
    def is_stream(self) -> bool:
        return "batches" in self.record


@dataclass
class ReportData:
    """Everything the report shows (see :func:`report_data`)."""

    title: str
    overview: list[tuple[str, str]]
    notes: list[str]
    clusters: list[dict[str, Any]]
    map: dict[str, Any] | None = None
    similarity: dict[str, Any] | None = None
    contingency: dict[str, Any] | None = None
    metrics: dict[str, float] | None = None
    stream: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# the run's files


def load_run(run_dir, run_id: str | None = None) -> RunFiles:
    """The run of ``run_dir`` to report on: ``run_id``'s, else the first with labels.

    Raises
    ------
    DataError
        No records there, no run with that id, or no run whose labels file is present
        (archived records keep no labels).
    """
    from shortclust.pipeline.records import RECORDS_FILE, RecordStore

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        what = "is not a folder" if run_dir.exists() else "not found"
        raise DataError(f"run directory '{run_dir}' {what}: give the folder that "
                        "shortclust cluster or shortclust run wrote")
    store_dir = run_dir / "run" if (run_dir / "run" / RECORDS_FILE).is_file() else run_dir
    store = RecordStore(store_dir)
    if not store.exists():
        raise DataError(f"'{run_dir}' holds no {RECORDS_FILE}: give the folder that "
                        "shortclust cluster or shortclust run wrote")
    records = store.load()
    if run_id is not None:
        chosen = [r for r in records if r["run_id"] == run_id]
        if not chosen:
            ids = ", ".join(r["run_id"] for r in records[:5])
            raise DataError(f"no run '{run_id}' in '{run_dir}': its runs are {ids}")
    else:
        chosen = [r for r in records if store.labels_path(r["run_id"]).is_file()]
    if not chosen or not store.labels_path(chosen[0]["run_id"]).is_file():
        raise DataError(f"no run of '{run_dir}' has its labels file (archived records keep "
                        "none): run it again, then report")
    return RunFiles(run_dir, store_dir, chosen[0], len(records))


def load_run_corpus(run: RunFiles, data_dir=None):
    """The run's corpus, as the run preprocessed it.

    A file named by a relative path is looked for where it was given, then beside the run
    directory; its checksum must be the recorded one (a subset of a registered dataset is
    checked by its own checksum when loaded).
    """
    from shortclust.data import load_corpus
    from shortclust.data.corpus import names_a_file
    from shortclust.data.io import file_sha256

    record = run.record
    dataset, wanted = str(record["dataset"]), record.get("dataset_sha256")
    if names_a_file(dataset):
        candidates = [Path(dataset)] + ([run.run_dir.parent / dataset]
                                        if not Path(dataset).is_absolute() else [])
        found = next((path for path in candidates if path.is_file()), None)
        if found is None:
            raise DataError(f"the run's dataset '{dataset}' is not found: run shortclust "
                            "report where the run was made")
        if wanted and file_sha256(found) != wanted:
            raise DataError(f"dataset '{found}' changed since run {run.run_id} (checksum "
                            "differs): the report needs the file the run read")
        dataset = str(found)
    corpus = load_corpus(dataset, preprocess=record["preprocess"], data_dir=data_dir)
    if wanted and corpus.sha256 and corpus.sha256 != wanted:
        raise DataError(f"dataset '{dataset}' changed since run {run.run_id} (checksum "
                        "differs): the report needs the data the run read")
    return corpus


# --------------------------------------------------------------------------------------------
# the whole report's data


def report_data(run: RunFiles, corpus, *, seed: int = 0,
                max_points: int = MAX_MAP_POINTS, documents=None, clusters=None,
                extra_notes=()) -> ReportData:
    """Read the run's labels and clusters, and compute what the report draws.

    Parameters
    ----------
    run : RunFiles
    corpus : Corpus
        The run's corpus (:func:`load_run_corpus`).
    seed : int
        Seeds the map's sample and layout.
    max_points : int
        Documents on the map at most.
    documents : SourceDocuments, optional
        The input documents with texts (read from the corpus's file when not given).
    clusters : list of dict, optional
        The clusters (``cluster``, ``size``, ``top_words``, ``representatives``), largest
        first; described from the run's files when not given (:func:`describe`).
    extra_notes : sequence of str
        Lines added to the overview's notes (what ``cluster`` said about preprocessing).
    """
    from shortclust.apps.assignments import SourceDocuments, preprocessing_note
    from shortclust.pipeline.records import RecordStore

    store = RecordStore(run.store_dir)
    labels = np.asarray(store.read_labels(run.run_id), dtype=np.int64)
    if labels.shape[0] != corpus.n_docs:
        raise DataError(f"run {run.run_id} labelled {labels.shape[0]} documents but its "
                        f"dataset now has {corpus.n_docs}: report needs the file it read")
    documents = documents or SourceDocuments.of(corpus, texts=True)
    texts = corpus_texts(corpus, documents)
    clusters = describe(run, corpus, labels, documents, clusters)
    notes = [n for n in (preprocessing_note(corpus, "assignments.csv"), *extra_notes) if n]
    data = ReportData(title=f"shortclust report: {Path(str(run.record['dataset'])).name}",
                      overview=overview(run, corpus, labels, documents), notes=notes,
                      clusters=clusters, metrics=run.record.get("metrics") or None)
    order = [c["cluster"] for c in clusters if c["size"]]
    data.map = map_data(corpus, labels, texts, run.record, seed=seed, max_points=max_points)
    data.similarity = cluster_similarity(corpus.counts, labels, order[:MAX_HEATMAP_CLUSTERS])
    if corpus.labels is not None:
        data.contingency = contingency(labels, corpus.labels, corpus.label_names,
                                       MAX_HEATMAP_CLUSTERS)
    if run.is_stream:
        data.stream = stream_data(run.record, corpus, labels)
    return data


def corpus_texts(corpus, documents) -> list[str]:
    """Each corpus document's text from its file; its words when the file gave none."""
    if documents.texts is not None:
        texts = [""] * corpus.n_docs
        for position, row in enumerate(documents.rows):
            if row >= 0:
                texts[row] = documents.texts[position]
        return texts
    vocabulary = np.asarray(corpus.vocabulary, dtype=object)
    counts = corpus.counts
    return [" ".join(vocabulary[counts.indices[counts.indptr[i]:counts.indptr[i + 1]]])
            for i in range(corpus.n_docs)]


def describe(run: RunFiles, corpus, labels, documents, clusters=None) -> list[dict[str, Any]]:
    """Each cluster's size, share, top words and representatives, largest first.

    Top words are the run's own (its ``clusters/`` CSV, the model's ``top_words``); the
    representatives are the members richest in them, chosen by
    :func:`shortclust.apps.describe.representatives` as ``shortclust cluster`` chooses.
    ``clusters`` (the same dicts) skips all that.
    """
    if clusters is None:
        from shortclust.apps.assignments import read_csv_rows
        from shortclust.apps.describe import cluster_members, representatives
        from shortclust.pipeline.records import RecordStore

        rows = read_csv_rows(RecordStore(run.store_dir).clusters_path(run.run_id))
        n = max([int(labels.max(initial=-1)) + 1] + [int(r["cluster"]) + 1 for r in rows])
        words = {int(r["cluster"]): [[w, float(v)] for w, v in zip(
            r["top_words"].split(), r["weights"].split())] for r in rows}
        column = {w: i for i, w in enumerate(corpus.vocabulary)}
        directions = sp.lil_matrix((n, len(corpus.vocabulary)))
        for cluster, pairs in words.items():
            for word, weight in pairs:
                if word in column:
                    directions[cluster, column[word]] = weight
        presence = corpus.counts.copy().astype(np.float64)
        presence.data[:] = 1.0
        members = cluster_members(labels, n)
        chosen = representatives(members, presence, directions.tocsr(), 3)
        texts = corpus_texts(corpus, documents)
        clusters = [{"cluster": k, "size": int(members[k].size), "top_words": words.get(k, []),
                     "representatives": [{"row": int(i) + 1, "text": texts[i]}
                                         for i in chosen[k]]}
                    for k in range(n)]
        clusters.sort(key=lambda c: (-c["size"], c["cluster"]))
    total = max(int(labels.shape[0]), 1)
    return [{**cluster, "share": cluster["size"] / total,
             "representatives": [{**doc, "text": shorten(doc["text"])}
                                 for doc in cluster["representatives"]]}
            for cluster in clusters]


def overview(run: RunFiles, corpus, labels, documents) -> list[tuple[str, str]]:
    """The overview table's rows: what ran, on what, and what came out."""
    record = run.record
    counts = documents.counts()
    found = int(np.unique(labels).size)
    params = record.get("params") or {}
    bound = params.get("n_clusters")
    how = how_k_was_chosen(record, found)
    rows = [
        ("dataset", f"{record['dataset']} (sha256 {str(record.get('dataset_sha256'))[:12]})"),
        ("documents", f"{corpus.n_source_docs} in the file: {counts['ok']} clustered, "
                      f"{counts['empty']} empty after preprocessing, {counts['dropped']} "
                      "dropped by it"),
        ("clusters", f"{found} holding documents" + (f" (n_clusters={bound})" if bound else "")),
        ("number of clusters", how),
        ("model", f"{record['model']}, seed {record['seed']}"),
        ("parameters", ", ".join(f"{k}={v}" for k, v in sorted(params.items())) or "-"),
        ("preprocessing", f"{record['preprocess']} ({len(corpus.vocabulary)} words kept)"),
        ("representation", _representation(record)),
        ("run", f"{run.run_id}, 1 of {run.n_runs} in {run.store_dir}"
                + (" (choose another with --run-id)" if run.n_runs > 1 else "")),
        ("made", f"{record.get('timestamp', '?')}, shortclust "
                 f"{(record.get('versions') or {}).get('shortclust', '?')}, commit "
                 f"{str(record.get('git_commit', '?'))[:10]}"),
    ]
    if run.is_stream:
        spec = ", ".join(f"{k}={v}" for k, v in record.get("stream", {}).items())
        rows.insert(5, ("stream", f"{len(record['batches'])} batches ({spec})"))
    return rows


def how_k_was_chosen(record: dict[str, Any], found: int) -> str:
    """One sentence on where the number of clusters came from, from the record."""
    if record.get("k_selection"):  # written by a K-choosing procedure, when one ran
        return str(record["k_selection"])
    bound = (record.get("params") or {}).get("n_clusters")
    if bound is None:
        return f"found by the model itself: {found}"
    if found < int(bound):
        return (f"set by the model's parameter n_clusters={bound} (given, or its default); "
                f"the model left {int(bound) - found} of them empty, so {found} hold "
                "documents")
    return f"set by the model's parameter n_clusters={bound} (given, or its default)"


def _representation(record: dict[str, Any]) -> str:
    spec = record.get("representation")
    if not spec:
        return "term counts"
    return ", ".join(f"{k}={v}" for k, v in spec.items())


def shorten(text: str, limit: int = TEXT_SHOWN) -> str:
    """``text`` on one line, cut to ``limit`` characters with ``...``."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------
# the map


def subsample(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """Sorted positions of at most ``max_points`` of ``n`` documents (all when fewer).

    >>> subsample(5, 10).tolist(), len(subsample(100, 10)), len(set(subsample(100, 10)))
    ([0, 1, 2, 3, 4], 10, 10)
    """
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=max_points, replace=False))


def map_data(corpus, labels, texts, record, *, seed: int = 0,
             max_points: int = MAX_MAP_POINTS) -> dict[str, Any] | None:
    """The documents' 2-D coordinates (:func:`.layout.embed_2d`) with cluster and text.

    Documents without a word are left off (they have no place on a map of words).
    """
    from shortclust.apps.report.layout import embed_2d

    has_words = np.flatnonzero(np.diff(corpus.counts.indptr) > 0)
    if has_words.size < 3:
        return None
    shown = has_words[subsample(has_words.size, max_points, seed)]
    xy, method = embed_2d(corpus.counts[shown], seed=seed)
    return {"x": xy[:, 0].round(3).tolist(), "y": xy[:, 1].round(3).tolist(),
            "cluster": labels[shown].tolist(),
            "text": [shorten(texts[i], 120) for i in shown],
            "n_shown": int(shown.size), "n_total": int(has_words.size), "method": method}


# --------------------------------------------------------------------------------------------
# clusters against clusters, and against labels


def cluster_similarity(counts, labels, clusters: list[int]) -> dict[str, Any] | None:
    """Cosine similarity of the clusters' word distributions (their members' summed,
    idf-weighted counts), for ``clusters`` in that order.

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 0, 0], [1, 0, 0], [0, 3, 1], [0, 1, 0]])
    >>> s = cluster_similarity(X, np.array([0, 0, 1, 1]), [0, 1])
    >>> s["matrix"]
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if len(clusters) < 2:
        return None
    counts = sp.csr_matrix(counts, dtype=np.float64)
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log((1 + counts.shape[0]) / (1 + df)) + 1.0
    profile = membership(labels, clusters) @ counts @ sp.diags(idf)
    profile = np.asarray(profile.todense())
    norms = np.linalg.norm(profile, axis=1)
    profile = profile / np.where(norms > 0, norms, 1.0)[:, None]
    matrix = np.clip(profile @ profile.T, 0.0, 1.0).round(3)
    return {"clusters": [int(c) for c in clusters], "matrix": matrix.tolist(),
            "basis": "cosine of the clusters' idf-weighted word counts"}


def membership(labels, clusters: list[int]) -> sp.csr_matrix:
    """A len(clusters) x n_docs 0/1 matrix: row i marks the members of ``clusters[i]``."""
    labels = np.asarray(labels)
    position = {int(c): i for i, c in enumerate(clusters)}
    rows = np.array([position.get(int(c), -1) for c in labels], dtype=np.int64)
    kept = np.flatnonzero(rows >= 0)
    return sp.csr_matrix((np.ones(kept.size), (rows[kept], kept)),
                         shape=(len(clusters), labels.shape[0]))


def contingency(labels, truth, label_names, limit: int = MAX_HEATMAP_CLUSTERS):
    """Documents of each cluster (rows, largest first) per gold label (columns, largest
    first), the ``limit`` largest of each; with what was left out.

    >>> c = contingency(np.array([0, 0, 1, 1, 1]), np.array([1, 1, 0, 0, 1]), ["a", "b"])
    >>> c["clusters"], c["labels"], c["matrix"]
    ([1, 0], ['b', 'a'], [[1, 2], [2, 0]])
    """
    labels, truth = np.asarray(labels), np.asarray(truth)
    cluster_ids, cluster_sizes = np.unique(labels, return_counts=True)
    label_ids, label_sizes = np.unique(truth, return_counts=True)
    rows = cluster_ids[np.argsort(-cluster_sizes, kind="stable")][:limit]
    cols = label_ids[np.argsort(-label_sizes, kind="stable")][:limit]
    table = np.zeros((rows.size, cols.size), dtype=np.int64)
    r = {int(c): i for i, c in enumerate(rows)}
    c_ = {int(c): j for j, c in enumerate(cols)}
    for cluster, label in zip(labels.tolist(), truth.tolist()):
        if cluster in r and label in c_:
            table[r[cluster], c_[label]] += 1
    names = [str(label_names[int(c)]) if int(c) < len(label_names) else str(c) for c in cols]
    return {"clusters": rows.tolist(), "labels": names, "matrix": table.tolist(),
            "n_clusters": int(cluster_ids.size), "n_labels": int(label_ids.size)}


# --------------------------------------------------------------------------------------------
# streams


def batch_sizes(order, batch_docs, labels) -> tuple[list[int], np.ndarray]:
    """Documents of each cluster in each batch: (clusters, array n_batches x n_clusters).

    ``order`` is the stream order of the corpus's documents, ``batch_docs`` each batch's
    number of documents, ``labels`` the run's labels in corpus order.

    >>> clusters, sizes = batch_sizes(np.array([2, 0, 1, 3]), [2, 2], np.array([5, 5, 7, 7]))
    >>> clusters, sizes.tolist()
    ([5, 7], [[1, 1], [1, 1]])
    """
    streamed = np.asarray(labels)[np.asarray(order)]
    clusters = np.unique(streamed)
    column = np.searchsorted(clusters, streamed)
    edges = np.concatenate(([0], np.cumsum(batch_docs)))
    sizes = np.zeros((len(batch_docs), clusters.size), dtype=np.int64)
    for b, (start, stop) in enumerate(zip(edges[:-1], edges[1:])):
        sizes[b] = np.bincount(column[start:stop], minlength=clusters.size)
    return clusters.tolist(), sizes


def births_and_deaths(sizes: np.ndarray) -> tuple[list[int], list[int]]:
    """Per batch, the clusters born (first documents) and dead (none after it; not counted
    at the last batch, whose future is unknown).

    >>> births_and_deaths(np.array([[1, 0], [2, 1], [0, 1]]))
    ([1, 1, 0], [0, 1, 0])
    """
    has = sizes > 0
    n_batches = sizes.shape[0]
    first = np.argmax(has, axis=0)
    last = n_batches - 1 - np.argmax(has[::-1], axis=0)
    alive = has.any(axis=0)
    births = np.bincount(first[alive], minlength=n_batches)
    deaths = np.bincount(last[alive], minlength=n_batches)
    deaths[-1] = 0
    return births.tolist(), deaths.tolist()


def stream_data(record: dict[str, Any], corpus, labels) -> dict[str, Any]:
    """What a stream's part of the report shows, per batch.

    Sizes, births and deaths come from the run's labels of each batch's documents; the top
    words per batch are the model's after that batch when the record has them (a config
    with ``top_words: N``), else the words most frequent in the cluster's documents of the
    batch (said so in ``words_from``).
    """
    from shortclust.pipeline.batches import stream_order

    batches = record["batches"]
    order = stream_order(corpus)
    batch_docs = [int(entry["n_docs"]) for entry in batches]
    clusters, sizes = batch_sizes(order, batch_docs, labels)
    births, deaths = births_and_deaths(sizes)
    totals = sizes.sum(axis=0)
    largest = [clusters[i] for i in np.argsort(-totals, kind="stable")[:MAX_DRIFT_CLUSTERS]]
    recorded = all("top_words" in entry for entry in batches)
    if recorded:
        words = {c: [_words_at(entry["top_words"], c) for entry in batches] for c in largest}
        words_from = "the model's top words after each batch"
    else:
        words = member_words_per_batch(corpus, order, batch_docs, labels, largest)
        words_from = ("the words most frequent in the cluster's documents of each batch "
                      "(the record has no per-batch top words: set top_words: N in the "
                      "config to record the model's)")
    return {
        "batch": [int(entry["batch"]) for entry in batches],
        "start": [entry.get("start") for entry in batches], "n_docs": batch_docs,
        "n_clusters": [entry.get("n_clusters") for entry in batches],
        "clusters": [int(c) for c in clusters], "sizes": sizes.T.tolist(),
        "births": births, "deaths": deaths, "drift_clusters": [int(c) for c in largest],
        "words": {int(c): w for c, w in words.items()}, "words_from": words_from,
        "metrics": per_batch_metrics(batches),
    }


def _words_at(top_words, cluster: int) -> list[list]:
    return [list(pair) for pair in top_words[cluster]] if cluster < len(top_words) else []


def member_words_per_batch(corpus, order, batch_docs, labels, clusters,
                           n: int = _TOP_WORDS) -> dict[int, list[list[list]]]:
    """For each cluster, per batch, its documents' ``n`` most frequent words with their
    share of the cluster's tokens in that batch."""
    vocabulary = corpus.vocabulary
    counts = corpus.counts[np.asarray(order)]
    streamed = np.asarray(labels)[np.asarray(order)]
    edges = np.concatenate(([0], np.cumsum(batch_docs)))
    out: dict[int, list[list[list]]] = {int(c): [] for c in clusters}
    for start, stop in zip(edges[:-1], edges[1:]):
        part = membership(streamed[start:stop], list(clusters)) @ counts[start:stop]
        part = np.asarray(part.todense(), dtype=np.float64)
        for i, cluster in enumerate(clusters):
            total = part[i].sum()
            top = np.argsort(-part[i], kind="stable")[:n]
            out[int(cluster)].append([[vocabulary[w], round(part[i, w] / total, 4)]
                                      for w in top if part[i, w] > 0] if total else [])
    return out


def per_batch_metrics(batches) -> dict[str, list]:
    """The stream's prequential metrics per batch (None where undefined), by metric."""
    names: list[str] = []
    for entry in batches:
        for name in (entry.get("prequential") or {}):
            if name not in names:
                names.append(name)
    out = {}
    for name in names:
        values = [(entry.get("prequential") or {}).get(name) for entry in batches]
        out[name] = [None if v is None or (isinstance(v, float) and math.isnan(v)) else v
                     for v in values]
    return out
