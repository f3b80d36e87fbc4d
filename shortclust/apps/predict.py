"""``shortclust predict MODEL FILE``: assign new texts to a saved model's clusters.

A thin shell over :meth:`TextClusterer.load <.text_clusterer.TextClusterer.load>` and its
``predict``: the texts go through the model's own preprocessing (the pipeline named in the
model file, whose version must match this installation's), are counted over its vocabulary
(words it never saw are left out) or embedded by the same packaged encoder, and assigned;
documents with fewer words than the pipeline's ``min_doc_words`` are dropped as in
training. ``predict_proba`` gives each document's probability of its cluster where the
model has one. The output is an assignments CSV (:mod:`.assignments`): one row per input
document, in order; an existing output is replaced only if it is an assignments CSV. When
many texts share no word with the vocabulary a warning says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shortclust.errors import ConfigError

__all__ = ["Prediction", "default_output", "predict_file"]


@dataclass
class Prediction:
    """What :func:`predict_file` did.

    Attributes
    ----------
    path : Path
        The assignments CSV written.
    model : TextClusterer
        The loaded clusterer (``model.saved_`` is the model file read).
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


def predict_file(model_path, file, output) -> Prediction:
    """Assign the documents of ``file`` to the clusters of the model saved at ``model_path``
    and write the assignments CSV ``output`` (with the texts).

    Raises
    ------
    ModelFileError, DataError
        An unusable model file, or input file.
    """
    from shortclust.apps.assignments import assignments_headers
    from shortclust.apps.model_files import check_model_file
    from shortclust.apps.safe_output import check_replaces_only_its_own

    # An earlier assignments CSV is replaced (as --output's help says); any other file kept.
    check_replaces_only_its_own(output, assignments_headers(), "an assignments CSV")
    check_model_file(model_path)  # with numpy only: a crafted file never loads the model code
    from shortclust.apps.assignments import DROPPED, EMPTY, OK, SourceDocuments, \
        write_assignments
    from shortclust.apps.text_clusterer import TextClusterer
    from shortclust.data.io import read_documents

    clusterer = TextClusterer.load(model_path)
    raw = read_documents(file)
    labels, probabilities, empty = clusterer._predict(
        raw.texts, proba=clusterer.model_.capabilities.predict_proba)
    kept = np.flatnonzero(labels >= 0)
    rows = np.full(len(raw.texts), -1, dtype=np.int64)
    rows[kept] = np.arange(kept.size)
    status = [DROPPED if row < 0 else EMPTY if empty[i] else OK for i, row in enumerate(rows)]
    documents = SourceDocuments(rows, status, raw.ids, raw.texts)
    chosen = None if probabilities is None else probabilities[kept, labels[kept]]
    try:
        path = write_assignments(output, documents, labels[kept], chosen)
    except OSError as error:
        from shortclust.data.io import write_problem

        raise ConfigError(f"output '{output}': cannot write it ({write_problem(error, output)}):"
                          " choose another file with --output") from None
    values, sizes = np.unique(labels[kept], return_counts=True)
    order = np.argsort(-sizes, kind="stable")
    return Prediction(path, clusterer, documents.counts(),
                      {int(values[i]): int(sizes[i]) for i in order})
