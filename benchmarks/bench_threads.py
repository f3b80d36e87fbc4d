"""Threads inside one fit: GSDMM, LDA and DCT at threads 1 and 2, tomotopy LDA at workers 1 and 2.

Usage (on an idle machine with 2 free cores; estimated 4 minutes for the default 5
repeats: a 1-repeat run took 2.5 minutes at load average 10, of which 1.8 were the fits,
which run about 3 times faster on free cores)::

    python benchmarks/bench_threads.py --out results/benchmark/threads/timing.md
    python benchmarks/bench_threads.py --repeats 3 --out /tmp/threads.md   # shorter
    python benchmarks/bench_threads.py --small            # a check of the script (a minute)
    python benchmarks/bench_threads.py --workloads dct,dct_sweeps,dct_x4,dct_tiny_steps \
        --repeats 3 --out results/benchmark/threads/timing_dct.md   # DCT (about 3 minutes idle)

Workloads (issue 31, item 4):

* GSDMM on 16 concatenated copies of GoogleNews-T (177,744 titles), K = 300,
  alpha = beta = 0.1, 30 sweeps (``bench_gsdmm.py``'s setting, 30 sweeps: about 3 s of
  sampling on one core);
* ``gsdmm_10``: GSDMM on the same x16 corpus with ``threads_quality.py``'s x16 setting,
  K = 500, alpha = beta = 0.1, 10 sweeps: the cell whose NMI the 1.6x is paired with.
  Since version 2 of GSDMM's parallel sweep (27 Nov 2026) the first sweep of a fit runs
  on one thread whatever ``threads`` is, so the fewer the sweeps the more it weighs: 1 of
  10 here, 1 of 30 in ``gsdmm``;
* LDA on 20NG-news20 (the registry's ``newsgroups`` preprocessing), K = 20,
  alpha = 50 / K, beta = 0.1, 50 sweeps (``bench_lda.py``'s setting), and tomotopy's
  ``LDAModel`` on the same tokens with the same priors, ``optim_interval = 0``.

DCT workloads (``--workloads``; not in the default run): DCT as the DCT reproduction runs
it (``configs/papers/dct/dct.yaml``: Z = 300, alpha = 10, beta = 1000, precision floor
0.5, 10 sweeps per time step), on MStream-News-T in its time order cut into equal time
steps, one ``partial_fit`` each; timed: the sum of the steps' ``sample_seconds_`` (the
sweeps and the fixed-point steps, which stay sequential):

* ``dct``: 16 steps of about 694 documents (4,400 tokens), one fixed-point step after
  each sweep (the reproduction's stream);
* ``dct_sweeps``: the same without fixed-point steps: the sweeps alone, what the threads
  act on;
* ``dct_x4``: 4 concatenated copies, 16 steps of about 2,777 documents (17,300 tokens),
  one fixed-point step after each sweep: larger steps;
* ``dct_tiny_steps``: 160 steps of about 69 documents (430 tokens), no fixed-point steps,
  with the parallel sweep forced on (``PARALLEL_MIN_WORK`` set to 0 in the child: these
  steps, 130,000 tokens x topics, are below it): what the threshold is about.

Engines: ours with ``threads=1`` (the exact sequential kernel) and ``threads=2`` (the
approximate parallel sweep over 2 blocks), tomotopy with ``workers=1`` and ``workers=2``.
Every (engine, repeat) runs in a child process of its own, so its peak resident memory
(``ru_maxrss``, data loading included) is its own; repeats interleave the engines (GSDMM
t1, t2, LDA t1, t2, tomotopy w1, w2, then the next repeat) so that a change of load
slows them alike and the ratios of one run stay fair. In each child the kernels are
compiled (or loaded from numba's cache) by a warm-up fit on a slice before the timed fit:
compile time is out. Timed: our ``sample_seconds_`` (the sweeps, uniform draws included;
the initial assignment excluded) and tomotopy's ``train(iters, workers)`` after
``train(0)`` has placed the topics. Also recorded: the CPU seconds of the timed part (all
threads) and the load average before and after. Figures are medians over ``--repeats``;
speed-ups are ratios of the medians of this run. Printed: a Markdown table for
``benchmarks/README.md``, then one JSON object.

The speed-ups need 2 free cores: on a loaded machine the second thread waits for a core
and the ratios say nothing about the code.
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

# One thread for BLAS and friends; numba may use 2 (threads=1 still runs one).
os.environ.setdefault("NUMBA_NUM_THREADS", "2")
_setup.one_thread()

_DCT = {"dataset": "MStream-News-T", "preprocess": "auto", "copies": 1, "k": 300,
        "iters": 10, "steps": 16, "fixed_point_iter": 1}
WORKLOADS = {
    "gsdmm": {"dataset": "GoogleNews-T", "preprocess": "none", "copies": 16, "k": 300,
              "iters": 30},
    "gsdmm_10": {"dataset": "GoogleNews-T", "preprocess": "none", "copies": 16, "k": 500,
                 "iters": 10},
    "lda": {"dataset": "20NG-news20", "preprocess": "auto", "copies": 1, "k": 20,
            "iters": 50},
    "dct": _DCT,
    "dct_sweeps": {**_DCT, "fixed_point_iter": 0},
    "dct_x4": {**_DCT, "copies": 4},
    "dct_tiny_steps": {**_DCT, "steps": 160, "fixed_point_iter": 0, "force_parallel": True},
}
SMALL = {
    "gsdmm": {"dataset": "GoogleNews-T", "preprocess": "none", "copies": 1, "k": 100,
              "iters": 3},
    "lda": {"dataset": "GoogleNews-T", "preprocess": "none", "copies": 1, "k": 20,
            "iters": 5},
    "gsdmm_10": {"dataset": "GoogleNews-T", "preprocess": "none", "copies": 1, "k": 100,
                 "iters": 3},
    **{name: {**spec, "k": 50, "iters": 2} for name, spec in WORKLOADS.items()
       if name.startswith("dct")},
}
DEFAULT_WORKLOADS = ("gsdmm", "gsdmm_10", "lda")


def engines(workloads, tomotopy=True):
    """(workload, engine, threads or workers), in the order each repeat runs them."""
    return [(w, engine, n) for w in workloads
            for engine in (("ours", "tomotopy") if w == "lda" and tomotopy else ("ours",))
            for n in (1, 2)]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed fits per engine")
    parser.add_argument("--small", action="store_true",
                        help="tiny workloads (GoogleNews-T once, few sweeps): checks the script")
    parser.add_argument("--no-tomotopy", action="store_true", help="leave tomotopy out")
    parser.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS),
                        help=f"comma list of {', '.join(WORKLOADS)} (default: "
                             f"{','.join(DEFAULT_WORKLOADS)})")
    parser.add_argument("--out", default=None,
                        help="also write the Markdown table here (and its figures as JSON "
                             "beside it, the same name with .json)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def load(spec, data_dir):
    from shortclust.data import load_corpus

    corpus = load_corpus(spec["dataset"], preprocess=spec["preprocess"], data_dir=data_dir)
    return corpus.repeat(spec["copies"]) if spec["copies"] > 1 else corpus


def run_dct(spec, counts, threads, seed):
    """DCT over ``spec["steps"]`` equal time steps in row order (MStream-News-T's time
    order; copies one after another): sampling seconds of all steps, CPU of the whole."""
    import numpy as np

    from shortclust.models.dmm import dct

    if spec.get("force_parallel"):
        dct.PARALLEL_MIN_WORK = 0

    def make(iters):
        return dct.DCT(n_clusters=spec["k"], alpha=10.0, beta=1000.0, max_iter=iters,
                       fixed_point_iter=spec["fixed_point_iter"], precision_floor=0.5,
                       threads=threads, random_state=seed)
    make(1).partial_fit(counts[:2000])  # compile, or load the compiled kernels: not timed
    model, seconds = make(spec["iters"]), 0.0
    cpu = time.process_time()
    for rows in np.array_split(np.arange(counts.shape[0]), spec["steps"]):
        model.partial_fit(counts[rows])
        seconds += model.sample_seconds_
    return seconds, time.process_time() - cpu


def run_ours(workload, spec, counts, threads, seed):
    if workload.startswith("dct"):
        return run_dct(spec, counts, threads, seed)
    if workload.startswith("gsdmm"):
        from shortclust.models.dmm.gsdmm import GSDMM

        def make(iters):
            return GSDMM(n_clusters=spec["k"], alpha=0.1, beta=0.1, max_iter=iters,
                         threads=threads, random_state=seed)
    else:
        from shortclust.models.lda.lda import LDA

        def make(iters):
            return LDA(n_clusters=spec["k"], beta=0.1, max_iter=iters, threads=threads,
                       random_state=seed)
    make(1).fit(counts[:2000])  # compile, or load the compiled kernels: not timed
    model = make(spec["iters"])
    cpu = time.process_time()
    model.fit(counts)
    # CPU of the whole fit (initialisation included); wall of the sweeps alone.
    return model.sample_seconds_, time.process_time() - cpu


def run_tomotopy(spec, corpus, workers, seed):
    import numpy as np
    import tomotopy

    counts, vocabulary = corpus.counts, np.asarray(corpus.vocabulary, dtype=object)
    model = tomotopy.LDAModel(k=spec["k"], alpha=50.0 / spec["k"], eta=0.1, seed=seed)
    model.optim_interval = 0  # plain Gibbs sampling, as ours
    for d in range(counts.shape[0]):
        row = slice(counts.indptr[d], counts.indptr[d + 1])
        model.add_doc(np.repeat(vocabulary[counts.indices[row]], counts.data[row]).tolist())
    model.train(0, workers=workers)
    started, cpu = time.perf_counter(), time.process_time()
    model.train(spec["iters"], workers=workers)
    return time.perf_counter() - started, time.process_time() - cpu


def child(args):
    """One timed fit; prints one JSON line."""
    workload, engine, threads, seed = args.child.split(":")
    threads, seed = int(threads), int(seed)
    spec = (SMALL if args.small else WORKLOADS)[workload]
    corpus = load(spec, args.data_dir)
    if engine == "ours":
        wall, cpu = run_ours(workload, spec, corpus.counts, threads, seed)
    else:
        wall, cpu = run_tomotopy(spec, corpus, threads, seed)
    try:
        import numba
        layer = numba.threading_layer() if engine == "ours" and threads > 1 else None
    except (ImportError, ValueError):
        layer = None
    print(json.dumps({"wall": wall, "cpu": cpu, "threading_layer": layer,
                      "tokens": int(corpus.counts.sum()), "docs": int(corpus.counts.shape[0]),
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def spawn(args, workload, engine, threads, seed):
    command = [sys.executable, os.path.abspath(__file__), "--child",
               f"{workload}:{engine}:{threads}:{seed}"]
    command += ["--small"] if args.small else []
    command += ["--data-dir", args.data_dir] if args.data_dir else []
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: {workload} {engine} {threads} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(args):
    order = engines(args.workloads.split(","), not args.no_tomotopy)
    results = {e: [] for e in order}
    for seed in range(args.repeats):
        for workload, engine, threads in order:
            result = spawn(args, workload, engine, threads, seed)
            results[(workload, engine, threads)].append(result)
            print(f"repeat {seed}: {workload} {engine} x{threads}: {result['wall']:.2f} s "
                  f"wall, {result['cpu']:.2f} s CPU, {result['peak_rss_mib']:.0f} MiB "
                  f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    return results


def summary(results, args):
    rows = {}
    for (workload, engine, threads), runs in results.items():
        spec = (SMALL if args.small else WORKLOADS)[workload]
        wall = statistics.median(r["wall"] for r in runs)
        rows[(workload, engine, threads)] = {
            "workload": workload, "engine": engine, "threads": threads,
            "dataset": spec["dataset"] + (f" x{spec['copies']}" if spec["copies"] > 1 else ""),
            "docs": runs[0]["docs"], "tokens": runs[0]["tokens"], "k": spec["k"],
            "iters": spec["iters"], "steps": spec.get("steps"), "wall_median": wall,
            "wall_all": [round(r["wall"], 3) for r in runs],
            "cpu_median": statistics.median(r["cpu"] for r in runs),
            "mtokens_sweeps_per_s": runs[0]["tokens"] * spec["iters"] / wall / 1e6,
            "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
            "threading_layer": runs[-1]["threading_layer"],
        }
    return rows


def ratio(rows, numerator, denominator):
    if numerator in rows and denominator in rows:
        return rows[denominator]["wall_median"] / rows[numerator]["wall_median"]
    return None


def markdown(rows, args, load_before, load_after):
    names = {"ours": "shortclust", "tomotopy": "tomotopy"}
    lines = ["| model | data | engine | threads / workers | sweeps | median wall (s) | "
             "all repeats (s) | M tokens x sweeps / s | CPU (s) | speed-up vs 1 | "
             "peak RSS (MiB) |", "|" + " --- |" * 11]
    for key, row in rows.items():
        one = (key[0], key[1], 1)
        speedup = ratio(rows, key, one)
        steps = f", {row['steps']} steps" if row["steps"] else ""
        lines.append(
            f"| {row['workload'].upper()} (K = {row['k']}) | {row['dataset']} "
            f"({row['docs']:,} docs{steps}) | {names[row['engine']]} | {row['threads']} | "
            f"{row['iters']}{' per step' if steps else ''} | {row['wall_median']:.2f} | "
            f"{', '.join(f'{w:.2f}' for w in row['wall_all'])} | "
            f"{row['mtokens_sweeps_per_s']:.1f} | {row['cpu_median']:.2f} | "
            f"{'-' if speedup is None or key == one else f'{speedup:.2f}x'} | "
            f"{row['peak_rss_mib']:.0f} |")
    checks = []
    workloads = list(dict.fromkeys(key[0] for key in rows))
    for workload in workloads:
        speedup = ratio(rows, (workload, "ours", 2), (workload, "ours", 1))
        if speedup is not None:
            target = (f" ({'meets' if speedup >= 1.6 else 'misses'} the 1.6x target)"
                      if workload in ("gsdmm", "gsdmm_10", "lda") else "")
            checks.append(f"{workload.upper()} 2 threads / 1 thread: {speedup:.2f}x{target}")
    for workload, engine in [(w, "ours") for w in workloads] + [("lda", "tomotopy")]:
        pair = [rows.get((workload, engine, n)) for n in (1, 2)]
        if None not in pair:
            # 1.0 when the second thread only shares the work; above 1 when threads wait
            # busily or the same work costs more on two cores (1.25 caps the speed-up at 1.6x).
            checks.append(f"{workload.upper()} {names[engine]}: CPU with 2 / CPU with 1: "
                          f"{pair[1]['cpu_median'] / pair[0]['cpu_median']:.2f}")
    versus = ratio(rows, ("lda", "ours", 2), ("lda", "tomotopy", 2))
    if versus is not None:
        checks.append(f"LDA shortclust 2 threads vs tomotopy 2 workers: {versus:.2f}x "
                      f"tomotopy's speed ({'at least' if versus >= 1 else 'below'} tomotopy)")
    layer = next((r["threading_layer"] for r in rows.values() if r["threading_layer"]), None)
    setting = "--small (a check of the script, not figures)" if args.small else \
        f"{args.repeats} repeats"
    lines += ["", f"Median over {args.repeats} repeats, each (engine, repeat) in its own "
              "process; compile time out; wall: the sweeps alone (ours: `sample_seconds_`; "
              "tomotopy: `train(iters)`"
              + ("; DCT: the sum over its time steps of `sample_seconds_`, the sweeps and "
                 "the fixed-point steps" if any(w.startswith("dct") for w in workloads)
                 else "")
              + "); CPU: process CPU time, all threads (ours: the "
              "whole fit); peak RSS includes loading the data. "
              f"Load average {load_before:.1f} before, {load_after:.1f} after; "
              f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}); numba "
              f"threading layer {layer}; `python benchmarks/bench_threads.py --workloads "
              f"{','.join(workloads)}` ({setting}).",
              "", *[f"- {c}" for c in checks]]
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        child(args)
        return
    if int(os.environ["NUMBA_NUM_THREADS"]) < 2:
        sys.exit("error: NUMBA_NUM_THREADS is below 2, so threads=2 would run on one "
                 "thread: unset it or set it to 2")
    unknown = [w for w in args.workloads.split(",") if w not in WORKLOADS]
    if unknown:
        sys.exit(f"error: unknown workload(s) {', '.join(unknown)}; choose from "
                 f"{', '.join(WORKLOADS)}")
    if not args.no_tomotopy and "lda" in args.workloads.split(","):
        try:
            import tomotopy  # noqa: F401
        except ImportError:
            sys.exit("error: tomotopy is not installed: pip install 'shortclust[bench]', "
                     "or pass --no-tomotopy")
    load_before, started = os.getloadavg()[0], time.perf_counter()
    results = measure(args)
    rows = summary(results, args)
    text = markdown(rows, args, load_before, os.getloadavg()[0])
    elapsed = time.perf_counter() - started
    text += f"\nThe whole run took {elapsed / 60:.1f} minutes.\n"
    print(text)
    record = json.dumps({"benchmark": "threads", "small": args.small, "repeats": args.repeats,
                         "load_before": load_before, "load_after": os.getloadavg()[0],
                         "elapsed_seconds": round(elapsed, 1),
                         "rows": [{**r, "key": list(k)} for k, r in rows.items()]},
                        default=str)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
        # The figures behind the table, beside it (the same name, .json).
        with open(os.path.splitext(args.out)[0] + ".json", "w", encoding="utf-8") as handle:
            handle.write(record + "\n")
    print(record)


if __name__ == "__main__":
    main()
