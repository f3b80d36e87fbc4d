"""GSDMM: collapsed Gibbs sampling for the Dirichlet Multinomial Mixture."""

import time

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.dmm import _gsdmm_kernels as kernels
from shortclust.models.dmm._common import (
    DMMMixin,
    binarised,
    column_sums,
    count_dtype,
    count_dtype_for,
    doc_arrays,
    zero_stats,
)
from shortclust.models.common.validation import as_counts, stream_batch
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Options, Real,
                                    Seed)
from shortclust.models.common.invariants import FITTED_INVARIANTS
from shortclust.models.common.threads import MAX_BLOCKS

# count_dtype lives in _dmm_common (GSDPMM uses it too); importable from here as before.
__all__ = ["GSDMM", "count_dtype"]


class GSDMM(DMMMixin, ClusteringModel):
    """Gibbs Sampling Dirichlet Multinomial Mixture for short-text clustering.

    Every document belongs to exactly one cluster. Documents start in clusters drawn
    uniformly from ``n_clusters`` (Algorithm 1); each iteration re-samples every
    document's cluster from the collapsed conditional (Eq. 4, or Eq. 3). Clusters that
    empty out may be re-opened later, so ``n_clusters`` is an upper bound and the
    number found (``n_clusters_``) is inferred from the data.

    Parameters
    ----------
    n_clusters : int, default=8
        Initial (maximum) number of clusters K; the paper uses 500, or 300 for scaling.
    alpha : float, default=0.1
        Symmetric Dirichlet prior on cluster weights (>= 0). Larger alpha makes empty
        clusters more likely to be chosen (section 3.1).
    beta : float, default=0.1
        Symmetric Dirichlet prior on each cluster's word distribution (> 0). Smaller
        beta gives more, more homogeneous clusters (section 4.7).
    max_iter : int, default=30
        Number of Gibbs sweeps I over the corpus.
    likelihood : {"eq4", "eq3"}, default="eq4"
        ``"eq4"`` lets a word repeat within a document (Eq. 4). ``"eq3"`` assumes each
        word occurs at most once per document (Eq. 3): documents are binarised first.
    partial_iter : int, default=2
        Gibbs sweeps over each new batch in :meth:`partial_fit` after its documents are
        classified (0: classification only, the paper's plain NBC update). Two sweeps
        let a batch's documents leave the cluster a greedy classification gave them and
        open clusters for topics the earlier batches lacked, at a small cost per batch.
    threads : int, default=1
        1: the exact sequential sweep of Algorithm 1 (the reference). B > 1: the first
        sweep of ``fit``, from the random initial clusters, is the sequential one; every
        later sweep (and every sweep of :meth:`partial_fit` after the first call, whose
        batch starts from its classification, not at random) cuts the documents into B
        blocks of about equal tokens, sampled in up to B threads (numba ``prange``), each
        against a private copy of ``m_z``, ``n_z``, ``n_z^w`` taken at the start of the
        sweep; the copies' changes are merged after the sweep, and clusters opened by
        different blocks stay different clusters. An approximation of the sequential
        chain, as AD-LDA is of LDA's (Newman et al. 2009): labels differ from
        ``threads=1``; they depend on B and the seed only, not on how many threads ran or
        in which order. Why the first sweep stays sequential: sampled in blocks, each
        block of it sees the other blocks still at their random start, and on GoogleNews-T
        x16 that sweep alone sent the chain to a different mode (NMI 0.70 against 0.68 over
        20 seeds); see :mod:`shortclust.models.dmm._gsdmm_parallel`.
        At most 1,024 (``MAX_BLOCKS``: each block holds its own copy of the counts).
    random_state : int, numpy.random.Generator or None, default=None
        Seed for the initial assignment and the sampling. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster of each training document, numbered ``0..n_clusters_-1``; after
        :meth:`partial_fit`, of every document seen so far, in the order given.
    n_clusters_ : int
        Number of non-empty clusters after the last sweep.
    n_iter_ : int
        Number of sweeps run (by the last call, for :meth:`partial_fit`).
    n_batches_ : int
        Calls that added documents: 1 after ``fit``, one more per ``partial_fit``.
    random_state_ : numpy.random.Generator
        The generator of the fit, continued by :meth:`partial_fit`.
    cluster_sizes_ : ndarray of shape (n_clusters_,)
        Documents per cluster, m_z.
    cluster_word_counts_ : ndarray of shape (n_clusters_, n_features_in_)
        Word occurrences per cluster, n_z^w.
    topic_proportions_ : ndarray of shape (n_clusters_,)
        Cluster weights theta, proportional to (m_z + alpha) (computed, not saved).
    topic_word_ : ndarray of shape (n_clusters_, n_features_in_)
        Cluster word distributions phi, ``(n_z^w + beta) / (n_z + V beta)`` (computed).
    n_clusters_history_ : list of int
        Non-empty clusters after each sweep of the last call (Figure 3 of the paper).
    n_moved_history_ : list of int
        Documents that changed cluster in each sweep of the last call.
    sample_seconds_ : float
        Wall time spent in the Gibbs sweeps of the last call (initialisation and
        compilation excluded; for :meth:`partial_fit` the classification included).
    n_features_in_ : int
        Vocabulary size V.
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    Eq. 4 (Yin & Wang 2014), for document d with N_d tokens and N_d^w occurrences of w::

        p(z_d = z | z_-d, d) ~ (m_z,-d + alpha)
                               * prod_w prod_{j=1..N_d^w} (n_z,-d^w + beta + j - 1)
                               / prod_{i=1..N_d} (n_z,-d + V beta + i - 1)

    (the constant D - 1 + K alpha is dropped). The kernel keeps counts word-major,
    multiplies running products with periodic rescaling instead of taking logs, and
    samples empty clusters as one slot; the distribution sampled is Eq. 4 exactly
    (see ``_gsdmm_kernels``). ``top_words`` uses the posterior mean of Eq. 9 and
    ``predict_proba`` the Naive Bayes form of Eq. 4 against the fitted counts
    (section 3.2), over the ``n_clusters_`` clusters found.

    :meth:`partial_fit` is the incremental clustering that sections 3.2 and 4.8 propose:
    the first call fits, later calls classify each new document with the Naive Bayes
    classifier learned by GSDMM (Eq. 4 over the current counts) and update the counts
    before the next document, then re-sample only the new batch for ``partial_iter``
    sweeps. Earlier documents never move, so their clusters never empty and their
    labels never change.

    References
    ----------
    J. Yin and J. Wang. A Dirichlet multinomial mixture model-based approach for short
    text clustering. KDD 2014.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> model = GSDMM(n_clusters=4, alpha=0.1, beta=0.01, max_iter=20, random_state=0)
    >>> labels = model.fit_predict(X)
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "max_iter": Integer(1),
        "partial_iter": Integer(0),
        "alpha": Real(0.0, inclusive=True),
        "beta": Real(0.0, inclusive=False),
        "likelihood": Options("eq4", "eq3"),
        "threads": Integer(1, maximum=MAX_BLOCKS,
                           why="one copy of the counts per block: no machine has more cores"),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True, topics=True)
    # random_state_ too: a loaded model's partial_fit continues the fit's generator.
    _fitted_attributes = DMMMixin._fitted_attributes + ("n_batches_", "random_state_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["gsdmm"]

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """The word-major counts n_wz (V x K, at least 2 bytes each; one more copy per
        block with ``threads`` > 1) and the per-cluster arrays: a lower bound (see
        :meth:`ClusteringModel.memory_bytes`)."""
        k = params["n_clusters"]
        threads = params.get("threads", 1)
        copies = 1 + (threads if threads > 1 else 0)
        return None if n_features is None else copies * n_features * k * 2 + 4 * k * 8

    # Added after runs were archived; 1 is what ran before.
    _parameters_added_later = {"threads": 1}

    def __init__(self, *, n_clusters=8, alpha=0.1, beta=0.1, max_iter=30,
                 likelihood="eq4", partial_iter=2, threads=1, random_state=None):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.max_iter = max_iter
        self.likelihood = likelihood
        self.partial_iter = partial_iter
        self.threads = threads
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts, one row per document. Empty rows are
            allowed: such a document is placed by cluster popularity alone.
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each sweep.

        Returns
        -------
        self : GSDMM
        """
        self._validate_params()
        counts, self.vocabulary_ = as_counts(X)
        counts = self._model_counts(counts)
        rng = np.random.default_rng(self.random_state)
        state = _SamplerState.initial(counts, self.n_clusters, self.alpha, self.beta, rng)
        state.threads = self.threads
        self._run_sweeps(state, rng, callback)
        self.n_batches_ = 1
        self.random_state_ = rng
        return self

    def partial_fit(self, X_batch, y=None, n_iter=None):
        """Add a batch of documents to the clustering (incremental GSDMM, section 3.2).

        The first call on an unfitted model is :meth:`fit` on the batch (same seed, same
        labels). Each later call, or a call after ``fit``:

        1. classifies the batch's documents one after another, each into its most
           probable cluster under Eq. 4 given the current counts, and adds it to the
           counts before the next (the Naive Bayes classifier learned by GSDMM). A
           document may open an empty cluster, as Eq. 4 allows, while one of the
           ``n_clusters`` slots is free. The empty clusters are interchangeable, so, as
           in the sampler, they compete as one candidate, "a new cluster", with their
           total weight: the choice is the most probable placement, join cluster k or
           start a new one. (Comparing against a single empty cluster's weight almost
           never opens one, as an occupied cluster's prior m_z + alpha outweighs
           alpha: on MStream-News-T in 16 batches with K = 500 and no sweeps, 13
           clusters in all and prequential NMI 0.55, against 97 and 0.67.) Ties go to
           the lowest cluster, a new cluster last;
        2. re-samples only the batch's documents for ``n_iter`` Gibbs sweeps (Eq. 4,
           as in ``fit``); earlier documents stay fixed.

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_features_in_) or Corpus
            Word counts over the same vocabulary (columns) as every earlier batch.
        y : ignored
        n_iter : int, optional
            Sweeps over this batch after classification; default ``partial_iter``.
            Ignored by the first call, which runs ``max_iter`` sweeps.

        Returns
        -------
        self : GSDMM

        Raises
        ------
        ParameterError
            For an out-of-range parameter, a batch whose width or vocabulary differs
            from the model's, or ``n_clusters`` below the clusters already found.

        Notes
        -----
        The word-cluster counts are widened when a batch could overflow the integer
        type chosen for the earlier ones. Each call costs O(V K + N) besides the batch's
        own work (the counts are rebuilt from the fitted attributes), so batches of a
        few hundred documents or more amortise it.
        """
        if n_iter is not None:
            Integer(0).check(n_iter, "n_iter")
        if not hasattr(self, "labels_"):
            return self.fit(X_batch)  # which checks the parameters
        self._validate_params()
        n_iter = self.partial_iter if n_iter is None else n_iter
        counts = self._batch_counts(X_batch)
        state = _SamplerState.resumed(counts, self)
        state.threads = self.threads
        started = time.perf_counter()
        state.classify()
        self.n_clusters_history_, self.n_moved_history_ = [], []
        for _ in range(n_iter):
            self.n_moved_history_.append(state.sweep(self.random_state_))
            self.n_clusters_history_.append(state.n_occupied)
        self.sample_seconds_ = time.perf_counter() - started
        self._store_fitted(state)
        self.n_iter_ = n_iter
        self.n_batches_ += 1
        return self

    def _batch_counts(self, X_batch):
        """The batch as checked CSR counts (binarised for Eq. 3)."""
        counts = stream_batch(X_batch, self.n_features_in_, self.vocabulary_)
        if self.n_clusters < self.n_clusters_:
            raise ParameterError(
                f"n_clusters={self.n_clusters} is below the {self.n_clusters_} clusters "
                "already found: raise n_clusters or refit"
            )
        return self._model_counts(counts)

    def _model_counts(self, counts):
        """Checked counts as the likelihood reads them: binarised for Eq. 3."""
        return binarised(counts) if self.likelihood == "eq3" else counts


