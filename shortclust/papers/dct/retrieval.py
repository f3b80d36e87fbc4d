"""Table 2's analogue: cluster-based retrieval on CrisisLexT26 with each model's clusters.

The paper ranks tweets by the cluster-based query likelihood of its Eq. 12-13, the
clusters given by DCT or a baseline, and tunes lambda, mu and the recency base b by a
60/30/10 split of its queries (:mod:`shortclust.papers.dct.crisis_retrieval` holds the
queries, relevance, cutoffs and protocol; :mod:`shortclust.evaluation.retrieval` the
model). Here each model takes the CrisisLexT26 stream in 20 equal time steps
(``partial_fit``); at the end of every fourth step (the five cutoffs, each after a fifth
of the stream) the documents so far get the model's ``P(z | d)`` (``predict_proba``, the
paper's Eq. 11 for DCT) and the clusters its ``topic_word_`` (Eq. 9-10), and every tweet
so far is ranked. Plain query likelihood (LM), random clusters and the true events
(perfect clusters) bracket the models.

The measurements are archived in ``results/dct/records/retrieval.json`` and the table is
rebuilt from that file (``--no-fit`` measures nothing).
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from shortclust.evaluation.ranking import METRIC_LABELS, RANKING_METRICS
from shortclust.pipeline.records import atomic_write_text
from shortclust.pipeline.reproduce import markdown_table
from shortclust.papers.dct.reported import TABLE2

ARCHIVE = "retrieval.json"
#: Seeds per model unless --runs.
RUNS = 5
DATASET = "CrisisLexT26"
#: Time steps of the stream, and the cutoffs at every fourth step's end (five, as the paper).
N_STEPS, N_CUTOFFS = 20, 5
#: Our rows -> the paper's row they stand for (None: a reference of ours).
ROWS = {"LM": "LM", "TMS": "TMS", "random clusters": None, "DMM": "DMM", "LDA": "LDA", "TTM": "TTM",
        "DCT": "DCT",
        "DCT-L": None, "DCT-F": None, "DCT-P": None, "perfect clusters": None}


def step_bounds(n_docs: int) -> list[int]:
    """Stream positions where the steps end: ``round(i N / N_STEPS)``, i = 1..N_STEPS; every
    fourth is a cutoff of :func:`~shortclust.papers.dct.crisis_retrieval.cutoff_positions`.

    Examples
    --------
    >>> step_bounds(40)[3::4]
    [8, 16, 24, 32, 40]
    """
    return [int(round(i * n_docs / N_STEPS)) for i in range(1, N_STEPS + 1)]


def model_clusters(model, counts):
    """A ClusterSource that streams ``counts`` through ``model`` up to each cutoff."""
    bounds = step_bounds(counts.shape[0])
    cutoffs = bounds[N_STEPS // N_CUTOFFS - 1::N_STEPS // N_CUTOFFS]
    state = {"done": 0, "step": 0}

    def source(cutoff_index, n):
        if n != cutoffs[cutoff_index]:
            raise ValueError(f"cutoff {cutoff_index} at {n} documents, not at a step's end "
                             f"({cutoffs[cutoff_index]})")
        while state["done"] < n:
            stop = bounds[state["step"]]
            model.partial_fit(counts[state["done"]:stop])
            state["done"], state["step"] = stop, state["step"] + 1
        return np.asarray(model.predict_proba(counts[:n])), np.asarray(model.topic_word_)
    return source


def wanted(job, models: dict) -> list[tuple[str, int]]:
    """``(method, seed)`` of every measurement the table shows (LM, TMS and the perfect
    clusters are deterministic: seed 0 only)."""
    seeds = range(job.runs or RUNS)
    return [("LM", 0), ("TMS", 0), ("perfect clusters", 0)] + [
        (name, seed) for seed in seeds for name in ("random clusters", *models)]


def crisis_corpus(job):
    """CrisisLexT26 as the configs preprocess it, checked to be in time order."""
    from shortclust.data import load_corpus

    corpus = load_corpus(DATASET, data_dir=job.data_dir)
    if corpus.times is not None and np.any(np.diff(corpus.times.astype("int64")) < 0):
        raise ValueError(f"{DATASET} is expected in time order")
    return corpus


def method_clusters(corpus, models: dict, method: str, seed: int):
    """The ClusterSource of a method: a model of ``models`` streamed with ``seed``, a
    reference (random or perfect clusters), None for plain query likelihood (LM), or
    ``TEMPORAL_FEEDBACK`` for TMS (no clusters, temporal feedback)."""
    from shortclust.papers.dct.crisis_retrieval import (TEMPORAL_FEEDBACK, perfect_clusters,
                                                         random_clusters)

    if method == "LM":
        return None
    if method == "TMS":
        return TEMPORAL_FEEDBACK
    if method == "perfect clusters":
        return perfect_clusters(corpus)
    if method == "random clusters":
        return random_clusters(corpus, len(corpus.label_names), seed)
    model_class, params = models[method]
    return model_clusters(model_class(**params, random_state=seed), corpus.counts)


def measure(job, corpus, models: dict, method: str, seed: int) -> dict:
    """Tuned retrieval of one method (a model of ``models`` or a reference) and seed."""
    from shortclust.papers.dct.crisis_retrieval import run_crisis_retrieval

    clusters = method_clusters(corpus, models, method, seed)
    job.say(f"{job.paper}: retrieval {method} (seed {seed})")
    result = run_crisis_retrieval(corpus, {method: clusters}, n_cutoffs=N_CUTOFFS,
                                  out=io.StringIO())[method]
    return {"method": method, "seed": seed, "preprocess": corpus.preprocess,
            "dataset_sha256": corpus.sha256,
            "params": None if method not in models else models[method][1],
            **{kind: result[kind] for kind in ("event", "hazard", "all", "by_lambda")
               if kind in result},
            "chosen": [[s.lam, s.mu, s.b] + ([s.gamma] if method == "TMS" else [])
                       for s in result["chosen"]]}


def archive_path(job):
    return job.archive_path(ARCHIVE)


def archived(job, models: dict, want: list[tuple[str, int]], needs: str | None = None
             ) -> list[dict]:
    """The archive's measurements of ``want`` (``(method, seed)`` pairs), measuring first
    those it lacks unless ``--no-fit``: one at a time, each archived as it finishes, so an
    interrupt keeps them. A measurement without the field ``needs`` (archived before the
    field existed) counts as lacking and is replaced by a new one of the same method and
    seed (the same clusters and tuning, so its other fields do not change). Counts what it
    returns as the item's runs."""
    path = archive_path(job)
    rows = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    have = {(r["method"], r["seed"]) for r in rows if needs is None or needs in r}
    todo = [key for key in want if key not in have]
    if todo and job.fit:
        corpus = crisis_corpus(job)
        for method, seed in todo:
            row = measure(job, corpus, models, method, seed)
            keys = [(r["method"], r["seed"]) for r in rows]
            if (method, seed) in keys:  # in its place, so the tables keep their row order
                rows[keys.index((method, seed))] = row
            else:
                rows.append(row)
            atomic_write_text(path, json.dumps(rows, indent=1, sort_keys=True) + "\n")
    shown = [r for r in rows if (r["method"], r["seed"]) in set(want)]
    job.collected += len(shown)
    return shown


