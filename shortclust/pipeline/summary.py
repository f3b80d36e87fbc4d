"""Summaries of run records: mean and standard deviation over seeds, per setting.

A *setting* is one (dataset, preprocess, model, params) combination; its runs differ only
in the seed. The summary gives, for each setting, the number of runs and the mean and sample
standard deviation (``ddof=1``; 0 for a single run) of every metric, of the number of
clusters found and of the fit time. It is computed from records only, so it can be rebuilt
at any time from ``records.jsonl``.

:func:`summary_rows` computes it without pandas (``shortclust run`` writes and prints it on
every run, and importing pandas would cost more CPU than some experiments' fits);
:func:`summarize` gives the same rows as a pandas DataFrame for Python users. The display
functions take either.
"""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from shortclust.evaluation.stats import mean_std
from shortclust.pipeline.records import atomic_write_text

GROUP_KEYS = ["dataset", "preprocess", "model", "params"]
EXTRA_VALUES = ["n_clusters", "fit_seconds"]
SUMMARY_CSV = "summary.csv"
SUMMARY_MD = "summary.md"

_HEADERS = {"n_clusters": "clusters", "fit_seconds": "fit seconds"}
_DIGITS = {"n_clusters": 1, "fit_seconds": 3}
_METRIC_DIGITS = 4


def record_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per record: the grouping keys, the seed, each metric and topic-quality
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
    return rows


def records_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """:func:`record_rows` as a pandas DataFrame, one row per record."""
    import pandas as pd

    return pd.DataFrame(record_rows(records))


def metric_columns(columns: Iterable[str]) -> list[str]:
    """Metric names among ``columns`` (or a DataFrame's columns), in the canonical order
    (``in_metric_order``)."""
    from shortclust.evaluation.metrics import in_metric_order

    fixed = set(GROUP_KEYS) | set(EXTRA_VALUES) | {"seed"}
    return in_metric_order(c for c in columns if c not in fixed)


@dataclass(frozen=True)
class SummaryRows:
    """A summary without pandas: its column names and one dict per setting."""

    columns: list[str]
    rows: list[dict[str, Any]]


def summary_rows(records: Iterable[dict[str, Any]]) -> SummaryRows:
    """Aggregate records per setting, without pandas.

    Returns
    -------
    SummaryRows
        Columns ``dataset, preprocess, model, params`` (canonical JSON), ``runs``, then
        ``<value>_mean`` and ``<value>_std`` for each metric, ``n_clusters`` and
        ``fit_seconds``, from :func:`~shortclust.evaluation.stats.mean_std` over the
        setting's runs in record order. One row per setting, in order of first
        appearance. A metric that could not be computed (unlabelled corpus) is NaN.
    """
    flat = record_rows(records)
    present = list(dict.fromkeys(key for row in flat for key in row))
    values = metric_columns(present) + EXTRA_VALUES if flat else []
    settings: dict[tuple, list[dict[str, Any]]] = {}
    for row in flat:
        settings.setdefault(tuple(row[key] for key in GROUP_KEYS), []).append(row)
    columns = GROUP_KEYS + ["runs"] + [f"{v}_{stat}" for v in values for stat in ("mean", "std")]
    rows = []
    for key, runs in settings.items():
        row = {**dict(zip(GROUP_KEYS, key)), "runs": len(runs)}
        for value in values:
            row[f"{value}_mean"], row[f"{value}_std"] = mean_std(
                _number(run.get(value)) for run in runs)
        rows.append(row)
    return SummaryRows(columns, rows)


def _number(value):
    """A value as a number, None when it is not one (as pandas' to_numeric coerces)."""
    return value if isinstance(value, numbers.Real) and not isinstance(value, bool) else None