class _SamplerState:
    """What the kernels work on: documents, assignment, counts and cached denominators.

    ``docs`` are the documents that may move: all of them in ``fit``, the new batch in
    ``partial_fit``, whose clusters are ``z[first:]``. Earlier documents (``z[:first]``)
    are only in the counts.
    """

    def __init__(self, docs, z, stats, alpha, beta, first=0):
        n_words, n_clusters = stats[2].shape
        self.alpha, self.beta, self.v_beta = float(alpha), float(beta), float(n_words * beta)
        self.docs = docs
        self.z = z
        self.moving = z[first:]  # a view: compaction's relabelling reaches it
        self.stats = stats
        # Inverse denominators per slot, refreshed after each compaction, and those of an
        # empty cluster, fixed for the fit.
        self.inv_den = np.empty((kernels._BLOCK + 1, n_clusters))
        empty_inv_den = np.empty((kernels._BLOCK + 1, 1))
        # Through refresh_all_inv_den, which the sweeps load anyway: one cached kernel
        # fewer to load per process (the same arithmetic as refresh_inv_den's).
        kernels.refresh_all_inv_den(empty_inv_den, np.zeros(1), self.v_beta)
        self.empty_inv_den = np.ascontiguousarray(empty_inv_den[:, 0])
        self.scratch = (np.empty(n_clusters), np.empty(n_clusters), np.empty(kernels._BLOCK + 1))
        self.n_occupied = int(np.count_nonzero(self.stats[0]))
        #: Blocks of a parallel sweep (1: the exact sequential kernel); see :meth:`sweep`.
        self.threads = 1
        self._blocks = None
        #: Sweeps run by this state, and how many of the first ones stay sequential
        #: whatever ``threads`` is (1 from the random start of :meth:`initial`).
        self.n_sweeps, self.sequential_sweeps = 0, 0

    @classmethod
    def initial(cls, counts, n_clusters, alpha, beta, rng):
        """Algorithm 1's initialisation: each document in a uniformly drawn cluster."""
        z = rng.integers(0, n_clusters, size=counts.shape[0]).astype(np.int32)
        docs = doc_arrays(counts)
        stats = zero_stats(counts.shape[1], n_clusters, count_dtype(counts))
        kernels.build_counts(docs, z, stats)
        state = cls(docs, z, stats, alpha, beta)
        state.sequential_sweeps = 1  # the sweep from the random start (see ``sweep``)
        return state

    @classmethod
    def resumed(cls, counts, model):
        """The fitted ``model``'s clusters as counts, with the batch ``counts`` to add.

        The batch's clusters start at -1 (unassigned) until :meth:`classify`. The count
        type is chosen for the totals after the batch: the one chosen for the earlier
        documents may be too narrow now.
        """
        sizes, word_counts = model.cluster_sizes_, model.cluster_word_counts_
        n_old, n_found = model.labels_.shape[0], sizes.shape[0]
        totals = word_counts.sum(axis=0, dtype=np.int64) + column_sums(counts)
        stats = zero_stats(counts.shape[1], model.n_clusters, count_dtype_for(totals.max()))
        stats[0][:n_found] = sizes
        stats[1][:n_found] = word_counts.sum(axis=1, dtype=np.int64)
        stats[2][:, :n_found] = word_counts.T
        z = np.concatenate([model.labels_.astype(np.int32),
                            np.full(counts.shape[0], -1, dtype=np.int32)])
        return cls(doc_arrays(counts), z, stats, model.alpha, model.beta, first=n_old)

    def classify(self):
        """Add the moving documents, in order, each to its most probable cluster (Eq. 4).

        The counts are compact on entry (they come from a fitted model).
        """
        n_active = int(np.count_nonzero(self.stats[0]))
        kernels.refresh_all_inv_den(self.inv_den, self.stats[1], self.v_beta)
        kernels.classify_sequential(
            self.docs, self.moving, self.stats, (self.inv_den, self.empty_inv_den),
            self.alpha, self.beta, self.v_beta, n_active, *self.scratch[:2],
        )
        self.n_occupied = int(np.count_nonzero(self.stats[0]))

    def compact(self):
        """Renumber the non-empty clusters to the leading slots; return their number."""
        if self.moving.shape[0] == self.z.shape[0]:  # the documents are all in ``docs``
            return kernels.compact_clusters_of_docs(self.docs, self.z, self.stats)
        # After partial_fit, the earlier documents' counts are in the stats only.
        return kernels.compact_clusters(self.z, self.stats)

    def sweep(self, rng):
        """Compact the clusters, then re-sample every moving document once; return moves.

        With ``threads > 1`` the sweep is the parallel one of ``_gsdmm_parallel``, fed the
        same uniform draws, except the first ``sequential_sweeps`` sweeps of this state.
        With one thread, the word-cluster counts are first narrowed to the occupied
        clusters and some room (:meth:`_narrow`), and widened whenever the kernel stops
        for want of a column: the same sweep as over all K columns. (The parallel sweep's
        block copies take the counts' width, so with threads the counts keep all K.)
        """
        n_active = self.compact()
        kernels.refresh_all_inv_den(self.inv_den, self.stats[1], self.v_beta)
        self.n_sweeps += 1
        if self.threads > 1 and self.n_sweeps > self.sequential_sweeps:
            return self._parallel_sweep(rng, n_active)
        if self.threads == 1:
            self._narrow(n_active)
        uniforms = rng.random(self.moving.shape[0])
        n_moved, start = 0, 0
        while True:
            n_active, moved, start = kernels.gibbs_sweep(
                self.docs, self.moving, self.stats, (self.inv_den, self.empty_inv_den),
                self.alpha, self.beta, self.v_beta, n_active, uniforms, *self.scratch, start,
            )
            n_moved += moved
            if start == self.moving.shape[0]:
                break
            self._resize(_room(n_active, self.stats[0].shape[0]))
        self.n_occupied = int(np.count_nonzero(self.stats[0]))
        return int(n_moved)

    def _narrow(self, n_active):
        """Keep only the occupied columns of ``n_wz`` and some room, when that saves an
        eighth of its width or more.

        An exact change: the kernels read columns ``0..n_active-1`` only, and count the
        ``K - n_active`` empty clusters from ``m_z``, which keeps all K slots. What it
        saves is memory traffic: most of the K = 500 clusters of ``make run``'s fits
        empty within a few sweeps (about 95 stay occupied on Tweet), and each token's row
        of ``n_wz`` then spans fewer pages and cache lines.
        """
        room = _room(n_active, self.stats[0].shape[0])
        if 8 * room <= 7 * self.stats[2].shape[1]:
            self._resize(room)

    def _resize(self, width):
        """``n_wz`` with ``width`` columns: the leading ones kept, the others zero (free)."""
        m_z, n_z, n_wz = self.stats
        resized = np.zeros((n_wz.shape[0], width), dtype=n_wz.dtype)
        kept = min(width, n_wz.shape[1])
        resized[:, :kept] = n_wz[:, :kept]
        self.stats = (m_z, n_z, resized)

    def _parallel_sweep(self, rng, n_active):
        """:meth:`sweep` over ``threads`` blocks (``_gsdmm_parallel.parallel_sweep``)."""
        from shortclust.models.common.threads import block_bounds, block_scratch, thread_limit
        from shortclust.models.dmm import _gsdmm_parallel

        blocks = self.threads
        if self._blocks is None:
            n_words, n_slots = self.stats[2].shape
            rows = kernels._BLOCK + 1
            token_ptr = np.concatenate([[0], np.cumsum(self.docs[3])])
            self._blocks = (block_bounds(token_ptr, blocks),
                            block_scratch(blocks, (n_slots,)), block_scratch(blocks, (n_slots,)),
                            block_scratch(blocks, (n_words, n_slots), self.stats[2].dtype, 0),
                            block_scratch(blocks, (rows, n_slots)),
                            block_scratch(blocks, (n_slots,)), block_scratch(blocks, (n_slots,)),
                            block_scratch(blocks, (rows,)),
                            np.empty_like(self.moving), np.empty(blocks, dtype=np.int64),
                            np.zeros(blocks, dtype=np.int64), np.empty(self.moving.shape[0]))
        uniforms = rng.random(out=self._blocks[-1])
        with thread_limit(blocks):
            n_moved = _gsdmm_parallel.parallel_sweep(
                self.docs, self.moving, self.stats, (self.inv_den, self.empty_inv_den),
                self.alpha, self.beta, self.v_beta, n_active, uniforms, self._blocks[0],
                *self._blocks[1:-1])
        self.n_occupied = int(np.count_nonzero(self.stats[0]))
        return int(n_moved)


def _room(n_active, n_slots):
    """Columns of ``n_wz`` for ``n_active`` occupied clusters: an eighth more (at least 8)
    for the clusters a sweep opens, rounded up to 16, at most K (a quarter more, rounded to
    32, was no faster on ``make run``'s fits)."""
    return min(n_slots, -(-(n_active + max(8, n_active // 8)) // 16) * 16)
