"""`make run`'s whole command: CPU time and peak memory of ``shortclust run`` in a fresh process.

Runs ``shortclust run configs/gsdmm_tweet.yaml`` (20 GSDMM runs on Tweet, what ``make run``
does after the download check) ``--repeats`` times (default 5), each into a fresh output
folder, and prints as JSON lines each run's user and system CPU seconds of the child
(imports, reading, fitting, scoring, writing: everything) and its peak resident memory, then
the medians and the load average before and after. One untimed run first warms numba's cache
of compiled kernels, as a user's second ``make run`` finds it.

``--before DIR`` also runs the package found in DIR (a checkout of another commit: its
``shortclust`` folder's parent, e.g. ``git archive main | tar -x -C /tmp/base``), alternating
with this checkout run for run, so that the two are measured in the same sitting under the
same load, and prints the ratio of the medians::

    python benchmarks/bench_run_command.py                         # this checkout only
    python benchmarks/bench_run_command.py --before /tmp/base      # before/after, alternating

``--config`` measures another config the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(config: Path, output: Path, source: str | None) -> dict:
    """One ``shortclust run`` in a child process: its CPU seconds and peak RSS."""
    env = dict(os.environ)
    env.setdefault("SHORTCLUST_DATA", str(ROOT.parent / "shared" / "datasets"))
    # Same kernel cache as `make run`, so that the warm-up run's compilation is re-used.
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".venv" / "numba-cache"))
    if source:
        env["PYTHONPATH"] = source  # found before the editable install of this checkout
    command = [sys.executable, "-c", "from shortclust.cli import main; main()",
               "run", str(config), "--output", str(output)]
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(command, env=env, cwd=source or ROOT,
                                   stdout=subprocess.DEVNULL, stderr=errors, text=True)
        # wait4 gives this child's own usage (RUSAGE_CHILDREN would keep the largest RSS
        # of any child so far); Popen never reaps it first, as nothing else waits on it.
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"run failed: {errors.read().strip()[-500:]}")
    return {"user": round(usage.ru_utime, 2), "sys": round(usage.ru_stime, 2),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def summary(runs: list[dict]) -> dict:
    return {"median_cpu_seconds": statistics.median(r["cpu_seconds"] for r in runs),
            "median_user": statistics.median(r["user"] for r in runs),
            "median_sys": statistics.median(r["sys"] for r in runs),
            "max_peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--config", default=str(ROOT / "configs" / "gsdmm_tweet.yaml"))
    parser.add_argument("--before", help="also run the package found in this directory, "
                                         "alternating with this checkout")
    args = parser.parse_args(argv)
    config = Path(args.config).resolve()
    sources = {"this checkout": None} if not args.before else {
        "before": str(Path(args.before).resolve()), "this checkout": None}
    load_before = os.getloadavg()
    runs = {name: [] for name in sources}
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in sources.items():
            run_once(config, Path(tmp) / f"warm-{name[0]}", source)
        for i in range(args.repeats):
            for name, source in sources.items():
                runs[name].append(run_once(config, Path(tmp) / f"{name[0]}{i}", source))
                print(json.dumps({"package": name, "run": i, **runs[name][-1]}), flush=True)
    result = {"config": config.name, "repeats": args.repeats,
              "load_average_before": [round(x, 2) for x in load_before],
              "load_average_after": [round(x, 2) for x in os.getloadavg()],
              **{name: summary(found) for name, found in runs.items()}}
    if args.before:
        result["ratio_after_to_before"] = round(
            result["this checkout"]["median_cpu_seconds"]
            / result["before"]["median_cpu_seconds"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
