"""Compiled hot loops of LDA by collapsed Gibbs sampling. Private: use :class:`~shortclust.models.lda.lda.LDA`.

Kernels take plain arrays, do no validation and perform one unit of work per call (a
sweep over a range of documents, a count rebuild, the folding-in of a range of
documents); Python owns the loops over sweeps and over ranges. Arrays:

* the corpus as flat tokens: ``token_ptr`` (int64, one offset per document and one past
  the end: document d's tokens are ``token_ptr[d]:token_ptr[d + 1]``) and ``words``
  (int32 word id of each token), tokens of a document in column order, a word repeated
  as often as it occurs;
* ``z`` (int32): the topic of each token;
* ``n_dk`` (int32, documents x K), ``n_wk`` (word-major, V x K: the row of one word is
  contiguous) and ``n_k`` (K): tokens per document and topic, per word and topic, per
  topic. For the incremental model the topic-word counts are expected counts, float64;
* ``uniforms`` (float64): the U[0, 1) draws, consumed one per sampled token, in order.
  A sweep over documents ``first..last-1`` reads ``uniforms[token - token_ptr[first]]``,
  so Python may draw a sweep's numbers in slices of whole documents: numpy's
  ``Generator.random(a)`` followed by ``random(b)`` gives the numbers of ``random(a + b)``.

The conditional sampled is Griffiths & Steyvers (2004), Eq. 5, as the SDM 2007 paper
writes it (section 2.3)::

    p(z_i = k | z_-i, w) ~ (n_wk[w_i, k] + beta) / (n_k[k] + V beta) * (n_dk[d_i, k] + alpha)

with token i's own assignment left out of the counts (the document's length term,
``n_d - 1 + K alpha``, is the same for every k and is dropped). A topic is drawn by
inverse CDF: the first k whose cumulative weight exceeds ``u * total``, the topics taken
in the order: the token's current topic first, then the others ascending (a Gibbs sweep),
or ascending (folding-in).

Why the sweep is fast:

* Per document, the factor ``coef[k] = (n_dk + alpha) / (n_k + V beta)`` is cached; a
  token changes it for two topics only (the one it leaves and the one it joins), so the
  K weights are one multiply each on the word's row ``n_wk[w, :]``, a loop the compiler
  vectorises (the int32 to float conversion included) and that also sums the total.
* The token's absence is applied to its current topic's weight alone, after the row is
  read, and the counts are written only when the topic changes (taking the token out
  first, then reading the row, was slower: probably the vector read of the row waiting
  on the scalar write to it).
* The current topic is tried first: once the chain has mixed, most tokens stay, which
  one comparison decides, with nothing written. The other tokens walk the weights until
  the cumulative sum passes the target (K/2 steps on average) instead of building a
  prefix sum over all K.
* Counts are int32 (the row of a word is 80 bytes at K = 20): the table of a 30,000-word
  vocabulary stays in the last-level cache.

benchmarks/README.md lists what else was measured (and rejected) and the speed against
tomotopy and the ``lda`` package.
"""

from numba import njit


@njit(cache=True)
def build_counts(token_ptr, words, z, n_dk, n_wk, n_k):
    """Accumulate the count tables from the assignments (zeroed first).

    IN: ``token_ptr``, ``words``, ``z``. OUT: ``n_dk``, ``n_wk``, ``n_k``.
    """
    n_dk[:, :] = 0
    n_wk[:, :] = 0
    n_k[:] = 0
    for d in range(token_ptr.shape[0] - 1):
        for i in range(token_ptr[d], token_ptr[d + 1]):
            k = z[i]
            n_dk[d, k] += 1
            n_wk[words[i], k] += 1
            n_k[k] += 1


@njit(cache=True, fastmath=True)
def _draw(weights, n_topics, total, u):
    """First k with ``weights[0] + ... + weights[k] > u * total`` (the last if none).

    ``total`` is the weights' sum (possibly summed in another order: within rounding,
    the walk may then run past the end, hence the last topic as the fallback).
    """
    target = u * total
    k = 0
    running = weights[0]
    while running <= target and k < n_topics - 1:
        k += 1
        running += weights[k]
    return k


@njit(cache=True, fastmath=True)
def _draw_current_first(weights, n_topics, total, u, current):
    """:func:`_draw` over the topics in the order ``current``, then the others ascending.

    The token's current topic is tried first: once the chain has mixed most tokens stay
    where they are, and then one comparison decides. Inverse-CDF sampling is exact in any
    order fixed before ``u`` is drawn. ``weights[current]`` is set to 0 when passed over.
    """
    target = u * total
    if weights[current] > target:
        return current
    running = weights[current]
    weights[current] = 0.0  # the walk below passes over it without a test
    k = 0
    running += weights[0]
    while running <= target and k < n_topics - 1:
        k += 1
        running += weights[k]
    if k == current:  # the walk ran out (rounding): the last topic of the order
        k = max(n_topics - 2, 0) if current == n_topics - 1 else n_topics - 1
    return k


