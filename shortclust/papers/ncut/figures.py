"""The Ncut-NMF paper's Figure 3, drawn from our table: purity, NMI and ARI against K."""

from __future__ import annotations

import pandas as pd

from shortclust.papers.ncut.reported import METHODS, METRICS, SHORT


def figure3(frame: pd.DataFrame, path, dataset: str, k_true: int | None = None) -> None:
    """One dataset's panels (a metric each), a curve per method, the true K dotted."""
    from shortclust.experiments.plots import panel_figure, save_figure

    figure, axes = panel_figure(3, size=4.5)
    for axis, metric in zip(axes, METRICS):
        for method in METHODS:
            part = frame[(frame["method"] == method) & (frame["metric"] == metric)]
            axis.errorbar(part["K"], part["mean"], yerr=part["std"], capsize=2, marker="o",
                          markersize=3, label=method)
        if k_true is not None:
            axis.axvline(k_true, color="grey", linestyle=":", linewidth=1)
        axis.set_xlabel("K (dotted: true K)" if k_true is not None else "K")
        axis.set_ylabel(SHORT[metric])
        axis.set_title(f"{dataset}: {SHORT[metric]}", fontsize=10)
    axes[0].legend(fontsize=7)
    save_figure(figure, path)
