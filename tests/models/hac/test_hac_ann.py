"""HAC_SD's HNSW route (``_ann_sd``) against the exact route that scores every pair."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from shortclust.errors import ParameterError
from shortclust.models.hac import _ann_sd, hac_similarity
from shortclust.models.hac._sparse_sd import _estimated_cutoff, _gram_statistics, sd_pairs
from shortclust.models.hac.hac_similarity import HACSimilarity

pytest.importorskip("hnswlib")


def _clustered_rows(seed, n=2000, d=16, centres=25, spread=0.8):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(centres, d))[rng.integers(0, centres, n)]
    x += spread * rng.normal(size=(n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _repeated_rows(seed, n=2000, d=16, most=4):
    """``_clustered_rows`` with each row present 1 to ``most`` times, shuffled."""
    rows = _clustered_rows(seed, n=n, d=d)
    rng = np.random.default_rng(seed + 100)
    rows = np.repeat(rows, rng.integers(1, most + 1, n), axis=0)
    return rows[rng.permutation(rows.shape[0])]


def _slow_score_lists(v, groups, labels, members, offsets, mean, scale, threshold, cutoff,
                      last):
    """The kernel's definition, a row pair at a time (each from the row realising its max)."""
    scores, keys, short = [], [], []
    n = v.shape[0]
    for r, g in enumerate(groups):
        rows_g = members[offsets[g]:offsets[g + 1]]
        listed = [(h, float(np.dot(v[rows_g[0]], v[members[offsets[h]]])))
                  for h in labels[r] if h != g and h >= 0]
        is_short = min((s for _, s in listed), default=np.inf) >= threshold[g]
        short.append(is_short)
        if is_short and not last:
            continue
        for i in rows_g:
            for h, s in listed:
                for j in members[offsets[h]:offsets[h + 1]]:
                    a_ij, a_ji = (s - mean[i]) * scale[i], (s - mean[j]) * scale[j]
                    if (a_ij > a_ji or (a_ij == a_ji and i < j)) and a_ij >= cutoff:
                        scores.append(a_ij)
                        keys.append(min(i, j) * n + max(i, j))
        for x, i in enumerate(rows_g):
            for j in rows_g[x + 1:]:
                s = float(np.dot(v[i], v[i]))
                best = max((s - mean[i]) * scale[i], (s - mean[j]) * scale[j])
                if best >= cutoff:
                    scores.append(best)
                    keys.append(i * n + j)
    order = np.argsort(keys, kind="stable")
    return (np.array(scores)[order], np.array(keys, dtype=np.int64)[order],
            np.array(short, dtype=bool))


def test_identical_rows_are_grouped_in_order_of_their_first_row():
    v = _repeated_rows(6, n=50, most=3).astype(np.float32)
    distinct, members, offsets = _ann_sd._identical_rows(v)
    firsts = members[offsets[:-1]]
    assert np.all(np.diff(firsts) > 0)  # groups numbered by their first row
    assert sorted(members.tolist()) == list(range(v.shape[0]))
    for g in range(offsets.size - 1):
        rows = members[offsets[g]:offsets[g + 1]]
        assert np.all(np.diff(rows) > 0)
        assert np.all(v[rows] == distinct[g])
    assert np.unique(distinct, axis=0).shape[0] == distinct.shape[0] == 50


@pytest.mark.kernels
@pytest.mark.parametrize("most", [1, 3])
@pytest.mark.parametrize("last", [False, True])
def test_score_lists_kernel_is_its_definition(last, most):
    v = _repeated_rows(1, n=200, d=8, most=most).astype(np.float32)
    distinct, members, offsets = _ann_sd._identical_rows(v)
    m = offsets.size - 1
    mean, std = _gram_statistics(v.astype(np.float64))
    scale = 1.0 / std
    threshold = np.minimum.reduceat(mean + 1.0 * std, offsets[:-1])
    rng = np.random.default_rng(2)
    groups = rng.choice(m, 40, replace=False).astype(np.int64)
    labels = np.stack([rng.choice(m, 12, replace=False) for _ in groups]).astype(np.int64)
    labels[:, 0] = groups  # the group itself, as an index lists it first
    labels[3, 5:] = -1  # a list the index could not fill
    got = _ann_sd._score_lists(v, groups, labels, members, offsets, mean, scale, threshold,
                               0.5, last)
    want = _slow_score_lists(v, groups, labels, members, offsets, mean, scale, threshold,
                             0.5, last)
    np.testing.assert_array_equal(got[2], want[2])
    order = np.argsort(got[1], kind="stable")
    np.testing.assert_array_equal(got[1][order], want[1])
    np.testing.assert_allclose(got[0][order], want[0], rtol=1e-6)
    assert got[1].size > 0


