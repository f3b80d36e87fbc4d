"""DMAFP: a Dirichlet process mixture of multinomials with a feature partition, fitted by
truncated stick-breaking variational inference (the GSDMM paper's model-based baseline)."""

import time

import numpy as np
from scipy.special import digamma, expit, gammaln, logsumexp, xlogy

from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Interval, Options,
                                    Real, Seed)
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.invariants import DMAFP_MIN_PRIOR as MIN_PRIOR
from shortclust.models.common.invariants import FITTED_INVARIANTS
from shortclust.models.common.validation import as_counts, same_columns
from shortclust.models.dmm._common import _top_columns, column_sums


class DMAFP(ClusteringModel):
    """Dirichlet process mixture with a feature partition (DMAFP), variational inference.

    Every word of the vocabulary is either *discriminative*, its occurrences drawn from
    the multinomial of the document's cluster, or *non-discriminative*, drawn from one
    multinomial shared by all documents; which words are which is inferred with the
    clusters. The clusters come from a Dirichlet process, truncated at ``n_clusters``
    sticks, so the model settles the number of clusters itself (the clusters that end
    up holding a document).

    Parameters
    ----------
    n_clusters : int, default=500
        Truncation level T of the stick-breaking process (the GSDMM paper's "initial
        number of clusters" of DMAFP, 500 in its section 4.3). Each initialisation puts
        every document in one of the T components at random.
    alpha : float, default=0.1
        Concentration of the Dirichlet process per document (> 0): the process's
        concentration is ``alpha * n_documents``, as in GSDPMM.
    lam : float, default=0.02
        Symmetric Dirichlet prior of each cluster's discriminative-word multinomial
        (>= 1e-10).
    lam0 : float, default=0.02
        Symmetric Dirichlet prior of the shared non-discriminative multinomial
        (>= 1e-10).
    omega : float, default=0.5
        Prior probability that a word is discriminative, in (0, 1).
    n_init : int, default=1
        Initialisations; the one of highest evidence lower bound is kept (the GSDMM
        paper ran 20).
    max_iter : int, default=300
        Most coordinate-ascent iterations per initialisation.
    tol : float, default=1e-7
        Stop an initialisation when the lower bound changes by less than ``tol`` times
        its magnitude (the GSDMM paper's stopping rule for DMAFP).
    init : {"sequential", "random", "soft"}, default="sequential"
        First q(z) of each initialisation: "sequential", greedy passes in random order
        (see Notes); "random", each document in one of the T components uniformly at
        random; "soft", rows drawn from a flat Dirichlet. The last two show why the first
        is the default: on Tweet (seed 0, the other parameters at their defaults) "random"
        stays near its T clusters (490 clusters, NMI 0.481) and "soft" collapses to one
        cluster (NMI 0), where "sequential" gives 260 clusters and NMI 0.888.
    init_passes : int, default=3
        Passes of the sequential initialisation (>= 1): the first places the documents,
        each later one places every document again. Chosen on SearchSnippets-test, a set
        outside the GSDMM paper's tables: 1, 3 and 5 passes gave NMI 0.554, 0.590 and
        0.598 (seed 0).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the random initial assignments. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Most probable cluster of each document under q(z), numbered
        ``0..n_clusters_-1`` in the order of the stick components.
    n_clusters_ : int
        Clusters holding at least one document.
    n_iter_ : int
        Iterations of the kept initialisation.
    cluster_log_weights_ : ndarray of shape (n_clusters_,)
        E[log pi_k] of the kept clusters (Eq. V6).
    cluster_word_params_ : ndarray of shape (n_clusters_, n_features_in_)
        Dirichlet parameters mu_k of q(phi_k), Eq. V3.
    shared_word_params_ : ndarray of shape (n_features_in_,)
        Dirichlet parameters mu_0 of q(phi_0), Eq. V4.
    discriminative_ : ndarray of shape (n_features_in_,)
        rho_w = q(gamma_w = 1), the probability that word w is discriminative (Eq. V5).
    elbo_ : float
        Evidence lower bound of the kept initialisation (up to the constant
        multinomial coefficients).
    elbo_history_ : list of float
        Lower bound after each iteration of the kept initialisation.
    init_elbos_ : list of float
        Final lower bound of every initialisation.
    fit_seconds_ : float
        Wall time of all initialisations.
    n_features_in_ : int
        Vocabulary size V.
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    **From the DMAFP paper** (Huang, Yu, Wang, Zhang & Shi, IEEE TKDE 25(8), 2013, as its
    abstract and the GSDMM paper describe it; its full text was not at hand): a Dirichlet
    process mixture of multinomials over documents; the vocabulary partitioned into
    discriminative words, which follow a cluster-specific multinomial, and
    non-discriminative words, which follow one multinomial shared by every cluster; a
    latent indicator per word of the vocabulary; the partition and the clusters inferred
    together by variational inference. **From the GSDMM paper** (Yin & Wang, KDD 2014,
    section 4.3): 500 initial clusters, 20 initialisations, each stopped when the relative
    change of the objective falls below 1e-7; section 4.8 ran it with K = 300 and at most 10
    iterations for its Table 3.

    **Our derivation** (the priors' form, the initialisation and the hyperparameters'
    values are our choices; alpha = 0.1 and lam = 0.02 are GSDPMM's defaults, borrowed,
    not tuned, though while writing this seven settings of init, alpha and lam were tried
    once on Tweet, one of the GSDMM paper's sets). Generative model, with truncation
    T = ``n_clusters``, A = alpha D the concentration and x_dw the count of word w in
    document d::

        v_k ~ Beta(1, A), k < T; v_T = 1;  pi_k = v_k prod_{l<k} (1 - v_l)
        z_d ~ Categorical(pi)
        gamma_w ~ Bernoulli(omega)                      (1: w is discriminative)
        phi_k ~ Dirichlet(lam 1_V), phi_0 ~ Dirichlet(lam0 1_V)
        p(x_d | z_d = k, gamma, phi) = prod_w (phi_kw^gamma_w phi_0w^(1 - gamma_w))^x_dw

    Both multinomials range over the whole vocabulary (our choice: restricted each to its
    side of the partition, the Dirichlets' dimensions would depend on gamma; over the
    whole vocabulary the variational family is the same whatever the partition, and the
    likelihood is a product of per-word factors, not normalised over documents). Mean field
    q = prod_k Beta(v_k; a_k, b_k) prod_d Cat(z_d; r_d) prod_w Bern(gamma_w; rho_w)
    prod_k Dir(phi_k; mu_k) Dir(phi_0; mu_0), with
    n_kw = sum_d r_dk x_dw, N_k = sum_d r_dk, n_w = sum_d x_dw and
    E[log phi_kw] = psi(mu_kw) - psi(sum_u mu_ku). Each update is the exact maximiser of
    the lower bound in its block, the others fixed, so the bound never decreases::

        (V1) a_k = 1 + N_k,  b_k = A + sum_{l>k} N_l                           (k < T)
        (V2) E[log v_k] = psi(a_k) - psi(a_k + b_k),
             E[log(1 - v_k)] = psi(b_k) - psi(a_k + b_k)
        (V3) mu_kw = lam + rho_w n_kw
        (V4) mu_0w = lam0 + (1 - rho_w) n_w
        (V5) logit rho_w = logit omega + sum_k n_kw E[log phi_kw] - n_w E[log phi_0w]
        (V6) E[log pi_k] = E[log v_k] + sum_{l<k} E[log(1 - v_l)]   (E[log v_T] = 0)
        (V7) log r_dk = E[log pi_k] + sum_w x_dw rho_w E[log phi_kw] + const

    One iteration applies V3, V4, V5, then V1 (V2, V6), then V7, and evaluates the bound

        ELBO = sum_k<T (E log p(v_k) - E log q(v_k)) + sum_dk r_dk (E[log pi_k] - log r_dk)
             - sum_w KL(Bern(rho_w) || Bern(omega)) - sum_k KL(q(phi_k) || p(phi_k))
             - KL(q(phi_0) || p(phi_0))
             + sum_kw rho_w n_kw E[log phi_kw] + sum_w (1 - rho_w) n_w E[log phi_0w]

    An initialisation sets rho = omega and r one-hot from ``init_passes`` greedy passes
    over the documents in random order (``_sequential_assignment``): GSDPMM's sequential
    initialisation and sweeps, with the Chinese restaurant process's weights (N_k for a
    cluster, A for a new one while one of the T components is empty) and the
    posterior-mean predictive log((lam + rho n_kw) / (V lam + rho n_k)) per token, each
    document put in its best cluster instead of a sampled one; the clusters are then
    numbered by decreasing size. The iterations start with V3. Mean field needs such a
    start: V7 scores a word by psi(lam + rho n_kw), about -1/lam where n_kw = 0, so once
    a document's own counts are in a component they hold it there, and from T random
    components the fit stays near T clusters. ``predict_proba`` is V7 over the kept
    clusters, renormalised; ``top_words`` the posterior mean mu_k / sum_u mu_ku.

    References
    ----------
    R. Huang, G. Yu, Z. Wang, J. Zhang and L. Shi. Dirichlet process mixture model for
    document clustering with feature partition. IEEE TKDE 25(8):1748-1759, 2013.
    D. M. Blei and M. I. Jordan. Variational inference for Dirichlet process mixtures.
    Bayesian Analysis 1(1):121-143, 2006 (the truncated stick-breaking family).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[3, 2, 0, 0, 1], [2, 3, 0, 0, 1], [0, 0, 3, 2, 1],
    ...                    [0, 0, 2, 3, 1]])
    >>> model = DMAFP(n_clusters=10, random_state=0).fit(X)
    >>> labels = model.labels_
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "alpha": Real(0.0, inclusive=False),
        "lam": Real(MIN_PRIOR),
        "lam0": Real(MIN_PRIOR),
        "omega": Interval(0.0, 1.0, closed="neither"),
        "n_init": Integer(1),
        "max_iter": Integer(1),
        "tol": Real(0.0),
        "init": Options("sequential", "random", "soft"),
        "init_passes": Integer(1),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", predict=True, predict_proba=True,
                                top_words=True)
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "n_features_in_",
                          "cluster_log_weights_", "cluster_word_params_",
                          "shared_word_params_", "discriminative_")
    _fitted_invariants = FITTED_INVARIANTS["dmafp"]

    def __init__(self, *, n_clusters=500, alpha=0.1, lam=0.02, lam0=0.02, omega=0.5,
                 n_init=1, max_iter=300, tol=1e-7, init="sequential", init_passes=3,
                 random_state=None):
        self.init = init
        self.init_passes = init_passes
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.lam = lam
        self.lam0 = lam0
        self.omega = omega
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Run ``n_init`` initialisations of coordinate ascent; keep the best bound.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts. Empty rows are allowed (such a document
            follows the stick weights alone).
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each iteration
            of each initialisation.

        Returns
        -------
        self : DMAFP
        """
        self._validate_params()
        counts, self.vocabulary_ = as_counts(X)
        data = _Data(counts)
        rng = np.random.default_rng(self.random_state)
        started = time.perf_counter()
        best, self.init_elbos_ = None, []
        for _ in range(self.n_init):
            state = _VariationalState(data, self, rng)
            state.run(self.max_iter, self.tol, callback)
            self.init_elbos_.append(state.elbo_history[-1])
            if best is None or state.elbo_history[-1] > best.elbo_history[-1]:
                best = state
        self.fit_seconds_ = time.perf_counter() - started
        self._store_fitted(best)
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return ``labels_``."""
        return self.fit(X, callback=callback).labels_

    def _store_fitted(self, state):
        hard = np.argmax(state.r, axis=1)
        kept, labels = np.unique(hard, return_inverse=True)
        self.labels_ = labels.astype(np.int64)
        self.n_clusters_ = int(kept.size)
        self.n_iter_ = len(state.elbo_history)
        self.n_features_in_ = int(state.data.counts.shape[1])
        self.cluster_log_weights_ = state.log_pi[kept].copy()
        self.cluster_word_params_ = np.ascontiguousarray(state.mu[kept])
        self.shared_word_params_ = state.mu0.copy()
        self.discriminative_ = state.rho.copy()
        self.elbo_ = float(state.elbo_history[-1])
        self.elbo_history_ = [float(v) for v in state.elbo_history]

    def _log_scores(self, X):
        """V7 over the kept clusters: E[log pi_k] + sum_w x_dw rho_w E[log phi_kw]."""
        check_is_fitted(self, "labels_")
        counts = same_columns(X, self.n_features_in_)
        elog_phi = _dirichlet_expected_log(self.cluster_word_params_)
        weighted = (elog_phi * self.discriminative_).T
        return np.asarray(counts @ weighted) + self.cluster_log_weights_

    def predict_proba(self, X):
        """q(z_d = k) of new documents over the ``n_clusters_`` kept clusters (V7).

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_features_in_) or Corpus

        Returns
        -------
        ndarray of shape (n_documents, n_clusters_)
        """
        scores = self._log_scores(X)
        return np.exp(scores - logsumexp(scores, axis=1, keepdims=True))

    def predict(self, X):
        """Most probable kept cluster of each new document."""
        return np.argmax(self._log_scores(X), axis=1)

    def top_words(self, n=10, vocabulary=None):
        """Words of highest posterior mean E[phi_kw] = mu_kw / sum_u mu_ku per cluster.

        Parameters
        ----------
        n : int, default=10
        vocabulary : sequence of str, optional
            Column words; defaults to the Corpus vocabulary seen in ``fit``.

        Returns
        -------
        list of list of (word, weight)
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        result = []
        params = self.cluster_word_params_
        # mu_kw = lam + rho_w n_kw: ranking by mu is ranking by the excess over lam.
        tops = _top_columns(params - params.min(axis=1, keepdims=True), n)
        for row, top in zip(params, tops):
            mean = row[top] / row.sum()
            result.append([(words[w] if words is not None else int(w), float(weight))
                           for w, weight in zip(top, mean)])
        return result


