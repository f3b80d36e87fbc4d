"""Next-batch perplexity of a stream model, with a fixed vocabulary and the OOV rate.

After time step t an incremental model exposes its topic proportions ``Theta_t`` (shape Z,
summing to 1) and topic word distributions ``Phi_t`` (Z x V, rows summing to 1); the
documents of step t+1 are then scored against them. Any model exposing
``topic_proportions_`` and ``topic_word_`` can be scored (DCT's Eq. 9-10; GSDMM, GSDPMM
and LDA give theirs from their fitted counts), so every model is measured by the same
estimator.

Two estimators of a document's likelihood are offered:

``"document"`` (the default, the issue's): one topic per document, so
``p(d) = sum_z theta_z prod_v phi_zv^{n_dv}``, computed in log space with log-sum-exp.
It is a true held-out likelihood: nothing of d is used before d is scored.

``"word_mixture"`` (the formula of Liang, Yilmaz & Kanoulas, KDD 2016, section 6.6,
after Blei et al. 2003): ``log p(d) = sum_{v in d} n_dv log sum_z phi_zv p(z|d)`` with
``p(z|d)`` the document's topic probabilities (their Eq. 11). ``p(z|d)`` is computed from d
itself, so this is lower than the held-out value; it is given to compare with the paper.
Without ``doc_topic`` the posterior of the one-topic model,
``p(z|d) ~ theta_z prod_v phi_zv^{n_dv}``, is used.

Both give ``perplexity = exp(-sum_d log p(d) / sum_d N_d)``, the paper's normalisation.

Which words count: the vocabulary is fixed (the model's V columns). ``N_d`` counts the
tokens of d that are in it, with multiplicity; tokens outside it (words the model has no
column for, and, with ``in_vocabulary``, columns the caller excludes, such as words not yet
seen in training) are left out of both sums and reported as the out-of-vocabulary (OOV)
rate: their share of all the batch's tokens. A document with no in-vocabulary token
contributes nothing to either sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from shortclust.errors import DataError, ParameterError

__all__ = ["PerplexityResult", "perplexity", "model_perplexity", "document_log_likelihood",
           "word_mixture_log_likelihood", "counts_and_oov", "seen_words", "ESTIMATORS"]

#: The likelihood estimators :func:`perplexity` knows (see the module docstring).
ESTIMATORS = ("document", "word_mixture")

# Tolerance on "sums to 1": the models' float64 estimates are well within it.
_SUM_TOLERANCE = 1e-6
# Stored entries scored at a time by the word-mixture estimator (each costs Z floats).
_CHUNK = 1 << 15


@dataclass(frozen=True)
class PerplexityResult:
    """Perplexity of one batch and what it was computed from.

    Attributes
    ----------
    perplexity : float
        ``exp(-log_likelihood / n_tokens)``; ``inf`` when a token has probability 0,
        ``nan`` when no token is in the vocabulary.
    log_likelihood : float
        ``sum_d log p(d)`` over the scored documents (natural log).
    n_tokens : int
        In-vocabulary tokens scored, ``sum_d N_d``.
    n_documents : int
        Documents with at least one in-vocabulary token.
    n_oov_tokens : int
        Tokens of the batch outside the vocabulary.
    oov_rate : float
        ``n_oov_tokens / (n_tokens + n_oov_tokens)`` (0 for a batch without tokens).
    estimator : str
        ``"document"`` or ``"word_mixture"``.
    """

    perplexity: float
    log_likelihood: float
    n_tokens: int
    n_documents: int
    n_oov_tokens: int
    oov_rate: float
    estimator: str

    def as_dict(self) -> dict:
        """The fields as a plain dict (for a run record)."""
        return {"perplexity": self.perplexity, "log_likelihood": self.log_likelihood,
                "n_tokens": self.n_tokens, "n_documents": self.n_documents,
                "n_oov_tokens": self.n_oov_tokens, "oov_rate": self.oov_rate,
                "estimator": self.estimator}


def perplexity(theta, phi, counts, *, oov_tokens=None, in_vocabulary=None,
               estimator="document", doc_topic=None) -> PerplexityResult:
    """Perplexity of a batch of documents under topic proportions and topic-word distributions.

    Parameters
    ----------
    theta : array-like of shape (Z,)
        Topic proportions (non-negative, summing to 1), ``Theta_t``.
    phi : array-like of shape (Z, V)
        Topic word distributions (rows non-negative, summing to 1), ``Phi_t``.
    counts : scipy.sparse matrix or array-like of shape (n_documents, V)
        Term counts of the documents to score (the next batch), over the model's columns.
    oov_tokens : array-like of shape (n_documents,), optional
        Tokens of each document that have no column (see :func:`counts_and_oov`).
    in_vocabulary : array-like of bool, shape (V,), optional
        Columns that count as vocabulary; the tokens of the others are OOV. Default: all.
    estimator : {"document", "word_mixture"}, default="document"
        The likelihood of a document (module docstring).
    doc_topic : array-like of shape (n_documents, Z), optional
        ``p(z|d)`` for ``"word_mixture"`` (e.g. the model's ``predict_proba``, the paper's
        Eq. 11); default: the one-topic posterior from ``theta`` and ``phi``.

    Returns
    -------
    PerplexityResult

    Raises
    ------
    DataError
        Shapes that do not agree, negative counts, or ``theta``/``phi`` that are not
        distributions.
    ParameterError
        An unknown ``estimator``.

    Examples
    --------
    >>> import numpy as np
    >>> result = perplexity([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]], np.array([[2, 0]]))
    >>> round(result.perplexity, 6), result.n_tokens, result.oov_rate
    (2.0, 2, 0.0)
    """
    if estimator not in ESTIMATORS:
        raise ParameterError(f"estimator must be one of {', '.join(ESTIMATORS)}, "
                             f"got {estimator!r}")
    theta, phi = _check_distributions(theta, phi)
    counts = _check_counts(counts, phi.shape[1])
    oov = _oov_per_document(oov_tokens, counts.shape[0])
    if in_vocabulary is not None:
        counts, dropped = _keep_columns(counts, in_vocabulary)
        oov = oov + dropped
    if estimator == "document":
        log_p = document_log_likelihood(theta, phi, counts)
    else:
        log_p = word_mixture_log_likelihood(theta, phi, counts, doc_topic)
    lengths = np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)
    return _result(log_p, lengths, int(oov.sum()), estimator)


def model_perplexity(model, counts, **options) -> PerplexityResult:
    """:func:`perplexity` under a fitted model's ``topic_proportions_`` and ``topic_word_``.

    Parameters
    ----------
    model : object
        Anything with ``topic_proportions_`` (Z,) and ``topic_word_`` (Z, V): DCT after a
        ``partial_fit`` step, GSDMM, GSDPMM, LDA.
    counts : scipy.sparse matrix of shape (n_documents, V)
        The documents to score (for next-batch perplexity, the next step's batch).
    **options
        ``oov_tokens``, ``in_vocabulary``, ``estimator``, ``doc_topic`` of :func:`perplexity`.

    Raises
    ------
    DataError
        The model exposes no ``topic_proportions_`` or ``topic_word_`` (or is not fitted).
    """
    try:
        theta, phi = model.topic_proportions_, model.topic_word_
    except AttributeError as exc:  # NotFittedError is an AttributeError too
        raise DataError(f"{type(model).__name__} gives no topic_proportions_ and "
                        f"topic_word_ ({exc}): fit it first, or score a model that exposes "
                        "them") from None
    return perplexity(theta, phi, counts, **options)


def document_log_likelihood(theta, phi, counts) -> np.ndarray:
    """``log p(d) = log sum_z theta_z prod_v phi_zv^{n_dv}`` of each document.

    Parameters
    ----------
    theta : ndarray of shape (Z,)
    phi : ndarray of shape (Z, V)
    counts : scipy.sparse.csr_matrix of shape (n_documents, V)

    Returns
    -------
    ndarray of shape (n_documents,)
        Natural logs; 0 for a document without tokens, ``-inf`` where it has probability 0.
    """
    return logsumexp(_log_joint(theta, phi, counts), axis=1)


def word_mixture_log_likelihood(theta, phi, counts, doc_topic=None) -> np.ndarray:
    """``sum_{v in d} n_dv log sum_z phi_zv p(z|d)`` of each document (KDD 2016, 6.6).

    Parameters
    ----------
    theta : ndarray of shape (Z,)
        Used only for the default ``p(z|d)``.
    phi : ndarray of shape (Z, V)
    counts : scipy.sparse.csr_matrix of shape (n_documents, V)
    doc_topic : array-like of shape (n_documents, Z), optional
        ``p(z|d)``; default ``theta_z prod_v phi_zv^{n_dv}`` normalised over z.

    Returns
    -------
    ndarray of shape (n_documents,)
    """
    if doc_topic is None:
        joint = _log_joint(theta, phi, counts)
        with np.errstate(invalid="ignore"):
            doc_topic = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        doc_topic[~np.isfinite(doc_topic)] = 0.0  # a document of probability 0 everywhere
    else:
        doc_topic = _check_doc_topic(doc_topic, counts.shape[0], phi.shape[0])
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    word_p = np.empty(counts.nnz)
    for start in range(0, counts.nnz, _CHUNK):
        part = slice(start, start + _CHUNK)
        word_p[part] = np.einsum("iz,zi->i", doc_topic[rows[part]], phi[:, counts.indices[part]])
    with np.errstate(divide="ignore"):
        weighted = counts.data * np.log(word_p)
    return np.bincount(rows, weights=weighted, minlength=counts.shape[0])


def counts_and_oov(token_lists, vocabulary):
    """Count documents' tokens over a fixed vocabulary, and the tokens left out.

    Parameters
    ----------
    token_lists : sequence of sequence of str
        Each document's tokens (e.g. ``shortclust.data.tokenize(texts, pipeline)``).
    vocabulary : sequence of str
        The model's column words.

    Returns
    -------
    counts : scipy.sparse.csr_matrix of shape (n_documents, len(vocabulary))
    oov_tokens : ndarray of int64, shape (n_documents,)

    Examples
    --------
    >>> counts, oov = counts_and_oov([["a", "zz", "a"], ["b"]], ["a", "b"])
    >>> counts.toarray().tolist(), oov.tolist()
    ([[2, 0], [0, 1]], [1, 0])
    """
    from shortclust.data.corpus import counts_over

    counts = counts_over(token_lists, vocabulary)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    return counts, lengths - np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)


def seen_words(*count_matrices) -> np.ndarray:
    """Columns with at least one occurrence in any of the matrices (the words seen so far).

    Pass it as ``in_vocabulary`` to count the next batch's words that training has not
    seen yet as out-of-vocabulary.

    Examples
    --------
    >>> import numpy as np
    >>> seen_words(np.array([[1, 0, 0]]), np.array([[0, 0, 2]])).tolist()
    [True, False, True]
    """
    if not count_matrices:
        raise DataError("seen_words needs at least one count matrix")
    seen = None
    for matrix in count_matrices:
        column_total = np.asarray(sp.csr_matrix(matrix).sum(axis=0)).ravel() > 0
        if seen is not None and column_total.shape != seen.shape:
            raise DataError(f"count matrices of {seen.size} and {column_total.size} "
                            "columns: give matrices over one vocabulary")
        seen = column_total if seen is None else seen | column_total
    return seen


# --- helpers ---------------------------------------------------------------------------------

def _log_joint(theta, phi, counts) -> np.ndarray:
    """``log theta_z + sum_v n_dv log phi_zv``, (n_documents, Z)."""
    with np.errstate(divide="ignore"):
        log_theta, log_phi = np.log(theta), np.log(phi)
    # A sparse product multiplies stored counts only: a zero phi_zv of a word d lacks
    # costs nothing (no 0 * -inf).
    return np.asarray(counts @ np.ascontiguousarray(log_phi.T)) + log_theta


def _result(log_p, lengths, n_oov, estimator) -> PerplexityResult:
    n_tokens = int(lengths.sum())
    total = float(log_p[lengths > 0].sum())
    value = float(np.exp(-total / n_tokens)) if n_tokens else float("nan")
    all_tokens = n_tokens + n_oov
    return PerplexityResult(perplexity=value, log_likelihood=total, n_tokens=n_tokens,
                            n_documents=int((lengths > 0).sum()), n_oov_tokens=n_oov,
                            oov_rate=n_oov / all_tokens if all_tokens else 0.0,
                            estimator=estimator)


def _check_distributions(theta, phi):
    theta = np.asarray(theta, dtype=np.float64)
    phi = np.asarray(phi, dtype=np.float64)
    if theta.ndim != 1 or phi.ndim != 2 or phi.shape[0] != theta.size or theta.size == 0:
        raise DataError(f"theta must have shape (Z,) and phi (Z, V) with Z >= 1, got "
                        f"{theta.shape} and {phi.shape}")
    for name, values, sums in (("theta", theta, theta.sum(keepdims=True)),
                               ("phi", phi, phi.sum(axis=1))):
        if not np.all(np.isfinite(values)) or values.min() < 0:
            raise DataError(f"{name} has negative or non-finite entries: give probabilities")
        if np.abs(sums - 1.0).max() > _SUM_TOLERANCE:
            raise DataError(f"{name} does not sum to 1 (off by up to "
                            f"{np.abs(sums - 1.0).max():.3g}): normalise it")
    return theta, phi


def _check_counts(counts, n_words) -> sp.csr_matrix:
    try:
        matrix = sp.csr_matrix(counts, copy=True)  # canonicalised below: not the caller's
    except (TypeError, ValueError) as exc:
        raise DataError(f"counts must be a 2-D count matrix: {exc}") from None
    if matrix.ndim != 2 or matrix.shape[1] != n_words:
        raise DataError(f"counts have {matrix.shape[-1]} columns but phi has {n_words}: give "
                        "counts over the model's vocabulary (counts_and_oov)")
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    if matrix.nnz and (matrix.data.min() < 0 or not np.all(np.isfinite(matrix.data))):
        raise DataError("counts have negative or non-finite entries")
    return matrix


def _oov_per_document(oov_tokens, n_docs) -> np.ndarray:
    if oov_tokens is None:
        return np.zeros(n_docs, dtype=np.int64)
    oov = np.asarray(oov_tokens)
    if oov.shape != (n_docs,) or (oov.size and oov.min() < 0):
        raise DataError(f"oov_tokens must be {n_docs} non-negative counts, one per document, "
                        f"got shape {oov.shape}")
    return oov.astype(np.int64)


def _keep_columns(counts, in_vocabulary):
    mask = np.asarray(in_vocabulary)
    if mask.dtype != bool or mask.shape != (counts.shape[1],):
        raise DataError(f"in_vocabulary must be {counts.shape[1]} booleans, one per column, "
                        f"got {mask.dtype} of shape {mask.shape}")
    outside = counts @ sp.diags((~mask).astype(np.float64), dtype=np.float64)
    dropped = np.rint(np.asarray(outside.sum(axis=1)).ravel()).astype(np.int64)
    kept = (counts @ sp.diags(mask.astype(np.float64), dtype=np.float64)).tocsr()
    kept.eliminate_zeros()
    return kept, dropped


def _check_doc_topic(doc_topic, n_docs, n_topics) -> np.ndarray:
    values = np.asarray(doc_topic, dtype=np.float64)
    if values.shape != (n_docs, n_topics):
        raise DataError(f"doc_topic must have shape ({n_docs}, {n_topics}), got {values.shape}")
    if not np.all(np.isfinite(values)) or (values.size and values.min() < 0):
        raise DataError("doc_topic has negative or non-finite entries: give probabilities")
    return values
