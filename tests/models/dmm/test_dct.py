"""DCT (Liang, Yilmaz & Kanoulas, KDD 2016): the conditional, the posterior, the fixed point,
the compiled kernels against the slow reference, and the model on synthetic streams."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.special import gammaln
from sklearn.metrics import normalized_mutual_info_score

from tests.naive import dct as naive
from shortclust.errors import ParameterError
from shortclust.models.dmm import _dct_kernels as kernels
from shortclust.models.dmm._common import doc_arrays, zero_stats
from shortclust.models.dmm.dct import DCT
from shortclust.models.dmm.gsdmm import GSDMM
from shortclust.papers.dct.synthetic import dct_stream


def random_counts(rng, n_docs, n_words, mean_length=4.0):
    """Random short documents (at least one token each) as CSR counts."""
    dense = rng.poisson(mean_length / n_words, size=(n_docs, n_words))
    dense[dense.sum(axis=1) == 0, 0] = 1
    return sp.csr_matrix(dense)


def random_past(rng, lags, n_topics, n_words):
    """A non-uniform history: theta (L, Z) and word-major phi (L, V, Z), each a distribution."""
    theta = rng.dirichlet(np.ones(n_topics), size=lags)
    phi = rng.dirichlet(np.ones(n_words), size=(lags, n_topics)).transpose(0, 2, 1).copy()
    return theta, phi


def appendix_a_log_joint(z, docs, alpha, beta, theta, phi):
    """log P(d_t, z_t | past, alpha_t, beta_t), the last line of Appendix A, written out.

    ``docs``: dense (n_docs, V) counts; ``alpha`` (Z, L), ``beta`` (L, V), ``theta``
    (L, Z), ``phi`` (L, V, Z).
    """
    n_topics = theta.shape[1]
    a = np.array([sum(alpha[k, l] * theta[l, k] for l in range(theta.shape[0]))
                  for k in range(n_topics)])
    b = np.einsum("lv,lvz->zv", beta, phi)
    m = np.bincount(z, minlength=n_topics)
    n_zv = np.zeros((n_topics, docs.shape[1]))
    for d, k in enumerate(z):
        n_zv[k] += docs[d]
    log_p = gammaln(a.sum()) - gammaln(m.sum() + a.sum()) + np.sum(gammaln(m + a) - gammaln(a))
    for k in range(n_topics):
        log_p += gammaln(b[k].sum()) - gammaln(n_zv[k].sum() + b[k].sum())
        log_p += np.sum(gammaln(n_zv[k] + b[k]) - gammaln(b[k]))
    return log_p


def kernel_prior(alpha, beta, theta, phi):
    return (kernels.topic_prior(alpha, theta), beta, phi,
            kernels.word_prior_total(beta, phi))


# --- Eq. 5 / Eq. 8 against Appendix A -----------------------------------------------------------

@pytest.mark.parametrize("lags", [1, 2])
def test_eq5_is_the_ratio_of_appendix_a_joints_by_enumeration(lags):
    rng = np.random.default_rng(lags)
    docs = np.array([[2, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 3]])  # Z = 2, V = 4, 3 documents
    theta, phi = random_past(rng, lags, 2, 4)
    alpha, beta = rng.uniform(0.5, 3.0, size=(2, lags)), rng.uniform(1.0, 6.0, size=(lags, 4))
    prior = kernel_prior(alpha, beta, theta, phi)
    csr = doc_arrays(sp.csr_matrix(docs))
    for assignment in itertools.product(range(2), repeat=3):
        z = np.array(assignment, dtype=np.int32)
        for d in range(3):
            joints = []
            for k in range(2):
                z_k = z.copy()
                z_k[d] = k
                joints.append(appendix_a_log_joint(z_k, docs, alpha, beta, theta, phi))
            expected = np.exp(np.array(joints) - np.logaddexp(*joints))
            stats = zero_stats(4, 2, np.int32)
            kernels.build_counts(csr, z, stats)
            kernels.move_document(d, csr, z[d], -1, stats)
            log_w = np.empty(2)
            kernels.log_weights(d, csr, stats, prior, log_w, np.empty((2, 2)))
            np.testing.assert_allclose(np.exp(log_w - np.logaddexp(*log_w)), expected,
                                       rtol=1e-10)


def test_the_kernels_joint_is_appendix_a():
    rng = np.random.default_rng(5)
    docs = rng.poisson(1.0, size=(6, 5))
    theta, phi = random_past(rng, 3, 3, 5)
    alpha, beta = rng.uniform(0.5, 3.0, size=(3, 3)), rng.uniform(1.0, 6.0, size=(3, 5))
    z = rng.integers(0, 3, size=6).astype(np.int32)
    stats = zero_stats(5, 3, np.int32)
    kernels.build_counts(doc_arrays(sp.csr_matrix(docs)), z, stats)
    assert kernels.log_joint(alpha, beta, theta, phi, stats[0], stats[2]) == pytest.approx(
        appendix_a_log_joint(z, docs, alpha, beta, theta, phi), rel=1e-12)


# --- Eq. 9-10 ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lags", [1, 2])
def test_with_fixed_assignments_theta_and_phi_are_the_conjugate_posterior_means(lags):
    rng = np.random.default_rng(11)
    n_topics, n_words, alpha, beta = 3, 6, 4.0, 9.0
    model = DCT(n_clusters=n_topics, dependency_length=lags, alpha=alpha, beta=beta,
                fixed_point_iter=0, random_state=0)
    model._start(n_words, None)
    theta_prior = np.full((lags, n_topics), 1.0 / n_topics)
    phi_prior = np.full((lags, n_topics, n_words), 1.0 / n_words)
    for _ in range(3):  # the third step's prior weighs two non-uniform past steps
        counts = random_counts(rng, 8, n_words)
        z = rng.integers(0, n_topics, size=8)
        model._run_step(counts, None, z=z, n_sweeps=0)
        dense = counts.toarray()
        m = np.bincount(z, minlength=n_topics)
        n_zv = np.array([dense[z == k].sum(axis=0) for k in range(n_topics)])
        a = alpha / lags * theta_prior.sum(axis=0)  # alpha_{t,z,l} = alpha / L
        b = beta / lags * phi_prior.sum(axis=0)
        theta = (m + a) / (m.sum() + a.sum())
        phi = (n_zv + b) / (n_zv.sum(axis=1, keepdims=True) + b.sum(axis=1, keepdims=True))
        np.testing.assert_allclose(model.topic_proportions_, theta, rtol=1e-12)
        np.testing.assert_allclose(model.topic_word_, phi, rtol=1e-12)
        theta_prior = np.concatenate([theta[None], theta_prior[:-1]])
        phi_prior = np.concatenate([phi[None], phi_prior[:-1]])
    assert model.topic_word_.shape == (n_topics, n_words)
    np.testing.assert_allclose(model.topic_word_.sum(axis=1), 1.0)


# --- the fixed point (Appendix B) -----------------------------------------------------------------

@pytest.mark.parametrize("lags, floor, shared_alpha, topic_beta", [
    (1, 0.0, False, False), (3, 0.0, False, False), (2, 0.8, False, False),
    (1, 0.0, True, True), (3, 0.0, True, True), (2, 0.8, True, False), (2, 0.0, False, True)])
def test_no_fixed_point_step_lowers_the_joint(lags, floor, shared_alpha, topic_beta):
    rng = np.random.default_rng(lags)
    n_topics, n_words = 4, 7
    counts = random_counts(rng, 30, n_words, mean_length=5.0)
    z = rng.integers(0, n_topics, size=30).astype(np.int32)
    z[:n_topics] = np.arange(n_topics)  # every topic holds a document
    theta, phi = random_past(rng, lags, n_topics, n_words)
    alpha = rng.uniform(0.5, 50.0, size=(n_topics, lags))
    if shared_alpha:
        alpha = np.repeat(alpha[:1], n_topics, axis=0)
    beta = rng.uniform(0.5, 50.0, size=(lags, n_topics if topic_beta else n_words))
    alpha_floor, beta_floor = floor * alpha, floor * beta
    docs = doc_arrays(counts)
    m_z, n_z, n_wz = stats = zero_stats(n_words, n_topics, np.int32)
    kernels.build_counts(docs, z, stats)
    pairs = np.nonzero(n_wz)

    def joint():
        if topic_beta:  # per-topic precisions enter the joint folded into the past
            scaled = kernels.topic_scaled_history(beta, phi)
            return kernels.log_joint(alpha, np.ones((lags, n_words)), theta, scaled, m_z, n_wz)
        return kernels.log_joint(alpha, beta, theta, phi, m_z, n_wz)

    joints = [joint()]
    for _ in range(25):
        alpha = kernels.update_alpha(alpha, theta, m_z, alpha_floor, shared_alpha)
        if topic_beta:
            beta = kernels.update_topic_beta(beta, phi, n_wz, n_z, pairs, beta_floor)
        else:
            beta = kernels.update_beta(beta, phi, n_wz, n_z, pairs, beta_floor)
        joints.append(joint())
    steps = np.diff(joints)
    assert np.all(steps >= -1e-9 * abs(joints[0])), steps
    assert joints[-1] > joints[0] + 1e-3  # the precisions did move


def test_per_topic_alphas_fit_the_steps_own_proportions_and_a_shared_alpha_does_not():
    # Why topic_precision exists: with one alpha_{t,z} per topic (Eq. 3, Appendix B) the
    # joint of one step's topic counts has no finite maximum (the weights a_z grow in
    # proportion to m_z), so Theta_t is pulled to the step's own proportions; one shared
    # alpha_t settles at a finite value and keeps part of Theta_{t-1}.
    theta = np.array([[0.4, 0.3, 0.2, 0.1]])
    m_z = np.array([5.0, 10.0, 20.0, 25.0])
    own = m_z / m_z.sum()
    for shared in (False, True):
        alphas = [np.full((4, 1), 20.0)]
        for _ in range(200):
            alphas.append(kernels.update_alpha(alphas[-1], theta, m_z, np.zeros((4, 1)), shared))
        a = kernels.topic_prior(alphas[-1], theta)
        distance = np.abs((m_z + a) / (m_z.sum() + a.sum()) - own).sum()
        if shared:
            np.testing.assert_allclose(alphas[-1], alphas[100], rtol=1e-3)  # converged
            assert np.all(alphas[-1] == alphas[-1][0]) and distance > 0.04
        else:
            assert np.all(alphas[-1] > 2.0 * alphas[50]) and distance < 0.005


def test_an_empty_topic_and_an_absent_word_fall_to_their_floors():
    counts = sp.csr_matrix(np.array([[1, 1, 0], [2, 1, 0]]))
    theta = np.array([[0.5, 0.5]])
    phi = np.full((1, 3, 2), 1.0 / 3)
    m_z, n_z, n_wz = stats = zero_stats(3, 2, np.int32)
    kernels.build_counts(doc_arrays(counts), np.zeros(2, dtype=np.int32), stats)
    alpha = kernels.update_alpha(np.full((2, 1), 4.0), theta, m_z, np.full((2, 1), 0.04))
    beta = kernels.update_beta(np.full((1, 3), 6.0), phi, n_wz, n_z, np.nonzero(n_wz),
                               np.full((1, 3), 0.06))
    assert alpha[1, 0] == 0.04 and alpha[0, 0] > 0.04  # topic 1 holds no document
    assert beta[0, 2] == 0.06 and beta[0, 0] > 0.06  # word 2 is in no document


# --- the compiled kernels against the slow reference -----------------------------------------

def naive_and_model(batches, threads=1, **params):
    """DCT fitted on the stream's batches, and the slow reference's labels, Theta and Phi."""
    model = DCT(threads=threads, **params)
    for batch in batches:
        model.partial_fit(batch)
    expected = naive.dct_stream(batches, params["n_clusters"], params["dependency_length"],
                                params["alpha"], params["beta"], params["max_iter"],
                                params["fixed_point_iter"], params["precision_floor"],
                                params["random_state"],
                                params.get("topic_precision") == "shared",
                                params.get("word_precision") == "topic", threads=threads)
    return model, expected


@pytest.mark.kernels
@pytest.mark.parametrize("lags, fixed_point_iter, seed, topic_precision, word_precision", [
    (1, 1, 0, "topic", "word"), (1, 0, 1, "topic", "word"), (3, 2, 2, "topic", "word"),
    (1, 1, 3, "shared", "topic"), (2, 2, 4, "shared", "word"), (3, 1, 5, "topic", "topic")])
def test_the_kernels_give_the_references_labels_and_posterior(lags, fixed_point_iter, seed,
                                                              topic_precision, word_precision):
    rng = np.random.default_rng(100 + seed)
    batches = [random_counts(rng, 12, 15) for _ in range(3)]
    model, (labels, theta, phi) = naive_and_model(
        batches, n_clusters=5, dependency_length=lags, alpha=3.0, beta=7.0, max_iter=4,
        fixed_point_iter=fixed_point_iter, precision_floor=0.05, random_state=seed,
        topic_precision=topic_precision, word_precision=word_precision)
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_allclose(model.topic_proportions_, theta, rtol=1e-9)
    np.testing.assert_allclose(model.topic_word_, phi, rtol=1e-9)


@pytest.mark.kernels
def test_long_documents_fold_their_blocks_of_tokens_exactly():
    rng = np.random.default_rng(7)
    batches = [random_counts(rng, 8, 10, mean_length=30.0) for _ in range(2)]  # > _BLOCK tokens
    assert batches[0].sum(axis=1).max() > 3 * kernels._BLOCK
    model, (labels, _, phi) = naive_and_model(
        batches, n_clusters=4, dependency_length=2, alpha=2.0, beta=5.0, max_iter=3,
        fixed_point_iter=1, precision_floor=0.1, random_state=3)
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_allclose(model.topic_word_, phi, rtol=1e-9)


# --- short-term is L = 1 --------------------------------------------------------------------

def test_long_term_model_with_identical_past_steps_is_the_short_term_model():
    # Before the second step, L = 2 sees time 0 twice, so Eq. 6-8 reduce to Eq. 3-5; the
    # numbers are powers of two, so halving the precisions over two lags is exact.
    rng = np.random.default_rng(0)
    batch = random_counts(rng, 40, 8)
    params = dict(n_clusters=4, alpha=8.0, beta=16.0, max_iter=6, random_state=2)
    short = DCT(dependency_length=1, **params).partial_fit(batch)
    long = DCT(dependency_length=2, **params).partial_fit(batch)
    np.testing.assert_array_equal(long.labels_, short.labels_)
    np.testing.assert_array_equal(long.topic_word_, short.topic_word_)
    np.testing.assert_array_equal(long.alpha_.sum(axis=1), short.alpha_[:, 0])
    # From the next step on they differ: L = 2 also weighs time 0.
    short.partial_fit(batch)
    long.partial_fit(batch)
    assert not np.allclose(long.topic_word_, short.topic_word_)


# --- a stream generated as DCT assumes ------------------------------------------------------

# dct_stream (the package's generator) draws the held-out stream table's synthetic stream too.

def proportion_error(true_theta, true_labels, estimated_theta, estimated_labels):
    """L1 distance between the true Theta_t and the estimate, topics matched by the
    step's documents (Hungarian assignment on the confusion counts)."""
    n = max(len(true_theta), len(estimated_theta))
    confusion = np.zeros((n, n))
    np.add.at(confusion, (true_labels, estimated_labels), 1)
    rows, cols = linear_sum_assignment(-confusion)
    padded = np.zeros(n)
    padded[:len(estimated_theta)] = estimated_theta
    matched = np.zeros(n)
    matched[rows] = padded[cols]
    return np.abs(matched[:len(true_theta)] - true_theta).sum()


