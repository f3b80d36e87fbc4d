"""Time and peak memory of HAC_SD (Ward on the Algorithm 2 sparsified matrix) on StackOverflow.

Issue 4 requires HAC_SD followed by 50 iterative-classification iterations on the 20,000
StackOverflow titles in under 5 minutes and 8 GiB on one core; this measures the HAC_SD
part: l2-normalised TF-IDF, the dense float32 cosine similarity matrix, Algorithm 2 with
K = 20 (N = floor(n (n/K - 1) / 2) = 9,990,000 pairs kept), distances 1 - s, scipy's
Ward linkage and the cut at K clusters.

Usage::

    python benchmarks/bench_hac_sd.py                     # StackOverflow, K = 20
    python benchmarks/bench_hac_sd.py --phases            # also time each step separately
    python benchmarks/bench_hac_sd.py --dataset Tweet --k 89 --sparsify knn
    python benchmarks/bench_hac_sd.py --graph sparse      # HAC_SD without the n x n matrix

Imports and a fit on 200 documents come first (untimed). ``fit_seconds`` is one timed
``fit`` of the estimator on the corpus (TF-IDF weighting included); ``peak_rss_mib`` is
the process's peak resident memory (``ru_maxrss``), data loading included, and
``peak_rss_before_fit_mib`` the same just before the timed fit. With ``--phases`` the
steps are then run once more one by one, in the same process (``phases_seconds``), which
cannot raise the peak above the fit's. The last line on standard output is one JSON object.
"""

import argparse
import json
import platform
import resource
import sys
import time

# One core, as the budget is stated; set before numpy and scipy load.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()


def peak_rss_mib():
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_phases(counts, n_clusters, sparsify, k):
    """Seconds per step of the estimator's pipeline, run one by one."""
    from scipy.cluster.hierarchy import linkage

    from shortclust.models.hac import hac_similarity as hs
    from shortclust.models.hac._sparsify import knn_sparsify, sd_sparsify
    from shortclust.models.hac.hac import _cut

    seconds, started = {}, time.perf_counter()

    def lap(name):
        nonlocal started
        now = time.perf_counter()
        seconds[name] = round(now - started, 3)
        started = now

    vectors, _ = hs.unit_vectors(counts)
    lap("tfidf")
    if sparsify == "none":
        distances = hs.condensed_cosine_distances(vectors)
        lap("distances")
    else:
        similarities = hs.similarity_matrix(vectors)
        lap("similarity_matrix")
        kept = (sd_sparsify(similarities, n_clusters) if sparsify == "sd"
                else knn_sparsify(similarities, k or max(1, counts.shape[0] // n_clusters - 1)))
        del similarities
        lap("sparsify")
        distances = hs.condensed_from_sparse(kept)
        lap("distances")
    merges = linkage(distances, method="ward")
    del distances
    lap("ward_linkage")
    _cut(merges, counts.shape[0], n_clusters)
    lap("cut")
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="StackOverflow")
    parser.add_argument("--k", type=int, default=20, help="number of clusters K")
    parser.add_argument("--sparsify", default="sd", choices=["none", "knn", "sd"])
    parser.add_argument("--neighbours", type=int, default=None, help="k for --sparsify knn")
    parser.add_argument("--graph", default="dense", choices=["dense", "sparse"],
                        help="sparse: Algorithm 2 from the vectors and Ward on the kept "
                             "pairs (sd only); no --phases")
    parser.add_argument("--phases", action="store_true")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)

    import numpy as np
    import scipy

    from shortclust.data import load_corpus
    from shortclust.evaluation.metrics import evaluate
    from shortclust.models.hac.hac_similarity import HACSimilarity

    started = time.perf_counter()
    corpus = load_corpus(args.dataset, data_dir=args.data_dir)
    load_seconds = time.perf_counter() - started
    params = {"n_clusters": args.k, "sparsify": args.sparsify, "k": args.neighbours,
              "graph": args.graph}
    HACSimilarity(**{**params, "n_clusters": min(args.k, 200)}).fit(corpus.counts[:200])
    before = peak_rss_mib()
    print(f"{args.dataset}: {corpus.n_docs} documents, fitting HAC ({args.sparsify}) "
          f"with K={args.k}...", file=sys.stderr)
    started = time.perf_counter()
    model = HACSimilarity(**params).fit(corpus.counts)
    fit_seconds = time.perf_counter() - started
    result = {
        "dataset": args.dataset, "docs": corpus.n_docs, "params": params,
        "fit_seconds": round(fit_seconds, 2), "peak_rss_mib": round(peak_rss_mib()),
        "peak_rss_before_fit_mib": round(before), "load_seconds": round(load_seconds, 2),
        "n_retained_pairs": int(model.n_retained_),
        "cluster_sizes": sorted(np.bincount(model.labels_).tolist(), reverse=True),
    }
    if corpus.labels is not None:
        scores = evaluate(corpus.labels, model.labels_, ["nmi", "acc"])
        result.update({name: round(value, 4) for name, value in scores.items()})
    if args.phases and args.graph == "dense":
        result["phases_seconds"] = time_phases(corpus.counts, args.k, args.sparsify,
                                               args.neighbours)
        result["peak_rss_mib"] = round(peak_rss_mib())
    result["versions"] = {"python": platform.python_version(), "numpy": np.__version__,
                          "scipy": scipy.__version__}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
