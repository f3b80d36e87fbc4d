"""Stream experiments: a config's corpus fed in time-ordered batches to ``partial_fit``.

A config with a ``stream:`` section runs here instead of as one fit per seed::

    stream:
      batch_by: count        # count: fixed numbers of documents; time: fixed time windows
      n_batches: 16          # count: equal batches (sizes differ by at most one) ...
      # batch_size: 700      # ... or documents per batch (the last may be smaller)
      # window: 500          # time: window length; a whole number of positions for data
      #                      # with integer times (MStream), a duration (30m, 6h, 1d, 2w)
      #                      # for ISO-8601 timestamps; windows start at the first time,
      #                      # empty ones are skipped
      partial_iter: 2        # optional: the model's partial_iter (not also in model.params)

The corpus is ordered by time (stable: ties keep file order; a corpus without times
keeps file order, so only ``batch_by: count`` applies to it). For every seed a fresh
model takes the batches through ``partial_fit``. After each batch are recorded: the
*prequential* metrics (the batch's own documents, scored right after the batch is
clustered), the *cumulative* metrics (all documents so far), the clusters found and the
seconds of the call. For comparison the same seed also fits the whole corpus the
ordinary way (as ``shortclust run`` would), and that fit's labels are scored on each
batch's documents: stream against batch on the same documents.

Output (besides ``summary.csv``/``.md`` of the final cumulative metrics):

* ``records.jsonl``: one record per seed (the run's record, so ``--resume`` skips finished
  seeds), whose ``metrics``, ``n_clusters`` and ``fit_seconds`` are those of the whole
  stream at its end (``fit_seconds``: the sum over batches; ``n_iter``: Gibbs sweeps over
  all batches), with three extra fields: ``stream`` (the settings), ``batches`` (one
  entry per batch: ``batch``, ``n_docs``, ``start``, ``end``, ``n_clusters``, ``n_iter``,
  ``seconds``, ``prequential``, ``cumulative``, ``batch_fit``; ``start``/``end`` are the
  time window ``[start, end)`` for time batching, else the times of the batch's first
  and last documents, or their stream positions without times) and ``batch_fit`` (the
  ordinary fit's ``metrics``, ``n_clusters``, ``fit_seconds``);
* ``labels/<run_id>.txt``: the stream's labels, in the corpus's document order;
* ``stream.csv``: per batch, mean and std over seeds of every series;
* ``stream.png``: per-batch NMI over the stream, mean ± std over seeds, beside the
  ordinary fit's NMI on the same documents, and the clusters found.

The table and figure are computed from the records alone (:func:`write_stream_outputs`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from shortclust.config import (
    ExperimentConfig,
    allowed_hint,
    check_model_params,
    full_model_params,
)
from shortclust.errors import ConfigError, ShortclustError
from shortclust.experiments.records import RecordStore, atomic_write_text, make_record, make_run_id
from shortclust.experiments.runner import (
    ExperimentInterrupted,
    ExperimentResult,
    finish_records,
    load_experiment_corpus,
    make_output_dirs,
    Messages,
    remove_if_unused,
    RunProgress,
)

STREAM_KEYS = ("batch_by", "batch_size", "n_batches", "window", "partial_iter")
STREAM_CSV = "stream.csv"
STREAM_PNG = "stream.png"
SERIES = ("prequential", "cumulative", "batch_fit")
_SERIES_NAMES = {
    "prequential": "stream (each batch just after it is clustered)",
    "cumulative": "stream (all documents so far)",
    "batch_fit": "batch fit of the whole corpus, on the same documents",
}
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


# --------------------------------------------------------------------------------------------
# the stream section


@dataclass(frozen=True)
class StreamSpec:
    """The checked ``stream:`` section of a config.

    Attributes
    ----------
    batch_by : {"count", "time"}
    batch_size, n_batches : int or None
        Count batching: documents per batch, or number of equal batches (one is set).
    window : int, str or None
        Time batching: positions (int) or a duration as written (``"6h"``).
    window_seconds : int or None
        The duration in seconds, when ``window`` is one.
    partial_iter : int or None
        Sweeps per later batch, given to the model as its ``partial_iter``.
    """

    batch_by: str
    batch_size: int | None = None
    n_batches: int | None = None
    window: int | str | None = None
    window_seconds: int | None = None
    partial_iter: int | None = None

    def as_record(self) -> dict[str, Any]:
        """The settings as written (unset keys left out), for records and run ids."""
        keys = ("batch_by", "batch_size", "n_batches", "window", "partial_iter")
        return {key: getattr(self, key) for key in keys if getattr(self, key) is not None}


def parse_stream(config: ExperimentConfig) -> StreamSpec:
    """Check ``config.stream`` and return it as a :class:`StreamSpec`.

    Raises
    ------
    ConfigError
        With a one-line message naming the key and the fix.
    """
    where = f"config '{config.name}': stream"
    section = config.stream
    if not section:
        raise ConfigError(f"{where} section is empty: {_BATCHING_HINT}")
    for key in section:
        if key not in STREAM_KEYS:
            raise ConfigError(f"{where}: unknown key '{key}' {allowed_hint(key, STREAM_KEYS)}")
    batch_by = section.get("batch_by")
    if batch_by not in ("count", "time"):
        got = "missing" if batch_by is None else f"{batch_by!r}"
        raise ConfigError(f"{where}.batch_by is {got}: {_BATCHING_HINT}")
    spec = _count_spec(section, where) if batch_by == "count" else _time_spec(section, where)
    partial_iter = section.get("partial_iter")
    if partial_iter is not None:
        _require_count(partial_iter, f"{where}.partial_iter", 0)
    return StreamSpec(**spec, partial_iter=partial_iter)


_BATCHING_HINT = ("set batch_by: count with batch_size (documents per batch) or n_batches, "
                  "or batch_by: time with window")


def _count_spec(section: dict, where: str) -> dict[str, Any]:
    _forbid(section, ("window",), "time", where)
    given = [key for key in ("batch_size", "n_batches") if key in section]
    if len(given) != 1:
        problem = "needs" if not given else "takes one of"
        raise ConfigError(
            f"{where}: batch_by: count {problem} batch_size (documents per batch) or n_batches"
            + ("" if not given else ", not both: remove one")
        )
    _require_count(section[given[0]], f"{where}.{given[0]}", 1)
    return {"batch_by": "count", given[0]: section[given[0]]}


def _time_spec(section: dict, where: str) -> dict[str, Any]:
    _forbid(section, ("batch_size", "n_batches"), "count", where)
    if "window" not in section:
        raise ConfigError(f"{where}: batch_by: time needs window ({_WINDOW_HINT})")
    window = section["window"]
    if _is_int(window) and window >= 1:
        return {"batch_by": "time", "window": window}
    match = _DURATION.match(window) if isinstance(window, str) else None
    seconds = round(float(match[1]) * _UNIT_SECONDS[match[2]]) if match else 0
    if seconds < 1:
        raise ConfigError(f"{where}.window must be {_WINDOW_HINT}; got {window!r}")
    return {"batch_by": "time", "window": window, "window_seconds": seconds}


_WINDOW_HINT = ("a whole number of stream positions (e.g. 500) or a duration of at least "
                "one second (e.g. 30m, 6h, 1d, 2w)")


def _forbid(section: dict, keys, batch_by: str, where: str) -> None:
    for key in keys:
        if key in section:
            raise ConfigError(
                f"{where}.{key} applies to batch_by: {batch_by}: remove it or set "
                f"batch_by: {batch_by}"
            )


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _require_count(value, name: str, minimum: int) -> None:
    if not _is_int(value) or value < minimum:
        raise ConfigError(f"{name} must be an integer >= {minimum}, got {value!r}")


def stream_model(config: ExperimentConfig, spec: StreamSpec) -> tuple[type, dict[str, Any]]:
    """The model class and its full parameters, ``stream.partial_iter`` merged in.

    Raises
    ------
    ConfigError
        If the model cannot learn incrementally, or ``partial_iter`` is set twice or
        is not a parameter of the model.
    """
    where = f"config '{config.name}'"
    model_class = check_model_params(config.model, where=where)
    if not hasattr(model_class, "partial_fit"):
        raise ConfigError(
            f"{where}: model '{config.model.name}' has no partial_fit, which a stream needs: "
            "use an incremental model (gsdmm) or remove the stream section"
        )
    params = dict(config.model.params)
    if spec.partial_iter is not None:
        if "partial_iter" in params:
            raise ConfigError(
                f"{where}: partial_iter is set in both stream and model.params: keep one"
            )
        if "partial_iter" not in model_class().get_params():
            raise ConfigError(
                f"{where}: stream.partial_iter is not a parameter of model "
                f"'{config.model.name}': remove it"
            )
        params["partial_iter"] = spec.partial_iter
    spec_model = config.model.model_copy(update={"params": params})
    check_model_params(spec_model, where=where)
    return model_class, full_model_params(spec_model)


# --------------------------------------------------------------------------------------------
# batches


@dataclass(frozen=True)
class Batch:
    """Documents ``order[start:stop]`` of the time-ordered stream.

    ``first``/``last`` are the batch's time range as JSON values: its time window for
    time batching, else the times of its first and last documents (stream positions
    when the corpus has no times).
    """

    start: int
    stop: int
    first: Any
    last: Any


def stream_order(corpus) -> np.ndarray:
    """Document positions sorted by time, ties (and a corpus without times) in file order."""
    if corpus.times is None:
        return np.arange(corpus.n_docs)
    return np.argsort(corpus.times, kind="stable")


def make_batches(spec: StreamSpec, corpus, order: np.ndarray, where: str = "stream") -> list[Batch]:
    """Cut the ordered stream into batches as ``spec`` says.

    Raises
    ------
    ConfigError
        If the batching does not fit the corpus (no times, a window of the wrong kind,
        more batches than documents).
    """
    times = None if corpus.times is None else corpus.times[order]
    if spec.batch_by == "time":
        return _time_batches(spec, times, where, corpus.name)
    n_docs = len(order)
    if spec.n_batches is not None and spec.n_batches > n_docs:
        raise ConfigError(
            f"{where}.n_batches={spec.n_batches} exceeds the {n_docs} documents of "
            f"'{corpus.name}': use at most {n_docs}"
        )
    if spec.n_batches is not None:
        sizes = [len(part) for part in np.array_split(np.arange(n_docs), spec.n_batches)]
    else:
        sizes = [min(spec.batch_size, n_docs - s) for s in range(0, n_docs, spec.batch_size)]
    edges = np.concatenate(([0], np.cumsum(sizes)))
    stamps = times if times is not None else np.arange(n_docs)
    return [Batch(int(a), int(b), _json_time(stamps[a]), _json_time(stamps[b - 1]))
            for a, b in zip(edges[:-1], edges[1:])]


def _time_batches(spec: StreamSpec, times, where: str, name: str) -> list[Batch]:
    if times is None:
        raise ConfigError(
            f"{where}: batch_by: time needs document times, and '{name}' has none: "
            "use batch_by: count"
        )
    is_stamp = np.issubdtype(times.dtype, np.datetime64)
    if is_stamp != (spec.window_seconds is not None):
        kind, want = (("timestamps", "a duration such as 6h or 1d") if is_stamp else
                      ("integer stream positions", "a whole number of positions"))
        raise ConfigError(f"{where}.window {spec.window!r} does not suit '{name}', which has "
                          f"{kind}: give {want}")
    values = times.astype("datetime64[s]").astype(np.int64) if is_stamp else times.astype(np.int64)
    width = spec.window_seconds if is_stamp else spec.window
    bins = (values - values[0]) // width
    edges = np.concatenate(([0], np.flatnonzero(np.diff(bins)) + 1, [len(values)]))
    unit = np.timedelta64(1, "s") if is_stamp else 1
    origin = times[0].astype("datetime64[s]") if is_stamp else int(values[0])
    return [Batch(int(a), int(b), _json_time(origin + int(bins[a]) * width * unit),
                  _json_time(origin + (int(bins[a]) + 1) * width * unit))
            for a, b in zip(edges[:-1], edges[1:])]


def _json_time(value) -> Any:
    """An int for a stream position, ``YYYY-MM-DDTHH:MM:SSZ`` for a timestamp."""
    if isinstance(value, np.datetime64):
        return str(value.astype("datetime64[s]")) + "Z"
    return int(value)


# --------------------------------------------------------------------------------------------
# the experiment


@dataclass
class StreamResult(ExperimentResult):
    """:class:`~shortclust.experiments.runner.ExperimentResult` plus the stream outputs.

    Attributes
    ----------
    table : pandas.DataFrame
        :func:`stream_frame` of this experiment's records: one row per batch.
    paths : dict
        ``{"csv": ..., "png": ...}`` (``png`` is None when the corpus has no labels).
    """

    table: pd.DataFrame = None
    paths: dict = None


@dataclass
class _Plan:
    """Everything a seed's run needs, fixed before anything is written."""

    config: ExperimentConfig
    corpus: Any
    model_class: type
    params: dict[str, Any]
    spec: StreamSpec
    order: np.ndarray
    batches: list[Batch]


