"""The embeddings path of :class:`~shortclust.apps.text_clusterer.TextClusterer`: sentence
embeddings reduced by UMAP, clustered there, the number of clusters chosen there.

The candidates of the defaults protocol (``benchmarks/defaults_protocol.py``), declared
before it was run, and why:

- **UMAP with BERTopic 0.17's settings** (``n_components=5``, ``n_neighbors=15``,
  ``min_dist=0.0``, cosine; McInnes, Healy & Melville 2018): 384-d MiniLM vectors are
  nearly equidistant, so density (HDBSCAN) and spread (silhouette) read badly there; UMAP
  keeps the neighbourhoods and packs them into compact groups, which is why BERTopic
  (Grootendorst 2022) reduces before clustering. The seed is the clusterer's
  (``random_state``), so UMAP runs on one thread and the same seed gives the same vectors.
- **K procedures on the reduced vectors** (:data:`PROCEDURES`):

  * ``"hdbscan"``: HDBSCAN (Campello, Moulavi & Sander 2013; scikit-learn's, excess of
    mass) with ``min_cluster_size`` = ``max(10, n/1000)`` (BERTopic's 10, and the
    smallest cluster of :mod:`.choose_k` on large sets). K is the count it finds. Unlike
    BERTopic, its outliers are not left as one lump (-1): each joins the cluster whose
    centre (in the reduced space) is nearest, so every text gets a topic.
  * ``"silhouette"``: k-means at each K of a geometric grid of :data:`GRID_SIZE` + 1 (13)
    values from 2 to :func:`~.choose_k.upper_bound` (n); the K of highest silhouette (Rousseeuw
    1987; Euclidean on the reduced vectors, on at most :data:`SILHOUETTE_SAMPLE` texts drawn
    with the seed) is kept, with its clustering.
  * ``"gsdmm"``: the number of :mod:`.choose_k` (GSDMM with a generous bound on the word
    counts, small clusters merged), then k-means at that K on the reduced vectors.
  * an integer: k-means at that K on the reduced vectors.

  The protocol's second round (declared before it was fitted; the reasons in
  ``benchmarks/defaults_protocol.py``) added three procedures against the silhouette's
  known failure there, too few clusters (11 for 26 crisis events, 7 for 20 newsgroups):

  * ``"calinski"``: the same grid and k-means runs as ``"silhouette"``, the K of highest
    Calinski-Harabasz index (Calinski & Harabasz 1974: between- over within-cluster
    dispersion, each per degree of freedom).
  * ``"silhouette-cosine"``: the same grid and k-means runs, the silhouette measured with
    the cosine distance in the MiniLM space (before UMAP), where the clusters are predicted.
  * ``"hdbscan-kmeans"``: K the number of clusters HDBSCAN finds (as ``"hdbscan"``), then
    k-means at that K on every reduced vector (no outlier joined after the fact).

- **Prediction** does not need UMAP: each cluster's centre is the mean unit MiniLM vector
  of its members, and a new text goes to the nearest centre (cosine). The fitted predictor
  is a :class:`~shortclust.models.kmeans.KMeans` holding those centres
  (:func:`~.nearest_centre.centre_predictor`), so the model file
  and ``shortclust predict`` are those of any K-means on embeddings (no UMAP object is
  saved, so no code runs on loading).
"""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np

__all__ = ["GRID_SIZE", "PROCEDURES", "REDUCED_ONLY", "UMAP_SETTINGS", "check_k_settings",
           "cluster_reduced", "fit_reduced", "k_grid", "reduce"]

#: The K procedures on reduced vectors (``n_clusters=`` of TextClusterer besides integers).
PROCEDURES = ("hdbscan", "silhouette", "gsdmm", "calinski", "silhouette-cosine",
              "hdbscan-kmeans")
#: The procedures that pick K over :func:`k_grid` by a criterion (the others: HDBSCAN, GSDMM).
GRID_CRITERIA = ("silhouette", "calinski", "silhouette-cosine")
#: The procedures that work only on embeddings (GSDMM's works on word counts too).
REDUCED_ONLY = tuple(name for name in PROCEDURES if name != "gsdmm")
#: BERTopic 0.17's UMAP settings (``n_components`` is TextClusterer's ``umap_dims``).
UMAP_SETTINGS = {"n_neighbors": 15, "min_dist": 0.0, "metric": "cosine"}
#: Steps of the silhouette procedure's geometric grid of K (it tries GRID_SIZE + 1 values,
#: fewer when rounding repeats one).
GRID_SIZE = 12
#: Most texts the silhouette is computed on (a seeded sample above it).
SILHOUETTE_SAMPLE = 3000
#: Lloyd restarts of every k-means on the reduced vectors.
N_INIT = 5


