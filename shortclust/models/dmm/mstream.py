"""MStream and MStreamF: Dirichlet process mixtures for streams of short documents."""

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.dmm import _mstream_kernels as kernels
from shortclust.models.dmm._common import (DMMMixin, binarised, count_dtype_for, doc_arrays,
                                           fit_in_steps, zero_stats)
from shortclust.models.common.invariants import FITTED_INVARIANTS
from shortclust.models.common.validation import as_counts, same_columns, stream_batch
from shortclust.models.base import (Boolean, Capabilities, ClusteringModel, Integer, NoneOr,
                                    Real, Seed)

__all__ = ["MStream", "MStreamF"]

# Cluster slots allocated at first; doubled whenever a pass runs out.
_INITIAL_SLOTS = 64


class MStream(DMMMixin, ClusteringModel):
    """MStream (Yin, Chao, Liu, Zhang, Yu & Wang, KDD 2018): a stream clustered batch by batch.

    A Dirichlet process multinomial mixture over the documents recorded so far. Each call
    of :meth:`partial_fit` is one batch, Algorithm 1: the *one pass clustering process*
    adds the batch's documents one by one, each joining an existing cluster with
    probability proportional to Eq. 4 or a new cluster with Eq. 5,

        p(z_d = z)     ~ m_z,-d  prod_w prod_{j=1..N_d^w} (n_z,-d^w + beta + j - 1)
                                 / prod_{i=1..N_d} (n_z,-d + V beta + i - 1)       (Eq. 4)
        p(z_d = K + 1) ~ alpha D prod_w prod_{j=1..N_d^w} (beta + j - 1)
                                 / prod_{i=1..N_d} (V beta + i - 1)                (Eq. 5)

    then the *update clustering process* re-assigns every document of the batch
    ``max_iter - 1`` more times, sampling, except the last iteration, which gives each
    document its most probable cluster. D is the number of recorded documents and V the
    size of their vocabulary. Documents of earlier batches are not revisited: they stay
    in their clusters' CF vectors (``m_z``, ``n_z``, ``n_z^w``) with the label they had
    at the end of their batch. :class:`MStreamF` also forgets old batches.

    Parameters
    ----------
    alpha : float, default=0.03
        Concentration per recorded document (> 0): the new cluster weighs ``alpha D``
        (the paper sets gamma = alpha D). The paper's setting.
    beta : float, default=0.03
        Symmetric Dirichlet prior of each cluster's word distribution (> 0). The paper's
        setting.
    max_iter : int, default=10
        I, the iterations per batch, the one pass included (Algorithm 1 runs ``iter = 2
        to I`` after it); 1 is the one pass alone (MStreamOne). The paper's setting is
        10. The authors' published ``main.py`` runs the one pass and then 5 iterations,
        which is ``max_iter=6``.
    vocabulary_window : int or None, default=None
        The batches whose words make up V. None: those of the recorded documents (every
        batch for MStream, the stored ones for MStreamF), as the paper defines V. An
        integer w: the current batch and the ``w - 1`` before it, as the authors' code
        computes V (with w = 5).
    binary : bool, default=False
        Count each distinct word of a document once (N_d^w = 1), as the authors' code
        reads its documents; False takes the counts as Eq. 4 writes them.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the draws. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster of every document seen, in the order given. Cluster ids are never reused:
        a cluster created later has a larger id.
    n_clusters_ : int
        Distinct labels among all documents seen.
    n_iter_ : int
        Iterations of the last batch (``max_iter``; after ``fit`` over several batches,
        their sum).
    cluster_ids_ : ndarray of shape (n_live,)
        The label of each non-empty cluster in the CF vectors, increasing (MStream: every
        label; MStreamF: those of the stored batches' clusters).
    cluster_sizes_ : ndarray of shape (n_live,)
        m_z of each non-empty cluster.
    cluster_word_counts_ : ndarray of shape (n_live, n_features_in_)
        n_z^w of each non-empty cluster.
    n_batches_ : int
        Batches seen.
    n_features_in_ : int
        Width of the count matrices (the corpus's vocabulary, not the V of Eq. 4-5).
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    Where the paper leaves a choice open, the authors' code (github.com/jackyin12/MStream)
    decided it: D counts every document of the current batch from its start, V grows
    document by document during the one pass (each document counts the words it brings),
    and the last iteration's argmax includes the new cluster. Without ``steps``,
    :meth:`fit` clusters X as one batch. ``predict`` and ``predict_proba`` score new
    documents against the existing clusters only (Eq. 4 with the fitted CF vectors, V
    the width of the count matrices), as GSDPMM does; ``top_words`` and ``topic_word_``
    are Eq. 9 of Yin & Wang (2014) over the live clusters.

    References
    ----------
    J. Yin, D. Chao, Z. Liu, W. Zhang, X. Yu and J. Wang. Model-based clustering of short
    text streams. KDD 2018.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> model = MStream(random_state=0).partial_fit(X[:2]).partial_fit(X[2:])
    >>> bool(model.labels_[0] == model.labels_[1] and model.labels_[2] == model.labels_[3])
    True
    """

    _parameter_constraints = {
        "alpha": Real(0.0, inclusive=False),
        "beta": Real(0.0, inclusive=False),
        "max_iter": Integer(1),
        "vocabulary_window": NoneOr(Integer(1)),
        "binary": Boolean(),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True, topics=True)
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_",
                          "cluster_ids_", "cluster_sizes_", "cluster_word_counts_",
                          "n_batches_", "next_id_", "word_last_batch_", "batch_sizes_",
                          "random_state_")

    _fitted_invariants = FITTED_INVARIANTS["mstream"]

    def __init__(self, *, alpha=0.03, beta=0.03, max_iter=10, vocabulary_window=None,
                 binary=False, random_state=None):
        self.alpha = alpha
        self.beta = beta
        self.max_iter = max_iter
        self.vocabulary_window = vocabulary_window
        self.binary = binary
        self.random_state = random_state

    def _kept_batches(self):
        """Earlier batches kept in the CF vectors besides the current one (None: all)."""
        return None

    # --- fitting ----------------------------------------------------------------------------

    def fit(self, X, y=None, callback=None, steps=None):
        """Cluster the documents of X as a stream starting empty.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts, one row per document.
        y : ignored
        callback : callable, optional
            Called as ``callback(batch, n_batches, n_clusters)`` after each batch.
        steps : array-like of shape (n_documents,), optional
            Each document's batch (any sortable values); the batches run in increasing
            order, each through :meth:`partial_fit`, and ``labels_`` comes back in the
            rows' order. Without it, X is one batch.

        Returns
        -------
        self
        """
        self._validate_params()
        counts, vocabulary = as_counts(X)
        self._start(counts.shape[1], vocabulary)
        if steps is None:
            steps = np.zeros(counts.shape[0], dtype=np.int64)  # one batch: X as given
        return fit_in_steps(self, counts, steps, self._run_batch, callback)

    def fit_predict(self, X, y=None, callback=None, steps=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback, steps=steps).labels_

    def partial_fit(self, X_batch, y=None):
        """Cluster the next batch (Algorithm 1; for MStreamF, Algorithm 2 first forgets).

        The first call on an unfitted model starts the stream.

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_features_in_) or Corpus
            Word counts over the same columns as every earlier batch.
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        if not hasattr(self, "labels_"):
            counts, vocabulary = as_counts(X_batch)
            self._start(counts.shape[1], vocabulary)
        else:
            counts = stream_batch(X_batch, self.n_features_in_,
                                  getattr(self, "vocabulary_", None))
        self._run_batch(counts)
        return self

    def _start(self, n_words, vocabulary):
        self.vocabulary_ = vocabulary
        self.n_features_in_ = n_words
        self.labels_ = np.zeros(0, dtype=np.int64)
        self.n_clusters_ = 0
        self.cluster_ids_ = np.zeros(0, dtype=np.int64)
        self.cluster_sizes_ = np.zeros(0, dtype=np.int64)
        self.cluster_word_counts_ = np.zeros((0, n_words), dtype=np.int64)
        self.n_batches_ = 0
        self.next_id_ = 0
        self.word_last_batch_ = np.full(n_words, -1, dtype=np.int64)
        self.batch_sizes_ = np.zeros(0, dtype=np.int64)
        self.random_state_ = np.random.default_rng(self.random_state)
        self.stored_ptr_ = np.zeros(1, dtype=np.int64)
        self.stored_words_ = np.zeros(0, dtype=np.int32)
        self.stored_counts_ = np.zeros(0, dtype=np.int32)
        self.stored_labels_ = np.zeros(0, dtype=np.int64)

    def _run_batch(self, counts):
        """One batch: forget (MStreamF), the one pass, the update iterations, the labels."""
        if self.binary:
            counts = binarised(counts)
        self._forget()
        batch = self.n_batches_
        docs = doc_arrays(counts)
        n_docs = counts.shape[0]
        # D: the recorded documents, the whole current batch included (authors' code).
        recorded = int(self.cluster_sizes_.sum()) + n_docs
        v_beta = self.beta * kernels.growing_vocabulary(docs, n_docs, self._known_words(batch))
        self.word_last_batch_[docs[1]] = batch
        state = _Pass(docs, n_docs, self.cluster_sizes_, self.cluster_word_counts_, counts)
        rng = self.random_state_
        for iteration in range(1, self.max_iter + 1):
            greedy = iteration == self.max_iter and iteration > 1
            per_doc = v_beta if iteration == 1 else np.full(n_docs, v_beta[-1] if n_docs else 0.0)
            state.run(self.alpha * recorded, self.beta, per_doc, rng.random(n_docs), greedy)
        # Ids in order of creation, given only to new clusters that kept a document:
        # every id is a label, and the labels are 0..n_clusters_-1.
        n_live = self.cluster_ids_.size
        opened = state.stats[0][n_live:state.n_active] > 0
        ids = np.full(state.n_active, -1, dtype=np.int64)
        ids[:n_live] = self.cluster_ids_
        ids[n_live:][opened] = self.next_id_ + np.arange(np.count_nonzero(opened))
        self.next_id_ += int(np.count_nonzero(opened))
        batch_labels = ids[state.z]
        self.labels_ = np.concatenate([self.labels_, batch_labels])
        self.n_clusters_ = int(self.next_id_)
        self.n_iter_ = self.max_iter
        self.n_batches_ += 1
        self.batch_sizes_ = np.append(self.batch_sizes_, n_docs)
        self._store_clusters(state, ids)
        if self._kept_batches() is not None:
            self._keep(counts, batch_labels)

    def _known_words(self, batch):
        """Mask of the words of V before the batch's own: those of the window's batches."""
        window = self.vocabulary_window
        if window is None and self._kept_batches() is not None:
            window = self._kept_batches() + 1
        seen = self.word_last_batch_  # -1: never
        return seen >= (0 if window is None else max(batch - window + 1, 0))

    def _store_clusters(self, state, ids):
        """The non-empty clusters' CF vectors, in slot order, as the fitted attributes."""
        m_z, _, n_wz = state.stats
        live = np.flatnonzero(m_z[:state.n_active] > 0)
        self.cluster_ids_ = ids[live]
        self.cluster_sizes_ = m_z[live].astype(np.int64)
        self.cluster_word_counts_ = np.ascontiguousarray(n_wz[:, live].T, dtype=np.int64)

    # MStreamF's forgetting; MStream keeps every batch.
    def _forget(self):
        pass

    def _keep(self, counts, labels):
        pass

    # --- new documents ----------------------------------------------------------------------

    def predict(self, X):
        """The most probable cluster of each new document under Eq. 4 (its label)."""
        return self.cluster_ids_[np.argmax(self._log_posterior(X), axis=1)]

    def predict_proba(self, X):
        """Eq. 4 against the fitted CF vectors, normalised over the clusters.

        Returns
        -------
        ndarray of shape (n_documents, n_clusters_)
            Column k is the cluster labelled k; a cluster MStreamF forgot (empty) has
            probability 0, as the paper states for later documents.
        """
        out = np.zeros((same_columns(X, self.n_features_in_).shape[0], self.n_clusters_))
        out[:, self.cluster_ids_] = super().predict_proba(X)
        return out

    def top_words(self, n=10, vocabulary=None):
        """Eq. 9 of Yin & Wang (2014) for each cluster, one list per label.

        A forgotten (empty) cluster's phi is its prior's, uniform over the words: its list
        holds the first ``n`` columns, each at weight ``1 / n_features_in_``.
        """
        live = super().top_words(n, vocabulary)
        words = vocabulary if vocabulary is not None else self.vocabulary_
        empty = [(words[w] if words is not None else w, 1.0 / self.n_features_in_)
                 for w in range(min(n, self.n_features_in_))]
        result = [list(empty) for _ in range(self.n_clusters_)]
        for label, listed in zip(self.cluster_ids_, live):
            result[label] = listed
        return result

    def _model_counts(self, counts):
        return binarised(counts) if self.binary else counts

    def _scoring_alpha(self):
        """0: an existing cluster weighs m_z (Eq. 4)."""
        return 0.0

    def _log_posterior(self, X):
        check_is_fitted(self, "labels_")
        if not self.cluster_ids_.size:
            raise ParameterError("the model holds no cluster (every batch was forgotten or "
                                 "empty): fit it on documents first")
        return super()._log_posterior(X)


