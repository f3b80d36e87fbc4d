"""Hot loops of DCT (Liang, Yilmaz & Kanoulas, KDD 2016). Private: use :class:`DCT`.

The Gibbs sweep and the scoring of documents are compiled (numba); the fixed-point updates
of the precisions (Appendix B) are numpy, as they cost O(V Z) array operations per sweep
against the sweep's O(tokens Z) scalar work. Arrays travel as in ``_gsdmm_kernels``:

* ``docs = (doc_ptr, doc_words, doc_counts, doc_len)``: the step's documents as CSR rows;
* ``stats = (m_z, n_z, n_wz)``: documents and tokens per topic (float64) and the
  word-major word-topic counts ``n_wz[v, z]`` of the current time step;
* ``prior = (topic_prior, beta, phi_history, word_prior_total)``: the Dirichlet
  parameters of Eq. 3/4 (Eq. 6/7 for L > 1): ``a_z = sum_l alpha_zl theta_{t-l,z}``
  (Z,), the precisions ``beta[l, v]`` (L, V) and the past ``phi_history[l, v, z]``
  (L, V, Z), word-major, whose products ``b_vz = sum_l beta_lv phi_{t-l,z,v}`` are formed
  per token (a fixed-point step then changes only beta, not a V x Z matrix), and
  ``B_z = sum_v b_vz`` (Z,).

With these, the conditional of Eq. 5 (Eq. 8) for document d and topic z is::

    (m_z,-d + a_z) * prod_{v in d} prod_{j=1..N_dv} (n_zv,-d + b_vz + j - 1)
                   / prod_{i=1..N_d} (n_z,-d + B_z + i - 1)

(its denominator ``sum_z (m_z + a_z) - 1`` is the same for every z and dropped). The
kernel computes its logarithm: per token one pass over the topics multiplies each topic's
ratio ``(n_zv + b_vz + j - 1) / (n_z + B_z + i - 1)`` into a running product, and every
``_BLOCK`` tokens the products are folded into the log weights. Each ratio lies within
about 1e-20 and 1e4 for any count and prior the model produces, so ``_BLOCK`` of them
stay far inside float64, and a log per block instead of per token keeps the sweep bound by
the multiplications (most documents are one block).
"""

import numpy as np
from numba import njit
from scipy.special import digamma, gammaln

# A document joins or leaves a topic exactly as in GSDMM (the same count arrays).
from shortclust.models.dmm._gsdmm_kernels import _move_document as move_document

# Tokens folded into the log weights at once (see the module docstring).
_BLOCK = 8


@njit(cache=True)
def log_weights(d, docs, stats, prior, out, scratch):
    """log of Eq. 5 (Eq. 8), without its constant, for document ``d`` and every topic.

    The document must not be in ``stats``. OUT: ``out[:Z]``. Scratch: ``scratch`` (2, Z).
    """
    doc_ptr, doc_words, doc_counts, _ = docs
    m_z, n_z, n_wz = stats
    topic_prior, beta, phi_history, word_prior_total = prior
    n_topics = m_z.shape[0]
    product, priors = scratch[0], scratch[1]
    for k in range(n_topics):
        out[k] = np.log(m_z[k] + topic_prior[k])
        product[k] = 1.0
    position = 0  # i - 1 in Eq. 5's denominator
    for idx in range(doc_ptr[d], doc_ptr[d + 1]):
        v = doc_words[idx]
        counts = n_wz[v]
        _word_prior_row(beta, phi_history, v, priors)
        for j in range(doc_counts[idx]):
            for k in range(n_topics):
                product[k] *= ((counts[k] + priors[k] + j)
                               / (n_z[k] + word_prior_total[k] + position))
            position += 1
            if position % _BLOCK == 0:
                for k in range(n_topics):
                    out[k] += np.log(product[k])
                    product[k] = 1.0
    if position % _BLOCK != 0:
        for k in range(n_topics):
            out[k] += np.log(product[k])


