"""Speed and memory of Ncut-weighted NMF (ANLS) to convergence, on one core.

Usage::

    python benchmarks/bench_ncut_nmf.py                          # NMF+nc, K=20, StackOverflow
    python benchmarks/bench_ncut_nmf.py --copies 1,4 --repeats 3 # memory against size

The dataset is preprocessed with the paper's pipeline (``preprocess="ncut"``, section
4.1.1). Each repeat is a fresh fit with its own seed, run to the model's own convergence
rule (relative change of Eq. 6 below ``tol``, or ``max_iter``). ``fit_seconds`` is the
median whole ``fit`` (weights, initialisation, iterations). Nothing is compiled (numpy/
scipy only), so there is no warm-up to exclude beyond a first untimed small fit.
``fit_peak_mib`` is the peak of memory allocated during a fit (``tracemalloc``, which
sees numpy's and scipy's buffers), and ``fit_bytes_per_nnz`` that peak divided by the
non-zeros of the document-term matrix: constant across ``--copies`` means memory linear
in the non-zeros. ``peak_rss_mib`` is the process's peak resident memory, data loading
and interpreter included. The last line printed is one JSON object, for scripts.
"""

import argparse
import json
import platform
import resource
import statistics
import sys
import time
import tracemalloc

# One core, as the acceptance figures are stated; set before numpy loads.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import scipy.sparse as sp  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.models.nmf.ncut_nmf import NMFClustering  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="StackOverflow", help="registry name or file path")
    parser.add_argument("--preprocess", default="ncut")
    parser.add_argument("--copies", default="1",
                        help="concatenated copies of the documents; a comma list (1,4) "
                             "measures each in this process")
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--weighting", default="ncut", choices=["ncut", "idf", "binary"])
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=None, help="default: the model's")
    parser.add_argument("--max-iter", type=int, default=None, help="default: the model's")
    parser.add_argument("--repeats", type=int, default=3, help="timed fits; the median is reported")
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def peak_rss_mib():
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def make_model(args, seed):
    params = {"n_clusters": args.k, "weighting": args.weighting, "lam": args.lam,
              "random_state": seed}
    if args.tol is not None:
        params["tol"] = args.tol
    if args.max_iter is not None:
        params["max_iter"] = args.max_iter
    return NMFClustering(**params)


def measure(counts, args):
    """Median fit seconds over ``args.repeats`` fits, then one traced fit for memory."""
    timings, fits = [], []
    for seed in range(args.repeats):
        model = make_model(args, seed)
        started = time.perf_counter()
        model.fit(counts)
        timings.append(time.perf_counter() - started)
        fits.append(model)
        print(f"  seed {seed}: {timings[-1]:.3f} s, {model.n_iter_} iterations, "
              f"fallbacks {model.n_fallback_steps_}, objective {model.objective_:.6g}",
              file=sys.stderr)
    tracemalloc.start()
    make_model(args, 0).fit(counts)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    max_iter = fits[0].max_iter
    return {
        "docs": counts.shape[0],
        "terms": counts.shape[1],
        "nnz": int(counts.nnz),
        "fit_seconds": round(statistics.median(timings), 3),
        "fit_seconds_max": round(max(timings), 3),
        "n_iter": [m.n_iter_ for m in fits],
        "converged": all(m.n_iter_ < max_iter for m in fits),
        "fallback_iterations": [m.n_fallback_steps_ for m in fits],
        "fit_peak_mib": round(traced_peak / 2**20, 2),
        "fit_bytes_per_nnz": round(traced_peak / counts.nnz, 1),
    }


def main(argv=None):
    args = parse_args(argv)
    corpus = load_corpus(args.dataset, preprocess=args.preprocess, data_dir=args.data_dir)
    counts = corpus.counts.tocsr()
    make_model(args, 0).set_params(max_iter=2).fit(counts[:2000])   # untimed first call
    runs = []
    for copies in (int(c) for c in args.copies.split(",")):
        data = sp.vstack([counts] * copies, format="csr") if copies > 1 else counts
        print(f"{args.dataset} x{copies}: {data.shape[0]} docs, {data.nnz} non-zeros",
              file=sys.stderr)
        runs.append({"copies": copies, **measure(data, args)})
    first = runs[0]
    result = {
        "benchmark": "ncut_nmf",
        "dataset": args.dataset,
        "preprocess": args.preprocess,
        "weighting": args.weighting,
        "k": args.k,
        "lam": args.lam,
        "tol": make_model(args, 0).tol,
        "max_iter": make_model(args, 0).max_iter,
        "repeats": args.repeats,
        **{key: first[key] for key in first if key != "copies"},
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "python": platform.python_version(),
    }
    if len(runs) > 1:
        result["runs"] = runs
    print(json.dumps(result))


if __name__ == "__main__":
    main()
