"""The STREAM/OFFLINE schedule of ``shortclust.models.common.hybrid``, on a toy incremental model.

The toy labels each STREAM document by its first column and, at an OFFLINE step, every
document seen by its second column, and logs what each hook received; so the tests see
exactly which rows reached which phase, whatever model later uses the mixin (movMF, EDCM,
LDA).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.common.hybrid import HYBRID_CONSTRAINTS, HybridStreamMixin, offline_points
from shortclust.models.base import Capabilities, ClusteringModel, Seed


class ToyHybrid(HybridStreamMixin, ClusteringModel):
    _parameter_constraints = {**HYBRID_CONSTRAINTS, "random_state": Seed()}
    capabilities = Capabilities(input="both", incremental=True, predict=False,
                                predict_proba=False, top_words=False)

    def __init__(self, *, offline_every=None, stream_length=None, random_state=None):
        self.offline_every = offline_every
        self.stream_length = stream_length
        self.random_state = random_state

    def _stream_rows(self, X_batch):
        return sp.csr_matrix(X_batch)

    def _stream_start(self, rows):
        self.log = [("start", rows.shape[0])]

    def _stream_step(self, rows):
        self.log.append(("stream", rows.shape[0]))
        return rows[:, 0].toarray().ravel().astype(int)

    def _batch_step(self, seen):
        self.log.append(("offline", seen.shape[0]))
        self.seen = seen.toarray()
        return seen[:, 1].toarray().ravel().astype(int)


def documents(n):
    """Row i: (stream label i % 3, offline label 10 + i % 2, position i)."""
    positions = np.arange(n)
    return sp.csr_matrix(np.column_stack([positions % 3, 10 + positions % 2, positions]))


def feed(model, X, sizes):
    stops = np.cumsum(sizes)
    for start, stop in zip(np.r_[0, stops[:-1]], stops):
        model.partial_fit(X[start:stop])
    return model


def test_points_are_rounded_fractions_of_the_stream():
    assert offline_points(0.2, 10) == [2, 4, 6, 8, 10]
    assert offline_points(0.25, 10) == [2, 5, 8, 10]  # round half to even at 2.5 and 7.5
    assert offline_points(1.0, 7) == [7]
    assert offline_points(0.01, 10) == list(range(1, 11))  # points closer than a document


def test_offline_steps_cut_batches_and_see_every_document_in_order():
    X = documents(10)
    model = feed(ToyHybrid(offline_every=0.3, stream_length=10), X, [4, 4, 2])
    assert model.offline_at_ == [3, 6, 9]
    assert model.log == [("start", 4), ("stream", 3), ("offline", 3), ("stream", 1),
                         ("stream", 2), ("offline", 6), ("stream", 2), ("stream", 1),
                         ("offline", 9), ("stream", 1)]
    np.testing.assert_array_equal(model.seen[:, 2], np.arange(9))  # stream order
    # The last OFFLINE step relabelled documents 0..8; document 9 kept its STREAM label.
    np.testing.assert_array_equal(model.labels_, [10, 11] * 4 + [10, 9 % 3])
    assert model.n_clusters_ == 3 and model.n_seen_ == 10


def test_n_iter_counts_the_stream_pass_and_the_offline_steps_of_the_call():
    X = documents(10)
    model = ToyHybrid(offline_every=0.5, stream_length=10)
    assert model.partial_fit(X[:10]).n_iter_ == 3  # one pass, OFFLINE at 5 and 10


def test_plain_online_keeps_no_repository():
    model = feed(ToyHybrid(), documents(10), [3, 7])
    assert model.offline_at_ == [] and model._repository == []
    np.testing.assert_array_equal(model.labels_, np.arange(10) % 3)
    assert model.n_iter_ == 1


def test_documents_past_the_stream_length_are_streamed_only():
    model = feed(ToyHybrid(offline_every=0.5, stream_length=4), documents(10), [10])
    assert model.offline_at_ == [2, 4] and model.labels_.size == 10


def test_offline_every_without_stream_length_is_refused():
    with pytest.raises(ParameterError, match="offline_every needs stream_length"):
        ToyHybrid(offline_every=0.2).partial_fit(documents(3))
