"""What the vector-space models share. Private: use the estimators.

:class:`TfidfMixin` holds the methods of KMeans, MiniBatchKMeans and HAC that differ
only in where their cluster centres are kept, :class:`CentroidMixin` those of the two
K-means models; the functions below are the TF-IDF view, seeds and checks they use
(``shortclust.models.kmeans.kmeans`` re-exports them). :func:`unit_vectors` and
:func:`_holds_counts` are the input rule of the models that take either word counts or
document vectors (KMeans, MiniBatchKMeans, HAC_SD and its variants, k-means--);
``shortclust.models.hac.hac_similarity`` re-exports them.
"""

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.common.validation import as_counts, same_columns
from shortclust.models.base import Integer


class TfidfMixin:
    """``fit_predict``, ``top_words`` and the checked input of the TF-IDF baselines.

    ``top_words`` reads the centres in the attribute named by ``_centres_attribute``.
    """

    _centres_attribute = "cluster_centers_"

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def top_words(self, n=10, vocabulary=None):
        """Words of highest TF-IDF weight in each cluster's centre, heaviest first.

        The centres are the centroids (``cluster_centers_``) for the K-means models, the
        mean TF-IDF vectors of the clusters (``cluster_means_``) for HAC.

        Parameters
        ----------
        n : int, default=10
            Words per centre, at least 1.
        vocabulary : sequence of str, optional
            The words of the columns. By default those of the Corpus given to ``fit``;
            for a bare matrix, column indices stand for the words.

        Returns
        -------
        list of list of (word, weight)
            One list per centre (``n_clusters`` lists), heaviest word first.

        Raises
        ------
        ParameterError
            If ``n`` is not an integer >= 1.
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        return top_words_of(getattr(self, self._centres_attribute), n, words)

    def _checked_tfidf(self, X):
        """Check the parameters and X and set ``vocabulary_``.

        Returns the counts, the fitted ``TfidfTransformer`` and the TF-IDF rows.
        """
        self._validate_params()
        counts, self.vocabulary_ = as_counts(X)
        self._check_corpus(counts)
        transformer, weights = tfidf(counts)
        return counts, transformer, weights

    def _check_corpus(self, counts):
        """Refuse a corpus with fewer documents than ``n_clusters``."""
        require_enough_documents(counts, self.n_clusters)


class CentroidMixin(TfidfMixin):
    """:class:`TfidfMixin` plus ``predict`` and the fitted attributes of the K-means models.

    Their input follows :func:`unit_vectors`: word counts (a Corpus or an integer matrix)
    are weighted by TF-IDF, document vectors (a float matrix) are only l2-normalised.
    ``predict`` assigns the nearest centroid (``cluster_centers_``) and, for counts, weights
    them with the ``TfidfTransformer`` that :meth:`_store_centroids` keeps in
    ``_transformer`` (None when fitted on vectors); a loaded model rebuilds it from
    ``idf_`` (:meth:`_restore_fitted`), so it predicts as the fitted one.
    """

    _fitted_attributes = ("labels_", "n_clusters_", "n_iter_", "cluster_centers_",
                          "inertia_", "idf_", "n_features_in_")

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """Two sets of dense float64 centroids, K x d (the current run's and the best)."""
        return None if n_features is None else 2 * params["n_clusters"] * n_features * 8

    def predict(self, X):
        """Nearest fitted centroid of each new document.

        X must be of the kind ``fit`` was given: counts (weighted by TF-IDF with the fitted
        idf) or document vectors (l2-normalised), with the training number of columns.
        """
        check_is_fitted(self, "labels_")
        fitted_on_counts = self._transformer is not None
        if _holds_counts(X) != fitted_on_counts:
            fitted, given = ("word counts", "document vectors") if fitted_on_counts \
                else ("document vectors", "word counts")
            raise ParameterError(
                f"the model was fitted on {fitted} but X holds {given} (a Corpus or an "
                "integer matrix is counts, a float matrix is vectors): give predict the "
                "kind of input fit had"
            )
        if fitted_on_counts:
            vectors = self._transformer.transform(same_columns(X, self.n_features_in_))
        else:
            vectors, _ = unit_vectors(X)
            if vectors.shape[1] != self.n_features_in_:
                raise ParameterError(
                    f"X has {vectors.shape[1]} columns but the model was fitted on document "
                    f"vectors of {self.n_features_in_}: use the same representation"
                )
        return nearest_centre(vectors, self.cluster_centers_)

    def top_words(self, n=10, vocabulary=None):
        """Words of highest weight in each centroid, heaviest first.

        As :meth:`TfidfMixin.top_words`; a model fitted on document vectors has no
        vocabulary of its own (unless a model file gave it one), so ``vocabulary`` (one
        word per column, e.g. the words of a TF-IDF matrix) is then required.

        Raises
        ------
        ParameterError
            If ``n`` is not an integer >= 1, or the model was fitted on document vectors
            and no ``vocabulary`` is given.
        """
        check_is_fitted(self, "labels_")
        if vocabulary is None and self._transformer is None and self.vocabulary_ is None:
            raise ParameterError(
                "top_words needs a vocabulary for a model fitted on document vectors: pass "
                "vocabulary= (one word per column), or fit on a Corpus"
            )
        return super().top_words(n, vocabulary)

    def _checked_vectors(self, X):
        """Check the parameters and X and set ``vocabulary_``.

        Returns the unit rows to cluster and the fitted ``TfidfTransformer`` for counts
        (the TF-IDF of :meth:`TfidfMixin._checked_tfidf`), None for document vectors.
        """
        if _holds_counts(X):
            _, transformer, weights = self._checked_tfidf(X)
            return weights, transformer
        self._validate_params()
        vectors, self.vocabulary_ = unit_vectors(X)
        self._check_corpus(vectors)
        return vectors, None

    def _store_centroids(self, estimator, transformer, n_features):
        """The fitted attributes of a scikit-learn K-means ``estimator`` run on unit rows."""
        self.labels_ = estimator.labels_.astype(np.int64)
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_iter_ = int(estimator.n_iter_)
        self.cluster_centers_ = estimator.cluster_centers_
        self.inertia_ = float(estimator.inertia_)
        # No idf for document vectors, nor for a weighting without one (use_idf=False).
        self.idf_ = getattr(transformer, "idf_", None)
        self.n_features_in_ = n_features
        self._transformer = transformer

    def _restore_fitted(self):
        """The TF-IDF transformer of a loaded model, from its fitted ``idf_``."""
        self._transformer = None if self.idf_ is None else transformer_with_idf(self.idf_)


def nearest_centre(vectors, centres):
    """Index of the nearest of ``centres`` (Euclidean) for each row of ``vectors``, int64.

    scikit-learn's K-means gives ``labels_`` by the same rule, with the final centroids.
    """
    from sklearn.metrics import pairwise_distances_argmin

    return pairwise_distances_argmin(vectors, centres).astype(np.int64)


def transformer_with_idf(idf):
    """A ``TfidfTransformer`` (l2 rows) that weights with the given fitted ``idf``."""
    from sklearn.feature_extraction.text import TfidfTransformer

    transformer = TfidfTransformer(norm="l2")
    transformer.idf_ = np.asarray(idf, dtype=np.float64)
    return transformer


def unit_vectors(X):
    """The documents of X as l2-normalised float64 rows, and the vocabulary if known.

    * A Corpus, or a matrix (dense or sparse) of integer dtype, holds word counts: it is
      weighted by TF-IDF with l2-normalised rows (the weighting of
      :class:`~shortclust.models.kmeans.kmeans.KMeans`), returned as CSR.
    * A floating-point (or boolean) matrix holds document vectors (TF-IDF, averaged word
      vectors, sentence embeddings): its rows are scaled to unit length, a sparse matrix
      staying CSR and a dense one becoming a C-ordered ndarray.

    A zero row (an empty document) stays zero. Returns ``(vectors, vocabulary)``.

    Raises
    ------
    ParameterError
        If X is not a non-empty 2-D numeric matrix with finite values (or, for counts,
        holds negative or fractional values).
    """
    if _holds_counts(X):
        counts, vocabulary = as_counts(X)
        return tfidf(counts)[1], vocabulary
    from sklearn.preprocessing import normalize

    try:
        vectors = (sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X)
                   else np.array(X, dtype=np.float64, order="C"))
    except (TypeError, ValueError) as error:
        raise ParameterError(f"X must be a numeric matrix of document vectors: {error}") \
            from None
    if vectors.ndim != 2 or vectors.shape[0] == 0:
        raise ParameterError(
            f"X must be a non-empty 2-D matrix of document vectors, got shape {vectors.shape}"
        )
    values = vectors.data if sp.issparse(vectors) else vectors
    if not np.isfinite(values).all():
        raise ParameterError("X contains NaN or infinite values: clean the document vectors")
    return normalize(vectors, norm="l2", copy=False), None