def run_stream(
    config: ExperimentConfig,
    resume: bool = False,
    data_dir=None,
    quiet: bool = False,
    progress: bool | None = None,
    console=None,
) -> StreamResult:
    """Run a config with a ``stream:`` section: every seed streams the corpus in batches.

    Parameters
    ----------
    config : ExperimentConfig
        A config whose ``stream`` section is set (see the module docstring).
    resume : bool
        Skip seeds already recorded; without it an existing ``records.jsonl`` is moved
        aside, as :func:`~shortclust.experiments.runner.run_experiment` does.
    data_dir : path-like, optional
        Where registered datasets live.
    quiet : bool
        Print nothing; files are still written.
    progress : bool, optional
        Show progress bars (over seeds, and over the batches of the current seed);
        default: when not ``quiet``.
    console : rich.console.Console, optional
        Where messages, bars and the table go.

    Returns
    -------
    StreamResult

    Raises
    ------
    ConfigError, DataError, ParameterError
        Before anything is written, for a bad config, stream section, model or dataset.
    ExperimentInterrupted
        On Ctrl-C, after keeping every finished seed's record and writing the outputs.
    """
    plan = _make_plan(config, data_dir)
    run_ids = {seed: _run_id(plan, seed) for seed in config.seed_list}
    store = RecordStore(config.output_dir)
    say = Messages(quiet, console)
    todo = _select_seeds(store, run_ids, resume, say)
    created = make_output_dirs(store)
    show_bars = (not quiet) if progress is None else progress
    try:
        if todo:
            _warm_up(plan)
        with _StreamProgress(show_bars, len(run_ids), len(run_ids) - len(todo), console) as bars:
            for seed in todo:
                _run_seed(plan, seed, run_ids[seed], store, bars)
    except KeyboardInterrupt:
        finish_records(store, say, print_table=False)
        write_stream_outputs(store.load(), store.output_dir, set(run_ids.values()),
                             f"{config.name}: {config.dataset}")
        done = len(store.done_run_ids() & set(run_ids.values()))
        raise ExperimentInterrupted(done, len(run_ids)) from None
    except ShortclustError:
        remove_if_unused(created)
        raise
    records, summary = finish_records(store, say, print_table=not quiet)
    table, paths = write_stream_outputs(records, store.output_dir, set(run_ids.values()),
                                        f"{config.name}: {config.dataset}")
    _report(say, table, paths, [r for r in records if r["run_id"] in run_ids.values()])
    return StreamResult(records=records, summary=summary, output_dir=store.output_dir,
                        n_run=len(todo), n_skipped=len(run_ids) - len(todo), table=table,
                        paths=paths)