class _Data:
    """The counts in the two layouts the updates multiply with, and n_w."""

    def __init__(self, counts):
        self.counts = counts.astype(np.float64)
        self.counts_t = self.counts.T.tocsr()
        self.word_totals = column_sums(counts).astype(np.float64)


class _VariationalState:
    """One initialisation's variational parameters and its coordinate ascent."""

    def __init__(self, data, model, rng):
        self.data = data
        # The concentration scales with the corpus, as GSDPMM's alpha does.
        self.alpha = float(model.alpha) * data.counts.shape[0]
        self.lam, self.lam0 = float(model.lam), float(model.lam0)
        self.logit_omega = float(np.log(model.omega) - np.log1p(-model.omega))
        self.omega = float(model.omega)
        n_docs, n_words = data.counts.shape
        self.T = int(model.n_clusters)
        self.rho = np.full(n_words, self.omega)
        if model.init == "sequential":
            self.r = _sequential_assignment(data, self, rng, model.init_passes)
        elif model.init == "random":
            self.r = np.zeros((n_docs, self.T))
            self.r[np.arange(n_docs), rng.integers(0, self.T, size=n_docs)] = 1.0
        else:
            self.r = rng.dirichlet(np.ones(self.T), size=n_docs)
        self.elbo_history = []

    def run(self, max_iter, tol, callback):
        for iteration in range(1, max_iter + 1):
            self.iterate()
            if callback is not None:
                callback(iteration, max_iter, int(np.unique(self.r.argmax(axis=1)).size))
            if len(self.elbo_history) > 1:
                old, new = self.elbo_history[-2], self.elbo_history[-1]
                if abs(new - old) <= tol * abs(old):
                    break

    def iterate(self):
        """V3, V4, V5, V1/V2/V6, V7, then the bound."""
        data = self.data
        n_kw = np.asarray(data.counts_t @ self.r).T                     # (T, V)
        self.mu = self.lam + self.rho * n_kw                            # V3
        self.mu0 = self.lam0 + (1.0 - self.rho) * data.word_totals      # V4
        elog_phi = _dirichlet_expected_log(self.mu)
        elog_phi0 = _dirichlet_expected_log(self.mu0)
        logit = (self.logit_omega + np.einsum("kw,kw->w", n_kw, elog_phi)
                 - data.word_totals * elog_phi0)
        self.rho = expit(logit)                                         # V5
        # Block coordinate ascent: mu and mu0 were optimal for the old rho, rho is optimal
        # for them; the next iteration's V3 and V4 catch up with the new rho.
        sizes = self.r.sum(axis=0)
        self.a = 1.0 + sizes[:-1]                                       # V1
        self.b = self.alpha + np.cumsum(sizes[::-1])[::-1][1:]
        self.log_pi = _stick_expected_log(self.a, self.b)               # V2, V6
        scores = np.asarray(data.counts @ (elog_phi * self.rho).T) + self.log_pi
        self.r = np.exp(scores - logsumexp(scores, axis=1, keepdims=True))  # V7
        self.elbo_history.append(self.elbo(elog_phi, elog_phi0))

    def elbo(self, elog_phi, elog_phi0):
        """The bound at the current parameters (n_kw recomputed from the new r)."""
        data = self.data
        n_kw = np.asarray(data.counts_t @ self.r).T
        a, b = self.a, self.b
        elog_v = digamma(a) - digamma(a + b)
        elog_1v = digamma(b) - digamma(a + b)
        sticks = np.sum(gammaln(1.0 + self.alpha) - gammaln(self.alpha)
                        + (self.alpha - 1.0) * elog_1v
                        - (gammaln(a + b) - gammaln(a) - gammaln(b)
                           + (a - 1.0) * elog_v + (b - 1.0) * elog_1v))
        assignments = float(np.sum(self.r @ self.log_pi) - np.sum(xlogy(self.r, self.r)))
        rho = self.rho
        partition = np.sum(rho * np.log(self.omega) + (1.0 - rho) * np.log1p(-self.omega)
                           - xlogy(rho, rho) - xlogy(1.0 - rho, 1.0 - rho))
        words = (-_dirichlet_kl(self.mu, self.lam, elog_phi)
                 - _dirichlet_kl(self.mu0[None, :], self.lam0, elog_phi0[None, :]))
        likelihood = (np.einsum("kw,kw->", rho * n_kw, elog_phi)
                      + np.dot((1.0 - rho) * data.word_totals, elog_phi0))
        return float(sticks + assignments + partition + words + likelihood)


