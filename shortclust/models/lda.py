"""LDA by collapsed Gibbs sampling, with the incremental LDA of Banerjee & Basu (SDM 2007)."""

import numbers
import time

import numpy as np
from sklearn.utils.validation import check_is_fitted

from shortclust.errors import ParameterError
from shortclust.models import _lda_kernels as kernels
from shortclust.models._validation import as_counts, same_columns
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, NoneOr, Real,
                                    Seed)

__all__ = ["LDA"]

# Uniform draws per kernel call: a sweep's draws are made in slices of whole documents of
# at most this many (one slice holds at least one document), so the memory they take
# does not grow with the corpus. Slicing does not change the numbers drawn.
_DRAWS_PER_CALL = 1 << 20


class LDA(ClusteringModel):
    """Latent Dirichlet Allocation by collapsed Gibbs sampling, as a document clustering.

    Each token's topic is re-sampled in turn from its full conditional (Griffiths &
    Steyvers 2004, Eq. 5; section 2.3 of the SDM 2007 paper)::

        p(z_i = k | z_-i, w) ~ (n_-i,k^(w_i) + beta) / (n_-i,k^(.) + V beta)
                               * (n_-i,k^(d_i) + alpha) / (n_-i,.^(d_i) + K alpha)

    starting from topics drawn uniformly, for ``max_iter`` sweeps over the corpus. The
    topics are then estimated from the last sample (Eq. 6, ``topic_word_``) and so are
    the documents' topic proportions (Eq. 7, ``doc_topic_``); **a document's cluster is
    the argmax of its topic proportions** (ties to the lowest topic; an empty document
    has uniform proportions and cluster 0).

    Parameters
    ----------
    n_clusters : int, default=10
        Number of topics K, hence of clusters at most.
    alpha : float or None, default=None
        Symmetric Dirichlet prior on each document's topic proportions (> 0); None
        means ``50 / n_clusters``, the choice of Griffiths & Steyvers (2004). The SDM
        2007 paper states no value (it ran Griffiths's code).
    beta : float, default=0.1
        Symmetric Dirichlet prior on each topic's word distribution (> 0); 0.1 as in
        Griffiths & Steyvers (2004).
    max_iter : int, default=1000
        Gibbs sweeps over the corpus in ``fit`` (Griffiths & Steyvers ran 1000).
    partial_iter : int, default=10
        Gibbs sweeps over each new document's tokens, the topics held fixed, after the
        tokens are first placed: in :meth:`partial_fit` (incremental LDA) and when
        folding in documents for :meth:`predict` and :meth:`predict_proba`.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the initial topics and of every draw. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster (topic) of each document seen, in the order given; after
        :meth:`partial_fit`, of every document of every batch.
    n_clusters_ : int
        Distinct labels.
    n_iter_ : int
        Sweeps run by the last call: over the corpus for ``fit`` and
        :meth:`batch_step`, over each new document for :meth:`partial_fit`.
    n_batches_ : int
        Calls that added documents: 1 after ``fit``, one more per :meth:`partial_fit`.
    doc_topic_ : ndarray of shape (n_documents, n_clusters)
        Topic proportions theta of each document seen (Eq. 7), rows summing to 1.
    topic_word_ : ndarray of shape (n_clusters, n_features_in_)
        Word distribution phi of each topic (Eq. 6), rows summing to 1.
    topic_word_counts_ : ndarray of shape (n_clusters, n_features_in_)
        Tokens of each word assigned to each topic: int32 from a Gibbs sample; float64
        after :meth:`partial_fit`, which adds expected assignments.
    n_moved_history_ : list of int
        Tokens whose topic changed in each sweep of the last ``fit`` or ``batch_step``.
    sample_seconds_ : float
        Wall time of the sampling of the last call (random draws included; the
        tokens' layout and the initial counts excluded).
    random_state_ : numpy.random.Generator
        The generator of the fit, continued by :meth:`partial_fit` and :meth:`batch_step`.
    n_features_in_ : int
        Vocabulary size V.
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    Tokens are kept as flat arrays (word ids, document offsets), counts as int32 tables
    (word-major topic-word counts); see ``_lda_kernels`` for how a sweep is made fast.

    :meth:`partial_fit` is the incremental LDA of section 3.3 (Song et al. 2005): the
    first call is a batch fit on the initial window; for every later document, in order,
    its tokens are sampled against the current estimate of phi, with the document's own
    topic counts (the conditional above with phi fixed), and phi's counts then grow by
    the document's *expected* assignments (each token's conditional distribution over the
    topics), so the next document sees the updated estimate. Earlier documents never move.
    :meth:`batch_step` is the OFFLINE phase of the hybrid scheme (section 3.4): Gibbs
    sweeps over every document seen so far, from the tokens' current topics.

    :meth:`predict` and :meth:`predict_proba` **fold new documents in**: each is sampled
    as in :meth:`partial_fit` (``partial_iter`` Gibbs sweeps over its tokens with phi
    fixed) but phi is not updated; its proportions come from its expected topic counts.
    The draws come from a generator seeded with ``random_state`` (0 when that is not an
    integer), so repeated calls agree.

    References
    ----------
    T. L. Griffiths and M. Steyvers. Finding scientific topics. PNAS 101, 2004.
    A. Banerjee and S. Basu. Topic models over text streams: a study of batch and online
    unsupervised learning. SDM 2007.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[3, 2, 0, 0], [2, 3, 0, 0], [0, 0, 3, 2], [0, 0, 2, 3]])
    >>> model = LDA(n_clusters=2, beta=0.01, max_iter=50, random_state=0).fit(X)
    >>> labels = model.labels_
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "alpha": NoneOr(Real(0.0, inclusive=False)),
        "beta": Real(0.0, inclusive=False),
        "max_iter": Integer(1),
        "partial_iter": Integer(0),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True)

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """The int32 topic-word and document-topic tables: a lower bound (see
        :meth:`ClusteringModel.memory_bytes`)."""
        k = params.get("n_clusters", 10)
        return None if n_features is None else 4 * k * (n_features + n_docs)

    def __init__(self, *, n_clusters=10, alpha=None, beta=0.1, max_iter=1000,
                 partial_iter=10, random_state=None):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.max_iter = max_iter
        self.partial_iter = partial_iter
        self.random_state = random_state

    # --- fitting ----------------------------------------------------------------------------

    def fit(self, X, y=None, callback=None):
        """Sample the topics of every token of X; cluster each document by its argmax topic.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts, one row per document. Empty rows are
            allowed (uniform proportions, cluster 0).
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each sweep,
            ``n_clusters`` being the distinct argmax topics of the documents then.

        Returns
        -------
        self : LDA
        """
        self._validate_params()
        counts, self.vocabulary_ = as_counts(X)
        rng = np.random.default_rng(self.random_state)
        self._state = _GibbsState.initial(_tokens(counts), counts.shape[1],
                                          self.n_clusters, rng)
        self._run_sweeps(self.max_iter, rng, callback)
        self.random_state_ = rng
        self.n_batches_ = 1
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def partial_fit(self, X_batch, y=None, n_iter=None):
        """Add a batch of documents (incremental LDA, section 3.3).

        The first call on an unfitted model is :meth:`fit` on the batch: batch LDA on the
        initial window. Each later call takes the batch's documents one after another:
        each document's tokens are placed, then re-sampled ``n_iter`` times, against the
        current topic-word estimate (held fixed within the document); the document's
        expected assignments then join that estimate's counts, and its cluster is the
        argmax of its expected topic counts. Earlier documents never move.

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_features_in_) or Corpus
            Word counts over the same vocabulary (columns) as every earlier batch.
        y : ignored
        n_iter : int, optional
            Gibbs sweeps over each new document; default ``partial_iter``. Ignored by the
            first call, which runs ``max_iter`` sweeps over the batch.

        Returns
        -------
        self : LDA

        Raises
        ------
        ParameterError
            For an out-of-range parameter, or a batch whose width or vocabulary differs
            from the model's.
        """
        if n_iter is not None:
            Integer(0).check(n_iter, "n_iter")
        if not hasattr(self, "labels_"):
            return self.fit(X_batch)  # which checks the parameters
        self._validate_params()
        n_iter = self.partial_iter if n_iter is None else n_iter
        tokens = _tokens(self._batch_counts(X_batch))
        state = self._state
        started = time.perf_counter()
        z, expected = _fold_in(tokens, state.float_estimate(), n_iter, True, self._alpha(),
                               self.beta, self.random_state_)
        self.sample_seconds_ = time.perf_counter() - started
        state.append(tokens, z)
        self.labels_ = np.concatenate([self.labels_, _argmax(expected)])
        self.doc_topic_ = np.vstack([self.doc_topic_, self._proportions(expected)])
        self._store_topics()
        self.n_iter_ = n_iter
        self.n_batches_ += 1
        return self

    def batch_step(self, n_iter=1):
        """The OFFLINE phase of the hybrid scheme (section 3.4): Gibbs over all documents.

        The counts are rebuilt from the current topic of every token seen so far (the
        expected counts the stream added are dropped for the sampled topics behind
        them), then ``n_iter`` collapsed Gibbs sweeps run over all of them, as in
        ``fit``; every document's cluster and proportions are refreshed.

        Parameters
        ----------
        n_iter : int, default=1
            Sweeps over every document seen so far.

        Returns
        -------
        self : LDA
        """
        check_is_fitted(self, "labels_")
        Integer(1).check(n_iter, "n_iter")
        self._state.rebuild()
        self._run_sweeps(n_iter, self.random_state_, None)
        return self

    def _run_sweeps(self, n_sweeps, rng, callback):
        """``n_sweeps`` timed sweeps of the state; then store the fitted attributes."""
        state = self._state
        self.n_moved_history_ = []
        self.sample_seconds_ = 0.0
        for iteration in range(1, n_sweeps + 1):
            started = time.perf_counter()
            n_moved = state.sweep(self._alpha(), self.beta, rng)
            self.sample_seconds_ += time.perf_counter() - started
            self.n_moved_history_.append(n_moved)
            if callback is not None:
                callback(iteration, n_sweeps, int(np.unique(_argmax(state.n_dk)).size))
        self.labels_ = _argmax(state.n_dk)
        self.doc_topic_ = self._proportions(state.n_dk)
        self._store_topics()
        self.n_iter_ = n_sweeps

    def _store_topics(self):
        """``topic_word_counts_``, ``topic_word_`` and ``n_clusters_`` from the state."""
        phi_w, phi_total = self._state.estimate()
        self.topic_word_counts_ = np.ascontiguousarray(phi_w.T)
        self.topic_word_ = (self.topic_word_counts_ + self.beta) / (
            phi_total[:, None] + phi_w.shape[0] * self.beta)
        self.n_features_in_ = phi_w.shape[0]
        self.n_clusters_ = int(np.unique(self.labels_).size)

    def _batch_counts(self, X_batch):
        """The batch as checked counts over the model's vocabulary."""
        counts, vocabulary = as_counts(X_batch)
        if counts.shape[1] != self.n_features_in_:
            raise ParameterError(
                f"X_batch has {counts.shape[1]} word columns but the model has "
                f"{self.n_features_in_}: build every batch with the same vocabulary"
            )
        known = self.vocabulary_
        if vocabulary is not None and known is not None and vocabulary != known:
            raise ParameterError(
                "X_batch's vocabulary differs from the model's (same width, other words): "
                "build every batch with the same vocabulary"
            )
        return counts

    # --- new documents ----------------------------------------------------------------------

    def predict_proba(self, X):
        """Topic proportions of new documents, folded in against the fitted topics.

        Each document's tokens are sampled with phi fixed (``partial_iter`` sweeps after
        placing them, as :meth:`partial_fit` does, without updating phi); the
        proportions are ``(expected counts + alpha) / (length + K alpha)`` (Eq. 7).

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_features_in_) or Corpus

        Returns
        -------
        ndarray of shape (n_documents, n_clusters)
            Rows summing to 1.
        """
        return self._proportions(self._fold_in_expected(X))

    def predict(self, X):
        """Cluster of new documents: the argmax of their folded-in proportions."""
        return _argmax(self._fold_in_expected(X))

    def _fold_in_expected(self, X):
        check_is_fitted(self, "labels_")
        tokens = _tokens(same_columns(X, self.n_features_in_))
        seed = self.random_state if isinstance(self.random_state, numbers.Integral) else 0
        _, expected = _fold_in(tokens, self._state.estimate(), self.partial_iter, False,
                               self._alpha(), self.beta, np.random.default_rng(seed))
        return expected

    def top_words(self, n=10, vocabulary=None):
        """The ``n`` most probable words of each topic under phi (Eq. 6).

        Parameters
        ----------
        n : int, default=10
        vocabulary : sequence of str, optional
            Column words; defaults to the Corpus vocabulary seen in ``fit``, else column
            indices are returned.

        Returns
        -------
        list of list of (word, weight)
            One list per topic, most probable word first.
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        result = []
        for row in self.topic_word_:
            top = np.argsort(-row, kind="stable")[:n]
            result.append([(words[w] if words is not None else int(w), float(row[w]))
                           for w in top])
        return result

    # --- helpers ----------------------------------------------------------------------------

    def _alpha(self):
        """The document-topic prior: ``alpha``, or 50 / K when it is None."""
        return float(50.0 / self.n_clusters if self.alpha is None else self.alpha)

    def _proportions(self, doc_counts):
        """theta (Eq. 7) from (expected) document-topic counts."""
        alpha = self._alpha()
        counts = np.asarray(doc_counts, dtype=np.float64)
        return (counts + alpha) / (counts.sum(axis=1, keepdims=True) + counts.shape[1] * alpha)


def _argmax(doc_counts):
    """Each document's topic of largest count, the lowest on ties (int64)."""
    return np.argmax(doc_counts, axis=1).astype(np.int64)


