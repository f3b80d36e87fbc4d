"""Compiled hot loops of GSDMM (Yin & Wang, KDD 2014). Private: use :class:`GSDMM`.

Kernels take plain arrays, do no validation, and perform one unit of work per call
(one Gibbs sweep, one compaction, one scoring or classification pass); Python owns
the iteration loop. A sweep or classification may cover only the newest documents
(``partial_fit``): pass their ``docs`` and the view of ``z`` holding their clusters;
earlier documents stay in the counts, fixed.
Arrays travel in tuples:

* ``docs = (doc_ptr, doc_words, doc_counts, doc_len)``: the documents as CSR rows
  (word ids and counts; for Eq. 3 counts of 1) and their token counts N_d;
* ``stats = (m_z, n_z, n_wz)``: documents and tokens per cluster (float64) and the
  word-major word-cluster counts ``n_wz[w, k]`` (unsigned/int, see ``count_dtype``);
* ``cache = (inv_den, empty_inv_den)``: the cached inverse denominators of Eq. 4.

Why the sweep is fast and still exact:

* Cached denominators. ``prod_{i=1..L} (n_z + V beta + i - 1)`` changes only for the
  two clusters a document leaves and joins, so its inverse is cached per cluster for
  ``L <= _BLOCK``.
* Vectorised running products. For each token, one contiguous pass over the row
  ``n_wz[w, :]`` multiplies every cluster's weight by its Eq. 4 factor (8 clusters per
  AVX-512 instruction). Beyond the first ``_BLOCK`` tokens numerator and denominator
  are multiplied separately, folded and rescaled by the largest weight every
  ``_BLOCK`` tokens. A common rescaling leaves the distribution
  unchanged and keeps documents of thousands of tokens from overflowing or
  underflowing (a weight below 1e-300 of the largest is 0 in float64 whatever the
  method).
* Compact clusters. The non-empty clusters occupy slots ``0..n_active-1``
  (:func:`compact_clusters` restores this before each sweep). All empty clusters have
  the same weight under Eq. 4, so the empty slots beyond the active range are sampled
  as one slot whose weight is that common weight times their number; choosing it
  opens slot ``n_active``. Same distribution over partitions as sampling each empty
  cluster separately.
* The counts are stored in the narrowest integer type that cannot overflow: the pass
  is bound by reading ``n_wz`` rows (uint16 measured 10-15% faster than int32, int32
  30% faster than float64).

Measured and rejected (GoogleNews-T, K = 300): a sparse form that multiplies only the
clusters holding each word (exact after dividing all weights by prod (beta + j)) was
no faster, as each token's list walk mispredicts a branch and gathers scalars, while
the dense pass runs at about 3.5 cycles per 8 clusters; software prefetching of the
next document's rows gained under 2%; multiplying two tokens per pass gained 10% of
the token loop at 300 occupied clusters and nothing at 130.
"""

import math

import numpy as np
from numba import njit

# Tokens per block: the denominator cache covers this many, and the dense path
# rescales this often. Each factor of Eq. 4 lies within about 1e-8 and 1e8 of 1 for
# realistic counts, so 16 of them keep every product far inside float64.
_BLOCK = 16

# Weights per chunk in the two-level scan of _choose.
_CHUNK = 8

# Compaction's choice of method (compact_clusters_of_docs): moving one word entry of a
# document (two scattered updates) cost 6-17 times as much as moving one slot within a
# word's row (measured on Tweet, GoogleNews-T, AgNews-8000 and 20NG-mini: 2.5-14 ns
# against 0.2-2 ns); the moves are done whichever way is estimated cheaper.
_ENTRY_COST = 8


