"""Compiled pieces of the mixture of EDCM distributions. Private: use :class:`EDCM`.

The EDCM distribution (Elkan, ICML 2006; Banerjee & Basu, SDM 2007, section 2.2) of a
document x of n tokens, with parameters beta_j > 0 and s = sum_j beta_j, is::

    q(x | beta) = n! Gamma(s) / Gamma(s + n) prod_{j: x_j >= 1} beta_j / x_j

Its maximum-likelihood (M-step) estimates over documents weighted by r_i are::

    beta_j = sum_i r_i 1(x_ij >= 1) / D(s),   D(s) = sum_i r_i [Psi(s + n_i) - Psi(s)]

and, summing over j, s is the root of ``s D(s) = N`` with N = sum_j sum_i r_i 1(x_ij >= 1)
(the fixed point s = N / D(s)). For integer n, ``Psi(s + n) - Psi(s) = sum_{k<n} 1/(s+k)``
and ``log Gamma(s + n) - log Gamma(s) = sum_{k<n} log(s + k)``: the kernels use these
sums, exact for any s, so no digamma function is needed and a huge s (a component whose
documents repeat no word, the multinomial limit) loses no precision.

Kernels take plain arrays and do no validation. Document lengths given to
:func:`precision_sums` and :func:`solve_precision` must be sorted ascending (one scan
over k = 0..max(n)-1 serves them all).
"""

import math

import numpy as np
from numba import njit

# The range searched for s. Below S_MIN every component behaves as s -> 0; S_MAX stands
# for s -> infinity, the root when no document of the component repeats a word.
S_MIN = 1e-10
S_MAX = 1e10
# log Gamma(s + n) - log Gamma(s) is summed term by term when n is this small or s this
# large (lgamma's difference would cancel digits), else taken from lgamma.
_DIRECT_N = 16
_LARGE_S = 1e6


@njit(cache=True)
def log_rising(s, n):
    """log Gamma(s + n) - log Gamma(s) = sum_{k<n} log(s + k), for an integer n >= 0."""
    if n <= _DIRECT_N or s > _LARGE_S:
        total = 0.0
        for k in range(n):
            total += math.log(s + k)
        return total
    return math.lgamma(s + n) - math.lgamma(s)


@njit(cache=True)
def log_rising_table(s, lengths):
    """``table[h, l] = log Gamma(s_h + lengths[l]) - log Gamma(s_h)``."""
    table = np.empty((s.shape[0], lengths.shape[0]))
    for h in range(s.shape[0]):
        for idx in range(lengths.shape[0]):
            table[h, idx] = log_rising(s[h], lengths[idx])
    return table


@njit(cache=True)
def precision_sums(s, lengths, weights):
    """D(s) = sum_l w_l [Psi(s + n_l) - Psi(s)] and its derivative dD/ds.

    ``lengths`` ascending; ``dD/ds = -sum_l w_l sum_{k<n_l} 1/(s+k)^2``.
    """
    value, slope, first, second, k = 0.0, 0.0, 0.0, 0.0, 0
    for idx in range(lengths.shape[0]):
        n = lengths[idx]
        while k < n:
            term = 1.0 / (s + k)
            first += term
            second += term * term
            k += 1
        value += weights[idx] * first
        slope -= weights[idx] * second
    return value, slope


@njit(cache=True)
def solve_precision(lengths, weights, total, s_start):
    """The s of the M-step: the root of ``s D(s) = total`` in [S_MIN, S_MAX].

    ``g(s) = s D(s) = sum_l w_l sum_{k<n_l} s/(s+k)`` increases from ``sum_{n_l>=1} w_l``
    (s -> 0) to ``sum_l w_l n_l`` (s -> infinity), so the root is unique when it exists;
    S_MAX (resp. S_MIN) is returned when ``total`` lies above (below) g on the whole range,
    which is then the constrained maximiser. Callers take beta_j = s c_j / total, which is
    c_j / D(s) at the root and the constrained maximiser at a bound (where c_j / D(s)
    would not sum to s). Newton's method on t = log s, kept inside a
    bracket that each step narrows (bisection when a step leaves it), from ``s_start``.
    """
    lo, hi = math.log(S_MIN), math.log(S_MAX)
    value, _ = precision_sums(S_MAX, lengths, weights)
    if S_MAX * value - total <= 0.0:
        return S_MAX
    value, _ = precision_sums(S_MIN, lengths, weights)
    if S_MIN * value - total >= 0.0:
        return S_MIN
    t = min(max(math.log(s_start), lo), hi) if s_start > 0.0 else 0.5 * (lo + hi)
    for _ in range(200):
        s = math.exp(t)
        value, slope = precision_sums(s, lengths, weights)
        gap = s * value - total
        if gap == 0.0:
            return s
        if gap > 0.0:
            hi = t
        else:
            lo = t
        rate = s * (value + s * slope)  # d(s D(s))/dt = s sum w sum k/(s+k)^2 >= 0
        step = gap / rate if rate > 0.0 else np.inf
        t_next = t - step
        if not (lo < t_next < hi):
            t_next = 0.5 * (lo + hi)
        if abs(t_next - t) <= 1e-14 * max(1.0, abs(t)):
            return math.exp(t_next)
        t = t_next
    return math.exp(t)


