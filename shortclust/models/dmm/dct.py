"""DCT: the dynamic Dirichlet multinomial mixture for streams of short documents."""

import time

import numpy as np

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.dmm import _dct_kernels as kernels
from shortclust.models.dmm._common import count_dtype, doc_arrays, fit_in_steps, zero_stats
from shortclust.models.common.validation import as_counts, same_columns, stream_batch
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Interval,
                                    Options, Real, Seed)
from shortclust.models.common.invariants import FITTED_INVARIANTS
from shortclust.models.common.threads import MAX_BLOCKS

__all__ = ["DCT"]

#: Tokens x ``n_clusters`` a time step needs before ``threads > 1`` samples it in parallel:
#: 1,000 tokens at Z = 300, where one sweep takes about 2 ms on one core; below it the
#: sweep's fixed costs (waking the second thread, two parallel regions per sweep) were a
#: larger share (benchmarks/README.md, "DCT with threads").
PARALLEL_MIN_WORK = 300_000


class DCT(ClusteringModel):
    """Dynamic Clustering Topic model (Liang, Yilmaz & Kanoulas, KDD 2016).

    A Dirichlet multinomial mixture (one topic per document, as in GSDMM) per time step t,
    whose priors are centred on what the previous steps inferred: the topic proportions
    Theta_t ~ Dirichlet(alpha_t Theta_{t-1}) (Eq. 3) and each topic's word distribution
    phi_{t,z} ~ Dirichlet(beta_t phi_{t-1,z}) (Eq. 4); with a dependency length L > 1 the
    centres are weighted sums of the last L steps, ``sum_l alpha_{t,z,l} theta_{t-l,z}``
    and ``sum_l beta_{t,v,l} phi_{t-l,z,v}`` (Eq. 6-7). The short-term model is L = 1:
    one code path serves both, as the paper notes below Eq. 10. Time 0 is theta_0 = 1/Z,
    phi_0 = 1/V; for t <= L the missing earlier steps are taken as time 0.

    Each call of :meth:`partial_fit` is one time step, Algorithm 1: every document of the
    step starts in a uniformly drawn topic; each of ``max_iter`` iterations re-samples
    every document's topic from the collapsed conditional Eq. 5 (Eq. 8), then updates the
    precisions alpha_t and beta_t by ``fixed_point_iter`` fixed-point steps (Appendix B).
    After the iterations come the posterior means Theta_t and Phi_t (Eq. 9-10) and each
    document's topic probabilities (Eq. 11); a document's cluster is its most probable
    topic. Topics keep their identity across steps (topic z at t evolves from topic z at
    t - 1), so the labels of different steps are comparable.

    Parameters
    ----------
    n_clusters : int, default=50
        Number of topics Z (fixed over the stream): an upper bound of the clusters.
    dependency_length : int, default=1
        L: how many earlier steps the priors are built from (1: the short-term model,
        Section 4.2; L > 1: the long-term model, Section 4.3).
    alpha : float, default=10.0
        Initial precision alpha_t of the topic prior at every step (> 0), split equally
        over the L earlier steps (alpha_{t,z,l} = alpha / L). At t = 1 each topic's prior
        weight is alpha / Z.
    beta : float, default=1000.0
        Initial precision beta_t of each topic's word prior at every step (> 0), split
        equally over the L earlier steps (beta_{t,v,l} = beta / L). At t = 1 each word's
        prior weight in a topic is beta / V (0.1 per word, GSDMM's beta, for V = 10,000).
    max_iter : int, default=30
        Iterations of Algorithm 1 per time step (Gibbs sweeps over the step's documents).
        The paper states none; 30 is GSDMM's, the static model DCT extends.
    fixed_point_iter : int, default=1
        Fixed-point steps of alpha_t and beta_t after each sweep (Algorithm 1 step 6 does
        one); 0 keeps the initial precisions throughout.
    topic_precision : {"topic", "shared"}, default="topic"
        ``"topic"``: one alpha_{t,z} per topic, as Eq. 3 and Appendix B write it.
        ``"shared"``: one alpha_t for all topics, as the generative process writes it
        (Theta_t ~ Dirichlet(alpha_t Theta_{t-1})) and the topic-tracking model [10]
        estimates it. See Notes.
    word_precision : {"word", "topic"}, default="word"
        ``"word"``: one beta_{t,v} per word shared by the topics, which is what the update
        rule of Section 4.2 and Appendix B computes (it sums over z on both sides).
        ``"topic"``: one beta_{t,z} per topic, as Eq. 4's text names the set of precisions
        (beta_t = {beta_{t,z}}) and the topic-tracking model estimates it. See Notes.
    precision_floor : float in (0, 1], default=0.5
        The fixed point sends a precision to 0 when its counts are 0 (a topic without
        documents, a word absent from the step), after which Eq. 5 gives a later document
        holding that word probability 0 in every topic. Each precision is therefore kept
        at least ``precision_floor`` times its initial value.
    threads : int, default=1
        1: the exact sequential sweep of Algorithm 1 (the reference). B > 1: in a step
        whose tokens x ``n_clusters`` reach ``PARALLEL_MIN_WORK`` (300,000: 1,000 tokens
        at Z = 300), every sweep after the step's first cuts the step's documents into B
        blocks of about equal tokens, sampled in up to B threads (numba ``prange``), each
        against a private copy of the step's counts ``m_z``, ``n_z``, ``n_zv`` taken at
        the start of the sweep: within a sweep a block sees its own moves but the other
        blocks' counts as they were at the start (stale); the copies' changes are merged
        after the sweep, before the fixed-point steps, which stay exact. An
        approximation of the sequential chain, as AD-LDA is of LDA's (Newman et al.
        2009): labels differ from ``threads=1``; they depend on B and the seed only, not
        on how many threads ran or in which order. The step's first sweep, from the
        random initial topics, and smaller steps run the sequential sweep (see
        :mod:`shortclust.models.dmm._dct_parallel` for why).
        At most 1,024 (``MAX_BLOCKS``: each block holds its own copy of the counts).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the initial topics and of the draws. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Topic of every document seen, in the order given (each document's label is fixed
        at the end of its own step: the argmax of Eq. 11).
    step_labels_ : ndarray of shape (n_step_documents,)
        The labels of the last step's documents.
    n_clusters_ : int
        Distinct labels among all documents seen.
    n_iter_ : int
        Iterations of the last call (``max_iter``; after ``fit`` over several steps, their
        sum).
    n_steps_ : int
        Time steps run.
    topic_proportions_ : ndarray of shape (n_clusters,)
        Theta_t of the last step (Eq. 9; Eq. 10 for L > 1), summing to 1.
    topic_word_ : ndarray of shape (n_clusters, n_features_in_)
        Phi_t of the last step (Eq. 9-10), rows summing to 1.
    proportions_history_ : ndarray of shape (L, n_clusters)
        Theta_t, Theta_{t-1}, ..., Theta_{t-L+1}: the centres of the next step's priors.
    topic_word_history_ : ndarray of shape (L, n_clusters, n_features_in_)
        Phi_t, ..., Phi_{t-L+1}, likewise.
    topic_pseudo_counts_ : ndarray of shape (n_clusters,)
        m_{t,z} + a_{t,z}: the last step's documents per topic plus its prior weight, the
        Dirichlet posterior of Theta_t; with the next array, what :meth:`predict` reads.
    topic_word_pseudo_counts_ : ndarray of shape (n_clusters, n_features_in_)
        n_{t,z,v} + b_{t,z,v}, the Dirichlet posterior of each phi_{t,z}.
    alpha_ : ndarray of shape (n_clusters, L)
        The precisions alpha_{t,z,l} at the end of the last step. A topic unused for
        several steps has a tiny theta_{t-1,z}; if it takes documents again, the fixed
        point gives it a moderate prior weight alpha theta, hence a huge alpha.
    beta_ : ndarray of shape (L, n_features_in_) or (L, n_clusters)
        The precisions beta_{t,v,l} (``word_precision="word"``, shared by the topics) or
        beta_{t,z,l} (``"topic"``) at the end of the last step.
    n_moved_history_ : list of int
        Documents that changed topic in each sweep of the last step.
    sample_seconds_ : float
        Wall time of the sweeps and fixed-point steps of the last call.
    random_state_ : numpy.random.Generator
        The generator, continued by each step.
    n_features_in_ : int
        Vocabulary size V.
    vocabulary_ : list of str or None
        Words of the columns, when a Corpus was given.

    Notes
    -----
    **Vocabulary.** Fixed: the columns of the first batch, which every later batch must
    share (as for ``gsdmm`` and ``lda``). A stream experiment builds the counts over the
    whole corpus, so a word first used late in the stream still has its prior mass from
    phi_0 = 1/V, shrunk step by step while it is absent.

    **beta.** The paper writes beta_{t,z,v}, but its update rule (Section 4.2, Appendix
    B, and Section 4.3 for L > 1) sums over z on both sides, so after one update it does
    not depend on z: the precision of a word, shared by the topics. That is what is
    estimated here (``beta_``). alpha_{t,z,l} is per topic, as written. The long-term
    update multiplies every lag's alpha_{t,z,l} (beta_{t,v,l}) by the same factor, so the
    split over lags keeps its initial proportions. With one alpha_{t,z} per topic fitted
    to the step's counts, Theta_t moves towards the step's own topic proportions; with
    ``fixed_point_iter=0`` the prior keeps its pull towards Theta_{t-1}.

    **Which precisions.** The paper is not consistent about them. Eq. 3 and Appendix B
    give every topic its own alpha_{t,z}; fitted by the fixed point to one step's topic
    counts, Z free weights reproduce those counts, so Theta_t moves to the step's own
    proportions and the pull towards Theta_{t-1} is lost. The update for beta sums over
    the topics, which makes it a precision per word; a word absent from the step then
    has its precision pushed to 0 in every topic (hence ``precision_floor``). The
    generative process and Eq. 4's text instead name one alpha_t and one beta_{t,z} per
    topic, the topic-tracking model's [10] parameters, which the paper says it follows;
    their fixed point is well posed (no precision is sent to 0 by an absent word).
    ``topic_precision`` and ``word_precision`` choose between the readings; the defaults
    are the update rules as printed.

    **Precisions at each step.** Algorithm 1 takes "initialized alpha_t and beta_t" as
    input without saying from what; each step starts from ``alpha`` and ``beta``, so a
    precision pushed to its floor in one step is not carried into the next.

    **Eq. 5.** Its ``n_{t,z,-d}`` is the number of *words* in topic z without d (the text
    says documents, but Appendix A's Gamma ratio is over word totals); the kernel computes
    the conditional in logs (``_dct_kernels``). ``predict_proba`` gives Eq. 11 for new
    documents, scored against the last step's counts and priors (a document not among
    the counts), as GSDMM's Naive Bayes form does.

    References
    ----------
    S. Liang, E. Yilmaz and E. Kanoulas. Dynamic clustering of streaming short documents.
    KDD 2016.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> step = sp.csr_matrix([[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> model = DCT(n_clusters=4, alpha=1.0, beta=0.4, max_iter=20, random_state=0)
    >>> labels = model.partial_fit(step).partial_fit(step).step_labels_
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    >>> model.topic_word_.shape, round(float(model.topic_proportions_.sum()), 12)
    ((4, 4), 1.0)
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "dependency_length": Integer(1),
        "alpha": Real(0.0, inclusive=False),
        "beta": Real(0.0, inclusive=False),
        "max_iter": Integer(1),
        "fixed_point_iter": Integer(0),
        "topic_precision": Options("topic", "shared"),
        "word_precision": Options("word", "topic"),
        "precision_floor": Interval(0.0, 1.0),
        "threads": Integer(1, maximum=MAX_BLOCKS,
                           why="one copy of the counts per block: no machine has more cores"),
        "random_state": Seed(),
    }
    #: Added after DCT's runs were archived; these values are the behaviour from before.
    _parameters_added_later = {"topic_precision": "topic", "word_precision": "word",
                               "threads": 1}
    capabilities = Capabilities(input="counts", incremental=True, predict=True,
                                predict_proba=True, top_words=True, topics=True)
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_", "n_steps_",
                          "random_state_", "proportions_history_", "topic_word_history_",
                          "topic_pseudo_counts_", "topic_word_pseudo_counts_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["dct"]

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """The float64 topic-word arrays (the L past Phi, the prior, the posterior) and
        the counts (one more copy per block with ``threads`` > 1): a lower bound (see
        :meth:`ClusteringModel.memory_bytes`)."""
        params = {**cls().get_params(), **params}
        if n_features is None:
            return None
        copies = 1 + (params["threads"] if params["threads"] > 1 else 0)
        return n_features * params["n_clusters"] * (8 * (params["dependency_length"] + 2)
                                                    + 2 * copies)

    def __init__(self, *, n_clusters=50, dependency_length=1, alpha=10.0, beta=1000.0,
                 max_iter=30, fixed_point_iter=1, topic_precision="topic",
                 word_precision="word", precision_floor=0.5, threads=1, random_state=None):
        self.n_clusters = n_clusters
        self.dependency_length = dependency_length
        self.alpha = alpha
        self.beta = beta
        self.max_iter = max_iter
        self.fixed_point_iter = fixed_point_iter
        self.topic_precision = topic_precision
        self.word_precision = word_precision
        self.precision_floor = precision_floor
        self.threads = threads
        self.random_state = random_state

    # --- fitting ----------------------------------------------------------------------------

    def fit(self, X, y=None, callback=None, steps=None):
        """Cluster the documents of X as a stream starting at time 0.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts, one row per document.
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each sweep of a
            single step, or ``callback(step, n_steps, n_clusters)`` after each step.
        steps : array-like of shape (n_documents,), optional
            Each document's time step (any sortable values); the steps run in increasing
            order, each through :meth:`partial_fit`, and ``labels_`` comes back in the
            rows' order. Without it, X is one time step (the static DMM with priors at
            theta_0 and phi_0, adapted by the fixed-point steps).

        Returns
        -------
        self : DCT
        """
        self._validate_params()
        counts, vocabulary = as_counts(X)
        self._start(counts.shape[1], vocabulary)
        if steps is None:
            self._run_step(counts, callback)
            return self
        return fit_in_steps(self, counts, steps, lambda batch: self._run_step(batch, None),
                            callback)

    def fit_predict(self, X, y=None, callback=None, steps=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback, steps=steps).labels_

    def partial_fit(self, X_batch, y=None):
        """Run one time step on the batch's documents (Algorithm 1).

        The first call on an unfitted model starts the stream at time 0.

        Parameters
        ----------
        X_batch : scipy.sparse matrix of shape (n_batch, n_features_in_) or Corpus
            Word counts over the same vocabulary (columns) as every earlier batch.
        y : ignored

        Returns
        -------
        self : DCT

        Raises
        ------
        ParameterError
            For an out-of-range parameter, a batch whose width or vocabulary differs from
            the model's, or ``n_clusters`` or ``dependency_length`` changed since the fit.
        """
        self._validate_params()
        if not hasattr(self, "labels_"):
            counts, vocabulary = as_counts(X_batch)
            self._start(counts.shape[1], vocabulary)
        else:
            counts = self._check_batch(X_batch)
        self._run_step(counts, None)
        return self

    def _start(self, n_words, vocabulary):
        """Time 0: theta_0 = 1/Z and phi_0 = 1/V for each of the L past steps (Section 4.2)."""
        z, lags = self.n_clusters, self.dependency_length
        self.vocabulary_ = vocabulary
        self.n_features_in_ = n_words
        self.proportions_history_ = np.full((lags, z), 1.0 / z)
        self._phi_history = np.full((lags, n_words, z), 1.0 / n_words)
        self.labels_ = np.zeros(0, dtype=np.int64)
        self.random_state_ = np.random.default_rng(self.random_state)
        self.n_steps_ = 0

    def _check_batch(self, X_batch):
        """The batch's counts over the model's vocabulary, with the model's shape unchanged."""
        counts = stream_batch(X_batch, self.n_features_in_, getattr(self, "vocabulary_", None))
        fitted = self.proportions_history_.shape
        if fitted != (self.dependency_length, self.n_clusters):
            raise ParameterError(
                f"n_clusters={self.n_clusters} and dependency_length="
                f"{self.dependency_length} differ from the fitted {fitted[1]} topics and "
                f"{fitted[0]} steps of history: set them back or refit")
        return counts

    def _run_step(self, counts, callback, z=None, n_sweeps=None):
        """Algorithm 1 at the next time step.

        ``z`` replaces the random initial topics and ``n_sweeps`` the ``max_iter``
        iterations (tests fix the assignment with ``n_sweeps=0``).
        """
        n_sweeps = self.max_iter if n_sweeps is None else n_sweeps
        step = _Step(counts, self._initial_precisions(), self.proportions_history_,
                     self._phi_history, self.topic_precision == "shared",
                     self.word_precision == "topic",
                     self.threads if counts.sum() * self.n_clusters >= PARALLEL_MIN_WORK
                     else 1)
        rng = self.random_state_
        if z is None:
            z = rng.integers(0, self.n_clusters, size=counts.shape[0])
        step.assign(z)
        self.n_moved_history_ = []
        started = time.perf_counter()
        for iteration in range(1, n_sweeps + 1):
            self.n_moved_history_.append(step.sweep(rng.random(counts.shape[0])))
            for _ in range(self.fixed_point_iter):
                step.update_precisions()
            if callback is not None:
                callback(iteration, n_sweeps, int(np.unique(step.z).size))
        self.sample_seconds_ = time.perf_counter() - started
        self._store_step(step)
        self.n_iter_ = n_sweeps

    def _initial_precisions(self):
        """alpha_{t,z,l} = alpha / L, beta_{t,v,l} (or beta_{t,z,l}) = beta / L, the floor."""
        lags = self.dependency_length
        alpha = np.full((self.n_clusters, lags), self.alpha / lags)
        width = self.n_clusters if self.word_precision == "topic" else self.n_features_in_
        beta = np.full((lags, width), self.beta / lags)
        return alpha, beta, float(self.precision_floor)

    def _store_step(self, step):
        """The step's labels (Eq. 11), posterior (Eq. 9-10) and the shifted history."""
        self.step_labels_ = np.argmax(step.log_conditionals(), axis=1).astype(np.int64)
        self.labels_ = np.concatenate([self.labels_, self.step_labels_])
        self.n_clusters_ = int(np.unique(self.labels_).size)
        self.topic_pseudo_counts_, pseudo = step.posterior_counts()
        theta = self.topic_pseudo_counts_ / self.topic_pseudo_counts_.sum()
        self.proportions_history_ = np.concatenate([theta[None], self.proportions_history_[:-1]])
        # Phi_t (Eq. 9-10) becomes the newest past step and the oldest is dropped, in a new
        # array: attributes read after an earlier step (views of it) keep their values.
        history = np.empty_like(self._phi_history)
        history[1:] = self._phi_history[:-1]
        np.divide(pseudo, pseudo.sum(axis=0), out=history[0])
        self._phi_history, self._pseudo = history, pseudo
        self.alpha_, self.beta_ = step.alpha, step.beta
        self.n_steps_ += 1
        self._publish()

    def _publish(self):
        """The topic-major views of the word-major arrays the kernels read."""
        self.topic_word_history_ = self._phi_history.transpose(0, 2, 1)
        self.topic_word_pseudo_counts_ = self._pseudo.T
        self.topic_proportions_ = self.proportions_history_[0]
        self.topic_word_ = self.topic_word_history_[0]

    def _restore_fitted(self):
        """After a load: the word-major arrays from the saved topic-major ones."""
        self._phi_history = np.ascontiguousarray(self.topic_word_history_.transpose(0, 2, 1))
        self._pseudo = np.ascontiguousarray(self.topic_word_pseudo_counts_.T)
        self._publish()

    # --- new documents ----------------------------------------------------------------------

    def predict_proba(self, X):
        """Eq. 11 for new documents, against the last step's counts and priors.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_features_in_) or Corpus

        Returns
        -------
        ndarray of shape (n_documents, n_clusters)
            Rows summing to 1.
        """
        log_p = self._log_conditionals(X)
        log_p -= log_p.max(axis=1, keepdims=True)
        proba = np.exp(log_p)
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Most probable topic of each new document under Eq. 11."""
        return np.argmax(self._log_conditionals(X), axis=1).astype(np.int64)

    def _log_conditionals(self, X):
        check_is_fitted(self, "labels_")
        counts = same_columns(X, self.n_features_in_)
        # Eq. 5 for a document outside the counts, with the posterior pseudo-counts as the
        # "prior" and no counts: the same kernel, a precision of 1 on the pseudo-counts.
        n_words, n_topics = self._pseudo.shape
        empty = (np.zeros(n_topics), np.zeros(n_topics), np.zeros((n_words, n_topics),
                                                                  dtype=np.uint16))
        prior = (self.topic_pseudo_counts_, np.ones((1, n_words)), self._pseudo[None],
                 self._pseudo.sum(axis=0))
        out = np.empty((counts.shape[0], n_topics))
        kernels.log_conditionals(doc_arrays(counts), np.full(counts.shape[0], -1, np.int32),
                                 empty, prior, out, np.empty((2, n_topics)))
        return out

    def top_words(self, n=10, vocabulary=None):
        """The ``n`` most probable words of each topic under Phi_t (Eq. 9-10).

        Parameters
        ----------
        n : int, default=10
        vocabulary : sequence of str, optional
            Column words; defaults to the Corpus vocabulary, else column indices.

        Returns
        -------
        list of list of (word, weight)
            One list per topic (``n_clusters`` of them, indexed by label), most probable
            word first.
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else getattr(self, "vocabulary_", None)
        result = []
        for row in self.topic_word_:
            top = np.argsort(-row, kind="stable")[:n]
            result.append([(words[w] if words is not None else int(w), float(row[w]))
                           for w in top])
        return result