class _Tokens:
    """Flat tokens: ``ptr`` (int64, document offsets, length D + 1) and ``words`` (int32)."""

    def __init__(self, ptr, words):
        self.ptr, self.words = ptr, words

    @property
    def n_docs(self):
        return self.ptr.shape[0] - 1

    def longest(self):
        """Tokens of the longest document (0 without documents)."""
        return int(np.diff(self.ptr).max()) if self.n_docs else 0

    def ranges(self, draws_per_token):
        """``(first, last)`` document ranges needing at most ``_DRAWS_PER_CALL`` draws each
        (a longer document makes a range of its own)."""
        first = 0
        while first < self.n_docs:
            limit = self.ptr[first] + max(1, _DRAWS_PER_CALL // draws_per_token)
            last = int(np.searchsorted(self.ptr, limit, side="right")) - 1
            last = min(max(last, first + 1), self.n_docs)
            yield first, last
            first = last


def _tokens(counts):
    """The tokens of CSR counts: each word repeated as often as it occurs, in column order."""
    words = np.repeat(counts.indices, counts.data).astype(np.int32)
    ptr = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts.sum(axis=1, dtype=np.int64)).ravel(), out=ptr[1:])
    return _Tokens(ptr, words)


def _fold_in(tokens, estimate, n_sweeps, update, alpha, beta, rng):
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


