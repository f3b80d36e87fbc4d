"""Wall time of one sweep fitted here, in --jobs worker processes, and on a Dask cluster.

Usage::

    python benchmarks/bench_cluster.py                       # NMF+nc, StackOverflow, 20 runs
    python benchmarks/bench_cluster.py --runs 20 --workers 2 --cluster tcp://HOST:8786

The same config (default ``configs/papers/ncut/nmf_nc.yaml`` with ``dataset=StackOverflow``
and ``n_clusters=20``: fits of about a second) is run three times, each into a fresh output
directory and through :func:`~shortclust.pipeline.runner.run_experiment`, as the CLI
runs it: ``--jobs 1``, ``--jobs W`` and ``--cluster local --jobs W`` (a LocalCluster of W
single-threaded workers, started and closed inside the timed call; or ``--cluster
ADDRESS``). Wall times include planning (corpus and representation, the same in the three)
and starting the workers. ``overhead_per_run`` is ``(wall x workers - sum of fit_seconds)
/ runs``: the time per run a worker slot spends on anything but the timed fit (planning,
starting, warm-up, sending, writing, idle at the end). The three must give the same
records (but timings); the last line printed is one JSON object. ``--one-thread`` limits
this process to one BLAS/OpenMP/numba thread too (the workers always have one).
"""

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

if "--one-thread" in sys.argv:  # before numpy loads: this process as single-threaded as a worker
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                 "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                 "NUMBA_NUM_THREADS"):  # executors.WORKER_ENV (importing it loads numpy)
        os.environ[_var] = "1"

from shortclust.config import load_config  # noqa: E402
from shortclust.pipeline.runner import run_experiment  # noqa: E402

TIMING = ("fit_seconds", "timestamp")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/papers/ncut/nmf_nc.yaml")
    parser.add_argument("--set", action="append", default=None, metavar="KEY=VALUE",
                        help="config overrides (default: dataset=StackOverflow, "
                             "n_clusters=20)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", default="local", help="'local' or tcp://HOST:PORT")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--one-thread", action="store_true",
                        help="one BLAS/OpenMP/numba thread in this process too (as in the "
                             "workers), so --jobs 1 is not slowed by thread contention")
    return parser.parse_args(argv)


def timed(config_path, overrides, output, **options):
    config = load_config(config_path, [*overrides, f"output={json.dumps(str(output))}"])
    started = time.perf_counter()
    result = run_experiment(config, quiet=True, **options)
    wall = time.perf_counter() - started
    records = {r["run_id"]: {k: v for k, v in r.items() if k not in TIMING}
               for r in result.records}
    return wall, sum(r["fit_seconds"] for r in result.records), records


def main(argv=None):
    args = parse_args(argv)
    overrides = [*(args.set or ["dataset=StackOverflow", "n_clusters=20"]),
                 f"runs={args.runs}"]
    modes = [("jobs 1", 1, {"jobs": 1}),
             (f"jobs {args.workers}", args.workers, {"jobs": args.workers}),
             (f"cluster {args.cluster}", args.workers,
              {"jobs": args.workers, "cluster": args.cluster})]
    figures, reference = [], None
    with tempfile.TemporaryDirectory() as scratch:
        for index, (name, workers, options) in enumerate(modes):
            wall, fitting, records = timed(args.config, overrides, Path(scratch) / str(index),
                                           data_dir=args.data_dir, **options)
            same = reference is None or records == reference
            reference = records if reference is None else reference
            figures.append({"mode": name, "workers": workers, "wall_seconds": round(wall, 2),
                            "fit_seconds_sum": round(fitting, 2),
                            "overhead_per_run": round((wall * workers - fitting) / args.runs, 3),
                            "same_records": same})
            print(json.dumps(figures[-1]), file=sys.stderr)
    print(json.dumps({"config": args.config, "one_thread": args.one_thread, "overrides": overrides, "runs": args.runs,
                      "python": platform.python_version(), "modes": figures}))


if __name__ == "__main__":
    main()