class MStreamF(MStream):
    """MStreamF (Yin et al., KDD 2018): MStream that forgets batches older than ``stored_batches``.

    Algorithm 2: before clustering batch t with MStream, when t > Bs + 1 the CF vectors
    of batch b = t - Bs - 1 are subtracted from the current ones (Definition 2), so the
    clusters hold the documents of the last Bs batches and the current one; a cluster
    left empty receives no later document, and its id is not reused. D and, by default,
    V count the documents of those batches only.

    Parameters
    ----------
    stored_batches : int, default=1
        Bs, the earlier batches kept in the CF vectors (the paper's setting is 1; the
        authors' ``MaxBatch`` is Bs + 1).
    alpha, beta, max_iter, vocabulary_window, binary, random_state
        As :class:`MStream`.

    Notes
    -----
    Subtracting a batch's CF vectors is subtracting each of its documents from the cluster
    it ended in, since no document is re-assigned after its batch: the model keeps the
    stored batches' word counts and labels (``stored_*_``) for that, an equivalent of the
    paper's per-batch CF vectors.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> model = MStreamF(random_state=0)
    >>> for start in (0, 1, 2, 3):
    ...     model = model.partial_fit(X[start:start + 1])
    >>> int(model.cluster_sizes_.sum())  # batches 3 and 4 are kept
    2
    """

    _parameter_constraints = {**MStream._parameter_constraints, "stored_batches": Integer(1)}
    _fitted_invariants = FITTED_INVARIANTS["mstreamf"]
    _fitted_attributes = MStream._fitted_attributes + (
        "stored_ptr_", "stored_words_", "stored_counts_", "stored_labels_")

    def __init__(self, *, stored_batches=1, alpha=0.03, beta=0.03, max_iter=10,
                 vocabulary_window=None, binary=False, random_state=None):
        super().__init__(alpha=alpha, beta=beta, max_iter=max_iter,
                         vocabulary_window=vocabulary_window, binary=binary,
                         random_state=random_state)
        self.stored_batches = stored_batches

    def _kept_batches(self):
        return self.stored_batches

    def _forget(self):
        """Subtract the batches beyond the ``stored_batches`` most recent (Algorithm 2)."""
        while self.batch_sizes_.size - self._first_stored() > self.stored_batches:
            first = self._first_stored()
            n_docs = int(self.batch_sizes_[first])
            stop = self.stored_ptr_[n_docs]
            docs = (self.stored_ptr_[:n_docs + 1], self.stored_words_[:stop],
                    self.stored_counts_[:stop], np.zeros(0, dtype=np.int64))
            slots = np.searchsorted(self.cluster_ids_, self.stored_labels_[:n_docs])
            stats = (self.cluster_sizes_.astype(np.float64), np.zeros(self.cluster_ids_.size),
                     np.ascontiguousarray(self.cluster_word_counts_.T))
            kernels.subtract_documents(docs, slots, stats)
            live = stats[0] > 0
            self.cluster_ids_ = self.cluster_ids_[live]
            self.cluster_sizes_ = stats[0][live].astype(np.int64)
            self.cluster_word_counts_ = np.ascontiguousarray(stats[2].T[live])
            self.stored_ptr_ = self.stored_ptr_[n_docs:] - stop
            self.stored_words_ = self.stored_words_[stop:]
            self.stored_counts_ = self.stored_counts_[stop:]
            self.stored_labels_ = self.stored_labels_[n_docs:]
            self.batch_sizes_ = self.batch_sizes_.copy()
            self.batch_sizes_[first] = -1  # forgotten

    def _first_stored(self):
        """Index of the oldest batch still in the CF vectors."""
        return int(np.count_nonzero(self.batch_sizes_ < 0))

    def _keep(self, counts, labels):
        self.stored_ptr_ = np.concatenate([self.stored_ptr_[:-1],
                                           counts.indptr.astype(np.int64) + self.stored_ptr_[-1]])
        self.stored_words_ = np.concatenate([self.stored_words_, counts.indices.astype(np.int32)])
        self.stored_counts_ = np.concatenate([self.stored_counts_, counts.data.astype(np.int32)])
        self.stored_labels_ = np.concatenate([self.stored_labels_, labels])


