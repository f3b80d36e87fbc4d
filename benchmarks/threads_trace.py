"""Why GSDMM's 2-block sweep scores higher on GoogleNews-T x16: one seed, sweep by sweep.

Usage::

    python benchmarks/threads_trace.py                  # fit the missing traces, write the table
    python benchmarks/threads_trace.py --no-fit         # the table from the records alone
    python benchmarks/threads_trace.py --only copies-1,copies-2 --sweeps 60

A diagnosis, not a comparison over seeds (that is ``threads_quality.py``): each trace is
GSDMM on GoogleNews-T x16 (K = 500, alpha = beta = 0.1, as ``threads_quality.py``'s x16
cells), seed 0, with after every sweep the collapsed log joint ``log p(w, z)`` (Yin &
Wang's model: the Dirichlet-multinomial of the cluster sizes and of each cluster's words,
Eq. 4 integrated), NMI, homogeneity, completeness, clusters found, the effective number of
clusters ``exp(H(sizes))`` and the documents moved. The variants:

* ``copies-1`` / ``copies-2``: the documents as ``Corpus.repeat`` orders them (copy 1 of
  the 11,109 titles, then copy 2, ...), ``threads=1`` / ``threads=2``. The two blocks of
  ``threads=2`` are then copies 1-8 and copies 9-16: the same titles in the same order.
* ``shuffled-1`` / ``shuffled-2``: the same documents in one fixed random order
  (permutation seed 12345), so that each block holds a mix of every copy.
* ``oneblock``: the parallel sweep's code with one block spanning every document
  (``block_bounds`` replaced for the run): the parallel code path without stale counts.
  Its labels equal ``copies-1``'s if the difference of ``copies-2`` comes from the
  blocks' stale counts alone (not from the RNG streams or the parallel code).
* ``first-2`` / ``first-1``: copies order, the first sweep with ``threads=2`` and every
  later one with ``threads=1``, or the converse: whether the difference is made in the
  first sweep from the random start or by the later sweeps.

The traces were run with version 1 of GSDMM's parallel sweep (every sweep in blocks):
``copies-2``, ``shuffled-2`` and ``oneblock`` are version 1, and ``first-1`` is what
``GSDMM(threads=2)`` does since version 2 (the first sweep sequential). The script
keeps the variants as defined (it switches GSDMM's sequential first sweep off and sets
each sweep's threads itself).

Records (one per trace, every sweep's figures) go to
``results/benchmark/threads/trace.json``; ``trace.md`` is computed from them alone, so
``--no-fit`` rebuilds it byte for byte.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import _setup  # noqa: E402  (beside this file)

_setup.one_thread()
os.environ["NUMBA_NUM_THREADS"] = "2"

import numpy as np  # noqa: E402
from scipy.special import gammaln  # noqa: E402

from shortclust.evaluation.metrics import completeness, homogeneity, nmi  # noqa: E402
from shortclust.pipeline.records import git_commit, package_versions  # noqa: E402
from shortclust.pipeline.reproduce import markdown_table  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "results" / "benchmark" / "threads"
PARAMS = {"n_clusters": 500, "alpha": 0.1, "beta": 0.1}
COPIES, SEED, PERMUTATION_SEED = 16, 0, 12345
#: variant -> (document order, threads of the first sweep, of the later ones, one block)
VARIANTS = {"copies-1": ("copies", 1, 1, False), "copies-2": ("copies", 2, 2, False),
            "shuffled-1": ("shuffled", 1, 1, False), "shuffled-2": ("shuffled", 2, 2, False),
            "oneblock": ("copies", 2, 2, True), "first-2": ("copies", 2, 1, False),
            "first-1": ("copies", 1, 2, False)}
#: Sweeps shown in the table.
SHOWN = (1, 2, 5, 10, 20, 30, 40, 60, 80, 100)


def log_joint(stats, alpha, beta, n_docs):
    """``log p(w, z)`` of the Dirichlet multinomial mixture with K labelled clusters:
    ``log G(K a) - log G(D + K a) + sum_k [log G(m_k + a) - log G(a)]`` plus, per
    cluster, ``log G(V b) - log G(n_k + V b) + sum_w [log G(n_k^w + b) - log G(b)]``."""
    m_z, n_z, n_wz = stats
    n_words, k = n_wz.shape
    prior = (gammaln(k * alpha) - gammaln(n_docs + k * alpha)
             + np.sum(gammaln(m_z + alpha) - gammaln(alpha)))
    words = (k * gammaln(n_words * beta) - np.sum(gammaln(n_z + n_words * beta))
             + np.sum(gammaln(n_wz.astype(np.float64) + beta)) - n_words * k * gammaln(beta))
    return float(prior + words)


def trace(variant, sweeps, corpus):
    from shortclust.models.common import threads as threads_module
    from shortclust.models.dmm.gsdmm import _SamplerState

    order, first_threads, threads, one_block = VARIANTS[variant]
    counts, labels = corpus.counts, corpus.labels
    if order == "shuffled":
        permutation = np.random.default_rng(PERMUTATION_SEED).permutation(counts.shape[0])
        counts, labels = counts[permutation], labels[permutation]
    rng = np.random.default_rng(SEED)
    state = _SamplerState.initial(counts, PARAMS["n_clusters"], PARAMS["alpha"],
                                  PARAMS["beta"], rng)
    # Each variant names its first sweep's threads: GSDMM's own rule since version 2
    # (the first sweep sequential whatever ``threads``) would override first-2's.
    state.sequential_sweeps = 0
    original = threads_module.block_bounds, threads_module.block_scratch
    if one_block:  # one block's bounds and scratch (the merge reads every scratch block)
        threads_module.block_bounds = lambda ptr, _: np.array([0, ptr.shape[0] - 1])
        threads_module.block_scratch = lambda _, *args: original[1](1, *args)
    rows = []
    try:
        for sweep in range(1, sweeps + 1):
            state.threads = first_threads if sweep == 1 else threads
            started = time.perf_counter()
            moved = state.sweep(rng)
            seconds = time.perf_counter() - started
            sizes = state.stats[0][state.stats[0] > 0]
            p = sizes / sizes.sum()
            rows.append({
                "sweep": sweep, "moved": int(moved), "clusters": int(sizes.size),
                "effective": round(float(np.exp(-np.sum(p * np.log(p)))), 2),
                "log_joint": round(log_joint(state.stats, PARAMS["alpha"], PARAMS["beta"],
                                             counts.shape[0]), 1),
                "nmi": round(float(nmi(labels, state.z)), 6),
                "homogeneity": round(float(homogeneity(labels, state.z)), 6),
                "completeness": round(float(completeness(labels, state.z)), 6),
                "seconds": round(seconds, 2), "labels_checksum": _checksum(state.z)})
            print(f"{variant} sweep {sweep}: {rows[-1]}", file=sys.stderr, flush=True)
    finally:
        threads_module.block_bounds, threads_module.block_scratch = original
    return {"variant": variant, "order": order, "first_threads": first_threads,
            "threads": threads, "one_block": one_block,
            "seed": SEED, "copies": COPIES, "params": PARAMS, "sweeps": rows,
            "dataset_sha256": corpus.sha256,
            "versions": package_versions(), "commit": git_commit()}


def _checksum(z):
    """A number that tells two label vectors apart (sum of label x position, mod 2^61 - 1)."""
    return int(np.sum(z.astype(np.int64) * np.arange(1, z.size + 1)) % (2**61 - 1))


def table(records):
    rows = []
    for record in sorted(records, key=lambda r: list(VARIANTS).index(r["variant"])):
        for row in record["sweeps"]:
            if row["sweep"] in SHOWN or row["sweep"] == len(record["sweeps"]):
                rows.append([record["variant"], row["sweep"], f"{row['log_joint']:.1f}",
                             f"{row['nmi']:.4f}", f"{row['homogeneity']:.4f}",
                             f"{row['completeness']:.4f}", row["clusters"],
                             f"{row['effective']:.1f}", row["moved"]])
    by_variant = {r["variant"]: [row["labels_checksum"] for row in r["sweeps"]] for r in records}
    one, reference = by_variant.get("oneblock", []), by_variant.get("copies-1", [])
    same = bool(one) and one == reference[:len(one)]
    text = ["# GSDMM on GoogleNews-T x16, seed 0: 1 and 2 threads sweep by sweep (issue 31)", "",
            markdown_table(["variant", "sweep", "log p(w, z)", "NMI", "homogeneity",
                            "completeness", "clusters", "effective clusters", "moved"], rows),
            "",
            "K = 500, alpha = beta = 0.1, seed 0, one trace per variant (a diagnosis, not a "
            "test over seeds). copies: documents in `Corpus.repeat`'s order (the 2 blocks "
            "are copies 1-8 and 9-16); shuffled: one fixed random order (permutation seed "
            f"{PERMUTATION_SEED}); -1 / -2: threads. first-2 / first-1: 2 / 1 threads for the "
            "first sweep, then 1 / 2. oneblock: the parallel sweep's code with "
            "one block over every document; its final labels "
            + (f"**equal** copies-1's after each of its {len(one)} sweeps" if same
               else "differ from copies-1's (or were not run)")
            + ". effective clusters: exp(entropy of the cluster sizes). log p(w, z): the "
            "collapsed log joint of the model (see `benchmarks/threads_trace.py`).", "",
            "Generated by `python benchmarks/threads_trace.py` (`--no-fit` rebuilds it from "
            "`trace.json`)."]
    return "\n".join(text) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(VARIANTS))
    parser.add_argument("--sweeps", type=int, default=30)
    parser.add_argument("--no-fit", action="store_true")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    path = Path(args.out) / "trace.json"
    records = json.loads(path.read_text()) if path.exists() else []
    variants = _setup.chosen_names(args.only, VARIANTS, "variant")
    if variants is None:
        return 2
    if not args.no_fit:
        from shortclust.data import load_corpus
        corpus = load_corpus("GoogleNews-T", preprocess="none").repeat(COPIES)
        for variant in variants:
            record = trace(variant, args.sweeps, corpus)
            records = [r for r in records if r["variant"] != variant] + [record]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
    text = table(records)
    (Path(args.out) / "trace.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
