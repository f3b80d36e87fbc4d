"""The papers' figures say what they show and stay readable (synthetic tables, no fitting).

Each figure is captured before it is saved: its title names the figure, the metric and the
runs per point; a count axis has whole-number ticks; legends and reference labels lie
outside the plotting area, so they cover no data.
"""

import numpy as np
import pandas as pd
import pytest

import shortclust.pipeline.plots as plots
from shortclust.pipeline.plots import Curve, draw_curves, panel_figure
from shortclust.papers.gsdmm import figures as gsdmm_figures
from shortclust.papers.gsdmm.reported import FOUR


@pytest.fixture
def captured(monkeypatch):
    """The figures handed to ``save_figure`` (nothing is written)."""
    figures = []

    def capture(figure, path):
        figure.canvas.draw()  # lay out, so extents are final
        figures.append(figure)
        return path

    monkeypatch.setattr(plots, "save_figure", capture)
    monkeypatch.setattr(gsdmm_figures, "save_figure", capture)
    yield figures
    for figure in figures:
        plots.pyplot().close(figure)


def titles(figure) -> str:
    texts = [axis.get_title() for axis in figure.axes]
    if figure._suptitle is not None:
        texts.append(figure._suptitle.get_text())
    return " ".join(texts)


def legends(figure) -> list:
    return [*figure.legends, *(a.get_legend() for a in figure.axes if a.get_legend())]


def assert_legends_cover_no_axes(figure):
    legend_boxes = [legend.get_window_extent() for legend in legends(figure)]
    assert legend_boxes, "no legend"
    for axis in figure.axes:
        inside = axis.get_window_extent()
        assert not any(box.overlaps(inside) for box in legend_boxes)


