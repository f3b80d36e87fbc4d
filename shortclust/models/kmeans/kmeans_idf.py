"""K-means on idf-weighted binary vectors: the Ncut-NMF paper's "Kmeans+idf" baseline.

Yan et al. (CIKM 2012), section 4.1.2: "Kmeans with terms weighted by idf". The paper takes
x_ij binary (footnote 1), so a document is its 0/1 term pattern times the unsmoothed
``log(N / df)`` of :func:`~shortclust.models.common.term_weights.idf_weights` (the same weights
NMF+idf and RLSI+idf use), rows scaled to unit length, clustered by :class:`KMeans` on
those float vectors. This differs from ``kmeans`` only in the weighting (``kmeans`` uses
scikit-learn's smoothed TF-IDF of the counts).
"""

from shortclust.models.common.term_weights import idf_weights, weight_documents
from shortclust.models.common.validation import as_counts
from shortclust.models.base import Capabilities
from shortclust.models.kmeans.kmeans import KMeans
from shortclust.models.common.invariants import FITTED_INVARIANTS


class KMeansIdf(KMeans):
    """K-means (best of ``n_init`` k-means++ runs) on l2-normalised binary x idf vectors.

    Parameters and attributes are those of :class:`~shortclust.models.kmeans.kmeans.KMeans`, plus
    ``idf_`` (the fitted per-term idf weights) and ``vocabulary_`` (the Corpus's words).
    ``predict`` takes word counts and weights them with the fitted idf. A document whose
    terms all have idf 0 (terms in every document) is a zero vector, as in ``kmeans``.
    """

    # Counts only (as_counts refuses float vectors): the idf weighting is the model's.
    capabilities = Capabilities(input="counts", predict=True, predict_proba=False,
                                top_words=True)
    _fitted_attributes = KMeans._fitted_attributes + ("idf_weights_",)
    #: What each saved attribute must satisfy before a kernel reads it (checked when a
    #: model file is loaded; the table imports numpy only).
    _fitted_invariants = FITTED_INVARIANTS["kmeans_idf"]

    def fit(self, X, y=None, callback=None):
        counts, vocabulary = as_counts(X)
        weights = idf_weights(counts)
        super().fit(weight_documents(counts, weights), callback=callback)
        self.idf_weights_ = weights
        self.vocabulary_ = vocabulary
        return self

    def predict(self, X):
        counts, _ = as_counts(X)
        return super().predict(weight_documents(counts, self.idf_weights_))

    def top_words(self, n=10, vocabulary=None):
        vocabulary = self.vocabulary_ if vocabulary is None else vocabulary
        if vocabulary is None:
            vocabulary = [str(i) for i in range(self.n_features_in_)]
        return super().top_words(n, vocabulary=list(vocabulary))


__all__ = ["KMeansIdf"]
