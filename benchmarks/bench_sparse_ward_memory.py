"""Sparse Ward's memory per kept pair, this tree against another, on the same pairs.

HAC_SD's peak at 400,000 texts was set by the Ward stage (``_sparse_ward``), at about 170
bytes per kept pair. This measures that stage alone, for the code in this tree and, with
``--before DIR``, for the code in ``DIR`` (e.g. ``git archive <commit> | tar -x -C DIR``):

1. The corpus of ``bench_hac_sd_scale.py`` (its concatenation of the shared files) cut to
   ``--docs`` texts, averaged GloVe vectors, K its number of prefixed labels, and Algorithm
   2's kept pairs from ``sd_pairs`` (the exact route), saved to a temporary file.
2. For each tree, a fresh child process loads the pairs (int32 ends and float32
   similarities, as the pair routes return them), notes its resident memory, then runs the
   Ward stage as that tree's ``HACSimilarity`` does (from the weights to K clusters, the pair
   arrays freed where the tree frees them). It reports the stage's CPU seconds and its peak
   resident memory above the memory before the stage (``FitResources``: the high-water mark reset at its start), and saves the merges.
3. The merges of the two trees are compared: equal, or the script says they are not.

One thread per library (``_setup``); the kernels are compiled on a small input first
(untimed). Timings on a shared machine are noisy: the memory figures are the point.
The last line on standard output is one JSON object.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

HERE = Path(__file__).resolve().parent
TREE = HERE.parent

# The child: one Ward stage on saved pairs, as the tree at sys.argv[1] runs it.
CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from shortclust.models.hac import _sparse_ward as ward
from shortclust.pipeline.resources import FitResources

def compile_first():
    rows, cols = np.array([0, 0, 1], np.int32), np.array([1, 2, 2], np.int32)
    ward.sparse_ward(4, rows, cols, ward.pair_weights(np.float32([0.9, 0.8, 0.7])), 1)

compile_first()
saved = np.load(sys.argv[2])
n, k = int(saved["n"]), int(saved["k"])
rows, cols, similarities = saved["rows"], saved["cols"], saved["similarities"]
n_pairs = rows.size
with FitResources() as cost:
    if hasattr(ward, "ward_adjacency"):  # the adjacency first, then the pairs freed
        adjacency = ward.ward_adjacency(n, rows, cols, ward.pair_weights(similarities))
        del rows, cols, similarities
        merges = ward.ward_merges(adjacency, k)
    else:  # the caller kept its pairs through the merges
        weights = ward.pair_weights(similarities)
        del similarities
        merges = ward.sparse_ward(n, rows, cols, weights, k)
np.save(sys.argv[3], merges)
print(json.dumps({"pairs": n_pairs, "cpu_seconds": round(cost.cpu_seconds, 2),
                  "peak_above_mib": round(cost.peak_mb, 1),
                  "bytes_per_pair": round(cost.peak_mb * 2**20 / max(n_pairs, 1), 1)}))
"""


def kept_pairs(data_dir, n_docs, path):
    """Save the kept pairs of the first ``n_docs`` texts to ``path``; (n, K, pairs)."""
    import numpy as np
    from bench_hac_sd_scale import corpus_vectors

    from shortclust.models.hac._sparse_sd import sd_pairs

    n, _, vectors, k = corpus_vectors(data_dir, n_docs)
    rows, cols, similarities = sd_pairs(vectors, k, fast=True)
    np.savez(path, n=n, k=k, rows=rows.astype(np.int32), cols=cols.astype(np.int32),
             similarities=similarities.astype(np.float32))
    return n, k, rows.size


def ward_stage(tree, pairs_path, merges_path):
    """Run the child for one tree; its JSON result."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(pairs_path),
                           str(merges_path)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    if done.returncode != 0:
        raise SystemExit(f"the Ward stage of {tree} failed: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=50000)
    parser.add_argument("--before", default=None,
                        help="a source tree of the code to compare with (its shortclust/)")
    parser.add_argument("--data-dir", default=os.environ.get("SHORTCLUST_DATA"))
    args = parser.parse_args(argv)
    if not args.data_dir or not Path(args.data_dir).is_dir():
        raise SystemExit("no dataset folder: set SHORTCLUST_DATA or pass --data-dir")
    if args.before and not (Path(args.before) / "shortclust").is_dir():
        raise SystemExit(f"--before {args.before} has no shortclust/ folder: give a source tree")

    import numpy as np

    result = {"docs": args.docs, "load_average": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as folder:
        pairs_path = Path(folder) / "pairs.npz"
        result["n"], result["k"], result["pairs"] = kept_pairs(args.data_dir, args.docs,
                                                               pairs_path)
        trees = {"after": TREE} | ({"before": Path(args.before)} if args.before else {})
        for name, tree in trees.items():
            result[name] = ward_stage(tree, pairs_path, Path(folder) / f"{name}.npy")
            print(name, result[name], flush=True)
        if args.before:
            result["merges_equal"] = bool(np.array_equal(
                np.load(Path(folder) / "after.npy"), np.load(Path(folder) / "before.npy")))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