def retrieval(job, models: dict) -> None:
    """Table 2's analogue from the archive, measuring first what it lacks (unless
    ``--no-fit``); the table shows the measurements of the current ``--runs``."""
    text, frame = build_table(archived(job, models, wanted(job, models)))
    job.write_table("table2", frame, text + "\n" + _provenance(job))


def _provenance(job) -> str:
    from shortclust.pipeline.reproduce import provenance_line

    return provenance_line(job) + "\n"


def build_table(rows: list[dict]):
    """The Markdown and CSV of the retrieval table (nothing measured here)."""
    frame = pd.DataFrame([{"method": r["method"], "seed": r["seed"], "queries": kind,
                           **r[kind]} for r in rows for kind in ("event", "hazard", "all")
                          if kind in r])
    lines = ["# DCT (Liang, Yilmaz & Kanoulas, KDD 2016), Table 2 analogue: cluster-based "
             "retrieval on CrisisLexT26", ""]
    if frame.empty:
        return "\n".join(lines + ["No measurements yet (`shortclust reproduce dct --only "
                                  "retrieval` makes them).", ""]), frame
    headers = ["method", "runs"] + [METRIC_LABELS[m] for m in RANKING_METRICS]
    for kind, title in (("event", "event-name queries"), ("hazard", "hazard-type queries")):
        part = frame[frame["queries"] == kind]
        body = []
        for method in [m for m in ROWS if m in set(part["method"])]:
            cells = part[part["method"] == method]
            body.append([method, len(cells)] + [_cell(cells[m]) for m in RANKING_METRICS])
        lines += [f"## Ours, {title}", "", markdown_table(headers, body), ""]
    paper = [[m, "-"] + [f"{TABLE2[m][k]:.4f}" for k in RANKING_METRICS] for m in TABLE2]
    lines += ["## The paper's Table 2 (its own collection: 107 queries, a re-ranked top-500 "
              "pool per query and day)", "", markdown_table(headers, paper), ""]
    lines += verdict_lines(frame) + ["", NOTE]
    return "\n".join(lines), frame


