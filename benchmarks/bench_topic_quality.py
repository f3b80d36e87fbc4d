"""What topic quality (NPMI, C_v, diversity of the clusters' top words) adds to a GSDMM run.

Usage::

    python benchmarks/bench_topic_quality.py              # GoogleNews-T, K=500, 30 iterations
    python benchmarks/bench_topic_quality.py --copies 3           # 33,327 documents

A run is what the runner does for each seed (:meth:`RunContext.fit`: the fit, the metrics,
and with ``topic_quality`` the model's top words scored); the same seeds are run with and
without topic quality, alternating which goes first, after an untimed warm-up fit that
compiles the kernels. Reported (medians over repeats): the run's wall seconds with and
without, the topic-quality seconds each run records (top words included) against that
run's ``fit_seconds``, and the three steps timed apart on the last fitted model. The last
line printed is one JSON object, for scripts.
"""

import argparse
import json
import os
import statistics
import sys
import time

# One core, as the other benchmarks; set before numpy/numba load.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

from dataclasses import replace  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.evaluation.coherence import Reference  # noqa: E402
from shortclust.pipeline.fitting import RunContext  # noqa: E402
from shortclust.pipeline.plan import PlannedRun  # noqa: E402
from shortclust.pipeline.topic_quality import TopicScorer  # noqa: E402
from shortclust.models.dmm.gsdmm import GSDMM  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="GoogleNews-T", help="registry name or file path")
    parser.add_argument("--copies", type=int, default=1, help="concatenated copies of the data")
    parser.add_argument("--k", type=int, default=500, help="initial number of clusters")
    parser.add_argument("--iters", type=int, default=30, help="Gibbs sweeps per fit")
    parser.add_argument("--top-n", type=int, default=10, help="top words per cluster")
    parser.add_argument("--repeats", type=int, default=7, help="seeds; medians are reported")
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def contexts(corpus, top_n):
    """The runner's context for GSDMM on ``corpus``, with and without topic quality."""
    words = Reference(corpus.counts, corpus.vocabulary)
    scorer = TopicScorer(("npmi", "c_v", "diversity"), top_n, None, list(corpus.vocabulary),
                         words, words)
    plain = RunContext(GSDMM, corpus.counts, None, corpus.labels,
                       ["nmi", "ami", "ari", "acc", "homogeneity", "completeness",
                        "v_measure", "purity"])
    return plain, replace(plain, quality=scorer)


def timed(context, run):
    started = time.perf_counter()
    outcome = context.fit(run, lambda *_: None)
    return time.perf_counter() - started, outcome.fields


def steps(scorer, model, labels, repeats=20):
    """Median seconds of each step of the scoring, on one fitted model."""
    def median(call):
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - started)
        return statistics.median(times), result

    top_words, words = median(lambda: model.top_words(scorer.top_n,
                                                      vocabulary=scorer.vocabulary))
    keep, topics = median(lambda: scorer.corpus.cluster_topics(words, labels))
    score, _ = median(lambda: scorer.reference.quality(topics, scorer.measures))
    return {"top_words": top_words, "cluster_topics": keep, "coherence_and_diversity": score,
            "clusters_scored": len(topics)}


def main(argv=None):
    args = parse_args(argv)
    corpus = load_corpus(args.dataset, data_dir=args.data_dir)
    if args.copies > 1:
        corpus = corpus.repeat(args.copies)
    plain, scored = contexts(corpus, args.top_n)
    params = {"n_clusters": args.k, "alpha": 0.1, "beta": 0.1, "max_iter": args.iters}
    plain.warm_up(params)
    without, with_quality, fits, quality, plain_fits = [], [], [], [], []
    for seed in range(args.repeats):
        run = PlannedRun(seed, f"bench{seed}", params)
        order = [(plain, without), (scored, with_quality)]
        for context, times in (order if seed % 2 == 0 else order[::-1]):
            seconds, fields = timed(context, run)
            times.append(seconds)
            if "topic_quality" not in fields:
                plain_fits.append(fields["fit_seconds"])
            else:
                fits.append(fields["fit_seconds"])
                quality.append(fields["topic_quality"]["seconds"])
                values = {k: fields["topic_quality"][k] for k in ("npmi", "c_v", "diversity")}
        print(f"seed {seed}: run {without[-1]:.3f} s without, {with_quality[-1]:.3f} s with "
              f"topic quality ({quality[-1] * 1000:.1f} ms of it; fits {plain_fits[-1]:.3f} and "
              f"{fits[-1]:.3f} s) "
              f"{values}", file=sys.stderr)
    model = GSDMM(**params, random_state=0).fit(corpus.counts)
    report = {
        "docs": corpus.n_docs, "k": args.k, "iters": args.iters, "top_n": args.top_n,
        "repeats": args.repeats,
        "run_seconds_without": statistics.median(without),
        "run_seconds_with": statistics.median(with_quality),
        "fit_seconds_without": statistics.median(plain_fits),
        "fit_seconds": statistics.median(fits),
        "topic_quality_seconds": statistics.median(quality),
        "topic_quality_share_of_fit": statistics.median(q / f for q, f in zip(quality, fits)),
        "steps_seconds": steps(scored.quality, model, model.labels_),
        "load_average": os.getloadavg()[0],
    }
    report["run_overhead"] = report["run_seconds_with"] / report["run_seconds_without"] - 1
    print(json.dumps(report))


if __name__ == "__main__":
    main()
