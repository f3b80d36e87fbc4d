"""The GSDMM paper's figures, drawn from our tables: Figure 2 (bars) and Figures 3-10 (curves).

Every figure's title says which of the paper's figures it is, what it shows and how many
runs each point or bar averages; legends sit outside the axes, so they cover no data.
"""

from __future__ import annotations

import pandas as pd

from shortclust.pipeline.plots import (
    draw_curves, integer_ticks, label, panel_figure, save_figure, spread_text, table_curve,
)
from shortclust.papers.gsdmm.reported import DATASETS, SHORT, TABLE2_METRICS, TRUE_K, XLABEL

#: The true numbers of clusters drawn as reference lines in the figures of clusters found.
REFERENCE_LINES = [(TRUE_K["GoogleNews-T"], "Google News", "--"),
                   (TRUE_K["Tweet"], "TweetSet", ":")]


def figure_title(figure_name: str) -> str:
    """``figure3`` -> ``Figure 3``."""
    return f"Figure {figure_name[len('figure'):]}"


def bar_chart(frame: pd.DataFrame, path) -> None:
    """Figure 2: Table 2's five metrics per model on Tweet, mean ± std bars."""
    figure, (axis,) = panel_figure(1, size=7.5, margin=1.3)
    shown = frame[frame["metric"].isin(TABLE2_METRICS)].dropna(subset=["mean"])
    models = list(dict.fromkeys(shown["model"]))  # a model not run yet has no bars
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        part = shown[shown["model"] == model]
        positions = [j + (i - (len(models) - 1) / 2) * width for j in range(len(part))]
        axis.bar(positions, part["mean"], width, yerr=part["std"], capsize=2, label=model)
    axis.set_xticks(range(len(TABLE2_METRICS)), [SHORT[m] for m in TABLE2_METRICS])
    axis.set_ylabel("score")
    axis.set_ylim(0, 1)
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0)
    axis.set_title("Figure 2: NMI, homogeneity (H), completeness (C), ARI and AMI on the "
                   f"TweetSet\n({spread_text(shown['runs'], 'bar')})", fontsize=10)
    save_figure(figure, path)


def count_figure(tables: dict[str, pd.DataFrame], param: str, path, figure_name: str) -> None:
    """Clusters found against the swept parameter, one curve per dataset, true K marked."""
    figure, (axis,) = panel_figure(1, size=5.5, margin=1.8)
    curves = [table_curve(t, param, "n_clusters", DATASETS[d]) for d, t in tables.items()]
    # Labelled, so the legend (outside the axes) names them: no text over the data.
    for k, name, style in REFERENCE_LINES:
        axis.axhline(k, color="grey", linestyle=style, linewidth=0.9,
                     label=f"true K, {name}: {k}")
    draw_curves(axis, curves, XLABEL[param], "clusters found by GSDMM",
                f"{figure_title(figure_name)}: clusters found against {XLABEL[param]}\n"
                f"({_spread(tables)})", legend="right")
    integer_ticks(axis.yaxis)
    save_figure(figure, path)


def quality_figure(tables: dict[str, pd.DataFrame], param: str, dataset, path,
                   figure_name: str) -> None:
    """NMI of every dataset (``dataset`` None), or NMI, H and C on ``dataset``."""
    figure, (axis,) = panel_figure(1, size=5.5, margin=1.8)
    if dataset is None:  # Figure 4: NMI on every dataset
        curves = [table_curve(t, param, "nmi", DATASETS[d]) for d, t in tables.items()]
        ylabel, what = "NMI", "NMI of the four sets"
    else:
        curves = [table_curve(tables[dataset], param, m, label(m))
                  for m in ("nmi", "homogeneity", "completeness")]
        ylabel = "NMI, homogeneity, completeness"
        what = f"NMI, homogeneity and completeness on the {DATASETS[dataset]}"
        tables = {dataset: tables[dataset]}
    # Close means: error bars drawn side by side (3 points apart) instead of on top.
    draw_curves(axis, curves, XLABEL[param], ylabel,
                f"{figure_title(figure_name)}: {what} against {XLABEL[param]}\n"
                f"({_spread(tables)})", dodge=3, legend="right")
    save_figure(figure, path)


def _spread(tables: dict[str, pd.DataFrame]) -> str:
    return spread_text(pd.concat([t["runs"] for t in tables.values()]))
