"""What GSDMM and GSDPMM share around their samplers. Private: use the estimators.

Both keep the same fitted counts (``cluster_sizes_``, ``cluster_word_counts_``), feed
their kernels the same ``docs`` and ``stats`` tuples (see ``_gsdmm_kernels``) and score
new documents with GSDMM's log-space Eq. 4: :class:`DMMMixin` holds the methods built
on those, the functions below the array helpers.
"""

import time

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.dmm import _gsdmm_kernels as kernels
from shortclust.models.common.term_weights import binary_matrix
from shortclust.models.common.validation import same_columns


class DMMMixin:
    """Sweep loop, fitted counts, scoring and top words of the mixture-model estimators.

    The estimator provides ``alpha``, ``beta`` and ``max_iter``, sets ``vocabulary_`` in
    ``fit``, and may override :meth:`_model_counts` (counts as its likelihood reads
    them) and :meth:`_scoring_alpha` (the ``alpha`` of the prefactor ``m_z + alpha``
    when scoring). Its sampler state needs ``sweep(rng)`` (returns the documents
    moved), ``n_occupied``, ``compact()`` (returns the clusters in use), ``z`` and
    ``stats``.
    """

    #: What a saved model keeps (see ``shortclust.models.base``): the fitted counts.
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "cluster_sizes_",
                          "cluster_word_counts_", "n_features_in_")

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def predict_proba(self, X):
        """Probability of each fitted cluster for new documents (Naive Bayes form).

        The model's conditional of joining an existing cluster, against the fitted
        counts: Eq. 4 for GSDMM; for GSDPMM, Eq. 4 with the prefactor ``m_z`` in place
        of ``m_z + alpha``.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_features_in_) or Corpus

        Returns
        -------
        ndarray of shape (n_documents, n_clusters_)
        """
        log_p = self._log_posterior(X)
        log_p -= log_p.max(axis=1, keepdims=True)
        proba = np.exp(log_p)
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Most probable fitted cluster of each new document."""
        return np.argmax(self._log_posterior(X), axis=1)

    def top_words(self, n=10, vocabulary=None):
        """Representative words of each cluster by the posterior mean phi (Eq. 9 of KDD 2014).

        Parameters
        ----------
        n : int, default=10
        vocabulary : sequence of str, optional
            Column words; defaults to the Corpus vocabulary seen in ``fit``, else
            column indices are returned.

        Returns
        -------
        list of list of (word, weight)
            One list per cluster, most probable word first.
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        counts = self.cluster_word_counts_
        denominators = counts.sum(axis=1) + self.n_features_in_ * self.beta
        tops = _top_columns(counts, n)
        if not tops:
            return []
        # Every cluster has min(n, V) top words: Eq. 9 of all of them in one operation, the
        # same division of the same numbers as cluster by cluster.
        top = np.array(tops)
        phi = (counts[np.arange(counts.shape[0])[:, None], top] + self.beta) \
            / denominators[:, None]
        return [[(words[w] if words is not None else w, weight) for w, weight in zip(*pair)]
                for pair in zip(top.tolist(), phi.tolist())]

    @property
    def topic_proportions_(self):
        """Weight of each fitted cluster, theta, as the model's predictive reads it.

        ``theta_z = (m_z + a) / sum_k (m_k + a)`` over the ``n_clusters_`` non-empty
        clusters, with ``a`` the prefactor's alpha of :meth:`predict_proba`: ``alpha`` for
        GSDMM (Eq. 4 of KDD 2014), 0 for GSDPMM (a Dirichlet process weighs an existing
        cluster by ``m_z``). Computed from the fitted counts, not saved.

        Returns
        -------
        ndarray of shape (n_clusters_,)
            Summing to 1.
        """
        check_is_fitted(self, "labels_")
        weights = self.cluster_sizes_.astype(np.float64) + self._scoring_alpha()
        return weights / weights.sum()

    @property
    def topic_word_(self):
        """Word distribution of each fitted cluster, phi (Eq. 9 of KDD 2014).

        ``phi_zv = (n_z^v + beta) / (n_z + V beta)``, the posterior mean of the cluster's
        multinomial given its counts (binarised ones for ``likelihood="eq3"``).

        Returns
        -------
        ndarray of shape (n_clusters_, n_features_in_)
            Rows summing to 1.
        """
        check_is_fitted(self, "labels_")
        counts = self.cluster_word_counts_.astype(np.float64)
        totals = counts.sum(axis=1, keepdims=True)
        return (counts + self.beta) / (totals + self.n_features_in_ * self.beta)

    def _model_counts(self, counts):
        """Checked counts as the likelihood reads them (GSDMM's Eq. 3 binarises them)."""
        return counts

    def _scoring_alpha(self):
        """``alpha`` in the prefactor ``m_z + alpha`` of an existing cluster when scoring."""
        return float(self.alpha)

    def _run_sweeps(self, state, rng, callback):
        """``max_iter`` timed sweeps of ``state``, recorded; then store the fitted model."""
        self.n_clusters_history_, self.n_moved_history_ = [], []
        self.sample_seconds_ = 0.0
        for iteration in range(1, self.max_iter + 1):
            started = time.perf_counter()
            n_moved = state.sweep(rng)
            self.sample_seconds_ += time.perf_counter() - started
            self.n_clusters_history_.append(state.n_occupied)
            self.n_moved_history_.append(n_moved)
            if callback is not None:
                callback(iteration, self.max_iter, state.n_occupied)
        self._store_fitted(state)
        self.n_iter_ = self.max_iter

    def _store_fitted(self, state):
        n_active = state.compact()
        m_z, _, n_wz = state.stats
        self.labels_ = state.z.astype(np.int64)
        self.n_clusters_ = int(n_active)
        self.cluster_sizes_ = m_z[:n_active].astype(np.int64)
        wide = np.int64 if n_wz.dtype == np.int64 else np.int32
        self.cluster_word_counts_ = np.ascontiguousarray(n_wz[:, :n_active].T, dtype=wide)
        self.n_features_in_ = n_wz.shape[0]

    def _log_posterior(self, X):
        check_is_fitted(self, "labels_")
        counts = self._model_counts(same_columns(X, self.n_features_in_))
        n_zw = np.ascontiguousarray(self.cluster_word_counts_)
        out = np.empty((counts.shape[0], n_zw.shape[0]))  # one column per fitted cluster
        kernels.log_posterior(
            counts.indptr, counts.indices, counts.data,
            self.cluster_sizes_.astype(np.float64), n_zw.sum(axis=1).astype(np.float64),
            n_zw, self._scoring_alpha(), float(self.beta),
            float(self.n_features_in_ * self.beta), out,
        )
        return out


