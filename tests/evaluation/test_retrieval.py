"""Cluster-based query likelihood (Eq. 12-13), ranking metrics against ir-measures
(trec_eval), and the 60/30/10 tuning protocol."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from shortclust.errors import DataError, ParameterError
from shortclust.evaluation.ranking import RANKING_METRICS, ranking_metrics, top_ranked
from shortclust.evaluation.retrieval import (Collection, Query, Smoothing, ages_in_days,
                                             cluster_word_distributions, evaluate_retrieval,
                                             grid_metrics, query_log_likelihood,
                                             split_protocol)

VOCABULARY = ["a", "b", "c"]
# d0 = "a a b", d1 = "b c", d2 = "c": every word occurs twice, P_ML(v | d_t) = 1/3.
COUNTS = sp.csr_matrix(np.array([[2, 1, 0], [0, 1, 1], [0, 0, 1]]))
PHI = np.array([[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]])


# --- Eq. 12-13 ---------------------------------------------------------------------------------

def test_plain_query_likelihood_equals_hand_computation():
    scores = query_log_likelihood(Collection(COUNTS, VOCABULARY), ["a"], Smoothing(0.0, 1.0))
    # N_d / (N_d + mu) P_ML(a | d) + mu / (N_d + mu) * 1/3, with mu = 1.
    expected = [3 / 4 * 2 / 3 + 1 / 4 / 3, 1 / 3 / 3, 1 / 2 / 3]
    assert np.allclose(scores[0], np.log(expected))


def test_cluster_mixture_and_repeated_query_words():
    collection = Collection(COUNTS, VOCABULARY, doc_topic=np.eye(2)[[0, 1, 1]], topic_word=PHI)
    scores = query_log_likelihood(collection, ["a", "c", "a"], Smoothing(0.5, 1.0))
    document = np.array([[3 / 4 * 2 / 3 + 1 / 12, 1 / 12],   # P(a | d), P(c | d), mu = 1
                         [1 / 9, 2 / 3 * 1 / 2 + 1 / 9],
                         [1 / 6, 1 / 2 + 1 / 6]])
    cluster = np.array([[0.6, 0.1], [0.1, 0.6], [0.1, 0.6]])
    p = 0.5 * cluster + 0.5 * document
    assert np.allclose(scores[0], 2 * np.log(p[:, 0]) + np.log(p[:, 1]))


def test_recency_decay_scales_only_the_document_estimate():
    collection = Collection(COUNTS, VOCABULARY, ages=[1.0, 0.0, 0.0])
    decayed = query_log_likelihood(collection, ["a"], Smoothing(0.0, 1.0, b=2.0))[0]
    assert decayed[0] == pytest.approx(math.log(3 / 4 * 2 / 3 / 2 + 1 / 12))
    assert decayed[2] == pytest.approx(math.log(1 / 6))  # age 0: no decay


def test_words_missing_from_the_collection_are_dropped():
    collection = Collection(COUNTS, VOCABULARY)
    with_unknown = query_log_likelihood(collection, ["a", "zzz"], Smoothing(0.0, 1.0))
    assert np.allclose(with_unknown, query_log_likelihood(collection, ["a"], Smoothing(0, 1)))
    assert np.all(query_log_likelihood(collection, ["zzz"], Smoothing()) == 0.0)


def test_lambda_without_clusters_is_refused():
    with pytest.raises(ParameterError, match="cluster model"):
        query_log_likelihood(Collection(COUNTS, VOCABULARY), ["a"], Smoothing(0.5))
    with pytest.raises(ParameterError, match="lambda"):
        Smoothing(lam=1.5)
    with pytest.raises(DataError, match="rows of topic_word"):
        Collection(COUNTS, VOCABULARY, doc_topic=np.eye(2)[[0, 1, 1]], topic_word=PHI * 2)
    with pytest.raises(DataError, match="ages"):
        Collection(COUNTS, VOCABULARY, ages=[-1.0, 0.0, 0.0])


def test_ages_in_days_from_datetimes():
    times = np.array(["2013-01-01T00:00:00", "2013-01-02T12:00:00"], dtype="datetime64[s]")
    assert ages_in_days(times, np.datetime64("2013-01-03T00:00:00")).tolist() == [2.0, 0.5]


# --- ranking metrics ---------------------------------------------------------------------------

def test_top_ranked_orders_by_score_then_position():
    assert top_ranked(np.array([1.0, 3.0, 3.0, -np.inf, 2.0]), depth=3).tolist() == [1, 2, 4]
    scores = np.random.default_rng(0).integers(0, 5, size=3000).astype(float)
    assert top_ranked(scores, 1000).tolist() == np.lexsort((np.arange(3000), -scores))[:1000].tolist()


def test_metrics_hand_computed():
    ranked = [True, False, True, False, False]
    values = ranking_metrics(ranked, n_relevant=3)
    assert values["map"] == pytest.approx((1 + 2 / 3) / 3)
    assert values["ndcg"] == pytest.approx((1 + 1 / math.log2(4)) /
                                           (1 + 1 / math.log2(3) + 1 / math.log2(4)))
    assert values["rprec"] == pytest.approx(2 / 3)
    assert values["recall"] == pytest.approx(2 / 3)
    assert values["p30"] == pytest.approx(2 / 30)
    with pytest.raises(DataError, match="n_relevant"):
        ranking_metrics(ranked, n_relevant=1)


def test_metrics_equal_trec_eval_through_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP, P, R, Rprec, nDCG

    measures = {"ndcg": nDCG @ 1000, "map": AP @ 1000, "recall": R @ 1000, "rprec": Rprec,
                "p30": P @ 30}
    rng = np.random.default_rng(7)
    qrels, run, ours = [], [], {}
    for q in range(40):
        n_docs = int(rng.integers(50, 3000))
        relevant = rng.random(n_docs) < rng.uniform(0.01, 0.6)
        relevant[rng.integers(n_docs)] = True
        scores = rng.normal(size=n_docs) + 1.5 * relevant * rng.random()
        top = top_ranked(scores, 1000)
        ours[str(q)] = ranking_metrics(relevant[top], int(relevant.sum()))
        qrels += [ir_measures.Qrel(str(q), str(d), 1) for d in np.flatnonzero(relevant)]
        qrels += [ir_measures.Qrel(str(q), str(d), 0) for d in np.flatnonzero(~relevant)[:20]]
        run += [ir_measures.ScoredDoc(str(q), str(d), float(-rank))
                for rank, d in enumerate(top)]
    compared = 0
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        name = next(k for k, m in measures.items() if m == metric.measure)
        assert ours[metric.query_id][name] == pytest.approx(metric.value, abs=1e-9), name
        compared += 1
    assert compared == 40 * len(measures)


# --- evaluation and tuning ---------------------------------------------------------------------

def _topical_collection(rng, n_topics=5, per_topic=60, n_words=50, length=8, shared=0.6):
    """Documents whose own words are few: half of each is drawn from words all topics share,
    so a document often lacks its topic's query word and only its cluster can find it."""
    phi = np.zeros((n_topics, n_words))
    block = (n_words - 10) // n_topics
    for z in range(n_topics):
        phi[z, z * block:(z + 1) * block] = (1 - shared) / block
        phi[z, -10:] = shared / 10
    labels = np.repeat(np.arange(n_topics), per_topic)
    counts = sp.csr_matrix(np.array([rng.multinomial(length, phi[z]) for z in labels]))
    vocabulary = [f"w{i}" for i in range(n_words)]
    queries = [Query(f"topic{z}", (f"w{z * block}", f"w{z * block + 1}"), labels == z)
               for z in range(n_topics)]
    return counts, vocabulary, labels, queries


