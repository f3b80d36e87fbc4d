"""Quality and speed of the mixture of EDCM (plain and annealed EM) and of online EDCM.

Usage::

    python benchmarks/bench_edcm.py                       # news-20, K=20, seeds 0 and 1
    python benchmarks/bench_edcm.py --seeds 0 --no-online
    python benchmarks/bench_edcm.py --dataset 20NG-diff3 --k 3
    python benchmarks/bench_edcm.py --no-batch --seeds 0 --window 300   # online only

The dataset is a registered 20 Newsgroups set (default ``20NG-news20``: all 18,846 posts
of 20NG-bydate) with the SDM paper's preprocessing (``preprocess="newsgroups"``: header
block dropped, stop words, tokens of 2..15 letters, document frequency >= 2 and <= 15%).
For each seed it fits plain EM (``anneal_start=1``) and annealed EM (the model's defaults)
to convergence, then, unless ``--no-online``, streams the corpus in ``--batches`` equal
batches through ``partial_fit`` (online EDCM, section 3.2). NMI is scikit-learn's
(arithmetic normalisation) against the newsgroups. ``fit_seconds`` is the whole ``fit``;
``online_ms_per_doc`` the time of the online passes after the first batch (whose EM fit
is reported apart as ``first_batch_seconds``) per document. Compilation is done by an
untimed small fit first. Thread pools are limited to one core. Per-run lines go to
standard error; the last line on standard output is one JSON object.
"""

import argparse
import json
import platform
import statistics
import sys
import time

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.evaluation.metrics import evaluate  # noqa: E402
from shortclust.models.edcm.edcm import EDCM  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="20NG-news20", help="registry name or file path")
    parser.add_argument("--preprocess", default="newsgroups")
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--seeds", default="0,1", help="comma list of seeds")
    parser.add_argument("--smoothing", type=float, default=None, help="default: the model's")
    parser.add_argument("--batches", type=int, default=16, help="stream batches (online)")
    parser.add_argument("--window", type=int, default=None, help="default: the model's")
    parser.add_argument("--update-weight", type=float, default=None,
                        help="default: the model's")
    parser.add_argument("--no-online", action="store_true", help="skip online EDCM")
    parser.add_argument("--no-batch", action="store_true", help="skip plain and annealed EM")
    parser.add_argument("--data-dir", default=None)
    return parser.parse_args(argv)


def model(args, seed, **params):
    for name in ("smoothing", "window", "update_weight"):
        value = getattr(args, name)
        if value is not None:
            params.setdefault(name, value)
    return EDCM(n_clusters=args.k, random_state=seed, **params)


def nmi(truth, labels):
    return round(evaluate(truth, labels, metrics=["nmi"])["nmi"], 4)


def batch_run(counts, truth, args, seed, anneal_start=None):
    params = {} if anneal_start is None else {"anneal_start": anneal_start}
    fitted = model(args, seed, **params)
    started = time.perf_counter()
    fitted.fit(counts)
    seconds = time.perf_counter() - started
    return {"seed": seed, "nmi": nmi(truth, fitted.labels_), "n_iter": int(fitted.n_iter_),
            "fit_seconds": round(seconds, 2), "n_clusters": fitted.n_clusters_,
            "log_likelihood": round(fitted.log_likelihood_, 1)}


def online_run(counts, truth, args, seed):
    stream = model(args, seed)
    bounds = np.linspace(0, counts.shape[0], args.batches + 1).astype(int)
    seconds = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        started = time.perf_counter()
        stream.partial_fit(counts[start:stop])
        seconds.append(time.perf_counter() - started)
    later = counts.shape[0] - bounds[1]
    return {"seed": seed, "nmi": nmi(truth, stream.labels_),
            "nmi_after_first_batch": nmi(truth[bounds[1]:], stream.labels_[bounds[1]:]),
            "first_batch_seconds": round(seconds[0], 2),
            "online_ms_per_doc": round(float(1e3 * sum(seconds[1:]) / max(later, 1)), 4),
            "n_clusters": stream.n_clusters_}


def summary(runs, key):
    values = [run[key] for run in runs]
    return {"mean": round(statistics.mean(values), 4), "values": values}


def main(argv=None):
    args = parse_args(argv)
    corpus = load_corpus(args.dataset, preprocess=args.preprocess, data_dir=args.data_dir)
    counts, truth = corpus.counts.tocsr(), np.asarray(corpus.labels)
    warm = model(args, 0, max_iter=2)
    warm.partial_fit(counts[:60])  # compiles every kernel, untimed
    warm.partial_fit(counts[60:90])
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"{args.dataset}: {counts.shape[0]} docs, {counts.shape[1]} words, "
          f"{counts.nnz} non-zeros, K={args.k}", file=sys.stderr)
    result = {"benchmark": "edcm", "dataset": args.dataset, "preprocess": args.preprocess,
              "docs": counts.shape[0], "words": counts.shape[1], "nnz": int(counts.nnz),
              "k": args.k, "seeds": seeds, "params": model(args, 0).get_params()}
    for name, anneal_start in () if args.no_batch else (("plain_em", 1.0), ("annealed_em", None)):
        runs = []
        for seed in seeds:
            runs.append(batch_run(counts, truth, args, seed, anneal_start))
            print(f"  {name} {runs[-1]}", file=sys.stderr)
        result[name] = {"nmi": summary(runs, "nmi"), "fit_seconds": summary(runs, "fit_seconds"),
                        "runs": runs}
    if not args.no_online:
        runs = []
        for seed in seeds:
            runs.append(online_run(counts, truth, args, seed))
            print(f"  online {runs[-1]}", file=sys.stderr)
        result["online"] = {"batches": args.batches, "nmi": summary(runs, "nmi"),
                            "online_ms_per_doc": summary(runs, "online_ms_per_doc"),
                            "runs": runs}
    result["python"] = platform.python_version()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
