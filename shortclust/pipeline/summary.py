"""Summaries of run records: mean and standard deviation over seeds, per setting.

A *setting* is one (dataset, preprocess, model, params) combination; its runs differ only
in the seed. The summary gives, for each setting, the number of runs and the mean and sample
standard deviation (``ddof=1``; 0 for a single run) of every metric, of the number of
clusters found and of the fit time. It is computed from records only, so it can be rebuilt
at any time from ``records.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from shortclust.pipeline.records import atomic_write_text

GROUP_KEYS = ["dataset", "preprocess", "model", "params"]
EXTRA_VALUES = ["n_clusters", "fit_seconds"]
SUMMARY_CSV = "summary.csv"
SUMMARY_MD = "summary.md"

_HEADERS = {"n_clusters": "clusters", "fit_seconds": "fit seconds"}
_DIGITS = {"n_clusters": 1, "fit_seconds": 3}
_METRIC_DIGITS = 4


def records_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per record: the grouping keys, the seed, each metric and topic-quality
    measure, clusters and fit time.

    ``params`` becomes canonical JSON text so that it can be grouped on.
    """
    from shortclust.evaluation.coherence import TOPIC_QUALITY_MEASURES

    rows = []
    for record in records:
        row = {key: record.get(key) for key in GROUP_KEYS}
        row["params"] = json.dumps(record.get("params") or {}, sort_keys=True)
        row["seed"] = record.get("seed")
        row.update({key: record.get(key) for key in EXTRA_VALUES})
        row.update(record.get("metrics") or {})
        quality = record.get("topic_quality") or {}
        row.update({name: quality[name] for name in TOPIC_QUALITY_MEASURES if name in quality})
        rows.append(row)
    return pd.DataFrame(rows)


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """Metric names present in ``frame``, in the canonical order (``in_metric_order``)."""
    from shortclust.evaluation.metrics import in_metric_order

    fixed = set(GROUP_KEYS) | set(EXTRA_VALUES) | {"seed"}
    return in_metric_order(c for c in frame.columns if c not in fixed)