def test_true_clusters_beat_plain_likelihood_which_beats_random_clusters():
    rng = np.random.default_rng(0)
    counts, vocabulary, labels, queries = _topical_collection(rng)
    plain = evaluate_retrieval(counts, vocabulary, queries, mu=10.0)
    perfect = evaluate_retrieval(counts, vocabulary, queries, labels=labels, lam=0.5, mu=10.0)
    random = evaluate_retrieval(counts, vocabulary, queries, labels=rng.permutation(labels),
                                lam=0.5, mu=10.0)
    assert perfect.mean["map"] > plain.mean["map"] + 0.2
    assert random.mean["map"] < plain.mean["map"]
    assert set(perfect.per_query) == {q.name for q in queries}
    assert perfect.per_query["topic0"]["n_relevant"] == 60


def test_evaluate_retrieval_equals_grid_metrics_and_skips_queries_without_relevant():
    rng = np.random.default_rng(1)
    counts, vocabulary, labels, queries = _topical_collection(rng)
    empty = Query("nothing", ("w0",), np.zeros(counts.shape[0], dtype=bool))
    result = evaluate_retrieval(counts, vocabulary, queries + [empty], labels=labels, lam=0.3)
    table = grid_metrics(Collection(counts, vocabulary, doc_topic=np.eye(5)[labels],
                                    topic_word=cluster_word_distributions(counts, labels)),
                         queries, [Smoothing(0.3)])
    assert "nothing" not in result.per_query
    assert result.mean["map"] == pytest.approx(table[0, :, RANKING_METRICS.index("map")].mean())


def test_split_protocol_picks_on_validation_and_scores_on_test():
    n_queries = 20
    table = np.zeros((3, n_queries, len(RANKING_METRICS)))
    table[1] = 0.8  # setting 1 is best for every query
    table[2, :, :] = 0.5
    result = split_protocol(table, n_repeats=3, seed=0)
    assert set(result.chosen) == {1} and len(result.chosen) == 30
    assert result.mean["map"] == pytest.approx(0.8)
    # A setting good only on some queries is judged on the others: the test values are
    # those of the setting chosen without them.
    table = np.zeros((2, n_queries, len(RANKING_METRICS)))
    table[0, :10] = 1.0
    table[1, 10:] = 1.0
    tuned = split_protocol(table, n_repeats=5, seed=1)
    assert 0.0 < tuned.mean["map"] < 1.0
    with pytest.raises(DataError, match="at least 10 queries"):
        split_protocol(table[:, :5])