def _make_plan(config: ExperimentConfig, data_dir) -> _Plan:
    if config.stream is None:
        raise ConfigError(f"config '{config.name}' has no stream section: run it with "
                          "`shortclust run` as a batch experiment, or add stream:")
    if config.output_dir.exists() and not config.output_dir.is_dir():
        raise ConfigError(f"output '{config.output_dir}' is a file: choose a directory "
                          "with --output")
    spec = parse_stream(config)
    model_class, params = stream_model(config, spec)
    corpus = load_experiment_corpus(config, data_dir)
    order = stream_order(corpus)
    batches = make_batches(spec, corpus, order, where=f"config '{config.name}': stream")
    return _Plan(config, corpus, model_class, params, spec, order, batches)


def _run_id(plan: _Plan, seed: int) -> str:
    # The stream settings are part of the identity: a batch run of the same model and
    # seed, or another batching, is a different run.
    config = plan.config
    return make_run_id(config.dataset, plan.corpus.preprocess, config.model.name, plan.params,
                       seed, config.representation, plan.spec.as_record())


def _select_seeds(store: RecordStore, run_ids: dict[int, str], resume: bool, say) -> list[int]:
    if not resume:
        if store.exists():
            say(f"moved existing {store.records_path.name} to {store.move_aside()}; "
                "starting fresh")
        return list(run_ids)
    done = store.done_run_ids()
    todo = [seed for seed, run_id in run_ids.items() if run_id not in done]
    say(f"resume: {len(run_ids) - len(todo)} of {len(run_ids)} seeds already recorded, "
        f"{len(todo)} to run")
    return todo


