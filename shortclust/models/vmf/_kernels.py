"""Compiled online vMF pass (Banerjee & Basu, SDM 2007, section 3.1).

Private: use :meth:`shortclust.models.vmf.movmf.MovMF.partial_fit`.

Each document x (a unit row, or a zero row for an empty document) is assigned to its most
probable component, ``argmax_h bias_h + slope_h mu_h^T x`` (``bias = log alpha + log
c_d(kappa)`` and ``slope = kappa`` for a fitted mixture; ``bias = 0`` and ``slope = 1``,
i.e. the nearest mean by cosine, for spherical k-means, the case the paper's online vMF
is built on), and only that component's mean moves (section 3.1)::

    c_h <- (1 - 1/L) c_h + 1,        mu_h <- (mu_h + (x - mu_h) / c_h) / ||...||.

Ties go to the lowest component. An empty document has no direction: it goes to the
largest prior weight (``log_prior``) and moves nothing. While a component has no mean yet
(fewer documents than components have arrived), the next non-empty document starts it:
its mean becomes that document and its count 1 (the recursion from ``c = 0``).

Lazy normalisation: the mean of component h is kept as ``mu_h = v_h / ||v_h||`` (column h of
``V``, ``d x K`` so that one word's K weights are contiguous), with ``||v_h||^2`` in
``norm2[h]``. The update ``mu + (x - mu)/c`` is proportional to ``v + a x`` with
``a = ||v|| / (c - 1)``, which touches only the words of x; ``||v + a x||^2`` follows from
``v^T x``, already computed for the assignment. So a document costs O(K nnz(x)), not
O(K d). When ``||v_h||`` grows past 1e100 the column is rescaled to unit length (O(d)).
"""

import numpy as np
from numba import njit

_RESCALE_ABOVE = 1e200  # norm2 threshold: ||v|| > 1e100


@njit(cache=True)
def online_vmf_pass(indptr, indices, data, V, norm2, counts, started, bias, slope,
                    log_prior, decay, labels):
    """Assign and absorb the rows of one CSR batch in order; return (cosine sum, count).

    Parameters
    ----------
    indptr, indices, data : ndarray
        The batch as CSR (float64 data, unit or zero rows).
    V : ndarray of shape (d, K), float64, C order
        Unnormalised means (column h is proportional to mu_h); updated in place.
    norm2 : ndarray of shape (K,)
        ``||V[:, h]||^2``; updated in place.
    counts : ndarray of shape (K,)
        Effective counts c_h; updated in place.
    started : ndarray of shape (K,), bool
        Whether component h has a mean; updated in place.
    bias, slope : ndarray of shape (K,)
        Score ``bias_h + slope_h mu_h^T x`` (module docstring).
    log_prior : ndarray of shape (K,)
        Where empty documents go (the largest).
    decay : float
        ``1 - 1/L`` (1.0 for an unlimited memory: the running mean).
    labels : ndarray of shape (n_rows,), int64
        Filled with each row's component.

    Returns
    -------
    cosine_sum : float
        Sum of ``mu_h^T x`` over the documents assigned to a started component, with
        the mean before the update (the pooled resultant of spherical k-means).
    n_cosines : int
        How many documents that sum holds.
    """
    d, K = V.shape
    dots = np.empty(K)
    cosine_sum = 0.0
    n_cosines = 0
    empty_label = 0
    for k in range(1, K):
        if log_prior[k] > log_prior[empty_label]:
            empty_label = k
    for i in range(indptr.size - 1):
        start, stop = indptr[i], indptr[i + 1]
        x_norm2 = 0.0
        for j in range(start, stop):
            x_norm2 += data[j] * data[j]
        if x_norm2 == 0.0:
            labels[i] = empty_label
            continue
        fresh = -1
        for k in range(K):
            if not started[k]:
                fresh = k
                break
        if fresh >= 0:
            _restart(V, norm2, counts, fresh, indices, data, start, stop, x_norm2)
            started[fresh] = True
            labels[i] = fresh
            continue
        dots[:] = 0.0
        for j in range(start, stop):
            row = indices[j]
            value = data[j]
            for k in range(K):
                dots[k] += V[row, k] * value
        best = 0
        best_score = -np.inf
        for k in range(K):
            score = bias[k] + slope[k] * dots[k] / np.sqrt(norm2[k])
            if score > best_score:
                best, best_score = k, score
        labels[i] = best
        cosine_sum += dots[best] / np.sqrt(norm2[best])
        n_cosines += 1
        count = decay * counts[best] + 1.0
        counts[best] = count
        if count <= 1.0:  # the old mean has weight 1 - 1/c = 0
            _restart(V, norm2, counts, best, indices, data, start, stop, x_norm2)
            continue
        step = np.sqrt(norm2[best]) / (count - 1.0)
        norm2[best] += 2.0 * step * dots[best] + step * step * x_norm2
        for j in range(start, stop):
            V[indices[j], best] += step * data[j]
        if norm2[best] > _RESCALE_ABOVE:
            _rescale(V, norm2, best)
    return cosine_sum, n_cosines


@njit(cache=True)
def _restart(V, norm2, counts, h, indices, data, start, stop, x_norm2):
    """Make document ``data[start:stop]`` the whole mean of component h, count 1."""
    V[:, h] = 0.0
    for j in range(start, stop):
        V[indices[j], h] = data[j]
    norm2[h] = x_norm2
    counts[h] = 1.0


@njit(cache=True)
def _rescale(V, norm2, h):
    """Scale column h to unit length and recompute its squared norm exactly."""
    scale = 1.0 / np.sqrt(norm2[h])
    total = 0.0
    for row in range(V.shape[0]):
        V[row, h] *= scale
        total += V[row, h] * V[row, h]
    norm2[h] = total