def whole_ticks(axis) -> list[float]:
    low, high = axis.get_xlim()
    ticks = [t for t in axis.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    return ticks


def sweep_table(param, values, runs=20):
    return pd.DataFrame({
        param: values, "runs": [runs] * len(values),
        "n_clusters_mean": np.linspace(300, 90, len(values)),
        "n_clusters_std": [3.0] * len(values),
        **{f"{m}_mean": np.linspace(0.80, 0.85, len(values))
           for m in ("nmi", "homogeneity", "completeness")},
        **{f"{m}_std": [0.01] * len(values) for m in ("nmi", "homogeneity", "completeness")},
    })


# --- the shared drawing helpers ------------------------------------------------------------


def test_dodged_curves_keep_every_point_and_error_bar_in_view():
    figure, (axis,) = panel_figure(1)
    curves = [Curve([0.0, 0.5, 1.0], [0.87 + d, 0.88 + d, 0.87 + d], [0.01] * 3, f"c{d}")
              for d in (0.0, 0.015, -0.015)]
    draw_curves(axis, curves, "alpha", "score", dodge=3)
    low, high = axis.get_ylim()
    assert low <= 0.87 - 0.015 - 0.01 and high >= 0.88 + 0.015 + 0.01
    assert high - low < 0.1  # limits from the data, not matplotlib's default (0, 1)
    plots.pyplot().close(figure)


def test_integer_x_values_get_whole_number_ticks_and_fractions_do_not():
    figure, (counts, fractions) = panel_figure(2)
    draw_curves(counts, [Curve([2, 3, 4, 5, 8, 10, 20], [0.1] * 7, [0.0] * 7)], "K", "NMI")
    draw_curves(fractions, [Curve([0.0, 0.25, 0.5], [0.1] * 3, [0.0] * 3)], "alpha", "NMI")
    figure.canvas.draw()
    whole_ticks(counts)
    assert not all(float(t).is_integer() for t in fractions.get_xticks())
    plots.pyplot().close(figure)


# --- GSDMM ---------------------------------------------------------------------------------


def test_gsdmm_count_figure_names_itself_ticks_whole_iterations_and_keeps_labels_off_data(
        captured):
    tables = {d: sweep_table("max_iter", [1, 2, 3, 5, 10, 30]) for d in FOUR}
    gsdmm_figures.count_figure(tables, "max_iter", "unused.png", "figure3")
    (figure,) = captured
    (axis,) = figure.axes
    assert "Figure 3: clusters found against iterations" in titles(figure)
    assert "mean ± std over 20 runs per point" in titles(figure)
    whole_ticks(axis)
    assert not axis.texts  # the true-K labels are legend entries, not text over the data
    labels = [text.get_text() for text in axis.get_legend().get_texts()]
    assert "true K, Google News: 152" in labels and "true K, TweetSet: 89" in labels
    assert_legends_cover_no_axes(figure)


def test_gsdmm_quality_figure_names_metrics_set_and_runs(captured):
    tables = {d: sweep_table("alpha", [0.0, 0.5, 1.0], runs=5) for d in FOUR}
    gsdmm_figures.quality_figure(tables, "alpha", "Tweet", "unused.png", "figure8")
    (figure,) = captured
    title = titles(figure)
    assert "Figure 8: NMI, homogeneity and completeness on the TweetSet against alpha" in title
    assert "5 runs per point" in title
    assert_legends_cover_no_axes(figure)


def test_gsdmm_bar_chart_names_itself_and_its_runs_per_bar(captured):
    rows = [{"model": model, "metric": metric, "runs": 20, "mean": 0.8, "std": 0.01}
            for model in ("GSDMM", "K-means", "HAC Ward")
            for metric in ("nmi", "homogeneity", "completeness", "ari", "ami", "n_clusters")]
    gsdmm_figures.bar_chart(pd.DataFrame(rows), "unused.png")
    (figure,) = captured
    assert "Figure 2:" in titles(figure) and "20 runs per bar" in titles(figure)
    assert_legends_cover_no_axes(figure)


# --- Ncut-NMF ------------------------------------------------------------------------------


def test_ncut_figure3_ticks_the_k_grid_and_says_what_and_how_many_runs(captured):
    from shortclust.papers.ncut.figures import figure3
    from shortclust.papers.ncut.plan import K_GRID
    from shortclust.papers.ncut.reported import METHODS, METRICS

    frame = pd.DataFrame([{"dataset": "A", "method": m, "K": k, "metric": metric, "runs": 10,
                           "mean": 0.5, "std": 0.02}
                          for m in METHODS for k in K_GRID for metric in METRICS])
    figure3(frame, "unused.png", "A", 8)
    (figure,) = captured
    for axis in figure.axes:
        assert whole_ticks(axis) == K_GRID
    title = titles(figure)
    assert "Figure 3" in title and "on A" in title and "10 runs per point" in title
    assert "true K = 8" in [t.get_text() for t in figure.legends[0].get_texts()]
    assert_legends_cover_no_axes(figure)


# --- iterative classification --------------------------------------------------------------


def test_ic_figures_label_the_metric_and_the_runs(captured):
    from shortclust.papers.ic import figures as ic_figures
    from shortclust.papers.ic.reported import FIGURE_GRIDS

    grouped = {point: [{"seed": s, "params": {"P1": point[0], "P2": point[1]},
                        "metrics": {"acc": 0.7, "purity": 0.8, "nmi": 0.6}} for s in range(3)]
               for point in FIGURE_GRIDS["figure2a"] + FIGURE_GRIDS["figure2b"]}
    panels = {panel: {"Tweet": ic_figures.grid_frame(
        {p: grouped[p] for p in FIGURE_GRIDS[panel]}, x)}
        for panel, x in (("figure2a", "P1"), ("figure2b", "P2"))}
    ic_figures.draw_figure(panels, "unused.png", "2")
    (figure,) = captured
    assert all(axis.get_ylabel() == "ACC and purity (%)" for axis in figure.axes)
    assert "Appendix Figure 2" in titles(figure) and "3 runs per point" in titles(figure)
    assert_legends_cover_no_axes(figure)


# --- streams (the GSDMM extension's figures) ----------------------------------------------


def test_stream_figure_keeps_its_legend_off_the_data_and_counts_batches(captured):
    from shortclust.pipeline.stream import SERIES, plot_stream

    n = 16
    table = pd.DataFrame({"batch": list(range(1, n + 1)), "runs": [5] * n,
                          "n_clusters_mean": np.arange(n) * 3.0 + 10,
                          "n_clusters_std": [1.0] * n,
                          **{f"{s}_nmi_mean": np.linspace(0.5, 0.9, n) for s in SERIES},
                          **{f"{s}_nmi_std": [0.02] * n for s in SERIES}})
    plot_stream(table, "nmi", "unused.png", "Extension: a stream")
    (figure,) = captured
    assert "5 runs per point" in titles(figure)
    for axis in figure.axes:
        whole_ticks(axis)
    assert_legends_cover_no_axes(figure)