@njit(cache=True)
def _word_prior_row(beta, phi_history, v, out):
    """OUT: ``out[z] = b_vz = sum_l beta[l, v] phi_history[l, v, z]``."""
    precision, past = beta[0, v], phi_history[0, v]
    for k in range(out.shape[0]):
        out[k] = precision * past[k]
    for lag in range(1, beta.shape[0]):
        precision, past = beta[lag, v], phi_history[lag, v]
        for k in range(out.shape[0]):
            out[k] += precision * past[k]


@njit(cache=True)
def _draw(log_w, u):
    """Index of the first topic whose cumulative weight exceeds ``u * total``, -1 if none.

    Weights are ``exp(log_w - max log_w)``; -1 only when every weight is 0 (all ``-inf``).
    """
    largest = -np.inf
    for k in range(log_w.shape[0]):
        largest = max(largest, log_w[k])
    if largest == -np.inf:
        return -1
    total = 0.0
    for k in range(log_w.shape[0]):
        log_w[k] = np.exp(log_w[k] - largest)
        total += log_w[k]
    target = u * total
    running = 0.0
    last = -1
    for k in range(log_w.shape[0]):
        running += log_w[k]
        if log_w[k] > 0.0:
            last = k
        if running > target:
            return k
    return last  # rounding, with u within an ulp of 1


@njit(cache=True)
def build_counts(docs, z, stats):
    """The step's counts from scratch for the assignment ``z``. OUT: ``stats``."""
    m_z, n_z, n_wz = stats
    m_z[:] = 0.0
    n_z[:] = 0.0
    n_wz[:, :] = 0
    for d in range(z.shape[0]):
        move_document(d, docs, z[d], 1, stats)


@njit(cache=True)
def gibbs_sweep(docs, z, stats, prior, uniforms, scratch):
    """One pass of Algorithm 1's loop (steps 3-5) over the step's documents, in order.

    Each document leaves its topic and draws a new one from Eq. 5 (Eq. 8) with the
    uniform ``uniforms[d]``; a document whose every weight is 0 (only when the priors
    underflowed) keeps its topic. IN/OUT: ``z``, ``stats``. Scratch: ``scratch`` (3, Z).
    Returns the number of documents that changed topic.
    """
    n_moved = 0
    for d in range(z.shape[0]):
        old = z[d]
        move_document(d, docs, old, -1, stats)
        log_weights(d, docs, stats, prior, scratch[0], scratch[1:])
        new = _draw(scratch[0], uniforms[d])
        if new < 0:
            new = old
        move_document(d, docs, new, 1, stats)
        if new != old:
            z[d] = new
            n_moved += 1
    return n_moved


@njit(cache=True)
def log_conditionals(docs, z, stats, prior, out, scratch):
    """Eq. 11 before normalisation: log of Eq. 5 (Eq. 8) for each document of the step.

    Each document is scored against the others' topics (itself removed, then put back);
    with ``z[d] < 0`` it is taken as not in the counts (new documents). OUT: ``out[d, :]``.
    Scratch: ``scratch`` (2, Z).
    """
    for d in range(out.shape[0]):
        if z[d] >= 0:
            move_document(d, docs, z[d], -1, stats)
        log_weights(d, docs, stats, prior, out[d], scratch)
        if z[d] >= 0:
            move_document(d, docs, z[d], 1, stats)


# --- the precisions: fixed-point updates (Appendix B) ------------------------------------------

def word_prior(beta, phi_history):
    """``b_vz = sum_l beta_lv phi_{t-l,z,v}`` (V, Z), word-major, in full."""
    return np.einsum("lv,lvz->vz", beta, phi_history)


def word_prior_total(beta, phi_history):
    """``B_z = sum_v b_vz`` (Z,), without forming b."""
    return sum(beta[lag] @ phi_history[lag] for lag in range(beta.shape[0]))


def topic_prior(alpha, theta_history):
    """``a_z = sum_l alpha_zl theta_{t-l,z}`` (Z,)."""
    return (alpha * theta_history.T).sum(axis=1)


