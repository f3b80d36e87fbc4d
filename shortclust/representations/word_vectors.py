"""Averaged word vectors from a GloVe-format text file (Rakib et al. used GloVe 42B, 300d).

The file has one word per line followed by its ``d`` numbers, separated by single spaces.
Only the corpus's own words are kept while reading, so a 5 GB file costs the memory of the
vocabulary's vectors, not of the file.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from shortclust.errors import DataError


def read_word_vectors(path, vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of the words of ``vocabulary`` found in a GloVe-format file.

    Parameters
    ----------
    path : path-like
        Text file (``.gz`` allowed): ``word v1 ... vd`` per line. Every line must have the
        same ``d`` as the first; a word may itself contain spaces (the last ``d`` fields
        are the numbers).
    vocabulary : sequence of str
        The corpus's words (column order of its count matrix). Without a word2vec header
        line (``n_words d``), the first line's word must be a single token: it fixes ``d``.

    Returns
    -------
    columns : ndarray of int64
        Vocabulary positions that have a vector, ascending.
    vectors : ndarray of float32, shape (len(columns), d)

    Raises
    ------
    DataError
        Missing file, empty file, or a malformed line (named by its number).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"word-vector file '{path}' not found: check representation.path")
    position = {word: i for i, word in enumerate(vocabulary)}
    found: dict[int, np.ndarray] = {}
    dim = None
    with _open_text(path) as lines:
        for number, line in enumerate(lines, 1):
            if number == 1 and _is_word2vec_header(line):
                dim = int(line.split()[1])  # "n_words d": the word2vec text format's header
                continue
            word, values = _parse_line(path, number, line, dim)
            dim = len(values) if dim is None else dim
            if word in position and position[word] not in found:
                found[position[word]] = values
    if dim is None:
        raise DataError(f"word-vector file '{path}' is empty: expected 'word v1 ... vd' lines")
    columns = np.array(sorted(found), dtype=np.int64)
    vectors = np.array([found[c] for c in columns], dtype=np.float32).reshape(len(columns), dim)
    return columns, vectors


def _open_text(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    return opener(path, "rt", encoding="utf-8", errors="replace")


def _is_word2vec_header(line: str) -> bool:
    fields = line.split()
    return len(fields) == 2 and all(field.isdigit() for field in fields)


def _parse_line(path: Path, number: int, line: str, dim: int | None):
    fields = line.rstrip("\n").rstrip(" ").split(" ")
    if dim is None:  # the first line fixes d: everything after the first field
        dim = len(fields) - 1
    if dim < 1 or len(fields) < dim + 1:
        raise DataError(
            f"{path}:{number}: expected a word and {dim if dim >= 1 else 'd'} numbers, got "
            f"{len(fields)} field{'s' if len(fields) != 1 else ''} (is this a GloVe text file?)"
        )
    try:
        values = np.array(fields[-dim:], dtype=np.float32)
    except ValueError:
        raise DataError(f"{path}:{number}: a vector entry is not a number") from None
    return " ".join(fields[:-dim]), values


def average_word_vectors(corpus, path) -> np.ndarray:
    """Each document's mean word vector from a GloVe-format file (see :func:`mean_vectors`).

    Returns
    -------
    ndarray of float32, shape (n_docs, d)
    """
    columns, vectors = read_word_vectors(path, corpus.vocabulary)
    return mean_vectors(corpus.counts, columns, vectors)


def mean_vectors(counts, columns, vectors) -> np.ndarray:
    """Each document's mean word vector, its tokens counted with multiplicity.

    Words without a vector are skipped; a document with no word that has a vector (or no
    word at all) gets the zero vector, which cosine-based models treat as unrelated to
    everything.

    Parameters
    ----------
    counts : sparse matrix, shape (n_docs, n_words)
        Term counts.
    columns : ndarray of int
        The words (columns of ``counts``) that have a vector.
    vectors : ndarray, shape (len(columns), d)
        Their vectors, in the order of ``columns``.

    Returns
    -------
    ndarray of float32, shape (n_docs, d)
    """
    counts = sp.csr_matrix(counts, dtype=np.float32)[:, columns]
    totals = np.asarray(counts.sum(axis=1)).ravel()
    sums = counts @ vectors
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / totals[:, None]
    means[totals == 0] = 0.0
    return np.ascontiguousarray(means, dtype=np.float32)


def vector_coverage(counts, columns) -> dict[str, int]:
    """How much of a corpus has word vectors: words, tokens and documents without one.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> counts = sp.csr_matrix([[2, 1, 0], [0, 0, 3]])
    >>> vector_coverage(counts, [0])
    {'words': 3, 'words_without_vector': 2, 'tokens': 6, 'tokens_without_vector': 4, 'documents': 2, 'documents_without_vector': 1}
    """
    counts = sp.csr_matrix(counts)
    covered = np.zeros(counts.shape[1], dtype=bool)
    covered[np.asarray(columns, dtype=np.int64)] = True
    per_doc = np.asarray(counts[:, covered].sum(axis=1)).ravel()
    tokens = int(counts.sum())
    return {"words": int(counts.shape[1]),
            "words_without_vector": int(counts.shape[1] - covered.sum()),
            "tokens": tokens, "tokens_without_vector": tokens - int(per_doc.sum()),
            "documents": int(counts.shape[0]),
            "documents_without_vector": int((per_doc == 0).sum())}
