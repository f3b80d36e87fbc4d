"""Ranking metrics with binary relevance: NDCG, AP, Recall, R-precision, P@k.

The measures of the TREC Microblog tracks that Liang, Yilmaz & Kanoulas (KDD 2016, section
5.3) report, computed as ``trec_eval`` computes them (and so ``ir-measures``; the tests
compare), over a ranking cut at ``depth`` documents (1000 here, as TREC runs are):

- ``ndcg``: NDCG at the depth (``ndcg_cut.1000``): gain 1 for a relevant document, 0
  otherwise; discount ``1 / log2(rank + 1)`` (rank 1 is undiscounted); the ideal DCG puts
  ``min(R, depth)`` relevant documents first, R being all relevant documents of the query,
  retrieved or not.
- ``map``: average precision (``map``), the sum of the precision at the rank of each
  relevant document retrieved, divided by R (relevant documents not retrieved count 0).
- ``recall``: relevant documents retrieved in the top ``depth``, divided by R.
- ``rprec``: precision after R documents (``Rprec``): relevant documents in the top R,
  divided by R (when fewer than R are retrieved, those retrieved).
- ``p30``: relevant documents in the top 30, divided by 30 (``P.30``; a ranking shorter
  than 30 is not given credit for its missing ranks).

A query without relevant documents has no value (trec_eval skips it); :func:`ranking_metrics`
refuses it.
"""

from __future__ import annotations

import numpy as np

from shortclust.errors import DataError

__all__ = ["RANKING_METRICS", "METRIC_LABELS", "ranking_metrics", "top_ranked"]

#: The metrics, in the order of the paper's Table 2.
RANKING_METRICS = ("ndcg", "map", "recall", "rprec", "p30")
#: How each is written in a table.
METRIC_LABELS = {"ndcg": "NDCG@1000", "map": "MAP", "recall": "Recall@1000",
                 "rprec": "R-prec", "p30": "P@30"}

_PRECISION_RANK = 30


def ranking_metrics(ranked_relevant, n_relevant, depth=1000) -> dict[str, float]:
    """The five measures of one query's ranking.

    Parameters
    ----------
    ranked_relevant : array-like of bool
        Whether the document at each rank (best first) is relevant. Ranks past ``depth``
        are ignored.
    n_relevant : int
        R, the relevant documents of the query in the whole collection (>= 1, and at least
        the relevant ones in the ranking).
    depth : int, default=1000
        The ranking's cutoff.

    Returns
    -------
    dict
        ``ndcg``, ``map``, ``recall``, ``rprec``, ``p30`` (floats in [0, 1]).

    Raises
    ------
    DataError
        ``n_relevant`` below 1 or below the relevant documents ranked.

    Examples
    --------
    >>> m = ranking_metrics([True, False, True], n_relevant=4)
    >>> round(m["map"], 4), m["recall"], m["rprec"]
    (0.4167, 0.5, 0.5)
    """
    relevant = np.asarray(ranked_relevant, dtype=bool)[:depth]
    hits = np.cumsum(relevant)
    found = int(hits[-1]) if hits.size else 0
    if n_relevant < 1 or found > n_relevant:
        raise DataError(f"a query needs n_relevant >= 1 and at least the {found} relevant "
                        f"documents it ranked, got {n_relevant}")
    ranks = np.arange(1, relevant.size + 1)
    discounts = 1.0 / np.log2(np.arange(2, depth + 2))
    ideal = discounts[:min(n_relevant, depth)].sum()
    return {
        "ndcg": float(discounts[:relevant.size][relevant].sum() / ideal),
        "map": float((hits[relevant] / ranks[relevant]).sum() / n_relevant),
        "recall": found / n_relevant,
        "rprec": int(relevant[:n_relevant].sum()) / n_relevant,
        "p30": int(relevant[:_PRECISION_RANK].sum()) / _PRECISION_RANK,
    }


def top_ranked(scores, depth=1000) -> np.ndarray:
    """Indices of the ``depth`` highest scores, best first; ties by index, lowest first.

    Parameters
    ----------
    scores : ndarray of shape (n_documents,)
        Finite or ``-inf`` (a document of probability 0 ranks last).
    depth : int, default=1000

    Returns
    -------
    ndarray of int64, shape (min(depth, n_documents),)

    Examples
    --------
    >>> top_ranked(np.array([0.5, 2.0, 0.5, -np.inf, 1.0]), depth=4).tolist()
    [1, 4, 0, 2]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if np.isnan(scores).any():
        raise DataError("scores hold NaN: a ranking needs comparable scores")
    n = scores.size
    if n > depth:
        # Keep every document tied with the depth-th score, so ties resolve by index.
        threshold = np.partition(scores, n - depth)[n - depth]
        candidates = np.flatnonzero(scores >= threshold)
    else:
        candidates = np.arange(n)
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:depth].astype(np.int64)