@pytest.mark.parametrize("seed, k, most", [(0, 25, 1), (1, 10, 1), (2, 60, 1), (7, 25, 5)])
def test_hnsw_route_recalls_the_exact_pairs(seed, k, most):
    vectors = _repeated_rows(seed, most=most)
    exact = set(zip(*sd_pairs(vectors, k, fast=True)[:2]))
    stats = {}
    rows, cols, similarities = _ann_sd.ann_sd_pairs(vectors, k, stats=stats)
    found = set(zip(rows.tolist(), cols.tolist()))
    assert len(found) == len(exact) == rows.size
    assert np.all(rows < cols)
    assert len(found & exact) >= 0.99 * len(exact), stats
    np.testing.assert_allclose(similarities, np.einsum("ij,ij->i", vectors[rows], vectors[cols]),
                               atol=1e-5)


def test_hac_sd_past_ann_docs_takes_the_hnsw_route_and_agrees():
    vectors = _clustered_rows(3, n=1500)
    exact = HACSimilarity(n_clusters=25, sparsify="sd", graph="sparse").fit(vectors)
    ann = HACSimilarity(n_clusters=25, sparsify="sd", graph="sparse", ann_docs=1000).fit(vectors)
    again = HACSimilarity(n_clusters=25, sparsify="sd", graph="sparse", ann_docs=1000).fit(vectors)
    assert (exact.pair_route_, ann.pair_route_) == ("exact", "hnsw")
    assert ann.ann_stats_["rows_truncated"] == 0
    assert adjusted_rand_score(exact.labels_, ann.labels_) > 0.9
    np.testing.assert_array_equal(ann.labels_, again.labels_)  # reproducible


def test_hnsw_route_without_hnswlib_is_refused_with_the_fix(monkeypatch):
    monkeypatch.setattr(hac_similarity, "hnswlib_available", lambda: False)
    model = HACSimilarity(n_clusters=5, sparsify="sd", graph="sparse", ann_docs=100)
    with pytest.raises(ParameterError, match=r"shortclust\[ann\].*ann_docs=None"):
        model.fit(_clustered_rows(4, n=200))
    assert HACSimilarity(n_clusters=5, sparsify="sd", graph="sparse", ann_docs=None).fit(
        _clustered_rows(4, n=200)).pair_route_ == "exact"


class _RefusingIndex:
    """An hnswlib index that refuses any batch holding row ``refused`` with k > ``most``."""

    def __init__(self, index, vectors, refused, most):
        self.index, self.refused, self.most = index, vectors[refused], most

    def knn_query(self, queries, k):
        if k > self.most and np.any(np.all(queries == self.refused, axis=1)):
            raise RuntimeError("Cannot return the results in a contiguous 2D array.")
        return self.index.knn_query(queries, k=k)


@pytest.mark.parametrize("first, stop", [(30, 50), (0, 200)])
def test_a_query_the_index_cannot_fill_is_padded_and_the_others_answered(first, stop):
    import hnswlib

    vectors = _clustered_rows(5, n=300).astype(np.float32)
    index = hnswlib.Index(space="ip", dim=vectors.shape[1])
    index.init_index(max_elements=300, random_seed=0)
    index.add_items(vectors, np.arange(300))
    index.set_ef(64)
    stats = {}
    refused = 37 - first
    labels = _ann_sd._knn(_RefusingIndex(index, vectors, 37, 5), vectors[first:stop], 12,
                          stats)
    want = index.knn_query(vectors[first:stop], k=12)[0].astype(np.int64)
    assert stats["rows_index_short"] == 1
    np.testing.assert_array_equal(np.delete(labels, refused, axis=0),
                                  np.delete(want, refused, axis=0))
    assert labels[refused, :3].tolist() == want[refused, :3].tolist()
    assert np.all(labels[refused, 3:] == -1)


def test_a_cutoff_estimate_too_high_is_lowered_and_the_pairs_asked_again(monkeypatch):
    # The sampled rows' estimate can promise more pairs than reach it (at a million texts 91%
    # of N did): a first estimate that almost no pair reaches must not leave the route short.
    vectors = _repeated_rows(4, most=2)
    exact = set(zip(*sd_pairs(vectors, 25, fast=True)[:2]))
    estimates = []

    def first_too_high(*args):
        estimates.append(_estimated_cutoff(*args))
        return estimates[-1] + (3.0 if len(estimates) == 1 else 0.0)

    monkeypatch.setattr(_ann_sd, "_estimated_cutoff", first_too_high)
    stats = {}
    rows, cols, _ = _ann_sd.ann_sd_pairs(vectors, 25, stats=stats)
    found = set(zip(rows.tolist(), cols.tolist()))
    assert stats["cutoff_retries"] >= 1 and len(estimates) == 1 + stats["cutoff_retries"]
    assert len(found) == len(exact) == rows.size
    assert len(found & exact) >= 0.99 * len(exact), stats
