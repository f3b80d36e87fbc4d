"""The fit times behind the Ncut-NMF tables: ``results/ncut/timing.md`` (and ``.csv``).

Fit times change whenever the same runs are fitted again, so the tables leave them out
and each item that runs configs reports its runs' recorded fit times here instead, one
row per (item, dataset, method). An item replaces its own rows; the others stay.
"""

from __future__ import annotations

import pandas as pd

from shortclust.evaluation.stats import format_mean_std, stat_row
from shortclust.pipeline.reproduce import markdown_table, metric_values

TIMING = "timing"
COLUMNS = ["item", "dataset", "method", "runs", "fit_seconds_mean", "fit_seconds_std",
           "fit_seconds_sum"]


def fit_time_row(item: str, dataset: str, method: str, records: list[dict]) -> dict:
    """The runs' recorded fit times: count, mean ± std and sum (seconds)."""
    seconds = metric_values(records, "fit_seconds")
    cell = stat_row(seconds)
    return {"item": item, "dataset": dataset, "method": method, "runs": cell["runs"],
            "fit_seconds_mean": cell["mean"], "fit_seconds_std": cell["std"],
            "fit_seconds_sum": sum(s for s in seconds if s is not None)}


def record_fit_times(job, item: str, rows: list[dict], order: list[str]) -> None:
    """Replace ``item``'s rows of ``timing.csv`` with ``rows``; rewrite ``timing.md``.

    Rows are kept in the order of the items in ``order``, then as given.
    """
    path = job.seeded(f"{TIMING}.csv")
    frame = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=COLUMNS)
    kept = frame[frame["item"] != item].to_dict("records")
    position = {name: i for i, name in enumerate(order)}
    merged = sorted(kept + rows, key=lambda row: position.get(row["item"], len(position)))
    frame = pd.DataFrame(merged, columns=COLUMNS)
    job.write_table(TIMING, frame, timing_markdown(frame))


def timing_markdown(frame: pd.DataFrame) -> str:
    """``timing.md`` from the timing table."""
    rows = [[r["item"], r["dataset"], r["method"], int(r["runs"]),
             format_mean_std(r["fit_seconds_mean"], r["fit_seconds_std"], 2, "no runs"),
             f"{r['fit_seconds_sum']:.1f}"] for _, r in frame.iterrows()]
    return "\n".join([
        "# Ncut-NMF paper: fit times of the runs behind each table", "",
        markdown_table(["item", "dataset", "method", "runs", "fit seconds per run",
                        "fit seconds in all"], rows), "",
        "From the fit time each run recorded (model fit only: no data loading, kernel "
        "compilation or evaluation), mean ± sample std over the runs an item uses (for "
        "`figure3` and `lambda`, over every grid point); runs shared by two items count "
        "in both. Unlike the tables, this file changes when the runs are fitted again "
        "(another machine, `--jobs`).",
    ]) + "\n"
