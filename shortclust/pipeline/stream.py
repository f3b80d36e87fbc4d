"""Stream experiments: a config's corpus fed in time-ordered batches to ``partial_fit``.

A config with a ``stream:`` section (see :mod:`shortclust.pipeline.batches`) runs
through the same pipeline as any experiment (:func:`~shortclust.pipeline.runner.run_experiment`:
seeds, run ids, resume, ``--jobs``, archives), with :func:`fit_stream` fitting each run:
for every seed a fresh model takes the batches through ``partial_fit``, fed the config's
representation (term counts by default) in time order. After each batch are recorded:
the *prequential* metrics (the batch's own documents, scored right after the batch is
clustered), the *cumulative* metrics (all documents so far), the clusters found and the
seconds of the call. For comparison the same seed also fits the whole corpus the
ordinary way (as ``shortclust run`` would), and that fit's labels are scored on each
batch's documents: stream against batch on the same documents.

Output (besides ``summary.csv``/``.md`` of the final cumulative metrics):

* ``records.jsonl``: one record per seed, whose ``metrics``, ``n_clusters`` and
  ``fit_seconds`` are those of the whole stream at its end (``fit_seconds``: the sum over
  batches; ``n_iter``: sweeps over all batches), with three extra fields: ``stream`` (the
  settings), ``batches`` (one entry per batch: ``batch``, ``n_docs``, ``start``, ``end``,
  ``n_clusters``, ``n_iter``, ``seconds``, ``prequential``, ``cumulative``, ``batch_fit``;
  ``start``/``end`` are the time window ``[start, end)`` for time batching, else the times
  of the batch's first and last documents, or their stream positions without times;
  ``one_class: true`` when the batch's documents hold one class; ``top_words``, each
  cluster's top words after the batch, when the config sets ``top_words: N`` and the
  model names words) and ``batch_fit`` (the
  ordinary fit's ``metrics``, ``n_clusters``, ``fit_seconds``), and ``fit_cpu_seconds`` /
  ``fit_peak_mb``, the CPU time and peak memory of the stream's batches (their scoring
  included; :mod:`.resources`);
* ``labels/<run_id>.txt``: the stream's labels, in the corpus's document order;
* ``stream.csv``: per batch, mean and std over seeds of every series;
* ``stream.png``: per-batch NMI over the stream, mean ± std over seeds, beside the
  ordinary fit's NMI on the same documents, and the clusters found.

The table and figure are computed from the records alone (:func:`write_stream_outputs`).

A batch whose documents hold one class (an event stream, cut so that each batch is one
event) has no partition to recover: NMI, AMI, ARI, homogeneity, completeness and V-measure
are undefined or degenerate there (NMI is 0 or 1 whatever the clustering, homogeneity
always 1), so they are recorded as None (JSON null) for the series scored on those
documents (:data:`ONE_CLASS_UNDEFINED`; purity and ACC stay). The table leaves them out of
its means (``<series>_<metric>_runs`` then counts the seeds behind each mean, 0 for such a
batch) and the report says how many batches it left out. Records written before this rule
(0.0 or 1.0 there) still load and tabulate as they are.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from shortclust.evaluation.metrics import ONE_CLASS_UNDEFINED, in_metric_order
from shortclust.pipeline.records import atomic_write_text
from shortclust.pipeline.resources import FitResources

STREAM_CSV = "stream.csv"
STREAM_PNG = "stream.png"
SERIES = ("prequential", "cumulative", "batch_fit")
_SERIES_NAMES = {
    "prequential": "stream (each batch just after it is clustered)",
    "cumulative": "stream (all documents so far)",
    "batch_fit": "batch fit of the whole corpus, on the same documents",
}


# --------------------------------------------------------------------------------------------
# one seed


def fit_stream(context, run, callback):
    """Stream the batches through a fresh model, fit the whole corpus too; score both.

    Parameters
    ----------
    context : RunContext
        The experiment's features (document order), gold labels, metrics and stream plan.
    run : PlannedRun
        Seed and parameters.
    callback : callable
        ``callback(batch, n_batches, n_clusters)`` after each batch.

    Returns
    -------
    Outcome
        The stream's labels in document order, and the record's fields.
    """
    stream = context.stream
    with FitResources() as cost:  # the stream's own cost, not the comparison fit's
        model, entries = _stream_batches(context, run, callback)
    reference, reference_seconds = context.fit_whole(run)  # the batch fit, for comparison
    for batch, entry in zip(stream.batches, entries):
        rows = stream.order[batch.start:batch.stop]
        entry["batch_fit"] = _defined(context.score(reference.labels_, rows),
                                      entry.get("one_class", False))
    labels = np.empty(len(stream.order), dtype=np.int64)
    labels[stream.order] = model.labels_  # back to the corpus's document order
    fields = {
        "metrics": context.score(labels), "n_clusters": int(model.n_clusters_),
        "n_iter": sum(entry["n_iter"] for entry in entries),
        "fit_seconds": sum(entry["seconds"] for entry in entries), **cost.fields(),
        "stream": stream.spec.as_record(), "batches": entries,
        "batch_fit": {"metrics": context.score(reference.labels_),
                      "n_clusters": int(reference.n_clusters_),
                      "fit_seconds": reference_seconds},
    }
    return context.outcome(model, labels, fields)


def _stream_batches(context, run, callback) -> tuple[Any, list[dict[str, Any]]]:
    """Feed the batches to a fresh model; return it and one entry per batch."""
    stream = context.stream
    features = context.features[stream.order]
    truth = None if context.truth is None else context.truth[stream.order]
    model = context.model_class(**run.params, random_state=run.seed)
    entries, classes, seen = [], set(), None
    for number, batch in enumerate(stream.batches, 1):
        held_out = None
        if stream.spec.perplexity:
            held_out, seen = _held_out(model, features[batch.start:batch.stop], seen)
        one_class = False
        if truth is not None:
            batch_classes = set(np.unique(truth[batch.start:batch.stop]).tolist())
            classes |= batch_classes
            one_class = len(batch_classes) == 1
        started = time.perf_counter()
        model.partial_fit(features[batch.start:batch.stop])
        seconds = time.perf_counter() - started
        labels = np.asarray(model.labels_)  # every document so far, in stream order
        words = _batch_top_words(context, model)
        entries.append({
            "batch": number, "n_docs": batch.stop - batch.start,
            "start": batch.first, "end": batch.last,
            "n_clusters": int(model.n_clusters_), "n_iter": int(model.n_iter_),
            "seconds": seconds,
            **({"one_class": True} if one_class else {}),
            **({"held_out": held_out} if held_out is not None else {}),
            "prequential": _defined(
                context.score(labels, slice(batch.start, batch.stop), truth), one_class),
            "cumulative": _defined(context.score(labels, slice(0, batch.stop), truth),
                                   len(classes) == 1),
            **({"top_words": words} if words is not None else {}),
        })
        callback(number, len(stream.batches), int(model.n_clusters_))
    return model, entries


def _batch_top_words(context, model) -> list[list[list]] | None:
    """Each cluster's top words (``[word, weight]`` pairs) after a batch, when the config
    asks for top words (``top_words: N``) and the model names words; else None. Topic
    drift (DCT, TTM) is read from these (``shortclust report``)."""
    n, vocabulary = context.words
    if not context.record_words or vocabulary is None \
            or not context.model_class.capabilities.top_words:
        return None
    return [[[str(word), round(float(weight), 6)] for word, weight in words]
            for words in model.top_words(n, vocabulary=list(vocabulary))]


def _held_out(model, batch, seen):
    """The batch's perplexity under the model of the batches before (None for the first),
    words not seen in those batches counted as out of vocabulary; and the words seen
    once this batch is added."""
    from shortclust.evaluation.perplexity import model_perplexity, seen_words

    result = None
    if seen is not None:
        scored = model_perplexity(model, batch, in_vocabulary=seen)
        finite = bool(np.isfinite(scored.perplexity))  # JSON has no inf: None instead
        result = {"perplexity": scored.perplexity if finite else None,
                  "oov_rate": scored.oov_rate, "n_tokens": scored.n_tokens}
    return result, seen_words(batch) if seen is None else seen | seen_words(batch)


def _defined(scores: dict[str, float] | None, one_class: bool) -> dict[str, Any] | None:
    """``scores`` with the metrics undefined on one class set to None when ``one_class``."""
    if scores is None or not one_class:
        return scores
    return {m: None if m in ONE_CLASS_UNDEFINED else v for m, v in scores.items()}


# --------------------------------------------------------------------------------------------
# table and figure (from records only)


def stream_frame(records, run_ids=None) -> pd.DataFrame:
    """Per-batch mean and sample std (ddof=1; 0 for one seed) over the stream records.

    Parameters
    ----------
    records : iterable of dict
        Stream run records (see :func:`fit_stream`); others (no ``batches``) are ignored.
    run_ids : set of str, optional
        Keep only these records (one experiment's seeds).

    Returns
    -------
    pandas.DataFrame
        One row per batch: ``batch``, ``n_docs``, ``start``, ``end``, ``runs``, then
        ``<value>_mean`` and ``<value>_std`` for ``n_clusters``, ``seconds`` and each
        ``<series>_<metric>`` (series: prequential, cumulative, batch_fit). A value
        recorded as None (a metric undefined on one class) is left out of the mean and std
        (NaN when no seed has it); for each such ``<series>_<metric>`` the column
        ``<series>_<metric>_runs`` counts the seeds behind each mean, and ``one_class``
        marks the batches of one class.
    """
    rows = []
    for record in records:
        if "batches" not in record or (run_ids is not None and record["run_id"] not in run_ids):
            continue
        for entry in record["batches"]:
            row = {key: entry[key] for key in ("batch", "n_docs", "start", "end",
                                               "n_clusters", "seconds")}
            for series in SERIES:
                scores = entry.get(series) or {}
                # Metrics in their canonical order, not the record's: an archived record
                # has its keys sorted, and the table must not depend on where it came from.
                row.update({f"{series}_{m}": scores[m] for m in in_metric_order(scores)})
            if entry.get("one_class"):
                row["one_class"] = True
            rows.append(row)
    if not rows:
        return pd.DataFrame(columns=["batch", "n_docs", "start", "end", "runs"])
    return _aggregate(pd.DataFrame(rows))


def _aggregate(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and std over seeds per batch, beside the batch's size and time range.

    Undefined values (None) are left out; where a column has any, the count of the values
    behind each mean follows its std, and ``one_class`` the batch's range.
    """
    from shortclust.evaluation.stats import summarize_groups

    described = ["n_docs", "start", "end"]
    if "one_class" in frame:
        described.append("one_class")
        frame = frame.assign(one_class=frame["one_class"].eq(True))
    values = [c for c in frame.columns if c not in ["batch", *described]]
    frame = frame.assign(**{c: pd.to_numeric(frame[c], errors="coerce") for c in values})
    where = frame.groupby("batch", sort=True)[described].first().reset_index()
    table = where.merge(summarize_groups(frame, "batch", values), on="batch")
    for column in [c for c in values if frame[c].isna().any()]:
        counts = frame.groupby("batch", sort=True)[column].count().rename(f"{column}_runs")
        table = table.merge(counts.reset_index(), on="batch")
        # Beside its mean and std, not at the end of the table.
        order = list(table.columns[:-1])
        order.insert(order.index(f"{column}_std") + 1, f"{column}_runs")
        table = table[order]
    return table


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
    from shortclust.pipeline.plots import (
        Curve, draw_curves, figure_legend, label, pyplot, save_figure, spread_text,
    )

    figure, (left, right) = pyplot().subplots(1, 2, figsize=(11, 4), layout="constrained",
                                               gridspec_kw={"width_ratios": [2, 1]})
    x = list(table["batch"])
    styles = {"prequential": {}, "cumulative": {"linestyle": "--"},
              "batch_fit": {"linestyle": ":", "color": "black"}}
    curves = [Curve(x, list(table[f"{s}_{metric}_mean"]), list(table[f"{s}_{metric}_std"]),
                    _SERIES_NAMES[s], styles[s]) for s in SERIES]
    # Three series whose means cross: spread their error bars apart, legend below the panels.
    draw_curves(left, curves, "batch", label(metric), f"{label(metric)} per batch",
                dodge=3, legend=None)
    clusters = Curve(x, list(table["n_clusters_mean"]), list(table["n_clusters_std"]))
    draw_curves(right, [clusters], "batch", label("n_clusters"), "clusters after each batch")
    figure_legend(figure, left)
    figure.suptitle(f"{title} ({spread_text(table['runs'])})", fontsize=11)
    return save_figure(figure, path)


def report_stream(say, table: pd.DataFrame, paths: dict, records: list[dict[str, Any]]) -> None:
    """Two lines comparing stream and batch fit on the plotted metric, then the files."""
    metric = _plot_metric(table)
    if metric is not None:
        means = {s: table[f"{s}_{metric}_mean"] for s in SERIES}
        whole = np.mean([r["batch_fit"]["metrics"][metric] for r in records])
        name = metric.upper()
        scored = int(means["prequential"].notna().sum())
        left_out = len(table) - scored
        over = f" over {scored} of {len(table)} batches" if left_out else ""
        say(f"{len(table)} batches, mean per-batch {name}{over}: stream "
            f"{means['prequential'].mean():.4f}, batch fit on the same documents "
            f"{means['batch_fit'].mean():.4f}"
            + (f"; {left_out} batches hold one class ({name} undefined) and are left out"
               if left_out else ""))
        say(f"{name} of all documents: stream at its end {means['cumulative'].iloc[-1]:.4f}, "
            f"batch fit {whole:.4f}")
    say(f"stream table: {paths['csv']}" + (f"  figure: {paths['png']}" if paths["png"] else ""))