@njit(cache=True, fastmath=True)
def gibbs_sweep(token_ptr, words, first, last, z, n_dk, n_wk, n_k, alpha, beta, v_beta,
                uniforms, weights, coef):
    """One collapsed Gibbs sweep (Eq. 5) over the tokens of documents ``first..last-1``.

    Each token, in order, gets a topic drawn from Eq. 5 with itself left out of the
    counts (:func:`_draw_current_first`). The counts are read as they are and only the
    current topic's weight is corrected for the token's absence; they are written only
    when the topic changes, so no vector read of a row waits on a scalar write to it.

    IN: ``token_ptr``, ``words``, ``alpha``, ``beta``, ``v_beta`` (V beta), ``uniforms``
    (one per token of the range, the first for token ``token_ptr[first]``). IN/OUT:
    ``z``, ``n_dk``, ``n_wk``, ``n_k``. Scratch: ``weights``, ``coef`` (length K).
    Returns the number of tokens whose topic changed.
    """
    n_topics = n_k.shape[0]
    base = token_ptr[first]
    n_moved = 0
    for d in range(first, last):
        start, stop = token_ptr[d], token_ptr[d + 1]
        if start == stop:
            continue
        for k in range(n_topics):
            coef[k] = (n_dk[d, k] + alpha) / (n_k[k] + v_beta)
        for i in range(start, stop):
            w = words[i]
            old = z[i]
            coef_without = (n_dk[d, old] - 1 + alpha) / (n_k[old] - 1 + v_beta)
            total = 0.0
            for k in range(n_topics):
                weight = (n_wk[w, k] + beta) * coef[k]
                weights[k] = weight
                total += weight
            without = (n_wk[w, old] - 1 + beta) * coef_without
            total += without - weights[old]
            weights[old] = without
            new = _draw_current_first(weights, n_topics, total, uniforms[i - base], old)
            if new != old:
                n_dk[d, old] -= 1
                n_wk[w, old] -= 1
                n_k[old] -= 1
                n_dk[d, new] += 1
                n_wk[w, new] += 1
                n_k[new] += 1
                coef[old] = coef_without
                coef[new] = (n_dk[d, new] + alpha) / (n_k[new] + v_beta)
                z[i] = new
                n_moved += 1
    return n_moved


@njit(cache=True, fastmath=True)
def _fold_in_pass(start, stop, words, z, doc_counts, phi_w, inv_total, alpha, beta,
                  uniforms, position, weights, initial):
    """Sample every token of one document against fixed topics; return the next draw.

    ``phi_w`` is the topic-word table (counts, word-major) and ``inv_total[k]`` is
    ``1 / (total_k + V beta)``, so ``(phi_w[w, k] + beta) * inv_total[k]`` is the
    topic's word probability. With ``initial`` the tokens are placed in order, each
    seeing only the tokens placed before it; otherwise each is taken out and re-drawn.
    """
    n_topics = inv_total.shape[0]
    for i in range(start, stop):
        w = words[i]
        if not initial:
            doc_counts[z[i]] -= 1
        total = 0.0
        for k in range(n_topics):
            weight = (phi_w[w, k] + beta) * inv_total[k] * (doc_counts[k] + alpha)
            weights[k] = weight
            total += weight
        new = _draw(weights, n_topics, total, uniforms[position])
        position += 1
        z[i] = new
        doc_counts[new] += 1
    return position


@njit(cache=True, fastmath=True)
def fold_in(token_ptr, words, first, last, z, phi_w, phi_total, alpha, beta, v_beta,
            n_sweeps, update, uniforms, expected, weights, token_proba, doc_counts, inv_total):
    """Topics of documents ``first..last-1`` against the current topics (section 3.3).

    Each document, in order: its tokens are placed one after another, each drawn from
    ``p(z_i = k) ~ phi_k(w_i) (n_dk,-i + alpha)`` given the tokens placed before it; then
    ``n_sweeps`` Gibbs sweeps re-draw each token given all the others, the topics
    ``phi`` fixed; then each token's conditional distribution given the others is its
    expected assignment, and their sum the document's expected topic counts. With
    ``update``, the expected assignments are added to the topic-word counts before the
    next document (incremental LDA: the MAP estimate of phi follows the stream);
    without, the topics stay fixed (folding-in, for ``predict``).

    IN: ``token_ptr``, ``words``, ``alpha``, ``beta``, ``v_beta``, ``n_sweeps``,
    ``uniforms`` (``(1 + n_sweeps) * length`` draws per document, in document order:
    the placing pass, then each sweep). IN/OUT: ``phi_w`` (float64, V x K) and
    ``phi_total`` (K), updated only with ``update``. OUT: ``z``; ``expected[d - first]``
    (the expected topic counts). Scratch: ``weights``, ``doc_counts``, ``inv_total``
    (length K), ``token_proba`` (at least the longest document's length x K).
    """
    n_topics = phi_total.shape[0]
    position = 0
    for d in range(first, last):
        start, stop = token_ptr[d], token_ptr[d + 1]
        row = expected[d - first]
        row[:] = 0.0
        if start == stop:
            continue
        for k in range(n_topics):
            inv_total[k] = 1.0 / (phi_total[k] + v_beta)
            doc_counts[k] = 0
        position = _fold_in_pass(start, stop, words, z, doc_counts, phi_w, inv_total,
                                 alpha, beta, uniforms, position, weights, True)
        for _ in range(n_sweeps):
            position = _fold_in_pass(start, stop, words, z, doc_counts, phi_w, inv_total,
                                     alpha, beta, uniforms, position, weights, False)
        for i in range(start, stop):
            w = words[i]
            doc_counts[z[i]] -= 1
            total = 0.0
            for k in range(n_topics):
                weight = (phi_w[w, k] + beta) * inv_total[k] * (doc_counts[k] + alpha)
                token_proba[i - start, k] = weight
                total += weight
            doc_counts[z[i]] += 1
            for k in range(n_topics):
                token_proba[i - start, k] /= total
                row[k] += token_proba[i - start, k]
        if update:
            for i in range(start, stop):
                for k in range(n_topics):
                    phi_w[words[i], k] += token_proba[i - start, k]
            for k in range(n_topics):
                phi_total[k] += row[k]
