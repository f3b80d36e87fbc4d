"""What a benchmark suite's archived runs cost: fit CPU and wall seconds per leaderboard.

Reads the archive alone (``results/benchmark/records/``), so it runs on a fresh clone
without data or fitting::

    python benchmarks/benchmark_cost.py all          # Markdown, one row per leaderboard

Per leaderboard (a labelled set, or a stream): the cells with at least one run, the runs
the suite asks for that are archived (seeds 0..N-1, N being the suite's run count, or 1 for
a model without a seed), and the sums of their fit CPU seconds and fit wall seconds as
each record states them. The sums count the fits only: not loading the corpora, computing
the representations (MiniLM embeddings are cached once per corpus), scoring, or starting
processes; and a record's times are those of the machine and load it was fitted under
(its ``timestamp`` and ``git_commit`` say when), so they are a record of what was spent,
not a measurement of one sitting.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shortclust.apps.benchmark import suites  # noqa: E402
from shortclust.pipeline.records import read_archive  # noqa: E402


def suite_cost(root: Path, name: str) -> list[dict]:
    """One row per leaderboard of suite ``name``: cells run, runs, fit CPU and wall sums."""
    suite = suites.load_suite(root, name)
    cells = suites.cells(suite, suites.load_models(root), true_k=lambda dataset: 2)
    rows: dict[str, dict] = {}
    for cell in cells:
        row = rows.setdefault(cell.board, {"board": cell.board, "cells": 0, "of": 0,
                                           "runs": 0, "cpu": 0.0, "wall": 0.0,
                                           "first": None, "last": None})
        row["of"] += 1
        archive = root / "results" / "benchmark" / "records" / f"{cell.tag}.json"
        records = read_archive(archive) if archive.exists() else []
        planned = [r for r in records if r["seed"] < cell.config["runs"]]
        if not planned:
            continue
        row["cells"] += 1
        row["runs"] += len(planned)
        row["cpu"] += sum(r["fit_cpu_seconds"] for r in planned)
        row["wall"] += sum(r["fit_seconds"] for r in planned)
        stamps = sorted(r["timestamp"] for r in planned)
        row["first"] = min(filter(None, (row["first"], stamps[0])))
        row["last"] = max(filter(None, (row["last"], stamps[-1])))
    return list(rows.values())


def markdown(name: str, rows: list[dict]) -> str:
    lines = [f"Suite `{name}`: fit seconds of its archived runs (sums over records)", "",
             "| leaderboard | cells run | runs | fit CPU s | fit wall s | records from | to |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['board']} | {row['cells']} of {row['of']} | {row['runs']} | "
                     f"{row['cpu']:,.0f} | {row['wall']:,.0f} | {row['first'] or '-'} | "
                     f"{row['last'] or '-'} |")
    total = {key: sum(row[key] for row in rows) for key in ("cells", "of", "runs", "cpu",
                                                            "wall")}
    lines.append(f"| all | {total['cells']} of {total['of']} | {total['runs']} | "
                 f"{total['cpu']:,.0f} ({total['cpu'] / 3600:.2f} h) | "
                 f"{total['wall']:,.0f} ({total['wall'] / 3600:.2f} h) | | |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", help="a suite of configs/benchmark/ (e.g. all, quick)")
    parser.add_argument("--json", action="store_true", help="the rows as JSON instead")
    args = parser.parse_args(argv)
    rows = suite_cost(ROOT, args.suite)
    print(json.dumps(rows, indent=1) if args.json else markdown(args.suite, rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
