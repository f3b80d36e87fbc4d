"""Mixture of von Mises-Fisher distributions: batch EM, online vMF and the hybrid h-vMF.

Banerjee & Basu, "Topic Models over Text Streams: A Study of Batch and Online Unsupervised
Learning", SDM 2007: section 2.1 (movMF by EM, ``fit``), section 3.1 (online vMF,
``partial_fit``) and section 3.4 (the hybrid STREAM/OFFLINE scheme, ``partial_fit`` with
``offline_every``). The numerics live in ``_vmf_density`` (normalising constant,
concentration), ``_movmf_em`` (E- and M-steps, seeding) and ``_movmf_kernels`` (the
compiled online pass); the hybrid schedule in ``_hybrid``.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import softmax

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.hybrid import HYBRID_CONSTRAINTS, HybridStreamMixin
from shortclust.models.vmf._em import (Mixture, e_step, initial_mixture, m_step,
                                         nonempty_rows, run_em, seed_directions)
from shortclust.models.vmf._kernels import online_vmf_pass
from shortclust.models.common.tfidf import _holds_counts, top_words_of, unit_vectors
from shortclust.models.vmf._density import estimate_concentration, log_vmf_normaliser
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Interval,
                                    NoneOr, Options, Real, Seed)
from shortclust.models.common.invariants import FITTED_INVARIANTS

__all__ = ["MovMF"]


def _state(name: str, doc: str, default=None):
    """A public property over a private attribute of the online state (read and written)."""
    def get(self):
        value = getattr(self, name, default)
        if value is None:
            raise AttributeError(f"{name} is not set: the model is not fitted")
        return value

    return property(get, lambda self, value: setattr(self, name, value), doc=doc)


class MovMF(HybridStreamMixin, ClusteringModel):
    """Mixture of von Mises-Fisher distributions on L2-normalised document vectors.

    **Batch (``fit``, section 2.1).** Each document is a unit vector (the L2-normalised
    TF-IDF of the config's ``representation: {name: tfidf}``), modelled by
    ``p(x) = sum_h alpha_h c_d(kappa_h) exp(kappa_h mu_h^T x)``. EM alternates the
    E-step ``p(h|x_i) = alpha_h f_h(x_i) / sum_l alpha_l f_l(x_i)`` and the M-step
    ``alpha_h = mean_i p(h|x_i)``, ``mu_h = r_h / ||r_h||`` with
    ``r_h = sum_i x_i p(h|x_i)``, and ``kappa_h = (rbar d - rbar^3) / (1 - rbar^2)``,
    ``rbar = ||r_h|| / sum_i p(h|x_i)``, until the log-likelihood's relative gain is at
    most ``tol``. ``log c_d(kappa)`` is computed stably for d in the tens of thousands and
    kappa in the thousands (``_vmf_density``). ``assignment="hard"`` replaces the
    posterior by its argmax (hard-movMF, the spherical k-means family). Optional
    deterministic annealing raises the posterior to ``1/T``, T falling from
    ``temperature`` by the factor ``cooling`` per iteration down to 1.

    **Initialisation.** ``init="k-means++"`` (default): spherical k-means++, a first
    seed drawn uniformly among the non-empty documents, each next one with probability proportional to ``1 - cos`` to
    its nearest seed (half the squared distance on the sphere, the D^2 rule of
    k-means++), all from ``numpy.random.default_rng(random_state)``; each document then
    goes to its nearest seed and one M-step gives the starting mixture. The paper names no
    initialisation; this one spreads the seeds over the topics at O(K nnz) cost, is
    sparse-friendly, is the usual seeding of spherical k-means, and makes the labels a
    function of the seed. ``init="random"``: K distinct non-empty documents drawn
    uniformly are the seeds (the seeding of the time: k-means++ appeared in 2007, the
    year of the paper); the rest is the same. Both the batch fit and a stream's first
    batch seed this way.

    **Online (``partial_fit``, section 3.1).** Each document is assigned to its most
    probable component and only that component's mean moves, with the effective count
    ``c_h <- (1 - 1/L) c_h + 1`` (L = ``memory_length``): ``mu_h <- (mu_h + (x - mu_h) /
    c_h) / ||...||``. A stream started by ``partial_fit`` is the paper's focus, online
    spherical k-means: the first batch gives K spherical k-means++ seeds (the first
    document assigned to a component replaces its seed: c starts at 0), weights are
    equal and the concentrations one common kappa, so "most probable" is "nearest mean by
    cosine"; the common kappa (for ``predict_proba`` and the OFFLINE E-step) is the
    estimate above from the pooled mean cosine of the documents to the mean they joined.
    After ``fit`` or an OFFLINE step, the posterior uses the fitted kappa_h and alpha_h,
    which the STREAM phase keeps while it moves the means.

    **Hybrid h-vMF (section 3.4).** With ``offline_every=f`` and ``stream_length=N``, one
    iteration of batch EM (an E-step over every document seen, whose labels replace
    theirs, then an M-step, from the current online parameters) runs each time the
    stream reaches ``round(j f N)`` documents; the paper's Figure 1 uses f = 0.2.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of components K (the paper uses the number of classes).
    assignment : {"soft", "hard"}, default="soft"
        Posterior responsibilities (EM) or their argmax (hard-movMF).
    max_iter : int, default=100
        EM iterations (E-steps) per initialisation.
    tol : float, default=1e-6
        Stop when the log-likelihood's relative gain is at most this (at temperature 1).
    n_init : int, default=1
        Initialisations; the one with the highest log-likelihood is kept.
    init : {"k-means++", "random"}, default="k-means++"
        Seeding: spherical k-means++, or K distinct documents drawn uniformly.
    temperature : float, default=1.0
        Initial annealing temperature T >= 1 (1: no annealing); soft assignment only.
    cooling : float, default=0.8
        Factor in (0, 1) applied to T after each M-step until T reaches 1.
    memory_length : float or None, default=None
        The online effective memory L >= 1; None is unlimited (c_h counts the documents:
        the running mean of the exponential-family recursion).
    offline_every : float or None, default=None
        Hybrid scheme: the fraction of the stream between OFFLINE iterations; None is the
        plain online model.
    stream_length : int or None, default=None
        Hybrid scheme: documents in the whole stream (needed with ``offline_every``).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the seeding (``init``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Posterior argmax of each document (``fit``); for a stream, the component each
        document joined, replaced at each OFFLINE step.
    n_clusters_, n_iter_ : int
    means_ : ndarray of shape (n_clusters, n_features_in_)
        Unit mean directions mu_h (a component that never had a document is zero).
    concentrations_, weights_ : ndarray of shape (n_clusters,)
        kappa_h and alpha_h.
    log_likelihood_ : float
        ``fit``: the final objective (log-likelihood, or classification log-likelihood for
        "hard"); ``log_likelihood_history_`` holds one value per E-step.
    counts_ : ndarray of shape (n_clusters,)
        Online effective counts c_h.
    n_features_in_ : int

    Notes
    -----
    Empty documents (zero rows) are not on the sphere: EM leaves them out of the
    likelihood and the M-step, and their posterior is the prior alpha (they join the
    heaviest component); the online pass assigns them likewise and moves nothing.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2., 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> labels = MovMF(n_clusters=2, random_state=0).fit_predict(X)
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "assignment": Options("soft", "hard"),
        "max_iter": Integer(1),
        "tol": Real(0.0),
        "n_init": Integer(1),
        "init": Options("k-means++", "random"),
        "temperature": Real(1.0),
        "cooling": Interval(0.0, 1.0, closed="neither"),
        "memory_length": NoneOr(Real(1.0)),
        **HYBRID_CONSTRAINTS,
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="vectors", incremental=True, predict=True,
                                predict_proba=True, top_words=True)
    #: ``init`` came after runs were archived; k-means++ is the seeding they used.
    _parameters_added_later = {"init": "k-means++"}
    #: What a saved model keeps (:mod:`shortclust.models.state`): the mixture ``predict``
    #: reads and the online state ``partial_fit`` continues from. A hybrid model's documents
    #: seen (the input of its OFFLINE steps) are not kept: a loaded h-vMF predicts, but
    #: refuses to stream on.
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_", "means_",
                          "concentrations_", "weights_", "counts_", "resultants_",
                          "resultant_norms2_", "started_", "by_cosine_", "cosine_sum_",
                          "n_cosines_", "offline_at_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["movmf"]

    def __init__(self, *, n_clusters=8, assignment="soft", max_iter=100, tol=1e-6, n_init=1,
                 init="k-means++", temperature=1.0, cooling=0.8, memory_length=None,
                 offline_every=None, stream_length=None, random_state=None):
        self.n_clusters = n_clusters
        self.assignment = assignment
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.init = init
        self.temperature = temperature
        self.cooling = cooling
        self.memory_length = memory_length
        self.offline_every = offline_every
        self.stream_length = stream_length
        self.random_state = random_state

    def _validate_joint_params(self):
        super()._validate_joint_params()
        if self.assignment == "hard" and self.temperature != 1.0:
            raise ParameterError(
                "temperature > 1 anneals the posterior of soft assignment: set "
                "assignment: soft or temperature: 1"
            )

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """Three dense K x d float64 arrays: the means, the online means, the M-step sums."""
        return None if n_features is None else 3 * params["n_clusters"] * n_features * 8

    # --- batch EM -------------------------------------------------------------------------

    def fit(self, X, y=None, callback=None):
        """Fit the mixture by EM (section 2.1).

        Parameters
        ----------
        X : matrix of shape (n_documents, n_features), float
            Document vectors (L2-normalised TF-IDF), sparse or dense; rows are scaled to
            unit length, zero rows (empty documents) allowed.
        y : ignored
        callback : callable, optional
            ``callback(iteration, max_iter, n_clusters)`` after each E-step.

        Returns
        -------
        self : MovMF
        """
        self._validate_params()
        self._validate_stream_params()
        X = self._vectors(X)
        nonempty = nonempty_rows(X)
        if not nonempty.any():
            raise ParameterError("every document is empty: movmf needs documents with words")
        rng = np.random.default_rng(self.random_state)
        best = None
        for _ in range(self.n_init):
            start = initial_mixture(X[nonempty], self.n_clusters, rng, self.init)
            progress = None if callback is None else (
                lambda i, labels: callback(i, self.max_iter, int(np.unique(labels).size)))
            result = run_em(X, nonempty, start, assignment=self.assignment,
                            max_iter=self.max_iter, tol=self.tol,
                            temperature=float(self.temperature), cooling=self.cooling,
                            callback=progress)
            if best is None or result.objective > best.objective:
                best = result
        self.log_likelihood_ = best.objective
        self.log_likelihood_history_ = best.history
        self.n_features_in_ = X.shape[1]
        self._adopt(best.mixture, int(nonempty.sum()))
        self._stream_restart(sp.csr_matrix(X) if self.offline_every is not None else None,
                             best.labels)
        self.n_iter_ = best.n_iter
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return ``labels_``."""
        return self.fit(X, callback=callback).labels_

    # --- the fitted mixture ---------------------------------------------------------------

    def predict_proba(self, X):
        """Posterior ``p(h | x)`` of each document under the current mixture.

        An empty document's posterior is the prior ``weights_``.
        """
        return softmax(self._log_joint(X), axis=1)

    def predict(self, X):
        """The most probable component of each document (argmax of ``predict_proba``)."""
        return np.argmax(self._log_joint(X), axis=1).astype(np.int64)

    def top_words(self, n=10, vocabulary=None):
        """The words of largest weight in each mean direction, heaviest first.

        Parameters
        ----------
        n : int, default=10
        vocabulary : sequence of str, optional
            One word per column of the vectors (the model is fitted on vectors, so it has
            no vocabulary of its own; a model loaded from a file has the one it was saved
            with).

        Returns
        -------
        list of list of (word, weight)
            One list per component (``n_clusters`` lists).
        """
        check_is_fitted(self, "means_")
        # A model loaded from a file knows the vocabulary it was saved with.
        vocabulary = vocabulary if vocabulary is not None else getattr(self, "vocabulary_", None)
        if vocabulary is None:
            raise ParameterError("top_words needs vocabulary= (one word per column of the "
                                 "document vectors movmf was fitted on)")
        return top_words_of(self.means_, n, vocabulary)

    @property
    def means_(self):
        """Unit mean directions mu_h (K x d), from the online state when first read."""
        if getattr(self, "_means", None) is None:
            V = self._V  # an AttributeError before fitting, as hasattr expects
            norm = np.sqrt(np.einsum("ij,ij->j", V, V))
            self._means = np.ascontiguousarray((V / np.where(norm > 0, norm, 1.0)).T)
        return self._means

    @means_.setter
    def means_(self, value):
        self._means = value

    # The online state under public names, so that a saved model keeps it.
    resultants_ = _state("_V", "Each component's running resultant (d x K): the effective-"
                         "count-weighted sum of its documents, not normalised.")
    resultant_norms2_ = _state("_norm2", "Squared norms of ``resultants_`` (1 for a zero "
                               "column), kept as the online pass updates them.")
    started_ = _state("_started", "Whether each component has received a seed or document.")
    by_cosine_ = _state("_by_cosine", "True while the stream assigns by cosine (spherical "
                        "k-means), before any fit or OFFLINE step.")
    cosine_sum_ = _state("_cosine_sum", "Sum of the assigned documents' cosines in the "
                         "cosine phase.", 0.0)
    n_cosines_ = _state("_n_cosines", "Documents behind ``cosine_sum_``.", 0)

    def _restore_fitted(self):
        """After a load: the stream's label buffer; no documents seen for OFFLINE steps."""
        self._relabel(self.labels_)
        self._repository = None  # not saved: _seen refuses a loaded hybrid model

    def _log_joint(self, X):
        check_is_fitted(self, "means_")
        X = self._vectors(X, width=self.n_features_in_)
        return self._mixture().log_joint(X, nonempty_rows(X))

    def _mixture(self):
        return Mixture(np.ascontiguousarray(self.means_.T), self.concentrations_,
                       self.weights_)

    def _adopt(self, mixture, n_documents):
        """Make ``mixture`` the model's, and the online state continue from it."""
        self._means = np.ascontiguousarray(mixture.directions.T)
        self.concentrations_ = mixture.kappa.copy()
        self.weights_ = mixture.weights.copy()
        self._V = np.ascontiguousarray(mixture.directions)
        norm2 = np.einsum("ij,ij->j", self._V, self._V)
        self._norm2 = np.where(norm2 > 0, norm2, 1.0)  # zero columns score 0, not NaN
        self._started = np.ones(self.n_clusters, dtype=bool)
        self.counts_ = self._effective_count(mixture.weights * n_documents)
        self._by_cosine = False

    def _effective_count(self, n_documents):
        """c after n updates from 0: L (1 - (1 - 1/L)^n), or n for unlimited memory."""
        if self.memory_length is None:
            return np.asarray(n_documents, dtype=np.float64)
        return self.memory_length * (1.0 - (1.0 - 1.0 / self.memory_length) ** n_documents)

    # --- the stream (HybridStreamMixin's hooks) -------------------------------------------

    def _stream_rows(self, X_batch):
        width = getattr(self, "n_features_in_", None)
        if _unit_csr(X_batch) and (width is None or X_batch.shape[1] == width):
            rows = X_batch  # already what _vectors would return: skip its per-call cost
        else:
            rows = sp.csr_matrix(self._vectors(X_batch, width=width))
        if not rows.has_sorted_indices:
            rows = rows.copy()
            rows.sort_indices()
        return rows

    def _stream_start(self, rows):
        """Seeds (``init``) from the first batch; equal weights, cosine rule."""
        self.n_features_in_ = rows.shape[1]
        nonempty = nonempty_rows(rows)
        rng = np.random.default_rng(self.random_state)
        self._V = (seed_directions(rows[nonempty], self.n_clusters, rng, self.init)
                   if nonempty.any() else np.zeros((rows.shape[1], self.n_clusters)))
        self._norm2 = np.einsum("ij,ij->j", self._V, self._V)
        self._started = self._norm2 > 0
        self._norm2[~self._started] = 1.0
        self.counts_ = np.zeros(self.n_clusters)
        self._by_cosine = True
        self._cosine_sum, self._n_cosines = 0.0, 0
        self._means = None
        self._cosine_state()

    def _stream_step(self, rows):
        """The online pass (section 3.1) over ``rows``, in order."""
        K = self.n_clusters
        if self._by_cosine:
            bias, slope, log_prior = np.zeros(K), np.ones(K), np.zeros(K)
        else:
            with np.errstate(divide="ignore"):
                log_prior = np.log(self.weights_)
            bias = log_prior + log_vmf_normaliser(self.n_features_in_, self.concentrations_)
            slope = self.concentrations_.astype(np.float64)
        decay = 1.0 if self.memory_length is None else 1.0 - 1.0 / self.memory_length
        labels = np.empty(rows.shape[0], dtype=np.int64)
        cosine_sum, n_cosines = online_vmf_pass(
            rows.indptr, rows.indices, rows.data, self._V, self._norm2, self.counts_,
            self._started, bias, slope, log_prior, float(decay), labels)
        self._means = None  # the means moved: means_ recomputes them when read
        if self._by_cosine:
            self._cosine_sum += cosine_sum
            self._n_cosines += n_cosines
            self._cosine_state()
        return labels

    def _batch_step(self, seen):
        """One EM iteration over every document seen: E-step (the labels), then M-step."""
        nonempty = nonempty_rows(seen)
        if not nonempty.any():
            return self.labels_
        mixture = self._mixture()
        responsibilities, _, labels = e_step(mixture, seen, nonempty, self.assignment)
        self._adopt(m_step(seen[nonempty], responsibilities, mixture), int(nonempty.sum()))
        return labels

    def _cosine_state(self):
        """Spherical k-means as a movMF: equal weights, the common kappa of the pooled
        mean cosine."""
        pooled = self._cosine_sum / self._n_cosines if self._n_cosines else 0.0
        kappa = float(estimate_concentration(pooled, self.n_features_in_))
        self.concentrations_ = np.full(self.n_clusters, kappa)
        self.weights_ = np.full(self.n_clusters, 1.0 / self.n_clusters)

    # --- input ----------------------------------------------------------------------------

    def _vectors(self, X, width=None):
        """Unit rows of a float matrix (CSR stays CSR); word counts are refused."""
        if _holds_counts(X):
            raise ParameterError(
                "movmf takes document vectors (a float matrix such as L2-normalised TF-IDF), "
                "got word counts: set representation: {name: tfidf}"
            )
        vectors, _ = unit_vectors(X)
        if vectors.shape[1] < 2:
            raise ParameterError(
                f"movmf needs vectors of at least 2 dimensions, got {vectors.shape[1]}")
        if width is not None and vectors.shape[1] != width:
            raise ParameterError(
                f"X has {vectors.shape[1]} columns but the model was fitted on {width}: use "
                "the same representation and vocabulary"
            )
        return vectors


def _unit_csr(X):
    """A CSR float64 matrix of finite values whose rows have unit (or zero) length.

    Such a batch (a slice of the ``tfidf`` representation) needs no conversion: checking
    it is O(nnz) with a few numpy calls, where :func:`unit_vectors` costs about a
    millisecond per call, which would dominate one-document batches.
    """
    if not (sp.issparse(X) and X.format == "csr" and X.dtype == np.float64):
        return False
    if X.shape[0] == 0 or X.shape[1] < 2 or not np.isfinite(X.data).all():
        return False
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    norm2 = np.bincount(rows, weights=X.data * X.data, minlength=X.shape[0])
    return bool(np.all((norm2 == 0) | (np.abs(norm2 - 1.0) <= 1e-12)))
