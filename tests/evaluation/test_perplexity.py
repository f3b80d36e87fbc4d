"""Next-batch perplexity: hand-computed values, generating vs uniform distributions, OOV rate,
and the topic_proportions_ / topic_word_ the stream models expose for it."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from shortclust.errors import DataError, ParameterError
from shortclust.evaluation.perplexity import (counts_and_oov, model_perplexity, perplexity,
                                              seen_words)
from shortclust.models.dmm.gsdmm import GSDMM
from shortclust.models.dmm.gsdpmm import GSDPMM
from shortclust.models.lda.lda import LDA

THETA = np.array([0.25, 0.75])
PHI = np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])
# d1: word 0 twice and word 2 once; d2: word 1 once.
COUNTS = sp.csr_matrix(np.array([[2, 0, 1], [0, 1, 0]]))


def test_document_estimator_equals_hand_computation():
    p_d1 = 0.25 * 0.5 ** 2 * 0.25 + 0.75 * 0.1 ** 2 * 0.8  # 0.021625
    p_d2 = 0.25 * 0.25 + 0.75 * 0.1  # 0.1375
    result = perplexity(THETA, PHI, COUNTS)
    assert result.log_likelihood == pytest.approx(math.log(p_d1) + math.log(p_d2))
    assert result.perplexity == pytest.approx(math.exp(-(math.log(p_d1) + math.log(p_d2)) / 4))
    assert (result.n_tokens, result.n_documents, result.n_oov_tokens) == (4, 2, 0)


def test_word_mixture_estimator_equals_hand_computation():
    post_d1 = np.array([0.25 * 0.5 ** 2 * 0.25, 0.75 * 0.1 ** 2 * 0.8])
    post_d1 /= post_d1.sum()
    post_d2 = np.array([0.25 * 0.25, 0.75 * 0.1])
    post_d2 /= post_d2.sum()
    expected = (2 * math.log(post_d1 @ PHI[:, 0]) + math.log(post_d1 @ PHI[:, 2])
                + math.log(post_d2 @ PHI[:, 1]))
    result = perplexity(THETA, PHI, COUNTS, estimator="word_mixture")
    assert result.log_likelihood == pytest.approx(expected)
    # Given p(z|d) explicitly (a model's Eq. 11), that is what is used.
    given = np.array([[1.0, 0.0], [0.0, 1.0]])
    explicit = perplexity(THETA, PHI, COUNTS, estimator="word_mixture", doc_topic=given)
    assert explicit.log_likelihood == pytest.approx(2 * math.log(0.5) + math.log(0.25)
                                                    + math.log(0.1))


def test_word_mixture_conditions_on_the_document_so_scores_higher():
    rng = np.random.default_rng(1)
    theta, phi, counts, _ = _synthetic(rng, n_docs=300)
    held_out = perplexity(theta, phi, counts).perplexity
    self_conditioned = perplexity(theta, phi, counts, estimator="word_mixture").perplexity
    assert self_conditioned < held_out


def _synthetic(rng, n_docs, n_topics=4, n_words=40, length=8):
    """One-topic-per-document data from known, well separated distributions."""
    theta = rng.dirichlet(np.full(n_topics, 5.0))
    phi = np.full((n_topics, n_words), 0.002)
    block = n_words // n_topics
    for z in range(n_topics):
        phi[z, z * block:(z + 1) * block] = 1.0
    phi /= phi.sum(axis=1, keepdims=True)
    topics = rng.choice(n_topics, size=n_docs, p=theta)
    rows = [rng.multinomial(length, phi[z]) for z in topics]
    return theta, phi, sp.csr_matrix(np.array(rows)), topics


def test_generating_distributions_beat_uniform_ones():
    rng = np.random.default_rng(0)
    theta, phi, counts, _ = _synthetic(rng, n_docs=200)
    z, v = phi.shape
    uniform = perplexity(np.full(z, 1 / z), np.full((z, v), 1 / v), counts)
    true = perplexity(theta, phi, counts)
    assert uniform.perplexity == pytest.approx(v)  # every token has probability 1/V
    assert true.perplexity < 0.5 * uniform.perplexity


def test_fitted_models_beat_uniform_on_the_next_batch():
    rng = np.random.default_rng(3)
    theta, phi, counts, _ = _synthetic(rng, n_docs=400)
    train, test = counts[:300], counts[300:]
    uniform = perplexity(np.full(4, 0.25), np.full((4, 40), 1 / 40), test).perplexity
    for model in (GSDMM(n_clusters=8, max_iter=20, random_state=0),
                  GSDPMM(max_iter=20, random_state=0),
                  LDA(n_clusters=4, alpha=0.1, max_iter=50, random_state=0)):
        model.fit(train)
        assert model_perplexity(model, test).perplexity < 0.6 * uniform, type(model).__name__


def test_oov_rate_is_exact_on_a_constructed_batch():
    vocabulary = ["flood", "rain", "river"]
    tokens = [["flood", "flood", "zzz"], ["rain", "qqq", "qqq", "river"], ["www"]]
    counts, oov = counts_and_oov(tokens, vocabulary)
    assert counts.toarray().tolist() == [[2, 0, 0], [0, 1, 1], [0, 0, 0]]
    assert oov.tolist() == [1, 2, 1]
    phi = np.full((1, 3), 1 / 3)
    result = perplexity([1.0], phi, counts, oov_tokens=oov)
    assert result.n_oov_tokens == 4 and result.n_tokens == 4
    assert result.oov_rate == 4 / 8
    assert result.n_documents == 2  # the third has no in-vocabulary token
    assert result.perplexity == pytest.approx(3.0)


def test_in_vocabulary_mask_moves_unseen_words_to_oov():
    seen = seen_words(sp.csr_matrix([[1, 0, 0]]), sp.csr_matrix([[0, 0, 3]]))
    assert seen.tolist() == [True, False, True]
    batch = sp.csr_matrix([[1, 2, 0], [0, 1, 1]])
    result = perplexity(THETA, PHI, batch, in_vocabulary=seen, oov_tokens=[1, 0])
    reduced = perplexity(THETA, PHI, sp.csr_matrix([[1, 0, 0], [0, 0, 1]]))
    assert result.log_likelihood == pytest.approx(reduced.log_likelihood)
    assert (result.n_tokens, result.n_oov_tokens) == (2, 4)
    assert result.oov_rate == pytest.approx(4 / 6)


def test_zero_probability_gives_infinite_perplexity():
    result = perplexity([1.0], [[1.0, 0.0]], sp.csr_matrix([[1, 1]]))
    assert math.isinf(result.perplexity)
    # A word the document lacks may have probability 0 without harm.
    assert perplexity([1.0], [[1.0, 0.0]], sp.csr_matrix([[2, 0]])).perplexity == 1.0


@pytest.mark.parametrize("arguments, error, words", [
    (([0.5, 0.6], PHI, COUNTS), DataError, "theta does not sum to 1"),
    ((THETA, [[0.5, 0.5], [0.5, 0.5]], COUNTS), DataError, "columns"),
    ((THETA, PHI * 2, COUNTS), DataError, "phi does not sum to 1"),
    ((THETA, PHI, sp.csr_matrix([[-1, 0, 0]])), DataError, "negative"),
    (([0.5], PHI, COUNTS), DataError, "shape"),
])
def test_bad_input_is_a_one_line_error(arguments, error, words):
    with pytest.raises(error, match=words) as info:
        perplexity(*arguments)
    assert "\n" not in str(info.value)


def test_bad_options_are_one_line_errors():
    with pytest.raises(ParameterError, match="estimator"):
        perplexity(THETA, PHI, COUNTS, estimator="tokens")
    with pytest.raises(DataError, match="in_vocabulary"):
        perplexity(THETA, PHI, COUNTS, in_vocabulary=[1, 0, 1])
    with pytest.raises(DataError, match="oov_tokens"):
        perplexity(THETA, PHI, COUNTS, oov_tokens=[1])
    with pytest.raises(DataError, match="fit it first"):
        model_perplexity(GSDMM(), COUNTS)


# --- the models' Theta and Phi -----------------------------------------------------------------

def test_dmm_models_expose_their_predictive_theta_and_phi():
    counts = sp.csr_matrix(np.array([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 3], [0, 0, 2, 1]]))
    for model, alpha in ((GSDMM(n_clusters=3, alpha=0.5, beta=0.2, max_iter=10,
                                random_state=0), 0.5),
                         (GSDPMM(alpha=0.5, beta=0.2, max_iter=10, random_state=0), 0.0)):
        model.fit(counts)
        sizes = model.cluster_sizes_.astype(float)
        assert np.allclose(model.topic_proportions_, (sizes + alpha) / (sizes + alpha).sum())
        n_zv = model.cluster_word_counts_.astype(float)
        assert np.allclose(model.topic_word_,
                           (n_zv + 0.2) / (n_zv.sum(axis=1, keepdims=True) + 4 * 0.2))
        assert model.topic_word_.shape == (model.n_clusters_, 4)
        assert np.allclose(model.topic_word_.sum(axis=1), 1.0)
        assert "topic_word_" not in model._fitted_attributes


def test_lda_exposes_theta_from_its_topic_totals():
    counts = sp.csr_matrix(np.array([[3, 2, 0, 0], [2, 3, 0, 0], [0, 0, 3, 2]]))
    model = LDA(n_clusters=3, alpha=0.4, max_iter=20, random_state=0).fit(counts)
    totals = model.topic_totals_.astype(float)
    assert np.allclose(model.topic_proportions_, (totals + 0.4) / (totals.sum() + 3 * 0.4))
    assert model.topic_proportions_.sum() == pytest.approx(1.0)
    model.partial_fit(sp.csr_matrix(np.array([[0, 0, 1, 4]])))
    assert model.topic_proportions_.sum() == pytest.approx(1.0)
