"""Table 3's measurements: the scaling benchmark, run on demand and archived with the results.

The benchmark (``benchmarks/bench_scaling.py``) times one fit per (model, copies) in a
child process and appends JSON Lines to the work directory; the newest successful
measurement per (model, copies) is kept in ``results/gsdmm/records/scaling.json``, which
Table 3 reads (so ``--no-fit`` and a fresh clone rebuild it without measuring anything).
"""

from __future__ import annotations

import json
from pathlib import Path

from shortclust.errors import ShortclustError
from shortclust.pipeline.records import atomic_write_text

#: The models Table 3 measures.
SCALING_MODELS = ["gsdmm", "dmafp", "kmeans", "minibatch_kmeans"]
#: The benchmark script, in the project checkout.
BENCH_SCALING = Path("benchmarks/bench_scaling.py")
#: The archived measurements, in ``results/<paper>/records/``.
SCALING_ARCHIVE = "scaling.json"


def bench_output(job) -> Path:
    """The benchmark's raw JSON Lines output, in the work directory."""
    return job.work_dir / job.paper / "scaling.jsonl"


def archive_path(job) -> Path:
    return job.archive_path(SCALING_ARCHIVE)


def measured(job) -> dict:
    """The newest successful measurement per (model, copies): archive, then new output."""
    found = {}
    archive = archive_path(job)
    rows = json.loads(archive.read_text(encoding="utf-8")) if archive.exists() else []
    output = bench_output(job)
    if output.exists():
        rows += [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    for row in rows:
        if row.get("status") == "ok":
            found[(row["model"], row["copies"])] = row
    return found


def measure_missing(job, copies: list[int]) -> None:
    """Measure the (model, copies) not measured yet (nothing with ``fit=False``); archive."""
    for model in SCALING_MODELS:
        done = measured(job)
        missing = [c for c in copies if (model, c) not in done]
        if missing and job.fit:
            job.say(f"{job.paper}: table3 ({model} on {','.join(map(str, missing))} copies)")
            run_benchmark(job, bench_output(job), model, missing)
            archive_measurements(job)


def archive_measurements(job) -> None:
    """Keep the newest measurement per (model, copies) in the results' records folder."""
    rows = sorted(measured(job).values(), key=lambda r: (r["model"], r["copies"]))
    atomic_write_text(archive_path(job), json.dumps(rows, indent=1, sort_keys=True) + "\n")


def run_benchmark(job, path: Path, model: str, copies: list[int]) -> None:
    """Run the scaling benchmark of the checkout on ``copies``, appending to ``path``."""
    import subprocess
    import sys

    command = [sys.executable, str(job.project_path(BENCH_SCALING)), "--models", model,
               "--copies", ",".join(map(str, copies)), "--output", str(path)]
    if job.data_dir is not None:
        command += ["--data-dir", str(job.data_dir)]
    path.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(command, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL if job.quiet else None)
    if done.returncode != 0:
        raise ShortclustError(
            f"the scaling benchmark stopped with exit status {done.returncode}: run "
            f"`{' '.join(command)}` to see why (measurements so far are kept in {path})"
        )