@njit(cache=True)
def build_counts(docs, z, stats):
    """Accumulate cluster statistics from scratch (Algorithm 1, initialisation).

    IN: ``docs``, ``z``. OUT: ``stats`` (zeroed first).
    """
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    m_z[:] = 0.0
    n_z[:] = 0.0
    n_wz[:, :] = 0
    for d in range(z.shape[0]):
        k = z[d]
        m_z[k] += 1.0
        for idx in range(doc_ptr[d], doc_ptr[d + 1]):
            n_z[k] += doc_counts[idx]
            n_wz[doc_words[idx], k] += doc_counts[idx]


@njit(cache=True)
def _slot_moves(m_z):
    """Where :func:`compact_clusters` moves each slot:
    ``(n_active, new_of_old, old_of_new, first, end)``.

    ``new_of_old[k]`` is slot ``k``'s new place (-1 if empty) and ``old_of_new`` its
    inverse over the ``n_active`` non-empty slots; slots before ``first`` stay, and those
    from ``n_active`` to ``end`` are emptied. ``first == n_active`` when the non-empty
    slots lead already: nothing moves (``old_of_new`` is then left empty).
    """
    n_slots = m_z.shape[0]
    new_of_old = np.full(n_slots, -1, dtype=np.int64)
    n_active = 0
    for k in range(n_slots):
        if m_z[k] > 0.0:
            new_of_old[k] = n_active
            n_active += 1
    if n_active == n_slots or new_of_old[n_active - 1] == n_active - 1:
        return n_active, new_of_old, np.empty(0, dtype=np.int64), n_active, n_active
    old_of_new = np.empty(n_active, dtype=np.int64)
    for k in range(n_slots):
        if new_of_old[k] >= 0:
            old_of_new[new_of_old[k]] = k
    first = 0
    while old_of_new[first] == first:
        first += 1
    return n_active, new_of_old, old_of_new, first, old_of_new[n_active - 1] + 1


@njit(cache=True)
def compact_clusters(z, stats):
    """Relabel clusters so the non-empty ones occupy the leading slots, in order.

    A pure relabelling: the partition of the documents is unchanged. Returns the
    number of non-empty clusters. IN/OUT: ``z``, ``stats``.
    """
    m_z, n_z, n_wz = stats
    n_active, new_of_old, old_of_new, first, end = _slot_moves(m_z)
    if first == n_active:
        return n_active  # already compact: nothing moves
    # Clusters before the first empty slot stay where they are, and slots past the last
    # non-empty one hold zeros already, so each row moves only the slots between them
    # (a sweep empties a few clusters: this made compaction 25% of a sweep on Tweet).
    # old_of_new is increasing and old_of_new[j] >= j, so forward in-place copies are safe.
    _move_sizes(m_z, n_z, old_of_new, first, end)
    _move_rows(z, n_wz, new_of_old, old_of_new, first, end)
    return n_active


@njit(cache=True)
def _move_rows(z, n_wz, new_of_old, old_of_new, first, end):
    """Move the slots of every word's row, then relabel ``z`` (:func:`compact_clusters`)."""
    n_active = old_of_new.shape[0]
    for w in range(n_wz.shape[0]):
        row = n_wz[w]
        for j in range(first, n_active):
            row[j] = row[old_of_new[j]]
        row[n_active:end] = 0
    for d in range(z.shape[0]):
        z[d] = new_of_old[z[d]]


