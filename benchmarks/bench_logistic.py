"""IC's classifier: compiled multinomial SAG against scikit-learn's SAG, in one process.

Usage::

    python benchmarks/bench_logistic.py                              # GoogleNews-T, K = 152
    python benchmarks/bench_logistic.py --dataset GoogleNews-TS --repeats 5

The problem is one step 8 of iterative classification: multinomial logistic regression
(C = 1, L2) on the TF-IDF rows of a random 75% of the corpus, labelled by a k-means
clustering (true K), then predicting the other 25%. Both solvers fit it cold from zero
weights to their stopping rule (``tol`` = 1e-4, at most 300 epochs), alternately, after an
untimed warm-up fit that compiles the numba kernel. A third fit, scikit-learn's SAG to
``tol`` = 1e-8, is the reference: the JSON line gives each solver's median seconds, the
ratio, epochs, objective (Eq. of ``_logistic_kernels``) minus the reference's, and the
share of held-out predictions equal to the reference's. One core (thread pools limited).
"""

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
import warnings

import _setup  # noqa: E402  (beside this file: the thread set-up every benchmark shares)

_setup.one_thread()

import numpy as np  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from shortclust.data import load_corpus  # noqa: E402
from shortclust.models.ic._logistic import MultinomialLogisticSAG  # noqa: E402
from shortclust.models.common.tfidf import tfidf  # noqa: E402
from shortclust.models.kmeans.kmeans import KMeans  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="GoogleNews-T", help="registry name or file path")
    parser.add_argument("--k", type=int, default=None, help="classes (default: true classes)")
    parser.add_argument("--repeats", type=int, default=3, help="timed fits of each solver")
    return parser.parse_args(argv)


def objective(model, X, y, C=1.0):
    """Mean log loss plus the L2 term ``||W||^2 / (2 C n)``: what both solvers minimise."""
    scores = np.asarray(X @ model.coef_.T) + model.intercept_
    scores -= scores.max(axis=1, keepdims=True)
    log_p = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
    codes = np.searchsorted(model.classes_, y)
    n = X.shape[0]
    return float(-log_p[np.arange(n), codes].mean() + (model.coef_ ** 2).sum() / (2 * C * n))


def main(argv=None):
    args = parse_args(argv)
    corpus = load_corpus(args.dataset)
    k = args.k or len(set(corpus.labels))
    X = tfidf(corpus.counts)[1]
    y = KMeans(n_clusters=k, random_state=0, n_init=1).fit(corpus).labels_
    train = np.random.default_rng(0).random(X.shape[0]) < 0.75
    X_train, y_train, X_test = X[train], y[train], X[~train]
    MultinomialLogisticSAG(max_iter=2).fit(X_train[:50], y_train[:50] % 3)  # compile

    solvers = {
        "compiled": lambda: MultinomialLogisticSAG(C=1.0, max_iter=300, random_state=0),
        "sklearn": lambda: LogisticRegression(C=1.0, solver="sag", max_iter=300,
                                              random_state=0),
    }
    seconds = {name: [] for name in solvers}
    fitted = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for repeat in range(args.repeats):
            for name, make in solvers.items():
                model = make()
                started = time.perf_counter()
                model.fit(X_train, y_train)
                seconds[name].append(time.perf_counter() - started)
                fitted[name] = model
                print(f"repeat {repeat}: {name} {seconds[name][-1]:.3f} s", file=sys.stderr)
        reference = LogisticRegression(C=1.0, solver="sag", tol=1e-8, max_iter=5000,
                                       random_state=0).fit(X_train, y_train)
    best = objective(reference, X_train, y_train)
    truth = reference.predict(X_test)
    result = {"benchmark": "logistic", "dataset": args.dataset, "k": k,
              "train_docs": int(train.sum()), "features": X.shape[1], "repeats": args.repeats}
    for name, model in fitted.items():
        result[f"{name}_seconds"] = round(statistics.median(seconds[name]), 3)
        result[f"{name}_epochs"] = int(model.n_iter_[0])
        result[f"{name}_objective_gap"] = objective(model, X_train, y_train) - best
        result[f"{name}_agreement"] = float(np.mean(model.predict(X_test) == truth))
    result["speedup"] = round(result["sklearn_seconds"] / result["compiled_seconds"], 2)
    result["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["load_average"] = round(os.getloadavg()[0], 2)
    result["python"] = platform.python_version()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
