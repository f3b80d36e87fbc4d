"""HAC_SD (and HAC_SD_IC) on n texts, from 10,000 to the largest that fits: time and peak memory.

The corpus is the concatenation of every shared dataset file (``$SHORTCLUST_DATA``: the
``.jsonl`` files in name order, then 20NG-bydate and CrisisLexT26; 208,060 texts, some of
them in several files), cut to its first ``--docs`` texts, each label prefixed with its
file's name; K is the number of distinct prefixed labels among them (the IC paper's K is
the true number of classes). Texts are preprocessed with the ``basic`` pipeline and
represented by averaged GloVe 6B 50-d word vectors (``representation: glove``, as the IC
reproduction's initial clusterings).

HAC_SD runs the sparse path (``HACSimilarity(sparsify="sd", graph="sparse")``): Algorithm 2
from the vectors in two blocked passes (past ``--ann-docs`` texts, 100,000 by default, the
candidate pairs come from an HNSW index instead: ``_ann_sd``), then Ward on the kept pairs
only. Past the files' 208,060 texts they repeat, each repeat's labels apart. With ``--dense``
the dense reference path runs instead (it needs ~8.5 n^2 bytes; refused past max_docs).
With ``--ic-iters I`` iterative classification then runs I iterations (``tol=None``) on the
TF-IDF of the counts, started from the HAC_SD labels: HAC_SD_IC.

One thread per library (``_setup``). Each phase is timed (wall and CPU seconds; the load
average is printed, the machine being shared); ``peak_rss_mib`` is the process's peak
resident memory (``ru_maxrss``), data loading included; IC's own peak is measured by resetting
the high-water mark before it (Linux ``clear_refs``), which also lowers ``ru_maxrss`` and
``/usr/bin/time``'s maximum to IC's peak, so the record's ``peak_rss_mib`` is the larger
of the two phases'. A fit on 300 texts compiles the
kernels first (untimed). The last line on standard output is one JSON object.
"""

import argparse
import gzip
import itertools
import json
import os
import platform
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

from shortclust.pipeline.resources import reset_peak, status_kib

LAST_FILES = ("20NG-bydate.jsonl.gz", "CrisisLexT26.jsonl.gz")


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def corpus_vectors(data_dir, n_docs):
    """The first ``n_docs`` texts of the concatenation: (their count, corpus, vectors, K).

    ``basic`` preprocessing, averaged GloVe 6B 50-d vectors, K the prefixed labels' number.
    """
    from shortclust.data import load_corpus
    from shortclust.representations import RepresentationSpec, build_representation

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "concatenation.jsonl"
        n_docs = concatenation(data_dir, n_docs, path)
        corpus = load_corpus(str(path), preprocess="basic", cache=False)
    vectors = build_representation(corpus, RepresentationSpec(name="glove", cache=False))
    return n_docs, corpus, vectors, len(set(corpus.labels.tolist()))


