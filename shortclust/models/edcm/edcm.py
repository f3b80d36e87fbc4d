"""Mixture of EDCM distributions by EM, and its online variant with sliding windows."""

import numpy as np
import scipy.sparse as sp

from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.edcm import _em as em
from shortclust.models.edcm._online import Windows
from shortclust.models.common.validation import as_counts, same_columns
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Interval, NoneOr,
                                    Real, Seed)
from shortclust.models.common.invariants import FITTED_INVARIANTS

__all__ = ["EDCM"]


#: The windows' arrays a saved model keeps, as ``window_<name>_`` attributes.
_WINDOW_ARRAYS = ("slots", "start", "count", "df", "distinct", "store_data", "store_indices",
                  "store_indptr")


def _window_array(name: str):
    """A public view of one array of the windows (read for saving, written by loading)."""
    def get(self):
        windows = self._windows
        if name.startswith("store_"):
            return getattr(windows.store, name[len("store_"):])
        return getattr(windows, name)

    def put(self, value):
        self._loaded_windows[name] = value

    return property(get, put, doc=f"The windows' ``{name}`` (saved models).")


class EDCM(ClusteringModel):
    """Mixture of EDCM distributions: EM with deterministic annealing; online windows.

    Each component h is an EDCM distribution (Elkan 2006), the exponential-family
    approximation of the Dirichlet compound multinomial that models burstiness (a word
    that occurs once in a document is likely to occur again). A document x of n tokens
    has, under parameters beta_h (one positive number per word) and s_h = sum_j beta_hj,
    the probability given in section 2.2 of Banerjee & Basu (SDM 2007)::

        q(x | beta_h) = n! Gamma(s_h) / Gamma(s_h + n) prod_{j: x_j >= 1} beta_hj / x_j

    ``fit`` runs EM on the mixture sum_h pi_h q(x | beta_h). The E-step is Bayes' rule,
    ``p(h | x) ~ pi_h q(x | beta_h)`` (as for the movMF, the paper says). The M-step is the
    paper's: for each component, with M_h = sum_i p(h|x_i) and n_i the tokens of x_i::

        s_h     = sum_j sum_i p(h|x_i) 1(x_ij >= 1) / (sum_i p(h|x_i) Psi(s_h + n_i) - M_h Psi(s_h))
        beta_hj =       sum_i p(h|x_i) 1(x_ij >= 1) / (sum_i p(h|x_i) Psi(s_h + n_i) - M_h Psi(s_h))

    where s_h is the fixed point of its own equation (unique; solved per component by a
    safeguarded Newton iteration, see ``_edcm_kernels.solve_precision``), and pi_h = M_h / m.
    The sums over words run over the non-zeros of X only: a pass costs O(nnz K) plus
    O(V K) for the dense beta.

    Plain EM on this model stops in poor local optima. Elkan recommends two heuristics,
    both used here:

    * **deterministic annealing** of the E-step (Ueda & Nakano 1998):
      ``p_b(h | x) ~ (pi_h q(x | beta_h))^b``, the inverse temperature b starting at
      ``anneal_start`` and multiplied by ``anneal_factor`` each iteration until 1, where
      EM runs on to convergence. At small b every document is shared by every component
      and the components split as b grows. ``anneal_start=1`` is plain EM. While b < 1,
      each beta_hj is multiplied by exp(0.001 u), u standard normal, after the M-step, so
      that components the hot phase made equal can still split (ours, as deterministic
      annealing perturbs its duplicated codevectors; ``_edcm_em.perturbed``);
    * **smoothing**: pseudo-counts a_j = smoothing (df_j + 1) / K added to each
      component's counts of documents holding word j (df_j: documents of the fitted data
      holding j), so no word has probability 0 in a component that never saw it. This is
      the exact M-step under the prior prod_hj beta_hj^(a_j), so EM at b = 1 never
      decreases the log-likelihood plus that log prior (``objective_history_``).

    The SDM paper gives neither the annealing schedule nor the form of the smoothing;
    the ones here are ours (defaults chosen on 20 Newsgroups, see
    ``benchmarks/README.md``).

    :meth:`partial_fit` is online EDCM (section 3.2). The first call fits the mixture to
    its batch by EM, to start from "an existing mixture of EDCM models"; then every
    document of every batch, in order, goes to its most probable component h (Bayes'
    rule, pi_h proportional to the documents h has received), which takes it into its
    window M_h^L of the last L = ``window`` documents assigned to it (dropping the
    oldest); the window's documents "estimate a new set of parameters following the
    update equations in Section 2.2" (each document weight 1, no smoothing: words the
    window lacks get beta_hat_j = 0), and beta_h becomes the moving average
    ``(1 - w) beta_h + w beta_hat``, w = ``update_weight`` (by default 1/L: each document
    moves the parameters by one window's share), so every beta_hj of the starting
    mixture stays positive. Windows start empty at the first call (the batch's
    documents then fill them as they pass); after ``fit`` they hold the last L
    documents of each cluster.

    Smoothing pseudo-counts in the windows were tried and dropped: they add distinct-word
    mass without tokens, which pushes a window's s estimate up, often to the bound that
    stands for s = infinity, and one component then collects a large share of the
    documents (measurements in ``benchmarks/README.md``).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of components K.
    smoothing : float, default=0.1
        Weight of the pseudo-counts (0: none; then a word a component never saw has
        probability 0 there, and a document holding it can only join another component).
    anneal_start : float in (0, 1], default=0.01
        First inverse temperature b of the E-step; 1 disables annealing (plain EM).
    anneal_factor : float > 1, default=1.1
        b is multiplied by this after each iteration, up to 1.
    max_iter : int, default=300
        EM iterations at most, annealing included.
    tol : float, default=1e-6
        Stop once an iteration at b = 1 raises the objective by at most ``tol`` times its
        magnitude.
    window : int, default=100
        L, the documents per component window of online EDCM.
    update_weight : float in (0, 1] or None, default=None
        w of the online moving average; None is 1 / ``window``; 1 makes beta_h its
        window's estimate.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the initial assignment (each document in a uniformly drawn component).

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Most probable component of each document (0..n_clusters-1); after
        :meth:`partial_fit`, of every document streamed so far, in order.
    n_clusters_ : int
        Distinct labels.
    n_iter_ : int
        EM iterations of ``fit``; for :meth:`partial_fit`, those of its initial fit plus
        one for the online pass, or 1.
    beta_ : ndarray of shape (n_clusters, n_features_in_)
        The EDCM parameters beta_hj.
    precisions_ : ndarray of shape (n_clusters,)
        s_h = sum_j beta_hj.
    weights_ : ndarray of shape (n_clusters,)
        Mixing weights pi_h.
    component_sizes_ : ndarray of shape (n_clusters,)
        Documents per component: the fit's sum_i p(h|x_i), plus one per document the
        online pass assigned.
    word_prior_ : ndarray of shape (n_features_in_,)
        Smoothing pseudo-counts per document of the EM fit, smoothing (df_j + 1) / m (a
        component gets m / K times these; the OFFLINE step of the hybrid scheme too).
    log_likelihood_ : float
        sum_i log sum_h pi_h q(x_i | beta_h) of the fitted documents at the end of ``fit``.
    log_likelihood_history_, objective_history_ : list of float
        Before each EM iteration and after the last: the log-likelihood, and it plus the
        smoothing's log prior (what EM increases at b = 1).
    inverse_temperatures_ : ndarray
        b of each iteration run.
    n_features_in_ : int
    vocabulary_ : list of str or None

    References
    ----------
    A. Banerjee and S. Basu. Topic models over text streams: a study of batch and online
    unsupervised learning. SDM 2007 (sections 2.2 and 3.2).
    C. Elkan. Clustering documents with an exponential-family approximation of the
    Dirichlet compound multinomial distribution. ICML 2006.
    N. Ueda and R. Nakano. Deterministic annealing EM algorithm. Neural Networks, 1998.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[3, 1, 0, 0], [2, 2, 0, 0], [0, 0, 1, 3], [0, 0, 2, 2]] * 5)
    >>> model = EDCM(n_clusters=2, random_state=0).fit(X)
    >>> labels = model.labels_
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "smoothing": Real(0.0),
        "anneal_start": Interval(0.0, 1.0, closed="right", note="1: plain EM"),
        "anneal_factor": Real(1.0, inclusive=False),
        "max_iter": Integer(1),
        "tol": Real(0.0),
        "window": Integer(1),
        "update_weight": NoneOr(Interval(0.0, 1.0, closed="right")),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True)
    #: What a saved model keeps (:mod:`shortclust.models.state`): the mixture ``predict``
    #: reads, and the windows of section 3.2 (as plain arrays) so that a loaded model
    #: streams on exactly as the fitted one.
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_", "beta_",
                          "precisions_", "component_sizes_", "weights_", "word_prior_",
                          *(f"window_{name}_" for name in _WINDOW_ARRAYS),
                          "window_store_shape_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["edcm"]

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """beta, its log and the M-step's counts (K x V floats), the windows' document
        frequencies (K x V), and three m x K float arrays: a lower bound."""
        k = params.get("n_clusters", 8)
        if n_features is None:
            return None
        return 32 * k * n_features + 24 * k * n_docs

    def __init__(self, *, n_clusters=8, smoothing=0.1, anneal_start=0.01, anneal_factor=1.1,
                 max_iter=300, tol=1e-6, window=100, update_weight=None, random_state=None):
        self.n_clusters = n_clusters
        self.smoothing = smoothing
        self.anneal_start = anneal_start
        self.anneal_factor = anneal_factor
        self.max_iter = max_iter
        self.tol = tol
        self.window = window
        self.update_weight = update_weight
        self.random_state = random_state

    # --- batch EM -----------------------------------------------------------------------

    def fit(self, X, y=None, callback=None):
        """Fit the mixture by (annealed) EM and label each document.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts. An empty document is placed by the mixing
            weights alone.
        y : ignored
        callback : callable, optional
            ``callback(iteration, max_iter, n_clusters)`` after each EM iteration.

        Returns
        -------
        self : EDCM
        """
        self._validate_params()
        counts, self.vocabulary_ = as_counts(X)
        result = self._fit_mixture(counts, callback)
        self.labels_ = result.joint.argmax(axis=1).astype(np.int64)
        self._windows = Windows.from_labels(counts, self.labels_, self.n_clusters,
                                            self.window)
        self.n_iter_ = result.n_iter
        self._count_clusters()
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return ``labels_``."""
        return self.fit(X, callback=callback).labels_

    def _fit_mixture(self, counts, callback=None):
        """EM on ``counts``; stores the parameters and the histories, returns the result."""
        docs = em.Documents.from_counts(counts)
        m, n_words = counts.shape
        document_frequency = np.diff(counts.tocsc().indptr)
        self.n_features_in_ = n_words
        self.word_prior_ = self.smoothing * (document_frequency + 1.0) / m
        pseudo_counts = self.word_prior_ * m / self.n_clusters
        rng = np.random.default_rng(self.random_state)
        start = em.initial_mixture(docs, self.n_clusters, pseudo_counts, rng)
        schedule = em.annealing_schedule(self.anneal_start, self.anneal_factor, self.max_iter)
        result = em.run_em(docs, start, pseudo_counts, schedule, self.tol, rng, callback)
        self._adopt(result.mixture, result.mixture.weights * m)
        self.log_likelihood_ = result.log_likelihood_history[-1]
        self.log_likelihood_history_ = result.log_likelihood_history
        self.objective_history_ = result.objective_history
        self.inverse_temperatures_ = schedule[:result.n_iter]
        return result

    def _adopt(self, mixture, sizes):
        self.beta_ = np.ascontiguousarray(mixture.beta, dtype=np.float64)
        self.precisions_ = np.asarray(mixture.s, dtype=np.float64)
        self.component_sizes_ = np.asarray(sizes, dtype=np.float64)
        self._sync_weights()

    def _sync_weights(self):
        total = self.component_sizes_.sum()
        self.weights_ = (self.component_sizes_ / total if total > 0
                         else np.full(self.n_clusters, 1.0 / self.n_clusters))

    def _mixture(self):
        return em.Mixture(self.beta_, self.precisions_, self.weights_)

    def _count_clusters(self):
        self.n_clusters_ = int(np.unique(self.labels_).size)

    # --- saving: the windows as plain arrays ---------------------------------------------

    window_store_shape_ = property(
        lambda self: list(self._windows.store.shape),
        lambda self, value: self._loaded_windows.__setitem__("store_shape", value),
        doc="Shape of the windows' document store (the rest are ``window_*_`` arrays).")

    def _restore_fitted(self):
        """After a load: the windows rebuilt from their saved arrays."""
        saved = self.__dict__.pop("_loaded_windows_store", {})
        windows = Windows(self.n_clusters, self.window, self.n_features_in_)
        for name in ("slots", "start", "count", "df", "distinct"):
            setattr(windows, name, saved[name])
        windows.store = sp.csr_matrix(
            (saved["store_data"], saved["store_indices"], saved["store_indptr"]),
            shape=tuple(saved["store_shape"]))
        self._windows = windows
        self.vocabulary_ = getattr(self, "vocabulary_", None)

    @property
    def _loaded_windows(self):
        return self.__dict__.setdefault("_loaded_windows_store", {})

    # --- scoring ------------------------------------------------------------------------

    def _log_joint(self, X):
        check_is_fitted(self, "beta_")
        counts = same_columns(X, self.n_features_in_)
        return em.log_joint(self._mixture(), em.Documents.from_counts(counts))

    def score_samples(self, X):
        """log sum_h pi_h q(x | beta_h) of each document (section 2.2's density).

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_features_in_) or Corpus

        Returns
        -------
        ndarray of shape (n_documents,)
        """
        joint = self._log_joint(X)
        peak = joint.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            shifted = np.exp(joint - np.where(np.isfinite(peak), peak, 0.0))
        return np.log(shifted.sum(axis=1)) + np.where(np.isfinite(peak), peak, 0.0).ravel()

    def predict_proba(self, X):
        """p(h | x) for new documents (Bayes' rule, no annealing), one row per document.

        A document that every component gives probability 0 (a word unseen with
        ``smoothing=0``) gets the mixing weights.
        """
        return em.posteriors(self._log_joint(X), self.weights_)

    def predict(self, X):
        """The most probable component of each document."""
        return self.predict_proba(X).argmax(axis=1)

    def top_words(self, n=10, vocabulary=None):
        """The words of largest beta_hj of each component, weighted beta_hj / s_h.

        beta_hj / s_h is the probability of word j as a document's first token under
        component h.

        Parameters
        ----------
        n : int, default=10
        vocabulary : sequence of str, optional
            Column words; defaults to the Corpus vocabulary seen in ``fit``, else column
            indices are returned.

        Returns
        -------
        list of list of (word, weight)
            One list per component, largest weight first.
        """
        check_is_fitted(self, "beta_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        shares = self.beta_ / self.precisions_[:, None]
        result = []
        for row in shares:
            top = np.argsort(-row, kind="stable")[:n]
            result.append([(words[j] if words is not None else int(j), float(row[j]))
                           for j in top])
        return result

    # --- online EDCM (section 3.2) ------------------------------------------------------

    def partial_fit(self, X_batch, y=None):
        """Cluster a batch online: each document to its best component, windows, averages.

        The first call on an unfitted model fits the mixture to the batch by EM (the
        starting model), with empty windows; every call then passes its documents in
        order through the online step described in the class docstring. A call after
        ``fit`` continues from the fitted model.

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_words) or Corpus
            Word counts over the same columns as every earlier batch.
        y : ignored

        Returns
        -------
        self : EDCM
        """
        self._validate_params()
        rows = self._stream_rows(X_batch)
        n_iter = 1
        if not hasattr(self, "beta_"):
            n_iter += self._stream_start(rows)
        labels = self._stream_step(rows)
        self.labels_ = np.concatenate([self.labels_, labels])
        self.n_iter_ = n_iter
        self._count_clusters()
        return self

    def _stream_rows(self, X_batch):
        """The batch as checked CSR counts over the model's columns."""
        if not hasattr(self, "beta_"):
            counts, self.vocabulary_ = as_counts(X_batch)
            return counts
        return same_columns(X_batch, self.n_features_in_)

    def _stream_start(self, rows):
        """EM on the first batch: the mixture the stream starts from; windows empty.

        Returns the EM iterations run. No document is labelled yet.
        """
        result = self._fit_mixture(rows)
        self._windows = Windows(self.n_clusters, self.window, rows.shape[1])
        self.labels_ = np.empty(0, dtype=np.int64)
        return result.n_iter

    def _stream_step(self, rows):
        """The online pass over ``rows``, in order; returns their labels."""
        weight = 1.0 / self.window if self.update_weight is None else self.update_weight
        arrays = (self.beta_, self.precisions_, self.component_sizes_)
        labels = self._windows.run(rows, arrays, weight)
        self._sync_weights()
        return labels

    def _batch_step(self, seen):
        """One EM iteration (b = 1) on every document seen; returns their new labels.

        The hybrid scheme's OFFLINE phase (section 3.4). The windows are rebuilt from
        the new labels: each holds the last ``window`` documents of its component.
        """
        counts = same_columns(seen, self.n_features_in_)
        docs = em.Documents.from_counts(counts)
        mixture = self._mixture()
        pseudo_counts = self.word_prior_ * counts.shape[0] / self.n_clusters
        responsibilities = em.posteriors(em.log_joint(mixture, docs), mixture.weights)
        mixture = em.m_step(docs, responsibilities, pseudo_counts, mixture)
        self._adopt(mixture, responsibilities.sum(axis=0))
        labels = em.log_joint(mixture, docs).argmax(axis=1).astype(np.int64)
        self._windows = Windows.from_labels(sp.csr_matrix(counts), labels, self.n_clusters,
                                            self.window)
        return labels


for _name in _WINDOW_ARRAYS:
    setattr(EDCM, f"window_{_name}_", _window_array(_name))
del _name