def count_dtype(counts):
    """Narrowest unsigned type that holds any word-cluster count of this corpus.

    A cluster never holds more occurrences of a word than the corpus does, so the
    largest column sum bounds every ``n_wz`` entry. Narrow rows make the memory-bound
    sweep faster (see ``_gsdmm_kernels``).
    """
    return count_dtype_for(column_sums(counts).max() if counts.nnz else 0)


def count_dtype_for(largest):
    """Narrowest count type holding values up to ``largest``."""
    # Signed above 16 bits: numba promotes uint64 mixed with int64 to float64.
    for dtype in (np.uint16, np.int32):
        if int(largest) <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def doc_arrays(counts):
    """The kernels' ``docs`` tuple of a CSR count matrix."""
    return (counts.indptr.astype(np.int64), counts.indices.astype(np.int32),
            counts.data.astype(np.int32), row_sums(counts))


def zero_stats(n_words, n_clusters, dtype):
    """Empty ``(m_z, n_z, n_wz)`` for ``n_clusters`` slots, counts word-major."""
    return (np.zeros(n_clusters), np.zeros(n_clusters),
            np.zeros((n_words, n_clusters), dtype=dtype))


def row_sums(counts):
    """Tokens per document, int64."""
    return np.asarray(counts.sum(axis=1), dtype=np.int64).ravel()


def column_sums(counts):
    """Occurrences per word, int64."""
    return np.asarray(counts.sum(axis=0, dtype=np.int64)).ravel()


def binarised(counts):
    """A copy of ``counts`` with every stored count set to 1 (Eq. 3): see ``binary_matrix``."""
    return binary_matrix(counts, dtype=counts.dtype)


def _top_columns(rows, n):
    """The ``n`` columns of largest value in each row of ``rows`` (2-D), ties by column.

    Each is ``np.argsort(-phi, kind="stable")[:n]`` of its row's Eq. 9 weights, found
    without sorting whole rows: phi is increasing in the count within a cluster, so the
    words the cluster holds come first, by count, and (when it holds fewer than ``n``) the
    words it does not hold follow, all tied at ``beta``'s share, in column order. A cluster
    holds a few hundred of the vocabulary's thousands of words, so only those are sorted,
    all clusters in one sort (topic quality asks for top words after every run, and
    ``make run`` writes them for each of its 20 runs; ``benchmarks/README.md``).

    Returns
    -------
    list of ndarray of int64
        One array of ``n`` columns (fewer if the row is shorter) per row.
    """
    # Row by row, columns increasing (as np.nonzero(rows) gives them, in a tenth of its
    # time: the positions of a flat boolean array, then their rows and columns).
    held = np.flatnonzero(rows.ravel() != 0)
    held_rows, held_columns = np.divmod(held, max(rows.shape[1], 1))
    values = rows[held_rows, held_columns]
    if values.dtype.kind == "u":
        values = values.astype(np.int64)  # negated below
    # lexsort is stable: within a row, equal values keep their column order.
    order = np.lexsort((-values, held_rows))
    held_columns = held_columns[order]
    bounds = np.searchsorted(held_rows[order], np.arange(rows.shape[0] + 1)).tolist()
    tops = []
    for k in range(rows.shape[0]):
        top = held_columns[bounds[k]:min(bounds[k] + n, bounds[k + 1])]
        if top.size < n:
            top = np.concatenate([top, np.flatnonzero(rows[k] == 0)[:n - top.size]])
        tops.append(top)
    return tops


def step_rows(steps, n_documents):
    """Rows ordered by time step (stable) and each step's ``(start, stop)`` in that order."""
    steps = np.asarray(steps)
    if steps.shape != (n_documents,):
        raise ParameterError(
            f"steps must give one time step per document ({n_documents}), got shape "
            f"{steps.shape}")
    order = np.argsort(steps, kind="stable")
    _, starts = np.unique(steps[order], return_index=True)
    stops = np.append(starts[1:], n_documents)
    return order, list(zip(starts.tolist(), stops.tolist()))


def fit_in_steps(model, counts, steps, run_step, callback=None):
    """Run ``run_step(batch)`` on each time step's rows, in time order, as a stream model's
    ``fit(X, steps=...)`` does; then put ``labels_`` back in row order and sum ``n_iter_``.

    ``callback(step, n_steps, n_clusters)`` is called after each step. Returns ``model``.
    """
    order, bounds = step_rows(steps, counts.shape[0])
    iterations = 0
    for number, (start, stop) in enumerate(bounds, 1):
        run_step(counts[order[start:stop]])
        iterations += model.n_iter_
        if callback is not None:
            callback(number, len(bounds), model.n_clusters_)
    labels = np.empty_like(model.labels_)
    labels[order] = model.labels_
    model.labels_, model.n_iter_ = labels, iterations
    return model
