"""Every case of docs/hardening.md through the real command line, from any checkout.

    python tests/hardening/run_cases.py --scratch /tmp/cases [--bomb-gib 6]

Builds the hostile inputs in ``--scratch`` (a small corpus, a fitted model and its crafted
copies, odd files and configs), runs each case as ``python -m shortclust ...`` with this
checkout first on the path, and checks its exit status (0 or 2, as the case expects), that
a refusal is one ``error:`` line, and the case's own condition (a file unchanged, a folder
byte-identical, a device still a device, peak memory under 200 MB). Each case's stdout and
stderr are kept in ``<scratch>/outputs/<case>.txt`` for ``grep -c Traceback``. Prints one
line per case and a summary; exits 1 if a case failed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import hostile  # noqa: E402

MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
sys.stderr.write(f"[peak RSS {peak} MB]\\n")
sys.exit(done.returncode)
"""
TEXTS = ["apple banana fruit", "banana fruit salad", "apple pie fruit", "fruit juice apple",
         "python code bug", "code review python", "bug fix code", "python test code",
         "goal match football", "football league goal", "match referee goal",
         "league football cup"]


class Cases:
    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.outputs = scratch / "outputs"
        self.outputs.mkdir(parents=True, exist_ok=True)
        self.failed: list[str] = []
        self.count = 0
        self.env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(self, name, args, expect, check=None, measured=False, timeout=900, says=None,
            max_seconds=None):
        """Run ``shortclust *args``; ``expect`` is 0 or 2; ``check()`` returns a problem;
        ``says``: a fragment its output must hold; ``max_seconds``: the whole command's
        wall time must stay under it."""
        command = [sys.executable, "-m", "shortclust", *map(str, args)]
        if measured:
            command = [sys.executable, "-c", MEASURED, *command]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, env=self.env,
                              cwd=self.scratch, timeout=timeout)
        seconds = time.monotonic() - started
        (self.outputs / f"{name}.txt").write_text(
            f"$ shortclust {' '.join(map(str, args))}\n{done.stdout}{done.stderr}"
            f"[exit {done.returncode}]\n")
        problems = []
        if done.returncode != expect:
            problems.append(f"exit {done.returncode}, expected {expect}")
        errors = [line for line in done.stderr.splitlines() if not line.startswith("[peak")]
        if expect == 2 and not (len(errors) == 1 and errors[0].startswith("error: ")):
            problems.append(f"{len(errors)} stderr lines")
        if "Traceback" in done.stdout + done.stderr:
            problems.append("traceback")
        if measured:
            peak = int(done.stderr.rsplit("[peak RSS ", 1)[1].split()[0])
            if peak >= 200:
                problems.append(f"peak RSS {peak} MB")
        if says is not None and says not in done.stdout + done.stderr:
            problems.append(f"does not say {says!r}")
        if max_seconds is not None and seconds >= max_seconds:
            problems.append(f"took {seconds:.1f} s, not under {max_seconds} s")
        if check is not None:
            problem = check()
            if problem:
                problems.append(problem)
        self.count += 1
        first = errors[0] if errors else (done.stdout.strip().splitlines() or [""])[-1]
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        extra = done.stderr.rsplit("[peak RSS ", 1)[1].split("]")[0] if measured else ""
        print(f"{name:<28} exit {done.returncode} {seconds:5.1f} s "
              f"{('peak ' + extra + ' ') if extra else ''}{status} | {first[:150]}",
              flush=True)
        if problems:
            self.failed.append(name)
        return done


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def folder_digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*"))
            if p.is_file()}


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def listener(kind: str) -> int:
    """A local listener that is not a Dask scheduler: ``silent`` or ``http``; its port."""
    if kind == "silent":
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        listener.keep = getattr(listener, "keep", []) + [sock]
        return sock.getsockname()[1]
    import http.server

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_port


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--bomb-gib", type=float, default=6.0)
    args = parser.parse_args()
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    cases = Cases(scratch)
    s = scratch
    docs = write_jsonl(s / "docs.jsonl", [{"text": t, "label": t.split()[0]} for t in TEXTS])
    new = s / "new.txt"
    new.write_text("apple pie\ngoal match\n")

    # A fitted model (GSDMM and K-means) to craft from.
    cases.run("fit_gsdmm", ["cluster", docs, "-k", "3", "--output", s / "g", "--quiet"], 0)
    cases.run("fit_kmeans", ["cluster", docs, "--model", "kmeans", "-k", "3", "--output",
                             s / "km", "--quiet"], 0)
    model, kmodel = s / "g" / "model.zip", s / "km" / "model.zip"

    # 1. model files
    crafted = {
        "n_clusters_1e7": lambda t: hostile.edited_model(model, t, n_clusters_=10**7),
        "n_clusters_1e5": lambda t: hostile.edited_model(model, t, n_clusters_=100_000),
        "n_clusters_neg": lambda t: hostile.edited_model(model, t, n_clusters_=-3),
        "n_clusters_str": lambda t: hostile.edited_model(model, t, n_clusters_="19"),
        "longer_vocabulary": lambda t: hostile.longer_vocabulary(model, t),
        "shrunk_counts": lambda t: hostile.shrunk_counts(model, t),
        "shrunk_centroids": lambda t: hostile.shrunk_counts(kmodel, t, "cluster_centers_"),
        "preprocess_string": lambda t: hostile.edited_header(
            model, t, lambda h: h.update(preprocess="basic")),
        "beta_string": lambda t: hostile.edited_header(
            model, t, lambda h: h["params"].update(beta="x")),
        "vocabulary_dict": lambda t: hostile.edited_header(
            model, t, lambda h: h["vocabulary"].__setitem__(0, {"a": 1})),
        "min_doc_words_abc": lambda t: hostile.edited_header(
            model, t, lambda h: h["preprocess"].update(min_doc_words="abc")),
        "generator_2e300": lambda t: hostile.edited_header(
            model, t, lambda h: h["fitted"]["random_state_"]["numpy_generator"]["state"]
            .update(state=2**300)),
        "generator_short": lambda t: hostile.edited_header(
            model, t, lambda h: h["fitted"].update(
                random_state_={"numpy_generator": {"bit_generator": "PCG64"}})),
        "npy_shape_1e12": lambda t: hostile.huge_npy_header(model, t),
        "deep_header": lambda t: hostile.deep_header(model, t),
    }
    for name, craft in crafted.items():
        path = craft(s / f"{name}.zip")
        cases.run(f"model_{name}", ["predict", path, new, "--output", s / "p.csv"], 2,
                  measured=name == "n_clusters_1e7")
    for honest in (True, False):
        bomb = hostile.zip_bomb(model, s / "bomb.zip", args.bomb_gib, honest_header=honest)
        cases.run(f"model_zip_bomb_{'honest' if honest else 'lying'}",
                  ["predict", bomb, new, "--output", s / "p.csv"], 2, measured=True)
        bomb.unlink()
    os.mkfifo(s / "model_fifo")
    for name, path in (("directory", s / "g"), ("fifo", s / "model_fifo"),
                       ("device", "/dev/zero")):
        cases.run(f"model_path_{name}", ["predict", path, new, "--output", s / "p.csv"], 2)

    # 2. never overwrite what the user owns
    for name, target in (("input", new), ("model", model)):
        before = digest(target)
        cases.run(f"output_is_{name}", ["predict", model, new, "--output", target], 2,
                  check=lambda t=target, b=before: None if digest(t) == b else "changed")
    os.mkfifo(s / "out_fifo")
    cases.run("output_fifo", ["predict", model, new, "--output", s / "out_fifo"], 2,
              check=lambda: None if (s / "out_fifo").is_fifo() else "replaced")
    try:
        os.mknod(s / "out_device", 0o644 | 0o020000, os.makedev(1, 3))
        cases.run("output_device", ["predict", model, new, "--output", s / "out_device"], 2,
                  check=lambda: None if (s / "out_device").is_char_device() else "replaced")
    except PermissionError:
        print("output_device                skipped (making a device node needs root)")
    inside = s / "km" / "assignments.csv"
    before = digest(inside)
    cases.run("cluster_input_in_output", ["cluster", inside, "--model", "kmeans", "-k", "2",
                                          "--output", s / "km", "--quiet"], 2,
              check=lambda: None if digest(inside) == before else "input changed")
    finished = folder_digest(s / "km")
    cases.run("failed_rerun_identical", ["cluster", docs, "--model", "kmeans", "-k", "100000",
                                         "--output", s / "km", "--quiet"], 2,
              check=lambda: None if folder_digest(s / "km") == finished else "folder changed")

    # 3. inputs that raised
    write_jsonl(s / "long_id.jsonl", [{"text": t, "id": str(i) * 140_000}
                                      for i, t in enumerate(TEXTS)])
    cases.run("long_id", ["cluster", s / "long_id.jsonl", "--model", "kmeans", "-k", "3",
                          "--output", s / "long", "--quiet"], 0)
    (s / "deep.jsonl").write_text('{"text": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    cases.run("deep_json_line", ["data", "info", s / "deep.jsonl"], 2)
    for name, value in (("time_2e70", 2**70), ("time_year1_plus14",
                                               "0001-01-01T00:00:00+14:00")):
        write_jsonl(s / f"{name}.jsonl", [{"text": t, "time": value} for t in TEXTS])
        cases.run(name, ["data", "info", s / f"{name}.jsonl"], 2)
    write_jsonl(s / "timed.jsonl", [{"text": t, "time": i} for i, t in enumerate(TEXTS)])
    (s / "window.yaml").write_text(
        f"name: w\ndataset: {s / 'timed.jsonl'}\nmodel: {{name: gsdmm}}\n"
        "stream: {batch_by: time, window: 100000000000000000000}\n")
    cases.run("window_1e20", ["run", s / "window.yaml", "--output", s / "w"], 2)
    (s / "runs.yaml").write_text(f"name: r\ndataset: {docs}\nmodel: {{name: kmeans}}\n"
                                 "runs: 100000000000000000000000\n")
    cases.run("runs_1e23", ["run", s / "runs.yaml", "--output", s / "r"], 2)
    (s / "ok.yaml").write_text(f"name: ok\ndataset: {docs}\nmodel: {{name: kmeans, params: "
                               "{n_clusters: 3}}\nruns: 1\n")
    cases.run("runs_option_1e8", ["run", s / "ok.yaml", "--runs", "100000000", "--output",
                                  s / "r"], 2)
    for kind in ("silent", "http"):
        port = listener(kind)
        cases.run(f"cluster_{kind}_listener", ["run", s / "ok.yaml", "--output", s / "c",
                                               "--cluster", f"tcp://127.0.0.1:{port}"], 2,
                  check=None, timeout=60, says="not a Dask scheduler", max_seconds=5)
    # What a SIGKILL leaves (a temporary named after a process that is gone): removed by
    # the next run into the folder.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    (s / "res" / "labels").mkdir(parents=True, exist_ok=True)
    stale = [s / "res" / f".stream.png.{gone}-abcd1234.tmp",
             s / "res" / "labels" / f".x.txt.{gone}-abcd1234.tmp"]
    for path in stale:
        path.write_text("partial")
    cases.run("resume_base", ["run", s / "ok.yaml", "--output", s / "res", "--quiet"], 0,
              check=lambda: "stale temporaries left" if any(p.exists() for p in stale)
              else None)
    record = json.loads((s / "res" / "records.jsonl").read_text().splitlines()[0])
    labels = s / "res" / "labels" / f"{record['run_id']}.txt"
    good = labels.read_text()
    for name, text, metrics in (("labels_xyz", "xyz\n", {}),
                                ("labels_truncated", "".join(good.splitlines(True)[:3]), {}),
                                ("metrics_oops", good, "oops")):
        labels.write_text(text)
        write_jsonl(s / "res" / "records.jsonl", [{**record, "metrics": metrics}])
        cases.run(name, ["run", s / "ok.yaml", "--output", s / "res", "--resume"], 2)

    # 4. hangs
    layers = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]"
        for i in range(8)]
    (s / "alias.yaml").write_text(f"name: bomb\ndataset: {docs}\nmodel:\n  name: gsdmm\n"
                                  "  params:\n" + "".join(f"    {x}\n" for x in layers))
    cases.run("yaml_alias_bomb", ["run", s / "alias.yaml"], 2, timeout=60)
    cases.run("set_alias", ["run", s / "ok.yaml", "--set", "n_clusters=[&a [1], *a]"], 2)

    # 5. silently wrong
    (s / "cr.txt").write_bytes(b"\r".join(t.encode() for t in TEXTS) + b"\r")
    cases.run("cr_line_endings", ["cluster", s / "cr.txt", "--model", "kmeans", "-k", "3",
                                  "--output", s / "cr", "--quiet"], 0,
              check=lambda: None if len((s / "cr" / "assignments.csv").read_text()
                                        .splitlines()) == 13 else "not 12 documents")
    cases.run("k_vs_set", ["cluster", docs, "-k", "3", "--set", "n_clusters=4"], 2)
    cases.run("set_model_name", ["cluster", docs, "--set", "model.name=kmeans"], 2,
              says="use --model NAME instead")
    write_jsonl(s / "one_class.jsonl", [{"text": t, "label": "x"} for t in TEXTS])
    (s / "one.yaml").write_text(f"name: one\ndataset: {s / 'one_class.jsonl'}\nmodel: "
                                "{name: kmeans, params: {n_clusters: 3}}\nruns: 1\n")
    cases.run("single_class_labels", ["run", s / "one.yaml", "--output", s / "one",
                                      "--quiet"], 0,
              check=lambda: None if json.loads((s / "one" / "records.jsonl").read_text()
                                               .splitlines()[0])["metrics"]["nmi"] is None
              else "nmi not null")
    write_jsonl(s / "formula.jsonl", [{"text": t, "id": f"=HYPERLINK(\"x{i}\")\nline"}
                                      for i, t in enumerate(TEXTS)])
    cases.run("formula_and_newline_ids", ["cluster", s / "formula.jsonl", "--model", "kmeans",
                                          "-k", "3", "--output", s / "f", "--quiet"], 0,
              check=lambda: None if "'=HYPERLINK" in (s / "f" / "assignments.csv").read_text()
              and "\nline" not in (s / "f" / "clusters.md").read_text() else "not escaped")

    # 6. messages
    (s / "long.csv").write_text('text,label\n"' + "word " * 40_000 + '",x\n"b c",y\n')
    cases.run("csv_field_over_128kb", ["data", "info", s / "long.csv"], 0)
    (s / "semicolon.csv").write_text("id;text;label\n" + "".join(
        f"{i};{t};x\n" for i, t in enumerate(TEXTS)))
    cases.run("semicolon_csv", ["data", "info", s / "semicolon.csv"], 0)
    for name, argv in (("k_0", ["cluster", docs, "-k", "0"]),
                       ("k_abc", ["cluster", docs, "-k", "abc"]),
                       ("seed_negative", ["cluster", docs, "--seed", "-1"]),
                       ("jobs_minus_3", ["run", s / "ok.yaml", "--jobs", "-3"]),
                       ("top_words_0", ["cluster", docs, "--top-words", "0"]),
                       ("reproduce_runs_0", ["reproduce", "dct", "--runs", "0"])):
        cases.run(f"typer_{name}", argv, 2)
    cases.run("gsdpmm_k", ["cluster", docs, "--model", "gsdpmm", "-k", "5"], 2)
    write_jsonl(s / "some_ids.jsonl", [{"text": "a", "id": "1"}, {"text": "b"}])
    cases.run("some_ids_article", ["data", "info", s / "some_ids.jsonl"], 2)

    print(f"summary: {cases.count - len(cases.failed)} of {cases.count} cases ok"
          + (f"; failed: {', '.join(cases.failed)}" if cases.failed else ""))
    return 1 if cases.failed else 0


if __name__ == "__main__":
    sys.exit(main())
