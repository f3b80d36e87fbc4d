"""What :class:`~shortclust.models.lda.lda.LDA` samples: flat tokens, their topics, the counts.

Private: use the estimator. The kernels (``_lda_kernels``) work on the arrays kept here;
this module lays the tokens out, draws the uniforms slice by slice and keeps the state a
stream grows (:class:`Growable` arrays, so that adding a batch costs time in proportion
to the batch, not to everything seen).
"""

import numpy as np

from shortclust.models.lda import _kernels as kernels

# Uniform draws per kernel call: a sweep's draws are made in slices of whole documents of
# at most this many (one slice holds at least one document), so the memory they take
# does not grow with the corpus. Slicing does not change the numbers drawn.
DRAWS_PER_CALL = 1 << 20


class Growable:
    """An array that grows along its first axis, amortised O(1) per row (capacity doubles).

    Examples
    --------
    >>> rows = Growable(np.array([1, 2]))
    >>> rows.extend(np.array([3]))
    >>> rows.array.tolist()
    [1, 2, 3]
    """

    def __init__(self, initial):
        self._data = np.array(initial)  # a copy: the caller's array is never written
        self._size = self._data.shape[0]

    @property
    def array(self):
        """The rows so far (a view, valid until the next :meth:`extend`)."""
        return self._data[:self._size]

    def extend(self, rows):
        """Append ``rows`` (same trailing shape and a castable dtype)."""
        needed = self._size + rows.shape[0]
        if needed > self._data.shape[0]:
            grown = np.empty((max(needed, 2 * self._data.shape[0]), *self._data.shape[1:]),
                             dtype=self._data.dtype)
            grown[:self._size] = self._data[:self._size]
            self._data = grown
        self._data[self._size:needed] = rows
        self._size = needed


