"""Slow, obvious references for the sparsifiers of ``shortclust.models.hac._sparsify``.

Plain Python loops over lists, written from the IC paper's text (section 4.1) and its
Algorithm 2 line by line, with the documented tie rule: a stable sort, so among equal
values the entry earlier in row-major order (or the smaller column) wins.
"""

import math


def knn_sparsify_naive(S, k):
    """Section 4.1: each row keeps its k highest off-diagonal similarities; union symmetrised."""
    n = len(S)
    retained = set()
    for i in range(n):
        others = [j for j in range(n) if j != i]
        # sorted() is stable: equal similarities keep the order of j.
        nearest = sorted(others, key=lambda j: -S[i][j])[:k]
        for j in nearest:
            retained.add((min(i, j), max(i, j)))
    return _fill(S, retained)


def sd_sparsify_naive(S, K):
    """Algorithm 2, lines 1-22."""
    n = len(S)
    l = n / K - 1                                   # line 3
    N = math.floor(n * l / 2)                       # line 4 (exact for the small n used)
    A = [[0.0] * n for _ in range(n)]               # line 2
    for i in range(n):                              # lines 5-10
        row = [S[i][j] for j in range(n) if j != i]
        mu = sum(row) / len(row) if row else 0.0
        sigma = math.sqrt(sum((s - mu) ** 2 for s in row) / len(row)) if row else 0.0
        for j in range(n):
            if j != i:
                A[i][j] = (S[i][j] - mu) / sigma if sigma > 0 else 0.0
    L = []                                          # lines 11-16
    for i in range(n):
        for j in range(i + 1, n):
            L.append((i, j, max(A[i][j], A[j][i])))
    L.sort(key=lambda triplet: -triplet[2])         # line 17 (stable)
    return _fill(S, {(i, j) for i, j, _ in L[:N]})  # lines 18-21


def row_statistics_naive(S):
    """Mean and population standard deviation of each row without its diagonal entry."""
    means, stds = [], []
    for i, full in enumerate(S):
        row = [s for j, s in enumerate(full) if j != i]
        mu = sum(row) / len(row) if row else 0.0
        means.append(mu)
        stds.append(math.sqrt(sum((s - mu) ** 2 for s in row) / len(row)) if row else 0.0)
    return means, stds


def _fill(S, retained):
    """Identity matrix (line 1) with m_ij = s_ij and m_ji = s_ji at each retained pair."""
    n = len(S)
    M = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    for i, j in retained:
        M[i][j] = S[i][j]
        M[j][i] = S[j][i]
    return M, retained