def _holds_counts(X):
    """A Corpus, or a matrix (dense or sparse) of integer dtype: word counts.

    Anything else (float or boolean dtype) is document vectors; so is input numpy cannot
    make an array of, which :func:`unit_vectors` then refuses in one line.
    """
    if hasattr(X, "counts"):
        return True
    dtype = getattr(X, "dtype", None)
    if dtype is None:
        try:
            dtype = np.asarray(X).dtype
        except (TypeError, ValueError):
            return False
    return np.issubdtype(dtype, np.integer)


def tfidf(counts):
    """Fitted ``TfidfTransformer`` (smoothed idf, l2 rows) and the CSR TF-IDF of ``counts``.

    The same weighting as :meth:`shortclust.data.Corpus.tfidf`; empty rows stay zero.
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    transformer = TfidfTransformer(norm="l2")
    return transformer, transformer.fit_transform(counts).tocsr()


def sklearn_random_state(random_state):
    """A ``numpy.random.RandomState`` for scikit-learn, from any seed GSDMM accepts.

    One ``np.random.default_rng(random_state)`` per fit, as for every shortclust model, so
    an int, a Generator or None behave alike across models (and seeds above 2**32 work).
    """
    rng = np.random.default_rng(random_state)
    return np.random.RandomState(int(rng.integers(0, 2**32 - 1, dtype=np.int64)))


def require_enough_documents(counts, n_clusters):
    """A clustering into more groups than there are documents is refused in one line."""
    if counts.shape[0] < n_clusters:
        raise ParameterError(
            f"n_clusters={n_clusters} is more than the {counts.shape[0]} documents: "
            "lower n_clusters or use a larger corpus"
        )


def n_nonempty(labels):
    """Number of distinct labels."""
    return int(np.unique(labels).size)


def top_words_of(centers, n, vocabulary):
    """Top ``n`` (word, weight) pairs of each row of ``centers``, heaviest first."""
    Integer(1).check(n, "n")
    result = []
    for row in np.asarray(centers):
        top = np.argsort(-row, kind="stable")[:n]
        result.append([(vocabulary[w] if vocabulary is not None else int(w), float(row[w]))
                       for w in top])
    return result