def concatenation(data_dir, n_docs, path):
    """Write the first ``n_docs`` texts of the concatenated files to ``path``; their count.

    Past the files' 208,060 texts they are repeated, each repeat's labels prefixed by its
    number (``1:``, ``2:``, ...), so K grows with n as it does up to 208,060.
    """
    files = sorted(p for p in Path(data_dir).glob("*.jsonl"))
    files += [Path(data_dir) / name for name in LAST_FILES]
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for copy in itertools.count():
            before = written
            for file in files:
                opener = gzip.open if file.suffix == ".gz" else open
                with opener(file, "rt", encoding="utf-8") as lines:
                    for line in lines:
                        if written == n_docs:
                            return written
                        record = json.loads(line)
                        prefix = f"{copy}:" if copy else ""
                        out.write(json.dumps({"text": record["text"],
                                              "label": f"{prefix}{file.name.split('.')[0]}/"
                                                       f"{record['label']}"}) + "\n")
                        written += 1
            if written == before:
                return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200000)
    parser.add_argument("--dense", action="store_true", help="the dense reference path")
    parser.add_argument("--ann-docs", default="100000",
                        help="HACSimilarity's ann_docs: past this many texts the pairs come "
                             "from an HNSW index; 'none' to score every pair (default: 100000)")
    parser.add_argument("--ic-iters", type=int, default=0, help="IC iterations after HAC_SD")
    parser.add_argument("--data-dir", default=os.environ.get("SHORTCLUST_DATA"))
    parser.add_argument("--output", default=None,
                        help="append the record to this JSON-lines file after each phase "
                             "(HAC_SD, then IC), so an interrupted run keeps what it finished")
    parser.add_argument("--save-labels", default=None,
                        help="save HAC_SD's labels to this .npy file (to rerun IC alone)")
    args = parser.parse_args(argv)

    import numpy as np

    from shortclust.evaluation.metrics import evaluate
    from shortclust.models.hac.hac_similarity import HACSimilarity
    from shortclust.models.ic.iterative_classification import IterativeClassification

    graph = "dense" if args.dense else "sparse"
    ann_docs = None if args.ann_docs.lower() == "none" else int(args.ann_docs)
    started = time.perf_counter()
    n_docs, corpus, vectors, k = corpus_vectors(args.data_dir, args.docs)
    load_seconds = time.perf_counter() - started
    HACSimilarity(n_clusters=5, sparsify="sd", graph=graph).fit(vectors[:300])
    if ann_docs is not None and not args.dense:  # compile the HNSW route's kernel too
        HACSimilarity(n_clusters=5, sparsify="sd", graph=graph, ann_docs=100).fit(vectors[:300])
    before = peak_rss_mib()
    print(f"{n_docs} texts, K={k}, loaded in {load_seconds:.0f} s, peak {before:.0f} MiB; "
          f"HAC_SD ({graph})...",
          file=sys.stderr, flush=True)
    model = HACSimilarity(n_clusters=k, sparsify="sd", graph=graph, ann_docs=ann_docs)
    phase = {"name": "hac_sd"}
    watch(model, phase)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(vectors)
    result = {
        "docs": n_docs, "k": k, "graph": graph, "representation": "glove (6B 50-d, averaged)",
        "hac_sd_seconds": round(time.perf_counter() - wall, 1),
        "hac_sd_cpu_seconds": round(time.process_time() - cpu, 1),
        "n_retained_pairs": int(model.n_retained_), "ann_docs": ann_docs,
        "pair_route": model.pair_route_, "ann_stats": getattr(model, "ann_stats_", None),
        "hac_sd_peak_rss_mib": round(peak_rss_mib()),
        "peak_rss_before_fit_mib": round(before), "load_seconds": round(load_seconds, 1),
        "loadavg_after_hac_sd": os.getloadavg()[0],
    }
    result.update({f"hac_sd_{name}": round(value, 4) for name, value in
                   evaluate(corpus.labels, model.labels_, ["acc", "nmi"]).items()})
    archive(args.output, result, "hac_sd")
    if args.save_labels:
        np.save(args.save_labels, model.labels_)
    if args.ic_iters:
        print(f"HAC_SD done in {result['hac_sd_seconds']} s; IC, {args.ic_iters} iterations",
              file=sys.stderr, flush=True)
        phase["name"] = "ic"
        ic = IterativeClassification(n_clusters=k, max_iter=args.ic_iters, tol=None,
                                     random_state=0)
        ic_start_rss = current_rss_mib()
        high_water_reset = reset_peak()
        wall, cpu = time.perf_counter(), time.process_time()
        ic.fit(corpus.counts, init_labels=model.labels_)
        result.update({
            "ic_iters": args.ic_iters, "ic_seconds": round(time.perf_counter() - wall, 1),
            "ic_cpu_seconds": round(time.process_time() - cpu, 1),
            "ic_rss_before_mib": round(ic_start_rss),
            # IC's own peak (the high-water mark reset before it), when Linux allows it.
            "ic_peak_rss_mib": round(status_kib("VmHWM") / 1024) if high_water_reset else None,
            "ic_test_texts": ic.n_test_history_, "ic_vocabulary": int(ic.n_features_in_),
            "ic_gradient_store": getattr(ic.classifier_, "gradient_store_", None),
        })
        result.update({f"hac_sd_ic_{name}": round(value, 4) for name, value in
                       evaluate(corpus.labels, ic.labels_, ["acc", "nmi"]).items()})
    # The reset before IC lowers ru_maxrss (and /usr/bin/time's maximum) to IC's own
    # peak: the whole run's peak is the larger of the two phases'.
    result["peak_rss_mib"] = max(round(peak_rss_mib()), result["hac_sd_peak_rss_mib"])
    result["loadavg_end"] = os.getloadavg()[0]
    result["versions"] = {"python": platform.python_version(), "numpy": np.__version__}
    archive(args.output, result, "done")
    print(json.dumps(result))


def watch(model, phase, every=60.0):
    """Print, every ``every`` s, the wall and CPU time, memory and the fit's stage (a thread).

    So a run stopped before the end still says where it was. The stage is what the HNSW
    route writes into the model's ``ann_stats_``; a compiled kernel holding the interpreter
    delays a line, it never changes one.
    """
    started, cpu = time.perf_counter(), time.process_time()

    def report():
        while True:
            time.sleep(every)
            stats = dict(getattr(model, "ann_stats_", None) or {})
            print(f"[watch] {time.strftime('%H:%M:%S')} fit {time.perf_counter() - started:.0f} s"
                  f" wall, {time.process_time() - cpu:.0f} s CPU; RSS {current_rss_mib():.0f}"
                  f" MiB, peak {peak_rss_mib():.0f} MiB; {phase['name']}: {json.dumps(stats)}",
                  file=sys.stderr, flush=True)

    threading.Thread(target=report, daemon=True).start()


def current_rss_mib():
    kib = status_kib("VmRSS")
    return float("nan") if kib is None else kib / 1024.0


def archive(path, result, phase):
    """Append ``result`` (with the phase reached) to the JSON-lines file ``path``, if any."""
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({**result, "phase": phase}) + "\n")


if __name__ == "__main__":
    main()
