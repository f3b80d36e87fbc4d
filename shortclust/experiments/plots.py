"""Figures drawn from summary tables (never from anything but records).

matplotlib runs headless (Agg) and every PNG is written to a temporary file and renamed,
so an interrupted plot never leaves half an image behind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

_LABELS = {
    "n_clusters": "clusters found", "nmi": "NMI", "ari": "ARI", "ami": "AMI", "acc": "ACC",
    "homogeneity": "homogeneity", "completeness": "completeness", "v_measure": "V-measure",
    "purity": "purity", "fit_seconds": "fit seconds", "npmi": "NPMI", "c_v": "C_v",
    "diversity": "topic diversity",
}


def label(name: str) -> str:
    """Axis label for a metric or value name."""
    return _LABELS.get(name, name)


@dataclass
class Curve:
    """One line with error bars: x values, means, standard deviations and a legend label."""

    x: list
    mean: list
    std: list
    name: str = ""
    style: dict = field(default_factory=dict)


def pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure, path) -> Path:
    """Save ``figure`` as PNG at ``path`` atomically, close it and return the path."""
    from shortclust.data.io import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # Fixed metadata so that the same numbers give the same bytes.
        atomic_write(path, lambda handle: figure.savefig(
            handle, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None}))
    finally:
        pyplot().close(figure)
    return path


def draw_curves(axis, curves: list[Curve], xlabel: str, ylabel: str, title: str = "") -> None:
    """Error-bar lines on one axis, with a legend when the curves are named."""
    for curve in curves:
        # A point without runs (None) is a gap in the line, not an error.
        mean, std = _floats(curve.mean), _floats(curve.std)
        axis.errorbar(curve.x, mean, yerr=std, marker="o", markersize=3,
                      capsize=2, linewidth=1.2, label=curve.name or None, **curve.style)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    if title:
        axis.set_title(title, fontsize=10)
    axis.grid(alpha=0.3)
    if any(curve.name for curve in curves):
        axis.legend(fontsize=8)


def _floats(values) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def panel_figure(n_panels: int, columns: int = 3, size: float = 3.4):
    """A figure with ``n_panels`` axes in rows of ``columns``; extra axes are hidden."""
    plt = pyplot()
    columns = max(1, min(columns, n_panels))
    rows = math.ceil(n_panels / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(size * columns, size * 0.85 * rows),
                                squeeze=False, layout="constrained")
    flat = list(axes.ravel())
    for axis in flat[n_panels:]:
        axis.set_visible(False)
    return figure, flat[:n_panels]


def table_curve(table: pd.DataFrame, x: str, name: str, legend: str = "") -> Curve:
    """The ``<name>_mean`` / ``<name>_std`` columns of ``table`` against column ``x``."""
    def column(key):
        return list(table[key]) if key in table else [math.nan] * len(table)

    return Curve(list(table[x]), column(f"{name}_mean"), column(f"{name}_std"), legend)


def plot_sweep(table: pd.DataFrame, param: str, path, title: str) -> Path:
    """One panel per metric and one for clusters found, each against the swept parameter."""
    from shortclust.experiments.sweep import sweep_metrics

    names = ["n_clusters"] + sweep_metrics(table)
    figure, axes = panel_figure(len(names))
    for axis, name in zip(axes, names):
        draw_curves(axis, [table_curve(table, param, name)], param, label(name))
    runs = sorted({int(r) for r in table["runs"]}) if not table.empty else [0]
    figure.suptitle(f"{title} (mean ± std over {'/'.join(map(str, runs))} runs)", fontsize=11)
    return save_figure(figure, path)