class _GibbsState:
    """Every token seen, its topic, and the count tables the kernels update.

    After :meth:`LDA.partial_fit`, ``phi_w``/``phi_total`` hold the incremental estimate
    (float64 counts, the Gibbs counts plus the streamed documents' expected assignments)
    and ``n_dk`` covers only the documents sampled by Gibbs; :meth:`rebuild` makes all
    tables those of the current topics of every token again.
    """

    def __init__(self, tokens, z, n_words, n_topics):
        self.tokens, self.z = tokens, z
        self.n_dk = np.zeros((tokens.n_docs, n_topics), dtype=np.int32)
        self.n_wk = np.zeros((n_words, n_topics), dtype=np.int32)
        self.n_k = np.zeros(n_topics, dtype=np.int32)
        self.phi_w = self.phi_total = None
        self.scratch = (np.empty(n_topics), np.empty(n_topics))
        kernels.build_counts(tokens.ptr, tokens.words, z, self.n_dk, self.n_wk, self.n_k)

    @classmethod
    def initial(cls, tokens, n_words, n_topics, rng):
        """Every token in a topic drawn uniformly."""
        z = rng.integers(0, n_topics, size=tokens.words.shape[0]).astype(np.int32)
        return cls(tokens, z, n_words, n_topics)

    def sweep(self, alpha, beta, rng):
        """One Gibbs sweep over every token (draws made slice by slice); tokens moved."""
        tokens = self.tokens
        v_beta = self.n_wk.shape[0] * beta
        n_moved = 0
        for first, last in tokens.ranges(1):
            uniforms = rng.random(int(tokens.ptr[last] - tokens.ptr[first]))
            n_moved += kernels.gibbs_sweep(tokens.ptr, tokens.words, first, last, self.z,
                                           self.n_dk, self.n_wk, self.n_k, alpha, beta,
                                           v_beta, uniforms, *self.scratch)
        return int(n_moved)

    def estimate(self):
        """``(phi_w, phi_total)``: the topic-word counts phi is estimated from."""
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
        old = self.tokens
        ptr = np.concatenate([old.ptr, old.ptr[-1] + tokens.ptr[1:]])
        self.tokens = _Tokens(ptr, np.concatenate([old.words, tokens.words]))
        self.z = np.concatenate([self.z, z])

    def rebuild(self):
        """All tables from the current topics of every token; the float estimate dropped."""
        n_topics = self.n_k.shape[0]
        self.n_dk = np.zeros((self.tokens.n_docs, n_topics), dtype=np.int32)
        kernels.build_counts(self.tokens.ptr, self.tokens.words, self.z, self.n_dk,
                             self.n_wk, self.n_k)
        self.phi_w = self.phi_total = None
