"""Cluster-based query likelihood retrieval (Liang, Yilmaz & Kanoulas, KDD 2016, Eq. 12-13).

A query q is scored against each document d of the stream up to time t (Eq. 12)::

    P(q | t, d) = prod_{v in q} P(v | t, d) ^ n(v, q)

with each term's probability a mixture of a cluster model and a Dirichlet-smoothed document
model (Eq. 13)::

    P(v | t, d) = lambda P_Cluster(v | t, d)
                  + (1 - lambda) [ N_d / (N_d + mu) P_ML(v | t, d)
                                   + (1 - N_d / (N_d + mu)) P_ML(v | d_t) ]

where ``N_d`` is the document's length, ``P_ML(v | d_t)`` the maximum-likelihood estimate of
v in all the documents up to t, and (section 5.3, "for all methods including the vanilla
LM") ``P_ML(v | t, d) = P_ML(v | d) b^-(t - t_d)``, the document's own estimate decayed by
its age ``t - t_d`` with base ``b`` (b = 1: no decay). The cluster model is (section 5,
after Eq. 13)::

    P_Cluster(v | t, d) = sum_z P(v | t, d, z) P(z | t, d)

with ``P(v | t, d, z)`` the topic's word distribution (DCT: ``phi_t,z,v``, Eq. 9-10) and
``P(z | t, d)`` the document's topic probabilities (DCT: Eq. 11); hard clusters are one-hot
rows. **Plain query likelihood** (the paper's LM baseline, "Eq. 12 and 13 after removing
P_Cluster") is ``lambda = 0`` without clusters.

**TMS** (Efron et al., SIGIR 2014; the paper's Table 2 baseline) is plain query likelihood
re-scored with a temporal density estimated from the top of its own ranking
(:mod:`shortclust.evaluation.temporal_feedback`): a setting's ``gamma > 0``.

Conventions the paper leaves open, chosen here and stated:

- Ages are in days (``ages_in_days``); ``b`` is a per-day base.
- A query term with no occurrence in the collection up to t is dropped: it would give every
  document probability 0 under the document model (``log 0``), whatever the document.
- A document without tokens (``N_d = 0``) gets the collection estimate (its weight
  ``N_d / (N_d + mu)`` is taken as 0, also for ``mu = 0``).
- With ``mu = 0`` and ``lambda = 0`` a document lacking a query term has probability 0; it
  ranks last (score ``-inf``). Ties are broken by document position, earliest first.

Tuning (section 5.3): "a 60/30/10 split of our collection for training, validation and
testing ... The optimal lambda and mu values are decided based on the validation set, and
evaluated on the test set. The training/validation/test splits are permuted until all ...
queries have been chosen once for the test set. We repeat the experiments 10 times and
report the average." :func:`split_protocol` does exactly that: the queries are shuffled and
cut into 10 folds; each fold is the test set once, the next 3 folds (cyclically) the
validation set, the other 6 the training set; the grid point of the best mean validation
score is evaluated on the test fold; each query's test values are averaged over the 10
repeats. As the paper writes it, the training part plays no role in choosing the parameters
(nothing is learnt from relevance); it is kept so the split sizes are the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np
import scipy.sparse as sp

from shortclust.errors import DataError, ParameterError
from shortclust.evaluation.ranking import RANKING_METRICS, ranking_metrics, top_ranked
from shortclust.evaluation.temporal_feedback import feedback_log_density

__all__ = ["Query", "Smoothing", "SmoothingGrid", "Collection", "RetrievalResult",
           "TunedResult", "evaluate_retrieval", "query_log_likelihood", "grid_metrics",
           "split_protocol", "cluster_word_distributions", "one_hot", "ages_in_days"]

_SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True, eq=False)
class Query:
    """A query and its relevance judgements over a collection.

    Attributes
    ----------
    name : str
    tokens : tuple of str
        The query's words after preprocessing; a repeated word counts ``n(v, q)`` times.
    relevant : ndarray of bool, shape (n_documents,)
        Which documents of the collection are relevant.
    """

    name: str
    tokens: tuple
    relevant: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class Smoothing:
    """One setting of Eq. 13: mixture ``lam``, Dirichlet prior ``mu``, decay base ``b``;
    and ``gamma``, the weight of TMS's temporal feedback (0: none; see
    :mod:`shortclust.evaluation.temporal_feedback`)."""

    lam: float = 0.0
    mu: float = 100.0
    b: float = 1.0
    gamma: float = 0.0

    def __post_init__(self):
        if not 0.0 <= self.lam <= 1.0:
            raise ParameterError(f"lambda must be in [0, 1], got {self.lam}")
        if not self.mu >= 0.0:
            raise ParameterError(f"mu must be >= 0, got {self.mu}")
        if not self.b > 0.0:
            raise ParameterError(f"b must be > 0 (1: no recency decay), got {self.b}")
        if not self.gamma >= 0.0:
            raise ParameterError(f"gamma must be >= 0 (0: no temporal feedback), got "
                                 f"{self.gamma}")


@dataclass(frozen=True)
class SmoothingGrid:
    """The settings tried when tuning: every combination of the values given.

    The default spans the paper's ranges (lambda 0 to 1, mu 0 to 1000) and decay bases from
    none (1) to strong (1.1 per day).
    """

    lams: tuple = tuple(round(0.1 * i, 1) for i in range(11))
    mus: tuple = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0)
    bs: tuple = (1.0, 1.001, 1.01, 1.1)
    gammas: tuple = (0.0,)

    @property
    def points(self) -> list[Smoothing]:
        """The settings in grid order: by mu, then b, then lambda, then gamma."""
        return [Smoothing(lam, mu, b, gamma) for mu, b, lam, gamma in
                product(self.mus, self.bs, self.lams, self.gammas)]


class Collection:
    """The documents up to a time t, prepared for scoring queries (Eq. 12-13).

    Parameters
    ----------
    counts : scipy.sparse matrix of shape (n_documents, V)
        Term counts of the documents.
    vocabulary : sequence of str
        The word of each column.
    doc_topic : array-like of shape (n_documents, Z), optional
        ``P(z | t, d)``, rows summing to 1. None: no cluster model (plain query likelihood;
        only ``lam = 0`` may then be used).
    topic_word : array-like of shape (Z, V), optional
        ``P(v | t, d, z)``, rows summing to 1; required with ``doc_topic``.
    ages : array-like of shape (n_documents,), optional
        ``t - t_d`` in days (>= 0); None: all 0.
    """

    def __init__(self, counts, vocabulary, *, doc_topic=None, topic_word=None, ages=None):
        self.counts = _as_counts(counts)
        n_docs, n_words = self.counts.shape
        if len(vocabulary) != n_words:
            raise DataError(f"the vocabulary has {len(vocabulary)} words but counts have "
                            f"{n_words} columns")
        self.column = {word: i for i, word in enumerate(vocabulary)}
        self.by_word = self.counts.tocsc()
        self.lengths = np.asarray(self.counts.sum(axis=1)).ravel().astype(np.float64)
        word_totals = np.asarray(self.counts.sum(axis=0)).ravel().astype(np.float64)
        total = word_totals.sum()
        self.collection_p = word_totals / total if total else word_totals
        self.doc_topic, self.topic_word = _check_clusters(doc_topic, topic_word, n_docs, n_words)
        self.ages = _check_ages(ages, n_docs)

    @property
    def n_documents(self) -> int:
        return self.counts.shape[0]

    @property
    def has_clusters(self) -> bool:
        return self.doc_topic is not None

    def query_terms(self, tokens) -> tuple[np.ndarray, np.ndarray]:
        """Columns of the query's words that occur in the collection, and their counts
        ``n(v, q)``; other words are dropped (module docstring)."""
        known = [self.column[t] for t in tokens if t in self.column]
        columns, repeats = np.unique(np.asarray(known, dtype=np.int64), return_counts=True)
        keep = self.collection_p[columns] > 0
        return columns[keep], repeats[keep].astype(np.float64)

    def term_arrays(self, column) -> tuple[np.ndarray, np.ndarray]:
        """``P_ML(v | d)`` of every document and ``P_Cluster(v | t, d)`` (zeros without
        clusters) for the word of ``column``."""
        term_counts = np.asarray(self.by_word[:, column].todense()).ravel()
        with np.errstate(invalid="ignore", divide="ignore"):
            p_doc = np.where(self.lengths > 0, term_counts / self.lengths, 0.0)
        if self.doc_topic is None:
            return p_doc, np.zeros(self.n_documents)
        return p_doc, self.doc_topic @ self.topic_word[:, column]


def query_log_likelihood(collection, tokens, smoothings) -> np.ndarray:
    """``log P(q | t, d)`` (Eq. 12-13) of every document, for each setting.

    Parameters
    ----------
    collection : Collection
    tokens : sequence of str
        The query's words.
    smoothings : Smoothing or sequence of Smoothing

    Returns
    -------
    ndarray of shape (n_settings, n_documents)
        Natural logs; ``-inf`` for a document of probability 0. A query none of whose
        words occurs in the collection gives 0 everywhere. A setting with ``gamma > 0``
        adds TMS's ``gamma log f(t_d | q)``, the density estimated from the top of the
        same setting's ranking without it.
    """
    if isinstance(smoothings, Smoothing):
        smoothings = [smoothings]
    _check_lambdas(collection, smoothings)
    scores = _lexical_scores(collection, tokens, smoothings)
    densities = {}  # one per (lam, mu, b): the gammas of a grid share it
    for row, setting in enumerate(smoothings):
        if setting.gamma > 0.0:
            key = (setting.lam, setting.mu, setting.b)
            if key not in densities:
                densities[key] = feedback_log_density(scores[row], -collection.ages)
            scores[row] = scores[row] + setting.gamma * densities[key]
    return scores


def _lexical_scores(collection, tokens, smoothings) -> np.ndarray:
    """Eq. 12-13 of every document for each setting (its ``gamma`` ignored)."""
    columns, repeats = collection.query_terms(tokens)
    scores = np.zeros((len(smoothings), collection.n_documents))
    for column, n_vq in zip(columns, repeats):
        p_doc, p_cluster = collection.term_arrays(column)
        p_collection = collection.collection_p[column]
        document_models = {}  # one per (mu, b): the settings of a grid share them
        for row, setting in enumerate(smoothings):
            key = (setting.mu, setting.b)
            if key not in document_models:
                document_models[key] = _document_model(collection, setting, p_doc,
                                                       p_collection)
            p = setting.lam * p_cluster + (1.0 - setting.lam) * document_models[key]
            with np.errstate(divide="ignore"):
                scores[row] += n_vq * np.log(p)
    return scores


def _document_model(collection, setting, p_doc, p_collection):
    """The bracket of Eq. 13 for one word: the decayed document estimate smoothed by the
    collection's with Dirichlet prior mu, every document at once."""
    lengths = collection.lengths
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(lengths > 0, lengths / (lengths + setting.mu), 0.0)
    decay = setting.b ** -collection.ages if setting.b != 1.0 else 1.0
    return weight * p_doc * decay + (1.0 - weight) * p_collection


