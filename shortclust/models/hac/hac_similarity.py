"""Ward HAC on a dense or sparsified cosine similarity matrix: the IC paper's HAC, HAC_kNN, HAC_SD.

Rakib, Zeh, Jankowska and Milios, "Enhancement of Short Text Clustering by Iterative
Classification", sections 5.2 (dense matrix) and 5.3 (matrix sparsified by k-NN, section
4.1, or by the similarity distribution, Algorithm 2). The input rule the vector-space
models share (:func:`unit_vectors`, :func:`_holds_counts`) lives in ``_tfidf_common`` and
is importable from here too, as before.
"""

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.common.estimator import check_is_fitted
from shortclust.models.hac._ann_sd import ann_sd_pairs, hnswlib_available
from shortclust.models.hac._sparse_sd import sd_pairs
from shortclust.models.hac._sparse_ward import pair_weights, ward_adjacency, ward_merges
from shortclust.models.hac._sparsify import knn_sparsify, sd_sparsify
from shortclust.models.common.tfidf import (  # noqa: F401 (re-exported)
    _holds_counts,
    n_nonempty,
    require_enough_documents,
    top_words_of,
    unit_vectors,
)
from shortclust.models.base import (Capabilities, ClusteringModel, Integer, NoneOr, Options,
                                    Seed)
from shortclust.models.hac.hac import _cluster_means, _cut

# Rows of similarities computed at once: about this many values per block.
_BLOCK_VALUES = 2**22