@njit(cache=True)
def compact_clusters_of_docs(docs, z, stats):
    """:func:`compact_clusters` when ``docs`` are all the documents ``z`` labels.

    The same result, computed by moving each relabelled document's word counts from its
    old slot to its new one, instead of shifting the moved slots of every word's row:
    two scattered updates per word entry of the moved documents, in place of a run of
    slots in each of the ``V`` rows (on Tweet, at most 20,000 entries against 5,000 rows:
    compaction's CPU fell from about 0.18 s to under 0.01 s over ``make run``'s 20 fits).
    Long documents (20 newsgroups) have more entries to move than rows: then the rows are
    moved as :func:`compact_clusters` does. The counts are exact integers, so the order
    of the additions does not matter, and each token is counted in exactly one slot at
    every step, so no count exceeds its word's total (the count type holds that).
    IN/OUT: ``z``, ``stats``.
    """
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    n_active, new_of_old, old_of_new, first, end = _slot_moves(m_z)
    if first == n_active:
        return n_active
    _move_sizes(m_z, n_z, old_of_new, first, end)
    moved = 0  # word entries of the documents that change slot
    for d in range(z.shape[0]):
        if new_of_old[z[d]] != z[d]:
            moved += doc_ptr[d + 1] - doc_ptr[d]
    if moved * _ENTRY_COST > n_wz.shape[0] * (n_active - first):  # long documents
        _move_rows(z, n_wz, new_of_old, old_of_new, first, end)
        return n_active
    for d in range(z.shape[0]):
        old = z[d]
        new = new_of_old[old]
        if new != old:
            for idx in range(doc_ptr[d], doc_ptr[d + 1]):
                n_wz[doc_words[idx], old] -= doc_counts[idx]
                n_wz[doc_words[idx], new] += doc_counts[idx]
            z[d] = new
    return n_active


@njit(cache=True)
def _move_sizes(m_z, n_z, old_of_new, first, end):
    """The documents and tokens per cluster, moved as :func:`_slot_moves` says."""
    n_active = old_of_new.shape[0]  # something moves, so old_of_new is filled
    for j in range(first, n_active):
        m_z[j] = m_z[old_of_new[j]]
        n_z[j] = n_z[old_of_new[j]]
    m_z[n_active:end] = 0.0
    n_z[n_active:end] = 0.0


@njit(cache=True)
def refresh_inv_den(inv_den, k, n_zk, v_beta):
    """Cache the inverse Eq. 4 denominators of cluster ``k`` for the first block.

    OUT: ``inv_den[L, k] = 1 / prod_{i=1..L} (n_zk + V beta + i - 1)`` for
    ``L = 0.._BLOCK``. One division: the products are built upwards, then the inverses
    are peeled off downwards.
    """
    product = 1.0
    for length in range(1, _BLOCK + 1):
        product *= n_zk + v_beta + (length - 1)
    inverse = 1.0 / product
    for length in range(_BLOCK, 0, -1):
        inv_den[length, k] = inverse
        inverse *= n_zk + v_beta + (length - 1)
    inv_den[0, k] = 1.0


@njit(cache=True)
def refresh_all_inv_den(inv_den, n_z, v_beta):
    """:func:`refresh_inv_den` for every cluster slot."""
    for k in range(n_z.shape[0]):
        refresh_inv_den(inv_den, k, n_z[k], v_beta)


@njit(cache=True, fastmath=True)
def _eq4_weights(d, docs, stats, cache, alpha, beta, v_beta, n_active, num, den):
    """Unnormalised Eq. 4 weights of document ``d`` for slots ``0..n_active-1``.

    The document must already be removed from the counts, and ``inv_den`` must match
    ``n_z`` (see :func:`refresh_inv_den`). Writes the weights into ``num[:n_active]``
    (``den`` is scratch) and returns the weight of one empty cluster on the same scale.
    The first ``_BLOCK`` tokens' denominator comes from the cache, so a short document
    costs one multiply-add per token and cluster; later tokens multiply numerator and
    denominator separately, folded and rescaled every ``_BLOCK`` tokens.
    """
    doc_ptr, doc_words, doc_counts, doc_len = docs
    m_z, n_z, n_wz = stats
    inv_den, empty_inv_den = cache
    n_tokens = doc_len[d]
    first = min(n_tokens, _BLOCK)
    cached = inv_den[first]
    for k in range(n_active):
        num[k] = (m_z[k] + alpha) * cached[k]
    empty_num = alpha * empty_inv_den[first]
    empty_den = 1.0
    if n_tokens > _BLOCK:
        den[:n_active] = 1.0
    position = 0  # i - 1 in Eq. 4's denominator
    for idx in range(doc_ptr[d], doc_ptr[d + 1]):
        row = n_wz[doc_words[idx]]
        for j in range(doc_counts[idx]):
            word_offset = beta + j
            if position < _BLOCK:
                for k in range(n_active):
                    num[k] *= row[k] + word_offset
            else:
                length_offset = v_beta + position
                for k in range(n_active):
                    num[k] *= row[k] + word_offset
                    den[k] *= n_z[k] + length_offset
                empty_den *= length_offset
            empty_num *= word_offset
            position += 1
            if position % _BLOCK == 0 and position < n_tokens:
                empty_num = _rescale_block(num, den, n_active, empty_num / empty_den)
                empty_den = 1.0
    if n_tokens > _BLOCK:
        for k in range(n_active):
            num[k] /= den[k]
    return empty_num / empty_den