class _Pass:
    """The batch's sampler state: its documents, their slots and the CF vectors."""

    def __init__(self, docs, n_docs, sizes, word_counts, counts):
        self.docs = docs
        self.z = np.full(n_docs, -1, dtype=np.int32)  # -1: in no cluster yet
        n_live = sizes.size
        largest = max(int(word_counts.max()) if word_counts.size else 0, 0) + \
            (int(counts.sum(axis=0).max()) if counts.nnz else 0)
        slots = n_live + min(_INITIAL_SLOTS, n_docs + 1)
        m_z, n_z, n_wz = zero_stats(counts.shape[1], slots, count_dtype_for(largest))
        m_z[:n_live] = sizes
        n_wz[:, :n_live] = word_counts.T
        n_z[:n_live] = word_counts.sum(axis=1)
        self.stats = (m_z, n_z, n_wz)
        self.n_active = n_live
        self.num = np.empty(slots)
        self.chunks = np.empty(slots)

    def run(self, alpha_d, beta, v_beta, uniforms, greedy):
        """One pass over the batch (growing the slots as new clusters need them)."""
        start = 0
        while start < self.z.shape[0]:
            start, self.n_active, _ = kernels.mstream_pass(
                self.docs, self.z, self.stats, alpha_d, beta, v_beta, self.n_active, start,
                uniforms, greedy, self.num, self.chunks)
            if start < self.z.shape[0]:
                self._grow()

    def _grow(self):
        m_z, n_z, n_wz = self.stats
        old, new = m_z.shape[0], 2 * m_z.shape[0]
        wider = np.zeros((n_wz.shape[0], new), dtype=n_wz.dtype)
        wider[:, :old] = n_wz
        self.stats = (np.append(m_z, np.zeros(new - old)), np.append(n_z, np.zeros(new - old)),
                      wider)
        self.num = np.empty(new)
        self.chunks = np.empty(new)
