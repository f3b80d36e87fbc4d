"""The IC paper's Appendix Figures 1-2 (IC on k-means against P): tables and curves.

``panels`` is ``{panel: {dataset: frame}}``, a frame per dataset from :func:`grid_frame`
(one row per grid point); nothing here fits a model.
"""

from __future__ import annotations

import pandas as pd

from shortclust.evaluation.stats import format_mean_std, mean_std
from shortclust.pipeline.reproduce import counts_text, markdown_table, provenance_line
from shortclust.papers.ic.reported import DATASETS, FIGURE_PAPER
from shortclust.papers.ic.settings import FIGURE_RUNS
from shortclust.papers.ic.significance import values_of


def grid_frame(grouped: dict, x: str) -> pd.DataFrame:
    """One row per grid point: P1, P2, the swept value ``x`` and ACC / purity / NMI."""
    rows = []
    for (p1, p2), records in grouped.items():
        row = {"P1": p1, "P2": p2, "x": p1 if x == "P1" else p2, "runs": len(records)}
        for metric in ("acc", "purity", "nmi"):
            row[f"{metric}_mean"], row[f"{metric}_std"] = mean_std(
                values_of(records, metric).values())
        rows.append(row)
    return pd.DataFrame(rows)


PANEL_TITLES = {
    "figure1": ("fixed P = P1 = P2", "P"),
    "figure2a": ("P2 = 0.90, P1 varies", "P1"),
    "figure2b": ("P1 = 0.50, P2 varies", "P2"),
}


def figure_markdown(name: str, panels: dict[str, dict[str, pd.DataFrame]]) -> list[str]:
    """Tables and best-value lines of a figure's panels."""
    lines = []
    for panel, frames in panels.items():
        title, x = PANEL_TITLES[panel]
        lines += [f"## {panel.replace('figure', 'Figure ')}: {title}", ""]
        if not frames:
            lines += ["Neither dataset is present in the data directory.", ""]
            continue
        headers = [x] + [f"{DATASETS[d][0]} {what}" for d in frames
                         for what in ("ACC", "purity", "NMI")]
        values = list(next(iter(frames.values()))["x"])
        rows = []
        for value in values:
            cells = [f"{value:.2f}"]
            for frame in frames.values():
                row = frame[frame["x"] == value].iloc[0]
                cells += [_frame_cell(row, m) for m in ("acc", "purity", "nmi")]
            rows.append(cells)
        lines += [markdown_table(headers, rows), ""]
        for dataset, frame in frames.items():
            lines.append(_best_line(panel, dataset, frame, x))
        lines.append("")
    return lines


def _frame_cell(row, metric: str) -> str:
    return format_mean_std(row[f"{metric}_mean"], row[f"{metric}_std"], 2)


def _best_line(panel: str, dataset: str, frame: pd.DataFrame, x: str) -> str:
    paper_x, paper_acc = FIGURE_PAPER[panel][dataset]
    parts = []
    for metric in ("acc", "purity"):
        column = frame[f"{metric}_mean"].astype(float)
        if column.notna().any():
            at = frame.loc[column.idxmax()]
            parts.append(f"best {metric.replace('acc', 'ACC')} {at[f'{metric}_mean']:.2f} "
                         f"at {x} = {at['x']:.2f}")
    return (f"- {DATASETS[dataset][0]}: paper best {paper_acc:.2f} at {x} = {paper_x:.2f}; "
            f"ours: {', '.join(parts) or 'no runs'}.")


def write_figure(job, name: str, panels: dict[str, dict[str, pd.DataFrame]],
                 representation: str) -> None:
    """A figure's table (Markdown, CSV) and PNG; ``representation`` says what k-means used."""
    frames = [frame.assign(panel=panel, dataset=dataset)
              for panel, by_dataset in panels.items() for dataset, frame in by_dataset.items()]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    runs = counts_text(frame["runs"]) if not frame.empty else "0"
    number = name[len("figure"):]
    text = "\n".join([
        f"# Iterative-classification paper, Appendix Figure {number}: ACC of IC on k-means "
        "against P", "",
        *figure_markdown(name, panels),
        "IC (50 iterations, P drawn uniformly from [P1, P2] in each iteration; Appendix A) on "
        "the k-means clustering of each seed (k-means++ on the representation below, "
        "K = the true number of classes); the paper's figures are drawn from the same "
        "setting with GloVe vectors. The paper gives the curves and only their best "
        "values, quoted above; its 'accuracy' is what the authors' code computes (purity, "
        "see the tables), so both are shown. Percent, mean ± std over the runs.",
        representation,
        f"Runs per point: {runs} (the paper does not state its count; "
        f"by default the figures use {FIGURE_RUNS} seeds, the tables 20). "
        f"Figure: `{name}.png`.",
        provenance_line(job),
    ]) + "\n"
    job.write_table(name, frame, text)
    draw_figure(panels, job.figure_path(name), number)


def draw_figure(panels: dict[str, dict[str, pd.DataFrame]], path, number: str) -> None:
    """ACC and purity against the swept P of each panel, the paper's best value starred.

    The title names the figure, the metrics and the runs behind each point; the y axis
    is ACC and purity in percent (the paper's 'accuracy' is the authors' purity).
    """
    from shortclust.pipeline.plots import (
        Curve, draw_curves, figure_legend, panel_figure, save_figure, spread_text,
    )

    figure, axes = panel_figure(len(panels), columns=2, size=5.0)
    runs = [r for frames in panels.values() for frame in frames.values() for r in frame["runs"]]
    for axis, (panel, frames) in zip(axes, panels.items()):
        title, x = PANEL_TITLES[panel]
        curves = []
        for i, (dataset, frame) in enumerate(frames.items()):
            color = f"C{i}"
            short = DATASETS[dataset][0]
            curves.append(Curve(list(frame["x"]), list(frame["acc_mean"]),
                                list(frame["acc_std"]), f"{short} ACC", {"color": color}))
            curves.append(Curve(list(frame["x"]), list(frame["purity_mean"]),
                                list(frame["purity_std"]), f"{short} purity",
                                {"color": color, "linestyle": "--"}))
        draw_curves(axis, curves, x, "ACC and purity (%)",
                    f"Figure {panel[len('figure'):]}: {title}", legend=None)
        for i, dataset in enumerate(frames):
            paper_x, paper_acc = FIGURE_PAPER[panel][dataset]
            axis.plot([paper_x], [paper_acc], marker="*", markersize=11, color=f"C{i}",
                      linestyle="none",
                      label=f"{DATASETS[dataset][0]} paper best" if i < 2 else None)
    figure_legend(figure, axes[0])
    figure.suptitle(f"IC paper, Appendix Figure {number}: ACC and purity of IC on k-means "
                    f"against P\n({spread_text(runs)}; star: the paper's best accuracy)",
                    fontsize=10)
    save_figure(figure, path)