@njit(cache=True)
def _log_eq4(d, doc_ptr, doc_words, doc_counts, m_z, n_z, n_wz, alpha, beta, v_beta,
             n_clusters, out):
    """log of Eq. 4 (without its constant) for document ``d`` and clusters ``0..n_clusters-1``.

    OUT: ``out[:n_clusters]``. Returns the same for an empty cluster. Works in logs,
    which cannot overflow; used where speed does not matter.
    """
    empty = np.log(alpha)
    for k in range(n_clusters):
        out[k] = np.log(m_z[k] + alpha)
    position = 0
    for idx in range(doc_ptr[d], doc_ptr[d + 1]):
        row = n_wz[doc_words[idx]]
        for j in range(doc_counts[idx]):
            length_offset = v_beta + position
            for k in range(n_clusters):
                out[k] += np.log(row[k] + beta + j) - np.log(n_z[k] + length_offset)
            empty += np.log(beta + j) - np.log(length_offset)
            position += 1
    return empty


@njit(cache=True)
def _log_space_weights(d, docs, stats, alpha, beta, v_beta, n_active, num):
    """Eq. 4 weights through logs, scaled so the largest is 1; returns the empty weight.

    The fallback for the rare document whose product weights all underflowed (only
    with extreme hyperparameters, e.g. beta near 1e-30): exact, but a log per factor.
    """
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    empty = _log_eq4(d, doc_ptr, doc_words, doc_counts, m_z, n_z, n_wz, alpha, beta,
                     v_beta, n_active, num)
    largest = empty
    for k in range(n_active):
        largest = max(largest, num[k])
    for k in range(n_active):
        num[k] = np.exp(num[k] - largest)
    return np.exp(empty - largest)


@njit(cache=True, fastmath=True)
def _rescale_block(num, den, n_active, empty_weight):
    """Fold the denominators into the weights and divide all by the largest weight.

    When every weight has underflowed to 0 (extreme beta, e.g. 1e-30, on a long document)
    they stay 0: the caller then finds a zero total and redoes the document in logs.
    """
    largest = empty_weight
    for k in range(n_active):
        num[k] /= den[k]
        den[k] = 1.0
        largest = max(largest, num[k])
    if largest == 0.0:
        return 0.0
    scale = 1.0 / largest
    for k in range(n_active):
        num[k] *= scale
    return empty_weight * scale


