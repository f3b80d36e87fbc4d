"""MStream and MStreamF against the authors' Python code on the MStream streams: NMI and CPU.

Usage::

    python benchmarks/bench_mstream.py --peer /path/to/jackyin12/MStream/MStream
    python benchmarks/bench_mstream.py --seeds 10            # ours only, no peer

``--peer`` is the folder of the authors' code (``MStream.py``, ``Model.py``, ...; it is
not part of shortclust: fetch github.com/jackyin12/MStream yourself). The peer runs in a
child process, under its published settings (``main.py``: alpha = beta = 0.03, 16 equal
batches, the one pass and then ``iterNum = 5`` iterations, MaxBatch = 2 for MStreamF),
on a copy of our dataset file in its input format, in a temporary folder; its CPU time is
the child's (the whole run: reading, clustering, writing its per-batch files).

Ours runs under the same settings and on the same input: the authors' vocabulary (each
text split on spaces, nothing removed), each distinct word counted once per document
(``binary=True``, as their ``Document.py`` does), V over the last 5 batches
(``vocabulary_window=5``, their ``getBeta0``), ``max_iter=6`` (the one pass + 5), and the
same 16 batch boundaries (their ``getAveBatch``). Our CPU time is that of the
``partial_fit`` calls (compilation excluded by a warm-up stream first), median over
seeds. NMI is over every document with the cluster it had at the end of its batch, with
the arithmetic normalisation (``shortclust.evaluation.metrics.nmi``), and beside it the
geometric one (the MStream paper's Eq. 6). "Within 2 std": |ours - peer| <= 2 x the
sample std of ours over seeds. ``peak_rss_mib`` is this process's peak. The last line
printed is one JSON object.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402
from sklearn.metrics import normalized_mutual_info_score  # noqa: E402

from shortclust.data.corpus import count_matrix  # noqa: E402
from shortclust.data.registry import dataset_path  # noqa: E402
from shortclust.evaluation.metrics import nmi  # noqa: E402
from shortclust.models.dmm.mstream import MStream, MStreamF  # noqa: E402

MODELS = {"mstream": MStream, "mstreamf": MStreamF}
AUTHORS = {"alpha": 0.03, "beta": 0.03, "max_iter": 6, "vocabulary_window": 5, "binary": True}
N_BATCHES = 16

# Runs the authors' code in the child: argv = peer folder, dataset, seed, variant.
PEER_DRIVER = r"""
import contextlib, glob, io, json, random, sys
peer, dataset, seed, variant = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, peer)
from MStream import MStream
random.seed(seed)
with contextlib.redirect_stdout(io.StringIO()):
    model = MStream(0, 16 if variant == "mstream" else 2, 16, 0.03, 0.03, 5, 1, dataset,
                    "timefil", 5)
    model.getDocuments()
    (model.runMStream if variant == "mstream" else model.runMStreamF)(1, "result/")
labels = {}
for path in glob.glob("result/*/*ClusteringResult.txt"):
    for line in open(path):
        doc, cluster = line.split()
        labels[doc] = int(cluster)