def update_alpha(alpha, theta_history, m_z, floor, shared=False):
    """One fixed-point step for every alpha_{t,z,l} (Appendix B; Section 4.3 for L > 1).

    ``alpha_zl <- alpha_zl (psi(m_z + a_z) - psi(a_z)) / (psi(M + A) - psi(A))`` with
    ``a_z = sum_l alpha_zl theta_{t-l,z}``, ``A = sum_z a_z``, ``M = sum_z m_z``: Minka's
    bound on both log-gamma ratios of the joint, maximised (for L > 1 after Jensen's bound
    on ``log a_z``), so the joint of Appendix A cannot decrease. With ``shared`` there is
    one precision per lag, ``alpha_l`` (every row of ``alpha`` equal), and the same bound
    gives ``alpha_l <- alpha_l sum_z theta_{t-l,z} (psi(m_z + a_z) - psi(a_z)) /
    (psi(M + A) - psi(A))``, the topic-tracking model's rule. Values are then raised to
    ``floor`` (shape of ``alpha``) where they fall below it.

    Parameters
    ----------
    alpha : ndarray of shape (Z, L)
    theta_history : ndarray of shape (L, Z)
        ``theta_{t-1}, ..., theta_{t-L}``.
    m_z : ndarray of shape (Z,)
    floor : ndarray of shape (Z, L)
    shared : bool, default=False

    Returns
    -------
    ndarray of shape (Z, L)
    """
    a = topic_prior(alpha, theta_history)
    total = a.sum()
    scale = digamma(m_z.sum() + total) - digamma(total)
    if not scale > 0.0:  # no document in the step: nothing to learn from
        return alpha.copy()
    gain = np.zeros_like(a)
    used = (m_z > 0) & (a > 0.0)  # psi(m + a) - psi(a) is 0 for an empty topic
    gain[used] = digamma(m_z[used] + a[used]) - digamma(a[used])
    # A prior weight that underflowed to 0 (a topic unused for very long) cannot be
    # scaled back up: its precision stays as it is.
    gain[(m_z > 0) & (a == 0.0)] = scale
    if shared:
        return np.maximum(alpha * (theta_history @ gain / scale)[None, :], floor)
    return np.maximum(alpha * (gain / scale)[:, None], floor)


def update_beta(beta, phi_history, n_wz, n_z, held, floor, prior_total=None):
    """One fixed-point step for every beta_{t,v,l} (Appendix B; Section 4.3 for L > 1).

    ``beta_lv <- beta_lv sum_z phi_{t-l,z,v} A_zv / sum_z phi_{t-l,z,v} B_z`` with
    ``A_zv = psi(n_zv + b_vz) - psi(b_vz)``, ``B_z = psi(n_z + B_z) - psi(B_z)``,
    ``b_vz = sum_l beta_lv phi_{t-l,z,v}``: the paper's rule, whose sums over z make the
    precision of word v one value shared by the topics. ``A_zv`` is 0 where ``n_zv = 0``,
    so only the pairs ``held`` are visited. Values are then raised to ``floor``.

    Parameters
    ----------
    beta : ndarray of shape (L, V)
    phi_history : ndarray of shape (L, V, Z)
        ``phi_{t-1}, ..., phi_{t-L}``, word-major.
    n_wz : ndarray of shape (V, Z)
        The step's word-topic counts, word-major.
    n_z : ndarray of shape (Z,)
    held : tuple of two int arrays
        ``(words, topics)``: every pair with ``n_wz > 0`` (others allowed, they add 0).
    floor : ndarray of shape (L, V)
    prior_total : ndarray of shape (Z,), optional
        ``B_z`` for ``beta``, when already computed.

    Returns
    -------
    ndarray of shape (L, V)
    """
    if prior_total is None:
        prior_total = word_prior_total(beta, phi_history)
    gain_z = digamma(n_z + prior_total) - digamma(prior_total)
    words, _, past, gain = _held_gains(beta, held[0], phi_history, n_wz, held)
    updated = np.empty_like(beta)
    for lag in range(beta.shape[0]):
        numerator = np.bincount(words, weights=past[lag] * gain, minlength=beta.shape[1])
        denominator = phi_history[lag] @ gain_z
        ratio = np.divide(numerator, denominator, out=np.zeros_like(numerator),
                          where=denominator > 0)
        updated[lag] = beta[lag] * ratio
    return np.maximum(updated, floor)