class _Step:
    """One time step's sampler: documents, topics, counts, precisions and priors."""

    def __init__(self, counts, precisions, theta_history, phi_history, shared_alpha=False,
                 topic_beta=False, threads=1):
        self.alpha, self.beta, floor = precisions
        self.alpha_floor, self.beta_floor = floor * self.alpha, floor * self.beta
        self.shared_alpha, self.topic_beta = shared_alpha, topic_beta
        self.theta_history, self.phi_history = theta_history, phi_history
        self.docs = doc_arrays(counts)
        n_topics = theta_history.shape[1]
        self.stats = zero_stats(counts.shape[1], n_topics, count_dtype(counts))
        self.scratch = np.empty((3, n_topics))
        #: Blocks of the parallel sweep (1: the exact sequential kernel), their layout
        #: and scratch (made by the first parallel sweep), and the sweeps run.
        self.threads, self._blocks, self.n_sweeps = threads, None, 0
        self.z = None
        self.refresh_prior()

    def assign(self, z):
        """Put each document in topic ``z[d]`` (Algorithm 1 step 1)."""
        self.z = np.asarray(z, dtype=np.int32).copy()
        kernels.build_counts(self.docs, self.z, self.stats)

    def refresh_prior(self):
        """The prior of Eq. 3-4 (Eq. 6-7) from the current precisions, as the kernels take it."""
        beta, phi = self.word_precisions()
        self.prior = (kernels.topic_prior(self.alpha, self.theta_history), beta, phi,
                      kernels.word_prior_total(beta, phi))

    def word_precisions(self):
        """``(beta, phi_history)`` in the kernels' form: per-word precisions (L, V) and the
        past (L, V, Z); per-topic precisions are folded into the past."""
        if not self.topic_beta:
            return self.beta, self.phi_history
        scaled = kernels.topic_scaled_history(self.beta, self.phi_history)
        return np.ones(scaled.shape[:2]), scaled

    def sweep(self, uniforms):
        """Algorithm 1 steps 3-5; returns the documents moved. With ``threads > 1``, after
        the step's first sweep, the parallel sweep of ``_dct_parallel``, fed the same
        uniforms."""
        self.n_sweeps += 1
        if self.threads > 1 and self.n_sweeps > 1:
            return self._parallel_sweep(uniforms)
        return int(kernels.gibbs_sweep(self.docs, self.z, self.stats, self.prior, uniforms,
                                       self.scratch))

    def _parallel_sweep(self, uniforms):
        from shortclust.models.common.threads import thread_limit
        from shortclust.models.dmm import _dct_parallel

        if self._blocks is None:
            n_words, n_topics = self.stats[2].shape
            self._blocks = (_dct_parallel.block_layout(self.docs, self.threads),
                            _dct_parallel.sweep_scratch(self.threads, n_words, n_topics,
                                                        self.stats[2].dtype))
        layout, scratch = self._blocks
        with thread_limit(self.threads):
            return int(_dct_parallel.parallel_sweep(self.docs, self.z, self.stats, self.prior,
                                                    uniforms, layout, *scratch))

    def update_precisions(self):
        """One fixed-point step of alpha_t and beta_t (Algorithm 1 step 6, Appendix B)."""
        m_z, n_z, n_wz = self.stats
        self.alpha = kernels.update_alpha(self.alpha, self.theta_history, m_z,
                                          self.alpha_floor, self.shared_alpha)
        if self.topic_beta:
            self.beta = kernels.update_topic_beta(self.beta, self.phi_history, n_wz, n_z,
                                                  self.held_pairs(), self.beta_floor)
        else:
            self.beta = kernels.update_beta(self.beta, self.phi_history, n_wz, n_z,
                                            self.held_pairs(), self.beta_floor, self.prior[3])
        self.refresh_prior()

    def held_pairs(self):
        """The distinct (word, topic) pairs with a count in the step, from its tokens."""
        doc_ptr, doc_words = self.docs[0], self.docs[1]
        topics = np.repeat(self.z.astype(np.int64), np.diff(doc_ptr))
        n_topics = self.scratch.shape[1]
        keys = np.unique(doc_words.astype(np.int64) * n_topics + topics)
        return keys // n_topics, keys % n_topics

    def log_conditionals(self):
        """Eq. 11's numerators in logs, one row per document of the step."""
        out = np.empty((self.z.shape[0], self.scratch.shape[1]))
        kernels.log_conditionals(self.docs, self.z, self.stats, self.prior, out,
                                 self.scratch[1:])
        return out

    def posterior_counts(self):
        """m_z + a_z (Z,) and n_vz + b_vz (V, Z), word-major: the posteriors of Eq. 9-10."""
        m_z, _, n_wz = self.stats
        word_prior = kernels.word_prior(*self.word_precisions())
        return m_z + self.prior[0], word_prior + n_wz