def _warm_up(plan: _Plan, n_docs: int = 32) -> None:
    """Fit, then add a batch, on a few documents: untimed, so compilation stays out."""
    counts = plan.corpus.counts[plan.order]
    try:
        model = plan.model_class(**plan.params, random_state=0)
        model.partial_fit(counts[:n_docs]).partial_fit(counts[n_docs:2 * n_docs])
    except Exception:  # noqa: BLE001 - a real problem shows up in the timed run
        pass


# --------------------------------------------------------------------------------------------
# one seed


def _run_seed(plan: _Plan, seed: int, run_id: str, store: RecordStore, bars) -> None:
    bars.start_run(seed)
    model, entries = _stream_batches(plan, seed, bars)
    reference, reference_seconds = _batch_fit(plan, seed)
    truth = plan.corpus.labels
    for batch, entry in zip(plan.batches, entries):
        rows = plan.order[batch.start:batch.stop]
        entry["batch_fit"] = _scores(truth, reference.labels_, rows, plan.config.metrics)
    labels = np.empty(plan.corpus.n_docs, dtype=np.int64)
    labels[plan.order] = model.labels_  # back to the corpus's document order
    store.write_labels(run_id, labels)
    batch_fit = {"metrics": _scores(truth, reference.labels_, slice(None), plan.config.metrics),
                 "n_clusters": int(reference.n_clusters_), "fit_seconds": reference_seconds}
    store.append(_record(plan, seed, run_id, model, labels, entries, batch_fit))
    bars.end_run()