@njit(cache=True, fastmath=True)
def _choose(weights, n_active, tail_weight, u, chunk_sums):
    """Index ``k`` with ``cumsum(weights)[k] > u * total`` (``n_active`` for the tail).

    Returns -1 when every weight is zero (possible only with ``alpha = 0``). The sums of
    chunks of ``_CHUNK`` weights are computed first, independently of one another;
    the serial walk then steps over whole chunks and only enters the one that crosses
    the target, which halves the cost at 300 clusters against a plain scan.
    Scratch: ``chunk_sums`` (length >= n_active // _CHUNK).
    """
    n_chunks = n_active // _CHUNK
    for c in range(n_chunks):
        s = _CHUNK * c
        chunk_sums[c] = (((weights[s] + weights[s + 1]) + (weights[s + 2] + weights[s + 3]))
                         + ((weights[s + 4] + weights[s + 5]) + (weights[s + 6] + weights[s + 7])))
    total = tail_weight
    for c in range(n_chunks):
        total += chunk_sums[c]
    for k in range(_CHUNK * n_chunks, n_active):
        total += weights[k]
    if not total > 0.0:
        return -1
    target = u * total
    running = 0.0
    c = 0
    while c < n_chunks and running + chunk_sums[c] <= target:
        running += chunk_sums[c]
        c += 1
    for k in range(_CHUNK * c, n_active):
        running += weights[k]
        if running > target:
            return k
    # Only the tail is left; rounding can also land here when u is within an ulp of 1.
    if tail_weight > 0.0:
        return n_active
    return _last_positive(weights, 0, n_active)


@njit(cache=True)
def _last_positive(weights, start, stop):
    """Last index in ``[start, stop)`` with a positive weight, or -1."""
    for k in range(stop - 1, start - 1, -1):
        if weights[k] > 0.0:
            return k
    return -1


@njit(cache=True)
def _move_document(d, docs, k, sign, stats):
    """Add (``sign = 1``) or remove (``sign = -1``) document ``d`` from cluster ``k``."""
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    m_z[k] += sign
    for idx in range(doc_ptr[d], doc_ptr[d + 1]):
        n_z[k] += sign * doc_counts[idx]
        n_wz[doc_words[idx], k] += sign * doc_counts[idx]


@njit(cache=True)
def gibbs_sweep(docs, z, stats, cache, alpha, beta, v_beta, n_active, uniforms,
                num, den, saved, start):
    """One Gibbs sweep of Algorithm 1 over the documents from ``start`` on, in order.

    Each document is removed from its cluster and re-sampled from Eq. 4 (the second
    loop of Algorithm 1). On entry clusters must be compact (:func:`compact_clusters`)
    and ``inv_den`` current (:func:`refresh_all_inv_den`); the cache stays current.

    ``n_wz`` may be narrower than the ``K = len(m_z)`` slots (the caller narrows it to
    the occupied clusters once most have emptied: see ``GSDMM``'s sampler state); the
    empty slots are still ``K - n_active``, as Eq. 4 counts them. When every column of a
    narrowed ``n_wz`` is occupied, the sweep stops before the next document, which might
    open a new cluster, and returns its index: the caller widens ``n_wz`` and calls again
    from there with the same arrays, so the sweep is the same as with all ``K`` columns.

    IN: ``docs``, ``alpha``, ``beta``, ``v_beta`` (V * beta), ``uniforms`` (one U[0, 1)
    draw per document), ``start`` (the first document to sample). IN/OUT: ``z``,
    ``stats``, ``cache``. Scratch: ``num``, ``den`` (length >= K; ``den`` doubles as the
    chunk sums of :func:`_choose`), ``saved`` (length _BLOCK + 1).
    Returns ``(n_active, n_moved, stop)``: slots in use, documents that changed cluster
    from ``start`` on, and the document where the sweep stopped (``len(z)`` when done).
    """
    m_z, n_z, n_wz = stats
    inv_den = cache[0]
    n_slots = m_z.shape[0]
    width = n_wz.shape[1]
    n_moved = 0
    for d in range(start, z.shape[0]):
        if n_active == width and width < n_slots:
            return n_active, n_moved, d  # no column for a new cluster: widen n_wz first
        old = z[d]
        _move_document(d, docs, old, -1, stats)
        saved[:] = inv_den[:, old]
        refresh_inv_den(inv_den, old, n_z[old], v_beta)
        empty_weight = _eq4_weights(d, docs, stats, cache, alpha, beta, v_beta, n_active,
                                    num, den)
        new = _choose(num, n_active, empty_weight * (n_slots - n_active), uniforms[d], den)
        if new < 0 and alpha > 0.0:
            # Every product underflowed: redo this document in logs.
            empty_weight = _log_space_weights(d, docs, stats, alpha, beta, v_beta, n_active, num)
            new = _choose(num, n_active, empty_weight * (n_slots - n_active), uniforms[d], den)
        if new < 0:
            new = old
        elif new == n_active:
            n_active += 1  # open the first empty slot beyond the active range
        _move_document(d, docs, new, 1, stats)
        if new == old:
            inv_den[:, old] = saved
        else:
            refresh_inv_den(inv_den, new, n_z[new], v_beta)
            z[d] = new
            n_moved += 1
    return n_active, n_moved, z.shape[0]