@dataclass(frozen=True)
class RetrievalResult:
    """Per-query and mean ranking metrics of one setting.

    Attributes
    ----------
    per_query : dict
        Query name -> ``{"ndcg", "map", "recall", "rprec", "p30", "n_relevant",
        "n_terms"}``; queries without a relevant document are left out.
    mean : dict
        Metric -> mean over the queries of ``per_query`` (NaN when there are none).
    setting : Smoothing
    """

    per_query: dict
    mean: dict
    setting: Smoothing


def evaluate_retrieval(counts, vocabulary, queries, *, doc_topic=None, labels=None,
                       topic_word=None, ages=None, lam=0.0, mu=100.0, b=1.0,
                       depth=1000) -> RetrievalResult:
    """Rank every document for each query by Eq. 12-13 and measure the rankings.

    Parameters
    ----------
    counts : scipy.sparse matrix of shape (n_documents, V)
        The documents up to the cutoff (all are scored; no pool).
    vocabulary : sequence of str
        The word of each column.
    queries : sequence of Query
        Their ``relevant`` arrays index these documents.
    doc_topic : array-like of shape (n_documents, Z), optional
        ``P(z | t, d)``, e.g. a model's ``predict_proba`` (DCT's Eq. 11).
    labels : array-like of int, shape (n_documents,), optional
        Hard clusters instead of ``doc_topic`` (one-hot ``P(z | t, d)``).
    topic_word : array-like of shape (Z, V), optional
        ``P(v | t, d, z)``; with ``labels`` and without it, estimated from the clusters'
        documents (:func:`cluster_word_distributions`).
    ages : array-like of shape (n_documents,), optional
        ``t - t_d`` in days.
    lam, mu, b : float
        Eq. 13's mixture, Dirichlet prior and recency base. ``lam = 0`` without clusters is
        plain query likelihood.
    depth : int, default=1000
        Documents ranked per query.

    Returns
    -------
    RetrievalResult
    """
    if labels is not None:
        if doc_topic is not None:
            raise DataError("give doc_topic or labels, not both")
        labels = np.asarray(labels)
        if topic_word is None:
            topic_word = cluster_word_distributions(counts, labels)
        doc_topic = one_hot(labels, np.asarray(topic_word).shape[0])
    collection = Collection(counts, vocabulary, doc_topic=doc_topic, topic_word=topic_word,
                            ages=ages)
    setting = Smoothing(lam, mu, b)
    table = grid_metrics(collection, queries, [setting], depth=depth)[0]
    per_query = {}
    for query, values in zip(queries, table):
        if np.isnan(values[0]):
            continue
        per_query[query.name] = {**dict(zip(RANKING_METRICS, map(float, values))),
                                 "n_relevant": int(np.count_nonzero(query.relevant)),
                                 "n_terms": int(collection.query_terms(query.tokens)[1].sum())}
    mean = {metric: (float(np.mean([row[metric] for row in per_query.values()]))
                     if per_query else float("nan")) for metric in RANKING_METRICS}
    return RetrievalResult(per_query=per_query, mean=mean, setting=setting)


