"""How many pairs truly reach the HNSW route's estimated cut-off, on bench_hac_sd_scale's corpus.

The HNSW route of HAC_SD (``shortclust/models/hac/_ann_sd.py``) estimates from 256 sampled
rows a cut-off ``c`` that about 1.5 N pairs reach (N: the pairs Algorithm 2 keeps), then
sends to Ward every listed pair reaching it. At a million texts only 61,909,744 candidates
(0.91 N) reached it. Either the index missed pairs (its recall) or fewer pairs than
estimated reach ``c`` (the estimate). This script counts, exactly, the row pairs whose
score ``max(a_ij, a_ji)`` reaches ``c``, by scoring every pair of *distinct* vectors: the
rows of a group of identical vectors have the same statistics (``mu_i``, ``sigma_i``),
so a pair of groups stands for ``m_g m_h`` row pairs and a group for ``m_g (m_g - 1) / 2``
pairs among its own rows. Same vectors, statistics, cut-off and grouping as the route
(one thread); similarities by float32 BLAS products (the route sums in a float32 loop:
a pair at the cut-off to the last bit may count differently). Prints one JSON object.

    python benchmarks/check_ann_sd_cutoff.py --docs 1000000
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000000)
    parser.add_argument("--data-dir", default=os.environ.get("SHORTCLUST_DATA"))
    parser.add_argument("--block", type=int, default=256, help="groups scored at a time")
    parser.add_argument("--with-route", action="store_true",
                        help="also run the HNSW route on the same vectors and report its "
                             "candidates (pairs it found reaching the cut-off)")
    args = parser.parse_args(argv)

    import numpy as np

    from bench_hac_sd_scale import concatenation
    from shortclust.data import load_corpus
    from shortclust.models.common.tfidf import unit_vectors
    from shortclust.models.hac._ann_sd import _identical_rows
    from shortclust.models.hac._sparse_sd import _estimated_cutoff, _gram_statistics
    from shortclust.models.hac._sparsify import sd_budget
    from shortclust.representations import RepresentationSpec, build_representation

    started = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "concatenation.jsonl"
        n_docs = concatenation(args.data_dir, args.docs, path)
        corpus = load_corpus(str(path), preprocess="basic", cache=False)
    k = len(set(corpus.labels.tolist()))
    vectors, _ = unit_vectors(build_representation(corpus, RepresentationSpec(name="glove",
                                                                              cache=False)))
    del corpus
    v = np.ascontiguousarray(vectors, dtype=np.float32)
    n_keep = sd_budget(n_docs, k)
    mean, std = _gram_statistics(vectors)
    if not args.with_route:
        del vectors
    scale = np.divide(1.0, std, out=np.zeros_like(std), where=std > 0)
    cutoff = _estimated_cutoff(v, mean, scale, n_keep)
    distinct, members, offsets = _identical_rows(v)
    first = members[offsets[:-1]]
    size = np.diff(offsets).astype(np.float64)
    g_mean, g_scale = mean[first], scale[first]
    print(f"{n_docs} texts, K={k}, N={n_keep}, cut-off {cutoff:.6f}, {first.size} groups; "
          f"{time.process_time() - started:.0f} s CPU", file=sys.stderr, flush=True)

    between, within = 0.0, 0.0
    m = first.size
    for start in range(0, m, args.block):
        stop = min(m, start + args.block)
        s = (distinct[start:stop] @ distinct.T).astype(np.float64)
        score = np.maximum((s - g_mean[start:stop, None]) * g_scale[start:stop, None],
                           (s - g_mean[None, :]) * g_scale[None, :])
        reach = score >= cutoff
        rows = np.arange(start, stop)
        own = reach[rows - start, rows]  # the pairs among a group's own rows
        within += float((size[rows] * (size[rows] - 1) / 2)[own].sum())
        reach &= np.arange(m)[None, :] > rows[:, None]  # each pair of groups once
        between += float((size[rows] * (reach @ size)).sum())
    result = {
        "docs": n_docs, "k": k, "n_keep": int(n_keep), "cutoff": float(cutoff),
        "groups": int(m), "largest_group": int(size.max()),
        "pairs_reaching_cutoff": int(round(between + within)),
        "of_them_within_groups": int(round(within)),
        "ratio_to_n_keep": round((between + within) / n_keep, 4),
        "cpu_seconds": round(time.process_time() - started, 1),
        "loadavg": os.getloadavg()[0],
    }
    if args.with_route:
        from shortclust.models.hac._ann_sd import ann_sd_pairs

        stats = {}
        ann_sd_pairs(vectors, k, stats=stats)
        result["route_candidates"] = int(stats["candidates"])
        result["route_recall_of_reaching_pairs"] = round(
            stats["candidates"] / result["pairs_reaching_cutoff"], 5)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
