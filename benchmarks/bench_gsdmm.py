"""Speed and memory of GSDMM's Gibbs sampling on N concatenated copies of a dataset.

Usage::

    python benchmarks/bench_gsdmm.py --dataset GoogleNews-T --copies 1 --k 300 --iters 10
    python benchmarks/bench_gsdmm.py --copies 1,16      # both sizes in one run, with their ratio

The kernels are compiled (and the compile cache loaded) by a warm-up fit on a slice of
the data before anything is timed. Each repeat is a fresh fit with its own seed; the
reported ``sample_seconds`` is the median over repeats of the time spent in the sampling
sweeps only (initial assignment and count building excluded). ``peak_rss_mib`` is the
process's peak resident memory, data loading included. The last line printed is one
JSON object, for scripts.
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

from shortclust.data import load_corpus  # noqa: E402
from shortclust.models.dmm.gsdmm import GSDMM  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="GoogleNews-T", help="registry name or file path")
    parser.add_argument("--copies", default="1",
                        help="concatenated copies of the data; a comma list (1,16) measures "
                             "each in this process and reports time ratios to the first")
    parser.add_argument("--k", type=int, default=300, help="initial number of clusters")
    parser.add_argument("--iters", type=int, default=10, help="Gibbs sweeps per fit")
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=3, help="timed fits; the median is reported")
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def peak_rss_mib():
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure(counts, args):
    """Median sampling and fit seconds over ``args.repeats`` fresh fits."""
    timings, fits = [], []
    for seed in range(args.repeats):
        model = GSDMM(n_clusters=args.k, alpha=args.alpha, beta=args.beta,
                      max_iter=args.iters, random_state=seed)
        started = time.perf_counter()
        model.fit(counts)
        fits.append(time.perf_counter() - started)
        timings.append(model.sample_seconds_)
        print(f"{counts.shape[0]} docs, repeat {seed}: sampling {model.sample_seconds_:.4f} s, "
              f"whole fit {fits[-1]:.4f} s, {model.n_clusters_} clusters, mean occupied "
              f"{statistics.mean(model.n_clusters_history_):.0f}", file=sys.stderr)
    return statistics.median(timings), statistics.median(fits), timings


def main(argv=None):
    args = parse_args(argv)
    copies = [int(c) for c in str(args.copies).split(",")]
    corpus = load_corpus(args.dataset, data_dir=args.data_dir)
    warm = GSDMM(n_clusters=args.k, max_iter=1, random_state=0)
    warm.fit(corpus.counts[: min(500, corpus.n_docs)])

    rows = []
    for n_copies in copies:
        counts = corpus.repeat(n_copies).counts if n_copies > 1 else corpus.counts
        sample, fit, timings = measure(counts, args)
        rows.append({
            "copies": n_copies,
            "docs": int(counts.shape[0]),
            "tokens": int(counts.sum()),
            "sample_seconds": round(sample, 4),
            "sample_seconds_all": [round(t, 4) for t in timings],
            "fit_seconds": round(fit, 4),
            "ns_per_doc_cluster_iter": round(1e9 * sample / (counts.shape[0] * args.k * args.iters), 3),
            "ratio_to_first": round(sample / rows[0]["sample_seconds"], 2) if rows else 1.0,
        })
        del counts
    result = {
        "benchmark": "gsdmm_sampling",
        "dataset": corpus.name,
        "k": args.k,
        "iters": args.iters,
        "repeats": args.repeats,
        **rows[-1],
        "runs": rows if len(rows) > 1 else None,
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "machine": platform.processor() or platform.machine(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