def grid_metrics(collection, queries, smoothings, depth=1000) -> np.ndarray:
    """The ranking metrics of every query under every setting.

    Returns
    -------
    ndarray of shape (n_settings, n_queries, len(RANKING_METRICS))
        NaN for a query with no relevant document in the collection.
    """
    smoothings = list(smoothings)
    table = np.full((len(smoothings), len(queries), len(RANKING_METRICS)), np.nan)
    for q, query in enumerate(queries):
        relevant = _check_relevant(query, collection.n_documents)
        n_relevant = int(relevant.sum())
        if n_relevant == 0:
            continue
        scores = query_log_likelihood(collection, query.tokens, smoothings)
        for s, row in enumerate(scores):
            ranked = relevant[top_ranked(row, depth)]
            values = ranking_metrics(ranked, n_relevant, depth)
            table[s, q] = [values[m] for m in RANKING_METRICS]
    return table


@dataclass(frozen=True)
class TunedResult:
    """Test-set metrics of the 60/30/10 protocol (:func:`split_protocol`).

    Attributes
    ----------
    per_query : ndarray of shape (n_queries, n_metrics)
        Each query's test values, averaged over the repeats.
    mean : dict
        Metric -> mean over the queries.
    chosen : list of int
        The grid point chosen on each (repeat, fold), in order.
    tests : list of ndarray
        The test queries of each (repeat, fold), in the same order: the chosen setting's
        values of these queries make up ``per_query``.
    """

    per_query: np.ndarray
    mean: dict
    chosen: list
    tests: list = field(default_factory=list)


