"""The Ncut-NMF paper's Figure 3, drawn from our table: purity, NMI and ARI against K."""

from __future__ import annotations

import pandas as pd

from shortclust.papers.ncut.reported import METHODS, METRICS, SHORT


def figure3(frame: pd.DataFrame, path, dataset: str, k_true: int | None = None) -> None:
    """One dataset's panels (a metric each), a curve per method, the true K dotted.

    The K axis is ticked at the grid's K values only (K counts clusters); the title says
    which figure of the paper this stands for, on which set, and the runs per point.
    """
    from shortclust.pipeline.plots import (
        Curve, draw_curves, figure_legend, panel_figure, save_figure, spread_text,
    )

    figure, axes = panel_figure(3, size=4.5)
    k_grid = sorted({int(k) for k in frame["K"]})
    for axis, metric in zip(axes, METRICS):
        curves = []
        for method in METHODS:
            part = frame[(frame["method"] == method) & (frame["metric"] == metric)]
            curves.append(Curve([int(k) for k in part["K"]], list(part["mean"]),
                                list(part["std"]), method))
        if k_true is not None:
            axis.axvline(k_true, color="grey", linestyle=":", linewidth=1,
                         label=f"true K = {k_true}")
        # Six methods, often within one std of each other: error bars side by side.
        draw_curves(axis, curves, "K (number of clusters)", SHORT[metric], SHORT[metric],
                    dodge=1.5, legend=None)
        axis.set_xticks(k_grid)
    figure_legend(figure, axes[0], columns=len(METHODS) + 1)
    figure.suptitle(f"Ncut-NMF paper, Figure 3 (on its Titles set) reproduced on {dataset}: "
                    f"purity, NMI and ARI against K ({spread_text(frame['runs'])})",
                    fontsize=11)
    save_figure(figure, path)
