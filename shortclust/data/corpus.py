"""The :class:`Corpus`: a document-term count matrix with its vocabulary, labels and times.

:func:`load_corpus` builds one from a registered dataset or a file, applying a named
preprocessing pipeline, and caches the result of the slow pipelines on disk, keyed by the
source file's SHA-256 and the pipeline's version.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from shortclust.data.io import atomic_write, file_sha256, read_documents, suffix_of
from shortclust.data.preprocess import Pipeline, get_pipeline, guess_pipeline
from shortclust.data.registry import DatasetInfo, dataset_path, get_info, user_cache_home
from shortclust.errors import DataError

__all__ = ["Corpus", "load_corpus", "file_stem", "names_a_file", "resolve_cache_dir",
           "encode_labels", "times_to_array"]

# Bumped when the cache layout changes, so old entries are ignored rather than misread.
_CACHE_FORMAT = 1


@dataclass(eq=False)
class Corpus:
    """A preprocessed document collection as a sparse count matrix.

    Attributes
    ----------
    name : str
        Dataset name, or the file stem for a file, or ``"custom"``.
    counts : scipy.sparse.csr_matrix of int32, shape (n_docs, n_words)
        Term counts; canonical (sorted indices, no duplicates, no explicit zeros). Empty
        documents are all-zero rows.
    vocabulary : list of str
        The word of each column, sorted.
    labels : ndarray of int64 or None
        Label codes; :meth:`from_texts` numbers labels 0..L-1 in order of first appearance.
    label_names : list of str
        ``label_names[code]`` is the original label.
    times : ndarray or None
        ``datetime64[s]`` (UTC) for timestamps, ``int64`` for stream positions.
    doc_index : ndarray of int64
        0-based position in the source of each document (the source line is
        ``doc_index + 1`` for JSON Lines and text files). Documents a pipeline drops are
        missing from it, so nothing is lost silently.
    source_path : Path or None
        File the corpus was read from.
    sha256 : str or None
        SHA-256 of that file as stored.
    preprocess : str
        Name of the pipeline applied.
    n_source_docs : int or None
        Documents in the source before any were dropped.
    file_rows : ndarray of int64 or None
        For a dataset that is a subset of its file (:mod:`shortclust.data.subsets`): the
        file's row of each source document, so ``file_rows[doc_index]`` are the rows of
        the corpus's documents in the file. None: the source is the whole file.

    Examples
    --------
    >>> c = Corpus.from_texts(["a b a", ""], labels=["x", "y"])
    >>> c.vocabulary, c.counts.toarray().tolist(), c.labels.tolist()
    (['a', 'b'], [[2, 1], [0, 0]], [0, 1])
    """

    name: str
    counts: sp.csr_matrix
    vocabulary: list[str]
    labels: np.ndarray | None = None
    label_names: list[str] = field(default_factory=list)
    times: np.ndarray | None = None
    doc_index: np.ndarray | None = None
    source_path: Path | None = None
    sha256: str | None = None
    preprocess: str = "none"
    n_source_docs: int | None = None
    file_rows: np.ndarray | None = None

    def __post_init__(self):
        self.counts = _canonical_counts(self.counts)
        self.vocabulary = list(self.vocabulary)
        n_docs, n_words = self.counts.shape
        if len(self.vocabulary) != n_words:
            raise DataError(f"vocabulary has {len(self.vocabulary)} words but counts has "
                            f"{n_words} columns: pass one word per column")
        if self.doc_index is None:
            self.doc_index = np.arange(n_docs, dtype=np.int64)
        self.doc_index = np.asarray(self.doc_index, dtype=np.int64)
        if self.labels is not None:
            self.labels = np.asarray(self.labels, dtype=np.int64)
        self.label_names = list(self.label_names)
        if self.times is not None:
            self.times = np.asarray(self.times)
        for what in ("labels", "times", "doc_index"):
            values = getattr(self, what)
            if values is not None and len(values) != n_docs:
                raise DataError(f"{what} has {len(values)} entries for {n_docs} documents: "
                                "pass one per document")
        if self.source_path is not None:
            self.source_path = Path(self.source_path)
        if self.n_source_docs is None:
            self.n_source_docs = n_docs

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        labels: Sequence | None = None,
        times: Sequence | None = None,
        pipeline: str | Pipeline = "none",
        name: str = "custom",
        *,
        source_path: str | os.PathLike | None = None,
        sha256: str | None = None,
    ) -> "Corpus":
        """Preprocess texts with a named pipeline and count their tokens.

        Parameters
        ----------
        texts : sequence of str
        labels : sequence, optional
            One ground-truth label per text (converted to str).
        times : sequence, optional
            One ISO-8601 string or integer position per text.
        pipeline : str or Pipeline
            ``"none"``, ``"gsdmm"`` or ``"ncut"``; its ``min_df`` and ``min_doc_words``
            are applied here, in that order.
        name : str
        source_path, sha256 : optional
            Provenance, recorded on the corpus.

        Raises
        ------
        DataError
            If labels/times do not match the texts in length, or preprocessing leaves no
            document or no word.
        """
        pipe = get_pipeline(pipeline)
        texts = list(texts)
        _check_length("labels", labels, len(texts))
        _check_length("times", times, len(texts))
        counts, vocabulary = count_matrix(pipe.tokenize(texts))
        counts, vocabulary = _filter_min_df(counts, vocabulary, pipe.min_df)
        counts, vocabulary = _filter_max_df(counts, vocabulary, pipe.max_df)
        keep = np.flatnonzero(_doc_lengths(counts) >= pipe.min_doc_words)
        _check_not_empty(pipe, len(keep), len(vocabulary))
        codes, names = (None, [])
        if labels is not None:
            codes, names = encode_labels([labels[i] for i in keep])
        time_array = times_to_array(times)[keep] if times is not None else None
        return cls(name=name, counts=counts[keep], vocabulary=vocabulary, labels=codes,
                   label_names=names, times=time_array, doc_index=keep,
                   source_path=source_path, sha256=sha256, preprocess=pipe.name,
                   n_source_docs=len(texts))

    # --- views -----------------------------------------------------------------------------

    @property
    def n_docs(self) -> int:
        """Number of documents (rows)."""
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        """Vocabulary size (columns)."""
        return self.counts.shape[1]

    @property
    def doc_lengths(self) -> np.ndarray:
        """Tokens per document, int64."""
        return _doc_lengths(self.counts)

    def source_rows(self) -> np.ndarray:
        """The corpus row of each source document, -1 for one that preprocessing dropped.

        ``n_source_docs`` entries, in source order: what joins a result per row back to
        the file the corpus was read from.

        Examples
        --------
        >>> c = Corpus("x", sp.csr_matrix([[1], [2]]), ["a"], doc_index=[0, 2], n_source_docs=3)
        >>> c.source_rows().tolist()
        [0, -1, 1]
        """
        rows = np.full(self.n_source_docs, -1, dtype=np.int64)
        rows[self.doc_index] = np.arange(self.n_docs, dtype=np.int64)
        return rows

    def binary(self) -> sp.csr_matrix:
        """Word presence: the counts with every non-zero set to 1 (int32 CSR)."""
        presence = self.counts.copy()
        presence.data[:] = 1
        return presence

    def tfidf(self) -> sp.csr_matrix:
        """TF-IDF weights (scikit-learn's smoothed idf), rows l2-normalised; empty rows stay 0."""
        from sklearn.feature_extraction.text import TfidfTransformer

        return TfidfTransformer(norm="l2").fit_transform(self.counts).tocsr()

    def tokens(self) -> list[np.ndarray]:
        """Each document as an int32 array of word ids, one entry per token.

        Word order within a document is by word id (the counts keep no order).
        """
        ids = np.repeat(self.counts.indices, self.counts.data).astype(np.int32, copy=False)
        return np.split(ids, np.cumsum(self.doc_lengths)[:-1])

    # --- derived corpora -------------------------------------------------------------------

    def subset(self, idx) -> "Corpus":
        """Return the documents selected by ``idx`` (integer positions or a boolean mask).

        The vocabulary and label codes are unchanged, so they stay comparable with this
        corpus; some words or labels may then not occur.
        """
        rows = _as_row_index(idx, self.n_docs)
        return self._derived(self.name, self.counts[rows], rows)

    def repeat(self, n_copies: int) -> "Corpus":
        """Concatenate ``n_copies`` copies of the corpus (for scaling benchmarks)."""
        if isinstance(n_copies, bool) or not isinstance(n_copies, (int, np.integer)) \
                or n_copies < 1:
            raise DataError(f"n_copies must be a positive integer, got {n_copies!r}")
        rows = np.tile(np.arange(self.n_docs, dtype=np.int64), int(n_copies))
        counts = sp.vstack([self.counts] * int(n_copies), format="csr")
        return self._derived(f"{self.name}x{n_copies}", counts, rows)

    def _derived(self, name: str, counts: sp.csr_matrix, rows: np.ndarray) -> "Corpus":
        """A corpus whose documents are rows ``rows`` of this one (counts already taken)."""
        return Corpus(
            name=name, counts=counts, vocabulary=self.vocabulary,
            labels=None if self.labels is None else self.labels[rows],
            label_names=self.label_names,
            times=None if self.times is None else self.times[rows],
            doc_index=self.doc_index[rows], source_path=self.source_path,
            sha256=self.sha256, preprocess=self.preprocess, n_source_docs=self.n_source_docs)

    def __repr__(self) -> str:
        labels = "no labels" if self.labels is None else f"{len(self.label_names)} labels"
        return (f"Corpus({self.name!r}: {self.n_docs} docs x {self.n_words} words, "
                f"{self.counts.nnz} non-zeros, {labels}, preprocess={self.preprocess!r})")


# --- building blocks -------------------------------------------------------------------------

def _canonical_counts(counts) -> sp.csr_matrix:
    """CSR int32 with sorted indices, duplicates summed and explicit zeros removed."""
    matrix = sp.csr_matrix(counts)
    if matrix.dtype != np.int32:
        matrix = matrix.astype(np.int32)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    if matrix.nnz and matrix.data.min() < 0:
        raise DataError("counts contain negative values: pass term counts (>= 0)")
    return matrix


def _doc_lengths(counts: sp.csr_matrix) -> np.ndarray:
    return np.asarray(counts.sum(axis=1, dtype=np.int64)).ravel()


def count_matrix(docs: Sequence[Sequence[str]]) -> tuple[sp.csr_matrix, list[str]]:
    """Count tokens: return a canonical int32 CSR matrix and its sorted vocabulary."""
    vocabulary = sorted(set(chain.from_iterable(docs)))
    column = {word: i for i, word in enumerate(vocabulary)}
    flat = np.fromiter(map(column.__getitem__, chain.from_iterable(docs)), dtype=np.int32)
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    # One entry per token; canonicalising sums repeated words within a document.
    matrix = sp.csr_matrix((np.ones(len(flat), dtype=np.int32), flat, indptr),
                           shape=(len(docs), len(vocabulary)))
    return _canonical_counts(matrix), vocabulary


def counts_over(docs: Sequence[Sequence[str]], vocabulary: Sequence[str]) -> sp.csr_matrix:
    """Count tokens over a fixed vocabulary (a fitted model's): canonical int32 CSR, one
    column per word of ``vocabulary``; words not in it are left out.

    Examples
    --------
    >>> counts_over([["b", "a", "b", "zz"], []], ["a", "b"]).toarray().tolist()
    [[1, 2], [0, 0]]
    """
    column = {word: i for i, word in enumerate(vocabulary)}
    known = [[column[word] for word in doc if word in column] for doc in docs]
    flat = np.fromiter(chain.from_iterable(known), dtype=np.int32)
    indptr = np.concatenate(([0], np.cumsum([len(doc) for doc in known], dtype=np.int64)))
    matrix = sp.csr_matrix((np.ones(len(flat), dtype=np.int32), flat, indptr),
                           shape=(len(docs), len(vocabulary)))
    return _canonical_counts(matrix)


def _filter_min_df(counts: sp.csr_matrix, vocabulary: list[str], min_df: int):
    """Drop words that occur in fewer than ``min_df`` documents."""
    if min_df <= 1:
        return counts, vocabulary
    # Canonical CSR holds each (document, word) once, so column hits = document frequency.
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    keep = np.flatnonzero(df >= min_df)
    return counts[:, keep], [vocabulary[i] for i in keep]


def _filter_max_df(counts: sp.csr_matrix, vocabulary: list[str], max_df: float):
    """Drop words that occur in more than the fraction ``max_df`` of the documents."""
    if max_df >= 1.0:
        return counts, vocabulary
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    keep = np.flatnonzero(df <= max_df * counts.shape[0])
    return counts[:, keep], [vocabulary[i] for i in keep]


def _check_length(what: str, values, n_texts: int) -> None:
    if values is not None and len(values) != n_texts:
        raise DataError(f"{len(values)} {what} for {n_texts} texts: pass one per text")


def _check_not_empty(pipe: Pipeline, n_docs: int, n_words: int) -> None:
    if n_words == 0 or n_docs == 0:
        what = "no words" if n_words == 0 else "no documents"
        raise DataError(
            f"preprocessing '{pipe.name}' left {what} (min_df={pipe.min_df}, "
            f"max_df={pipe.max_df:g}, min_doc_words={pipe.min_doc_words}): use more "
            "documents" + (" with words in them" if pipe.name == "none"
                           else " or preprocess 'none'"))


def encode_labels(labels: Sequence) -> tuple[np.ndarray, list[str]]:
    """Number labels 0..L-1 in order of first appearance.

    Returns
    -------
    codes : ndarray of int64
    names : list of str
        ``names[code]`` is the label (as str).
    """
    table: dict[str, int] = {}
    codes = np.fromiter((table.setdefault(str(label), len(table)) for label in labels),
                        dtype=np.int64, count=len(labels))
    return codes, list(table)


def times_to_array(times: Sequence) -> np.ndarray:
    """Integer positions -> int64; ISO-8601 strings -> ``datetime64[s]`` in UTC.

    Raises
    ------
    DataError
        If the kinds are mixed or a string is not an ISO-8601 timestamp.
    """
    values = list(times)
    is_int = [isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values]
    if all(is_int):
        return np.asarray(values, dtype=np.int64)
    if any(is_int):
        raise DataError("times mix integer positions and timestamps: use one kind")
    return np.array([_utc_naive(v, i) for i, v in enumerate(values)], dtype="datetime64[s]")


def _utc_naive(value, position: int) -> datetime:
    """Parse an ISO-8601 timestamp to a naive UTC datetime (numpy has no time zones)."""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise DataError(f"time {value!r} of document {position + 1} is not ISO-8601: "
                        "write YYYY-MM-DDTHH:MM:SSZ") from None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
        except OverflowError:  # year 1 at +14:00 falls before year 1 in UTC
            raise DataError(f"time {value!r} of document {position + 1} is out of range in "
                            "UTC: write a time between the years 1 and 9999") from None
    return moment


def _as_row_index(idx, n_docs: int) -> np.ndarray:
    rows = np.asarray(idx)
    if rows.dtype == bool:
        if rows.shape != (n_docs,):
            raise DataError(f"boolean mask has {rows.size} entries for {n_docs} documents: "
                            "pass one per document")
        return np.flatnonzero(rows)
    if rows.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(rows.dtype, np.integer):
        raise DataError(f"subset takes integer positions or a boolean mask, not {rows.dtype}")
    rows = rows.astype(np.int64).ravel()
    if rows.min() < -n_docs or rows.max() >= n_docs:
        raise DataError(f"document position out of range for {n_docs} documents")
    return np.where(rows < 0, rows + n_docs, rows)


# --- loading ---------------------------------------------------------------------------------

def _looks_like_path(dataset) -> bool:
    """A path-like, or a string with a separator or a data-file suffix, names a file."""
    if isinstance(dataset, os.PathLike):
        return True
    text = str(dataset)
    separators = [os.sep] + ([os.altsep] if os.altsep else [])
    return any(s in text for s in separators) or suffix_of(text) is not None


def names_a_file(dataset) -> bool:
    """Whether ``dataset``, as a config gives it, is a file's path (not a registered name)."""
    if _looks_like_path(dataset):
        return True
    try:
        get_info(str(dataset))
    except DataError:
        return True
    return False


def _resolve(dataset, data_dir) -> tuple[Path, DatasetInfo | None]:
    """Return the file to read and its registry entry (None for a plain file)."""
    if _looks_like_path(dataset):
        return Path(dataset).expanduser(), None
    try:
        info = get_info(dataset)
    except DataError:
        # Not a registered name: an existing file (without a suffix we know) is still a
        # file; read_documents will explain what is wrong with it.
        if Path(str(dataset)).is_file():
            return Path(str(dataset)), None
        raise
    return dataset_path(info.name, data_dir), info


def file_stem(path) -> str:
    """The file's name without its data suffix: ``"tweets"`` for ``dir/tweets.jsonl.gz``."""
    path = Path(path)
    suffix = suffix_of(path) or path.suffix
    return path.name[: len(path.name) - len(suffix)] if suffix else path.name


def _check_against_registry(info: DatasetInfo, path: Path, n_docs: int, labels) -> None:
    """A partial or corrupted copy would silently change every reported number."""
    way_out = f"download it again from {info.source}"
    if n_docs != info.n_docs:
        raise DataError(f"{path} has {n_docs} documents but {info.name} has {info.n_docs}: "
                        f"the copy is partial or corrupted, {way_out}")
    n_labels = 0 if labels is None else len(set(labels))
    if n_labels != info.n_labels:
        raise DataError(f"{path} has {n_labels} distinct labels but {info.name} has "
                        f"{info.n_labels}: the copy is corrupted, {way_out}")


def load_corpus(
    dataset: str | os.PathLike,
    preprocess: str = "auto",
    data_dir: str | os.PathLike | None = None,
    *,
    cache: bool = True,
) -> Corpus:
    """Load a registered dataset or a file as a preprocessed :class:`Corpus`.

    Parameters
    ----------
    dataset : str or path-like
        A registry name (case-insensitive, e.g. ``"GoogleNews-T"``) or a path to a
        ``.jsonl``, ``.jsonl.gz``, ``.csv`` or ``.txt`` file. A string containing a path
        separator or ending in one of those suffixes is a path.
    preprocess : str
        Pipeline name (``"none"``, ``"gsdmm"``, ``"ncut"``, ``"basic"``) or ``"auto"``: the
        registry's default for a named dataset; for a file, ``"basic"`` if its text looks raw
        and ``"none"`` if it looks tokenised already
        (:func:`~shortclust.data.preprocess.guess_pipeline`).
    data_dir : path-like, optional
        Where registered datasets live (see :func:`~shortclust.data.registry.resolve_data_dir`).
    cache : bool
        Reuse/store the result of slow pipelines in the corpus cache
        (:func:`resolve_cache_dir`).

    Raises
    ------
    DataError
        Unknown name, missing or malformed file, unknown pipeline, or a named dataset
        whose document or label count differs from the registry's.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "mine.txt"
    >>> _ = p.write_text("red apple\\ngreen apple\\n")
    >>> load_corpus(p).vocabulary
    ['apple', 'green', 'red']
    """
    path, info = _resolve(dataset, data_dir)
    raw = None
    if str(preprocess).lower() == "auto":
        if info is not None:
            preprocess = info.default_preprocess
        else:  # a file: its text decides (guess_pipeline)
            raw = read_documents(path)
            preprocess = guess_pipeline(raw.texts)
    pipe = get_pipeline(preprocess)
    name = info.name if info else file_stem(path)
    subset = info.subset if info else None
    use_cache = cache and pipe.cache
    sha = file_sha256(path) if subset is None else subset.checksum(file_sha256(path))
    if use_cache:
        corpus = _read_cache(sha, pipe)
        if corpus is not None and (info is None or corpus.n_source_docs == info.n_docs):
            corpus.name, corpus.source_path = name, path
            return corpus
    raw, rows = raw or read_documents(path), None
    if subset is not None:
        raw, rows = subset.select(raw, path)
    if info is not None:
        _check_against_registry(info, path, len(raw), raw.labels)
    corpus = Corpus.from_texts(raw.texts, raw.labels, raw.times, pipe, name,
                               source_path=path, sha256=sha)
    corpus.file_rows = rows
    if use_cache:
        _write_cache(corpus, pipe)
    return corpus


# --- on-disk cache ---------------------------------------------------------------------------

def resolve_cache_dir() -> Path:
    """Directory of cached corpora: ``$SHORTCLUST_CACHE``, else
    ``$XDG_CACHE_HOME/shortclust/corpora`` (``~/.cache/shortclust/corpora``)."""
    env = os.environ.get("SHORTCLUST_CACHE", "")
    if env:
        return Path(env).expanduser()
    return user_cache_home() / "shortclust" / "corpora"


def _cache_stem(sha: str, pipe: Pipeline) -> str:
    key = f"{sha}|{pipe.name}|{pipe.version}|format-{_CACHE_FORMAT}"
    return f"{pipe.name}-{hashlib.sha256(key.encode()).hexdigest()[:32]}"


def _read_cache(sha: str, pipe: Pipeline) -> Corpus | None:
    """The cached corpus, or None if absent or unusable (then it is simply rebuilt)."""
    stem = resolve_cache_dir() / _cache_stem(sha, pipe)
    try:
        meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
        if meta.get("sha256") != sha or meta.get("pipeline_version") != pipe.version:
            return None
        with np.load(stem.with_suffix(".npz"), allow_pickle=False) as arrays:
            counts = sp.csr_matrix(
                (arrays["data"], arrays["indices"], arrays["indptr"]),
                shape=tuple(arrays["shape"]))
            labels = arrays["labels"] if "labels" in arrays else None
            times = arrays["times"] if "times" in arrays else None
            doc_index = arrays["doc_index"]
            # A subset's rows in its file (the subset's checksum is part of the key).
            file_rows = arrays["file_rows"] if "file_rows" in arrays else None
        return Corpus(name="", counts=counts, vocabulary=meta["vocabulary"], labels=labels,
                      label_names=meta["label_names"], times=times, doc_index=doc_index,
                      sha256=sha, preprocess=pipe.name, n_source_docs=meta["n_source_docs"],
                      file_rows=file_rows)
    except (OSError, ValueError, KeyError, TypeError, DataError):
        return None


def _write_cache(corpus: Corpus, pipe: Pipeline) -> None:
    """Store the corpus atomically; an unwritable cache directory just means no cache."""
    directory = resolve_cache_dir()
    stem = _cache_stem(corpus.sha256, pipe)
    arrays = {"data": corpus.counts.data, "indices": corpus.counts.indices,
              "indptr": corpus.counts.indptr, "shape": np.asarray(corpus.counts.shape),
              "doc_index": corpus.doc_index}
    if corpus.labels is not None:
        arrays["labels"] = corpus.labels
    if corpus.times is not None:
        arrays["times"] = corpus.times
    if corpus.file_rows is not None:
        arrays["file_rows"] = corpus.file_rows
    meta = {"format": _CACHE_FORMAT, "sha256": corpus.sha256, "pipeline": pipe.name,
            "pipeline_version": pipe.version, "n_source_docs": corpus.n_source_docs,
            "label_names": corpus.label_names, "vocabulary": corpus.vocabulary}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # The .npz goes first: a reader trusts an entry only once its .json exists.
        atomic_write(directory / f"{stem}.npz", lambda f: np.savez(f, **arrays))
        atomic_write(directory / f"{stem}.json",
                     lambda f: f.write(json.dumps(meta, ensure_ascii=False).encode("utf-8")))
    except OSError:
        pass

