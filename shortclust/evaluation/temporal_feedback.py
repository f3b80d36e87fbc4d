"""TMS: temporal feedback by kernel density estimation (Efron, Lin, He & de Vries, SIGIR 2014).

The DCT paper's Table 2 baseline. Starting from an initial ranking by query likelihood,
the times of the top ``k`` documents, weighted by their retrieval scores, give a kernel
density estimate of when the query's relevant documents were written, ``f(t | q)``; every
document is then re-scored in a log-linear model of its lexical and temporal evidence::

    score(d) = log P(q | d) + gamma log f(t_d | q)
    f(t | q) = sum_{i in top k} w_i K_h(t - t_i),   K_h Gaussian of bandwidth h,
    w_i = P(q | d_i) / sum_{j in top k} P(q | d_j)

``gamma = 0`` is the initial ranking. The paper itself is not in ``../shared/papers``: this
follows what its public abstract and summaries state (a kernel density estimate of the
temporal density of relevance f(T|Q) from an initial result set, weighted uniformly, by
score or by rank, combined with the lexical score in a log-linear model). **Assumed**,
as nothing public at hand fixes them: score-based weights (the initial scores normalised
over the feedback set), ``k = 50`` feedback documents, a Gaussian kernel whose bandwidth is
Silverman's rule of thumb ``1.06 sigma n^(-1/5)`` over the weighted feedback times (at
least one hour, so a burst of tweets in the same minute does not give a spike), and
``gamma`` tuned with the other parameters by the retrieval protocol.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FEEDBACK_DOCS", "MIN_BANDWIDTH_DAYS", "feedback_log_density"]

#: Documents of the initial ranking whose times make the density (assumed; see above).
FEEDBACK_DOCS = 50
#: Smallest kernel bandwidth, in days (one hour).
MIN_BANDWIDTH_DAYS = 1.0 / 24.0


def feedback_log_density(scores, times, k=FEEDBACK_DOCS):
    """``log f(t_d | q)`` of every document from the top ``k`` of an initial ranking.

    Parameters
    ----------
    scores : ndarray of shape (n_documents,)
        The initial ranking's ``log P(q | d)`` (``-inf`` allowed: such documents are
        never feedback).
    times : ndarray of shape (n_documents,)
        Each document's time in days (any origin).
    k : int
        Feedback documents; fewer when fewer have a finite score.

    Returns
    -------
    ndarray of shape (n_documents,)
        Natural logs of the weighted Gaussian kernel density at each document's time;
        zeros (no temporal evidence) when no document has a finite score.

    Examples
    --------
    >>> import numpy as np
    >>> log_f = feedback_log_density(np.array([0.0, -1.0, -50.0, -60.0]),
    ...                              np.array([1.0, 1.2, 9.0, 1.1]), k=2)
    >>> bool(log_f[3] > log_f[2])  # near the feedback documents' times
    True
    """
    scores = np.asarray(scores, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    finite = np.flatnonzero(np.isfinite(scores))
    if finite.size == 0:
        return np.zeros(scores.shape[0])
    # Top k by score, ties by position (earliest first), as the rankings break them.
    top = finite[np.lexsort((finite, -scores[finite]))[:k]]
    weights = np.exp(scores[top] - scores[top].max())
    weights /= weights.sum()
    centre = np.dot(weights, times[top])
    sigma = np.sqrt(np.dot(weights, (times[top] - centre) ** 2))
    bandwidth = max(1.06 * sigma * top.size ** -0.2, MIN_BANDWIDTH_DAYS)
    # log sum_i w_i N(t; t_i, h^2), through logs (a far document's density underflows).
    z = (times[:, None] - times[top][None, :]) / bandwidth
    terms = np.log(weights)[None, :] - 0.5 * z * z
    largest = terms.max(axis=1)
    return (largest + np.log(np.exp(terms - largest[:, None]).sum(axis=1))
            - np.log(bandwidth * np.sqrt(2.0 * np.pi)))
