"""Results a reader can join back to the input: one row per input document, per cluster.

A corpus may hold fewer documents than its file (a pipeline with ``min_doc_words`` drops
short ones), and some it holds may have no word left. The files written here keep the
input's order and length whatever preprocessing did:

``assignments`` CSV
    One row per input document: ``row`` (its 1-based position in the file: line of a
    JSON Lines or text file, record of a CSV), ``id`` (when the file has ids), ``text``
    (``shortclust cluster`` and ``predict`` only), ``cluster`` (empty for a dropped
    document), ``probability`` (of that cluster, for models with ``predict_proba``) and
    ``status``: ``ok``; ``empty`` (no word left after preprocessing: its cluster is where
    the model put an empty document, which says nothing of its text); ``dropped`` (removed
    by preprocessing, no cluster).
``clusters`` CSV
    One row per cluster: ``cluster``, ``size``, ``top_words`` (space-separated, heaviest
    first) and ``weights`` (theirs, in the same order; the model's ``top_words``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from shortclust.pipeline.records import atomic_write_text

__all__ = ["DROPPED", "EMPTY", "OK", "SourceDocuments", "assignments_headers", "auto_preprocess_note",
           "preprocessing_note", "read_csv_rows", "write_assignments", "write_clusters"]

OK, EMPTY, DROPPED = "ok", "empty", "dropped"


@dataclass
class SourceDocuments:
    """The input documents of a corpus and where preprocessing put each.

    Attributes
    ----------
    rows : ndarray of int64
        The corpus row of each input document, -1 for a dropped one.
    status : list of str
        :data:`OK`, :data:`EMPTY` or :data:`DROPPED` for each input document.
    ids, texts : list of str or None
        The file's ids (None when it has none) and texts (None when not read).
    """

    rows: np.ndarray
    status: list[str]
    ids: list[str] | None
    texts: list[str] | None

    @classmethod
    def of(cls, corpus, texts: bool = False) -> SourceDocuments:
        """Where each input document of ``corpus`` went; its ids (and texts) from its file.

        The file is read again (the corpus keeps neither); a file that no longer holds
        ``n_source_docs`` documents gives no ids or texts rather than misaligned ones.
        """
        rows = corpus.source_rows()
        empty = corpus.doc_lengths == 0
        status = [DROPPED if row < 0 else EMPTY if empty[row] else OK for row in rows]
        raw = None
        if corpus.source_path is not None:
            from shortclust.data.io import read_documents

            raw = read_documents(corpus.source_path)
            if len(raw) != len(rows):
                raw = None
        return cls(rows, status, None if raw is None else raw.ids,
                   raw.texts if raw is not None and texts else None)

    def counts(self) -> dict[str, int]:
        """How many input documents have each status."""
        return {name: self.status.count(name) for name in (OK, EMPTY, DROPPED)}


def write_assignments(path, documents: SourceDocuments, labels,
                      probabilities=None) -> Path:
    """Write the assignments CSV (module docstring): one row per input document.

    ``labels`` and ``probabilities`` are per corpus row (the model's order); the text
    column is written when ``documents`` has texts.
    """
    labels = np.asarray(labels, dtype=np.int64).tolist()
    header = ["row"] + (["id"] if documents.ids is not None else []) \
        + (["text"] if documents.texts is not None else []) + ["cluster"] \
        + (["probability"] if probabilities is not None else []) + ["status"]
    # Column by column, as Python lists: a Python loop over cells took as long as fitting
    # GSDMM on the file in `make run` (20 runs of 2,472 rows). Only the ids and texts can
    # start like a formula; the other cells are numbers or fixed words.
    rows = np.asarray(documents.rows).tolist()
    columns = [range(1, len(rows) + 1)]
    for strings in (documents.ids, documents.texts):
        if strings is not None:
            columns.append([safe_cell(value) for value in strings])
    columns.append(["" if row < 0 else labels[row] for row in rows])
    if probabilities is not None:
        probabilities = np.asarray(probabilities, dtype=float).tolist()
        columns.append(["" if row < 0 else f"{probabilities[row]:.6g}" for row in rows])
    columns.append(documents.status)
    return _write_csv(path, header, zip(*columns), safe=False)


def assignments_headers() -> tuple[bytes, ...]:
    """Every first line (with its newline) that :func:`write_assignments` can write: how
    ``predict`` tells its own earlier output, which it may replace, from a user's file."""
    return tuple(",".join(["row", *ids, *texts, "cluster", *probability, "status"]).encode()
                 + b"\n" for ids in ([], ["id"]) for texts in ([], ["text"])
                 for probability in ([], ["probability"]))


def write_clusters(path, clusters: Iterable[dict[str, Any]]) -> Path:
    """Write the clusters CSV (module docstring) of an :class:`Outcome`'s ``clusters``."""
    lines = [[cluster["cluster"], cluster["size"],
              " ".join(word for word, _ in cluster["top_words"]),
              " ".join(f"{weight:.6g}" for _, weight in cluster["top_words"])]
             for cluster in clusters]
    return _write_csv(path, ["cluster", "size", "top_words", "weights"], lines)


#: What a spreadsheet takes as the start of a formula (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    """A CSV cell a spreadsheet shows as text: a string starting with ``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return gets a leading single quote, as OWASP recommends
    against formula injection (an id ``=HYPERLINK(...)`` would otherwise run when the
    assignments are opened). Numbers, and strings already quoted so, are left as they are.

    >>> safe_cell("=1+1"), safe_cell("-3"), safe_cell("plain"), safe_cell(-3)
    ("'=1+1", "'-3", 'plain', -3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _write_csv(path, header: list[str], lines, safe: bool = True) -> Path:
    """Write ``lines`` under ``header``; ``safe=False`` when the caller made the cells safe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(([safe_cell(cell) for cell in line] for line in lines) if safe else lines)
    atomic_write_text(Path(path), buffer.getvalue())
    return Path(path)


def read_csv_rows(path) -> list[dict[str, str]]:
    """The rows of a CSV this module wrote, as dicts of strings."""
    from shortclust.data.io import allow_csv_fields_of

    allow_csv_fields_of(path)  # an input's id or text may be longer than csv's 128 KB
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# --------------------------------------------------------------------------------------------
# what to tell the user about preprocessing


def preprocessing_note(corpus, where: str) -> str | None:
    """One line when preprocessing dropped or emptied documents: how many, and where they
    are listed (``where``); None when it did neither."""
    from shortclust.data.preprocess import get_pipeline

    dropped = corpus.n_source_docs - corpus.n_docs
    empty = int(np.count_nonzero(corpus.doc_lengths == 0))
    if not dropped and not empty:
        return None
    parts = []
    if dropped:
        fewer = get_pipeline(corpus.preprocess).min_doc_words
        parts.append(f"dropped {dropped} of {corpus.n_source_docs} documents (fewer than "
                     f"{fewer} words left)")
    if empty:
        of = "" if dropped else f" of {corpus.n_source_docs} documents"
        parts.append(f"left {empty}{of} empty (no word left)")
    return (f"preprocessing '{corpus.preprocess}' {' and '.join(parts)}: {where} lists "
            "every input document, these with status " +
            " / ".join(name for name, n in ((DROPPED, dropped), (EMPTY, empty)) if n))


def auto_preprocess_note(config, corpus, choose: str) -> str | None:
    """One line saying which pipeline ``preprocess: auto`` chose for a file, and why;
    ``choose`` says how to choose another. None for a registered dataset or a pipeline
    the config names."""
    from shortclust.data.corpus import names_a_file
    from shortclust.data.preprocess import PIPELINES

    if config.preprocess.lower() != "auto" or not names_a_file(config.dataset):
        return None
    names = ", ".join(PIPELINES)
    if corpus.preprocess == "basic":
        why = ("looks like raw text, so it is preprocessed with 'basic' (lowercase; URLs, "
               "@-mentions, punctuation, digits and English stop words out; words in at "
               "least 2 documents)")
    else:
        why = (f"looks tokenised already (lowercase words, no punctuation), so it is "
               f"preprocessed with '{corpus.preprocess}' (split on white space)")
    return f"{config.dataset} {why}; to choose another, {choose} ({names})"