def static_dmm(batch, seed):
    """GSDMM fitted on one step alone, and its smoothed cluster proportions."""
    static = GSDMM(n_clusters=5, alpha=1.0, beta=0.1, max_iter=20, random_state=seed).fit(batch)
    sizes = np.bincount(static.labels_, minlength=5).astype(float)
    return static.labels_, (sizes + 1.0) / (sizes.sum() + 5.0)


@pytest.mark.parametrize("precisions", [
    # The paper's update rules with the precisions held at alpha = 50: with the fixed point
    # on, the per-topic alpha_{t,z} fit the step's counts and Theta_t nears their
    # proportions (the test above), so no better than a static DMM's.
    dict(fixed_point_iter=0),
    # The topic-tracking reading (one alpha_t, one beta_{t,z} per topic) with the fixed
    # point on: it estimates how persistent the proportions are.
    dict(fixed_point_iter=1, topic_precision="shared", word_precision="topic")])
def test_dct_tracks_the_topic_proportions_of_a_dct_stream_better_than_a_static_dmm(precisions):
    # Few documents per step and slowly drifting proportions: the previous step's Theta
    # is worth as much as the step's own counts.
    dct_error, dmm_error = [], []
    for seed in range(3):
        batches, labels, thetas = dct_stream(seed, docs_per_step=20, persistence=(200.0, 300.0))
        model = DCT(n_clusters=5, alpha=50.0, beta=12.0, max_iter=20, random_state=seed,
                    **precisions)
        for batch, truth, theta in zip(batches, labels, thetas):
            model.partial_fit(batch)
            dct_error.append(proportion_error(theta, truth, model.topic_proportions_,
                                              model.step_labels_))
            static_labels, proportions = static_dmm(batch, seed)
            dmm_error.append(proportion_error(theta, truth, proportions, static_labels))
    assert np.mean(dct_error) < 0.9 * np.mean(dmm_error)