NOTE = (
    "Ours: CrisisLexT26 (26 crisis events, 27,933 tweets) as a stream in time order, "
    "relevance = the query's event (event-name queries) or events of its type (hazard "
    "queries); at five cutoffs through the stream every tweet so far is ranked (no "
    "re-ranked pool) and the top 1000 evaluated; lambda, mu and b tuned by the paper's "
    "60/30/10 protocol, 10 repeats; each model streamed in 20 time steps, its clusters "
    "taken at each cutoff. Cells: mean ± sample std over the model's seeds (LM, TMS and "
    "the perfect clusters are deterministic). The paper's numbers come from another collection "
    "and are not comparable in level; compare the order of the methods. TTM: the topic "
    "tracking model with the documents of a step as its users (`shortclust/models/dmm/ttm.py`). "
    "TMS: query likelihood re-scored by a kernel density of the times of its own top 50 "
    "(Efron et al., SIGIR 2014, from its public description; the weights, k and the "
    "bandwidth rule are assumed, `shortclust/evaluation/temporal_feedback.py`), its "
    "weight gamma tuned with mu and b by the same protocol.")


def summarise_metrics(found: list[dict]) -> dict:
    """Mean and sample std (0 for one value) of each ranking metric over measurements
    (``{metric: value}`` dicts): the cells of the figures' points."""
    row = {}
    for metric in RANKING_METRICS:
        values = np.array([f[metric] for f in found])
        row[f"{metric}_mean"] = float(values.mean())
        row[f"{metric}_std"] = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return row


def _cell(values) -> str:
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return f"{values[0]:.4f}"
    return f"{values.mean():.4f} ± {values.std(ddof=1):.4f}"


def verdict_lines(frame: pd.DataFrame) -> list[str]:
    """The issue's check: DCT's MAP above plain query likelihood and random clusters."""
    part = frame[frame["queries"] == "event"]
    means = part.groupby("method")["map"].mean()
    lines = ["**Checks** (event-name queries, MAP)", ""]
    for model in ("DCT", "DCT-L", "DCT-F", "DCT-P", "TTM", "DMM", "LDA", "TMS"):
        if model not in means:
            continue
        above = [ref for ref in ("LM", "random clusters") if ref in means
                 and means[model] > means[ref]]
        below = [ref for ref in ("LM", "random clusters") if ref in means and ref not in above]
        lines.append(f"- {model}: MAP {means[model]:.4f}; above "
                     f"{', '.join(above) or 'neither'}"
                     + (f"; NOT above {', '.join(below)}" if below else "") + ".")
    if "TMS" in means and "DCT" in means:
        order = "below" if means["DCT"] < means["TMS"] else "above"
        lines.append(f"- DCT against TMS: MAP {means['DCT']:.4f} vs {means['TMS']:.4f}, DCT "
                     f"{order} TMS (the paper: DCT above TMS). Relevance here is an event, "
                     "whose tweets are close in time: the evidence TMS's density uses.")
    return lines


__all__ = ["retrieval", "archived", "measure", "build_table", "step_bounds", "model_clusters",
           "method_clusters", "summarise_metrics"]
