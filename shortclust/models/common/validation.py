"""Input checks shared by every model. Private: the estimators call them.

Each check raises :class:`~shortclust.errors.ParameterError` with a message that names
the offending value, so a bad input fails in one line. Hyperparameters are checked by
the constraints of :mod:`shortclust.models.base`.
"""

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError


def as_counts(X):
    """CSR int counts with sorted indices from a sparse/dense matrix or a Corpus.

    Returns ``(counts, vocabulary)``: the checked counts (int32, duplicates summed,
    explicit zeros dropped) and the Corpus vocabulary as a list, or None when X is a
    bare matrix.
    """
    vocabulary = getattr(X, "vocabulary", None)
    if hasattr(X, "counts"):
        X = X.counts
    if not sp.issparse(X):
        X = sp.csr_matrix(np.asarray(X))
    X = sp.csr_matrix(X)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ParameterError("X must be a non-empty 2-D document-term count matrix")
    data = X.data
    if data.size and (data.min() < 0 or not np.all(np.equal(np.mod(data, 1), 0))):
        raise ParameterError("X must hold non-negative integer word counts")
    # Copies of the index arrays too: sum_duplicates and sort_indices work in place, and
    # on arrays shared with the caller's matrix they would reorder its indices but not
    # its data, corrupting it.
    X = sp.csr_matrix((data.astype(np.int32), X.indices.copy(), X.indptr.copy()),
                      shape=X.shape)
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    return X, (list(vocabulary) if vocabulary is not None else None)


def same_columns(X, n_features):
    """Counts of X (as :func:`as_counts`), refused if its width is not the training one."""
    counts, _ = as_counts(X)
    if counts.shape[1] != n_features:
        raise ParameterError(
            f"X has {counts.shape[1]} word columns but the model was fitted on "
            f"{n_features}: build it with the training vocabulary"
        )
    return counts


def stream_batch(X_batch, n_features, known_vocabulary):
    """Counts of a later stream batch (as :func:`as_counts`), refused unless they share the
    model's columns: the same width and, when both are known, the same words."""
    counts, vocabulary = as_counts(X_batch)
    if counts.shape[1] != n_features:
        raise ParameterError(
            f"X_batch has {counts.shape[1]} word columns but the model has "
            f"{n_features}: build every batch with the same vocabulary"
        )
    if vocabulary is not None and known_vocabulary is not None and vocabulary != known_vocabulary:
        raise ParameterError(
            "X_batch's vocabulary differs from the model's (same width, other words): "
            "build every batch with the same vocabulary"
        )
    return counts
