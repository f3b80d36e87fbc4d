"""Speed of movMF's EM against scikit-learn's KMeans, and of online vMF per document.

Usage::

    python benchmarks/bench_movmf.py                       # 20NG-bydate, K = 20, 3 repeats
    python benchmarks/bench_movmf.py --body-only           # headers dropped before preprocessing

The issue's targets (issue 14): movMF EM on news-20 within 3x of scikit-learn's KMeans time
on the same TF-IDF matrix; online vMF faster per document than the paper's Table 4 (o-vMF
0.011 s per document on news-20) by at least 100x.

The corpus is preprocessed with the project's pipeline (``--preprocess auto``: the registry's
choice, ``gsdmm`` for 20NG-bydate: lowercase, Latin words, stop words, lemmas, document
frequency >= 2; the text is the whole post, headers included, unless ``--body-only`` keeps
what follows the first blank line). The matrix is the ``tfidf`` representation
(:meth:`Corpus.tfidf`: smoothed idf, L2-normalised rows), the same for both models.

* ``movmf`` / ``kmeans``: ``MovMF(n_clusters=K, random_state=seed).fit(X)`` (soft EM, one
  spherical k-means++ seeding, to its own convergence) against
  ``sklearn.cluster.KMeans(n_clusters=K, n_init=1, random_state=seed).fit(X)`` (Lloyd,
  k-means++), seeds 0..R-1 alternating, median seconds and the ratio of medians; NMI of each.
* ``online``: ``MovMF.partial_fit`` over the documents in a random order (seeded), in
  batches of ``--batch-size``; seconds per document (every call's whole cost), median
  over repeats, and the NMI of the labels each document got on arrival.
* ``single``: ``--single-docs`` one-document calls after a first batch, per document: the
  cost of a truly online use, Python overhead included.
* ``hybrid``: the same stream with one OFFLINE EM iteration at every 20% (h-vMF).

Thread pools are limited to one core; the compiled online kernel is loaded before any
timing. The last line printed is one JSON object, for scripts.
"""

import argparse
import gzip
import json
import platform
import statistics
import sys
import time

# One core for both models, as the comparison is stated; set before numpy loads.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.evaluation.metrics import evaluate  # noqa: E402
from shortclust.models.vmf.movmf import MovMF  # noqa: E402

PAPER_OVMF_SECONDS_PER_DOC = 0.011  # Table 4, news-20


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="20NG-bydate", help="registry name or file path")
    parser.add_argument("--preprocess", default="auto")
    parser.add_argument("--body-only", action="store_true",
                        help="drop each post's header block (up to the first blank line)")
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--single-docs", type=int, default=2000)
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def corpus_of(args):
    """The preprocessed corpus; with ``--body-only``, built from the posts' bodies."""
    if not args.body_only:
        return load_corpus(args.dataset, preprocess=args.preprocess, data_dir=args.data_dir)
    from shortclust.data.corpus import Corpus
    from shortclust.data.registry import find_dataset_file, get_info, resolve_data_dir

    info = get_info(args.dataset)
    path = find_dataset_file(info, resolve_data_dir(args.data_dir))
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        documents = [json.loads(line) for line in lines]
    bodies = [d["text"].split("\n\n", 1)[-1] for d in documents]
    pipeline = info.default_preprocess if args.preprocess == "auto" else args.preprocess
    return Corpus.from_texts(bodies, [d["label"] for d in documents], pipeline=pipeline,
                             name=f"{info.name} (bodies)")


def nmi(truth, labels):
    return round(evaluate(truth, labels, metrics=["nmi"])["nmi"], 4)


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def batch_fits(X, truth, args):
    """Alternating movMF and KMeans fits, seeds 0..R-1."""
    from sklearn.cluster import KMeans

    runs = {"movmf": [], "kmeans": []}
    for seed in range(args.repeats):
        model, seconds = timed(lambda: MovMF(n_clusters=args.k, random_state=seed).fit(X))
        runs["movmf"].append({"seconds": seconds, "n_iter": int(model.n_iter_),
                              "nmi": nmi(truth, model.labels_)})
        print(f"movmf  seed {seed}: {seconds:.2f} s, {model.n_iter_} iterations, "
              f"NMI {runs['movmf'][-1]['nmi']}", file=sys.stderr, flush=True)
        model, seconds = timed(lambda: KMeans(n_clusters=args.k, n_init=1,
                                              random_state=seed).fit(X))
        runs["kmeans"].append({"seconds": seconds, "n_iter": int(model.n_iter_),
                               "nmi": nmi(truth, model.labels_)})
        print(f"kmeans seed {seed}: {seconds:.2f} s, {model.n_iter_} iterations, "
              f"NMI {runs['kmeans'][-1]['nmi']}", file=sys.stderr, flush=True)
    return runs


