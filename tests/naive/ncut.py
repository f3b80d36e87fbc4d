"""Slow, obvious dense references for the Ncut-NMF paper (Yan et al. 2012), for tests only.

Everything here follows the paper's orientation literally: X is the binary
term-document matrix (terms x documents), S = X X^T is formed densely, Y = W X, and the
ANLS steps invert the K x K matrices explicitly.
"""

import numpy as np


def paper_binary_x(counts):
    """The paper's X: dense binary terms x documents, from a documents x terms matrix."""
    dense = np.asarray(counts.toarray() if hasattr(counts, "toarray") else counts)
    return (dense.T != 0).astype(np.float64)


def ncut_weights(counts, scale=True):
    """Eq. 5 from a dense S: w_i = (sum_j s_ij)^(-1/2), 0 for an absent term, / max."""
    X = paper_binary_x(counts)
    S = X @ X.T
    weights = np.zeros(S.shape[0])
    for i in range(S.shape[0]):
        d = sum(S[i, j] for j in range(S.shape[1]))
        weights[i] = d ** -0.5 if d > 0 else 0.0
    if scale and weights.max() > 0:
        weights = weights / max(weights)
    return weights


def idf_weights(counts):
    """log(N / df) per term, 0 for a term in no document."""
    X = paper_binary_x(counts)
    n_docs = X.shape[1]
    return np.array([np.log(n_docs / row.sum()) if row.sum() > 0 else 0.0 for row in X])


def weighted_y(counts, weights):
    """The paper's Y = diag(w) X (terms x documents), dense."""
    return np.diag(weights) @ paper_binary_x(counts)


def anls_step(Y, U, lam):
    """One iteration of Algorithm 1 on dense Y (terms x documents) from U (terms x K).

    V = max((U^T U + lam I)^-1 U^T Y, 0), then U = max(Y V^T (V V^T + lam I)^-1, 0).
    Returns (U, V) with V of shape K x documents.
    """
    K = U.shape[1]
    V = np.maximum(np.linalg.inv(U.T @ U + lam * np.eye(K)) @ U.T @ Y, 0.0)
    U = np.maximum(Y @ V.T @ np.linalg.inv(V @ V.T + lam * np.eye(K)), 0.0)
    return U, V


def objective(Y, U, V, lam):
    """Eq. 6: ||Y - U V||_F^2 + lam (||U||_F^2 + ||V||_F^2)."""
    return (np.sum((Y - U @ V) ** 2) + lam * (np.sum(U ** 2) + np.sum(V ** 2)))
