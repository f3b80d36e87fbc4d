"""Speed of LDA's collapsed Gibbs sampling against tomotopy and the `lda` package, on 20NG.

Usage::

    python benchmarks/bench_lda.py                      # K = 20, 50 sweeps, median of 3
    python benchmarks/bench_lda.py --iters 100 --repeats 5 --peers tomotopy
    python benchmarks/bench_lda.py --repeats 0 --nmi-seeds 0,1 --nmi-iters 1000
    python benchmarks/bench_lda.py --repeats 0 --stream-seeds 0,1 --nmi-iters 1000
    NUMBA_NUM_THREADS=2 python benchmarks/bench_lda.py --threads 1,2 --peers tomotopy

With ``--threads 1,2`` ours runs with ``threads=1`` (the exact sequential sweep) and
``threads=2`` (AD-LDA over 2 blocks), and tomotopy with ``workers=1`` and ``workers=2``, in
the same repeats (engines ``ours_t1``, ``ours_t2``, ``tomotopy_w1``, ``tomotopy_w2``); our
threads need ``NUMBA_NUM_THREADS`` at least that high (the default set-up is one thread).

Every engine samples the same tokens: by default ``20NG-news20``, the SDM 2007 paper's
news-20 (all 18,846 posts of 20NG-bydate) through the registry's ``newsgroups`` pipeline
(headers dropped, lowercase, Latin letters, stop words, tokens of 2 to 15 letters, words
in at least 2 documents and at most 15% of them); ``--dataset`` and ``--preprocess``
choose others. Same K, alpha = 50 / K, beta = 0.1, one core each.

Each repeat fits every engine afresh, one after the other (ours, tomotopy, lda, ours,
...), so a background load slows them alike and the ratios stay fair; the figure is
tokens x sweeps per second, the median over repeats, by wall-clock time and by the CPU
time of the process (which a loaded machine's time-slicing does not inflate). What is
timed:

* ours: the sweeps, uniform draws included (wall: ``sample_seconds_``, the random initial
  topics and count tables excluded; CPU: the whole ``fit``, those included); the kernels
  are compiled by a warm-up fit first;
* tomotopy ``LDAModel``: ``train(iters, workers=1)`` after ``train(0)`` has initialised
  the topics, hyperparameter optimisation off (``optim_interval = 0``);
* ``lda.LDA``: the whole ``fit`` (it has no separate initialisation; a log likelihood is
  computed at the first and last sweep only), so it carries one initialisation pass.

With ``--nmi-seeds`` it also fits our LDA for ``--nmi-iters`` sweeps per seed and prints
the NMI of the argmax-topic clusters against the newsgroups; with ``--stream-seeds`` it
runs the incremental LDA over random orders of the corpus (``stream_fits``). The last
line printed is one JSON object.
"""

import argparse
import json
import logging
import os
import platform
import statistics
import sys
import time

# One core, as the figures are stated; set before numpy/numba load.
import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.models.lda.lda import LDA  # noqa: E402

PEERS = ("tomotopy", "lda")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=20, help="topics")
    parser.add_argument("--iters", type=int, default=50, help="Gibbs sweeps per timed fit")
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=3, help="timed fits per engine")
    parser.add_argument("--peers", default="tomotopy,lda",
                        help="comma list of tomotopy, lda; or none")
    parser.add_argument("--dataset", default="20NG-news20", help="registry name or file path")
    parser.add_argument("--preprocess", default="auto", help="pipeline (auto: the registry's)")
    parser.add_argument("--nmi-seeds", default="", help="comma list of seeds for NMI fits")
    parser.add_argument("--nmi-iters", type=int, default=1000)
    parser.add_argument("--stream-seeds", default="",
                        help="comma list of seeds for incremental-LDA streams (random orders)")
    parser.add_argument("--stream-window", type=float, default=0.1,
                        help="fraction of the stream fitted in batch first")
    parser.add_argument("--stream-batches", type=int, default=16,
                        help="partial_fit calls over the rest of the stream")
    parser.add_argument("--partial-iter", type=int, default=10,
                        help="sweeps over each streamed document")
    parser.add_argument("--threads", default="1",
                        help="comma list: our threads and tomotopy's workers (e.g. 1,2)")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    args.peers = [] if args.peers == "none" else args.peers.split(",")
    unknown = [p for p in args.peers if p not in PEERS]
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}: choose from {', '.join(PEERS)}")
    return args


