"""New texts for a model without ``predict``: the nearest centre of its clusters.

HAC (every linkage), iterative classification, K-means-- and HDBSCAN partition the
documents they were fitted on and have no rule for a new one. :class:`~.text_clusterer.
TextClusterer` gives them K-means' rule: a new document joins the cluster whose centre
(the mean of its members' unit vectors, in the representation the model was fitted on:
embeddings or TF-IDF) is nearest in Euclidean distance. The rule is a fitted
:class:`~shortclust.models.kmeans.kmeans.KMeans` whose centres are those means, so it saves
and loads in the model-file format as any K-means model does, and the model file says so
(the clusterer's ``predictor`` is ``"nearest_centre"``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PREDICTOR", "centre_predictor"]

#: The clusterer record's ``predictor`` of a model predicted by its nearest centre.
PREDICTOR = "nearest_centre"


def centre_predictor(features, labels, random_state=None):
    """A fitted K-means model whose centres are the clusters' mean unit vectors.

    Parameters
    ----------
    features : array-like or sparse matrix of shape (n_documents, n_features), float
        The document vectors the model was fitted on (l2-normalised here).
    labels : array-like of int of shape (n_documents,)
        The model's clusters, ``0..K-1``; documents labelled < 0 (noise) are left out.
    random_state : int or None
        Recorded as the K-means model's parameter (nothing is drawn).

    Returns
    -------
    KMeans
        Fitted: ``predict`` gives the nearest centre. Its ``labels_`` are ``labels``
        (noise, if any, at its nearest centre) and ``n_iter_`` is 0.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> model = centre_predictor(X, [0, 0, 1, 1])
    >>> model.predict(np.array([[1.0, 0.2], [0.2, 1.0]])).tolist()
    [0, 1]
    """
    from shortclust.models.common.tfidf import nearest_centre, unit_vectors
    from shortclust.models.kmeans.kmeans import KMeans

    from shortclust.apps.describe import _indicator

    vectors, _ = unit_vectors(features)
    labels = np.asarray(labels, dtype=np.int64)
    n = int(labels.max(initial=-1)) + 1
    kept = labels >= 0
    sizes = np.bincount(labels[kept], minlength=n).astype(np.float64)
    summed = _indicator(labels[kept], n) @ vectors[np.flatnonzero(kept)]
    summed = summed.toarray() if hasattr(summed, "toarray") else np.asarray(summed)
    centres = summed / np.maximum(sizes, 1.0)[:, None]
    model = KMeans(n_clusters=max(n, 1), n_init=1, random_state=random_state)
    model.n_features_in_ = vectors.shape[1]
    model.cluster_centers_ = centres
    model.idf_ = None
    model._transformer = None
    model.vocabulary_ = None
    model.labels_ = labels.copy()
    if n and not kept.all():
        model.labels_[~kept] = nearest_centre(vectors[np.flatnonzero(~kept)], centres)
    model.n_clusters_ = int(np.count_nonzero(np.bincount(model.labels_, minlength=n)))
    model.n_iter_ = 0
    squared = np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel() \
        if hasattr(vectors, "multiply") else np.einsum("ij,ij->i", vectors, vectors)
    nearest = centres[model.labels_]
    cross = np.asarray(vectors.multiply(nearest).sum(axis=1)).ravel() \
        if hasattr(vectors, "multiply") else np.einsum("ij,ij->i", vectors, nearest)
    model.inertia_ = float(np.maximum(
        squared - 2 * cross + np.einsum("ij,ij->i", nearest, nearest), 0.0).sum())
    return model
