"""Running time and peak memory of GSDMM, DMAFP, K-means and mini-batch K-means on T1..T256.

With ``--models lda,dct,hac_sd,ic`` (issue 31) the other models run on the same sizes,
each with a few sweeps or iterations (``PROTOCOL``); the summary gives each model's
fitted exponent of CPU time and of the memory its fit added, against the number of texts.

The protocol of the GSDMM paper's Table 3 (section 4.8): the GoogleNews-T titles
concatenated 1, 2, 4, ..., 256 times (11,109 to 2,843,904 documents), and

* GSDMM: K = 300, alpha = beta = 0.1, 10 iterations;
* DMAFP: K = 300 (the truncation), at most 10 iterations, one initialisation;
* K-means: K = 152 (the true number), one initialisation of at most 10 Lloyd
  iterations (the timing protocol; not section 4.3's 20 initialisations);
* mini-batch K-means: K = 152, 10 passes at most, batches of 1% of the documents.

Usage::

    python benchmarks/bench_scaling.py                       # all models, 1..256 copies
    python benchmarks/bench_scaling.py --models gsdmm --copies 1,16,256 --output gsdmm.jsonl

Each (model, copies) measurement runs in a fresh child process, so its peak resident
memory (``ru_maxrss`` of that child, data loading and the copies included) is its own.
The child loads the data, fits the model once on a small slice (numba compilation, cache
loading and imports are never timed), then times one fit on one core. Once a
measurement of a model takes longer than ``--time-limit`` (or passes
``--memory-limit-gib``), that model's larger sizes are recorded as "not run" with the
reason. A child is killed if its resident memory passes the memory limit or if it runs
longer than ``--kill-after`` seconds. One JSON line per measurement is appended to
``--output`` as soon as it finishes; progress goes to standard error; the last line on
standard output is a JSON summary.
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone

# One core, as the paper's timings and the team's figures are stated; set before numpy,
# numba or scikit-learn load, here and (inherited) in every child.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

DATASET = "GoogleNews-T"
# What each model is run with: the paper's section 4.8.
MODELS = {
    "gsdmm": ("shortclust.models.dmm.gsdmm", "GSDMM",
              {"n_clusters": 300, "alpha": 0.1, "beta": 0.1, "max_iter": 10}),
    "dmafp": ("shortclust.models.dmm.dmafp", "DMAFP",
              {"n_clusters": 300, "n_init": 1, "max_iter": 10}),
    "kmeans": ("shortclust.models.kmeans.kmeans", "KMeans",
               {"n_clusters": 152, "n_init": 1, "max_iter": 10}),
    "minibatch_kmeans": ("shortclust.models.kmeans.minibatch_kmeans", "MiniBatchKMeans",
                         {"n_clusters": 152, "batch_fraction": 0.01, "max_iter": 10,
                          "n_init": 1}),
    # Issue 31's curves: the other models at the same sizes, a few sweeps each.
    "lda": ("shortclust.models.lda.lda", "LDA",
            {"n_clusters": 152, "beta": 0.1, "max_iter": 10}),
    "dct": ("shortclust.models.dmm.dct", "DCT",
            {"n_clusters": 300, "max_iter": 10}),
    "hac_sd": ("shortclust.models.hac.hac_similarity", "HACSimilarity",
               {"n_clusters": 152, "sparsify": "sd", "graph": "sparse"}),
    "ic": ("shortclust.models.ic.iterative_classification", "IterativeClassification",
           {"n_clusters": 152, "initial": "kmeans", "initial_params": {"n_init": 1},
            "max_iter": 5, "tol": None}),
}
TABLE3 = ("gsdmm", "kmeans", "minibatch_kmeans")
# What the untimed warm-up fit changes (compilation only; the default is max_iter=1).
WARM_UP_PARAMS = {"hac_sd": {}, "ic": {"max_iter": 1}}
PROTOCOL = {
    "gsdmm": "K=300, alpha=beta=0.1, 10 Gibbs iterations; sample_seconds = sweeps only",
    "dmafp": "K=300 sticks, one initialisation (greedy sequential pass, timed) and at most "
             "10 variational iterations, other parameters the model's defaults",
    "kmeans": "K=152, TF-IDF, one run (n_init=1) of at most 10 Lloyd iterations (the "
              "paper's timing protocol, not section 4.3's 20 initialisations)",
    "minibatch_kmeans": "K=152, TF-IDF, batches of 1% of the documents, at most 10 passes "
                        "(scikit-learn's early stopping may end it sooner)",
    "lda": "K=152, alpha=50/K, beta=0.1, 10 Gibbs sweeps (a timing protocol, not converged), "
           "one thread",
    "dct": "Z=300, the whole corpus as one time step, 10 sweeps, one fixed-point step each",
    "hac_sd": "K=152, TF-IDF, Algorithm 2 from the vectors (exact, every pair scored) and "
              "Ward on the N = n (n/K - 1) / 2 kept pairs (graph='sparse')",
    "ic": "K=152, TF-IDF, initial K-means (one run), then exactly 5 iterations (tol=None) "
          "with the default Isolation Forest and logistic regression; K-means included",
}
WARM_UP_DOCS = 2000
POLL_SECONDS = 0.1


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(TABLE3),
                        help=f"comma list of {', '.join(MODELS)} (default: "
                             f"{', '.join(TABLE3)}, the paper's Table 3)")
    parser.add_argument("--copies", default="1,2,4,8,16,32,64,128,256",
                        help="comma list of numbers of concatenated copies (default: 1..256)")
    parser.add_argument("--time-limit", type=float, default=300.0,
                        help="seconds; once one fit of a model takes longer, its larger "
                             "sizes are not run (default: 300)")
    parser.add_argument("--memory-limit-gib", type=float, default=8.0,
                        help="a child whose resident memory passes this is killed and the "
                             "model's larger sizes are not run (default: 8, the paper's "
                             "machine)")
    parser.add_argument("--kill-after", type=float, default=None,
                        help="seconds after which a child is killed (default: 4 x --time-limit)")
    parser.add_argument("--output", default="bench_scaling.jsonl",
                        help="JSON Lines file the measurements are appended to")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--child", nargs=2, metavar=("MODEL", "COPIES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return args
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown or not args.models:
        parser.error(f"--models: unknown {', '.join(unknown) or '(none given)'}; "
                     f"choose from {', '.join(MODELS)}")
    try:
        args.copies = sorted({int(c) for c in args.copies.split(",")})
    except ValueError:
        parser.error(f"--copies: {args.copies!r} is not a comma list of integers")
    if not args.copies or args.copies[0] < 1:
        parser.error("--copies: give positive integers, e.g. 1,2,4")
    for name in ("time_limit", "memory_limit_gib"):
        if not getattr(args, name) > 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if args.kill_after is None:
        args.kill_after = 4 * args.time_limit
    return args


def mib(kib):
    return round(kib / 1024.0, 1)


# --- the child: one measurement -----------------------------------------------------------

def run_child(model_name, n_copies, data_dir):
    """Load, warm up, time one fit; print one JSON object on stdout."""
    from importlib import import_module

    from shortclust.data import load_corpus

    module, cls, params = MODELS[model_name]
    model_class = getattr(import_module(module), cls)
    started = time.perf_counter()
    corpus = load_corpus(DATASET, data_dir=data_dir)
    warm_up = corpus.counts[:WARM_UP_DOCS]
    counts = corpus.repeat(n_copies).counts if n_copies > 1 else corpus.counts
    del corpus
    load_seconds = time.perf_counter() - started
    warm_up_params = WARM_UP_PARAMS.get(model_name, {"max_iter": 1})
    model_class(**{**params, **warm_up_params}, random_state=0).fit(warm_up)
    rss_before_fit = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"  {model_name} x{n_copies}: {counts.shape[0]} docs loaded in {load_seconds:.1f} s, "
          f"warmed up; fitting", file=sys.stderr, flush=True)
    model = model_class(**params, random_state=0)
    started, cpu = time.perf_counter(), time.process_time()
    model.fit(counts)
    fit_seconds = time.perf_counter() - started
    result = {
        "fit_seconds": round(fit_seconds, 4),
        "fit_cpu_seconds": round(time.process_time() - cpu, 4),
        "sample_seconds": round(model.sample_seconds_, 4)
        if hasattr(model, "sample_seconds_") else None,
        "n_iter": int(getattr(model, "n_iter_", 0)),
        "n_steps": int(getattr(model, "n_steps_", 0)) or None,
        "n_clusters_found": int(model.n_clusters_),
        "docs": int(counts.shape[0]),
        "tokens": int(counts.sum()),
        "load_seconds": round(load_seconds, 2),
        "peak_rss_before_fit_mib": mib(rss_before_fit),
        "child_peak_rss_mib": mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
    }
    print(json.dumps(result))


# --- the parent: one child per measurement -------------------------------------------------

def current_rss_kib(pid):
    """Resident memory of a live process (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def measure(model_name, n_copies, args):
    """Run one measurement in a child; return (fields, wall seconds, kill reason)."""
    command = [sys.executable, os.path.abspath(__file__), "--child", model_name, str(n_copies)]
    if args.data_dir:
        command += ["--data-dir", args.data_dir]
    limit_kib = args.memory_limit_gib * 2**20
    with tempfile.TemporaryFile(mode="w+") as out:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=sys.stderr)
        killed = None
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.perf_counter() - started
            rss = current_rss_kib(child.pid)
            if rss is not None and rss > limit_kib and not killed:
                killed = (f"killed: resident memory {mib(rss):.0f} MiB passed the "
                          f"{args.memory_limit_gib:g} GiB limit")
                child.kill()
            elif elapsed > args.kill_after and not killed:
                killed = f"killed: still running after {args.kill_after:g} s (--kill-after)"
                child.kill()
            time.sleep(POLL_SECONDS)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        lines = out.read().strip().splitlines()
    fields = {"peak_rss_mib": mib(usage.ru_maxrss)}
    if killed:
        fields.update(status="killed", reason=killed)
    elif child.returncode != 0 or not lines:
        fields.update(status="failed",
                      reason=f"child exited with status {child.returncode}: see its stderr")
    else:
        fields.update(status="ok", **json.loads(lines[-1]))
    return fields, wall


