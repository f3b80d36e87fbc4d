"""TTM: the topic tracking model, the dynamic long-document baseline of the DCT paper."""

import numpy as np
from scipy.special import digamma

from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.dmm import _ttm_kernels as kernels
from shortclust.models.dmm._dct_kernels import update_topic_beta
from shortclust.models.lda._kernels import build_counts
from shortclust.models.lda._state import Tokens
from shortclust.models.common.validation import as_counts, same_columns, stream_batch
from shortclust.models.base import Capabilities, ClusteringModel, Integer, Real, Seed
from shortclust.errors import ParameterError
from shortclust.models.common.invariants import FITTED_INVARIANTS

__all__ = ["TTM"]

#: EM steps of the folding-in of new documents (``predict_proba``).
_FOLD_IN_ITER = 20


class TTM(ClusteringModel):
    """Topic tracking model (Iwata, Watanabe, Yamada & Ueda, IJCAI 2009) over a stream.

    The baseline the DCT paper (Liang et al., KDD 2016, Section 5.2) runs as "TTM": a
    dynamic topic model for long documents, in which a document mixes topics. TTM tracks
    each user's topic proportions, theta_{t,u} ~ Dirichlet(alpha_{t,u} theta_{t-1,u}), and
    each topic's word distribution, phi_{t,k} ~ Dirichlet(beta_{t,k} phi_{t-1,k}); each
    item (word) of a user at time t draws a topic from theta_{t,u} and itself from that
    topic's phi_{t,k}. A stream of tweets has no users that persist: here the documents of
    a step are its users, all drawing their proportions around the previous step's mean
    proportions, theta_d ~ Dirichlet(alpha_t theta_{t-1}), with one precision alpha_t for
    the step (TTM's alpha_{t,u} shared by the step's documents). theta_t is the mean of
    the step's documents' posterior proportions.

    Each :meth:`partial_fit` is one time step, TTM's stochastic EM: ``max_iter``
    iterations, each a collapsed Gibbs sweep over the step's tokens followed by
    ``fixed_point_iter`` fixed-point steps of the precisions (TTM's rules, Minka's bounds):
    ``alpha <- alpha sum_d sum_k theta_{t-1,k} (psi(n_dk + a_k) - psi(a_k)) / sum_d
    (psi(n_d + alpha) - psi(alpha))`` and, per topic, ``beta_k <- beta_k sum_v phi_{t-1,k,v}
    (psi(n_kv + b_kv) - psi(b_kv)) / (psi(n_k + beta_k) - psi(beta_k))`` (``a_k = alpha
    theta_{t-1,k}``, ``b_kv = beta_k phi_{t-1,k,v}``). Then the posterior means
    ``theta_d = (n_dk + a_k) / (n_d + alpha)`` and ``phi_{t,k} = (n_kv + b_kv) / (n_k +
    beta_k)``; a document's cluster is its most probable topic. Time 0 is theta_0 = 1/K,
    phi_0 = 1/V. Topics keep their identity across steps.

    Parameters
    ----------
    n_clusters : int, default=50
        Number of topics K (fixed over the stream).
    alpha : float, default=10.0
        Initial precision alpha_t of the documents' topic prior at every step (> 0).
    beta : float, default=1000.0
        Initial precision beta_{t,k} of every topic's word prior at every step (> 0); at
        t = 1 each word's prior weight in a topic is beta / V.
    max_iter : int, default=30
        Iterations (Gibbs sweep and fixed-point steps) per time step.
    fixed_point_iter : int, default=1
        Fixed-point steps of the precisions after each sweep; 0 keeps them fixed.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the initial topics and of the draws. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Most probable topic of every document seen, fixed at the end of its step.
    step_labels_ : ndarray of shape (n_step_documents,)
        The labels of the last step's documents.
    n_clusters_ : int
        Distinct labels among all documents seen.
    n_iter_ : int
        Iterations of the last call.
    n_steps_ : int
        Time steps run.
    topic_proportions_ : ndarray of shape (n_clusters,)
        theta_t of the last step, summing to 1.
    topic_word_ : ndarray of shape (n_clusters, n_features_in_)
        phi_t of the last step, rows summing to 1.
    alpha_ : float
        alpha_t at the end of the last step.
    beta_ : ndarray of shape (n_clusters,)
        beta_{t,k} at the end of the last step.
    random_state_ : numpy.random.Generator
        The generator, continued by each step.
    n_features_in_ : int
        Vocabulary size V.
    vocabulary_ : list of str or None
        Words of the columns, when a Corpus was given.

    Notes
    -----
    The vocabulary is fixed by the first batch, as for ``dct`` and ``lda``.
    ``predict_proba`` folds new documents in under the last step's topics and prior
    (``alpha_ * topic_proportions_``) by a few deterministic EM steps; the documents of a
    step are labelled from their Gibbs counts instead.

    References
    ----------
    T. Iwata, S. Watanabe, T. Yamada and N. Ueda. Topic tracking model for analyzing
    consumer purchase behavior. IJCAI 2009.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> step = sp.csr_matrix([[3, 2, 0, 0], [2, 3, 0, 0], [0, 0, 2, 3], [0, 0, 3, 2]])
    >>> model = TTM(n_clusters=2, alpha=0.5, beta=2.0, max_iter=30, random_state=0)
    >>> labels = model.partial_fit(step).partial_fit(step).step_labels_
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "alpha": Real(0.0, inclusive=False),
        "beta": Real(0.0, inclusive=False),
        "max_iter": Integer(1),
        "fixed_point_iter": Integer(0),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True, topics=True)
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_", "n_steps_",
                          "random_state_", "topic_proportions_", "topic_word_", "alpha_",
                          "beta_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["ttm"]

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """The float64 topic-word arrays (past, prior, posterior) and the counts."""
        params = {**cls().get_params(), **params}
        if n_features is None:
            return None
        return n_features * params["n_clusters"] * (8 * 3 + 4)

    def __init__(self, *, n_clusters=50, alpha=10.0, beta=1000.0, max_iter=30,
                 fixed_point_iter=1, random_state=None):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.max_iter = max_iter
        self.fixed_point_iter = fixed_point_iter
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X as one time step from time 0.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each iteration.

        Returns
        -------
        self : TTM
        """
        self._validate_params()
        counts, vocabulary = as_counts(X)
        self._start(counts.shape[1], vocabulary)
        self._run_step(counts, callback)
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def partial_fit(self, X_batch, y=None):
        """Run one time step on the batch's documents (the first call starts at time 0).

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_features_in_) or Corpus
        y : ignored

        Returns
        -------
        self : TTM
        """
        self._validate_params()
        if not hasattr(self, "labels_"):
            counts, vocabulary = as_counts(X_batch)
            self._start(counts.shape[1], vocabulary)
        else:
            counts = stream_batch(X_batch, self.n_features_in_,
                                  getattr(self, "vocabulary_", None))
            if self.topic_word_.shape[0] != self.n_clusters:
                raise ParameterError(f"n_clusters={self.n_clusters} differs from the fitted "
                                     f"{self.topic_word_.shape[0]} topics: set it back or "
                                     "refit")
        self._run_step(counts, None)
        return self

    def _start(self, n_words, vocabulary):
        self.vocabulary_ = vocabulary
        self.n_features_in_ = n_words
        self.topic_proportions_ = np.full(self.n_clusters, 1.0 / self.n_clusters)
        self.topic_word_ = np.full((self.n_clusters, n_words), 1.0 / n_words)
        self.labels_ = np.empty(0, dtype=np.int64)
        self.n_steps_ = 0
        self.random_state_ = np.random.default_rng(self.random_state)

    def _run_step(self, counts, callback, z=None, n_sweeps=None):
        """One time step. ``z`` (per token) replaces the random initial topics and
        ``n_sweeps`` the iterations (tests fix the assignment with ``n_sweeps=0``)."""
        n_sweeps = self.max_iter if n_sweeps is None else n_sweeps
        step = _Step(Tokens.from_counts(counts), counts.shape[1], self.topic_proportions_,
                     np.ascontiguousarray(self.topic_word_.T), self.alpha, self.beta)
        rng = self.random_state_
        step.assign(rng.integers(0, self.n_clusters, size=step.tokens.words.shape[0])
                    if z is None else z)
        for iteration in range(1, n_sweeps + 1):
            step.sweep(rng.random(step.tokens.words.shape[0]))
            for _ in range(self.fixed_point_iter):
                step.update_precisions()
            if callback is not None:
                callback(iteration, n_sweeps, int(np.unique(step.z).size))
        theta_d, self.topic_proportions_, phi_wk = step.posterior()
        self.topic_word_ = np.ascontiguousarray(phi_wk.T)
        self.step_labels_ = np.argmax(theta_d, axis=1).astype(np.int64)
        self.labels_ = np.concatenate([self.labels_, self.step_labels_])
        self.n_clusters_ = int(np.unique(self.labels_).size)
        self.alpha_, self.beta_ = float(step.alpha), step.beta
        self.n_iter_ = n_sweeps
        self.n_steps_ += 1

    def predict_proba(self, X):
        """Topic proportions of new documents folded in under the last step's topics.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_features_in_) or Corpus

        Returns
        -------
        ndarray of shape (n_documents, n_clusters)
            Rows summing to 1.
        """
        check_is_fitted(self, "labels_")
        tokens = Tokens.from_counts(same_columns(X, self.n_features_in_))
        out = np.empty((tokens.n_docs, self.n_clusters))
        prior = self.alpha_ * np.asarray(self.topic_proportions_)
        kernels.fold_in(tokens.ptr, tokens.words, np.ascontiguousarray(self.topic_word_.T),
                        prior, float(prior.sum()), _FOLD_IN_ITER, out)
        return out

    def predict(self, X):
        """Most probable topic of each new document (:meth:`predict_proba`)."""
        return np.argmax(self.predict_proba(X), axis=1).astype(np.int64)

    def top_words(self, n=10, vocabulary=None):
        """The ``n`` most probable words of each topic under phi_t.

        Returns
        -------
        list of list of (word, weight)
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else getattr(self, "vocabulary_", None)
        return [[(words[w] if words is not None else int(w), float(row[w]))
                 for w in np.argsort(-row, kind="stable")[:n]] for row in self.topic_word_]


class _Step:
    """One time step: tokens, topics, counts, precisions and the prior they give."""

    def __init__(self, tokens, n_words, theta_past, phi_past, alpha, beta):
        n_topics = theta_past.shape[0]
        self.tokens, self.theta_past, self.phi_past = tokens, theta_past, phi_past
        self.alpha, self.beta = float(alpha), np.full(n_topics, float(beta))
        self.n_dk = np.zeros((tokens.n_docs, n_topics), dtype=np.int32)
        self.n_wk = np.zeros((n_words, n_topics), dtype=np.int32)
        self.n_k = np.zeros(n_topics, dtype=np.int32)
        self.z = None
        self.refresh_prior()

    def assign(self, z):
        self.z = np.asarray(z, dtype=np.int32).copy()
        build_counts(self.tokens.ptr, self.tokens.words, self.z, self.n_dk, self.n_wk,
                     self.n_k)

    def refresh_prior(self):
        self.a = self.alpha * self.theta_past
        self.b = self.phi_past * self.beta[None, :]

    def sweep(self, uniforms):
        return kernels.gibbs_sweep(self.tokens.ptr, self.tokens.words, self.z, self.n_dk,
                                   self.n_wk, self.n_k, self.a, self.b, self.beta, uniforms)

    def update_precisions(self):
        """One fixed-point step of alpha_t and every beta_{t,k} (TTM's rules)."""
        self.alpha = update_document_alpha(self.alpha, self.theta_past, self.n_dk)
        held = np.nonzero(self.n_wk)
        self.beta = update_topic_beta(self.beta[None, :], self.phi_past[None], self.n_wk,
                                      self.n_k, held, np.zeros((1, self.beta.size)))[0]
        self.refresh_prior()

    def posterior(self):
        """theta_d (D, K), their mean theta_t (K,) and phi_t word-major (V, K)."""
        n_d = self.n_dk.sum(axis=1, keepdims=True)
        theta_d = (self.n_dk + self.a) / (n_d + self.alpha)
        theta = theta_d.mean(axis=0) if len(theta_d) else self.theta_past.copy()
        phi = (self.n_wk + self.b) / (self.n_k + self.beta)
        return theta_d, theta / theta.sum(), phi


def update_document_alpha(alpha, theta_past, n_dk):
    """TTM's fixed-point step for the precision shared by the step's documents.

    ``alpha <- alpha sum_d sum_k theta_k (psi(n_dk + a_k) - psi(a_k)) / sum_d (psi(n_d +
    alpha) - psi(alpha))`` with ``a_k = alpha theta_k``; documents without tokens add 0.
    """
    a = alpha * theta_past
    n_d = n_dk.sum(axis=1)
    scale = float(np.sum(digamma(n_d + alpha) - digamma(alpha)))
    if not scale > 0.0:
        return alpha
    rows, topics = np.nonzero(n_dk)
    gain = digamma(n_dk[rows, topics] + a[topics]) - digamma(a[topics])
    return alpha * float(np.sum(theta_past[topics] * gain)) / scale
