"""What a clustering says, whatever the model and representation: words, documents, merges.

Every model here gets the same description of its clusters, computed from the members'
own words (their sparse term counts), so a model fitted on sentence embeddings has real
top words too:

* :func:`class_tfidf`: class-based TF-IDF (Grootendorst 2022, BERTopic, eq. 1): the
  documents of a cluster are one "class document"; a word weighs
  ``tf(w, c) * log(1 + A / f(w))``, with ``tf`` the word's share of the cluster's tokens,
  ``f(w)`` its count over all clusters and ``A`` the mean number of tokens per cluster.
  One sparse product (cluster indicator by counts) gives every cluster's counts.
* :func:`representatives`: per cluster, the members scoring highest against one direction:
  the cluster's top-word weights (over each document's distinct words: the documents
  richest in its top words) or its centre (over unit document vectors: the documents
  closest to it). One sparse (or dense) product per cluster, over its members only.
* :func:`merge_clusters`: clusters merged into fewer, the smallest first into the cluster
  most similar to it (cosine of their class-TF-IDF rows or of their centres), as BERTopic's
  ``reduce_topics`` does; used for ``reduce_to`` and for the small clusters left by the
  number-of-clusters procedure (:mod:`.choose_k`).

References
----------
M. Grootendorst. BERTopic: Neural topic modeling with a class-based TF-IDF procedure.
arXiv:2203.05794, 2022.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["class_tfidf", "cluster_members", "clusters_table", "keep_top", "merge_clusters",
           "representatives", "top_words_of_rows"]


def cluster_members(labels, n_clusters: int | None = None) -> list[np.ndarray]:
    """The positions of each cluster's members (``labels`` < 0: in none), in order.

    One stable sort instead of one scan of ``labels`` per cluster.

    Examples
    --------
    >>> [m.tolist() for m in cluster_members([1, 0, 1, -1])]
    [[1], [0, 2]]
    """
    labels = np.asarray(labels, dtype=np.int64)
    n = int(labels.max(initial=-1)) + 1 if n_clusters is None else int(n_clusters)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(n + 1))
    return [order[bounds[c]:bounds[c + 1]] for c in range(n)]


def _indicator(labels, n_clusters: int) -> sp.csr_matrix:
    """The cluster-by-document 0/1 matrix (documents labelled < 0 belong to none)."""
    labels = np.asarray(labels, dtype=np.int64)
    rows = np.flatnonzero(labels >= 0)
    return sp.csr_matrix((np.ones(rows.size), (labels[rows], rows)),
                         shape=(n_clusters, labels.size))


def class_tfidf(counts, labels, n_clusters: int | None = None) -> sp.csr_matrix:
    """Class-based TF-IDF of each cluster's words (module docstring), clusters by words.

    Parameters
    ----------
    counts : sparse matrix of shape (n_documents, n_words)
        Term counts of the documents.
    labels : array of int of shape (n_documents,)
        Cluster of each document; negative: none.
    n_clusters : int, optional
        Rows of the result (default: the largest label + 1).

    Returns
    -------
    scipy.sparse.csr_matrix of float64, shape (n_clusters, n_words)

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0], [1, 1, 0], [0, 1, 3]])
    >>> W = class_tfidf(X, [0, 0, 1]).toarray()
    >>> bool(W[0, 0] > W[0, 1] and W[1, 2] > W[1, 1])
    True
    """
    labels = np.asarray(labels, dtype=np.int64)
    n = int(labels.max(initial=-1)) + 1 if n_clusters is None else int(n_clusters)
    per_cluster = (_indicator(labels, n) @ sp.csr_matrix(counts, dtype=np.float64)).tocsr()
    sizes = np.asarray(per_cluster.sum(axis=1)).ravel()
    word_totals = np.asarray(per_cluster.sum(axis=0)).ravel()
    filled = sizes > 0
    mean_tokens = sizes[filled].mean() if filled.any() else 0.0
    idf = np.log1p(mean_tokens / np.maximum(word_totals, 1e-300))
    scale = sp.diags(np.where(filled, 1.0 / np.maximum(sizes, 1e-300), 0.0))
    return (scale @ per_cluster @ sp.diags(idf)).tocsr()


def top_words_of_rows(weights: sp.csr_matrix, vocabulary, n: int = 10):
    """The ``n`` heaviest words of each row, as ``[(word, weight), ...]`` per row."""
    result = []
    for row in range(weights.shape[0]):
        start, end = weights.indptr[row], weights.indptr[row + 1]
        columns, values = weights.indices[start:end], weights.data[start:end]
        order = np.lexsort((columns, -values))[:n]
        result.append([(str(vocabulary[columns[i]]), float(values[i]))
                       for i in order if values[i] > 0])
    return result


def representatives(members: list[np.ndarray], features, directions, n: int = 3):
    """The ``n`` members of each cluster scoring highest against its direction.

    Parameters
    ----------
    members : list of int arrays
        Each cluster's documents (:func:`cluster_members`).
    features : sparse or dense matrix of shape (n_documents, n_features)
        What a document is scored on: its distinct words (0/1 counts) against the
        cluster's top-word weights, or its unit vector against the cluster's centre.
    directions : sparse or dense matrix of shape (n_clusters, n_features)
    n : int

    Returns
    -------
    list of int arrays
        Per cluster, up to ``n`` document positions, best first (ties: file order).

    Examples
    --------
    >>> import numpy as np
    >>> F = np.array([[1., 0.], [0., 1.], [1., 1.]])
    >>> [r.tolist() for r in representatives([np.array([0, 1, 2])], F, np.array([[1., 0.]]), 2)]
    [[0, 2]]
    """
    chosen = []
    dense_directions = sp.issparse(directions)
    for cluster, rows in enumerate(members):
        if rows.size == 0:
            chosen.append(rows)
            continue
        direction = directions[cluster]
        direction = (direction.toarray() if dense_directions else np.asarray(direction)).ravel()
        # One product per cluster, over its members only.
        scores = np.asarray(features[rows] @ direction).ravel()
        order = np.lexsort((rows, -scores))[:n]
        chosen.append(rows[order])
    return chosen


def merge_clusters(labels, profiles, target: int | None = None, min_size: int = 0):
    """Merge clusters, the smallest first into its most similar, until none is left to merge.

    A cluster is merged while more than ``target`` clusters are non-empty or while it has
    fewer than ``min_size`` members (and another cluster is left). Its similarity to the
    others is the cosine of their ``profiles`` rows (class TF-IDF, or centres), which are
    summed weighted by size when two clusters merge.

    Parameters
    ----------
    labels : array of int of shape (n_documents,)
        Negative labels (no cluster) are left out.
    profiles : sparse or dense matrix of shape (n_clusters, n_features)
    target : int, optional
        Clusters wanted at most.
    min_size : int
        Smallest cluster kept.

    Returns
    -------
    ndarray of int64 of shape (n_clusters,)
        The new cluster of each old one (``mapping[labels]`` are the new labels), numbered
        0.. by decreasing size; -1 for an old cluster that had no document.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[1., 0.], [0., 1.], [0.9, 0.1]])
    >>> merge_clusters([0, 0, 1, 1, 2], P, target=2).tolist()
    [0, 1, 0]
    """
    labels = np.asarray(labels, dtype=np.int64)
    profiles = profiles.toarray() if sp.issparse(profiles) else np.array(profiles, dtype=float)
    n = profiles.shape[0]
    sizes = np.bincount(labels[labels >= 0], minlength=n).astype(float)
    norms = np.linalg.norm(profiles, axis=1, keepdims=True)
    unit = profiles / np.where(norms > 0, norms, 1.0)
    weighted = unit * sizes[:, None]
    parent = np.arange(n)
    alive = sizes > 0
    target = n if target is None else max(int(target), 1)
    while alive.sum() > 1:
        living = np.flatnonzero(alive)
        smallest = living[np.lexsort((living, sizes[living]))[0]]
        if alive.sum() <= target and sizes[smallest] >= min_size:
            break
        others = living[living != smallest]
        similarity = unit[others] @ unit[smallest]
        into = others[np.lexsort((others, -similarity))[0]]
        weighted[into] += weighted[smallest]
        sizes[into] += sizes[smallest]
        norm = np.linalg.norm(weighted[into])
        unit[into] = weighted[into] / norm if norm > 0 else unit[into]
        sizes[smallest], alive[smallest] = 0, False
        parent[parent == smallest] = into
    parent[~(np.bincount(labels[labels >= 0], minlength=n) > 0)] = -1
    return renumber_by_size(parent, np.bincount(labels[labels >= 0], minlength=n))


def renumber_by_size(labels, weights=None) -> np.ndarray:
    """Labels renumbered 0.. by decreasing cluster size (ties: the lower old label first).

    ``weights``: how much each entry counts (default 1 each); negative labels stay.

    Examples
    --------
    >>> renumber_by_size([5, 2, 2, -1]).tolist()
    [1, 0, 0, -1]
    """
    labels = np.asarray(labels, dtype=np.int64)
    kept = labels >= 0
    weights = np.ones(labels.size) if weights is None else np.asarray(weights, dtype=float)
    values, inverse = np.unique(labels[kept], return_inverse=True)
    sizes = np.bincount(inverse, weights=weights[kept], minlength=values.size)
    order = np.lexsort((values, -sizes))
    mapping = np.empty(values.size, dtype=np.int64)
    mapping[order] = np.arange(values.size)
    result = labels.copy()
    result[kept] = mapping[inverse]
    return result


def keep_top(weights, n: int):
    """Class TF-IDF rows with all but each row's ``n`` heaviest words set to 0."""
    weights = weights.tocsr(copy=True)
    for row in range(weights.shape[0]):
        start, end = weights.indptr[row], weights.indptr[row + 1]
        if end - start > n:
            values = weights.data[start:end]
            cut = np.argsort(-values, kind="stable")[n:]
            values[cut] = 0.0
    weights.eliminate_zeros()
    return weights


def clusters_table(top_words, sizes, chosen, texts, n_representatives: int = 3):
    """The ``clusters_`` table of :class:`~.text_clusterer.TextClusterer`: one row per
    cluster with its size, top words, weights and representative texts (and rows, from 1)."""
    import pandas as pd

    rows = []
    for cluster, (words, size, positions) in enumerate(zip(top_words, sizes, chosen)):
        row: dict[str, Any] = {"cluster": cluster, "size": int(size),
                               "top_words": " ".join(word for word, _ in words),
                               "weights": " ".join(f"{weight:.6g}" for _, weight in words)}
        for i in range(n_representatives):
            row[f"representative_{i + 1}"] = texts[positions[i]] if i < len(positions) else ""
        row["representative_rows"] = " ".join(str(int(p) + 1) for p in positions)
        rows.append(row)
    columns = (["cluster", "size", "top_words", "weights"]
               + [f"representative_{i + 1}" for i in range(n_representatives)]
               + ["representative_rows"])
    return pd.DataFrame(rows, columns=columns)