def stream(X, truth, args, seed, **params):
    """o-vMF (or h-vMF) over a seeded random order in batches: (seconds per doc, NMI)."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    rows, y = X[order], truth[order]
    batches = [rows[s:s + args.batch_size] for s in range(0, rows.shape[0], args.batch_size)]
    model = MovMF(n_clusters=args.k, random_state=seed, **params)
    started = time.perf_counter()
    for batch in batches:
        model.partial_fit(batch)
    seconds = time.perf_counter() - started
    return seconds / rows.shape[0], nmi(y, model.labels_)


def single_documents(X, args, seed):
    """Seconds per one-document ``partial_fit`` call, after a first batch."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    first, rest = order[:args.batch_size], order[args.batch_size:][:args.single_docs]
    model = MovMF(n_clusters=args.k, random_state=seed).partial_fit(X[first])
    documents = [X[[i]] for i in rest]
    started = time.perf_counter()
    for document in documents:
        model.partial_fit(document)
    return (time.perf_counter() - started) / len(documents)


def main(argv=None):
    args = parse_args(argv)
    corpus = corpus_of(args)
    X, truth = corpus.tfidf(), corpus.labels
    print(f"{corpus.name}: {X.shape[0]} documents, {X.shape[1]} words, {X.nnz} non-zeros "
          f"(preprocess {corpus.preprocess}{', bodies only' if args.body_only else ''})",
          file=sys.stderr, flush=True)
    MovMF(n_clusters=3, random_state=0).partial_fit(X[:64]).partial_fit(X[64:128])  # compile
    runs = batch_fits(X, truth, args)
    online = [stream(X, truth, args, seed) for seed in range(args.repeats)]
    hybrid = [stream(X, truth, args, seed, offline_every=0.2, stream_length=X.shape[0])
              for seed in range(args.repeats)]
    single = [single_documents(X, args, seed) for seed in range(args.repeats)]
    median = {name: statistics.median(r["seconds"] for r in fits) for name, fits in runs.items()}
    online_per_doc = statistics.median(seconds for seconds, _ in online)
    single_per_doc = statistics.median(single)
    result = {
        "dataset": corpus.name, "body_only": args.body_only, "preprocess": corpus.preprocess,
        "docs": X.shape[0], "words": X.shape[1], "nnz": int(X.nnz), "k": args.k,
        "repeats": args.repeats, "batch_size": args.batch_size,
        "movmf_seconds": round(median["movmf"], 3), "kmeans_seconds": round(median["kmeans"], 3),
        "movmf_over_kmeans": round(median["movmf"] / median["kmeans"], 3),
        "movmf_iters": [r["n_iter"] for r in runs["movmf"]],
        "kmeans_iters": [r["n_iter"] for r in runs["kmeans"]],
        "movmf_nmi": [r["nmi"] for r in runs["movmf"]],
        "kmeans_nmi": [r["nmi"] for r in runs["kmeans"]],
        "online_seconds_per_doc": online_per_doc,
        "online_speedup_vs_paper": round(PAPER_OVMF_SECONDS_PER_DOC / online_per_doc, 1),
        "online_nmi": [n for _, n in online],
        "single_doc_seconds": single_per_doc,
        "single_doc_speedup_vs_paper": round(PAPER_OVMF_SECONDS_PER_DOC / single_per_doc, 1),
        "hybrid_seconds_per_doc": statistics.median(seconds for seconds, _ in hybrid),
        "hybrid_nmi": [n for _, n in hybrid],
        "python": platform.python_version(), "machine": platform.machine(),
    }
    print(f"movMF EM {median['movmf']:.2f} s vs KMeans {median['kmeans']:.2f} s "
          f"(ratio {result['movmf_over_kmeans']}); o-vMF {online_per_doc * 1e6:.1f} us/doc "
          f"in batches of {args.batch_size} ({result['online_speedup_vs_paper']}x the paper's "
          f"0.011 s), {single_per_doc * 1e6:.1f} us/doc one at a time "
          f"({result['single_doc_speedup_vs_paper']}x)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