class HACSimilarity(ClusteringModel):
    """Ward agglomerative clustering of a cosine similarity matrix, optionally sparsified.

    The documents' vectors are l2-normalised and their cosine similarities ``s_ij`` (dot
    products of the unit vectors) form the dense matrix S of section 5.2. With
    ``sparsify="knn"`` or ``"sd"`` S is first sparsified (section 5.3): each text keeps its k
    highest similarities, symmetrised by union (section 4.1), or the ``N = floor(n l / 2)``
    most significant pairs with ``l = n / K - 1`` (Algorithm 2). The similarities are turned
    into distances ``d_ij = 1 - s_ij``, a similarity removed by sparsification counting as
    0 (distance 1), and merged bottom-up with Ward's criterion until ``n_clusters`` groups
    remain. HAC is deterministic: ``random_state`` is accepted, so experiment seeds work,
    and ignored.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters K (the paper: the true number of classes); also the K of
        Algorithm 2's ``l = n / K - 1`` and of the default k.
    sparsify : {"none", "knn", "sd"}, default="none"
        ``"none"``: the dense matrix (the paper's HAC); ``"knn"``: k-NN sparsification
        (HAC_kNN); ``"sd"``: similarity-distribution sparsification (HAC_SD).
    k : int or None, default=None
        Neighbours per text for ``sparsify="knn"`` (ignored otherwise). None: ``l = n // K -
        1`` (at least 1), the number of other texts in a cluster of average size; see Notes.
    graph : {"dense", "sparse"}, default="dense"
        ``"dense"``: the distances of all ``n (n - 1) / 2`` pairs go to scipy's Ward (the
        exact reference). ``"sparse"`` (``sparsify="sd"`` only): Algorithm 2 is run from
        the vectors without building S, and Ward runs on the kept pairs alone
        (``_sparse_ward``), in memory O(n + N) for the N kept pairs instead of O(n^2). The
        same merges as the dense path, up to the order of exactly tied pairs; ``merges_``
        then stops at ``n_clusters`` clusters (``n - n_clusters`` rows). Past ``max_docs``
        dense vectors take a faster route (row statistics from the d x d Gram matrix,
        float32 products), equal up to float32 ties at the cut-off; past ``ann_docs`` an
        approximate neighbour index proposes the pairs. See Notes.
    max_docs : int, default=30000
        Largest corpus the dense graph accepts. The ``n (n - 1) / 2`` distances are held
        twice while merging (``8 n (n - 1)`` bytes: 3.2 GB for 20,000 documents, 7.2 GB
        for 30,000); a larger corpus is refused before anything is allocated. The sparse
        graph has no such limit: it holds about 40 bytes per kept pair (N = n (n/K - 1) / 2,
        e.g. 1.4e7 pairs for 200,000 texts and K = 1,466).
    ann_docs : int or None, default=100000
        With ``graph="sparse"`` and dense vectors, past this many texts Algorithm 2's
        candidate pairs come from an HNSW index (hnswlib, the ``ann`` extra) instead of
        scoring every pair; None: always score every pair. See Notes.
    random_state : ignored
        Accepted for the experiment runner's seeds; HAC draws no random numbers.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        Cluster of each document, in ``0..n_clusters-1``, numbered in order of each
        cluster's first document.
    n_clusters_ : int
        Number of clusters (``n_clusters``).
    n_iter_ : int
        Merges performed to reach ``n_clusters`` groups: ``n_documents - n_clusters_``.
    merges_ : ndarray of shape (n_documents - 1, 4)
        The full merge tree in scipy's linkage format.
    n_retained_ : int
        Pairs i < j whose similarity was kept (all ``n (n - 1) / 2`` for ``"none"``).
    pair_route_ : str or None
        How the sparse graph found its pairs: ``"exact"`` (every pair, as the dense path),
        ``"exact-fast"`` (every pair, Gram statistics, float32), ``"hnsw"``; None for the
        dense graph.
    k_ : int or None
        The k used by ``"knn"``; None otherwise.
    cluster_means_ : ndarray of shape (n_clusters_, n_features_in_)
        Mean unit vector of each cluster (TF-IDF weights when fitted on counts).
    n_features_in_ : int
    vocabulary_ : list of str or None
        Words of the columns, when ``fit`` was given a Corpus.

    Notes
    -----
    *Distances.* Ward's criterion assumes Euclidean distances; section 5.2 uses it on
    cosine-based distances anyway ("the distances between documents are cosine
    similarities, that is, non-Euclidean distances"), arguing that for nearby points on the
    unit sphere the cosine distance approximates the Euclidean one. The authors' code writes
    ``1 - s_ij`` for kept entries and 1 (``LargeDistValue``) for removed ones, with a zero
    diagonal; so does this class. For non-negative vectors (TF-IDF) 1 is the largest
    possible distance; for embeddings a kept negative similarity would exceed it, but
    kept similarities are the highest of their rows.

    *Merging.* The paper used fastcluster [28], and so does the dense graph, in place
    (``preserve_input=False``: the distances are overwritten instead of copied); scipy's
    ``linkage`` runs the same nearest-neighbour-chain algorithm with the Lance-Williams
    update for Ward on the condensed distances, and is exact. Sparsified
    matrices have many distances equal to 1, so ties are common early; nearest-neighbour
    chains resolve them by position, and a different exact implementation may merge tied
    pairs in another order. On StackOverflow (20,000 titles, TF-IDF, K = 20) a fit takes
    15 s dense, 30-40 s with either sparsifier, at a peak of 3.3-3.5 GiB, on one core of
    a shared machine (``benchmarks/bench_hac_sd.py``); merging is about half of it.

    *Memory.* The dense path never builds S: the distances are written into the condensed
    vector a block of rows at a time. The sparsified paths build S once, as float32 (1.6 GB
    for 20,000 documents), sparsify it block by block and free it before merging.

    *The sparse graph.* Ward's Lance-Williams update is linear in squared distances, so
    the Ward distance of two clusters is a function of their sizes, the weights
    ``w = 1 - d^2`` of the kept pairs inside each and of those between them; a removed
    pair (distance 1) adds nothing. ``_sparse_ward`` keeps only those sums and merges the
    closest pair each time (its docstring derives it): the dense path's hierarchy without
    its n^2 distances. Kept similarities must be >= 0 (always so for TF-IDF; a fit whose
    kept pairs include a negative similarity is refused with a message to use the dense
    graph). The pairs themselves come from two passes over blocks of ``V V^T`` rounded to
    float32, the values the dense path stores (``_sparse_sd``); time stays O(n^2 d).
    On SearchSnippets-test and StackOverflow (GloVe) both graphs give the same labels.

    *Which pairs route, by size* (sparse graph). Up to ``max_docs`` (30,000) every pair is
    scored exactly as the dense path scores it, so the dense path's labels are reproduced.
    Up to ``ann_docs`` (100,000) every pair is still scored (``"exact-fast"``): O(n^2 d),
    measured at 313 s of one core's CPU for 200,000 texts, so about 80 s at 100,000.
    Past ``ann_docs`` (dense vectors only; TF-IDF stays exact) the quadratic pass would
    take hours at a million texts, so an HNSW graph (hnswlib) lists each row's nearest
    neighbours and only listed pairs are scored (``_ann_sd``, which explains why the
    neighbour lists contain Algorithm 2's pairs up to the index's misses): about
    O(n k log n). Identical rows (repeated texts) are one point of the graph, asked once.
    The kept pairs are then those of Algorithm 2 except the ones the index
    missed; their recall against the exact route and the labels of both are measured
    in ``benchmarks/README.md`` (``bench_hac_sd_ann.py``).

    *k for HAC_kNN.* The paper does not state k. The default, ``n // K - 1``, is the ``l``
    of Algorithm 2 (the neighbours a text has in a cluster of average size), which the
    authors' code also uses for its k-NN variant; it gives HAC_kNN and HAC_SD comparable
    densities (HAC_kNN keeps between k and 2k entries per row after the union).

    *Empty documents.* A zero vector has cosine similarity 0 with every document (no NaN):
    it is at distance 1 from all of them and joins a cluster when Ward's criterion makes
    that cheapest. ``fit`` calls ``callback(1, 1, n_clusters_)`` once, at the end.

    References
    ----------
    M. R. H. Rakib, N. Zeh, M. Jankowska, E. Milios. Enhancement of short text clustering
    by iterative classification. NLDB 2020, sections 4, 5.2 and 5.3. D. Muellner.
    fastcluster: fast hierarchical, agglomerative clustering routines for R and Python.
    J. Stat. Softw. 53(9), 2013.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]])
    >>> HACSimilarity(n_clusters=2, sparsify="sd").fit_predict(X).tolist()
    [0, 0, 1, 1]
    """

    _parameter_constraints = {
        "n_clusters": Integer(1),
        "max_docs": Integer(1),
        "sparsify": Options("none", "knn", "sd"),
        "graph": Options("dense", "sparse"),
        "k": NoneOr(Integer(1)),
        "ann_docs": NoneOr(Integer(1)),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="both", predict=False, predict_proba=False,
                                top_words=True, seeded=False)
    # Added after the IC reproduction's runs were archived; "dense" is what ran before.
    # ann_docs: every archived run had fewer texts, so its default reproduces them all.
    _parameters_added_later = {"graph": "dense", "ann_docs": 100000}

    def __init__(self, *, n_clusters=8, sparsify="none", k=None, graph="dense",
                 max_docs=30000, ann_docs=100000, random_state=None):
        self.n_clusters = n_clusters
        self.sparsify = sparsify
        self.k = k
        self.graph = graph
        self.max_docs = max_docs
        self.ann_docs = ann_docs
        self.random_state = random_state

    def _validate_joint_params(self):
        """The sparse graph is built for Algorithm 2 only."""
        if self.graph == "sparse" and self.sparsify != "sd":
            raise ParameterError(
                f"graph='sparse' needs sparsify='sd', got sparsify={self.sparsify!r}: "
                "use graph='dense'"
            )

    def fit(self, X, y=None, callback=None):
        """Cluster the documents of X.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_features), or Corpus
            Document vectors (float: TF-IDF, averaged word vectors, sentence embeddings),
            or word counts (a Corpus, or a matrix of integer dtype), which are weighted by
            l2-normalised TF-IDF. See :func:`unit_vectors`.
        y : ignored
        callback : callable, optional
            Called once as ``callback(1, 1, n_clusters_)`` at the end.

        Returns
        -------
        self : HACSimilarity

        Raises
        ------
        ParameterError
            For an out-of-range parameter, malformed X, more than ``max_docs``
            documents, fewer documents than ``n_clusters``, or more than ``ann_docs``
            documents without hnswlib installed.
        """
        self._validate_params()
        vectors, self.vocabulary_ = unit_vectors(X)
        n_docs = vectors.shape[0]
        if self.graph == "dense":
            self._check_size(n_docs)
        require_enough_documents(vectors, self.n_clusters)
        self.k_ = self._neighbours(n_docs) if self.sparsify == "knn" else None
        self.pair_route_ = self._pair_route(vectors) if self.graph == "sparse" else None
        if n_docs == 1:
            self.merges_, self.n_retained_ = np.zeros((0, 4)), 0
        elif self.graph == "sparse":
            self.merges_, self.n_retained_ = self._sparse_merges(vectors)
        else:
            distances, self.n_retained_ = self._distances(vectors)
            self.merges_ = ward_in_place(distances)
            del distances
        self.labels_ = _cut(self.merges_, n_docs, self.n_clusters)
        self.n_clusters_ = n_nonempty(self.labels_)
        self.n_iter_ = n_docs - self.n_clusters_
        self.n_features_in_ = vectors.shape[1]
        self.cluster_means_ = _cluster_means(sp.csr_matrix(vectors), self.labels_,
                                             self.n_clusters_)
        if callback is not None:
            callback(1, 1, self.n_clusters_)
        return self

    def fit_predict(self, X, y=None, callback=None):
        """Fit and return the cluster of each document (``labels_``)."""
        return self.fit(X, callback=callback).labels_

    def top_words(self, n=10, vocabulary=None):
        """Columns of highest mean weight in each cluster, heaviest first.

        Words when fitted on counts with a vocabulary; column indices otherwise (for
        embeddings these are dimensions, not words).
        """
        check_is_fitted(self, "labels_")
        words = vocabulary if vocabulary is not None else self.vocabulary_
        return top_words_of(self.cluster_means_, n, words)

    def _neighbours(self, n_docs):
        """k for k-NN sparsification: the parameter, or l = n // K - 1 (at least 1)."""
        return self.k if self.k is not None else max(1, n_docs // self.n_clusters - 1)

    def _distances(self, vectors):
        """Condensed Ward input ``1 - s`` and the number of pairs i < j kept."""
        n_docs = vectors.shape[0]
        if self.sparsify == "none":
            return condensed_cosine_distances(vectors), n_docs * (n_docs - 1) // 2
        kept = self._sparsified(vectors)
        return condensed_from_sparse(kept), (kept.nnz - n_docs) // 2

    def _pair_route(self, vectors):
        """Which route finds the sparse graph's pairs, by size (see Notes)."""
        n_docs = vectors.shape[0]
        if self.ann_docs is not None and n_docs > self.ann_docs and not sp.issparse(vectors):
            if not hnswlib_available():
                raise ParameterError(
                    f"graph='sparse' on {n_docs} texts (over ann_docs={self.ann_docs}) needs "
                    "hnswlib: pip install 'shortclust[ann]', or set ann_docs=None to score "
                    "every pair (hours at a million texts)")
            return "hnsw"
        # Past max_docs no dense path can be matched: the faster passes (_sparse_sd).
        return "exact-fast" if n_docs > self.max_docs else "exact"

    def _sparse_merges(self, vectors):
        """Ward merges down to ``n_clusters`` from Algorithm 2's kept pairs alone."""
        self.ann_stats_ = {}
        if self.pair_route_ == "hnsw":
            rows, cols, similarities = ann_sd_pairs(vectors, self.n_clusters,
                                                    stats=self.ann_stats_)
        else:
            rows, cols, similarities = sd_pairs(vectors, self.n_clusters,
                                                fast=self.pair_route_ == "exact-fast")
        self.ann_stats_["stage"] = "ward"
        n_pairs = rows.size
        try:
            adjacency = ward_adjacency(vectors.shape[0], rows, cols, pair_weights(similarities))
        except ValueError as error:
            raise ParameterError(f"graph='sparse': {error}") from None
        del rows, cols, similarities  # the lists hold them now: free them before the merges
        return ward_merges(adjacency, self.n_clusters), n_pairs

    def _sparsified(self, vectors):
        """S (float32, freed on return) sparsified by k-NN or Algorithm 2."""
        similarities = similarity_matrix(vectors)
        if self.sparsify == "knn":
            return knn_sparsify(similarities, self.k_)
        return sd_sparsify(similarities, self.n_clusters)

    def _check_size(self, n_docs):
        if n_docs > self.max_docs:
            size = 8 * n_docs * (n_docs - 1)
            size = f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.0f} MiB"
            raise ParameterError(
                f"HAC on {n_docs} documents needs about {size} for its pairwise "
                f"distances, over the limit max_docs={self.max_docs}: cluster a subset, "
                "use kmeans_minus, or raise max_docs if the machine has the memory"
            )


