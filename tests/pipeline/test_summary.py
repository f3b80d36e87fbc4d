"""Summaries: mean and sample std per setting, CSV/Markdown files, terminal table."""

import math
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from shortclust.pipeline.summary import (
    summarize,
    summary_csv,
    summary_markdown,
    summary_rows,
    summary_table,
    write_summary,
)


def record(seed, nmi, params=None, n_clusters=5, fit_seconds=1.0, dataset="Tweet"):
    return {"dataset": dataset, "preprocess": "none", "model": "gsdmm",
            "params": params or {"alpha": 0.1}, "seed": seed, "metrics": None if nmi is None else
            {"nmi": nmi, "acc": nmi / 2}, "n_clusters": n_clusters, "fit_seconds": fit_seconds}


def test_mean_and_sample_std_per_setting():
    summary = summarize([record(0, 0.5, n_clusters=4), record(1, 0.7, n_clusters=6),
                         record(0, 0.9, params={"alpha": 0.2})])
    assert list(summary["runs"]) == [2, 1]
    first, second = summary.iloc[0], summary.iloc[1]
    assert first["nmi_mean"] == pytest.approx(0.6)
    assert first["nmi_std"] == pytest.approx(math.sqrt(0.02))  # ddof=1
    assert first["n_clusters_mean"] == 5 and first["n_clusters_std"] == pytest.approx(math.sqrt(2))
    assert second["nmi_std"] == 0.0  # one run
    assert list(summary.columns[:5]) == ["dataset", "preprocess", "model", "params", "runs"]
    assert summary.columns.get_loc("nmi_mean") < summary.columns.get_loc("acc_mean")


def test_no_records_give_an_empty_summary():
    summary = summarize([])
    assert summary.empty and "runs" in summary.columns
    assert "0 runs" in summary_markdown(summary)


def test_markdown_has_mean_std_cells_and_run_count():
    text = summary_markdown(summarize([record(0, 0.5), record(1, 0.7)]))
    lines = text.splitlines()
    assert lines[0].startswith("| dataset | preprocess | model | params | runs | nmi | acc |")
    assert "| Tweet | none | gsdmm | alpha=0.1 | 2 | 0.6000 ± 0.1414 |" in lines[2]
    assert "2 runs in 1 setting" in text


def test_unlabelled_corpus_says_metrics_are_omitted():
    summary = summarize([record(0, None), record(1, None)])
    text = summary_markdown(summary)
    assert "Metrics omitted for Tweet" in text
    assert "nmi" not in text.splitlines()[0]


def test_write_summary_files(tmp_path):
    summary = summarize([record(0, 0.5), record(1, 0.7)])
    csv_path, md_path = write_summary(summary, tmp_path)
    assert pd.read_csv(csv_path)["nmi_mean"].iloc[0] == pytest.approx(0.6)
    assert md_path.read_text() == summary_markdown(summary)


def test_terminal_table_renders():
    console = Console(record=True, width=200)
    console.print(summary_table(summarize([record(0, 0.5), record(1, 0.7)])))
    text = console.export_text()
    assert "0.6000 ± 0.1414" in text and "nmi" in text


def test_csv_written_without_pandas_is_what_pandas_writes():
    # summary.csv is written from the rows, without pandas; a user reading it with pandas,
    # or comparing it with summarize(...).to_csv, finds the same text.
    records = [record(0, 0.5), record(1, 1 / 3, n_clusters=7, fit_seconds=1e-05),
               record(0, None, dataset="Unlabelled"),
               record(2, 0.1 + 0.2, params={"alpha": 0.2, "name": 'a "quoted", text'}),
               {**record(3, 0.9), "metrics": {"nmi": 0.9, "acc": None, "npmi": -0.25}},
               {**record(4, 0.8), "preprocess": None, "fit_seconds": 123456789.125}]
    summary = summarize(records)
    csv_path, _ = write_summary(summary_rows(records), tmp := Path(tempfile.mkdtemp()))
    assert csv_path.read_text() == summary.to_csv(index=False)
    assert write_summary(summary, tmp)[0].read_text() == summary.to_csv(index=False)
    assert summary_markdown(summary_rows(records)) == summary_markdown(summary)


def test_no_records_csv_is_the_header():
    assert summary_csv(summary_rows([])) == summarize([]).to_csv(index=False)
