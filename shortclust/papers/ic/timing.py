"""How long the IC reproduction took: ``results/ic/timing.md`` (and ``.csv``), per item.

Each item is wrapped (:func:`timed_items`) so that its wall time, the runs it fitted and
the runs it used go into the item's row for the run count asked for. Unlike the tables,
this file depends on the machine and on how the runs were spread over invocations.
"""

from __future__ import annotations

import time

import pandas as pd

from shortclust.pipeline.reproduce import markdown_table
from shortclust.papers.ic.settings import FIGURE_RUNS


def timed_items(items: dict) -> dict:
    """``items`` (name -> function returning its runs' totals), each timed, rows in this order."""
    order = list(items)
    return {name: timed(name, function, order) for name, function in items.items()}


def timed(name: str, function, order: list[str]):
    """Wrap an item so that its wall time and run counts go into ``timing.md``.

    ``function(job)`` returns the totals of the runs it used (``runs``, ``fit_seconds``);
    ``order`` is the order of the items' rows.
    """
    from shortclust.pipeline.runner import ExperimentInterrupted

    def item(job) -> None:
        started, fitted = time.perf_counter(), job.fitted
        try:
            totals = function(job) or {}
        except (KeyboardInterrupt, ExperimentInterrupted):
            # Ctrl-C reaches here as the runner's ExperimentInterrupted (during a fit) or
            # as KeyboardInterrupt (between fits). The runs it finished are kept, so
            # their time counts too.
            record_timing(job, name, time.perf_counter() - started, job.fitted - fitted, {},
                          interrupted=True, order=order)
            raise
        record_timing(job, name, time.perf_counter() - started, job.fitted - fitted, totals,
                      order=order)

    item.__doc__ = function.__doc__
    return item


def record_timing(job, name: str, seconds: float, fitted: int, totals: dict,
                  interrupted: bool = False, order: list[str] = ()) -> None:
    """Update the item's row (per run count) of ``timing.csv`` and rewrite ``timing.md``.

    The wall time accumulates over the invocations that fitted runs of the item, so an
    interrupted and resumed reproduction still adds up to its whole time; an invocation
    that only reused runs leaves it alone, and one that fitted every run replaces it. An
    ``interrupted`` invocation (Ctrl-C) always adds its time and runs to the row, and keeps
    the runs used and their fit time from the last complete one. Rows are sorted by run
    count, then by the item's place in ``order`` (items not in it last).
    """
    path = job.seeded("timing.csv")
    runs = f"default (20; figures {FIGURE_RUNS})" if job.runs is None else str(job.runs)
    frame = pd.read_csv(path, dtype={"runs_setting": str}) if path.exists() else pd.DataFrame()
    used = totals.get("runs", 0)
    # A --no-fit rebuild's few seconds are not the item's time: keep what was measured.
    wall = round(seconds, 1) if job.fit else float("nan")
    row = {"item": name, "runs_setting": runs, "wall_seconds": wall,
           "runs_fitted": fitted, "runs_used": used,
           "fit_seconds_sum": round(totals.get("fit_seconds", 0.0), 1)}
    if not frame.empty:
        same = (frame["item"] == name) & (frame["runs_setting"] == runs)
        if same.any() and (interrupted or fitted < used):
            before = frame[same].iloc[0]
            if interrupted:  # no totals: the last complete build's still describe the runs
                row["runs_used"] = int(before["runs_used"])
                row["fit_seconds_sum"] = before["fit_seconds_sum"]
            _add_earlier_time(row, before, fitted, interrupted)
        frame = frame[~same]
    frame = pd.concat([frame, pd.DataFrame([row])], ignore_index=True)
    position = {item: i for i, item in enumerate(order)}
    frame = (frame.assign(order=frame["item"].map(position).fillna(len(position)))
             .sort_values(["runs_setting", "order"]).drop(columns="order")
             .reset_index(drop=True))
    job.write_table("timing", frame, timing_markdown(frame))


def _add_earlier_time(row: dict, before, fitted: int, interrupted: bool) -> None:
    """Add the earlier invocations' wall time and fitted runs to ``row`` (this one's).

    An invocation that fitted nothing keeps the earlier row as it was, unless it was
    interrupted (its time went into a run it did not finish). An earlier time
    not measured (runs fitted by other processes, then a ``--no-fit`` rebuild) adds
    nothing: the row then counts only the measured invocations and the runs they
    fitted, rather than hiding a measured time behind "not measured".
    """
    if fitted == 0 and not interrupted:
        row["wall_seconds"], row["runs_fitted"] = before["wall_seconds"], before["runs_fitted"]
    elif not pd.isna(before["wall_seconds"]):
        row["wall_seconds"] = round(before["wall_seconds"] + row["wall_seconds"], 1)
        row["runs_fitted"] = int(before["runs_fitted"]) + fitted


def _minutes(seconds) -> str:
    return "not measured" if pd.isna(seconds) else f"{seconds / 60:.1f}"


def timing_markdown(frame: pd.DataFrame) -> str:
    """``timing.md`` from the timing table (one row per item and run count)."""
    rows = [[r["item"], r["runs_setting"], _minutes(r["wall_seconds"]),
             int(r["runs_fitted"]), int(r["runs_used"]), f"{r['fit_seconds_sum'] / 60:.1f}"]
            for _, r in frame.iterrows()]
    totals = []
    for runs, part in frame.groupby("runs_setting", sort=True):
        measured = part["wall_seconds"].notna().sum()
        wall = (f"{part['wall_seconds'].sum() / 60:.1f} min of wall time over {measured} "
                "items" if measured else "wall time not measured")
        totals.append(f"- `--runs {runs}`: {wall}, {int(part['runs_fitted'].sum())} runs "
                      "fitted.")
    return "\n".join([
        "# Iterative-classification paper: time taken by `shortclust reproduce ic`", "",
        markdown_table(["item", "runs per cell", "wall time (min)", "runs fitted",
                        "runs used", "fit time of the runs used (min)"], rows), "",
        *totals, "",
        "Wall time: summed over the invocations that fitted runs of the item at that run "
        "count (an invocation that only reused runs adds nothing; one that fitted every "
        "run starts the sum afresh), on this machine (two cores, `OMP_NUM_THREADS=1`, one "
        "process); 'runs fitted' are the runs those invocations fitted, the others having "
        "been reused from `runs/reproduce/ic/` (fitted by another item or at a smaller "
        "`--runs`). Items share runs (Table 3 reuses every run of Table 2, Table 5 those of "
        "Table 4), so the whole reproduction took about the sum of the wall times. Fit "
        "time: the sum of the recorded fit times of the runs an item uses (an IC run "
        "includes its initial clustering unless that was reused in the same process). "
        "Sentence embeddings are computed once per corpus and cached on disk (not counted "
        "in fit times). 'not measured': the runs were fitted by other invocations (for "
        "example several processes at once, each on some datasets) and this file was "
        "rebuilt with `--no-fit`, so only the fit time of the runs is known. Unlike the "
        "tables, this file changes with every regeneration.",
    ]) + "\n"