def _stream_batches(plan: _Plan, seed: int, bars) -> tuple[Any, list[dict[str, Any]]]:
    """Feed the batches to a fresh model; return it and one entry per batch."""
    counts, metrics = plan.corpus.counts[plan.order], plan.config.metrics
    truth = None if plan.corpus.labels is None else plan.corpus.labels[plan.order]
    model = plan.model_class(**plan.params, random_state=seed)
    entries = []
    for number, batch in enumerate(plan.batches, 1):
        started = time.perf_counter()
        model.partial_fit(counts[batch.start:batch.stop])
        seconds = time.perf_counter() - started
        labels = np.asarray(model.labels_)
        entries.append({
            "batch": number, "n_docs": batch.stop - batch.start,
            "start": batch.first, "end": batch.last,
            "n_clusters": int(model.n_clusters_), "n_iter": int(model.n_iter_),
            "seconds": seconds,
            "prequential": _scores(truth, labels, slice(batch.start, batch.stop), metrics),
            "cumulative": _scores(truth, labels, slice(0, batch.stop), metrics),
        })
        bars.batch(number, len(plan.batches), int(model.n_clusters_))
    return model, entries


def _batch_fit(plan: _Plan, seed: int):
    """The ordinary fit of the whole corpus (document order), as ``shortclust run`` does."""
    model = plan.model_class(**plan.params, random_state=seed)
    started = time.perf_counter()
    model.fit(plan.corpus.counts)
    return model, time.perf_counter() - started


