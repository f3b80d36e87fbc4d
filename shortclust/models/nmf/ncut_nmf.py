"""Ncut-weighted NMF (Yan, Guo, Liu, Cheng, Wang, CIKM 2012): regularised NMF by ANLS.

The term weights (01, idf, Ncut of Eq. 5) live in ``_term_weights``; this file holds the
estimator and the alternating regularised least-squares steps of Algorithm 1, written
with sparse-dense products (numpy/scipy BLAS) so the weighted matrix Y is never densified.
"""


import numpy as np
import scipy.linalg

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.term_weights import (
    WEIGHTINGS, factors_memory_bytes, term_weights, weight_documents,
)
from shortclust.models.common.tfidf import top_words_of
from shortclust.models.common.validation import as_counts, same_columns
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, Options, Real,
                                    Seed)
from shortclust.models.common.invariants import FITTED_INVARIANTS


def ridge_solve(gram, rhs, lam):
    """``rhs (gram + lam I)^-1`` for a symmetric K x K ``gram`` and an (n, K) ``rhs``.

    Cholesky when ``gram + lam I`` is positive definite (always when ``lam > 0``); the
    pseudo-inverse otherwise (``lam = 0`` with a rank-deficient factor), so the step
    stays finite.
    """
    system = gram + lam * np.eye(gram.shape[0])
    try:
        factor = scipy.linalg.cho_factor(system, lower=True, check_finite=False)
        return scipy.linalg.cho_solve(factor, rhs.T, check_finite=False).T
    except np.linalg.LinAlgError:
        return rhs @ np.linalg.pinv(system, hermitian=True)


def update_documents(Y, U, lam):
    """The V step of Algorithm 1: ``V = max((U^T U + lam I)^-1 U^T Y, 0)``.

    ``Y`` is the weighted document-term CSR matrix (the paper's Y transposed) and ``U``
    the (n_terms, K) term factor; returns the (n_documents, K) matrix ``V^T``.
    """
    return np.maximum(ridge_solve(U.T @ U, np.asarray(Y @ U), lam), 0.0)


def update_terms(Yt, Vt, lam):
    """The U step: ``U = max(Y V^T (V V^T + lam I)^-1, 0)``, with ``Yt`` = the paper's Y.

    ``Yt`` is the (n_terms, n_documents) CSR matrix, ``Vt`` the (n_documents, K) matrix
    ``V^T``. Returns ``(U, Y V^T)``; the product is reused by :func:`objective`.
    """
    YVt = np.asarray(Yt @ Vt)
    return np.maximum(ridge_solve(Vt.T @ Vt, YVt, lam), 0.0), YVt


def hals_iteration(Y, Yt, U, Vt, lam):
    """A monotone replacement iteration: one HALS sweep over V, then one over U.

    Returns ``(U, V^T, Y V^T)`` (new arrays; the inputs are not modified). Eq. 6 at the
    result is never above Eq. 6 at ``(U, V^T)``.
    """
    Vt = hals_sweep(Vt.copy(), np.asarray(Y @ U), U.T @ U, lam)
    YVt = np.asarray(Yt @ Vt)
    U = hals_sweep(U.copy(), YVt, Vt.T @ Vt, lam)
    return U, Vt, YVt


def hals_sweep(W, cross, gram, lam):
    """One exact coordinate-descent sweep over the K columns of ``W``, in place.

    Minimises ``-2 <W, cross> + <W^T W, gram> + lam ||W||^2`` over ``W >= 0`` one column
    at a time (HALS): column k becomes
    ``max(0, (cross_k - W gram_k + W_k gram_kk) / (gram_kk + lam))``, the exact minimiser
    with the other columns fixed, so the sweep never increases Eq. 6. For the V side
    ``W = V^T``, ``cross = Y^T U``, ``gram = U^T U``; for the U side ``W = U``,
    ``cross = Y V^T``, ``gram = V V^T``. A column whose denominator is 0 (a zero factor
    with ``lam = 0``) is set to 0.
    """
    for k in range(W.shape[1]):
        denominator = gram[k, k] + lam
        if denominator <= 0.0:
            W[:, k] = 0.0
            continue
        numerator = cross[:, k] - W @ gram[:, k] + W[:, k] * gram[k, k]
        W[:, k] = np.maximum(numerator / denominator, 0.0)
    return W


def objective(y_norm2, U, Vt, YVt, lam):
    """Eq. 6, ``||Y - U V||_F^2 + lam (||U||_F^2 + ||V||_F^2)``, without forming U V.

    Expands the error as ``||Y||^2 - 2 <U, Y V^T> + <U^T U, V V^T>``; ``YVt`` is
    ``Y V^T`` for the current V. Clipped at 0 against rounding.
    """
    error = y_norm2 - 2.0 * np.sum(U * YVt) + np.sum((U.T @ U) * (Vt.T @ Vt))
    return max(error, 0.0) + lam * (np.sum(U * U) + np.sum(Vt * Vt))


