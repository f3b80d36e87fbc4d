"""The GSDMM paper's figures, drawn from our tables: Figure 2 (bars) and Figures 3-10 (curves)."""

from __future__ import annotations

import pandas as pd

from shortclust.experiments.plots import draw_curves, label, panel_figure, save_figure
from shortclust.experiments.plots import table_curve
from shortclust.papers.gsdmm.reported import DATASETS, SHORT, TABLE2_METRICS, TRUE_K, XLABEL


def figure_title(figure_name: str) -> str:
    """``figure3`` -> ``Figure 3``."""
    return f"Figure {figure_name[len('figure'):]}"


def bar_chart(frame: pd.DataFrame, path) -> None:
    """Figure 2: Table 2's five metrics per model on Tweet, mean ± std bars."""
    figure, (axis,) = panel_figure(1, size=7.5)
    models = list(dict.fromkeys(frame["model"]))
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        part = frame[(frame["model"] == model) & frame["metric"].isin(TABLE2_METRICS)]
        positions = [j + (i - (len(models) - 1) / 2) * width for j in range(len(part))]
        axis.bar(positions, part["mean"], width, yerr=part["std"], capsize=2, label=model)
    axis.set_xticks(range(len(TABLE2_METRICS)), [SHORT[m] for m in TABLE2_METRICS])
    axis.set_ylabel("performance")
    axis.set_ylim(0, 1)
    axis.legend(fontsize=8)
    axis.set_title("TweetSet (mean ± std over runs)", fontsize=10)
    save_figure(figure, path)


def count_figure(tables: dict[str, pd.DataFrame], param: str, path, figure_name: str) -> None:
    """Clusters found against the swept parameter, one curve per dataset, true K marked."""
    figure, (axis,) = panel_figure(1, size=5.5)
    curves = [table_curve(t, param, "n_clusters", DATASETS[d]) for d, t in tables.items()]
    draw_curves(axis, curves, XLABEL[param], "number of clusters found by GSDMM",
                f"{figure_title(figure_name)} (mean ± std over runs)")
    for k, text in ((TRUE_K["GoogleNews-T"], "Google News: 152"),
                    (TRUE_K["Tweet"], "TweetSet: 89")):
        axis.axhline(k, color="grey", linestyle="--", linewidth=0.8)
        axis.annotate(text, (axis.get_xlim()[0], k), ha="left", va="bottom", fontsize=7)
    save_figure(figure, path)


def quality_figure(tables: dict[str, pd.DataFrame], param: str, dataset, path,
                   figure_name: str) -> None:
    """NMI of every dataset (``dataset`` None), or NMI, H and C on ``dataset``."""
    figure, (axis,) = panel_figure(1, size=5.5)
    if dataset is None:  # Figure 4: NMI on every dataset
        curves = [table_curve(t, param, "nmi", DATASETS[d]) for d, t in tables.items()]
        ylabel, where = "NMI", ""
    else:
        curves = [table_curve(tables[dataset], param, m, label(m))
                  for m in ("nmi", "homogeneity", "completeness")]
        ylabel, where = "performance", f" on the {DATASETS[dataset]}"
    draw_curves(axis, curves, XLABEL[param], ylabel,
                f"{figure_title(figure_name)}{where} (mean ± std over runs)")
    save_figure(figure, path)
