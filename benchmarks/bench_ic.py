"""Speed and memory of iterative classification (Rakib et al., Algorithm 1).

Usage::

    python benchmarks/bench_ic.py                        # StackOverflow, K = 20, 50 iterations
    python benchmarks/bench_ic.py --dataset Tweet --iters 10 --repeats 3
    python benchmarks/bench_ic.py --classifier-params '{"warm_start": false}'
    python benchmarks/bench_ic.py --initial hac_sd       # the paper's pipeline: HAC_SD, then IC

The initial labels come from k-means on TF-IDF (``KMeans``, true K, one seed per repeat,
timed separately as ``initial_seconds``), or with ``--initial hac_sd`` from HAC_SD
(Algorithm 2 sparsification, Ward linkage) on the sentence embeddings (read from the
representation cache, computed first if missing; not timed), as in
``shortclust reproduce ic``; ``total_seconds`` is then the whole pipeline. Iterative classification then runs exactly
``--iters`` iterations (the stopping criterion is off, ``tol=None``, unless ``--tol`` is
given). The compiled Isolation Forest is compiled (or loaded from numba's cache) by a
warm-up fit on a slice of the data before anything is timed. Thread pools are limited to
one core. Per-repeat lines go to standard error; the last line on standard output is one
JSON object: ``docs``, ``k``, ``iters``, ``fit_seconds`` (median whole ``fit``, TF-IDF
included), ``iteration_seconds`` (median, over repeats, of the median iteration; and
``iteration_seconds_max``), ``initial_seconds`` (median k-means fit), ``n_iter``,
NMI and ACC before and after, ``peak_rss_mib`` (the process's peak resident memory,
data loading included) and the settings.
"""

import argparse
import json
import platform
import resource
import statistics
import sys
import time

# One core, as the acceptance figures are stated; set before numpy/numba load.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.evaluation.metrics import evaluate  # noqa: E402
from shortclust.models.ic.iterative_classification import IterativeClassification  # noqa: E402
from shortclust.models.kmeans.kmeans import KMeans  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="StackOverflow", help="registry name or file path")
    parser.add_argument("--k", type=int, default=None, help="clusters (default: true classes)")
    parser.add_argument("--iters", type=int, default=50, help="IC iterations (max_iter)")
    parser.add_argument("--tol", type=float, default=None,
                        help="stopping criterion (default: off, run all iterations)")
    parser.add_argument("--repeats", type=int, default=1, help="timed fits, seeds 0..R-1")
    parser.add_argument("--initial", choices=["kmeans", "hac_sd"], default="kmeans",
                        help="initial clustering: k-means on TF-IDF, or HAC_SD on sentence "
                             "embeddings (the embeddings extra)")
    parser.add_argument("--kmeans-init", type=int, default=1,
                        help="k-means initialisations for the initial labels")
    parser.add_argument("--classifier", default="logistic_regression")
    parser.add_argument("--classifier-params", default="{}", help="JSON object")
    parser.add_argument("--outlier", default="isolation_forest")
    parser.add_argument("--outlier-params", default="{}", help="JSON object")
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def peak_rss_mib():
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def make_model(args, k, seed, **changes):
    params = dict(n_clusters=k, max_iter=args.iters, tol=args.tol,
                  classifier=args.classifier,
                  classifier_params=json.loads(args.classifier_params),
                  outlier=args.outlier, outlier_params=json.loads(args.outlier_params),
                  random_state=seed)
    return IterativeClassification(**{**params, **changes})


def initial_clustering(corpus, vectors, k, seed, args):
    """The fitted initial clusterer: k-means on TF-IDF, or HAC_SD on ``vectors``."""
    if args.initial == "hac_sd":
        from shortclust.models.hac.hac_similarity import HACSD

        return HACSD(n_clusters=k).fit(vectors)
    return KMeans(n_clusters=k, n_init=args.kmeans_init, random_state=seed).fit(corpus.counts)


