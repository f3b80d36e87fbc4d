"""IC's memory by stage (outliers, SAG fit, predict) on bench_hac_sd_scale's corpus.

Starts iterative classification (defaults, ``tol=None``, seed 0) from the texts' own
prefixed labels (not HAC_SD's: no clustering to wait for) on the first ``--docs`` texts
of the concatenation, and prints for each stage the resident memory before it and its
peak (Linux: the high-water mark is reset before each stage with ``clear_refs``), the
training set's size and how many columns its rows use. ``--float32`` forces the SAG's
float32 store (``FLOAT32_STORE_ABOVE = 0``). The labels are saved to ``--labels`` if given.

    python benchmarks/probe_ic_memory.py --docs 100000
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()


def status():
    values = {}
    with open("/proc/self/status", encoding="ascii") as lines:
        for line in lines:
            if line.startswith(("VmRSS", "VmHWM")):
                values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return values


def staged(name, method):
    """``method`` printing its stage's resident memory before, peak and after."""
    def wrapped(*args, **kwargs):
        before = status()["VmRSS"]
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
        cpu = time.process_time()
        result = method(*args, **kwargs)
        now = status()
        print(f"  {name}: {before:.0f} MiB before, stage peak {now['VmHWM']:.0f} MiB "
              f"(+{now['VmHWM'] - before:.0f}), {now['VmRSS']:.0f} after; "
              f"{time.process_time() - cpu:.1f} s CPU", flush=True)
        return result
    return wrapped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100000)
    parser.add_argument("--iters", type=int, default=1)
    parser.add_argument("--float32", action="store_true")
    parser.add_argument("--labels", default=None, help="save IC's labels to this .npy file")
    parser.add_argument("--data-dir", default=os.environ.get("SHORTCLUST_DATA"))
    args = parser.parse_args(argv)

    import numpy as np

    from bench_hac_sd_scale import concatenation
    from shortclust.data import load_corpus
    from shortclust.models.ic import _logistic, _steps
    from shortclust.models.ic.iterative_classification import IterativeClassification

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "concatenation.jsonl"
        concatenation(args.data_dir, args.docs, path)
        corpus = load_corpus(str(path), preprocess="basic", cache=False)
    _, initial = np.unique(corpus.labels, return_inverse=True)
    k = int(initial.max()) + 1
    if args.float32:
        _logistic.FLOAT32_STORE_ABOVE = 0
    fit = _logistic.MultinomialLogisticSAG.fit

    def described_fit(self, X, y):
        used = np.count_nonzero(np.bincount(X.indices, minlength=X.shape[1]))
        print(f"  training rows {X.shape[0]}, columns {X.shape[1]} ({used} in the rows), "
              f"classes {np.unique(y).size}", flush=True)
        return fit(self, X, y)

    _logistic.MultinomialLogisticSAG.fit = staged("SAG fit", described_fit)
    _logistic.MultinomialLogisticSAG.predict = staged("predict",
                                                      _logistic.MultinomialLogisticSAG.predict)
    _steps._Loop.outliers = staged("outliers", _steps._Loop.outliers)
    print(f"{args.docs} texts, K={k}, {corpus.counts.shape[1]} words; "
          f"{status()['VmRSS']:.0f} MiB", flush=True)
    model = IterativeClassification(n_clusters=k, max_iter=args.iters, tol=None,
                                    random_state=0)
    cpu = time.process_time()
    model.fit(corpus.counts, init_labels=initial)
    print(f"done: store {getattr(model.classifier_, 'gradient_store_', None)}, "
          f"{time.process_time() - cpu:.1f} s CPU, test texts {model.n_test_history_}",
          flush=True)
    if args.labels:
        np.save(args.labels, model.labels_)


if __name__ == "__main__":
    main()
