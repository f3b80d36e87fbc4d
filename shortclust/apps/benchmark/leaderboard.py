"""Leaderboards from benchmark records: one table per dataset, and the mean ranks over them.

Everything here is computed from run records alone (metrics, clusters found, fit CPU
seconds and peak memory are in each record), in seed order, so the same records always
give the same bytes (``shortclust benchmark --no-fit``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shortclust.pipeline.reproduce import markdown_table

#: Leaderboard columns: metric key in a record -> header.
COLUMNS = {"nmi": "NMI", "ami": "AMI", "ari": "ARI", "acc": "ACC", "purity": "purity",
           "npmi": "NPMI"}
#: The metrics the mean-rank table ranks by (higher is better for each).
RANKED = ("nmi", "ari", "acc")


def _values(records: list[dict], key: str) -> list[float]:
    if key == "npmi":
        found = [(r.get("topic_quality") or {}).get("npmi") for r in records]
    else:
        found = [(r.get("metrics") or {}).get(key) for r in records]
    return [float(v) for v in found if v is not None]


def _mean_std(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(array.std(ddof=1)) if len(array) > 1 else 0.0


def cell_row(cell, records: list[dict]) -> dict:
    """One leaderboard row: means, stds and costs over a cell's records (seed order)."""
    row = {"method": cell.method, "model": cell.entry, "k": cell.k, "runs": len(records)}
    for key in COLUMNS:
        row[f"{key}_mean"], row[f"{key}_std"] = _mean_std(_values(records, key))
    clusters = [r["n_clusters"] for r in records if r.get("n_clusters") is not None]
    row["clusters_mean"] = float(np.mean(clusters)) if clusters else None
    for key, name in (("fit_cpu_seconds", "cpu_s"), ("fit_seconds", "wall_s"),
                      ("fit_peak_mb", "peak_mb")):
        found = [float(r[key]) for r in records if r.get(key) is not None]
        row[f"{name}_median"] = float(np.median(found)) if found else None
    return row


def leaderboard_frame(rows: list[dict]) -> pd.DataFrame:
    """Rows sorted best first by mean NMI (cells without runs last, in suite order)."""
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["_order"] = range(len(frame))
    frame = frame.sort_values(["nmi_mean", "_order"], ascending=[False, True],
                              na_position="last", kind="mergesort")
    return frame.drop(columns="_order").reset_index(drop=True)


def _cell(mean, std, digits=3) -> str:
    if mean is None or (isinstance(mean, float) and np.isnan(mean)):
        return "-"
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _number(value, digits) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def leaderboard_markdown(title: str, frame: pd.DataFrame, notes: dict[str, str]) -> str:
    """A dataset's leaderboard as Markdown; ``notes``: method -> why it has no runs."""
    headers = ["rank", "method", "runs", *COLUMNS.values(), "clusters", "fit CPU s",
               "peak MiB"]
    body = []
    for index, row in frame.iterrows():
        ran = row["runs"] > 0 and row["nmi_mean"] is not None and not pd.isna(row["nmi_mean"])
        body.append([index + 1 if ran else "-", row["method"], row["runs"],
                     *[_cell(row[f"{k}_mean"], row[f"{k}_std"]) for k in COLUMNS],
                     _number(row["clusters_mean"], 1), _number(row["cpu_s_median"], 2),
                     _number(row["peak_mb_median"], 1)])
    lines = [f"# {title}", "", markdown_table(headers, body), ""]
    for method, why in notes.items():
        lines.append(f"- {method}: {why}")
    return "\n".join(lines + [""] if notes else lines)


def mean_ranks(boards: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Each method's mean rank (1 = best; ties share their mean rank) over the datasets
    where it ran, for each metric of :data:`RANKED`, with the number of those datasets."""
    ranks: dict[str, dict[str, list[float]]] = {}
    nmis: dict[str, list[float]] = {}
    for frame in boards.values():
        ran = frame[frame["runs"] > 0].dropna(subset=["nmi_mean"])
        for metric in RANKED:
            ranked = ran[f"{metric}_mean"].rank(ascending=False, method="average")
            for method, rank in zip(ran["method"], ranked):
                ranks.setdefault(method, {m: [] for m in RANKED})[metric].append(float(rank))
        for method, nmi in zip(ran["method"], ran["nmi_mean"]):
            nmis.setdefault(method, []).append(float(nmi))
    rows = [{"method": method, "datasets": len(nmis[method]),
             **{f"rank_{m}": float(np.mean(values[m])) for m in RANKED},
             "nmi_mean": float(np.mean(nmis[method]))}
            for method, values in ranks.items()]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["_order"] = range(len(frame))
    frame = frame.sort_values(["rank_nmi", "_order"], kind="mergesort")
    return frame.drop(columns="_order").reset_index(drop=True)


def ranks_markdown(title: str, frame: pd.DataFrame, datasets: list[str]) -> str:
    headers = ["method", "datasets", *(f"mean rank {COLUMNS[m]}" for m in RANKED),
               "mean NMI"]
    body = [[row["method"], row["datasets"], *(f"{row[f'rank_{m}']:.2f}" for m in RANKED),
             f"{row['nmi_mean']:.3f}"] for _, row in frame.iterrows()]
    return "\n".join([
        f"# {title}", "", markdown_table(headers, body), "",
        f"Ranks within each of {len(datasets)} leaderboards ({', '.join(datasets)}): 1 is "
        "the best mean over the runs; tied means share their mean rank. A method is ranked "
        "only on the leaderboards where it ran, so compare rows with the same `datasets` "
        "count first.", ""])