def check_k_settings(model, embeddings, umap_dims, n_clusters):
    """Refuse, in one line, a malformed ``n_clusters`` or ``umap_dims``, and UMAP or a
    procedure of this module without embeddings or with a model other than k-means (the
    clusters are predicted by their centres)."""
    from shortclust.errors import ConfigError, ParameterError

    if not (n_clusters == "auto" or n_clusters in PROCEDURES or (
            isinstance(n_clusters, (int, np.integer)) and not isinstance(n_clusters, bool)
            and n_clusters >= 1)):
        raise ParameterError(f"n_clusters must be 'auto', {', '.join(PROCEDURES)} or an "
                             f"integer >= 1, got {n_clusters!r}")
    if not (isinstance(umap_dims, (int, np.integer)) and not isinstance(umap_dims, bool)
            and umap_dims >= 0):
        raise ParameterError(f"umap_dims must be an integer >= 0 (0: no UMAP), got "
                             f"{umap_dims!r}")
    reduced = bool(umap_dims) or n_clusters in REDUCED_ONLY
    if reduced and embeddings is None:
        raise ConfigError("UMAP, hdbscan and silhouette work on embeddings: add "
                          "embeddings='minilm' (--embeddings minilm)")
    if reduced and model != "kmeans":
        raise ConfigError(f"with UMAP, hdbscan or silhouette the clusters are found on the "
                          f"reduced embeddings and predicted by their centres (model kmeans), "
                          f"not by '{model}': leave --model out")


def reduce(vectors, n_components, random_state=0):
    """``vectors`` reduced by UMAP to ``n_components`` dimensions (:data:`UMAP_SETTINGS`).

    Raises
    ------
    ConfigError
        Without umap-learn (the ``embeddings`` extra).
    """
    try:
        import umap
    except ImportError:
        from shortclust.errors import ConfigError

        raise ConfigError("reducing embeddings needs umap-learn: pip install "
                          "'shortclust[embeddings]', or pass umap_dims=0 (--umap 0)") from None
    from shortclust.representations import cache_dir, cached_array

    # Cached on disk by the vectors' bytes, settings, seed and umap-learn's version: UMAP is
    # the slowest step after embedding, and the same texts are often clustered again.
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    identity = json.dumps({"sha256": hashlib.sha256(vectors.tobytes()).hexdigest(),
                           "shape": list(vectors.shape), "dims": int(n_components),
                           "settings": UMAP_SETTINGS, "seed": int(random_state),
                           "umap": umap.__version__}, sort_keys=True)
    path = cache_dir() / f"umap-{hashlib.sha256(identity.encode()).hexdigest()[:32]}.npy"

    def fit_umap():
        n = vectors.shape[0]
        # UMAP needs more neighbours than it is asked for and more texts than dimensions + 1.
        neighbours = max(2, min(UMAP_SETTINGS["n_neighbors"], n - 1))
        reducer = umap.UMAP(n_components=int(min(n_components, max(1, n - 2))),
                            n_neighbors=neighbours, min_dist=UMAP_SETTINGS["min_dist"],
                            metric=UMAP_SETTINGS["metric"], random_state=int(random_state))
        return np.asarray(reducer.fit_transform(vectors), dtype=np.float64)

    return cached_array(path, fit_umap)


def k_grid(n_docs):
    """The K tried by the silhouette procedure: a geometric grid from 2 to the bound.

    Examples
    --------
    >>> k_grid(3000)
    [2, 3, 4, 5, 8, 11, 15, 21, 29, 40, 56, 79, 110]
    """
    from shortclust.apps.choose_k import upper_bound

    top = max(2, min(upper_bound(n_docs), n_docs - 1))
    grid = np.unique(np.round(np.geomspace(2, top, GRID_SIZE + 1)).astype(int))
    return [int(k) for k in grid]


def _kmeans(reduced, k, random_state):
    from sklearn.cluster import KMeans

    from shortclust.models.common.tfidf import sklearn_random_state

    run = KMeans(n_clusters=int(k), n_init=N_INIT, random_state=sklearn_random_state(
        random_state)).fit(reduced)
    return run.labels_.astype(np.int64)


def hdbscan_min_size(n_docs):
    """HDBSCAN's ``min_cluster_size`` for ``n_docs`` texts: ``max(10, n/1000)``.

    Examples
    --------
    >>> hdbscan_min_size(3000), hdbscan_min_size(200_000)
    (10, 200)
    """
    return int(max(10, math.ceil(n_docs / 1000)))