class HACWard(HACSimilarity):
    """The IC paper's HAC: Ward linkage on the dense cosine similarity matrix (section 5.2).

    :class:`HACSimilarity` with ``sparsify="none"`` by default; registered as ``hac_ward``.
    """

    def __init__(self, *, n_clusters=8, sparsify="none", k=None, graph="dense",
                 max_docs=30000, ann_docs=100000, random_state=None):
        super().__init__(n_clusters=n_clusters, sparsify=sparsify, k=k, graph=graph,
                         max_docs=max_docs, ann_docs=ann_docs, random_state=random_state)


class HACkNN(HACSimilarity):
    """The IC paper's HAC_kNN: Ward linkage on the k-NN-sparsified matrix (sections 4.1, 5.3).

    :class:`HACSimilarity` with ``sparsify="knn"`` by default; registered as ``hac_knn``.
    """

    def __init__(self, *, n_clusters=8, sparsify="knn", k=None, graph="dense",
                 max_docs=30000, ann_docs=100000, random_state=None):
        super().__init__(n_clusters=n_clusters, sparsify=sparsify, k=k, graph=graph,
                         max_docs=max_docs, ann_docs=ann_docs, random_state=random_state)


class HACSD(HACSimilarity):
    """The IC paper's HAC_SD: Ward linkage on the Algorithm 2 sparsified matrix (4.2, 5.3).

    :class:`HACSimilarity` with ``sparsify="sd"`` by default; registered as ``hac_sd``.
    """

    def __init__(self, *, n_clusters=8, sparsify="sd", k=None, graph="dense",
                 max_docs=30000, ann_docs=100000, random_state=None):
        super().__init__(n_clusters=n_clusters, sparsify=sparsify, k=k, graph=graph,
                         max_docs=max_docs, ann_docs=ann_docs, random_state=random_state)


