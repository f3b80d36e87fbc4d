"""``shortclust predict MODEL FILE``: assign new texts to a saved model's clusters.

The texts go through the model's own preprocessing (the pipeline named in the model file,
whose version must match this installation's) and are counted over its vocabulary (words
it never saw are left out); documents with fewer words than the pipeline's
``min_doc_words`` are dropped as in training. The model's ``predict`` then assigns each
kept document, and ``predict_proba`` gives its probability where the model has one. The
output is an assignments CSV (:mod:`.assignments`): one row per input document, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shortclust.errors import ConfigError, ModelFileError
from shortclust.apps.assignments import (DROPPED, EMPTY, OK, SourceDocuments,
                                                write_assignments)

__all__ = ["Prediction", "default_output", "predict_file", "vectorize"]


@dataclass
class Prediction:
    """What :func:`predict_file` did.

    Attributes
    ----------
    path : Path
        The assignments CSV written.
    model : SavedModel
    counts : dict
        Input documents per status (``ok``, ``empty``, ``dropped``).
    sizes : dict
        Documents per cluster (kept documents only), largest first.
    """

    path: Path
    model: object
    counts: dict[str, int]
    sizes: dict[int, int]


def default_output(file) -> Path:
    """``<file stem>_assignments.csv`` in the current directory."""
    from shortclust.apps.cluster import safe_stem

    return Path(f"{safe_stem(file)}_assignments.csv")


def vectorize(saved, texts):
    """The counts of ``texts`` over a saved model's vocabulary, through its pipeline.

    Returns ``(counts, kept)``: the CSR counts of every text and the positions of the texts
    the pipeline's ``min_doc_words`` keeps.

    Raises
    ------
    ModelFileError
        The model was not fitted on term counts, has no vocabulary or pipeline, or its
        pipeline here is another version than the one it was fitted with.
    """
    from shortclust.data.corpus import counts_over
    from shortclust.data.preprocess import get_pipeline
    from shortclust.errors import DataError

    where = str(saved.path)
    if saved.representation is not None or saved.vocabulary is None or not saved.preprocess:
        raise ModelFileError(
            f"{where}: the model was not fitted on the term counts of a named preprocessing "
            "(or its file lacks them), so new texts cannot be given to it: save a model "
            "fitted on counts (shortclust cluster, or run --save-models)")
    try:
        pipeline = get_pipeline(saved.preprocess["name"])
    except DataError as error:
        raise ModelFileError(f"{where}: {error}") from None
    if pipeline.version != saved.preprocess.get("version"):
        raise ModelFileError(
            f"{where}: the model's preprocessing is {saved.preprocess.get('version')} but "
            f"here '{pipeline.name}' is {pipeline.version} (other lemmatiser, stemmer or "
            "stop words), so its words would differ: predict where it was saved, or fit "
            "again here")
    counts = counts_over(pipeline.tokenize(texts), saved.vocabulary)
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    kept = np.flatnonzero(lengths >= saved.preprocess.get("min_doc_words", 0))
    return counts, kept


def predict_file(model_path, file, output) -> Prediction:
    """Assign the documents of ``file`` to the clusters of the model saved at ``model_path``
    and write the assignments CSV ``output`` (with the texts).

    Raises
    ------
    ModelFileError, DataError
        An unusable model file (:func:`~.model_files.load_model`), or input file.
    """
    from shortclust.data.io import read_documents
    from shortclust.apps.model_files import load_model

    saved = load_model(model_path)
    raw = read_documents(file)
    counts, kept = vectorize(saved, raw.texts)
    model = saved.model
    labels = model.predict(counts[kept]) if kept.size else np.zeros(0, dtype=np.int64)
    probabilities = None
    if model.capabilities.predict_proba:
        probabilities = np.zeros(kept.size)
        if kept.size:
            proba = model.predict_proba(counts[kept])
            probabilities = proba[np.arange(kept.size), labels]
    rows = np.full(len(raw.texts), -1, dtype=np.int64)
    rows[kept] = np.arange(kept.size)
    empty = np.asarray(counts.sum(axis=1)).ravel() == 0
    status = [DROPPED if row < 0 else EMPTY if empty[i] else OK for i, row in enumerate(rows)]
    documents = SourceDocuments(rows, status, raw.ids, raw.texts)
    try:
        path = write_assignments(output, documents, labels, probabilities)
    except OSError as error:
        raise ConfigError(f"output '{output}': cannot write it ({error.strerror or error}): "
                          "choose another file with --output") from None
    values, sizes = np.unique(labels, return_counts=True)
    order = np.argsort(-sizes, kind="stable")
    return Prediction(path, saved, documents.counts(),
                      {int(values[i]): int(sizes[i]) for i in order})
