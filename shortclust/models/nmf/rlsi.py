"""RLSI: Regularized Latent Semantic Indexing, the Ncut-NMF paper's sparse baseline."""

import numpy as np

from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.term_weights import (
    factors_memory_bytes, term_weights, weight_documents,
)
from shortclust.models.common.tfidf import n_nonempty, require_enough_documents, top_words_of
from shortclust.models.common.validation import as_counts
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Options, Real,
                                    Seed)

__all__ = ["RLSI", "data_scale", "rlsi_objective", "update_u", "update_v"]

# Coordinate-descent sweeps over the topics per U update: at most this many, fewer once
# no entry of U moves by more than _CD_TOL times the largest |U| entry.
_CD_MAX_SWEEPS = 50
_CD_TOL = 1e-6


class RLSI(ClusteringModel):
    """Regularized Latent Semantic Indexing (batch RLSI), documents clustered by topic.

    The term-document matrix D (M terms x N documents) is the binary occurrence matrix of
    the documents with each term's row scaled by a term weight (``weighting``), as in the
    Ncut-NMF paper (Yan et al. 2012, footnote 1 and section 4.1.2: "RLSI+idf", "RLSI+nc"),
    then divided by the root mean square of its non-zero entries (``data_scale_``) so that
    lambda1 and lambda2 mean the same whatever the weighting (see Notes). RLSI factorises
    it as D ~ U V by minimising::

        ||D - U V||_F^2 + lambda1 * sum_k ||U_k||_1 + lambda2 * sum_n ||v_n||_2^2

    with U (M x K) the topics, sparse through the l1 penalty, and V (K x N) the documents'
    topic coordinates, kept small by the l2 penalty. Neither factor is constrained in sign.
    Batch RLSI alternates exact block minimisations (Wang et al. 2011/2013), each of which
    cannot increase the objective:

    * U given V: with S = V V^T and R = D V^T, every row of U (a term's topic weights) is
      a lasso problem, solved by cyclic coordinate descent over the topics, each step a
      soft thresholding: ``u_mk = sign(x) max(|x| - lambda1/2, 0) / s_kk`` with
      ``x = r_mk - sum_{l != k} s_kl u_ml``. The rows are independent, so the sweeps run on
      all rows at once. A topic whose row of V is all zero (s_kk = 0) gets u_mk = 0.
    * V given U: the ridge solution ``V = (U^T U + lambda2 I)^-1 U^T D`` (lambda2 > 0 makes
      the system non-singular whatever U is, also for K larger than the rank of D).

    V starts as a uniform random matrix on [0, 1), as in batch RLSI, and the loop stops
    when the relative decrease of the objective falls below ``tol`` or after ``max_iter``
    alternations.

    Clustering: a document's cluster is the argmax of its column of V (the topic with the
    largest coordinate). Because the objective is unchanged when a topic's U column and V
    row both change sign, every topic is first oriented so that its U column has a
    non-negative sum (its heavy words count positively); after that, negative entries of V
    are kept as they are and simply rank below positive ones (a negative coordinate means
    the document is *against* the topic, never a reason to pick it). A document whose
    column of V is all zero (empty after preprocessing, or holding only terms whose U rows
    are all zero) has no topic: it joins the largest cluster of the other documents
    (cluster 0 if every column is zero), so ``labels_`` never holds NaN or -1.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of topics K, one cluster per topic.
    weighting : {"idf", "ncut", "binary"}, default="idf"
        Term weight scaling the binary term-document matrix, from the shared
        ``_term_weights`` module (the same weights as Ncut-NMF): idf, log(N / df_m)
        ("RLSI+idf"); the Ncut weight of the paper's Eq. 5 scaled into [0, 1]
        ("RLSI+nc"); or none ("binary").
    lambda1 : float, default=0.5
        l1 penalty on the topics (>= 0). Larger values give sparser topics.
    lambda2 : float, default=1.0
        l2 penalty on the document representations (> 0).
    max_iter : int, default=100
        Maximum alternations (a U update then a V update).
    tol : float, default=1e-5
        Stop when (previous - current) objective <= tol * previous objective (>= 0).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the initial V. Same seed, same labels.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster (topic index, ``0..n_clusters-1``) of each document.
    n_clusters_ : int
        Number of non-empty clusters.
    n_iter_ : int
        Alternations run.
    components_ : ndarray of shape (n_clusters, n_features_in_)
        U transposed: each topic's term weights (sign-oriented, see above).
    document_topics_ : ndarray of shape (n_documents, n_clusters)
        V transposed, with the same orientation.
    term_weights_ : ndarray of shape (n_features_in_,)
        The term weights that scaled the binary matrix.
    data_scale_ : float
        Root mean square of the weighted matrix's non-zero entries, by which D was divided
        (0 for a matrix with no non-zero entry, left as is).
    objective_ : float
        Final value of the objective (on the rescaled D).
    objective_history_ : list of float
        Objective after each alternation.
    n_features_in_ : int
        Vocabulary size M.
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    Defaults: lambda1 = 0.5 and lambda2 = 1.0 are the values recalled from the RLSI
    papers' experiments (not re-checked against the text); the Ncut-NMF paper does not
    give the ones it used for its baseline. They are applied to the rescaled D.

    Why rescale: the weightings differ in scale by a factor of about 30 (idf entries are
    about 1 to 9, Ncut weights lie in [0, 1] and are mostly 0.1 to 0.3). Since
    ``J(cD; c U, V) = c^2 J(D; U, V)`` with lambda1 / c and lambda2 / c^2, a fixed pair of
    lambdas on the raw matrices would be a far stronger penalty for Ncut weights: on
    SearchSnippets (K = 8) lambda1 = 0.5 on the raw Ncut-weighted matrix zeroes every
    topic. After dividing by the RMS of the non-zeros the clustering is invariant to
    multiplying all term weights by a constant, and only the weights' relative sizes (what
    the paper compares) matter.

    The data stay sparse: R = D V^T and U^T D are sparse-times-dense products, the
    objective is evaluated as ||D||^2 - 2 <U^T D, V> + <U^T U, V V^T> plus the penalties,
    so memory is O(nnz + (M + N) K).

    References
    ----------
    Q. Wang, J. Xu, H. Li and N. Craswell. Regularized latent semantic indexing. SIGIR 2011
    (and the TOIS 2013 version). X. Yan, J. Guo, S. Liu, X. Cheng and Y. Wang. Clustering
    short text using Ncut-weighted non-negative matrix factorization. CIKM 2012.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    >>> labels = RLSI(n_clusters=2, weighting="binary", lambda1=0.1, random_state=0).fit_predict(X)
    >>> bool(labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "max_iter": Integer(1),
        "lambda1": Real(0.0, inclusive=True),
        "lambda2": Real(0.0, inclusive=False),
        "tol": Real(0.0, inclusive=True),
        "weighting": Options("idf", "ncut", "binary"),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", predict=False, predict_proba=False,
                                top_words=True)

    #: A lower bound of the memory a fit allocates (see ClusteringModel.memory_bytes).
    memory_bytes = staticmethod(factors_memory_bytes)

    def __init__(self, *, n_clusters=8, weighting="idf", lambda1=0.5, lambda2=1.0,
                 max_iter=100, tol=1e-5, random_state=None):
        self.n_clusters = n_clusters
        self.weighting = weighting
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Factorise the weighted term-document matrix of X and cluster its documents.

        Parameters
        ----------
        X : scipy.sparse matrix of shape (n_documents, n_words) or Corpus
            Non-negative integer word counts (binarised: only occurrence matters). Empty
            rows are allowed (see the class notes).
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each alternation.

        Returns
        -------
        self : RLSI
        """
        self._validate_params()
        counts, self.vocabulary_ = as_counts(X)
        require_enough_documents(counts, self.n_clusters)
        self.term_weights_ = term_weights(counts, self.weighting)
        # Documents as rows: Dt = D^T (N x M), sparse, binary times the term weights.
        Dt = weight_documents(counts, self.term_weights_)
        self.data_scale_ = data_scale(Dt)
        if self.data_scale_ > 0:
            Dt.data /= self.data_scale_
        rng = np.random.default_rng(self.random_state)
        V = rng.random((self.n_clusters, counts.shape[0]))
        U = np.zeros((counts.shape[1], self.n_clusters))
        d_norm2 = float(Dt.multiply(Dt).sum())
        lam1, lam2 = float(self.lambda1), float(self.lambda2)
        history, previous = [], np.inf
        for iteration in range(1, self.max_iter + 1):
            U = update_u(Dt, V, U, lam1)
            V = update_v(Dt, U, lam2)
            current = rlsi_objective(Dt, U, V, lam1, lam2, d_norm2)
            history.append(current)
            if callback is not None:
                callback(iteration, self.max_iter, n_nonempty(_argmax_labels(U, V)))
            if iteration > 1 and previous - current <= self.tol * abs(previous):
                break
            previous = current
        self.n_iter_ = iteration
        self.objective_history_ = history
        self.objective_ = history[-1]
        U, V = _oriented(U, V)
        self.components_ = U.T.copy()
        self.document_topics_ = V.T.copy()
        self.labels_ = _argmax_labels(U, V, oriented=True)
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_features_in_ = counts.shape[1]
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def top_words(self, n=10, vocabulary=None):
        """Words of largest weight in each topic (row of ``components_``), heaviest first.

        Parameters
        ----------
        n : int, default=10
            Words per topic, at least 1.
        vocabulary : sequence of str, optional
            The words of the columns. By default those of the Corpus given to ``fit``;
            for a bare matrix, column indices stand for the words.

        Returns
        -------
        list of list of (word, weight)
            One list per topic (``n_clusters`` lists), heaviest word first.
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        return top_words_of(self.components_, n, words)


def data_scale(Dt):
    """Root mean square of the non-zero entries of the weighted matrix (0 if none)."""
    return float(np.sqrt(np.mean(Dt.data ** 2))) if Dt.nnz else 0.0


def update_u(Dt, V, U, lambda1, max_sweeps=_CD_MAX_SWEEPS, cd_tol=_CD_TOL):
    """U minimising ||D - U V||^2 + lambda1 |U|_1 for fixed V, by coordinate descent from U.

    ``Dt`` is D transposed (documents x terms, sparse). Every row of U is its own lasso
    problem; the sweeps over the topics k = 0..K-1 update all rows together (the same
    arithmetic as row by row, since rows do not interact). Sweeps stop when no entry moved
    by more than ``cd_tol`` times the largest |entry|, or after ``max_sweeps``.
    """
    S = V @ V.T                               # K x K
    R = np.asarray(Dt.T @ V.T)                # M x K: D V^T
    U = np.array(U, dtype=np.float64, copy=True)
    half = 0.5 * lambda1
    for _ in range(max_sweeps):
        moved = 0.0
        for k in range(S.shape[0]):
            skk = S[k, k]
            old = U[:, k].copy()
            if skk <= 0.0:
                new = np.zeros_like(old)
            else:
                x = R[:, k] - U @ S[:, k] + old * skk
                new = np.sign(x) * np.maximum(np.abs(x) - half, 0.0) / skk
            U[:, k] = new
            if new.size:
                moved = max(moved, float(np.max(np.abs(new - old))))
        scale = float(np.max(np.abs(U))) if U.size else 0.0
        if moved <= cd_tol * scale:
            break
    return U


def update_v(Dt, U, lambda2):
    """V = (U^T U + lambda2 I)^-1 U^T D, the exact minimiser for fixed U."""
    K = U.shape[1]
    gram = U.T @ U + lambda2 * np.eye(K)
    UtD = np.asarray(Dt @ U).T                # K x N
    return np.linalg.solve(gram, UtD)


def rlsi_objective(Dt, U, V, lambda1, lambda2, d_norm2=None):
    """||D - U V||_F^2 + lambda1 |U|_1 + lambda2 ||V||_F^2, without forming U V."""
    if d_norm2 is None:
        d_norm2 = float(Dt.multiply(Dt).sum())
    UtD = np.asarray(Dt @ U).T
    error = d_norm2 - 2.0 * float(np.sum(UtD * V)) + float(np.sum((U.T @ U) * (V @ V.T)))
    error = max(error, 0.0)  # rounding can push an exact fit a hair below zero
    return error + lambda1 * float(np.abs(U).sum()) + lambda2 * float(np.sum(V * V))


def _oriented(U, V):
    """Flip each topic whose U column sums below zero (the objective is unchanged)."""
    signs = np.where(U.sum(axis=0) < 0, -1.0, 1.0)
    return U * signs, V * signs[:, None]


def _argmax_labels(U, V, oriented=False):
    """Argmax of each column of V after orientation; all-zero columns join the largest cluster."""
    if not oriented:
        U, V = _oriented(U, V)
    labels = np.argmax(V, axis=0).astype(np.int64)
    empty = ~np.any(V != 0.0, axis=0)
    if empty.any():
        rest = labels[~empty]
        fallback = int(np.argmax(np.bincount(rest, minlength=V.shape[0]))) if rest.size else 0
        labels[empty] = fallback
    return labels
