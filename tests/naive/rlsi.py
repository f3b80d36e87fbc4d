"""Slow, obvious reference RLSI that the vectorised updates of the model are tested against.

Dense matrices in the paper's orientation (D is terms x documents), one scalar
soft-thresholding step at a time, term by term and topic by topic; the explicit inverse
for V; the objective from the residual matrix. It draws the initial V exactly as the
model does, so the same seed must give the same factors and labels.
"""

import numpy as np


def soft_threshold(x, t):
    """sign(x) max(|x| - t, 0)."""
    if x > t:
        return x - t
    if x < -t:
        return x + t
    return 0.0


def naive_update_u(D, V, U, lambda1, max_sweeps=50, cd_tol=1e-6):
    """Coordinate descent on every entry u_mk, rows in turn inside each sweep over topics.

    Same stopping rule as the model: stop after a sweep in which no entry moved by more
    than ``cd_tol`` times the largest |u|.
    """
    M, K = U.shape
    S = V @ V.T
    R = D @ V.T
    U = np.array(U, dtype=np.float64, copy=True)
    for _ in range(max_sweeps):
        moved = 0.0
        for k in range(K):
            for m in range(M):
                old = U[m, k]
                if S[k, k] <= 0.0:
                    new = 0.0
                else:
                    x = R[m, k]
                    for l in range(K):
                        if l != k:
                            x -= S[k, l] * U[m, l]
                    new = soft_threshold(x, lambda1 / 2.0) / S[k, k]
                U[m, k] = new
                moved = max(moved, abs(new - old))
        if moved <= cd_tol * np.max(np.abs(U)):
            break
    return U


def naive_update_v(D, U, lambda2):
    """(U^T U + lambda2 I)^-1 U^T D with an explicit inverse."""
    K = U.shape[1]
    return np.linalg.inv(U.T @ U + lambda2 * np.eye(K)) @ (U.T @ D)


def naive_objective(D, U, V, lambda1, lambda2):
    """||D - U V||_F^2 + lambda1 sum |u| + lambda2 sum v^2, from the residual."""
    residual = D - U @ V
    return (np.sum(residual ** 2) + lambda1 * np.sum(np.abs(U))
            + lambda2 * np.sum(V ** 2))


def naive_weighted_matrix(counts, weighting):
    """Dense terms x documents D: binary occurrences times 1 or log(N/df) (0 if df=0),

    then divided by the root mean square of its non-zero entries (as the model does).
    """
    B = (np.asarray(counts.todense()) > 0).astype(np.float64)  # documents x terms
    N = B.shape[0]
    if weighting == "binary":
        w = np.ones(B.shape[1])
    elif weighting == "idf":
        df = B.sum(axis=0)
        w = np.array([np.log(N / f) if f > 0 else 0.0 for f in df])
    else:
        raise ValueError(weighting)
    D = (B * w).T
    nonzero = [value for value in D.ravel() if value != 0.0]
    if nonzero:
        D = D / np.sqrt(sum(value * value for value in nonzero) / len(nonzero))
    return D


def naive_rlsi_fit(D, K, lambda1, lambda2, max_iter, tol, seed):
    """Batch RLSI: random V, then alternate U (coordinate descent) and V (ridge).

    Returns U, V (not sign-oriented), the objective history and the labels (argmax of
    each column of V after flipping every topic whose U column sums below zero).
    """
    M, N = D.shape
    V = np.random.default_rng(seed).random((K, N))
    U = np.zeros((M, K))
    history = []
    for it in range(max_iter):
        U = naive_update_u(D, V, U, lambda1)
        V = naive_update_v(D, U, lambda2)
        history.append(naive_objective(D, U, V, lambda1, lambda2))
        if it > 0 and history[-2] - history[-1] <= tol * abs(history[-2]):
            break
    labels = []
    signs = [(-1.0 if U[:, k].sum() < 0 else 1.0) for k in range(K)]
    for n in range(N):
        column = [signs[k] * V[k, n] for k in range(K)]
        labels.append(int(np.argmax(column)))
    return U, V, history, np.array(labels)