def split_protocol(table, *, select="map", n_repeats=10, seed=0, n_folds=10,
                   n_validation_folds=3) -> TunedResult:
    """Choose the setting on validation queries, measure it on test queries (section 5.3).

    Parameters
    ----------
    table : ndarray of shape (n_settings, n_queries, n_metrics)
        A query's values per setting (:func:`grid_metrics`, averaged over cutoffs). Every
        query must have values (no NaN at the first setting).
    select : str, default="map"
        The metric maximised on the validation queries (the paper does not name one).
    n_repeats : int, default=10
        Independent shuffles of the queries (the paper's 10 repetitions).
    seed : int, default=0
    n_folds, n_validation_folds : int
        10 and 3: test 10%, validation 30%, training 60% of the queries.

    Returns
    -------
    TunedResult
    """
    table = np.asarray(table, dtype=np.float64)
    if select not in RANKING_METRICS:
        raise ParameterError(f"select must be one of {', '.join(RANKING_METRICS)}, "
                             f"got {select!r}")
    n_queries = table.shape[1]
    if np.isnan(table[0]).any() or n_queries < n_folds:
        raise DataError(f"the protocol needs at least {n_folds} queries, each with relevant "
                        f"documents; got {n_queries}")
    key = RANKING_METRICS.index(select)
    rng = np.random.default_rng(seed)
    sums = np.zeros(table.shape[1:])
    chosen, tests = [], []
    for _ in range(n_repeats):
        folds = np.array_split(rng.permutation(n_queries), n_folds)
        for f, test in enumerate(folds):
            validation = np.concatenate([folds[(f + 1 + k) % n_folds]
                                         for k in range(n_validation_folds)])
            best = int(np.argmax(table[:, validation, key].mean(axis=1)))  # first of ties
            chosen.append(best)
            tests.append(test)
            sums[test] += table[best, test]
    per_query = sums / n_repeats
    return TunedResult(per_query=per_query,
                       mean=dict(zip(RANKING_METRICS, map(float, per_query.mean(axis=0)))),
                       chosen=chosen, tests=tests)


