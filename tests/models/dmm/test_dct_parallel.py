"""DCT's parallel sweep (``DCT(threads=B)``) against its slow reference, and its contract."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import normalized_mutual_info_score

from shortclust.errors import ParameterError
from shortclust.models.dmm import _dct_kernels as kernels
from shortclust.models.dmm import dct as dct_module
from shortclust.models.dmm.dct import DCT
from shortclust.papers.dct.synthetic import dct_stream
from tests.models.dmm.test_dct import naive_and_model, random_counts


@pytest.fixture
def every_step_parallel(monkeypatch):
    """The tests' steps are small: sample every one of them in parallel."""
    monkeypatch.setattr(dct_module, "PARALLEL_MIN_WORK", 0)


@pytest.mark.kernels
@pytest.mark.parametrize("threads, lags, fixed_point_iter, seed, n_docs, mean_length, precisions", [
    (2, 1, 1, 0, 30, 4.0, ("topic", "word")), (2, 2, 2, 1, 25, 4.0, ("shared", "topic")),
    (3, 1, 0, 2, 30, 4.0, ("topic", "word")), (2, 3, 1, 3, 12, 30.0, ("topic", "topic")),
    (4, 1, 1, 4, 3, 4.0, ("topic", "word"))])  # more blocks than documents
def test_parallel_sweep_matches_the_reference(every_step_parallel, threads, lags,
                                               fixed_point_iter, seed, n_docs, mean_length,
                                               precisions):
    rng = np.random.default_rng(200 + seed)
    batches = [random_counts(rng, n_docs, 15, mean_length) for _ in range(3)]
    model, (labels, theta, phi) = naive_and_model(
        batches, threads, n_clusters=5, dependency_length=lags, alpha=3.0, beta=7.0,
        max_iter=4, fixed_point_iter=fixed_point_iter, precision_floor=0.05,
        random_state=seed, topic_precision=precisions[0], word_precision=precisions[1])
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_allclose(model.topic_proportions_, theta, rtol=1e-9)
    np.testing.assert_allclose(model.topic_word_, phi, rtol=1e-9)
    # The parallel chain is another chain: it must differ from the sequential one
    # somewhere, or the test would not tell the two apart.
    if seed == 0:
        sequential = DCT(threads=1, n_clusters=5, alpha=3.0, beta=7.0, max_iter=4,
                         precision_floor=0.05, random_state=seed)
        for batch in batches:
            sequential.partial_fit(batch)
        assert not np.array_equal(sequential.labels_, model.labels_)


@pytest.mark.kernels
def test_parallel_sweep_keeps_the_counts_those_of_the_topics(every_step_parallel):
    rng = np.random.default_rng(5)
    counts = random_counts(rng, 40, 20)
    model = DCT(n_clusters=6, max_iter=1, threads=3, random_state=0)
    model._start(counts.shape[1], None)
    step = dct_module._Step(counts, model._initial_precisions(), model.proportions_history_,
                            model._phi_history, threads=3)
    step.assign(rng.integers(0, 6, size=40))
    for _ in range(5):
        before = step.z.copy()
        n_moved = step.sweep(rng.random(40))
        assert n_moved == np.count_nonzero(before != step.z)
        rebuilt = tuple(np.zeros_like(a) for a in step.stats)
        kernels.build_counts(step.docs, step.z, rebuilt)
        for kept, fresh in zip(step.stats, rebuilt):
            np.testing.assert_array_equal(kept, fresh)


def test_threads_one_is_the_sequential_kernel():
    rng = np.random.default_rng(9)
    batches = [random_counts(rng, 20, 12) for _ in range(2)]
    params = dict(n_clusters=4, dependency_length=1, alpha=3.0, beta=7.0, max_iter=3,
                  fixed_point_iter=1, precision_floor=0.05, random_state=1)
    model, (labels, _, _) = naive_and_model(batches, 1, **params)
    default = DCT(**params)
    for batch in batches:
        default.partial_fit(batch)
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_array_equal(default.labels_, labels)


def test_a_step_below_the_threshold_runs_the_sequential_kernel(monkeypatch):
    rng = np.random.default_rng(3)
    counts = random_counts(rng, 40, 12)
    monkeypatch.setattr(dct_module, "PARALLEL_MIN_WORK", int(counts.sum()) * 5 + 1)
    one = DCT(n_clusters=5, max_iter=4, threads=1, random_state=2).fit(counts)
    two = DCT(n_clusters=5, max_iter=4, threads=2, random_state=2).fit(counts)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    monkeypatch.setattr(dct_module, "PARALLEL_MIN_WORK", int(counts.sum()) * 5)
    two = DCT(n_clusters=5, max_iter=4, threads=2, random_state=2).fit(counts)
    assert not np.array_equal(one.labels_, two.labels_)


def test_labels_do_not_depend_on_the_threads_that_ran(every_step_parallel, request):
    batches, _, _ = dct_stream(0)
    two = DCT(n_clusters=5, max_iter=5, threads=2, random_state=1)
    for batch in batches:
        two.partial_fit(batch)

    request.getfixturevalue("blocks_in_one_thread")
    serial = DCT(n_clusters=5, max_iter=5, threads=2, random_state=1)
    for batch in batches:
        serial.partial_fit(batch)
    np.testing.assert_array_equal(two.labels_, serial.labels_)


def test_two_threads_cluster_a_dct_stream_as_one_does(every_step_parallel):
    scores = {1: [], 2: []}
    for seed in range(3):
        batches, labels, _ = dct_stream(seed)
        for threads in scores:
            model = DCT(n_clusters=5, alpha=5.0, beta=12.0, max_iter=20, precision_floor=0.01,
                        threads=threads, random_state=seed)
            for batch, truth in zip(batches, labels):
                scores[threads].append(normalized_mutual_info_score(
                    truth, model.partial_fit(batch).step_labels_))
    assert np.mean(scores[2]) > 0.8 and np.mean(scores[2]) > np.mean(scores[1]) - 0.05


def test_fit_with_steps_and_threads_is_partial_fit_per_step(every_step_parallel):
    rng = np.random.default_rng(4)
    counts = random_counts(rng, 60, 15)
    steps = np.repeat([2, 0, 1], 20)
    whole = DCT(n_clusters=4, max_iter=3, threads=2, random_state=0).fit(counts, steps=steps)
    stepwise = DCT(n_clusters=4, max_iter=3, threads=2, random_state=0)
    for t in range(3):
        stepwise.partial_fit(counts[steps == t])
    np.testing.assert_array_equal(whole.labels_[np.argsort(steps, kind="stable")],
                                  stepwise.labels_)


@pytest.mark.parametrize("threads", [0, 1.5, -2])
def test_threads_out_of_range_is_named(threads):
    with pytest.raises(ParameterError, match="threads"):
        DCT(threads=threads).fit(sp.csr_matrix([[1, 2], [0, 1]]))


def test_memory_bound_counts_the_block_copies():
    one = DCT.memory_bytes({"n_clusters": 100}, 1000, 5000)
    two = DCT.memory_bytes({"n_clusters": 100, "threads": 2}, 1000, 5000)
    assert two - one == 2 * 5000 * 100 * 2