@njit(cache=True)
def classify_sequential(docs, z, stats, cache, alpha, beta, v_beta, n_active, num, den):
    """Put each document, in order, where Eq. 4 makes it most probable.

    The incremental step of section 3.2: Eq. 4 read as a Naive Bayes classifier over the
    current counts, each document added to the counts before the next is scored. The
    candidates are the occupied slots ``0..n_active-1`` and, while a slot is free, a new
    cluster. As in :func:`gibbs_sweep`, the free slots are interchangeable and count as
    one candidate with their total weight (one empty cluster's Eq. 4 weight times their
    number): the choice is the most probable placement in the partition, join cluster k
    or start a new one (which opens slot ``n_active``). Ties go to the lowest slot, the
    new cluster last. On entry clusters must be compact and ``inv_den`` current; the
    documents must not be in the counts.

    IN: ``docs``, ``alpha``, ``beta``, ``v_beta``. OUT: ``z`` (one entry per document of
    ``docs``). IN/OUT: ``stats``, ``cache``. Scratch: ``num``, ``den`` (length >= K).
    Returns ``n_active`` after the documents are added.
    """
    m_z, n_z, _ = stats
    inv_den = cache[0]
    n_slots = m_z.shape[0]
    for d in range(z.shape[0]):
        empty_weight = _eq4_weights(d, docs, stats, cache, alpha, beta, v_beta, n_active,
                                    num, den)
        best = _most_probable(num, n_active, empty_weight * (n_slots - n_active))
        if best < 0:
            # Every product underflowed: score this document in logs instead.
            empty_weight = _log_space_weights(d, docs, stats, alpha, beta, v_beta, n_active, num)
            best = _most_probable(num, n_active, empty_weight * (n_slots - n_active))
        if best < 0:
            best = 0  # unreachable once a cluster is occupied; keeps z valid regardless
        if best == n_active:
            n_active += 1
        z[d] = best
        _move_document(d, docs, best, 1, stats)
        refresh_inv_den(inv_den, best, n_z[best], v_beta)
    return n_active


@njit(cache=True)
def _most_probable(weights, n_active, tail_weight):
    """Slot of the largest positive weight among ``weights[:n_active]`` and the tail.

    The first slot wins ties; the tail (``n_active``, a new cluster) only when strictly
    larger. Returns -1 when every weight is zero.
    """
    best = -1
    largest = 0.0
    for k in range(n_active):
        if weights[k] > largest:
            largest = weights[k]
            best = k
    if tail_weight > largest:
        best = n_active
    return best