def summarize(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """Aggregate records per setting.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, preprocess, model, params`` (canonical JSON), ``runs``, then
        ``<value>_mean`` and ``<value>_std`` for each metric, ``n_clusters`` and
        ``fit_seconds``. One row per setting, in order of first appearance. A metric that
        could not be computed (unlabelled corpus) is NaN.
    """
    frame = records_frame(records)
    if frame.empty:
        return pd.DataFrame(columns=GROUP_KEYS + ["runs"])
    from shortclust.evaluation.stats import summarize_groups

    values = metric_columns(frame) + EXTRA_VALUES
    frame[values] = frame[values].apply(pd.to_numeric, errors="coerce")
    return summarize_groups(frame, GROUP_KEYS, values, sort=False)


def summary_notes(summary: pd.DataFrame) -> list[str]:
    """Sentences to print under a summary table: run count, statistics, missing metrics."""
    runs = int(summary["runs"].sum()) if not summary.empty else 0
    notes = [
        f"{runs} run{'s' if runs != 1 else ''} in {len(summary)} setting"
        f"{'s' if len(summary) != 1 else ''}; cells are mean ± sample std over seeds "
        "(ddof=1; 0 for a single run); fit seconds exclude one-off kernel compilation."
    ]
    unlabelled = _unlabelled_datasets(summary)
    if unlabelled:
        notes.append(
            f"Metrics omitted for {', '.join(unlabelled)}: the corpus has no ground-truth labels."
        )
    if any(f"{name}_mean" in summary.columns for name in _topic_measures()):
        notes.append("npmi, c_v: mean coherence of the clusters' top words; diversity: "
                     "their share of distinct words.")
    return notes


def _topic_measures() -> tuple[str, ...]:
    from shortclust.evaluation.coherence import TOPIC_QUALITY_MEASURES

    return TOPIC_QUALITY_MEASURES


def _unlabelled_datasets(summary: pd.DataFrame) -> list[str]:
    unlabelled_too = set(EXTRA_VALUES) | set(_topic_measures())
    means = [c for c in summary.columns if c.endswith("_mean") and c[:-5] not in unlabelled_too]
    if summary.empty:
        return []
    if not means:
        return sorted(set(summary["dataset"].astype(str)))
    missing = summary[means].isna().all(axis=1)
    return sorted(set(summary.loc[missing, "dataset"].astype(str)))


# --------------------------------------------------------------------------------------------
# display


def display_rows(summary: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Headers and text cells (``mean ± std``) shared by the Markdown and terminal tables."""
    values = [c[: -len("_mean")] for c in summary.columns if c.endswith("_mean")]
    metrics = [v for v in values if v not in EXTRA_VALUES]
    metrics = [m for m in metrics if summary[f"{m}_mean"].notna().any()]
    shown = metrics + [v for v in values if v in EXTRA_VALUES]
    headers = ["dataset", "preprocess", "model", "params", "runs"]
    headers += [_HEADERS.get(v, v) for v in shown]
    rows = []
    for _, row in summary.iterrows():
        cells = [str(row["dataset"]), str(row["preprocess"]), str(row["model"])]
        cells += [format_params(row["params"]), str(int(row["runs"]))]
        cells += [_mean_std(row, v) for v in shown]
        rows.append(cells)
    return headers, rows


def format_params(params_json: str) -> str:
    """``{"alpha": 0.1, "beta": 0.1}`` as ``alpha=0.1, beta=0.1``."""
    params = json.loads(params_json) if params_json else {}
    return ", ".join(f"{key}={value}" for key, value in sorted(params.items()))


def _mean_std(row: pd.Series, value: str) -> str:
    mean, std = row[f"{value}_mean"], row[f"{value}_std"]
    if pd.isna(mean):
        return "n/a"
    digits = _DIGITS.get(value, _METRIC_DIGITS)
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def summary_markdown(summary: pd.DataFrame) -> str:
    """A Markdown table of ``mean ± std`` cells followed by the notes."""
    headers, rows = display_rows(summary)
    lines = [_md_row(headers), _md_row(["---"] * len(headers))]
    lines += [_md_row(cells) for cells in rows]
    return "\n".join(lines) + "\n\n" + "\n".join(summary_notes(summary)) + "\n"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def summary_table(summary: pd.DataFrame, title: str | None = None):
    """The summary as a :class:`rich.table.Table` for the terminal, one column per setting.

    Transposed (a row per metric) so that eight metrics fit an 80-column terminal; what all
    settings share (dataset, model, ...) goes into the title, what differs into the headers.
    """
    from rich.table import Table

    headers, rows = display_rows(summary)
    shared, varying = _split_shared(headers[:4], rows)
    heading = " · ".join(part for part in [title, *shared] if part)
    table = Table(title=heading or None, caption=" ".join(summary_notes(summary)))
    table.add_column("")
    for index, row in enumerate(rows, 1):
        default = "mean ± std" if len(rows) == 1 else f"#{index}"
        label = ", ".join(row[i] for i in varying) or default
        table.add_column(label, justify="right")
    for position, header in enumerate(headers[4:], 4):
        table.add_row(header, *(row[position] for row in rows))
    return table


def _split_shared(keys: list[str], rows: list[list[str]]) -> tuple[list[str], list[int]]:
    """Values of the grouping columns equal in every row, and positions of the others."""
    shared, varying = [], []
    for position, _ in enumerate(keys):
        values = {row[position] for row in rows}
        if len(values) == 1:
            shared.append(values.pop())
        else:
            varying.append(position)
    return shared, varying


def write_summary(summary: pd.DataFrame, output_dir) -> tuple[Path, Path]:
    """Write ``summary.csv`` and ``summary.md`` atomically; return their paths."""
    output_dir = Path(output_dir)
    csv_path, md_path = output_dir / SUMMARY_CSV, output_dir / SUMMARY_MD
    atomic_write_text(csv_path, summary.to_csv(index=False))
    atomic_write_text(md_path, summary_markdown(summary))
    return csv_path, md_path
