"""How many clusters: ``n_clusters="auto"``, the procedure every model of :class:`TextClusterer` uses.

The procedure, declared before any benchmark was run on it:

1. **A generous bound.** GSDMM (Yin & Wang 2014) leaves clusters empty when it is given
   more than the data need (their section 4.4: started with K = 500 on sets of 89 and 152
   classes, it ends with about 100 and 200), so it is fitted with the bound
   :func:`upper_bound` = ``min(300, max(30, 2 sqrt(n)))`` for ``n`` documents, on the
   documents' term counts, with its defaults (alpha = beta = 0.1, 30 sweeps) and the
   clusterer's seed.
2. **Small clusters merged.** A cluster with fewer than :func:`smallest_cluster` =
   ``max(3, n / 1000)`` documents is too small to be a topic; each, smallest first, is
   merged into the cluster whose class-TF-IDF profile is closest (cosine;
   :func:`~.describe.merge_clusters`).
3. **K is what is left.** GSDMM itself keeps this clustering; any other model is fitted with
   ``n_clusters`` = that number (on its own representation: embeddings, TF-IDF, counts).

The number, the bound and how many clusters were merged are reported
(:attr:`TextClusterer.k_choice_`), and ``shortclust cluster`` prints them. ``reduce_to``
merges further afterwards, in the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["KChoice", "estimate_k", "smallest_cluster", "upper_bound"]

#: GSDMM's bound never exceeds this: the sweep's cost grows with the clusters it keeps.
MAX_BOUND = 300


def upper_bound(n_docs: int) -> int:
    """The generous bound on the number of clusters given to GSDMM for ``n_docs`` documents.

    Examples
    --------
    >>> upper_bound(100), upper_bound(2500), upper_bound(200_000)
    (30, 100, 300)
    """
    return int(min(MAX_BOUND, max(30, round(2 * math.sqrt(max(n_docs, 0))))))


def smallest_cluster(n_docs: int) -> int:
    """The fewest documents a cluster may keep under ``n_clusters="auto"``.

    Examples
    --------
    >>> smallest_cluster(2000), smallest_cluster(20000)
    (3, 20)
    """
    return int(max(3, math.ceil(n_docs / 1000)))


#: The criteria over a grid of K (:mod:`.reduced`), as a report names them.
_CRITERIA = {"silhouette": "silhouette", "calinski": "Calinski-Harabasz index",
             "silhouette-cosine": "silhouette (cosine, in the MiniLM space)"}


@dataclass
class KChoice:
    """How the number of clusters was chosen.

    Attributes
    ----------
    n_clusters : int
        The number chosen.
    method : str
        ``"given"`` (an integer was passed), ``"auto"``, a procedure of
        :mod:`.reduced` (``"hdbscan"``, ``"silhouette"``, ...) or ``"model"`` (a model that
        chooses it itself, GSDPMM).
    bound : int or None
        GSDMM's bound (``auto``), or the number asked for (``given``).
    found : int or None
        Non-empty clusters GSDMM (``auto``) or the model (``given``) ended with, before
        merging.
    min_size : int or None
        The smallest cluster kept.
    reduced_to : int or None
        ``reduce_to``, when it merged further.
    noise : int or None
        HDBSCAN's outliers, moved to their nearest cluster (``"hdbscan"`` only).
    space : str or None
        What was clustered, when not word counts (``"MiniLM embeddings reduced by UMAP to 5
        dimensions"``).
    grid : list of int or None
        A grid procedure's K: smallest, largest, number of values.
    score : float or None
        The criterion's value at the K chosen (silhouette, Calinski-Harabasz).
    """

    n_clusters: int
    method: str
    bound: int | None = None
    found: int | None = None
    min_size: int | None = None
    reduced_to: int | None = None
    noise: int | None = None
    space: str | None = None
    grid: list | None = None
    score: float | None = None

    def sentence(self) -> str:
        """One line saying how the number was chosen, for reports."""
        if self.method == "given" and None not in (self.found, self.bound) \
                and self.found < self.bound:
            # GSDMM, say, takes K as a bound and may leave clusters empty.
            text = (f"{self.bound} clusters asked for (--n-clusters); {self.found} of them "
                    "kept documents")
        elif self.method == "given":
            text = f"{self.n_clusters} clusters asked for (--n-clusters)"
        elif self.method == "model":
            text = f"{self.n_clusters} clusters, a number the model chose itself"
        elif self.method == "hdbscan":
            text = (f"{self.n_clusters} clusters found by HDBSCAN (min_cluster_size "
                    f"{self.min_size}) on {self.space}; its {self.noise} outliers joined "
                    "their nearest cluster")
        elif self.method == "hdbscan-kmeans":
            text = (f"{self.n_clusters} clusters, the number HDBSCAN (min_cluster_size "
                    f"{self.min_size}) found on {self.space}; then k-means with that number "
                    "on every text")
        elif self.method in _CRITERIA:
            low, high, size = self.grid
            text = (f"{self.n_clusters} clusters chosen by the highest {_CRITERIA[self.method]} "
                    f"({self.score}) of k-means over {size} values of K from {low} to {high} "
                    f"on {self.space}")
        else:
            text = (f"{self.n_clusters} clusters chosen by n_clusters=auto: GSDMM with a "
                    f"bound of {self.bound} found {self.found}, and clusters of fewer than "
                    f"{self.min_size} documents were merged into their closest")
            if self.space:
                text += f"; then k-means with that number on {self.space}"
        if self.reduced_to is not None:
            text += f"; merged into {self.reduced_to} by --reduce-to"
        return text

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def estimate_k(counts, random_state=0, callback=None):
    """Steps 1 and 2 of the procedure: GSDMM with the bound, its small clusters merged.

    Parameters
    ----------
    counts : scipy.sparse.csr_matrix
        The documents' term counts.
    random_state : int
        GSDMM's seed.

    Returns
    -------
    mapping : ndarray of int64
        The merged cluster of each of GSDMM's clusters (``mapping[model.labels_]``),
        numbered by decreasing size.
    choice : KChoice
    model : GSDMM
        The fitted model (its own labels are those before the merge).
    """
    from shortclust.apps.describe import class_tfidf, merge_clusters
    from shortclust.models import get_model_class

    n_docs = counts.shape[0]
    bound = min(upper_bound(n_docs), n_docs)
    model = get_model_class("gsdmm")(n_clusters=bound, random_state=random_state)
    model.fit(counts, callback=callback)
    found = int(model.n_clusters_)
    min_size = smallest_cluster(n_docs)
    mapping = merge_clusters(model.labels_, class_tfidf(counts, model.labels_),
                             min_size=min_size)
    choice = KChoice(int(mapping.max(initial=-1)) + 1, "auto", bound, found, min_size)
    return mapping, choice, model