def test_dct_clusters_a_dct_stream_better_than_a_static_dmm():
    dct_nmi, dmm_nmi = [], []
    for seed in range(3):
        batches, labels, _ = dct_stream(seed)
        # The paper's fixed point nearly unbounded (the default floor is set for MStream).
        model = DCT(n_clusters=5, alpha=5.0, beta=12.0, max_iter=20, precision_floor=0.01,
                    random_state=seed)
        for batch, truth in zip(batches, labels):
            dct_nmi.append(normalized_mutual_info_score(
                truth, model.partial_fit(batch).step_labels_))
            dmm_nmi.append(normalized_mutual_info_score(truth, static_dmm(batch, seed)[0]))
    assert np.mean(dct_nmi) > np.mean(dmm_nmi)


@pytest.mark.parametrize("precisions", [
    dict(fixed_point_iter=0), dict(fixed_point_iter=1),
    dict(fixed_point_iter=1, topic_precision="shared", word_precision="topic")])
def test_a_large_beta_does_not_collapse_the_topics_once_they_have_taken_shape(precisions):
    # After time 1, beta_t weighs phi_{t-1,z}, which differs from topic to topic: a large
    # precision holds each topic to its past words instead of smoothing all topics alike.
    # At time 1 phi_0 is uniform, DCT is GSDMM with beta / V per word, and so strong a
    # prior merges everything; the fixed point does not undo it (Minka's step moves a
    # huge precision by a tiny factor, and once every document shares one topic that
    # state holds even with the precisions at their floor).
    batches, labels, _ = dct_stream(4)
    params = dict(n_clusters=5, alpha=5.0, max_iter=20, random_state=0, **precisions)
    model = DCT(beta=12.0, **params).partial_fit(batches[0]).set_params(beta=1e5)
    for batch, truth in zip(batches[1:], labels[1:]):
        found = model.partial_fit(batch).step_labels_
        assert np.unique(found).size == np.unique(truth).size > 1
    later = np.concatenate(labels[1:])
    assert normalized_mutual_info_score(later, model.labels_[len(labels[0]):]) > 0.9
    collapsed = DCT(beta=1e5, **params).partial_fit(batches[0])
    assert np.unique(collapsed.step_labels_).size == 1 < np.unique(labels[0]).size


