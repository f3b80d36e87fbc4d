"""HAC_SD's approximate route (HNSW candidate pairs) against the exact route, on n texts.

Issue 31: past ``ann_docs`` texts ``HACSimilarity(sparsify="sd", graph="sparse")`` takes
Algorithm 2's candidate pairs from an HNSW index (``shortclust/models/hac/_ann_sd.py``)
instead of scoring every pair. This script runs both routes on the same vectors, in one
process: the exact reference (``sd_pairs``, every pair scored as the dense path scores it)
and the HNSW route, then Ward on each route's pairs. It prints the recall of the exact
route's kept pairs, each route's CPU time for the pairs, the ACC and NMI of both label
sets against the labels, and the NMI and ARI between the two label sets.

The corpus is ``bench_hac_sd_scale.py``'s (the shared files concatenated, labels prefixed
by their file, K = the distinct labels, averaged GloVe 6B 50-d vectors), cut to its first
``--docs`` texts. One thread per library. The last line on standard output is one JSON
object; ``--output`` appends it to a JSON-lines file.

Usage::

    python benchmarks/bench_hac_sd_ann.py --docs 20000 --output ann.ndjson
"""

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20000)
    parser.add_argument("--data-dir", default=os.environ.get("SHORTCLUST_DATA"))
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)

    import numpy as np
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    from bench_hac_sd_scale import concatenation
    from shortclust.data import load_corpus
    from shortclust.evaluation.metrics import evaluate
    from shortclust.models.hac._ann_sd import ann_sd_pairs
    from shortclust.models.hac._sparse_sd import sd_pairs
    from shortclust.models.hac._sparse_ward import pair_weights, sparse_ward
    from shortclust.models.hac.hac import _cut
    from shortclust.models.common.tfidf import unit_vectors
    from shortclust.representations import RepresentationSpec, build_representation

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "concatenation.jsonl"
        n_docs = concatenation(args.data_dir, args.docs, path)
        corpus = load_corpus(str(path), preprocess="basic", cache=False)
    vectors, _ = unit_vectors(build_representation(corpus, RepresentationSpec(name="glove",
                                                                               cache=False)))
    k = len(set(corpus.labels.tolist()))
    ann_sd_pairs(vectors[:300], 5)  # compile (untimed)
    sd_pairs(vectors[:300], 5)
    result = {"docs": n_docs, "k": k, "representation": "glove (6B 50-d, averaged)"}
    routes = {}
    for name, find in (("exact", lambda: sd_pairs(vectors, k)),
                       ("hnsw", lambda: ann_sd_pairs(vectors, k, stats=result))):
        cpu, wall = time.process_time(), time.perf_counter()
        rows, cols, similarities = find()
        result[f"{name}_pairs_cpu_seconds"] = round(time.process_time() - cpu, 2)
        result[f"{name}_pairs_seconds"] = round(time.perf_counter() - wall, 2)
        result[f"{name}_kept_pairs"] = int(rows.size)
        merges = sparse_ward(n_docs, rows, cols, pair_weights(similarities), k)
        labels = _cut(merges, n_docs, k)
        result.update({f"{name}_{metric}": round(value, 4) for metric, value in
                       evaluate(corpus.labels, labels, ["acc", "nmi"]).items()})
        routes[name] = (set((rows * n_docs + cols).tolist()), labels)
        print(f"{name}: {rows.size} pairs in {result[f'{name}_pairs_cpu_seconds']} s CPU",
              file=sys.stderr, flush=True)
    exact, hnsw = routes["exact"][0], routes["hnsw"][0]
    result["recall_of_exact_pairs"] = round(len(exact & hnsw) / max(1, len(exact)), 5)
    result["nmi_between_routes"] = round(float(normalized_mutual_info_score(
        routes["exact"][1], routes["hnsw"][1])), 4)
    result["ari_between_routes"] = round(float(adjusted_rand_score(
        routes["exact"][1], routes["hnsw"][1])), 4)
    result["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    result["loadavg"] = os.getloadavg()[0]
    result["numpy"] = np.__version__
    if args.output:
        with open(args.output, "a", encoding="utf-8") as out:
            out.write(json.dumps(result) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
