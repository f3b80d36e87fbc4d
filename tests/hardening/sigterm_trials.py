"""SIGTERM at random times during a paper reproduction: every one must exit 143 and leave a
state the same command resumes from (issue 27, acceptance point 3).

    python tests/hardening/sigterm_trials.py --trials 20 --scratch /tmp/sigterm

Each trial starts ``shortclust reproduce dct --only perplexity --runs 1`` into the same
scratch results and work directories, sends SIGTERM after a random delay (seeded), and
records the exit status and whether anything printed a traceback. The trials continue one
another's state (each resumes what the previous ones finished), so the later ones land in
the table-building phase, where a signal was once lost. At the end the command runs to
completion once more: it must exit 0, which shows every interrupted state was resumable.
A signal during start-up, before the command line installs its handler, ends the process
by SIGTERM's default action (Python reports -15, a shell 143): nothing had started, so it
counts as a clean end. Prints one line per trial and a summary; exits 1 if any trial
failed.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

COMMAND = ["reproduce", "dct", "--only", "perplexity", "--runs", "1", "--quiet"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--max-delay", type=float, default=40.0,
                        help="Latest SIGTERM, in seconds after the start.")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    command = [sys.executable, "-m", "shortclust", *COMMAND,
               "--results", str(args.scratch / "results"),
               "--work-dir", str(args.scratch / "work")]
    failures, lags = 0, []
    for trial in range(1, args.trials + 1):
        delay = rng.uniform(1.0, args.max_delay)
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=600)
        status, seconds = process.returncode, time.monotonic() - started
        traceback = "Traceback" in out + err or "Exception ignored" in out + err
        # 143: the handler ran. -15: the signal came during start-up, before the handler is
        # installed, and its default action ended the process (a shell shows 143 too;
        # nothing had started). 0: the command finished before the signal.
        ok = status in (143, -signal.SIGTERM) or (status == 0 and seconds < delay)
        failures += (not ok) or traceback
        # How long the command went on after the signal (writing what it finished, then
        # exiting): a signal whose exception was swallowed used to let it run for minutes.
        lag = seconds - delay if seconds >= delay else None
        if lag is not None:
            lags.append(lag)
        print(f"trial {trial:2d}: SIGTERM at {delay:5.1f} s, exit {status}, "
              f"{seconds:5.1f} s{'' if lag is None else f' ({lag:.1f} s after it)'}, "
              f"traceback {'yes' if traceback else 'no'}: "
              f"{'ok' if ok and not traceback else 'FAILED'}", flush=True)
        if not ok or traceback:  # what went wrong, for whoever reads the log
            print("\n".join("    " + line for line in err.splitlines()[-25:]), flush=True)
    final = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    resumed = final.returncode == 0 and "Traceback" not in final.stdout + final.stderr
    print(f"resumed to completion: exit {final.returncode}: {'ok' if resumed else 'FAILED'}")
    print(f"summary: {args.trials - failures} of {args.trials} trials ok; resumable: "
          f"{'yes' if resumed else 'no'}; exits after the signal: "
          f"{len(lags)}, the slowest {max(lags, default=0):.1f} s after it")
    return 0 if failures == 0 and resumed else 1


if __name__ == "__main__":
    os.environ.setdefault("SHORTCLUST_DATA", str(Path(__file__).resolve().parents[3]
                                                 / "shared" / "datasets"))
    sys.exit(main())
