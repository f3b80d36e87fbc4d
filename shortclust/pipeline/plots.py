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


def draw_curves(axis, curves: list[Curve], xlabel: str, ylabel: str, title: str = "", *,
                dodge: float = 0.0, legend: str | None = "inside") -> None:
    """Error-bar lines on one axis, with a legend when the curves are named.

    ``dodge`` shifts the i-th of n curves sideways by ``(i - (n - 1) / 2) * dodge`` points
    on the page (not in data units), so the error bars of curves with close means stay
    apart; the points keep their x values on the axis. ``legend``: ``"inside"`` (where it
    covers least), ``"right"`` (outside the axis, so it can cover no data) or None (the
    caller draws one, e.g. :func:`figure_legend`). An axis whose x values are all integers
    (a count: iterations, K, batches) gets integer ticks only.
    """
    for i, curve in enumerate(curves):
        # A point without runs (None) is a gap in the line, not an error.
        mean, std = _floats(curve.mean), _floats(curve.std)
        shift = (i - (len(curves) - 1) / 2) * dodge
        style = {"transform": _shifted(axis, shift)} if shift else {}
        axis.errorbar(curve.x, mean, yerr=std, marker="o", markersize=3,
                      capsize=2, linewidth=1.2, label=curve.name or None,
                      **style, **curve.style)
        if shift:  # matplotlib leaves shifted artists out of the limits: add the data's own
            _include(axis, curve.x, mean, std)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    if title:
        axis.set_title(title, fontsize=10)
    axis.grid(alpha=0.3)
    if curves and all(_is_integer(x) for curve in curves for x in curve.x):
        integer_ticks(axis.xaxis)
    if legend and any(curve.name for curve in curves):
        if legend == "right":
            axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1),
                        borderaxespad=0)
        else:
            axis.legend(fontsize=8)


def _shifted(axis, points: float):
    """The axis' data transform moved ``points`` (1/72 inch) to the right on the page."""
    from matplotlib.transforms import ScaledTranslation

    return axis.transData + ScaledTranslation(points / 72, 0,
                                              axis.figure.dpi_scale_trans)


def _include(axis, x, mean, std) -> None:
    """Widen ``axis``' data limits to the points ``x`` and their ``mean ± std``."""
    import numpy as np

    x, mean, std = (np.asarray(v, dtype=float) for v in (x, mean, std))
    std = np.nan_to_num(std)
    for y in (mean - std, mean + std):
        kept = np.isfinite(y)
        axis.update_datalim(np.column_stack([x[kept], y[kept]]))
    axis.autoscale_view()


def _is_integer(value) -> bool:
    import numbers

    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def integer_ticks(axis) -> None:
    """Ticks at whole numbers only on ``axis`` (an ``XAxis``/``YAxis``): the axis counts."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 2.5, 5, 10]))


def figure_legend(figure, axis, columns: int = 3) -> None:
    """``axis``'s legend entries below every panel of ``figure`` (covering no data)."""
    handles, labels = axis.get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncol=columns, fontsize=8)


def spread_text(counts, per: str = "point") -> str:
    """``mean ± std over 20 runs per point`` (``2/20`` while runs are missing)."""
    from shortclust.evaluation.stats import counts_text

    return f"mean ± std over {counts_text(counts) or 0} runs per {per}"


def _floats(values) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def panel_figure(n_panels: int, columns: int = 3, size: float = 3.4, margin: float = 0.0):
    """A figure with ``n_panels`` axes in rows of ``columns``; extra axes are hidden.

    ``margin`` inches are added to the width for a legend outside the axes.
    """
    plt = pyplot()
    columns = max(1, min(columns, n_panels))
    rows = math.ceil(n_panels / columns)
    figure, axes = plt.subplots(rows, columns,
                                figsize=(size * columns + margin, size * 0.85 * rows),
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