def not_run_reason(result, args):
    """Why a model's larger sizes are skipped after ``result``, or None."""
    if result["status"] == "killed":
        return f"a smaller size was {result['reason']}"
    if result["status"] == "failed":
        return f"a smaller size failed ({result['reason']})"
    if result["fit_seconds"] > args.time_limit:
        return (f"{result['copies']} copies took {result['fit_seconds']:.0f} s, over the "
                f"{args.time_limit:g} s time limit")
    if result["peak_rss_mib"] > args.memory_limit_gib * 1024:
        return (f"{result['copies']} copies peaked at {result['peak_rss_mib']:.0f} MiB, over the "
                f"{args.memory_limit_gib:g} GiB memory limit")
    return None


def summary_table(rows, models, copies):
    """Text table of fit seconds (sampling seconds) and peak MiB per model and size."""
    header = f"{'copies':>6} {'docs':>9} | " + " | ".join(f"{m:^28}" for m in models)
    lines = [header, "-" * len(header)]
    by_key = {(r["model"], r["copies"]): r for r in rows}
    per_copy = next((r["docs"] // r["copies"] for r in rows if r.get("docs")), None)
    for n in copies:
        cells = []
        for m in models:
            r = by_key.get((m, n))
            if r is None or r["status"] == "not run":
                cells.append(f"{'not run':^28}")
            elif r["status"] != "ok":
                cells.append(f"{r['status'] + ' (' + str(round(r['peak_rss_mib'])) + ' MiB)':^28}")
            else:
                time_text = f"{r['fit_seconds']:.2f} s"
                if r.get("sample_seconds") is not None:
                    time_text += f" ({r['sample_seconds']:.2f})"
                cells.append(f"{time_text + ', ' + str(round(r['peak_rss_mib'])) + ' MiB':^28}")
        lines.append(f"{n:>6} {n * per_copy if per_copy else '':>9} | " + " | ".join(cells))
    return "\n".join(lines)


def fitted_exponents(rows):
    """Least-squares slope of log(fit CPU seconds) and of log(memory the fit added) on log(docs).

    Per model, over its sizes that completed (at least two); the memory is the child's peak
    minus its peak before the fit (data and warm-up excluded), sizes where that is under
    16 MiB left out (too small to measure).
    """
    import numpy as np

    out = {}
    for model in dict.fromkeys(r["model"] for r in rows):
        done = [r for r in rows if r["model"] == model and r["status"] == "ok"]
        entry = {"sizes": len(done)}
        for name, value in (("time", lambda r: r.get("fit_cpu_seconds") or r["fit_seconds"]),
                            ("memory", lambda r: r["peak_rss_mib"]
                             - r["peak_rss_before_fit_mib"])):
            points = [(r["docs"], value(r)) for r in done if value(r) > (16 if name ==
                                                                          "memory" else 0)]
            if len(points) >= 2:
                x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
                entry[f"{name}_exponent"] = round(float(np.polyfit(x, y, 1)[0]), 2)
        out[model] = entry
    return out


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        run_child(args.child[0], int(args.child[1]), args.data_dir)
        return
    session = uuid.uuid4().hex[:12]
    common = {"benchmark": "scaling", "session": session, "dataset": DATASET,
              "machine": platform.processor() or platform.machine(),
              "threads": os.environ["OMP_NUM_THREADS"]}
    print(f"bench_scaling: {', '.join(args.models)} on {DATASET} x {args.copies}; time limit "
          f"{args.time_limit:g} s, memory limit {args.memory_limit_gib:g} GiB; appending to "
          f"{args.output}", file=sys.stderr, flush=True)
    rows = []
    with open(args.output, "a", encoding="utf-8") as output:
        for model_name in args.models:
            skip_reason = None
            for n_copies in args.copies:
                row = {**common, "model": model_name, "copies": n_copies,
                       "params": MODELS[model_name][2], "protocol": PROTOCOL[model_name]}
                if skip_reason:
                    row.update(status="not run", reason=skip_reason)
                    print(f"{model_name} x{n_copies}: not run ({skip_reason})", file=sys.stderr)
                else:
                    fields, wall = measure(model_name, n_copies, args)
                    row.update(fields, wall_seconds=round(wall, 2))
                    skip_reason = not_run_reason(row, args)
                    timing = (f"fit {row['fit_seconds']:.2f} s" if row["status"] == "ok"
                              else row["reason"])
                    if row.get("sample_seconds") is not None:
                        timing += f" (sampling {row['sample_seconds']:.2f} s)"
                    print(f"{model_name} x{n_copies}: {timing}, peak RSS "
                          f"{row['peak_rss_mib']:.0f} MiB", file=sys.stderr, flush=True)
                row["timestamp"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
                rows.append(row)
                output.write(json.dumps(row) + "\n")
                output.flush()
    print(summary_table(rows, args.models, args.copies), file=sys.stderr)
    print("times are whole fits in seconds (GSDMM's sampling sweeps in brackets); "
          "kmeans is one run of at most 10 iterations, as in the paper's Table 3",
          file=sys.stderr)
    table = {m: {str(r["copies"]): {k: r.get(k) for k in
                                    ("status", "docs", "fit_seconds", "fit_cpu_seconds",
                                     "sample_seconds", "peak_rss_mib",
                                     "n_iter", "reason") if r.get(k) is not None}
                 for r in rows if r["model"] == m} for m in args.models}
    exponents = fitted_exponents(rows)
    for model, entry in exponents.items():
        print(f"{model}: fitted exponents over {entry['sizes']} sizes: time "
              f"{entry.get('time_exponent', '-')}, memory {entry.get('memory_exponent', '-')}",
              file=sys.stderr)
    print(json.dumps({**common, "copies": args.copies, "time_limit": args.time_limit,
                      "exponents": exponents,
                      "memory_limit_gib": args.memory_limit_gib, "protocol":
                      {m: PROTOCOL[m] for m in args.models}, "output": args.output,
                      "results": table}))


if __name__ == "__main__":
    main()
