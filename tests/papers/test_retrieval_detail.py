"""DCT Figures 2-3's analogues: which settings each method is tuned over, which runs are
measured, the protocol's values kept per cutoff, and the per-query difference DCT - TTM."""

from types import SimpleNamespace

import numpy as np

from shortclust.evaluation.ranking import RANKING_METRICS
from shortclust.evaluation.retrieval import SmoothingGrid
from shortclust.papers.dct.crisis_retrieval import TEMPORAL_FEEDBACK, TMS_GAMMAS, method_points
from shortclust.papers.dct.retrieval_detail import (figure2_frame, figure3_frame,
                                                    per_cutoff_values, wanted)


def test_methods_without_clusters_hold_lambda_at_zero_and_tms_tunes_gamma():
    grid = SmoothingGrid(lams=(0.0, 0.5), mus=(1.0, 10.0), bs=(1.0,))
    clusters, points = method_points(TEMPORAL_FEEDBACK, grid)
    assert clusters is None and {p.lam for p in points} == {0.0}
    assert sorted({p.gamma for p in points}) == sorted(TMS_GAMMAS)
    clusters, points = method_points(None, grid)
    assert clusters is None and {(p.lam, p.gamma) for p in points} == {(0.0, 0.0)}
    assert len(points) == 2
    source = object()
    assert method_points(source, grid) == (source, grid.points)


def test_deterministic_methods_run_once_and_models_per_seed():
    job = SimpleNamespace(runs=3)
    got = wanted(job, {"DCT": None, "TTM": None})
    assert got[:2] == [("TMS", 0), ("LM", 0)]
    assert sorted(got[2:]) == [("DCT", s) for s in range(3)] + [("TTM", s) for s in range(3)]


def test_each_fold_keeps_its_chosen_setting_at_every_cutoff():
    # Two settings, three queries, one metric; query 2 has no relevant tweet at cutoff 0.
    first = np.array([[[0.1], [0.2], [np.nan]], [[0.5], [0.6], [np.nan]]])
    second = np.array([[[0.3], [0.4], [0.7]], [[0.9], [0.8], [0.2]]])
    tuned = SimpleNamespace(chosen=[1, 0], tests=[np.array([0, 2]), np.array([1])])
    values = per_cutoff_values([first, second], tuned)
    assert values.shape == (2, 3, 1)
    np.testing.assert_allclose(values[0, :2, 0], [0.5, 0.2])
    assert np.isnan(values[0, 2, 0])
    np.testing.assert_allclose(values[1, :, 0], [0.9, 0.4, 0.2])


def _row(method, seed, value):
    metrics = RANKING_METRICS
    return {"method": method, "seed": seed, "cutoff_dates": ["2013-01-01", "2013-02-01"],
            "per_cutoff": {"event": {m: [value, None if seed else value] for m in metrics}},
            "per_query": {"q": {"kind": "event", **{m: value for m in metrics}}}}


def test_figure_frames_average_seeds_and_subtract_ttm_from_dct():
    rows = [_row("DCT", 0, 0.6), _row("DCT", 1, 0.4), _row("TTM", 0, 0.3), _row("LM", 0, 0.2)]
    frame = figure2_frame(rows)
    dct = frame[(frame["method"] == "DCT") & (frame["metric"] == "map")]
    # Cutoff 2: seed 1 has no value there, so the mean is seed 0's alone.
    np.testing.assert_allclose(dct["mean"], [0.5, 0.6])
    assert list(dict.fromkeys(frame["method"])) == ["DCT", "TTM", "LM"]
    differences = figure3_frame(rows)
    assert set(differences["runs_dct"]) == {2} and set(differences["runs_ttm"]) == {1}
    np.testing.assert_allclose(differences["difference"], 0.2)