def embeddings(corpus, args):
    """Sentence embeddings of the corpus for ``--initial hac_sd`` (cached on disk)."""
    if args.initial != "hac_sd":
        return None
    from shortclust.representations import RepresentationSpec, build_representation

    return build_representation(corpus, RepresentationSpec(name="sentence_embeddings"))


def one_repeat(corpus, vectors, k, seed, args):
    """Initial clustering, then timed IC; returns one measurement."""
    started = time.perf_counter()
    initial = initial_clustering(corpus, vectors, k, seed, args)
    initial_seconds = time.perf_counter() - started
    stamps = []
    model = make_model(args, k, seed)
    started = time.perf_counter()
    model.fit(corpus.counts, init_labels=initial.labels_,
              callback=lambda *_: stamps.append(time.perf_counter()))
    fit_seconds = time.perf_counter() - started
    # The first iteration also carries the TF-IDF and set-up; the others are pure loop.
    steps = np.diff(stamps) if len(stamps) > 1 else np.array([fit_seconds])
    before = evaluate(corpus.labels, initial.labels_, ["nmi", "acc"])
    after = evaluate(corpus.labels, model.labels_, ["nmi", "acc"])
    row = {"seed": seed, "fit_seconds": fit_seconds, "initial_seconds": initial_seconds,
           "total_seconds": initial_seconds + fit_seconds,
           "iteration_seconds": float(np.median(steps)),
           "iteration_seconds_max": float(np.max(steps)), "n_iter": model.n_iter_,
           "nmi_before": before["nmi"], "acc_before": before["acc"],
           "nmi_after": after["nmi"], "acc_after": after["acc"]}
    print(f"seed {seed}: IC fit {fit_seconds:.2f} s ({model.n_iter_} iterations, median "
          f"{row['iteration_seconds']:.3f} s, max {row['iteration_seconds_max']:.3f} s), "
          f"{args.initial} {initial_seconds:.2f} s; NMI {before['nmi']:.4f} -> {after['nmi']:.4f}, "
          f"ACC {before['acc']:.4f} -> {after['acc']:.4f}", file=sys.stderr)
    return row


def main(argv=None):
    args = parse_args(argv)
    corpus = load_corpus(args.dataset, data_dir=args.data_dir)
    k = args.k or int(np.unique(corpus.labels).size)
    # Compile the forest (or load it from numba's cache) outside the timings.
    warm = corpus.counts[: min(300, corpus.n_docs)]
    warm_k = min(k, 5, warm.shape[0])
    make_model(args, warm_k, 0, max_iter=2).fit(warm, init_labels=np.arange(warm.shape[0]) % warm_k)

    vectors = embeddings(corpus, args)
    if vectors is not None:  # compile the sparsifier outside the timings too
        initial_clustering(corpus, vectors[:50], 2, 0, args)
    rows = [one_repeat(corpus, vectors, k, seed, args) for seed in range(args.repeats)]
    median = lambda key: statistics.median(r[key] for r in rows)  # noqa: E731
    result = {
        "benchmark": "iterative_classification", "dataset": args.dataset,
        "docs": corpus.n_docs, "words": corpus.n_words, "k": k, "iters": args.iters,
        "tol": args.tol, "repeats": args.repeats,
        "fit_seconds": median("fit_seconds"), "iteration_seconds": median("iteration_seconds"),
        "iteration_seconds_max": max(r["iteration_seconds_max"] for r in rows),
        "initial": args.initial, "initial_seconds": median("initial_seconds"),
        "total_seconds": median("total_seconds"), "n_iter": median("n_iter"),
        "nmi_before": median("nmi_before"), "acc_before": median("acc_before"),
        "nmi_after": median("nmi_after"), "acc_after": median("acc_after"),
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "classifier": args.classifier, "classifier_params": json.loads(args.classifier_params),
        "outlier": args.outlier, "outlier_params": json.loads(args.outlier_params),
        "python": platform.python_version(), "runs": rows,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