json.dump(labels, open("labels.json", "w"))
"""


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["MStream-News-T", "MStream-Tweets-T"])
    parser.add_argument("--models", nargs="+", default=["mstream", "mstreamf"],
                        choices=["mstream", "mstreamf"])
    parser.add_argument("--seeds", type=int, default=10, help="our runs per dataset (seeds 0..N-1)")
    parser.add_argument("--peer", default=None, help="folder of the authors' MStream code")
    parser.add_argument("--peer-seeds", type=int, default=1, help="peer runs per dataset and model")
    parser.add_argument("--peer-models", nargs="+", default=["mstream"],
                        choices=["mstream", "mstreamf"])
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def read_stream(name, data_dir):
    rows = [json.loads(line) for line in open(dataset_path(name, data_dir), encoding="utf-8")]
    counts, _ = count_matrix([row["text"].split(" ") for row in rows])
    return rows, counts


def authors_batches(n_docs):
    """The batch of each document as the authors' ``getAveBatch`` cuts ``N_BATCHES``:
    a new batch starts at the document after ``ceil(n / N_BATCHES)`` counted ones."""
    size, counted, batch = n_docs / N_BATCHES, 0, 0
    steps = np.empty(n_docs, dtype=np.int64)
    for d in range(n_docs):
        if counted < size:
            counted += 1
        else:
            batch, counted = batch + 1, 0
        steps[d] = batch
    return steps


def ours(model_name, counts, steps, seed):
    """One stream: (labels, CPU seconds of the partial_fit calls, clusters)."""
    model = MODELS[model_name](random_state=seed, **AUTHORS)
    cpu = 0.0
    for batch in np.unique(steps):
        rows = np.flatnonzero(steps == batch)
        started = time.process_time()
        model.partial_fit(counts[rows])
        cpu += time.process_time() - started
    return model.labels_, cpu, model.n_clusters_


def peer(folder, name, rows, seed, variant):
    """One run of the authors' code in a child: (labels in our row order, child CPU s)."""
    with tempfile.TemporaryDirectory() as work:
        Path(work, "data").mkdir()
        Path(work, "result").mkdir()
        with open(Path(work, "data", name), "w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps({"tweetId": row["id"], "clusterNo": row["label"],
                                      "textCleaned": row["text"]}) + "\n")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", PEER_DRIVER, str(Path(folder).resolve()), name,
                        str(seed), variant], cwd=work, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        found = json.load(open(Path(work, "labels.json")))
    labels = np.array([found[str(int(row["id"]))] for row in rows])
    return labels, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def scores(truth, labels):
    return {"nmi": nmi(truth, labels),
            "nmi_geometric": float(normalized_mutual_info_score(truth, labels,
                                                                average_method="geometric")),
            "clusters": int(np.unique(labels).size)}


def main(argv=None):
    args = parse_args(argv)
    results = []
    for name in args.datasets:
        rows, counts = read_stream(name, args.data_dir)
        truth = [row["label"] for row in rows]
        steps = authors_batches(len(rows))
        for model_name in args.models:
            ours(model_name, counts[:2000], steps[:2000], 0)  # warm-up: compile, load caches
            runs = [ours(model_name, counts, steps, seed) for seed in range(args.seeds)]
            ours_scores = [scores(truth, labels) for labels, _, _ in runs]
            values = [s["nmi"] for s in ours_scores]
            entry = {"dataset": name, "model": model_name, "seeds": args.seeds,
                     "nmi_mean": statistics.mean(values),
                     "nmi_std": statistics.stdev(values) if len(values) > 1 else 0.0,
                     "nmi_geometric_mean": statistics.mean(s["nmi_geometric"] for s in ours_scores),
                     "clusters_mean": statistics.mean(s["clusters"] for s in ours_scores),
                     "cpu_seconds_median": statistics.median(cpu for _, cpu, _ in runs)}
            if args.peer and model_name in args.peer_models:
                peer_runs = [peer(args.peer, name, rows, seed, model_name)
                             for seed in range(1, args.peer_seeds + 1)]
                peer_scores = [scores(truth, labels) for labels, _ in peer_runs]
                entry["peer"] = {
                    "runs": len(peer_runs), "nmi": [s["nmi"] for s in peer_scores],
                    "nmi_geometric": [s["nmi_geometric"] for s in peer_scores],
                    "clusters": [s["clusters"] for s in peer_scores],
                    "cpu_seconds": [cpu for _, cpu in peer_runs]}
                gap = abs(entry["nmi_mean"] - statistics.mean(entry["peer"]["nmi"]))
                entry["within_2_std"] = bool(gap <= 2 * entry["nmi_std"])
                entry["peer_cpu_ratio"] = (statistics.median(entry["peer"]["cpu_seconds"])
                                           / entry["cpu_seconds_median"])
            print(json.dumps(entry), flush=True)
            results.append(entry)
    print(json.dumps({"results": results, "load_average": os.getloadavg(),
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