def test_the_fixed_point_undoes_a_too_large_initial_beta_at_the_first_step():
    # beta / V = 1 per word, ten times GSDMM's 0.1: held there (or in GSDMM) it merges
    # topics at time 1, where the prior is uniform; the Appendix B update lowers it during
    # the step and the topics stay apart. (Thousands of times larger, as in the test above,
    # is beyond what the fixed point moves in one step.)
    n_words = 120
    found = {"fixed": [], "updated": [], "gsdmm": []}
    nmi = {"fixed": [], "updated": []}
    for seed in range(3):
        batches, labels, _ = dct_stream(seed)
        for name, fixed_point_iter in (("fixed", 0), ("updated", 1)):
            model = DCT(n_clusters=5, alpha=5.0, beta=1.0 * n_words, max_iter=20,
                        fixed_point_iter=fixed_point_iter, random_state=seed)
            step = model.partial_fit(batches[0]).step_labels_
            found[name].append(np.unique(step).size)
            nmi[name].append(normalized_mutual_info_score(labels[0], step))
        gsdmm = GSDMM(n_clusters=5, alpha=1.0, beta=1.0, max_iter=20, random_state=seed)
        found["gsdmm"].append(np.unique(gsdmm.fit(batches[0]).labels_).size)
    assert min(found["updated"]) > max(found["fixed"]) and min(found["updated"]) > 1
    assert min(found["updated"]) > max(found["gsdmm"])
    assert np.mean(nmi["updated"]) > 0.9 > np.mean(nmi["fixed"])