class Tokens:
    """Flat tokens: ``ptr`` (int64, document offsets, length D + 1) and ``words`` (int32)."""

    def __init__(self, ptr, words):
        self.ptr, self.words = ptr, words

    @classmethod
    def from_counts(cls, counts):
        """The tokens of CSR counts: each word repeated as often as it occurs, in column
        order."""
        words = np.repeat(counts.indices, counts.data).astype(np.int32)
        ptr = np.zeros(counts.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.asarray(counts.sum(axis=1, dtype=np.int64)).ravel(), out=ptr[1:])
        return cls(ptr, words)

    @property
    def n_docs(self):
        return self.ptr.shape[0] - 1

    def longest(self):
        """Tokens of the longest document (0 without documents)."""
        return int(np.diff(self.ptr).max()) if self.n_docs else 0

    def ranges(self, draws_per_token):
        """``(first, last)`` document ranges needing at most :data:`DRAWS_PER_CALL` draws
        each (a longer document makes a range of its own)."""
        first = 0
        while first < self.n_docs:
            limit = self.ptr[first] + max(1, DRAWS_PER_CALL // draws_per_token)
            last = int(np.searchsorted(self.ptr, limit, side="right")) - 1
            last = min(max(last, first + 1), self.n_docs)
            yield first, last
            first = last


def fold_in(tokens, estimate, n_sweeps, update, alpha, beta, rng):
    """Topics and expected topic counts of the documents of ``tokens`` (``kernels.fold_in``).

    ``estimate`` is ``(phi_w, phi_total)``, updated in place when ``update``. Returns the
    tokens' topics (int32) and the expected counts (documents x K).
    """
    phi_w, phi_total = estimate
    n_topics = phi_total.shape[0]
    z = np.zeros(tokens.words.shape[0], dtype=np.int32)
    expected = np.zeros((tokens.n_docs, n_topics))
    scratch = (np.empty(n_topics), np.empty((max(tokens.longest(), 1), n_topics)),
               np.empty(n_topics, dtype=np.int32), np.empty(n_topics))
    draws_per_token = 1 + n_sweeps
    for first, last in tokens.ranges(draws_per_token):
        uniforms = rng.random(draws_per_token * int(tokens.ptr[last] - tokens.ptr[first]))
        kernels.fold_in(tokens.ptr, tokens.words, first, last, z, phi_w, phi_total, alpha,
                        beta, phi_w.shape[0] * beta, n_sweeps, update, uniforms,
                        expected[first:last], *scratch)
    return z, expected


class GibbsState:
    """Every token seen, its topic, and the count tables the kernels update.

    After a streamed batch (:meth:`append`), ``phi_w``/``phi_total`` hold the incremental
    estimate (float64 counts: the Gibbs counts plus the streamed documents' expected
    assignments) and ``n_dk`` covers only the documents sampled by Gibbs; :meth:`rebuild`
    makes every table that of the current topics of all tokens again.
    """

    def __init__(self, tokens, z, n_words, n_topics, complete=True):
        self._ptr, self._words, self._z = Growable(tokens.ptr), Growable(tokens.words), \
            Growable(z)
        self.n_wk = np.zeros((n_words, n_topics), dtype=np.int32)
        self.n_k = np.zeros(n_topics, dtype=np.int32)
        self.phi_w = self.phi_total = None
        self.scratch = (np.empty(n_topics), np.empty(n_topics))
        #: The parallel sweep's per-block copies and draws, kept between its sweeps.
        self._blocks = None
        #: Whether every token behind the counts is here (not so for a loaded model).
        self.complete = complete
        self.rebuild()

    @classmethod
    def from_topics(cls, topic_word, topic_totals):
        """A state holding the counts of a saved model and no tokens (``complete`` False).

        ``topic_word`` is topics x words: int32 counts of a Gibbs sample, or float64
        counts with streamed expected assignments (which become ``phi_w``).
        """
        n_topics, n_words = topic_word.shape
        state = cls(Tokens(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)),
                    np.zeros(0, dtype=np.int32), n_words, n_topics, complete=False)
        if topic_word.dtype == np.int32:
            state.n_wk[:] = topic_word.T
            state.n_k[:] = topic_totals
        else:
            # A copy: the saved array may be a live view of another model's counts.
            state.phi_w = np.array(topic_word.T, dtype=np.float64, order="C")
            state.phi_total = np.array(topic_totals, dtype=np.float64)
        return state

    @classmethod
    def initial(cls, tokens, n_words, n_topics, rng):
        """Every token in a topic drawn uniformly."""
        z = rng.integers(0, n_topics, size=tokens.words.shape[0]).astype(np.int32)
        return cls(tokens, z, n_words, n_topics)

    @property
    def tokens(self):
        return Tokens(self._ptr.array, self._words.array)

    @property
    def z(self):
        """The topic of every token seen (a view)."""
        return self._z.array

    @property
    def n_topics(self):
        return self.n_k.shape[0]

    def sweep(self, alpha, beta, rng, threads=1):
        """One Gibbs sweep over every token (draws made slice by slice); tokens moved.

        ``threads > 1``: an AD-LDA sweep over that many blocks of documents
        (:mod:`~shortclust.models.lda._parallel`), each block's uniforms drawn in its
        thread by a generator seeded from ``rng``.
        """
        tokens, z = self.tokens, self.z
        v_beta = self.n_wk.shape[0] * beta
        if threads > 1:
            return self._parallel_sweep(alpha, beta, v_beta, rng, threads)
        n_moved = 0
        for first, last in tokens.ranges(1):
            uniforms = rng.random(int(tokens.ptr[last] - tokens.ptr[first]))
            n_moved += kernels.gibbs_sweep(tokens.ptr, tokens.words, first, last, z,
                                           self.n_dk, self.n_wk, self.n_k, alpha, beta,
                                           v_beta, uniforms, *self.scratch)
        return int(n_moved)

    def _parallel_sweep(self, alpha, beta, v_beta, rng, threads):
        from shortclust.models.common.threads import block_bounds, block_scratch, thread_limit
        from shortclust.models.lda import _parallel

        tokens = self.tokens
        bounds = block_bounds(tokens.ptr, threads)
        n_words, n_topics = self.n_wk.shape
        n_tokens = int(tokens.ptr[-1])
        key = (threads, n_words, n_topics, n_tokens)
        if self._blocks is None or self._blocks[0] != key:
            # Kept between sweeps: a fresh 17 MB for the uniforms per sweep (20NG) costs
            # page faults.
            self._blocks = (key, np.empty(n_tokens),
                            block_scratch(threads, (n_words, n_topics), self.n_wk.dtype),
                            block_scratch(threads, (n_topics,), self.n_k.dtype),
                            block_scratch(threads, (n_topics,)),
                            block_scratch(threads, (n_topics,)))
        generators = _parallel.block_generators(rng, threads)
        with thread_limit(threads):
            return int(_parallel.ad_lda_sweep(tokens.ptr, tokens.words, bounds, self.z,
                                              self.n_dk, self.n_wk, self.n_k, alpha, beta,
                                              v_beta, generators, *self._blocks[1:]))

    def drop_scratch(self):
        """Free what the parallel sweep keeps between sweeps (B copies of the counts)."""
        self._blocks = None

    def estimate(self):
        """``(phi_w, phi_total)``: the topic-word counts (word-major) phi is estimated from."""
        if self.phi_w is None:
            return self.n_wk, self.n_k
        return self.phi_w, self.phi_total

    def float_estimate(self):
        """:meth:`estimate` as float64 counts, which expected assignments can join."""
        if self.phi_w is None:
            self.phi_w = self.n_wk.astype(np.float64)
            self.phi_total = self.n_k.astype(np.float64)
        return self.phi_w, self.phi_total

    def append(self, tokens, z):
        """Add a streamed batch's tokens and topics (their counts are in ``phi_w``)."""
        self._ptr.extend(self._ptr.array[-1] + tokens.ptr[1:])
        self._words.extend(tokens.words)
        self._z.extend(z)

    def rebuild(self):
        """Every table from the current topics of all tokens; the float estimate dropped.

        Only for a complete state: a loaded model's counts have no tokens behind them.
        """
        tokens = self.tokens
        self.n_dk = np.zeros((tokens.n_docs, self.n_topics), dtype=np.int32)
        kernels.build_counts(tokens.ptr, tokens.words, self.z, self.n_dk, self.n_wk,
                             self.n_k)
        self.phi_w = self.phi_total = None
