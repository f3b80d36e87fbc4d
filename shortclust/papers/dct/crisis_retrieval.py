"""Cluster-based retrieval on CrisisLexT26: queries, relevance, cutoffs, tuning (issue 15).

The paper's test collection (107 queries over 90 days of tweets, judged by assessors) is
not public. CrisisLexT26 is a labelled, time-stamped tweet stream of 26 crisis events, so
relevance can be taken from the labels instead:

- **event-name queries**, one per event, its words derived from the label
  (``2013_Boston_bombings`` -> "Boston bombings": the year dropped, underscores made
  spaces, the source's misspelling "Philipinnes" corrected to "Philippines"); relevant:
  the tweets of that event;
- **hazard-type queries** (:data:`HAZARD_EVENTS`): "flood", "earthquake", "typhoon", "fire",
  "train crash", "explosion"; relevant: the tweets of every event of that type.

Query words go through the corpus's preprocessing pipeline (lowercase, stop words, ...);
words outside the corpus vocabulary are dropped (:mod:`shortclust.evaluation.retrieval`).

At each of ``n_cutoffs`` cutoffs through the stream (the times of the documents at
positions ``k N / n_cutoffs``, k = 1..n_cutoffs; the paper judged 5 days 20 days apart),
every tweet up to the cutoff is scored (no re-ranked pool) and the top 1000 are
evaluated; a query with no relevant tweet yet is left out at that cutoff. A query's value
is its mean over the cutoffs where it counts. lambda, mu and b are tuned by the paper's
60/30/10 protocol (:func:`~shortclust.evaluation.retrieval.split_protocol`) over all the
queries (the 6 hazard queries alone are too few for 10 folds); means are reported per kind.

Clusters compared here: none (plain query likelihood, the paper's LM), the true events
(perfect clusters) and random clusters (uniform over as many clusters as events). A model's
clusters plug in as a :data:`ClusterSource`.

Run ``python -m shortclust.papers.dct.crisis_retrieval`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from shortclust.evaluation.ranking import METRIC_LABELS, RANKING_METRICS
from shortclust.evaluation.retrieval import (Collection, Query, SmoothingGrid, ages_in_days,
                                             cluster_word_distributions, grid_metrics, one_hot,
                                             split_protocol)

__all__ = ["HAZARD_EVENTS", "event_query_text", "crisis_queries", "cutoff_positions",
           "perfect_clusters", "random_clusters", "answerable", "cutoff_tables", "retrieval_table",
           "run_crisis_retrieval", "ClusterSource", "TEMPORAL_FEEDBACK", "TMS_GAMMAS",
           "method_points"]

#: Events of each hazard type. After Olteanu et al. (CSCW 2015), who type the events: the
#: wildfires, the bushfire and the nightclub fire are fires; the Venezuela refinery and the
#: West Texas fertiliser plant exploded. The Boston bombings (an attack), the Russian
#: meteor, the Savar collapse, the Singapore haze, the shootings and the helicopter crash
#: are of no listed type and have no hazard query.
HAZARD_EVENTS = {
    "flood": ("2012_Philipinnes_floods", "2013_Queensland_floods", "2013_Alberta_floods",
              "2013_Manila_floods", "2013_Colorado_floods", "2013_Sardinia_floods"),
    "earthquake": ("2012_Italy_earthquakes", "2012_Costa_Rica_earthquake",
                   "2012_Guatemala_earthquake", "2013_Bohol_earthquake"),
    "typhoon": ("2012_Typhoon_Pablo", "2013_Typhoon_Yolanda"),
    "fire": ("2012_Colorado_wildfires", "2013_Australia_bushfire", "2013_Brazil_nightclub_fire"),
    "train crash": ("2013_Lac_Megantic_train_crash", "2013_Spain_train_crash",
                    "2013_NY_train_crash"),
    "explosion": ("2012_Venezuela_refinery", "2013_West_Texas_explosion"),
}

#: Corrections of the source's label spelling, so the query is what a user would type.
_SPELLING = {"Philipinnes": "Philippines"}

#: The method value of :func:`run_crisis_retrieval` for TMS: no clusters, temporal feedback.
TEMPORAL_FEEDBACK = "temporal feedback"
#: The TMS weights ``gamma`` tuned beside mu and b (0: plain query likelihood).
TMS_GAMMAS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)

#: ``(doc_topic, topic_word)`` of the first ``n`` documents at a cutoff, or None (no
#: clusters): ``source(cutoff_index, n) -> (ndarray (n, Z), ndarray (Z, V)) | None``.
ClusterSource = Callable[[int, int], "tuple[np.ndarray, np.ndarray] | None"]


def event_query_text(label: str) -> str:
    """The query of an event from its label.

    Examples
    --------
    >>> event_query_text("2013_Boston_bombings"), event_query_text("2012_Philipinnes_floods")
    ('Boston bombings', 'Philippines floods')
    """
    words = re.sub(r"^\d{4}_", "", label).split("_")
    return " ".join(_SPELLING.get(word, word) for word in words)


@dataclass(frozen=True)
class QuerySpec:
    """A query before a cutoff: its kind, text, tokens and the labels it finds."""

    name: str
    kind: str  # "event" or "hazard"
    text: str
    tokens: tuple
    relevant_labels: tuple


def crisis_queries(label_names, pipeline, hazards=None) -> list[QuerySpec]:
    """The event-name and hazard-type queries of the corpus's events.

    Parameters
    ----------
    label_names : sequence of str
        The events (CrisisLexT26's labels).
    pipeline : str or Pipeline
        The corpus's preprocessing, applied to the query texts.
    hazards : dict, optional
        Hazard type -> its events; default :data:`HAZARD_EVENTS`.

    Raises
    ------
    DataError
        A hazard type names an event the corpus lacks (not CrisisLexT26).
    """
    from shortclust.data.preprocess import tokenize
    from shortclust.errors import DataError

    specs = [QuerySpec(label, "event", event_query_text(label), (), (label,))
             for label in label_names]
    for hazard, events in (HAZARD_EVENTS if hazards is None else hazards).items():
        missing = sorted(set(events) - set(label_names))
        if missing:
            raise DataError(f"hazard query {hazard!r} needs events {missing} the corpus lacks: "
                            "use CrisisLexT26")
        specs.append(QuerySpec(hazard, "hazard", hazard, (), events))
    tokens = tokenize([spec.text for spec in specs], pipeline)
    return [QuerySpec(s.name, s.kind, s.text, tuple(t), s.relevant_labels)
            for s, t in zip(specs, tokens)]


def cutoff_positions(n_docs: int, n_cutoffs: int) -> list[int]:
    """Documents up to each cutoff: ``round(k n_docs / n_cutoffs)``, k = 1..n_cutoffs."""
    return [int(round(k * n_docs / n_cutoffs)) for k in range(1, n_cutoffs + 1)]


def perfect_clusters(corpus) -> ClusterSource:
    """The events as clusters: one-hot ``P(z | d)``, each event's smoothed word distribution."""
    return _hard_clusters(corpus, np.asarray(corpus.labels), len(corpus.label_names))


def random_clusters(corpus, n_clusters: int, seed: int = 0) -> ClusterSource:
    """Clusters drawn uniformly at random, whatever the text."""
    labels = np.random.default_rng(seed).integers(0, n_clusters, size=corpus.n_docs)
    return _hard_clusters(corpus, labels, n_clusters)


def _hard_clusters(corpus, labels, n_clusters) -> ClusterSource:
    def source(cutoff_index, n):
        phi = cluster_word_distributions(corpus.counts[:n], labels[:n], n_clusters)
        return one_hot(labels[:n], n_clusters), phi
    return source


def cutoff_tables(corpus, specs, clusters: ClusterSource | None, smoothings, n_cutoffs=5,
                  depth=1000):
    """Each query's metrics per setting at each cutoff, in stream order.

    Yields
    ------
    ndarray of shape (n_settings, n_queries, n_metrics)
        One per cutoff; NaN for a query without a relevant document yet.
    """
    labels = np.asarray(corpus.label_names, dtype=object)[corpus.labels]
    for index, n in enumerate(cutoff_positions(corpus.n_docs, n_cutoffs)):
        model = clusters(index, n) if clusters is not None else None
        doc_topic, topic_word = model if model is not None else (None, None)
        collection = Collection(corpus.counts[:n], corpus.vocabulary, doc_topic=doc_topic,
                                topic_word=topic_word, ages=_ages(corpus, n))
        queries = [Query(s.name, s.tokens, np.isin(labels[:n], s.relevant_labels))
                   for s in specs]
        yield grid_metrics(collection, queries, smoothings, depth=depth)


def retrieval_table(corpus, specs, clusters: ClusterSource | None, smoothings,
                    n_cutoffs=5, depth=1000) -> np.ndarray:
    """Each query's metrics per setting, averaged over the cutoffs where it counts.

    Returns
    -------
    ndarray of shape (n_settings, n_queries, n_metrics)
        NaN for a query that never has a relevant document.
    """
    total = np.zeros((len(smoothings), len(specs), len(RANKING_METRICS)))
    counted = np.zeros(len(specs))
    for table in cutoff_tables(corpus, specs, clusters, smoothings, n_cutoffs, depth):
        present = ~np.isnan(table[0, :, 0])
        total[:, present] += table[:, present]
        counted += present
    with np.errstate(invalid="ignore"):
        return total / counted[None, :, None]


def answerable(specs, corpus, out=None) -> list[QuerySpec]:
    """The queries with a word in the corpus vocabulary; the others are named on ``out``.

    A query none of whose words survives preprocessing asks nothing (with the ``basic``
    pipeline, "fire" is one of scikit-learn's English stop words, so the hazard query
    "fire" is empty).
    """
    vocabulary = set(corpus.vocabulary)
    kept = [s for s in specs if vocabulary.intersection(s.tokens)]
    if out is not None:
        for spec in specs:
            if spec not in kept:
                out.write(f"note: query {spec.name!r} ({spec.text!r}) has no word in the "
                          f"{corpus.preprocess} vocabulary (tokens {list(spec.tokens)}): "
                          "left out\n")
    return kept


def _ages(corpus, n):
    if corpus.times is None:
        return None
    times = corpus.times[:n]
    return ages_in_days(times, times.max())


def method_points(clusters, grid: SmoothingGrid) -> tuple:
    """A method's clusters as scored, and the settings its retrieval is tuned over.

    Parameters
    ----------
    clusters : ClusterSource, None or TEMPORAL_FEEDBACK
        As a value of :func:`run_crisis_retrieval`'s ``methods``.
    grid : SmoothingGrid

    Returns
    -------
    clusters, points
        With clusters: the grid's settings. Without (LM): ``lambda`` held at 0, mu and b
        tuned. TMS: no clusters either, ``gamma`` tuned over :data:`TMS_GAMMAS` beside mu and b.
    """
    if clusters is TEMPORAL_FEEDBACK:
        return None, SmoothingGrid(lams=(0.0,), mus=grid.mus, bs=grid.bs,
                                   gammas=TMS_GAMMAS).points
    if clusters is None:
        return None, SmoothingGrid(lams=(0.0,), mus=grid.mus, bs=grid.bs).points
    return clusters, grid.points


def run_crisis_retrieval(corpus, methods, grid=None, *, n_cutoffs=5, n_repeats=10, seed=0,
                         hazards=None, n_folds=10, n_validation_folds=3,
                         out=sys.stdout) -> dict:
    """Tune and test each method's retrieval by the 60/30/10 protocol; print a table.

    Parameters
    ----------
    corpus : Corpus
        CrisisLexT26, time-ordered, preprocessed.
    methods : dict
        Name -> ClusterSource, None (plain query likelihood: ``lambda`` held at 0) or
        :data:`TEMPORAL_FEEDBACK` (TMS: ``lambda`` at 0, ``gamma`` tuned over
        :data:`TMS_GAMMAS` with mu and b).
    grid : SmoothingGrid, optional
    hazards : dict, optional
        Hazard type -> its events; default :data:`HAZARD_EVENTS`.
    n_folds, n_validation_folds : int
        The protocol's folds: 10 and 3 are the paper's 60/30/10 split.

    Returns
    -------
    dict
        Method -> ``{"event": {metric: mean}, "hazard": {...}, "all": {...},
        "chosen": [...]}``, and for a method with clusters ``"by_lambda"``: lambda (as
        text) -> the same three means with lambda held there and mu, b tuned.
    """
    grid = grid or SmoothingGrid()
    specs = answerable(crisis_queries(corpus.label_names, corpus.preprocess, hazards),
                       corpus, out)
    kinds = np.array([s.kind for s in specs])
    results = {}
    for name, clusters in methods.items():
        started = time.perf_counter()
        clusters, points = method_points(clusters, grid)
        table = retrieval_table(corpus, specs, clusters, points, n_cutoffs=n_cutoffs)
        tuned = split_protocol(table, n_repeats=n_repeats, seed=seed, n_folds=n_folds,
                               n_validation_folds=n_validation_folds)
        results[name] = _by_kind(tuned, kinds)
        results[name]["chosen"] = [points[i] for i in tuned.chosen]
        if clusters is not None:
            results[name]["by_lambda"] = _by_lambda(table, points, kinds, n_repeats, seed,
                                                    n_folds, n_validation_folds)
        out.write(f"{name}: {time.perf_counter() - started:.0f} s\n")
    _print_table(results, out)
    return results


def _by_kind(tuned, kinds) -> dict:
    """Test-set means per kind of query (event, hazard) and over all queries."""
    result = {kind: dict(zip(RANKING_METRICS, map(float, tuned.per_query[
        kinds == kind].mean(axis=0)))) for kind in ("event", "hazard") if kind in kinds}
    result["all"] = tuned.mean
    return result


def _by_lambda(table, points, kinds, n_repeats, seed, n_folds, n_validation_folds) -> dict:
    """Figure 5's measurement: for each lambda of the grid held fixed, the protocol tunes
    mu and b alone. Keys are the lambdas as text (``"0.3"``), for JSON."""
    lams = sorted({p.lam for p in points})
    result = {}
    for lam in lams:
        rows = [i for i, p in enumerate(points) if p.lam == lam]
        tuned = split_protocol(table[rows], n_repeats=n_repeats, seed=seed, n_folds=n_folds,
                               n_validation_folds=n_validation_folds)
        result[repr(float(lam))] = _by_kind(tuned, kinds)
    return result


def _print_table(results, out):
    header = " | ".join(METRIC_LABELS[m] for m in RANKING_METRICS)
    for kind in ("event", "hazard", "all"):
        if any(kind not in result for result in results.values()):
            continue
        out.write(f"\nqueries: {kind}\n\n| method | {header} |\n|---|"
                  + "---|" * len(RANKING_METRICS) + "\n")
        for name, result in results.items():
            cells = " | ".join(f"{result[kind][m]:.4f}" for m in RANKING_METRICS)
            out.write(f"| {name} | {cells} |\n")
    out.write("\nsettings chosen (lambda, mu, b: folds)\n")
    for name, result in results.items():
        counts = {}
        for s in result["chosen"]:
            counts[(s.lam, s.mu, s.b)] = counts.get((s.lam, s.mu, s.b), 0) + 1
        common = sorted(counts.items(), key=lambda item: -item[1])[:4]
        out.write(f"- {name}: " + ", ".join(f"{k}: {v}" for k, v in common) + "\n")


def main(argv=None) -> int:
    """Plain query likelihood, perfect and random clusters on CrisisLexT26."""
    from shortclust.data import load_corpus
    from shortclust.errors import ShortclustError

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--preprocess", default="basic")
    parser.add_argument("--cutoffs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    try:
        corpus = load_corpus("CrisisLexT26", args.preprocess, args.data_dir)
        methods = {"LM (no clusters)": None, "TMS": TEMPORAL_FEEDBACK,
                   "perfect clusters": perfect_clusters(corpus),
                   "random clusters": random_clusters(corpus, len(corpus.label_names),
                                                      args.seed)}
        run_crisis_retrieval(corpus, methods, n_cutoffs=args.cutoffs,
                             n_repeats=args.repeats, seed=args.seed)
    except ShortclustError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