def cluster_word_distributions(counts, labels, n_clusters=None, beta=0.01) -> np.ndarray:
    """Each hard cluster's word distribution, ``(n_zv + beta) / (n_z + V beta)``.

    Parameters
    ----------
    counts : scipy.sparse matrix of shape (n_documents, V)
    labels : array-like of int, shape (n_documents,)
        Cluster of each document, in ``0..n_clusters-1``.
    n_clusters : int, optional
        Default ``labels.max() + 1``.
    beta : float, default=0.01
        Smoothing, so a cluster gives every word some probability.

    Returns
    -------
    ndarray of shape (n_clusters, V)

    Examples
    --------
    >>> cluster_word_distributions(np.array([[2, 0], [0, 1]]), [0, 1], beta=0.0).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    counts = _as_counts(counts)
    labels = _check_labels(labels, counts.shape[0])
    n_clusters = int(labels.max()) + 1 if n_clusters is None else int(n_clusters)
    membership = one_hot(labels, n_clusters)
    n_zv = np.asarray((sp.csr_matrix(membership.T) @ counts).todense(), dtype=np.float64)
    denominators = n_zv.sum(axis=1, keepdims=True) + counts.shape[1] * beta
    with np.errstate(invalid="ignore"):
        phi = (n_zv + beta) / denominators
    phi[~np.isfinite(phi).all(axis=1)] = 1.0 / counts.shape[1]  # an empty cluster, beta = 0
    return phi


def one_hot(labels, n_clusters) -> np.ndarray:
    """``P(z | d)`` of hard clusters: 1 for the document's cluster, 0 elsewhere."""
    labels = _check_labels(labels, None)
    if labels.size and labels.max() >= n_clusters:
        raise DataError(f"label {labels.max()} is outside the {n_clusters} clusters")
    matrix = np.zeros((labels.size, n_clusters))
    matrix[np.arange(labels.size), labels] = 1.0
    return matrix


