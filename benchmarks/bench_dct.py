"""Speed and memory of DCT over a time-ordered stream (one ``partial_fit`` per time step).

Usage::

    python benchmarks/bench_dct.py --dataset MStream-Tweets-T --steps 16 --k 300 --iters 10
    python benchmarks/bench_dct.py --lags 3          # the long-term model (L = 3)

The stream is the corpus in time order cut into ``--steps`` equal batches by count (as
``stream: {batch_by: count, n_batches: 16}`` in a config). The kernels are compiled (and
the compile cache loaded) by a warm-up stream on a slice of the data before anything is
timed. Each repeat is a fresh stream with its own seed; ``stream_seconds`` is the median
over repeats of the wall time of all the ``partial_fit`` calls (sweeps, fixed-point
steps, Eq. 11 labels, posterior), ``stream_cpu_seconds`` the same calls' CPU time (which
time-slicing on a loaded machine does not inflate), ``sample_seconds`` the wall time of the
sweeps and fixed-point steps alone. ``peak_rss_mib`` is the process's peak resident memory, data loading included. The
last line printed is one JSON object, for scripts.
"""

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time

# One core, as the acceptance figure is stated; set before numpy/numba load.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402
from sklearn.metrics import normalized_mutual_info_score  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.models.dmm.dct import DCT  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="MStream-Tweets-T", help="registry name or path")
    parser.add_argument("--steps", type=int, default=16, help="time steps (equal batches)")
    parser.add_argument("--k", type=int, default=300, help="number of topics Z")
    parser.add_argument("--iters", type=int, default=10, help="Gibbs sweeps per step")
    parser.add_argument("--lags", type=int, default=1, help="dependency length L")
    parser.add_argument("--repeats", type=int, default=3, help="timed streams; the median is reported")
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def peak_rss_mib():
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def stream(batches, args, seed):
    """One fresh model over the batches: (model, wall, CPU and sampling seconds)."""
    model = DCT(n_clusters=args.k, dependency_length=args.lags, max_iter=args.iters,
                random_state=seed)
    wall = cpu = sample = 0.0
    for batch in batches:
        started, started_cpu = time.perf_counter(), time.process_time()
        model.partial_fit(batch)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        sample += model.sample_seconds_
    return model, wall, cpu, sample


def main(argv=None):
    args = parse_args(argv)
    corpus = load_corpus(args.dataset, data_dir=args.data_dir)
    order = np.argsort(corpus.times, kind="stable") if corpus.times is not None else None
    counts = corpus.counts if order is None else corpus.counts[order]
    bounds = np.array_split(np.arange(counts.shape[0]), args.steps)
    batches = [counts[rows] for rows in bounds]
    warm = [counts[:200], counts[200:400]]
    stream(warm, argparse.Namespace(**{**vars(args), "iters": 1}), 0)

    walls, cpus, samples, nmis = [], [], [], []
    truth = None if corpus.labels is None else np.asarray(corpus.labels)
    if truth is not None and order is not None:
        truth = truth[order]
    for seed in range(args.repeats):
        model, wall, cpu, sample = stream(batches, args, seed)
        walls.append(wall)
        cpus.append(cpu)
        samples.append(sample)
        nmi = None if truth is None else normalized_mutual_info_score(truth, model.labels_)
        nmis.append(nmi)
        print(f"repeat {seed}: stream {wall:.3f} s (CPU {cpu:.3f} s), sampling {sample:.3f} s, "
              f"{model.n_clusters_} clusters, NMI {nmi if nmi is None else round(nmi, 4)}",
              file=sys.stderr)
    result = {
        "benchmark": "dct_stream",
        "dataset": corpus.name,
        "docs": int(counts.shape[0]),
        "tokens": int(counts.sum()),
        "vocabulary": int(counts.shape[1]),
        "steps": args.steps,
        "k": args.k,
        "iters": args.iters,
        "lags": args.lags,
        "repeats": args.repeats,
        "stream_seconds": round(statistics.median(walls), 3),
        "stream_seconds_all": [round(t, 3) for t in walls],
        "stream_cpu_seconds": round(statistics.median(cpus), 3),
        "sample_seconds": round(statistics.median(samples), 3),
        "nmi_all": [None if v is None else round(v, 4) for v in nmis],
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "machine": platform.processor() or platform.machine(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
