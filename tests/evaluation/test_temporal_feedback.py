"""TMS's temporal feedback (Efron et al., SIGIR 2014): the kernel density of the feedback set."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm

from shortclust.errors import ParameterError
from shortclust.evaluation.ranking import RANKING_METRICS
from shortclust.evaluation.retrieval import Collection, Query, Smoothing, grid_metrics, \
    query_log_likelihood
from shortclust.evaluation.temporal_feedback import (MIN_BANDWIDTH_DAYS,
                                                     feedback_log_density)
from tests.evaluation.test_retrieval import COUNTS, VOCABULARY


def test_density_equals_a_hand_computed_weighted_gaussian_mixture():
    scores = np.array([-1.0, -2.0, -3.0, -40.0, -np.inf])
    times = np.array([0.0, 1.0, 3.0, 2.0, 5.0])
    log_f = feedback_log_density(scores, times, k=3)
    top = [0, 1, 2]
    w = np.exp(scores[top]) / np.exp(scores[top]).sum()
    mean = np.dot(w, times[top])
    h = 1.06 * math.sqrt(np.dot(w, (times[top] - mean) ** 2)) * 3 ** -0.2
    expected = np.log([np.dot(w, norm.pdf(t, times[top], h)) for t in times])
    np.testing.assert_allclose(log_f, expected, rtol=1e-10)


def test_documents_near_the_feedback_times_score_higher_and_far_ones_stay_finite():
    times = np.concatenate([np.linspace(10, 10.2, 20), np.linspace(0, 30, 200)])
    scores = np.concatenate([np.zeros(20), np.full(200, -30.0)])
    log_f = feedback_log_density(scores, times, k=20)
    assert np.all(np.isfinite(log_f))
    near, far = np.abs(times - 10.1) < 0.1, np.abs(times - 10.1) > 5
    assert log_f[near].min() > log_f[far].max()


def test_one_instant_uses_the_minimum_bandwidth_and_no_score_gives_no_evidence():
    times = np.array([1.0, 1.0, 2.0])
    log_f = feedback_log_density(np.array([0.0, 0.0, -np.inf]), times, k=2)
    peak = -math.log(MIN_BANDWIDTH_DAYS * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(log_f[:2], peak)
    np.testing.assert_array_equal(feedback_log_density(np.full(3, -np.inf), times), 0.0)


def test_tms_adds_gamma_times_the_feedback_density_to_query_likelihood():
    collection = Collection(COUNTS, VOCABULARY, ages=[3.0, 1.0, 0.0])
    plain = query_log_likelihood(collection, ["a", "b"], Smoothing(0.0, 1.0))[0]
    both = query_log_likelihood(collection, ["a", "b"],
                                [Smoothing(0.0, 1.0), Smoothing(0.0, 1.0, gamma=0.5)])
    np.testing.assert_array_equal(both[0], plain)
    np.testing.assert_allclose(both[1], plain + 0.5 * feedback_log_density(
        plain, -np.array([3.0, 1.0, 0.0])))
    with pytest.raises(ParameterError, match="gamma"):
        Smoothing(gamma=-1.0)


def test_tms_ranks_the_relevant_burst_above_lexically_equal_documents():
    # 60 documents holding the query word once: the 20 relevant ones written within a day
    # (and 5 of them twice as often, so they lead the initial ranking), the others spread
    # over 60 days. Query likelihood cannot tell the other relevant ones from the rest;
    # their time can.
    rng = np.random.default_rng(0)
    n = 60
    relevant = np.zeros(n, dtype=bool)
    relevant[rng.choice(n, 20, replace=False)] = True
    times = np.where(relevant, 30 + rng.random(n), rng.random(n) * 60)
    order = np.argsort(times)
    relevant, times = relevant[order], times[order]
    counts = np.zeros((n, 2), dtype=np.int64)
    counts[:, 0] = 1
    counts[:, 1] = 3  # filler
    counts[np.flatnonzero(relevant)[:5], 0] = 2
    query = Query("q", ("a",), relevant)
    ages = times.max() - times
    table = grid_metrics(Collection(sp.csr_matrix(counts), ["a", "z"], ages=ages), [query],
                         [Smoothing(0.0, 10.0), Smoothing(0.0, 10.0, gamma=1.0)])
    lm_map, tms_map = table[:, 0, RANKING_METRICS.index("map")]
    assert tms_map > lm_map + 0.2