def ages_in_days(times, now) -> np.ndarray:
    """``now - t_d`` in days: for ``datetime64`` times, or numbers already in days."""
    times = np.asarray(times)
    if np.issubdtype(times.dtype, np.datetime64):
        seconds = (np.datetime64(now, "s") - times.astype("datetime64[s]")).astype(np.float64)
        return seconds / _SECONDS_PER_DAY
    return float(now) - times.astype(np.float64)


# --- checks ----------------------------------------------------------------------------------

def _as_counts(counts) -> sp.csr_matrix:
    try:
        matrix = sp.csr_matrix(counts)
    except (TypeError, ValueError) as exc:
        raise DataError(f"counts must be a 2-D count matrix: {exc}") from None
    if matrix.nnz and matrix.data.min() < 0:
        raise DataError("counts have negative entries")
    return matrix


def _check_clusters(doc_topic, topic_word, n_docs, n_words):
    if doc_topic is None and topic_word is None:
        return None, None
    if doc_topic is None or topic_word is None:
        raise DataError("a cluster model needs both doc_topic and topic_word")
    doc_topic = np.asarray(doc_topic, dtype=np.float64)
    topic_word = np.asarray(topic_word, dtype=np.float64)
    if doc_topic.ndim != 2 or doc_topic.shape[0] != n_docs or topic_word.shape != (
            doc_topic.shape[1], n_words):
        raise DataError(f"doc_topic must be ({n_docs}, Z) and topic_word (Z, {n_words}), "
                        f"got {doc_topic.shape} and {topic_word.shape}")
    for name, values in (("doc_topic", doc_topic), ("topic_word", topic_word)):
        if not np.all(np.isfinite(values)) or (values.size and values.min() < 0):
            raise DataError(f"{name} has negative or non-finite entries")
        if values.size and np.abs(values.sum(axis=1) - 1.0).max() > 1e-6:
            raise DataError(f"the rows of {name} must sum to 1")
    return doc_topic, topic_word


def _check_ages(ages, n_docs) -> np.ndarray:
    if ages is None:
        return np.zeros(n_docs)
    ages = np.asarray(ages, dtype=np.float64)
    if ages.shape != (n_docs,) or not np.all(np.isfinite(ages)) or (
            ages.size and ages.min() < 0):
        raise DataError(f"ages must be {n_docs} finite values >= 0 (t - t_d in days): give "
                        "only documents up to the cutoff")
    return ages


def _check_labels(labels, n_docs) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 1 or (n_docs is not None and labels.size != n_docs):
        raise DataError(f"labels must be one cluster per document ({n_docs}), got shape "
                        f"{labels.shape}")
    if labels.size and (not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0):
        raise DataError("labels must be non-negative integers")
    return labels.astype(np.int64)


def _check_relevant(query, n_docs) -> np.ndarray:
    relevant = np.asarray(query.relevant)
    if relevant.dtype != bool or relevant.shape != (n_docs,):
        raise DataError(f"query {query.name!r}: relevant must be {n_docs} booleans, one per "
                        f"document, got {relevant.dtype} of shape {relevant.shape}")
    return relevant


def _check_lambdas(collection, smoothings):
    if not collection.has_clusters and any(s.lam > 0 for s in smoothings):
        raise ParameterError("lambda > 0 needs a cluster model: give doc_topic and "
                             "topic_word (or labels)")