@njit(cache=True)
def solve_precisions(lengths, weights, totals, s_start, active):
    """:func:`solve_precision` for each component h with ``active[h]``, else s_start[h].

    ``weights[h, l]`` is component h's weight on documents of length ``lengths[l]``.
    """
    s = s_start.copy()
    for h in range(weights.shape[0]):
        if active[h]:
            s[h] = solve_precision(lengths, weights[h], totals[h], s_start[h])
    return s


# --- the online pass (SDM 2007, section 3.2) --------------------------------------------------

@njit(cache=True)
def _doc_words(doc, n_store, store_ptr, store_idx, batch_ptr, batch_idx):
    """Word ids of window document ``doc``: a stored one, or a row of the batch."""
    if doc < n_store:
        return store_idx[store_ptr[doc]:store_ptr[doc + 1]]
    row = doc - n_store
    return batch_idx[batch_ptr[row]:batch_ptr[row + 1]]


@njit(cache=True)
def _score(beta, s, sizes, h, words, n):
    """log of sizes_h q(x | beta_h), without the terms common to every component."""
    score = math.log(sizes[h]) - log_rising(s[h], n)
    for p in range(words.shape[0]):
        value = beta[h, words[p]]
        if value <= 0.0:  # a word the component gives probability 0 (no smoothing)
            return -np.inf
        score += math.log(value)
    return score


@njit(cache=True)
def online_pass(batch, store, params, windows, update_weight, labels):
    """Assign each batch document, in order, and update its component (section 3.2).

    For each document: its most probable component h under the current mixture (Bayes'
    rule, mixing weights proportional to ``sizes``); h's window M_h^L takes the document
    and drops its oldest one when full; the EDCM is re-estimated on the window
    with the equations of section 2.2, each window document of weight 1 and no smoothing
    (:func:`solve_precision`, then beta_hat_j = s df_j / N, N = sum_j df_j: df_j / D(s) at
    the root); and
    beta_h moves to the moving average ``(1 - w) beta_h + w beta_hat`` (s_h = sum_j
    beta_hj follows). Empty documents are assigned but enter no window: they say nothing
    about beta.

    Parameters
    ----------
    batch : tuple (indptr, indices, lengths)
        The batch as CSR word ids and token counts n_i.
    store : tuple (indptr, indices, lengths)
        The documents in the windows before this batch; window ids below their number
        are stored documents, the others batch rows (id - number stored).
    params : tuple (beta, s, sizes)
        Updated in place: beta (K, V), s (K), documents per component (K, float).
    windows : tuple (slots, start, count, df, distinct)
        Updated in place: ``slots[h, :]`` a ring of document ids, ``start[h]`` its
        oldest slot, ``count[h]`` documents held, ``df[h, j]`` documents of the window
        holding word j, ``distinct[h]`` the sum of those (distinct words per document).
    update_weight : float
        w of the moving average.
    labels : ndarray (n_batch,)
        Out: the component of each document.
    """
    batch_ptr, batch_idx, batch_len = batch
    store_ptr, store_idx, store_len = store
    beta, s, sizes = params
    slots, start, count, df, distinct = windows
    n_store, capacity = store_len.shape[0], slots.shape[1]
    window_lengths = np.empty(capacity, dtype=np.int64)
    ones = np.ones(capacity)
    for row in range(batch_len.shape[0]):
        words = batch_idx[batch_ptr[row]:batch_ptr[row + 1]]
        best, best_score = -1, -np.inf
        for h in range(beta.shape[0]):
            if sizes[h] > 0.0:
                score = _score(beta, s, sizes, h, words, batch_len[row])
                if score > best_score:
                    best, best_score = h, score
        if best < 0:  # every component gives the document probability 0 (no smoothing)
            best = int(np.argmax(sizes))
        labels[row] = best
        sizes[best] += 1.0
        if batch_len[row] == 0:
            continue
        h = best
        if count[h] == capacity:  # drop the oldest document of the window
            old = _doc_words(slots[h, start[h]], n_store, store_ptr, store_idx,
                             batch_ptr, batch_idx)
            for p in range(old.shape[0]):
                df[h, old[p]] -= 1
            distinct[h] -= old.shape[0]
            slots[h, start[h]] = n_store + row
            start[h] = (start[h] + 1) % capacity
        else:
            slots[h, (start[h] + count[h]) % capacity] = n_store + row
            count[h] += 1
        for p in range(words.shape[0]):
            df[h, words[p]] += 1
        distinct[h] += words.shape[0]
        for slot in range(count[h]):
            doc = slots[h, (start[h] + slot) % capacity]
            window_lengths[slot] = store_len[doc] if doc < n_store \
                else batch_len[doc - n_store]
        held = np.sort(window_lengths[:count[h]])
        total = float(distinct[h])
        s_hat = solve_precision(held, ones[:count[h]], total, s[h])
        s_new = 0.0
        for j in range(beta.shape[1]):
            estimate = s_hat * df[h, j] / total
            beta[h, j] = (1.0 - update_weight) * beta[h, j] + update_weight * estimate
            s_new += beta[h, j]
        s[h] = s_new