def summarize(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """:func:`summary_rows` as a pandas DataFrame (the columns it lists, one row per
    setting); with no record, the columns ``dataset, preprocess, model, params, runs``."""
    import pandas as pd

    table = summary_rows(records)
    return pd.DataFrame(table.rows, columns=table.columns)


def _as_rows(summary) -> SummaryRows:
    """A summary given as :class:`SummaryRows` or as a DataFrame, as SummaryRows."""
    if isinstance(summary, SummaryRows):
        return summary
    return SummaryRows(list(summary.columns), summary.to_dict("records"))


def _is_nan(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def summary_notes(summary) -> list[str]:
    """Sentences to print under a summary table: run count, statistics, missing metrics."""
    table = _as_rows(summary)
    runs = sum(int(row["runs"]) for row in table.rows)
    settings = len(table.rows)
    notes = [
        f"{runs} run{'s' if runs != 1 else ''} in {settings} setting"
        f"{'s' if settings != 1 else ''}; cells are mean ± sample std over seeds "
        "(ddof=1; 0 for a single run); fit seconds exclude one-off kernel compilation."
    ]
    unlabelled = _unlabelled_datasets(table)
    if unlabelled:
        notes.append(
            f"Metrics omitted for {', '.join(unlabelled)}: the corpus has no ground-truth labels."
        )
    if any(f"{name}_mean" in table.columns for name in _topic_measures()):
        notes.append("npmi, c_v: mean coherence of the clusters' top words; diversity: "
                     "their share of distinct words.")
    return notes


def _topic_measures() -> tuple[str, ...]:
    from shortclust.evaluation.coherence import TOPIC_QUALITY_MEASURES

    return TOPIC_QUALITY_MEASURES


def _unlabelled_datasets(table: SummaryRows) -> list[str]:
    unlabelled_too = set(EXTRA_VALUES) | set(_topic_measures())
    means = [c for c in table.columns if c.endswith("_mean") and c[:-5] not in unlabelled_too]
    missing = [row for row in table.rows if all(_is_nan(row[c]) for c in means)]
    return sorted({str(row["dataset"]) for row in missing})


# --------------------------------------------------------------------------------------------
# display


def display_rows(summary) -> tuple[list[str], list[list[str]]]:
    """Headers and text cells (``mean ± std``) shared by the Markdown and terminal tables."""
    table = _as_rows(summary)
    values = [c[: -len("_mean")] for c in table.columns if c.endswith("_mean")]
    metrics = [v for v in values if v not in EXTRA_VALUES]
    metrics = [m for m in metrics if not all(_is_nan(row[f"{m}_mean"]) for row in table.rows)]
    shown = metrics + [v for v in values if v in EXTRA_VALUES]
    headers = ["dataset", "preprocess", "model", "params", "runs"]
    headers += [_HEADERS.get(v, v) for v in shown]
    rows = []
    for row in table.rows:
        cells = [_key_text(row[key]) for key in ("dataset", "preprocess", "model")]
        cells += [format_params(row["params"]), str(int(row["runs"]))]
        cells += [_mean_std(row, v) for v in shown]
        rows.append(cells)
    return headers, rows


def _key_text(value) -> str:
    """A grouping key as a cell; a missing one (None, or NaN from a DataFrame) as n/a."""
    return "n/a" if _is_nan(value) else str(value)


def format_params(params_json: str) -> str:
    """``{"alpha": 0.1, "beta": 0.1}`` as ``alpha=0.1, beta=0.1``."""
    params = json.loads(params_json) if params_json else {}
    return ", ".join(f"{key}={value}" for key, value in sorted(params.items()))


def _mean_std(row: dict[str, Any], value: str) -> str:
    mean, std = row[f"{value}_mean"], row[f"{value}_std"]
    if _is_nan(mean):
        return "n/a"
    digits = _DIGITS.get(value, _METRIC_DIGITS)
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def summary_markdown(summary) -> str:
    """A Markdown table of ``mean ± std`` cells followed by the notes."""
    headers, rows = display_rows(summary)
    lines = [_md_row(headers), _md_row(["---"] * len(headers))]
    lines += [_md_row(cells) for cells in rows]
    return "\n".join(lines) + "\n\n" + "\n".join(summary_notes(summary)) + "\n"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def summary_table(summary, title: str | None = None):
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


def write_summary(summary, output_dir) -> tuple[Path, Path]:
    """Write ``summary.csv`` and ``summary.md`` atomically; return their paths."""
    table = _as_rows(summary)
    output_dir = Path(output_dir)
    csv_path, md_path = output_dir / SUMMARY_CSV, output_dir / SUMMARY_MD
    atomic_write_text(csv_path, summary_csv(table))
    atomic_write_text(md_path, summary_markdown(table))
    return csv_path, md_path


def summary_csv(summary) -> str:
    """The summary as CSV text, as pandas' ``to_csv(index=False)`` writes the same table:
    floats as their shortest repr, NaN and None as empty cells, quotes only where needed."""
    table = _as_rows(summary)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow(["" if _is_nan(row[c]) else repr(float(row[c]))
                         if isinstance(row[c], float) else row[c] for c in table.columns])
    return out.getvalue()