def clocks():
    """(wall, CPU) seconds now: CPU time of this process, every thread of it."""
    return time.perf_counter(), time.process_time()


def elapsed(since):
    now = clocks()
    return now[0] - since[0], now[1] - since[1]


def time_ours(counts, args, seed, threads=1):
    """Wall seconds of the sweeps; CPU seconds of the whole fit (initialisation included)."""
    model = LDA(n_clusters=args.k, beta=args.beta, max_iter=args.iters, threads=threads,
                random_state=seed)
    started = clocks()
    model.fit(counts)
    return model.sample_seconds_, elapsed(started)[1]


def tomotopy_model(counts, vocabulary, args, seed):
    """A tomotopy LDAModel holding the corpus, topics initialised (``train(0)``)."""
    import tomotopy

    model = tomotopy.LDAModel(k=args.k, alpha=50.0 / args.k, eta=args.beta, seed=seed)
    model.optim_interval = 0  # plain Gibbs sampling, as ours and lda's
    for d in range(counts.shape[0]):
        row = slice(counts.indptr[d], counts.indptr[d + 1])
        model.add_doc(np.repeat(np.asarray(vocabulary, dtype=object)[counts.indices[row]],
                                counts.data[row]).tolist())
    model.train(0, workers=1)
    return model


def time_tomotopy(counts, vocabulary, args, seed, workers=1):
    model = tomotopy_model(counts, vocabulary, args, seed)
    started = clocks()
    model.train(args.iters, workers=workers)
    return elapsed(started), int(model.num_words)


def time_lda(counts, args, seed):
    import lda

    logging.getLogger("lda").setLevel(logging.WARNING)
    model = lda.LDA(n_topics=args.k, n_iter=args.iters, alpha=50.0 / args.k, eta=args.beta,
                    random_state=seed, refresh=args.iters)
    started = clocks()
    model.fit(counts)
    return elapsed(started)