class NMFClustering(ClusteringModel):
    """Regularised NMF of the weighted binary term-document matrix, solved by ANLS.

    The binary term-document matrix X (footnote 1 of the paper) is weighted per term:
    ``"ncut"`` (Eq. 5, the paper's NMF+nc), ``"idf"`` (NMF+idf) or ``"binary"``
    (NMF+01), giving Y = W X. Y is factorised as U V with U (terms x K) and V (K x
    documents) non-negative, minimising Eq. 6 by Algorithm 1; each document goes to
    the cluster of the largest entry of its column of V.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of factors (clusters) K.
    weighting : {"ncut", "idf", "binary"}, default="ncut"
        Term weighting of the binary matrix (see ``_term_weights``).
    lam : float, default=1.0
        The l2 regularisation lambda of Eq. 6 (>= 0); the paper uses 1 and reports
        little change for lambda in (0.1, 10).
    max_iter : int, default=500
        Maximum ANLS iterations (one V step and one U step each).
    tol : float, default=1e-7
        Stop when the relative decrease of the objective, ``(J_prev - J) / J_prev``,
        falls to ``tol`` or below (>= 0; 0 runs ``max_iter`` iterations unless J stops
        moving).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the choice of the K documents that initialise U.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        ``argmax`` of each document's column of V, in ``0..n_clusters-1``.
    n_clusters_ : int
        Number of distinct labels (non-empty clusters).
    n_iter_ : int
        ANLS iterations run.
    components_ : ndarray of shape (n_clusters, n_features_in_)
        U transposed: the weight of each term in each factor.
    document_factors_ : ndarray of shape (n_documents, n_clusters)
        V transposed: each document's loading on each factor (the V of the last
        iterate, to which the final U was fitted).
    term_weights_ : ndarray of shape (n_features_in_,)
        The per-term weights learnt in ``fit`` (reused by ``predict``).
    objective_ : float
        Eq. 6 at the end of the last iteration.
    objective_history_ : list of float
        Eq. 6 after each iteration (non-increasing).
    n_fallback_steps_ : int
        Iterations where Algorithm 1's step raised Eq. 6 and was replaced by HALS.
    cluster_sizes_ : ndarray of shape (n_clusters,)
        Documents per cluster.
    n_features_in_ : int
        Vocabulary size.
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    Orientation: the paper's X, Y and U are terms x documents, terms x documents and
    terms x K, and V is K x documents. Here the input is documents x terms, so the code
    keeps Y transposed and stores V transposed (``document_factors_``).

    Algorithm 1 prints the U step as ``max((V^T V + lambda I)^-1 Y, 0)``, which does not
    type-check; the update used is the regularised least-squares solution for U with V
    fixed, ``U = max(Y V^T (V V^T + lambda I)^-1, 0)``, symmetric to the printed V step
    ``V = max((U^T U + lambda I)^-1 U^T Y, 0)``. Both are closed forms followed by a
    projection onto the non-negative orthant, exactly as in the paper. The projection of
    the unconstrained minimiser is not the constrained minimiser, so (unlike exact
    non-negative least squares) an iteration of Algorithm 1 can raise Eq. 6. When it
    does, the iteration is discarded and redone from the previous (U, V) by one sweep of
    exact coordinate descent (HALS: each column of V, then of U, set to its
    non-negative regularised minimiser with the others fixed), which cannot raise it;
    ``n_fallback_steps_`` counts those iterations. So ``objective_history_`` never
    increases, and when it is 0 the run is Algorithm 1 exactly. The stopping rule is
    the relative decrease of Eq. 6 (the paper gives no tolerance; ``tol=1e-7`` is the
    rule of the project's other baselines; on SearchSnippets ``1e-4`` stops NMF+nc after
    9 iterations, far from convergence).

    U is initialised with K distinct, non-empty columns of Y (documents), drawn at
    random (Algorithm 1). Degenerate input:

    - ``n_clusters`` larger than the number of documents with a non-zero weighted term
      raises :class:`ParameterError` (U cannot be initialised from distinct columns);
    - K larger than the rank of Y is allowed: surplus factors go to zero or duplicate
      others, clusters may stay empty and ``n_clusters_`` counts the non-empty ones;
    - a document with no weighted term (empty after preprocessing, or, under idf,
      containing only terms present in every document) has an all-zero column of V;
      the argmax rule puts it in cluster 0;
    - with ``lam = 0`` a singular Gram matrix is inverted by the pseudo-inverse.
      No output is ever NaN.

    References
    ----------
    X. Yan, J. Guo, S. Liu, X. Cheng, Y. Wang. Clustering short text using Ncut-weighted
    non-negative matrix factorization. CIKM 2012 (Eq. 5, Eq. 6, Algorithm 1).
    M. W. Berry et al. Algorithms and applications for approximate nonnegative matrix
    factorization. 2007 (the paper's [1], ANLS).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0],
    ...                    [0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 1, 1]])
    >>> NMFClustering(n_clusters=2, random_state=0).fit_predict(X).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "weighting": Options(*WEIGHTINGS),
        "lam": Real(0.0, inclusive=True),
        "max_iter": Integer(1),
        "tol": Real(0.0, inclusive=True),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="counts", predict=True, predict_proba=False,
                                top_words=True)
    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "term_weights_",
                          "components_", "cluster_sizes_", "objective_", "n_features_in_")
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["ncut_nmf"]

    #: A lower bound of the memory a fit allocates (see ClusteringModel.memory_bytes).
    memory_bytes = staticmethod(factors_memory_bytes)

    def __init__(self, *, n_clusters=8, weighting="ncut", lam=1.0, max_iter=500, tol=1e-7,
                 random_state=None):
        self.n_clusters = n_clusters
        self.weighting = weighting
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None, callback=None):
        """Factorise the weighted matrix of X and cluster its documents.

        Parameters
        ----------
        X : sparse matrix of shape (n_documents, n_terms), or Corpus
            Word counts; only which terms each document contains is used.
        y : ignored
        callback : callable, optional
            Called as ``callback(iteration, max_iter, n_clusters)`` after each iteration.

        Returns
        -------
        self : NMFClustering
        """
        self._validate_params()
        counts, vocabulary = as_counts(X)
        weights = term_weights(counts, self.weighting)
        Y = weight_documents(counts, weights)                 # documents x terms, CSR
        usable = np.flatnonzero(np.diff(Y.indptr) > 0)
        K = self.n_clusters
        if K > usable.size:
            raise ParameterError(
                f"n_clusters={K} exceeds the {usable.size} documents with a non-zero "
                f"{self.weighting}-weighted term: choose n_clusters <= {usable.size}")
        rng = np.random.default_rng(self.random_state)
        Yt = Y.T.tocsr()                                      # the paper's Y: terms x documents
        U = Y[rng.choice(usable, size=K, replace=False)].toarray().T   # terms x K
        y_norm2 = float(Y.data @ Y.data)
        lam = float(self.lam)

        history = []
        Vt = None
        n_iter = n_fallback = 0
        for n_iter in range(1, self.max_iter + 1):
            # Algorithm 1's iteration: V step, then U step.
            new_Vt = update_documents(Y, U, lam)
            new_U, YVt = update_terms(Yt, new_Vt, lam)
            current = objective(y_norm2, new_U, new_Vt, YVt, lam)
            if history and current > history[-1]:
                # The projected closed forms raised Eq. 6: redo the iteration from the
                # previous (U, V) by exact coordinate descent, which cannot raise it.
                n_fallback += 1
                new_U, new_Vt, YVt = hals_iteration(Y, Yt, U, Vt, lam)
                current = objective(y_norm2, new_U, new_Vt, YVt, lam)
            U, Vt = new_U, new_Vt
            previous = history[-1] if history else None
            history.append(current)
            if callback is not None:
                callback(n_iter, self.max_iter, int(np.unique(Vt.argmax(axis=1)).size))
            if previous is not None:
                change = previous - current
                if change == 0.0 or change <= self.tol * previous:
                    break

        # The last iterate (U, V): Algorithm 1 ends on a U step, V is the one U was fitted to.
        labels = Vt.argmax(axis=1).astype(np.int64)
        self.term_weights_ = weights
        self.components_ = U.T.copy()
        self.document_factors_ = Vt
        self.objective_history_ = history
        self.objective_ = history[-1]
        self.n_iter_ = n_iter
        self.n_fallback_steps_ = n_fallback
        self.cluster_sizes_ = np.bincount(labels, minlength=K)
        self.n_features_in_ = counts.shape[1]
        self.vocabulary_ = vocabulary
        self.n_clusters_ = int(np.count_nonzero(self.cluster_sizes_))
        self.labels_ = labels
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def transform(self, X):
        """Loadings ``V^T`` of new documents for the fitted U (one V step), (n, K).

        On the training documents this is the V step after the last iteration, so it can
        differ slightly from ``document_factors_`` (the V the last U was fitted to).
        """
        check_is_fitted(self, "labels_")
        Y = weight_documents(same_columns(X, self.n_features_in_), self.term_weights_)
        return update_documents(Y, self.components_.T, float(self.lam))

    def predict(self, X):
        """Cluster of new documents: argmax of their loadings (see :meth:`transform`)."""
        return self.transform(X).argmax(axis=1).astype(np.int64)

    def top_words(self, n=10, vocabulary=None):
        """Terms of largest weight in each factor (column of U), heaviest first.

        Parameters
        ----------
        n : int, default=10
            Words per cluster, at least 1.
        vocabulary : sequence of str, optional
            The words of the columns; by default the fitted Corpus's, else column indices.

        Returns
        -------
        list of list of (word, weight)
            One list per factor (``n_clusters`` lists).
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        return top_words_of(self.components_, n, words)  # checks n