def _hdbscan(reduced):
    """HDBSCAN's clusters with each outlier moved to the nearest cluster centre."""
    from sklearn.cluster import HDBSCAN

    from shortclust.models.common.tfidf import nearest_centre

    min_size = hdbscan_min_size(reduced.shape[0])
    labels = HDBSCAN(min_cluster_size=min_size, copy=True).fit(reduced).labels_
    labels = labels.astype(np.int64)
    noise = labels < 0
    if noise.all():  # no density structure at all: one cluster
        return np.zeros(labels.size, dtype=np.int64), int(noise.sum()), min_size
    n = int(labels.max()) + 1
    centres = np.vstack([reduced[labels == c].mean(axis=0) for c in range(n)])
    if noise.any():
        labels[noise] = nearest_centre(reduced[noise], centres)
    return labels, int(noise.sum()), min_size


def _grid_choice(reduced, criterion, random_state, features=None):
    """k-means at every K of :func:`k_grid`; the K (and clustering) of the best
    ``criterion`` (:data:`GRID_CRITERIA`). Returns ``(labels, k, score, grid)``."""
    from sklearn.metrics import calinski_harabasz_score, silhouette_score

    n = reduced.shape[0]
    grid = k_grid(n)
    sample = min(n, SILHOUETTE_SAMPLE)
    best = None
    for k in grid:
        labels = _kmeans(reduced, k, random_state)
        if len(np.unique(labels)) < 2:
            continue
        if criterion == "calinski":
            score = calinski_harabasz_score(reduced, labels)
        elif criterion == "silhouette-cosine":
            score = silhouette_score(features, labels, metric="cosine", sample_size=sample,
                                     random_state=int(random_state))
        else:
            score = silhouette_score(reduced, labels, sample_size=sample,
                                     random_state=int(random_state))
        if best is None or score > best[0]:
            best = (score, k, labels)
    if best is None:
        return np.zeros(n, dtype=np.int64), 1, float("nan"), grid
    score, k, labels = best
    return labels, k, score, grid


def cluster_reduced(reduced, procedure, random_state=0, counts=None, umap_dims=None,
                    features=None):
    """Cluster reduced vectors, the number chosen by ``procedure``.

    Parameters
    ----------
    reduced : ndarray of shape (n_texts, d)
    procedure : one of :data:`PROCEDURES`, or int
    random_state : int
    counts : sparse matrix, optional
        The texts' word counts (``"gsdmm"`` only).
    umap_dims : int or None
        The UMAP dimensions, for the report (None: not reduced).
    features : ndarray, optional
        The vectors before UMAP (``"silhouette-cosine"`` only; default ``reduced``).

    Returns
    -------
    labels : ndarray of int64
    choice : KChoice
    """
    from shortclust.apps.choose_k import KChoice, estimate_k

    space = (f"MiniLM embeddings reduced by UMAP to {umap_dims} dimensions" if umap_dims
             else "MiniLM embeddings")
    n = reduced.shape[0]
    if procedure in ("hdbscan", "hdbscan-kmeans"):
        labels, noise, min_size = _hdbscan(reduced)
        choice = KChoice(int(labels.max()) + 1, procedure, min_size=min_size, noise=noise,
                         space=space)
        if procedure == "hdbscan-kmeans":
            labels = _kmeans(reduced, choice.n_clusters, random_state)
    elif procedure in GRID_CRITERIA:
        labels, k, score, grid = _grid_choice(
            reduced, procedure, random_state, reduced if features is None else features)
        choice = KChoice(int(k), procedure, grid=[grid[0], grid[-1], len(grid)],
                         score=round(float(score), 4), space=space)
    elif procedure == "gsdmm":
        mapping, choice, gsdmm = estimate_k(counts, random_state)
        choice.space = space
        labels = _kmeans(reduced, min(choice.n_clusters, n), random_state)
    else:
        choice = KChoice(int(procedure), "given", space=space)
        labels = _kmeans(reduced, min(int(procedure), n), random_state)
    return labels, choice


def fit_reduced(features, counts, umap_dims, n_clusters, random_state=0, say=None):
    """The embedding path of TextClusterer: UMAP (``umap_dims`` > 0), the clusters and
    their number (``n_clusters``: a procedure or an integer; ``"auto"``: ``"gsdmm"``), and
    the nearest-centre predictor in the embedding space.

    Returns
    -------
    model : KMeans
        Fitted, its ``labels_`` the clusters found (:func:`~.nearest_centre.centre_predictor`).
    choice : KChoice
    """
    from shortclust.apps.nearest_centre import centre_predictor

    say = say or (lambda message: None)
    space = features
    if umap_dims:
        say(f"reducing the embeddings to {umap_dims} dimensions (UMAP)")
        space = reduce(features, umap_dims, random_state)
    procedure = "gsdmm" if n_clusters == "auto" else n_clusters
    say(f"clustering the embeddings (number of clusters: {procedure})")
    labels, choice = cluster_reduced(space, procedure, random_state, counts,
                                    umap_dims or None, features)
    return centre_predictor(features, labels, random_state), choice
