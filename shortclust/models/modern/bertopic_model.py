"""BERTopic (Grootendorst 2022) on precomputed sentence embeddings, as a clustering model.

Not in any of the five papers: BERTopic 0.17 is the tool a practitioner would pick
today. Its pipeline (UMAP to 5 dimensions, then HDBSCAN, then class-based TF-IDF for the
topics' words) runs unchanged at its defaults; two things are fixed here so that a run
can be repeated and needs no network:

- the embeddings are given (the ``sentence_embeddings`` representation: the packaged
  all-MiniLM-L6-v2, BERTopic's own default encoder), so BERTopic never loads a model from
  a hub (``HF_HUB_OFFLINE=1`` all the same);
- UMAP gets ``random_state`` (the run's seed); BERTopic's UMAP is otherwise its default
  (15 neighbours, 5 components, min_dist 0, cosine).

``n_clusters`` set replaces HDBSCAN with k-means of that K on the reduced embeddings (the
``hdbscan_model=KMeans(K)`` recipe of BERTopic's documentation). The class-based TF-IDF
reads the corpus's words: the runner passes the term counts (``fit_counts``), and each
document is handed to BERTopic as its words' column numbers, so its vectoriser sees
exactly the corpus's tokens.

Needs the optional extra ``bench`` (``pip install 'shortclust[bench]'``).
"""

import os

import numpy as np

from shortclust.errors import ConfigError, ParameterError
from shortclust.models.base import Capabilities, ClusteringModel, Integer, NoneOr, Seed
from shortclust.models.modern.hdbscan_model import _vectors_only, noise_as_cluster

INSTALL_HINT = ("model 'bertopic' needs the optional extra: pip install 'shortclust[bench]' "
                "(BERTopic 0.17 with UMAP and HDBSCAN)")


def _token(column: int) -> str:
    return f"w{column}"


def pseudo_documents(counts) -> list[str]:
    """Each row of a count matrix as text of column tokens (``w12 w12 w40``).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> pseudo_documents(sp.csr_matrix([[2, 0, 1], [0, 0, 0]]))
    ['w0 w0 w2', '']
    """
    import scipy.sparse as sp

    counts = sp.csr_matrix(counts)
    docs = []
    for row in range(counts.shape[0]):
        start, stop = counts.indptr[row], counts.indptr[row + 1]
        docs.append(" ".join(_token(int(c)) for c, n in zip(counts.indices[start:stop],
                                                           counts.data[start:stop])
                             for _ in range(int(n))))
    return docs


class BERTopic(ClusteringModel):
    """BERTopic's clustering of document embeddings (UMAP, then HDBSCAN or k-means).

    Parameters
    ----------
    n_clusters : int or None, default=None
        None: BERTopic's default HDBSCAN (``min_topic_size`` documents at least), which
        chooses the number of topics; an int: k-means with that K on the reduced vectors.
    min_topic_size : int, default=10
        BERTopic's ``min_topic_size`` (HDBSCAN's ``min_cluster_size``).
    n_neighbors : int, default=15
        UMAP neighbours (BERTopic's default; capped below the number of documents).
    n_components : int, default=5
        UMAP dimensions (BERTopic's default; capped for tiny corpora).
    random_state : int or None
        UMAP's seed (and k-means's): the same seed gives the same topics.

    Attributes
    ----------
    labels_ : ndarray of shape (n_documents,)
        BERTopic's topic of each document; its outlier topic -1 is scored as one more
        cluster, numbered last (:func:`~.hdbscan_model.noise_as_cluster`).
    n_clusters_ : int
        Distinct labels (the outliers included).
    n_outliers_ : int
        Documents in BERTopic's outlier topic.
    topic_words_ : list of list of (int, float)
        Each cluster's words (column numbers) and c-TF-IDF weights, in label order.
    n_iter_ : int
        0.
    """

    _parameter_constraints = {
        "n_clusters": NoneOr(Integer(1)),
        "min_topic_size": Integer(2),
        "n_neighbors": Integer(2),
        "n_components": Integer(1),
        "random_state": Seed(),
    }
    capabilities = Capabilities(input="vectors", fit_counts=True, predict=False,
                                predict_proba=False, top_words=True)

    def __init__(self, *, n_clusters=None, min_topic_size=10, n_neighbors=15, n_components=5,
                 random_state=None):
        self.n_clusters = n_clusters
        self.min_topic_size = min_topic_size
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y=None, callback=None, counts=None):
        """Cluster the document embeddings X; ``counts`` (the corpus's term counts, same
        rows) give the topics' words."""
        self._validate_params()
        embeddings = np.asarray(_dense(_vectors_only(X)), dtype=np.float32)
        if counts is None or counts.shape[0] != embeddings.shape[0]:
            raise ParameterError("counts must be the corpus's term counts, one row per "
                                 "document of X (the runner passes them)")
        topic_model = self._topic_model(embeddings.shape[0])
        topics, _ = topic_model.fit_transform(pseudo_documents(counts), embeddings=embeddings)
        found = np.asarray(topics, dtype=np.int64)
        self.n_outliers_ = int(np.sum(found < 0))
        self.labels_ = noise_as_cluster(found)
        # Topic t of BERTopic is label t; its outliers (-1) the last label.
        order = sorted(set(found.tolist()), key=lambda t: (t < 0, t))
        self.topic_words_ = [[(int(word[1:]), float(weight))
                              for word, weight in (topic_model.get_topic(t) or [])
                              if word.startswith("w") and word[1:].isdigit()]
                             for t in order]
        self.n_clusters_ = int(np.unique(self.labels_).size)
        self.n_iter_ = 0
        if callback is not None:
            callback(1, 1, self.n_clusters_)
        return self

    def _topic_model(self, n_docs: int):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from bertopic import BERTopic as Upstream
            from sklearn.cluster import KMeans
            from sklearn.feature_extraction.text import CountVectorizer
            from umap import UMAP
        except ImportError:
            raise ConfigError(INSTALL_HINT) from None
        seed = _int_seed(self.random_state)
        # BERTopic's own UMAP settings, with the seed; capped for corpora smaller than them.
        neighbours = max(2, min(self.n_neighbors, n_docs - 1))
        components = max(1, min(self.n_components, n_docs - 2))
        umap_model = UMAP(n_neighbors=neighbours, n_components=components, min_dist=0.0,
                          metric="cosine", low_memory=False, random_state=seed)
        options = {}
        if self.n_clusters is not None:
            options["hdbscan_model"] = KMeans(n_clusters=min(self.n_clusters, n_docs),
                                              random_state=seed, n_init="auto")
        vectorizer = CountVectorizer(token_pattern=r"\S+", lowercase=False)
        return Upstream(umap_model=umap_model, vectorizer_model=vectorizer,
                        min_topic_size=self.min_topic_size, **options)

    def top_words(self, n=10, vocabulary=None):
        """Each cluster's top ``n`` words by BERTopic's c-TF-IDF, in label order."""
        if vocabulary is None:
            raise ParameterError("vocabulary= is needed: the topics' words are column "
                                 "numbers of the counts")
        return [[(vocabulary[c], w) for c, w in words[:n]] for words in self.topic_words_]


def _dense(vectors):
    return vectors.toarray() if hasattr(vectors, "toarray") else vectors


def _int_seed(random_state):
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    return int(np.random.default_rng(random_state).integers(2**31 - 1))
