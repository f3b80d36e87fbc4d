"""What the scikit-learn baselines on TF-IDF vectors share. Private: use the estimators.

:class:`TfidfMixin` holds the methods of KMeans, MiniBatchKMeans and HAC that differ
only in where their cluster centres are kept, :class:`CentroidMixin` those of the two
K-means models; the functions below are the TF-IDF view, seeds and checks they use
(``shortclust.models.kmeans`` re-exports them).
"""

import numbers

import numpy as np
from sklearn.utils.validation import check_is_fitted

from shortclust.errors import ParameterError
from shortclust.models._validation import as_counts, same_columns


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

    ``predict`` uses the scikit-learn estimator and ``TfidfTransformer`` that
    :meth:`_store_centroids` keeps in ``_estimator`` and ``_transformer``.
    """

    def predict(self, X):
        """Nearest fitted centroid of each new document (TF-IDF with the fitted idf)."""
        check_is_fitted(self, "labels_")
        counts = same_columns(X, self.n_features_in_)
        return self._estimator.predict(self._transformer.transform(counts)).astype(np.int64)

    def _store_centroids(self, estimator, transformer, counts):
        """The fitted attributes of a scikit-learn K-means ``estimator`` run on TF-IDF."""
        self.labels_ = estimator.labels_.astype(np.int64)
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_iter_ = int(estimator.n_iter_)
        self.cluster_centers_ = estimator.cluster_centers_
        self.inertia_ = float(estimator.inertia_)
        self.idf_ = transformer.idf_
        self.n_features_in_ = counts.shape[1]
        self._estimator, self._transformer = estimator, transformer


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
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ParameterError(f"n must be an integer >= 1, got {n!r}")
    result = []
    for row in np.asarray(centers):
        top = np.argsort(-row, kind="stable")[:n]
        result.append([(vocabulary[w] if vocabulary is not None else int(w), float(row[w]))
                       for w in top])
    return result
