"""Topic quality of clusters' top words: NPMI and C_v coherence, and topic diversity.

Clustering metrics (:mod:`.metrics`) compare clusters with gold classes; these measures need
no labels: they ask whether each cluster's top words occur together in a reference corpus
(coherence) and how much the clusters' top words differ from one another (diversity).

Definitions (those of gensim's ``CoherenceModel``, whose values ours equal; Röder, Both and
Hinneburg, "Exploring the Space of Topic Coherence Measures", WSDM 2015, for the framework):

- Probabilities are estimated from *boolean documents*: with N the number of documents of the
  reference corpus (empty ones included), ``p(w) = D(w) / N`` and ``p(w_i, w_j) = D(w_i, w_j) /
  N``, D counting the documents that contain the word, or both words.
- ``NPMI(w_i, w_j) = log((p(w_i, w_j) + eps) / (p(w_i) p(w_j))) / -log(p(w_i, w_j) + eps)``
  with ``eps = 1e-12`` (Bouma 2009, with gensim's epsilon).
- ``npmi`` of a topic (gensim's ``c_npmi``): the mean of NPMI over its ordered word pairs
  ``(w_i, w_j)``, ``i != j`` (segmentation ``s_one_one``).
- ``c_v`` of a topic: segmentation ``s_one_set`` pairs each word ``w_i`` with the topic's whole
  word set W; the context vector of ``w_i`` is ``v_i = (NPMI(w_i, w_j))_j`` over the words
  ``w_j`` of W (``w_i`` itself included), that of W is ``sum_i v_i``; the topic's value is the
  mean over i of ``cos(v_i, sum_k v_k)`` (the indirect cosine measure, gamma = 1).
- ``diversity`` (Dieng, Ruiz and Blei, "Topic Modeling in Embedding Spaces", TACL 2020): the
  share of distinct words among all the topics' top words (1: no word in two topics).
- A model's value is the arithmetic mean over its topics (gensim's ``arithmetic_mean``).

Windows. gensim estimates ``c_v`` from sliding windows of 110 tokens and ``c_npmi`` from
windows of 10; a text no longer than the window is one window, and every text counts in N,
empty ones too (gensim 4.4, ``WindowedTextsAnalyzer.accumulate``). A corpus here keeps term
counts, not token order, so each document is one window: our values equal gensim's whenever
no reference document is longer than the window (110 tokens for ``c_v``; for ``c_npmi``,
gensim's ``window_size`` set to at least the longest document). For short texts that is the
natural window: a title or a tweet is one context. On long documents ours is document
co-occurrence, not gensim's windows.

Words of a topic missing from the reference corpus are left out of it (gensim does the same
with words its dictionary lacks), and a topic with fewer than two words left has no
coherence (no word pair) and is left out of the means; diversity counts every topic.

Speed: only the top words' columns of the reference's document-word matrix are used, and
their co-document counts come from one sparse product ``B^T B`` of that slice, so the cost
grows with the top words' occurrences, not with the vocabulary (figures in
``benchmarks/README.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

#: Every topic-quality measure, in the order tables show them.
TOPIC_QUALITY_MEASURES = ("npmi", "c_v", "diversity")
#: gensim's epsilon in the NPMI (``direct_confirmation_measure.EPSILON``).
EPSILON = 1e-12


class Reference:
    """A corpus as boolean documents (which words each document holds), for topic quality.

    Built once per corpus and reused for every model scored on it: the reference corpus of
    the coherence (:meth:`quality`, :meth:`per_topic`), or the clustered corpus whose
    clusters' top words are kept to the words their documents hold (:meth:`cluster_topics`).

    Parameters
    ----------
    counts : sparse or dense matrix, shape (n_docs, n_words)
        Term counts (any non-zero is an occurrence), one row per document.
    vocabulary : sequence of str
        The word of each column.
    """

    def __init__(self, counts, vocabulary: Sequence[str]):
        presence = sp.csc_matrix(counts, dtype=np.float64, copy=True)
        presence.eliminate_zeros()
        presence.data[:] = 1.0
        if presence.shape[1] != len(vocabulary):
            raise ValueError(f"vocabulary has {len(vocabulary)} words but counts has "
                             f"{presence.shape[1]} columns: pass one word per column")
        self.presence = presence
        self.n_docs = presence.shape[0]
        document_frequency = np.diff(presence.indptr)
        # A word that occurs nowhere has no probability: it is left out of topics.
        self.column = {word: index for index, word in enumerate(vocabulary)
                       if document_frequency[index] > 0}

    def quality(self, topics, measures: Sequence[str] = TOPIC_QUALITY_MEASURES) -> dict:
        """The mean NPMI and C_v of ``topics`` and their diversity.

        Parameters
        ----------
        topics : list of list of str
            Each topic's (cluster's) top words, best first.
        measures : sequence of str
            Names from :data:`TOPIC_QUALITY_MEASURES`.

        Returns
        -------
        dict
            ``{measure: value}``; a coherence is NaN when no topic has two words in the
            reference corpus, and diversity NaN when there are no words at all.
        """
        _check_measures(measures)
        values = {}
        if {"npmi", "c_v"} & set(measures):
            per_topic = self.per_topic(topics)
            for name in ("npmi", "c_v"):
                scored = per_topic[name][~np.isnan(per_topic[name])]
                values[name] = float(scored.mean()) if scored.size else float("nan")
        if "diversity" in measures:
            values["diversity"] = topic_diversity(topics)
        return {name: values[name] for name in measures}

    def per_topic(self, topics) -> dict[str, np.ndarray]:
        """NPMI and C_v of each topic: ``{"npmi": array, "c_v": array}``, NaN for a topic
        with fewer than two words in the reference corpus."""
        columns = self.columns(topics)
        result = {"npmi": np.full(len(topics), np.nan), "c_v": np.full(len(topics), np.nan)}
        lengths = np.array([len(ids) for ids in columns], dtype=np.int64)
        scored = np.flatnonzero(lengths >= 2)
        if not scored.size:
            return result
        union = np.unique(np.concatenate([columns[t] for t in scored]))
        together = self._co_documents(union)
        for length in np.unique(lengths[scored]):
            group = scored[lengths[scored] == length]
            local = np.searchsorted(union, np.stack([columns[t] for t in group]))
            npmi = self._npmi(together, local)
            result["npmi"][group] = _mean_off_diagonal(npmi)
            result["c_v"][group] = _indirect_cosine(npmi)
        return result

    def columns(self, topics) -> list[np.ndarray]:
        """Each topic's words as reference columns, in order, each once, missing words left out."""
        column = self.column
        return [np.fromiter((column[word] for word in dict.fromkeys(topic) if word in column),
                            dtype=np.int64) for topic in topics]

    def cluster_topics(self, top_words, labels) -> list[list[str]]:
        """The top words of each non-empty cluster of this corpus that its documents hold.

        A model's ``top_words(n)`` lists n words for every cluster; a cluster whose
        documents hold fewer than n distinct words is padded with words it does not
        contain (ties at the smallest weight: GSDMM's ``beta`` share, a zero centre weight),
        in vocabulary order. Scoring those as if they described the cluster would be
        wrong, so they are dropped, and so are clusters without documents.

        Parameters
        ----------
        top_words : list of list
            ``model.top_words(n, vocabulary=...)``: per cluster label, (word, weight) pairs
            or words, best first.
        labels : array of int, shape (n_docs,)
            Each document's cluster (an index into ``top_words``); a negative label (an
            outlier) puts a document in no cluster.

        Returns
        -------
        list of list of str
            One list per cluster that has documents, in label order.
        """
        labels = np.asarray(labels, dtype=np.int64)
        if labels.shape != (self.n_docs,):
            raise ValueError(f"labels has shape {labels.shape}, expected ({self.n_docs},): "
                             "one label per document of the corpus")
        sizes = np.bincount(labels[labels >= 0], minlength=len(top_words))
        kept = [label for label in range(len(top_words)) if sizes[label] > 0]
        words = [[_word_of(entry) for entry in top_words[label]] for label in kept]
        flat = [word for cluster in words for word in cluster]
        ids = np.fromiter((self.column.get(word, -1) for word in flat), dtype=np.int64,
                          count=len(flat))
        owner = np.repeat(np.asarray(kept, dtype=np.int64), [len(c) for c in words])
        held = np.zeros(len(flat), dtype=bool)
        known = np.flatnonzero(ids >= 0)
        if known.size:
            held[known] = self._held_by_clusters(labels, owner[known], ids[known])
        topics, start = [], 0
        for cluster in words:
            topics.append([word for word, keep in
                           zip(cluster, held[start:start + len(cluster)]) if keep])
            start += len(cluster)
        return topics

    def _held_by_clusters(self, labels, clusters, columns) -> np.ndarray:
        """Whether a document of cluster ``clusters[i]`` holds word ``columns[i]``, for each i."""
        words = np.unique(columns)
        slice_ = self.presence[:, words].tocsr()  # only the top words' columns
        documents = np.flatnonzero(labels >= 0)
        membership = sp.csr_matrix((np.ones(documents.size), (labels[documents], documents)),
                                   shape=(int(labels.max()) + 1, labels.size))
        in_cluster = (membership @ slice_).tocsr()
        return np.asarray(in_cluster[clusters, np.searchsorted(words, columns)]).ravel() > 0

    def _co_documents(self, union: np.ndarray) -> sp.csr_matrix:
        """Documents holding both words, for every pair of ``union`` (diagonal: one word)."""
        slice_ = self.presence[:, union]
        return (slice_.T @ slice_).tocsr()

    def _npmi(self, together: sp.csr_matrix, local: np.ndarray) -> np.ndarray:
        """NPMI of every word pair of each topic: shape (topics, n, n), as gensim computes it."""
        n_topics, n = local.shape
        rows = np.repeat(local, n, axis=1).ravel()
        cols = np.tile(local, (1, n)).ravel()
        counts = np.asarray(together[rows, cols]).reshape(n_topics, n, n)
        p_joint = counts / float(self.n_docs)
        p_word = np.diagonal(p_joint, axis1=1, axis2=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.log((p_joint + EPSILON) / (p_word[:, :, None] * p_word[:, None, :]))
            return ratio / -np.log(p_joint + EPSILON)


def _mean_off_diagonal(npmi: np.ndarray) -> np.ndarray:
    """Mean over ordered pairs ``i != j`` of each topic's (n, n) block."""
    n = npmi.shape[1]
    off = ~np.eye(n, dtype=bool)
    return npmi[:, off].mean(axis=1)


def _indirect_cosine(npmi: np.ndarray) -> np.ndarray:
    """C_v of each topic from its NPMI block: mean over words of cos(v_i, sum_k v_k)."""
    whole = npmi.sum(axis=1)  # the word set's context vector, (topics, n)
    dots = np.einsum("tij,tj->ti", npmi, whole)
    norms = np.linalg.norm(npmi, axis=2) * np.linalg.norm(whole, axis=1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (dots / norms).mean(axis=1)


def topic_diversity(topics) -> float:
    """Distinct words over all words of ``topics`` (each topic's words counted once).

    Examples
    --------
    >>> topic_diversity([["a", "b"], ["b", "c"]])
    0.75
    """
    words = [word for topic in topics for word in dict.fromkeys(topic)]
    return len(set(words)) / len(words) if words else float("nan")


def topic_quality(topics, counts, vocabulary: Sequence[str],
                  measures: Sequence[str] = TOPIC_QUALITY_MEASURES) -> dict:
    """NPMI and C_v coherence of ``topics`` on a reference corpus, and their diversity.

    Parameters
    ----------
    topics : list of list of str
        Each cluster's top words, best first (:func:`cluster_topics` gives them from a
        model's ``top_words``).
    counts : matrix, shape (n_docs, n_words)
        The reference corpus's term counts (e.g. ``corpus.counts``).
    vocabulary : sequence of str
        The word of each column of ``counts``.
    measures : sequence of str
        Names from :data:`TOPIC_QUALITY_MEASURES`.

    Returns
    -------
    dict
        ``{measure: value}`` in the order of ``measures``.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1]])
    >>> quality = topic_quality([["a", "b"], ["c", "b"]], counts, ["a", "b", "c"])
    >>> {name: round(value, 4) for name, value in quality.items()}
    {'npmi': 0.0613, 'c_v': 0.7022, 'diversity': 0.75}
    """
    return Reference(counts, vocabulary).quality(topics, measures)


def cluster_topics(top_words, labels, counts, vocabulary: Sequence[str]) -> list[list[str]]:
    """The top words of each non-empty cluster that occur in at least one of its documents.

    ``Reference(counts, vocabulary).cluster_topics(top_words, labels)``: see
    :meth:`Reference.cluster_topics`.
    """
    return Reference(counts, vocabulary).cluster_topics(top_words, labels)


def _word_of(entry) -> str:
    """A ``top_words`` entry: a (word, weight) pair or a bare word."""
    return str(entry[0]) if isinstance(entry, (tuple, list)) else str(entry)


def _check_measures(measures) -> None:
    unknown = [name for name in measures if name not in TOPIC_QUALITY_MEASURES]
    if unknown:
        raise ValueError(f"unknown topic-quality measure '{unknown[0]}' "
                         f"(choose from {', '.join(TOPIC_QUALITY_MEASURES)})")