def speed(counts, vocabulary, args):
    """Tokens x sweeps per second of each engine, by wall and by CPU time, interleaved."""
    n_tokens = int(counts.sum())
    threads = [int(t) for t in str(args.threads).split(",")]
    ours = {("ours" if threads == [1] else f"ours_t{t}"): t for t in threads}
    tomotopy = {("tomotopy" if threads == [1] else f"tomotopy_w{t}"): t for t in threads}
    peers = [name for p in args.peers
             for name in (list(tomotopy) if p == "tomotopy" else [p])]
    seconds = {name: [] for name in [*ours, *peers]}  # (wall, cpu) per repeat
    tokens = {name: n_tokens for name in seconds}
    for seed in range(args.repeats):
        for name, t in ours.items():
            seconds[name].append(time_ours(counts, args, seed, t))
        for name, t in (tomotopy.items() if "tomotopy" in args.peers else ()):
            took, tokens[name] = time_tomotopy(counts, vocabulary, args, seed, t)
            seconds[name].append(took)
        if "lda" in args.peers:
            seconds["lda"].append(time_lda(counts, args, seed))
        print(f"repeat {seed} (M tokens x sweeps / s, wall / CPU): " + ", ".join(
            f"{name} {tokens[name] * args.iters / s[-1][0] / 1e6:.2f} / "
            f"{tokens[name] * args.iters / s[-1][1] / 1e6:.2f}" for name, s in seconds.items())
            + f"; load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    result = {"tokens": tokens}
    for clock, index in (("wall", 0), ("cpu", 1)):
        rates = {name: [tokens[name] * args.iters / s[index] / 1e6 for s in values]
                 for name, values in seconds.items()}
        medians = {name: statistics.median(values) for name, values in rates.items()}
        result[clock] = {
            "mtokens_x_sweeps_per_s": {n: round(m, 2) for n, m in medians.items()},
            "all_repeats": {n: [round(r, 2) for r in values] for n, values in rates.items()},
            "ours_over": {(n if len(ours) == 1 else f"{o}/{n}"): round(medians[o] / medians[n], 2)
                          for o in ours for n in peers},
        }
    return result


def nmi_fits(counts, labels, args):
    from sklearn.metrics import normalized_mutual_info_score

    results = []
    for seed in [int(s) for s in args.nmi_seeds.split(",")]:
        model = LDA(n_clusters=args.k, beta=args.beta, max_iter=args.nmi_iters,
                    random_state=seed).fit(counts)
        nmi = normalized_mutual_info_score(labels, model.labels_)
        results.append({"seed": seed, "nmi": round(nmi, 4), "clusters": model.n_clusters_,
                        "sample_seconds": round(model.sample_seconds_, 1)})
        print(f"NMI seed {seed}: {nmi:.4f} ({model.n_clusters_} clusters, "
              f"{model.sample_seconds_:.0f} s of sampling)", file=sys.stderr)
        print("  " + "\n  ".join(" ".join(w for w, _ in words)
                                 for words in model.top_words(8, VOCABULARY)), file=sys.stderr)
    return results


def stream_fits(counts, labels, args):
    """Incremental LDA (section 3.3) over random orders of the corpus: batch LDA on the
    first ``--stream-window`` of the stream (``--nmi-iters`` sweeps), then the rest in
    ``--stream-batches`` calls of ``partial_fit``. NMI of the streamed documents and of all."""
    from sklearn.metrics import normalized_mutual_info_score

    results = []
    for seed in [int(s) for s in args.stream_seeds.split(",")]:
        order = np.random.default_rng(seed).permutation(counts.shape[0])
        stream, truth = counts[order], labels[order]
        window = max(1, round(args.stream_window * counts.shape[0]))
        model = LDA(n_clusters=args.k, beta=args.beta, max_iter=args.nmi_iters,
                    partial_iter=args.partial_iter, random_state=seed)
        model.partial_fit(stream[:window])
        started = time.process_time()
        for rows in np.array_split(np.arange(window, counts.shape[0]), args.stream_batches):
            model.partial_fit(stream[rows])
        per_doc = (time.process_time() - started) / (counts.shape[0] - window)
        streamed = normalized_mutual_info_score(truth[window:], model.labels_[window:])
        overall = normalized_mutual_info_score(truth, model.labels_)
        results.append({"seed": seed, "window": window, "nmi_streamed": round(streamed, 4),
                        "nmi_all": round(overall, 4), "cpu_ms_per_doc": round(1e3 * per_doc, 3)})
        print(f"stream seed {seed}: window {window} documents, NMI of the streamed "
              f"documents {streamed:.4f}, of all {overall:.4f}, {1e3 * per_doc:.2f} ms CPU "
              "per streamed document", file=sys.stderr)
    return results


VOCABULARY = None


def main(argv=None):
    global VOCABULARY
    args = parse_args(argv)
    started = time.perf_counter()
    corpus = load_corpus(args.dataset, preprocess=args.preprocess, data_dir=args.data_dir)
    counts, VOCABULARY, labels = corpus.counts, corpus.vocabulary, corpus.labels
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    print(f"{corpus.name} ({corpus.preprocess}): {counts.shape[0]} documents "
          f"({int(np.sum(lengths == 0))} empty), {counts.shape[1]} words, {int(lengths.sum())} "
          f"tokens; loaded in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    LDA(n_clusters=args.k, max_iter=2, partial_iter=1, random_state=0).fit(
        counts[:200]).partial_fit(counts[200:300])  # compile (or load) every kernel
    result = {"benchmark": "lda_gibbs_sampling", "dataset": corpus.name, "k": args.k,
              "iters": args.iters, "repeats": args.repeats,
              "docs": int(counts.shape[0]), "words": int(counts.shape[1]),
              "preprocessing": corpus.preprocess, "load_before": round(os.getloadavg()[0], 2)}
    if args.repeats:
        result.update(speed(counts, VOCABULARY, args))
    if args.nmi_seeds:
        result["nmi"] = nmi_fits(counts, labels, args)
    if args.stream_seeds:
        result["stream"] = stream_fits(counts, labels, args)
    result["load_after"] = round(os.getloadavg()[0], 2)
    result["machine"] = platform.processor() or platform.machine()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