def _scores(truth, labels, rows, metrics) -> dict[str, float] | None:
    """Metrics of ``labels[rows]`` against ``truth[rows]`` (None for an unlabelled corpus)."""
    if truth is None:
        return None
    from shortclust.evaluation.metrics import evaluate

    return evaluate(truth[rows], labels[rows], metrics=metrics)


def _record(plan: _Plan, seed, run_id, model, labels, entries, batch_fit) -> dict[str, Any]:
    corpus, config = plan.corpus, plan.config
    return make_record(
        run_id=run_id, config_name=config.name, seed=seed, dataset=config.dataset,
        dataset_sha256=corpus.sha256, preprocess=corpus.preprocess,
        model=config.model.name, params=plan.params,
        metrics=_scores(corpus.labels, labels, slice(None), config.metrics),
        n_clusters=int(model.n_clusters_),
        n_iter=sum(entry["n_iter"] for entry in entries),
        fit_seconds=sum(entry["seconds"] for entry in entries),
        n_docs=int(corpus.n_docs),
        stream=plan.spec.as_record(), batches=entries, batch_fit=batch_fit,
    )


class _StreamProgress(RunProgress):
    """The runner's two bars, the inner one counting batches instead of iterations."""

    def batch(self, number: int, n_batches: int, n_clusters: int) -> None:
        """Advance the inner bar after batch ``number`` of ``n_batches``."""
        if self.bar is not None:
            self.bar.update(self.iterations, completed=number, total=n_batches,
                            description=f"batches ({n_clusters} clusters)")


# --------------------------------------------------------------------------------------------
# table and figure (from records only)


def stream_frame(records, run_ids=None) -> pd.DataFrame:
    """Per-batch mean and sample std (ddof=1; 0 for one seed) over the stream records.

    Parameters
    ----------
    records : iterable of dict
        Records written by :func:`run_stream`; others (no ``batches``) are ignored.
    run_ids : set of str, optional
        Keep only these records (one experiment's seeds).

    Returns
    -------
    pandas.DataFrame
        One row per batch: ``batch``, ``n_docs``, ``start``, ``end``, ``runs``, then
        ``<value>_mean`` and ``<value>_std`` for ``n_clusters``, ``seconds`` and each
        ``<series>_<metric>`` (series: prequential, cumulative, batch_fit).
    """
    rows = []
    for record in records:
        if "batches" not in record or (run_ids is not None and record["run_id"] not in run_ids):
            continue
        for entry in record["batches"]:
            row = {key: entry[key] for key in ("batch", "n_docs", "start", "end",
                                               "n_clusters", "seconds")}
            for series in SERIES:
                row.update({f"{series}_{m}": v for m, v in (entry.get(series) or {}).items()})
            rows.append(row)
    if not rows:
        return pd.DataFrame(columns=["batch", "n_docs", "start", "end", "runs"])
    return _aggregate(pd.DataFrame(rows))


