"""The whole ``shortclust cluster FILE`` command on a large file: CPU time and peak memory.

Builds a file of ``--docs`` raw short texts (default 200,000) drawn with replacement, with a
fixed seed, from the raw tweets of CrisisLexT26 and the raw StackOverflow titles, then runs
the command as a user would (a fresh process, defaults only, ``--quiet``) ``--repeats``
times and prints, as JSON lines, each run's CPU seconds (user + system of the child,
imports and writing included) and peak resident memory, then the median.

``--source DIR`` runs the command from another checkout's package (its ``shortclust``
directory's parent), so one sitting can measure before and after with the same
interpreter and libraries::

    python benchmarks/bench_cluster_command.py --source /tmp/base   # before
    python benchmarks/bench_cluster_command.py                      # after

The compiled kernels are warmed by one untimed run first (numba's cache, as a user's second
run finds it).

``--profile`` runs the command once more under cProfile with a process-time clock and
prints each stage's share of the profiled CPU time (:data:`STAGES`: imports, reading,
preprocessing, choosing K and fitting, top words, representative documents, writing).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("CrisisLexT26.jsonl.gz", "StackOverflow.jsonl")


def _texts(data_dir: Path) -> list[str]:
    texts = []
    for name in SOURCES:
        path = data_dir / name
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            texts += [json.loads(line)["text"] for line in handle if line.strip()]
    return texts


def make_file(path: Path, n_docs: int, data_dir: Path, seed: int = 0) -> Path:
    texts = _texts(data_dir)
    rows = np.random.default_rng(seed).integers(0, len(texts), n_docs)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text"])
        writer.writerows([texts[i]] for i in rows)
    return path


#: Profile stages: name -> (module path suffix, function) whose cumulative time is the stage.
STAGES = {
    "imports": ("<frozen importlib._bootstrap>", "_find_and_load"),
    "reading the file": ("shortclust/data/io.py", "read_documents"),
    "preprocessing": ("shortclust/data/corpus.py", "from_texts"),
    "choosing K and fitting": ("shortclust/apps/choose_k.py", "estimate_k"),
    "top words (class TF-IDF)": ("shortclust/apps/describe.py", "class_tfidf"),
    "representative documents": ("shortclust/apps/describe.py", "representatives"),
    "writing the outputs": ("shortclust/apps/cluster.py", "_write_all"),
}
_PROFILED = """
import cProfile, sys, time
profile = cProfile.Profile(time.process_time)
sys.argv = ["shortclust", *sys.argv[2:]]
from shortclust.cli import main
try:
    profile.runcall(main)
except SystemExit:
    pass
profile.dump_stats(PATH)
"""


def stage_shares(path: Path) -> dict:
    """Each :data:`STAGES` entry's cumulative CPU seconds and share of the profile's total."""
    import pstats

    stats = pstats.Stats(str(path)).stats
    total = max(value[3] for value in stats.values())  # the outermost call: the whole command
    shares = {}
    for stage, (suffix, function) in STAGES.items():
        # Imports nest: the outermost _find_and_load calls are counted once each.
        seconds = sum(cumulative for (file, _, name), (_, _, _, cumulative, callers)
                      in stats.items() if file.endswith(suffix) and name == function
                      and not (function == "_find_and_load" and any(
                          caller[2] == "_find_and_load" for caller in callers)))
        shares[stage] = {"seconds": round(seconds, 2), "share": round(seconds / total, 3)}
    return {"profiled_cpu_seconds": round(total, 2), "stages": shares}


def run_once(file: Path, output: Path, source: str | None, extra: list[str],
             profile: Path | None = None) -> dict:
    env = dict(os.environ)
    if source:
        env["PYTHONPATH"] = source
    code = "from shortclust.cli import main; main()" if profile is None \
        else _PROFILED.replace("PATH", repr(str(profile)))
    command = [sys.executable, "-c", code, *([str(profile)] if profile else []), "cluster",
               str(file), "--output", str(output), "--quiet", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"cluster failed: {done.stderr.strip()[-500:]}")
    return {"cpu_seconds": round((after.ru_utime - before.ru_utime)
                                 + (after.ru_stime - before.ru_stime), 2),
            "peak_rss_mb": round(after.ru_maxrss / 1024, 1)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--source", help="run the package found in this directory")
    parser.add_argument("--data-dir", default=os.environ.get(
        "SHORTCLUST_DATA", str(ROOT.parent / "shared" / "datasets")))
    parser.add_argument("--no-warm", action="store_true",
                        help="skip the untimed first run (kernels already compiled)")
    parser.add_argument("--profile", action="store_true",
                        help="one more run under cProfile: each stage's share of the CPU time")
    parser.add_argument("extra", nargs="*", help="more options of `shortclust cluster`")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        file = make_file(Path(tmp) / "texts.csv", args.docs, Path(args.data_dir))
        if not args.no_warm:
            run_once(file, Path(tmp) / "warm", args.source, args.extra)
        runs = []
        for i in range(args.repeats):
            runs.append(run_once(file, Path(tmp) / f"out{i}", args.source, args.extra))
            print(json.dumps({"run": i, **runs[-1]}), flush=True)
        if args.profile:
            profile = Path(tmp) / "cluster.prof"
            run_once(file, Path(tmp) / "profiled", args.source, args.extra, profile)
            print(json.dumps(stage_shares(profile)), flush=True)
    print(json.dumps({"docs": args.docs, "source": args.source or "this checkout",
                      "median_cpu_seconds": statistics.median(r["cpu_seconds"] for r in runs),
                      "max_peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}))


if __name__ == "__main__":
    main()