def _dirichlet_expected_log(mu):
    """E[log phi] under Dir(mu), along the last axis."""
    return digamma(mu) - digamma(mu.sum(axis=-1, keepdims=True))


def _stick_expected_log(a, b):
    """E[log pi_k] of the truncated stick-breaking weights (V2, V6), length len(a) + 1."""
    elog_v = digamma(a) - digamma(a + b)
    elog_1v = digamma(b) - digamma(a + b)
    before = np.concatenate([[0.0], np.cumsum(elog_1v)])
    return np.concatenate([elog_v, [0.0]]) + before


def _dirichlet_kl(mu, prior, elog_phi):
    """Sum over rows of KL(Dir(mu_row) || Dir(prior 1_V)), given E[log phi] under mu."""
    n_words = mu.shape[1]
    log_norm_q = gammaln(mu.sum(axis=1)) - gammaln(mu).sum(axis=1)
    log_norm_p = gammaln(n_words * prior) - n_words * gammaln(prior)
    return float(np.sum(log_norm_q - log_norm_p)
                 + np.sum((mu - prior) * elog_phi))


def _sequential_assignment(data, state, rng, passes):
    """One-hot r from greedy passes over the documents in random order (our initialisation).

    The first pass places each document, in turn, in the cluster of highest score given the
    documents placed before it; each later pass takes every document out of its cluster and
    places it again. The score is GSDPMM's (the Chinese restaurant process, N_k for a
    cluster, A for a new one while an empty component is left) with the posterior-mean
    predictive of V7's word term (log E[phi] for E[log phi], rho held at omega), maximised
    instead of sampled. Clusters are then numbered by decreasing size, the order the
    stick-breaking prior favours. Returns r of shape (n_documents, T).
    """
    counts = data.counts
    n_docs, n_words = counts.shape
    T, lam, rho, log_new = state.T, state.lam, state.omega, np.log(state.alpha)
    n_kw = np.zeros((n_words, T))
    n_k = np.zeros(T)
    sizes = np.zeros(T)
    labels = np.full(n_docs, -1, dtype=np.int64)
    v_lam = n_words * lam
    order = rng.permutation(n_docs)
    with np.errstate(divide="ignore"):
        for _ in range(passes):
            for d in order:
                lo, hi = counts.indptr[d], counts.indptr[d + 1]
                words, x = counts.indices[lo:hi], counts.data[lo:hi]
                old = labels[d]
                if old >= 0:
                    n_kw[words, old] -= x
                    n_k[old] -= x.sum()
                    sizes[old] -= 1
                prior = np.log(sizes)  # -inf for the empty components
                empty = np.flatnonzero(sizes == 0)
                if empty.size:
                    prior[empty[0]] = log_new
                scores = prior + rho * (x @ np.log(lam + rho * n_kw[words])
                                        - x.sum() * np.log(v_lam + rho * n_k))
                k = int(np.argmax(scores))
                labels[d] = k
                n_kw[words, k] += x
                n_k[k] += x.sum()
                sizes[k] += 1
    rank = np.empty(T, dtype=np.int64)
    rank[np.argsort(-sizes, kind="stable")] = np.arange(T)
    r = np.zeros((n_docs, T))
    r[np.arange(n_docs), rank[labels]] = 1.0
    return r
