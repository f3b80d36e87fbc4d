"""TTM (Iwata et al., IJCAI 2009) as the DCT paper's dynamic baseline: the conditional,
the posterior, the fixed point, the compiled kernel against the slow reference."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from tests.models.dmm.test_dct import dct_stream, random_counts
from tests.naive import ttm as naive
from shortclust.models.lda._state import Tokens
from shortclust.models.dmm.ttm import TTM, _Step


def test_the_conditional_is_the_ratio_of_joints_by_enumeration():
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(np.array([[2, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]))
    tokens = [(d, w) for d in range(3) for w in X[d].indices for _ in range(X[d, w])]
    theta, phi = rng.dirichlet(np.ones(2)), rng.dirichlet(np.ones(4), size=2)
    alpha, beta = 1.7, [3.0, 5.5]
    for z in itertools.product(range(2), repeat=len(tokens)):
        z = list(z)
        for i in range(len(tokens)):
            weights = np.array(naive.conditional(tokens, z, i, theta, phi, alpha, beta, 3))
            joints = []
            for k in range(2):
                z_k = z.copy()
                z_k[i] = k
                joints.append(naive.log_joint(tokens, z_k, theta, phi, alpha, beta, 3))
            np.testing.assert_allclose(weights / weights.sum(),
                                       np.exp(joints - np.logaddexp(*joints)), rtol=1e-10)


@pytest.mark.kernels
@pytest.mark.parametrize("fixed_point_iter, seed", [(0, 0), (1, 1), (2, 2)])
def test_the_kernel_gives_the_references_labels_and_posterior(fixed_point_iter, seed):
    rng = np.random.default_rng(50 + seed)
    batches = [random_counts(rng, 8, 10) for _ in range(3)]
    model = TTM(n_clusters=4, alpha=2.0, beta=6.0, max_iter=3,
                fixed_point_iter=fixed_point_iter, random_state=seed)
    for batch in batches:
        model.partial_fit(batch)
    labels, theta, phi = naive.ttm_stream(batches, 4, 2.0, 6.0, 3, fixed_point_iter, seed)
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_allclose(model.topic_proportions_, theta, rtol=1e-9)
    np.testing.assert_allclose(model.topic_word_, phi, rtol=1e-9)


def test_with_fixed_assignments_the_posterior_is_the_conjugate_mean():
    rng = np.random.default_rng(8)
    model = TTM(n_clusters=3, alpha=4.0, beta=9.0, fixed_point_iter=0, random_state=0)
    model._start(6, None)
    for _ in range(2):
        counts = random_counts(rng, 5, 6)
        theta_past, phi_past = model.topic_proportions_.copy(), model.topic_word_.copy()
        tokens = Tokens.from_counts(counts)
        z = rng.integers(0, 3, size=tokens.words.shape[0])
        model._run_step(counts, None, z=z, n_sweeps=0)
        docs = np.repeat(np.arange(5), np.diff(tokens.ptr))
        n_dk = np.zeros((5, 3))
        np.add.at(n_dk, (docs, z), 1)
        n_kv = np.zeros((3, 6))
        np.add.at(n_kv, (z, tokens.words), 1)
        theta_d = (n_dk + 4.0 * theta_past) / (n_dk.sum(axis=1, keepdims=True) + 4.0)
        np.testing.assert_allclose(model.topic_proportions_, theta_d.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(model.topic_word_, (n_kv + 9.0 * phi_past)
                                   / (n_kv.sum(axis=1, keepdims=True) + 9.0), rtol=1e-12)
        np.testing.assert_array_equal(model.step_labels_, np.argmax(theta_d, axis=1))


def test_no_fixed_point_step_lowers_the_joint():
    rng = np.random.default_rng(2)
    counts = random_counts(rng, 20, 7, mean_length=5.0)
    theta, phi = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(7), size=4)
    tokens = Tokens.from_counts(counts)
    step = _Step(tokens, 7, theta, np.ascontiguousarray(phi.T), 30.0, 2.0)
    step.assign(rng.integers(0, 4, size=tokens.words.shape[0]))
    pairs = [(d, int(w)) for d in range(20) for w in tokens.words[tokens.ptr[d]:tokens.ptr[d + 1]]]
    z = step.z.tolist()
    joints = [naive.log_joint(pairs, z, theta, phi, step.alpha, step.beta.tolist(), 20)]
    for _ in range(20):
        step.update_precisions()
        joints.append(naive.log_joint(pairs, z, theta, phi, step.alpha, step.beta.tolist(), 20))
    assert np.all(np.diff(joints) >= -1e-9 * abs(joints[0]))
    assert joints[-1] > joints[0] + 1e-3


def test_ttm_clusters_a_stream_of_topical_documents():
    batches, labels, _ = dct_stream(1)
    model = TTM(n_clusters=5, alpha=1.0, beta=12.0, max_iter=30, random_state=0)
    for batch in batches:
        model.partial_fit(batch)
    assert normalized_mutual_info_score(np.concatenate(labels), model.labels_) > 0.5
    proba = model.predict_proba(batches[-1])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert normalized_mutual_info_score(labels[-1], proba.argmax(axis=1)) > 0.5


def test_a_later_batch_over_other_words_or_another_width_is_refused():
    from shortclust.data.corpus import Corpus
    from shortclust.errors import ParameterError

    first = Corpus.from_texts(["apple pear", "plum apple"], pipeline="none")
    other = Corpus.from_texts(["kiwi lime", "lime fig"], pipeline="none")
    model = TTM(n_clusters=2, max_iter=2, random_state=0).partial_fit(first)
    with pytest.raises(ParameterError, match="vocabulary differs"):
        model.partial_fit(other)
    with pytest.raises(ParameterError, match="word columns"):
        model.partial_fit(sp.csr_matrix(np.ones((2, 5))))
