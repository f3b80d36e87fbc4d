"""LDA by collapsed Gibbs sampling, with the incremental LDA of Banerjee & Basu (SDM 2007)."""

import numbers
import time

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.hybrid import HYBRID_CONSTRAINTS, HybridStreamMixin
from shortclust.models.lda._state import GibbsState, Growable, Tokens, fold_in
from shortclust.models.common.validation import as_counts, same_columns, stream_batch
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, NoneOr, Real,
                                    Seed)
from shortclust.models.common.invariants import FITTED_INVARIANTS
from shortclust.models.common.threads import MAX_GENERATOR_BLOCKS

__all__ = ["LDA"]


class LDA(HybridStreamMixin, ClusteringModel):
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
    offline_every : float in (0, 1] or None, default=None
        Hybrid scheme (section 3.4): the fraction of the stream between OFFLINE steps, each
        one Gibbs sweep over every document seen; None is the plain incremental LDA.
    stream_length : int or None, default=None
        Hybrid scheme: documents in the whole stream (needed with ``offline_every``; a
        stream experiment fills it in).
    threads : int, default=1
        1: the exact sequential collapsed Gibbs sweep (the reference). T > 1: each sweep is
        an AD-LDA sweep (Newman et al. 2009) over T blocks of documents of about equal
        tokens, run in up to T threads (numba ``prange``): every block samples against the
        counts as they were at the start of the sweep and the blocks' changes are merged
        after it. An approximation of the sequential chain, not the same chain: labels
        differ from ``threads=1``; they depend on T and the seed only, not on how many
        threads ran. See :mod:`shortclust.models.lda._parallel`.
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
        ``max_iter`` after ``fit``; after a later :meth:`partial_fit`, 1 for its STREAM
        pass plus its OFFLINE steps.
    n_seen_ : int
        Documents seen.
    offline_at_ : list of int
        Documents seen when each OFFLINE step ran.
    n_batches_ : int
        Calls that added documents: 1 after ``fit``, one more per :meth:`partial_fit`.
    doc_topic_ : ndarray of shape (n_documents, n_clusters)
        Topic proportions theta of each document seen (Eq. 7), rows summing to 1.
    topic_word_ : ndarray of shape (n_clusters, n_features_in_)
        Word distribution phi of each topic (Eq. 6), rows summing to 1.
    topic_proportions_ : ndarray of shape (n_clusters,)
        Corpus-level topic proportions from the topic totals and alpha, summing to 1.
    topic_word_counts_ : ndarray of shape (n_clusters, n_features_in_)
        Tokens of each word assigned to each topic: int32 from a Gibbs sample; float64
        after :meth:`partial_fit`, which adds expected assignments. A view of the
        model's live counts, which change as it learns: copy it to keep it.
    topic_totals_ : ndarray of shape (n_clusters,)
        Tokens assigned to each topic (the row sums of ``topic_word_counts_``), live too.
    n_moved_history_ : list of int
        Tokens whose topic changed in each sweep of the last ``fit`` or OFFLINE step.
    sample_seconds_ : float
        Wall time of the sampling of the last call (random draws included; the
        tokens' layout and the initial counts excluded).
    random_state_ : numpy.random.Generator
        The generator of the fit, continued by :meth:`partial_fit`.
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
    With ``offline_every`` and ``stream_length`` it is the hybrid scheme of section 3.4
    (``_hybrid``): at each scheduled point of the stream, an OFFLINE step, one collapsed
    Gibbs sweep over every document seen so far from its tokens' current topics, the
    counts first rebuilt from those topics. A model loaded from a file keeps its topics,
    not its tokens: it predicts and streams on exactly as the saved one would, without
    OFFLINE steps.

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
        "threads": Integer(1, maximum=MAX_GENERATOR_BLOCKS,
                           why="one numba Generator per block: NUMBA_PARFOR_MAX_TUPLE_SIZE"),
        **HYBRID_CONSTRAINTS,
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True, topics=True)
    #: What a saved model keeps (:mod:`shortclust.models.state`): the topics ``predict``
    #: reads and the stream continues from. The tokens (the input of OFFLINE steps) are not
    #: kept: a loaded model predicts and streams on, but refuses OFFLINE steps.
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_", "n_batches_",
                          "random_state_", "doc_topic_", "topic_word_counts_", "topic_totals_",
                          "offline_at_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["lda"]

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """The int32 topic-word and document-topic tables (the topic-word table once more
        per block with ``threads`` > 1): a lower bound (see
        :meth:`ClusteringModel.memory_bytes`)."""
        params = {**cls().get_params(), **params}
        k, threads = params["n_clusters"], params["threads"]
        copies = 1 + (threads if threads > 1 else 0)
        return None if n_features is None else 4 * k * (copies * n_features + n_docs)

    # Added after runs were archived; 1 is what ran before.
    _parameters_added_later = {"threads": 1}

    def __init__(self, *, n_clusters=10, alpha=None, beta=0.1, max_iter=1000,
                 partial_iter=10, offline_every=None, stream_length=None, threads=1,
                 random_state=None):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.max_iter = max_iter
        self.partial_iter = partial_iter
        self.offline_every = offline_every
        self.stream_length = stream_length
        self.threads = threads
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
        self._validate_stream_params()
        counts, self.vocabulary_ = as_counts(X)
        rng = np.random.default_rng(self.random_state)
        self._state = GibbsState.initial(Tokens.from_counts(counts), counts.shape[1],
                                         self.n_clusters, rng)
        labels = self._run_sweeps(self.max_iter, rng, callback)
        self._stream_restart(counts if self.offline_every is not None else None, labels)
        self.random_state_ = rng
        self.n_batches_ = 1
        self.n_iter_ = self.max_iter
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def partial_fit(self, X_batch, y=None):
        """Add a batch of documents (incremental LDA, section 3.3; hybrid, section 3.4).

        The first call on an unfitted model is :meth:`fit` on the batch: batch LDA on the
        initial window. Each later call takes the batch's documents one after another:
        each document's tokens are placed, then re-sampled ``partial_iter`` times,
        against the current topic-word estimate (held fixed within the document); the
        document's expected assignments then join that estimate's counts, and its cluster
        is the argmax of its expected topic counts. Earlier documents keep their clusters,
        except at an OFFLINE step (with ``offline_every``): one Gibbs sweep over every
        document seen, which relabels them all.

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_features_in_) or Corpus
            Word counts over the same vocabulary (columns) as every earlier batch.
        y : ignored

        Returns
        -------
        self : LDA

        Raises
        ------
        ParameterError
            For an out-of-range parameter, a batch whose width or vocabulary differs from
            the model's, or ``n_clusters`` changed since the fit.
        """
        if not hasattr(self, "n_seen_"):
            return self.fit(X_batch)  # which checks the parameters
        self._check_topics()
        super().partial_fit(X_batch)
        self.n_batches_ += 1
        return self

    def _check_topics(self):
        """Refuse to continue a fit with another number of topics than it has."""
        if self.n_clusters != self._state.n_topics:
            raise ParameterError(
                f"n_clusters={self.n_clusters} differs from the {self._state.n_topics} "
                "topics fitted: set it back or refit"
            )

    # --- the stream (HybridStreamMixin's hooks; fit starts the stream) -------------------------

    def _stream_rows(self, X_batch):
        """The batch as checked counts over the model's vocabulary."""
        return stream_batch(X_batch, self.n_features_in_, getattr(self, "vocabulary_", None))

    def _stream_step(self, rows):
        """The STREAM phase (section 3.3) on checked counts: their documents, in order,
        sampled against the current estimates, which each one's expected assignments then
        update; the documents' tokens join the state. Returns their labels."""
        tokens = Tokens.from_counts(rows)
        started = time.perf_counter()
        z, expected = fold_in(tokens, self._state.float_estimate(), self.partial_iter, True,
                              self._alpha(), self.beta, self.random_state_)
        self.sample_seconds_ = time.perf_counter() - started
        self._state.append(tokens, z)
        self._doc_topic.extend(self._proportions(expected))
        self._publish()
        return _argmax(expected)

    def _batch_step(self, seen):
        """The OFFLINE phase (section 3.4): one collapsed Gibbs sweep over every document
        seen, from every token's current topic (the counts rebuilt from those topics: the
        expected counts the stream added give way to the sampled topics behind them).
        Returns every document's label."""
        state = self._state
        if not state.complete or seen.shape[0] != state.tokens.n_docs:
            raise ParameterError(
                "this model's tokens are not all at hand (a model loaded from a file keeps "
                "its topics only): refit it to run OFFLINE steps")
        state.rebuild()
        return self._run_sweeps(1, self.random_state_, None)

    def _run_sweeps(self, n_sweeps, rng, callback):
        """``n_sweeps`` timed sweeps of the state; the documents' proportions and topics
        published; returns every document's label (argmax of its topic counts)."""
        state = self._state
        self.n_moved_history_ = []
        self.sample_seconds_ = 0.0
        for iteration in range(1, n_sweeps + 1):
            started = time.perf_counter()
            n_moved = state.sweep(self._alpha(), self.beta, rng, self.threads)
            self.sample_seconds_ += time.perf_counter() - started
            self.n_moved_history_.append(n_moved)
            if callback is not None:
                callback(iteration, n_sweeps, int(np.unique(_argmax(state.n_dk)).size))
        state.drop_scratch()
        self._doc_topic = Growable(self._proportions(state.n_dk))
        self._publish()
        return _argmax(state.n_dk)

    def _publish(self):
        """The fitted attributes that view the state: proportions and topic counts."""
        phi_w, phi_total = self._state.estimate()
        self.doc_topic_ = self._doc_topic.array
        self.topic_word_counts_ = phi_w.T  # a view: it follows the counts as they change
        self.topic_totals_ = phi_total
        self.n_features_in_ = phi_w.shape[0]

    def _restore_fitted(self):
        """After a load: the state from the saved topics (without tokens), the buffers."""
        self._relabel(self.labels_)
        self._repository = None  # not saved: a loaded hybrid model refuses OFFLINE steps
        self._state = GibbsState.from_topics(self.topic_word_counts_, self.topic_totals_)
        self._doc_topic = Growable(self.doc_topic_)
        self._publish()

    @property
    def topic_word_(self):
        """Each topic's word distribution phi (Eq. 6), (n_clusters, n_features_in_)."""
        check_is_fitted(self, "labels_")
        counts, totals = self.topic_word_counts_, self.topic_totals_
        return (counts + self.beta) / (totals[:, None] + counts.shape[1] * self.beta)

    @property
    def topic_proportions_(self):
        """The corpus-level topic proportions, (n_clusters,), summing to 1.

        ``theta_k = (n_k + alpha) / (n + K alpha)`` from the tokens assigned to each topic
        (``topic_totals_``; expected assignments after :meth:`partial_fit`), the same
        smoothing as a document's proportions (Eq. 7) applied to the whole corpus. It lets
        stream perplexity score LDA like the one-topic-per-document models
        (:mod:`shortclust.evaluation.perplexity`).
        """
        check_is_fitted(self, "labels_")
        totals = np.asarray(self.topic_totals_, dtype=np.float64)
        alpha = self._alpha()
        return (totals + alpha) / (totals.sum() + totals.size * alpha)

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
        tokens = Tokens.from_counts(same_columns(X, self.n_features_in_))
        seed = self.random_state if isinstance(self.random_state, numbers.Integral) else 0
        _, expected = fold_in(tokens, self._state.estimate(), self.partial_iter, False,
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
