"""Why HAC_SD on GloVe stays below the paper on SearchSnippet-test: each suspect measured.

HAC_SD is deterministic, so every suspect is one fit: the linkage implementation (the
paper's fastcluster against scipy), what Ward's linkage is given (distances ``1 - m``, the
rows of the sparsified matrix as points, Euclidean distances between unit vectors), the
sparsification count (Algorithm 2's ``l = n / K - 1`` computed with another K), the
dimension of the vectors (the paper's GloVe is 300-d; ours 50-d, reduced further by PCA to
see the trend) and which 2280 texts form the subset (random class-stratified subsets of
SearchSnippet). The measurements are archived in ``results/ic/records/hac_sd_gap.json`` and
the item's table is rebuilt from that file (``--no-fit`` measures nothing).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from shortclust.evaluation.metrics import evaluate
from shortclust.pipeline.records import atomic_write_text
from shortclust.pipeline.reproduce import markdown_table
from shortclust.papers.ic.reported import PAPER

ARCHIVE = "hac_sd_gap.json"
DATASET, FULL, K = "SearchSnippets-test", "SearchSnippets", 8
#: Random class-stratified subsets of SearchSnippet drawn (seeds 0..N-1).
N_SUBSETS = 10


def unit_rows(X: np.ndarray) -> np.ndarray:
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def sparsified(X: np.ndarray, k_for_count: int) -> np.ndarray:
    """Algorithm 2's matrix (dense) on the cosine similarities of ``X``."""
    from shortclust.models.hac._sparsify import sd_sparsify

    X = unit_rows(X)
    return sd_sparsify(X @ X.T, k_for_count).toarray()


def cut(merges, n: int) -> np.ndarray:
    from shortclust.models.hac.hac import _cut

    return _cut(merges, n, K)


def ward_on(matrix: np.ndarray, linkage_input: str, library: str = "scipy") -> np.ndarray:
    """Labels from Ward's linkage given ``linkage_input`` built from the sparsified matrix."""
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    link = linkage
    if library == "fastcluster":
        import fastcluster

        link = fastcluster.linkage
    if linkage_input == "rows":  # a 2-D array given to linkage is a set of points
        return cut(link(matrix, method="ward"), len(matrix))
    distance = 1 - matrix if linkage_input == "1-m" else np.sqrt(np.maximum(2 * (1 - matrix), 0))
    np.fill_diagonal(distance, 0)
    return cut(link(squareform(distance, checks=False), method="ward"), len(matrix))


def scores(truth, labels) -> dict:
    found = evaluate(truth, labels, ["acc", "nmi"])
    return {"acc": 100 * found["acc"], "nmi": 100 * found["nmi"]}


def glove_means(corpus) -> np.ndarray:
    from shortclust.representations.glove import glove_vectors
    from shortclust.representations.word_vectors import mean_vectors

    return mean_vectors(corpus.counts, *glove_vectors(corpus.vocabulary))


def measure(data_dir=None) -> list[dict]:
    """Every suspect's ACC and NMI (percent); one row each."""
    from sklearn.decomposition import PCA

    from shortclust.data.corpus import load_corpus

    corpus = load_corpus(DATASET, "auto", data_dir)
    X, truth = glove_means(corpus), corpus.labels
    base = sparsified(X, K)
    rows = [{"suspect": "ours", "setting": "GloVe 6B 50-d, l = n/K - 1, Ward on 1 - m, scipy",
             **scores(truth, ward_on(base, "1-m"))}]
    try:
        rows.append({"suspect": "linkage library", "setting": "fastcluster (the paper's)",
                     **scores(truth, ward_on(base, "1-m", "fastcluster"))})
    except ImportError:
        rows.append({"suspect": "linkage library", "setting": "fastcluster not installed",
                     "acc": None, "nmi": None})
    for name, setting in (("rows", "rows of the sparsified matrix as points"),
                          ("euclid", "sqrt(2 (1 - m)): Euclidean between unit vectors")):
        rows.append({"suspect": "linkage input", "setting": setting,
                     **scores(truth, ward_on(base, name))})
    for k in (4, 6, 12, 16):
        rows.append({"suspect": "sparsification count", "setting": f"l = n/{k} - 1",
                     **scores(truth, ward_on(sparsified(X, k), "1-m"))})
    for d in (10, 25):
        reduced = PCA(d, random_state=0).fit_transform(X)
        rows.append({"suspect": "vector dimension", "setting": f"PCA to {d}-d",
                     **scores(truth, ward_on(sparsified(reduced, K), "1-m"))})
    return rows + subset_rows(truth, data_dir)