def test_long_term_dct_runs_on_the_stream():
    batches, labels, _ = dct_stream(1)
    model = DCT(n_clusters=5, dependency_length=3, alpha=5.0, beta=12.0, max_iter=10,
                random_state=0)
    for batch in batches:
        model.partial_fit(batch)
    assert model.proportions_history_.shape == (3, 5)
    assert model.topic_word_history_.shape == (3, 5, 120)
    assert normalized_mutual_info_score(np.concatenate(labels), model.labels_) > 0.5


# --- fit over time steps ----------------------------------------------------------------------

def test_fit_with_steps_is_partial_fit_per_step_in_the_rows_order():
    batches, _, _ = dct_stream(2, n_steps=3)
    stacked = sp.vstack(batches).tocsr()
    steps = np.repeat([5, 7, 9], 40)
    shuffle = np.random.default_rng(0).permutation(stacked.shape[0])
    params = dict(n_clusters=5, alpha=5.0, beta=12.0, max_iter=5, random_state=1)
    streamed = DCT(**params)
    for batch in batches:
        streamed.partial_fit(batch)
    fitted = DCT(**params).fit(stacked[shuffle], steps=steps[shuffle])
    # Within a step the rows keep their given order, so shuffle only across steps' rows.
    order = np.argsort(steps[shuffle], kind="stable")
    refit = DCT(**params).fit(stacked[shuffle][order], steps=steps[shuffle][order])
    np.testing.assert_array_equal(fitted.labels_[order], refit.labels_)
    assert fitted.n_steps_ == 3 and fitted.n_iter_ == 15
    one = DCT(**params).fit(stacked)
    assert one.n_steps_ == 1 and one.labels_.shape == (120,)


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("params, message", [
    ({"alpha": 0.0}, "alpha must be a finite number > 0, got 0.0"),
    ({"beta": -1.0}, "beta must be a finite number > 0, got -1.0"),
    ({"dependency_length": 0}, "dependency_length must be an integer >= 1, got 0"),
    ({"fixed_point_iter": -1}, "fixed_point_iter must be an integer >= 0, got -1"),
    ({"precision_floor": 0.0}, "precision_floor must be a number in (0, 1], got 0.0"),
    ({"precision_floor": 1.5}, "precision_floor must be a number in (0, 1], got 1.5"),
    ({"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
])
def test_bad_parameters_are_refused_in_one_line(params, message):
    with pytest.raises(ParameterError) as raised:
        DCT(**params).partial_fit(sp.csr_matrix(np.eye(3, dtype=int)))
    assert str(raised.value) == message


def test_a_batch_of_another_width_or_a_changed_model_is_refused():
    model = DCT(n_clusters=3, random_state=0).partial_fit(sp.csr_matrix(np.eye(4, dtype=int)))
    with pytest.raises(ParameterError, match="X_batch has 3 word columns but the model has 4"):
        model.partial_fit(sp.csr_matrix(np.eye(3, dtype=int)))
    model.set_params(dependency_length=2)
    with pytest.raises(ParameterError, match="dependency_length=2 differ from the fitted"):
        model.partial_fit(sp.csr_matrix(np.eye(4, dtype=int)))
    with pytest.raises(ParameterError, match=r"steps must give one time step per document \(4\)"):
        DCT().fit(sp.csr_matrix(np.eye(4, dtype=int)), steps=[0, 1])