# --- similarities and distances ---------------------------------------------------------------

def similarity_matrix(vectors, dtype=np.float32):
    """Dense cosine similarities ``V V^T`` of unit rows, a block of rows at a time.

    float32 by default: the 20,000 x 20,000 matrix of StackOverflow is then 1.6 GB
    (3.2 GB in float64); the products themselves are computed in float64.
    """
    n_docs = vectors.shape[0]
    out = np.empty((n_docs, n_docs), dtype=dtype)
    for start, stop, block in _similarity_blocks(vectors):
        out[start:stop] = block
    return out


def condensed_cosine_distances(vectors):
    """``1 - s_ij`` for all pairs i < j in scipy's condensed order (float64, >= 0)."""
    n_docs = vectors.shape[0]
    out = np.empty(n_docs * (n_docs - 1) // 2)
    position = 0
    for start, stop, block in _similarity_blocks(vectors):
        for row in range(stop - start):
            values = block[row, start + row + 1:]
            np.subtract(1.0, values, out=out[position:position + values.size])
            position += values.size
    # Rounding can leave s slightly above 1 for identical documents.
    return np.maximum(out, 0.0, out=out)


def ward_in_place(distances):
    """Ward merges of condensed distances, overwriting them (no second n^2 / 2 copy).

    fastcluster's ``linkage(..., preserve_input=False)`` works in the caller's array, where
    scipy's copies it first (peak 8 n^2 bytes instead of 4 n^2 for float64); both run the
    nearest-neighbour chain with the Lance-Williams update for Ward, and give the same
    merges here (``results/ic/hac_sd_gap.md``: the same labels).
    """
    import fastcluster

    return fastcluster.linkage(distances, method="ward", preserve_input=False)


def condensed_from_sparse(kept):
    """Condensed distances from a sparsified similarity matrix: ``1 - m_ij`` where kept, else 1.

    Only the strict upper triangle of ``kept`` is read. A removed similarity counts as 0,
    the authors' ``LargeDistValue`` of 1.
    """
    n_docs = kept.shape[0]
    out = np.ones(n_docs * (n_docs - 1) // 2)
    upper = sp.triu(kept, k=1, format="coo")
    i = upper.row.astype(np.int64)
    j = upper.col.astype(np.int64)
    index = n_docs * i - i * (i + 1) // 2 + (j - i - 1)
    out[index] = np.maximum(1.0 - upper.data.astype(np.float64), 0.0)
    return out


def _similarity_blocks(vectors):
    """Yield (start, stop, rows start..stop of V V^T as a float64 ndarray)."""
    n_docs = vectors.shape[0]
    step = max(1, _BLOCK_VALUES // n_docs)
    transposed = vectors.T.tocsr() if sp.issparse(vectors) else vectors.T
    for start in range(0, n_docs, step):
        stop = min(n_docs, start + step)
        block = vectors[start:stop] @ transposed
        yield start, stop, (block.toarray() if sp.issparse(block) else block)