def _aggregate(frame: pd.DataFrame) -> pd.DataFrame:
    values = [c for c in frame.columns if c not in ("batch", "n_docs", "start", "end")]
    groups = frame.groupby("batch", sort=True)
    table = groups[["n_docs", "start", "end"]].first()
    table["runs"] = groups.size()
    for column in values:
        std = groups[column].std(ddof=1)
        table[f"{column}_mean"] = groups[column].mean()
        table[f"{column}_std"] = std.mask(groups[column].count() == 1, 0.0)
    return table.reset_index()


def write_stream_outputs(records, output_dir, run_ids=None, title: str = ""):
    """Write ``stream.csv`` and ``stream.png`` from the records; return (table, paths).

    The figure is skipped (``paths["png"]`` is None) when no metric was computed.
    """
    output_dir = Path(output_dir)
    table = stream_frame(records, run_ids)
    csv_path = output_dir / STREAM_CSV
    atomic_write_text(csv_path, table.to_csv(index=False, float_format="%.6g"))
    metric = _plot_metric(table)
    png_path = None
    if metric is not None:
        png_path = plot_stream(table, metric, output_dir / STREAM_PNG, title)
    return table, {"csv": csv_path, "png": png_path}


def _plot_metric(table: pd.DataFrame) -> str | None:
    """NMI when recorded, else the first recorded metric, else None."""
    prefix = "prequential_"
    metrics = [c[len(prefix):-5] for c in table.columns
               if c.startswith(prefix) and c.endswith("_mean")]
    if not metrics or table.empty:
        return None
    return "nmi" if "nmi" in metrics else metrics[0]


def plot_stream(table: pd.DataFrame, metric: str, path, title: str = "") -> Path:
    """Per-batch ``metric`` of the stream beside the batch fit, and the clusters found."""
    from shortclust.experiments.plots import Curve, pyplot, draw_curves, label, save_figure

    figure, (left, right) = pyplot().subplots(1, 2, figsize=(11, 4), layout="constrained",
                                               gridspec_kw={"width_ratios": [2, 1]})
    x = list(table["batch"])
    styles = {"prequential": {}, "cumulative": {"linestyle": "--"},
              "batch_fit": {"linestyle": ":", "color": "black"}}
    curves = [Curve(x, list(table[f"{s}_{metric}_mean"]), list(table[f"{s}_{metric}_std"]),
                    _SERIES_NAMES[s], styles[s]) for s in SERIES]
    draw_curves(left, curves, "batch", label(metric), f"{label(metric)} per batch")
    clusters = Curve(x, list(table["n_clusters_mean"]), list(table["n_clusters_std"]))
    draw_curves(right, [clusters], "batch", label("n_clusters"), "clusters after each batch")
    for axis in (left, right):
        axis.xaxis.get_major_locator().set_params(integer=True)
    runs = sorted({int(r) for r in table["runs"]})
    figure.suptitle(f"{title} (mean ± std over {'/'.join(map(str, runs))} seeds)", fontsize=11)
    return save_figure(figure, path)


def _report(say, table: pd.DataFrame, paths: dict, records: list[dict[str, Any]]) -> None:
    """Two lines comparing stream and batch fit on the plotted metric, then the files."""
    metric = _plot_metric(table)
    if metric is not None:
        means = {s: table[f"{s}_{metric}_mean"] for s in SERIES}
        whole = np.mean([r["batch_fit"]["metrics"][metric] for r in records])
        name = metric.upper()
        say(f"{len(table)} batches, mean per-batch {name}: stream "
            f"{means['prequential'].mean():.4f}, batch fit on the same documents "
            f"{means['batch_fit'].mean():.4f}")
        say(f"{name} of all documents: stream at its end {means['cumulative'].iloc[-1]:.4f}, "
            f"batch fit {whole:.4f}")
    say(f"stream table: {paths['csv']}" + (f"  figure: {paths['png']}" if paths["png"] else ""))
