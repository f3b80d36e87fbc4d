"""Term weights over the binary term-document matrix: 01, idf and the Ncut weight.

Private helpers of :mod:`shortclust.models.nmf.ncut_nmf` (and of any model of the Ncut-NMF
paper that weights terms, e.g. RLSI). Every function takes the document-term matrix the
project uses everywhere (documents in rows, terms in columns, CSR) and works on its
*binary* pattern, as the paper does (Yan et al. 2012, footnote 1: "we take x_ij as binary
weight"). The paper writes X the other way round (terms x documents, M x N); the
formulas below are the paper's, transposed where needed.

Nothing here forms a dense V x V (or N x N) matrix: the Ncut weight needs only the row
sums of S = X X^T, which are X (X^T 1), two sparse matrix-vector products.
"""

import numpy as np
import scipy.sparse as sp

WEIGHTINGS = ("ncut", "idf", "binary")


def binary_matrix(counts, dtype=np.float64):
    """The 0/1 pattern of a document-term matrix, as CSR of ``dtype`` (documents x terms).

    The one binarisation of counts: the Ncut-NMF paper's binary weights (x_ij = 1 when
    term j occurs in document i, footnote 1) and GSDMM's Eq. 3 (each word once per
    document) both use it.
    """
    counts = sp.csr_matrix(counts, copy=True)
    counts.sum_duplicates()
    counts.eliminate_zeros()
    return sp.csr_matrix((np.ones(counts.nnz, dtype=dtype), counts.indices, counts.indptr),
                         shape=counts.shape)


def binary_weights(counts):
    """Weight 1 for every term ("NMF+01"): ones of shape (n_terms,)."""
    return np.ones(sp.csr_matrix(counts).shape[1])


def document_frequencies(counts):
    """Number of documents containing each term, shape (n_terms,)."""
    binary = binary_matrix(counts)
    return np.bincount(binary.indices, minlength=binary.shape[1]).astype(np.float64)


def idf_weights(counts):
    """Inverse document frequency ``log(N / df_t)`` of each term (natural log, unsmoothed).

    This is the idf of the paper's section 1 (its "11.51" is ln of the number of
    documents for a term seen once). A term that occurs in no document gets weight 0
    (it contributes nothing to any document either way); a term in every document gets
    log(1) = 0 as the formula says.
    """
    binary = binary_matrix(counts)
    df = np.bincount(binary.indices, minlength=binary.shape[1]).astype(np.float64)
    weights = np.zeros_like(df)
    seen = df > 0
    weights[seen] = np.log(binary.shape[0] / df[seen])
    return weights


def cooccurrence_degrees(counts):
    """Degrees ``d_ii = sum_j s_ij`` of the term affinity graph S = X X^T (Eq. 1).

    With the paper's term-document X (M x N) the degrees are ``X (X^T 1)``; with our
    document-term matrix B = X^T they are ``B^T (B 1)``: each document contributes its
    number of distinct terms to every term it contains. The diagonal ``s_ii = df_i`` is
    part of S and so of the degree, as in Eq. 1; a term is thus its own neighbour, and
    ``d_ii >= df_i``.
    """
    binary = binary_matrix(counts)
    lengths = np.asarray(binary.sum(axis=1)).ravel()   # X^T 1: distinct terms per document
    return np.asarray(binary.T @ lengths).ravel()      # X (X^T 1)


def ncut_weights(counts, scale=True):
    """The Ncut weight of each term, Eq. 5: ``w_i = d_ii^(-1/2)``, scaled into [0, 1].

    Parameters
    ----------
    counts : sparse matrix of shape (n_documents, n_terms)
        Document-term matrix; only its binary pattern is used.
    scale : bool, default=True
        Divide by the largest weight, as the paper does "in practice" (section 3), so
        the weights lie in [0, 1] and the largest is 1.

    Returns
    -------
    ndarray of shape (n_terms,)

    Notes
    -----
    ``d_ii`` is the i-th row sum of S = X X^T including the diagonal ``s_ii = df_i``
    (see :func:`cooccurrence_degrees`). Degenerate terms:

    - a term that co-occurs with no other term (it appears only in one-word documents)
      still has ``d_ii = df_i >= 1``: its weight ``df_i^(-1/2)`` is finite, and with
      ``df_i = 1`` it is the largest possible weight (1 after scaling), the paper's
      reading that rare co-occurrence means discriminative;
    - a term that occurs in no document has ``d_ii = 0``; its weight is set to 0 (it
      weights nothing), never inf or NaN.

    If no term occurs at all every weight is 0.
    """
    degrees = cooccurrence_degrees(counts)
    weights = np.zeros_like(degrees)
    seen = degrees > 0
    weights[seen] = 1.0 / np.sqrt(degrees[seen])
    if scale and seen.any():
        weights /= weights.max()
    return weights


def term_weights(counts, weighting):
    """Per-term weights of a named scheme: ``"ncut"``, ``"idf"`` or ``"binary"``."""
    if weighting == "ncut":
        return ncut_weights(counts)
    if weighting == "idf":
        return idf_weights(counts)
    if weighting == "binary":
        return binary_weights(counts)
    raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}, got {weighting!r}")


def weight_documents(counts, weights, binary=True):
    """Scale each term column by its weight: ``B diag(w)`` (the paper's ``D^(-1/2) X``).

    Parameters
    ----------
    counts : sparse matrix of shape (n_documents, n_terms)
    weights : array of shape (n_terms,)
    binary : bool, default=True
        Weight the 0/1 pattern (the paper's X) rather than the counts.

    Returns
    -------
    scipy.sparse.csr_matrix of float64, shape (n_documents, n_terms)
        Same sparsity pattern as the input (entries whose weight is 0 are dropped).
    """
    weights = np.asarray(weights, dtype=np.float64)
    base = binary_matrix(counts) if binary else sp.csr_matrix(counts, dtype=np.float64)
    if weights.shape != (base.shape[1],):
        raise ValueError(f"weights must have shape ({base.shape[1]},), got {weights.shape}")
    # Own copies of the index arrays: eliminate_zeros compacts them in place, and a
    # float copy of an integer matrix may share them with the caller's matrix.
    weighted = sp.csr_matrix((base.data * weights[base.indices], base.indices.copy(),
                              base.indptr.copy()), shape=base.shape)
    weighted.eliminate_zeros()
    return weighted


def factors_memory_bytes(params, n_docs, n_features):
    """Memory of the dense factors of a K-topic factorisation, U (terms x K) and V (K x
    documents), float64: the lower bound NMF and RLSI give as ``memory_bytes``."""
    return None if n_features is None else (n_features + n_docs) * params["n_clusters"] * 8