def subset_rows(truth, data_dir=None) -> list[dict]:
    """HAC_SD on random subsets of SearchSnippet with the test split's class sizes."""
    from shortclust.data.corpus import load_corpus

    full = load_corpus(FULL, "auto", data_dir)
    X, labels = glove_means(full), full.labels
    classes, sizes = np.unique(truth, return_counts=True)
    rows = []
    for seed in range(N_SUBSETS):
        rng = np.random.default_rng(seed)
        chosen = np.concatenate([rng.choice(np.flatnonzero(labels == c), n, replace=False)
                                 for c, n in zip(classes, sizes)])
        rows.append({"suspect": "subset", "setting": f"random stratified subset, seed {seed}",
                     **scores(labels[chosen], ward_on(sparsified(X[chosen], K), "1-m"))})
    return rows


def archive_path(job):
    return job.archive_path(ARCHIVE)


def hac_sd_gap(job) -> dict:
    """The HAC_SD gap on SearchSnippet-test with GloVe: each suspect, measured."""
    path = archive_path(job)
    if path.exists():
        rows = json.loads(path.read_text(encoding="utf-8"))
    elif job.fit:
        job.say(f"{job.paper}: hac_sd_gap (about 30 deterministic HAC_SD fits)")
        rows = measure(job.data_dir)
        atomic_write_text(path, json.dumps(rows, indent=1, sort_keys=True) + "\n")
    else:
        rows = []
    job.collected += len(rows)
    job.write_table("hac_sd_gap", pd.DataFrame(rows), gap_text(rows))
    return {"runs": len(rows), "fit_seconds": 0.0}


def _cell(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _relation(values, ours) -> str:
    """'lower' / 'higher' / 'both lower and higher' than ours."""
    if all(v < ours for v in values):
        return "lower"
    return "higher" if all(v > ours for v in values) else "both lower and higher"


def _conclusion(same_library: bool, paper_settings_best: bool) -> str:
    if same_library and paper_settings_best:
        return ("Conclusion: nothing in our implementation of HAC_SD explains the gap (the "
                "paper's own linkage library gives the same labels, and the paper's count and "
                "linkage input are the best of the alternatives); the gap is not closed here, "
                "and what remains is the representation (300-d 42B vectors against 50-d 6B) "
                "and the unknown subset.")
    return ("Conclusion: an implementation choice above moves HAC_SD; see the rows that "
            "differ from ours.")


def gap_text(rows: list[dict]) -> str:
    """The item's Markdown: the measurements and what they show."""
    title = "# Iterative-classification paper: the HAC_SD gap on SearchSnippet-test (GloVe)"
    if not rows:
        return f"{title}\n\nNot measured yet: run `shortclust reproduce ic --only hac_sd_gap`.\n"
    body = [[r["suspect"], r["setting"], _cell(r["acc"]), _cell(r["nmi"])] for r in rows]
    subsets = [r["acc"] for r in rows if r["suspect"] == "subset"]
    ours = rows[0]["acc"]
    dims = {r["setting"]: r["acc"] for r in rows if r["suspect"] == "vector dimension"}
    counts = [r["acc"] for r in rows if r["suspect"] == "sparsification count"]
    same_library = [r for r in rows if r["suspect"] == "linkage library" and r["acc"] == ours]
    inputs = [r["acc"] for r in rows if r["suspect"] == "linkage input"]
    paper = PAPER["acc"]["HAC_SD"][DATASET].mean
    lines = [
        title, "",
        f"The paper's HAC_SD: ACC {paper:.2f} (Table 2). Ours with GloVe 6B 50-d: "
        f"{ours:.2f}. One deterministic fit per row; percent.", "",
        markdown_table(["suspect", "setting", "ACC", "NMI"], body), "",
        "What the measurements show:",
        f"- Linkage library: fastcluster {'gives the same labels as' if same_library else 'differs from'} "
        "scipy (ties and merge order are not the cause)." if len(rows) > 1 else None,
        "- Linkage input: the paper's description (Ward on distances from cosine similarities) "
        f"is what we run; the other readings score {_relation(inputs, ours)}." if inputs else None,
        f"- Sparsification count: other counts than Algorithm 2's l = n/K - 1 score "
        f"{_relation(counts, ours)} ({min(counts):.2f} to {max(counts):.2f})." if counts else None,
        f"- Vector dimension: ACC falls as the vectors shrink ({', '.join(f'{k}: {v:.2f}' for k, v in dims.items())}, "
        f"50-d: {ours:.2f}); the paper's GloVe 42B vectors have 300 dimensions, which no package "
        "ships here: the trend is consistent with part of the gap being the vectors, but 300-d "
        "cannot be measured here." if dims else None,
        f"- Subset: {len(subsets)} random class-stratified 2280-text subsets of SearchSnippet give "
        f"{np.mean(subsets):.2f} ± {np.std(subsets, ddof=1):.2f} (from {min(subsets):.2f} to "
        f"{max(subsets):.2f}) against {ours:.2f} on our subset (the first 2280 lines, Phan et "
        "al.'s test split): which texts form the subset moves HAC_SD by several points, and the "
        "paper does not say which it used." if len(subsets) > 1 else None,
        "", _conclusion(bool(same_library), _relation(inputs + counts, ours) == "lower"), "",
    ]
    return "\n".join(line for line in lines if line is not None)