def update_topic_beta(beta, phi_history, n_wz, n_z, held, floor):
    """One fixed-point step for every beta_{t,z,l}, one precision per topic and lag.

    ``beta_lz <- beta_lz sum_v phi_{t-l,z,v} A_zv / (psi(n_z + B_z) - psi(B_z))`` with
    ``A_zv = psi(n_zv + b_vz) - psi(b_vz)``, ``b_vz = sum_l beta_lz phi_{t-l,z,v}`` and
    ``B_z = sum_l beta_lz``: the same two bounds as :func:`update_beta` (and Jensen's for
    L > 1), with the sum over the words of each topic instead of over the topics of each
    word; for L = 1 it is the topic-tracking model's rule. An empty topic keeps its
    precision (its counts do not depend on it). Values are then raised to ``floor``.

    Parameters
    ----------
    beta : ndarray of shape (L, Z)
    phi_history : ndarray of shape (L, V, Z)
        ``phi_{t-1}, ..., phi_{t-L}``, word-major.
    n_wz : ndarray of shape (V, Z)
    n_z : ndarray of shape (Z,)
    held : tuple of two int arrays
        ``(words, topics)``: every pair with ``n_wz > 0``.
    floor : ndarray of shape (L, Z)

    Returns
    -------
    ndarray of shape (L, Z)
    """
    _, topics, past, gain = _held_gains(beta, held[1], phi_history, n_wz, held)
    total = beta.sum(axis=0)
    scale = digamma(n_z + total) - digamma(total)
    updated = beta.copy()
    active = scale > 0.0
    for lag in range(beta.shape[0]):
        numerator = np.bincount(topics, weights=past[lag] * gain, minlength=beta.shape[1])
        updated[lag, active] = beta[lag, active] * numerator[active] / scale[active]
    return np.maximum(updated, floor)


def _held_gains(beta, precision_of_pair, phi_history, n_wz, held):
    """``A_zv = psi(n_zv + b_vz) - psi(b_vz)`` over the held pairs, and what it needs.

    ``precision_of_pair`` indexes ``beta``'s columns per pair (the pair's word for
    per-word precisions, its topic for per-topic ones). Pairs whose prior underflowed to 0
    (no weight to move) or without counts are dropped. Returns ``(words, topics, past,
    gain)`` of the pairs kept, ``past`` (L, pairs) being ``phi_{t-l,z,v}``.
    """
    words, topics = held
    past = phi_history[:, words, topics]  # (L, pairs)
    at = (beta[:, precision_of_pair] * past).sum(axis=0)
    counts = n_wz[words, topics]
    keep = (at > 0.0) & (counts > 0)
    at, counts = at[keep], counts[keep]
    return words[keep], topics[keep], past[:, keep], digamma(counts + at) - digamma(at)


def topic_scaled_history(beta, phi_history):
    """``beta_lz phi_{t-l,z,v}`` (L, V, Z): per-topic precisions in the kernels' form.

    With these as the history and precisions of 1 per word, ``b_vz = sum_l beta_lz
    phi_{t-l,z,v}``, so the sweep and the joint take both kinds of precision alike.
    """
    return phi_history * beta[:, None, :]


def log_joint(alpha, beta, theta_history, phi_history, m_z, n_wz):
    """log P(d_t, z_t | past, alpha_t, beta_t) of Appendix A (Eq. 8's joint for L > 1).

    The Dirichlet-multinomial of the topic counts times, for each topic, that of its word
    counts; what the fixed-point steps maximise. ``n_wz`` is word-major (V, Z).
    """
    a = topic_prior(alpha, theta_history)
    prior = word_prior(beta, phi_history)
    prior_total = prior.sum(axis=0)
    n_wz = np.asarray(n_wz, dtype=np.float64)
    n_z = n_wz.sum(axis=0)
    topics = (gammaln(a.sum()) - gammaln(m_z.sum() + a.sum())
              + np.sum(gammaln(m_z + a) - gammaln(a)))
    words = (np.sum(gammaln(prior_total) - gammaln(n_z + prior_total))
             + np.sum(gammaln(n_wz + prior) - gammaln(prior)))
    return float(topics + words)