@njit(cache=True)
def log_posterior(doc_ptr, doc_words, doc_counts, m_z, n_z, n_zw, alpha, beta, v_beta, out):
    """Log of Eq. 4 for documents not in the counts (the Naive Bayes form, section 3.2).

    IN: CSR rows of the new documents, fitted ``m_z``, ``n_z`` and the cluster-major
    word counts ``n_zw[k, w]`` (the model's ``cluster_word_counts_``).
    OUT: ``out[d, k]`` = log p(z_d = k | fitted counts) up to a per-document constant.

    The same sum of logs as :func:`_log_eq4`, with fewer logs: a word a cluster never
    holds contributes ``sum_j log(beta + j)`` to every such cluster, so only the clusters
    holding it take a log of their own; and the denominator's ``L`` factors
    ``n_z + V beta + i - 1`` are one difference of log-gamma functions. Scoring every
    document of a run (the runner writes each one's probability) took as long as fitting
    it with one log per token and cluster. The clusters holding each word are listed
    first (:func:`_holders`), so a document's word visits those only, in increasing
    order, instead of testing every cluster: the same additions in the same order
    (``make run``: 86,000 holders among 1.85 million word-cluster pairs).
    """
    n_docs, n_clusters = out.shape
    log_prior = np.empty(n_clusters)
    lgamma_base = np.empty(n_clusters)
    for k in range(n_clusters):
        log_prior[k] = np.log(m_z[k] + alpha)
        lgamma_base[k] = math.lgamma(n_z[k] + v_beta)
    # The denominator depends on the document only through its length: one row of
    # log-gamma differences per distinct length, instead of one per document and cluster.
    lengths = np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        for idx in range(doc_ptr[d], doc_ptr[d + 1]):
            lengths[d] += doc_counts[idx]
    row_of_length = np.full(lengths.max() + 1 if n_docs else 1, -1, dtype=np.int64)
    n_lengths = 0
    for d in range(n_docs):
        if row_of_length[lengths[d]] < 0:
            row_of_length[lengths[d]] = n_lengths
            n_lengths += 1
    denominators = np.empty((n_lengths, n_clusters))
    for size in range(row_of_length.shape[0]):
        row = row_of_length[size]
        if row >= 0:
            for k in range(n_clusters):
                denominators[row, k] = math.lgamma(n_z[k] + v_beta + size) - lgamma_base[k]
    word_ptr, holder, held_count = _holders(n_zw)
    for d in range(n_docs):
        row_out = out[d]
        for k in range(n_clusters):
            row_out[k] = log_prior[k]
        absent = 0.0  # the contribution of the document's words to a cluster holding none
        length = 0
        for idx in range(doc_ptr[d], doc_ptr[d + 1]):
            count = doc_counts[idx]
            word = doc_words[idx]
            term = 0.0
            for j in range(count):
                term += np.log(beta + j)
            absent += term
            for entry in range(word_ptr[word], word_ptr[word + 1]):
                n = held_count[entry]
                held = 0.0
                for j in range(count):
                    held += np.log(n + beta + j)
                row_out[holder[entry]] += held - term
            length += count
        denominator = denominators[row_of_length[length]]
        for k in range(n_clusters):
            row_out[k] += absent - denominator[k]


@njit(cache=True)
def _holders(n_zw):
    """The clusters holding each word: ``(word_ptr, holder, held_count)``, CSR by word.

    Word ``w``'s clusters are ``holder[word_ptr[w]:word_ptr[w + 1]]`` in increasing order,
    with their counts ``n_zw[k, w]`` (same dtype) in ``held_count``.
    """
    n_clusters, n_words = n_zw.shape
    word_ptr = np.zeros(n_words + 1, dtype=np.int64)
    for k in range(n_clusters):
        for w in range(n_words):
            if n_zw[k, w] != 0:
                word_ptr[w + 1] += 1
    for w in range(n_words):
        word_ptr[w + 1] += word_ptr[w]
    holder = np.empty(word_ptr[n_words], dtype=np.int64)
    held_count = np.empty(word_ptr[n_words], dtype=n_zw.dtype)
    fill = word_ptr[:n_words].copy()
    for k in range(n_clusters):  # clusters in increasing order within each word
        for w in range(n_words):
            if n_zw[k, w] != 0:
                holder[fill[w]] = k
                held_count[fill[w]] = n_zw[k, w]
                fill[w] += 1
    return word_ptr, holder, held_count
