"""The two thresholds of ``shortclust cluster``'s ``auto`` settings, on sets not used to
choose them (issue 30). Nothing here is tuned: the thresholds are the shipped constants.

1. **Stop words** (:data:`shortclust.data.preprocess.STOP_SHARE` = 10%): ``auto`` removes
   English stop words from text that looks tokenised when they are at least 10% of its
   tokens. Chosen by looking at Tweet, GoogleNews, SearchSnippets and AgNews (stop words
   removed upstream: under 2%) and lowercased titles that kept them (about 30%). Held out:
   StackOverflow, CrisisLexT26 and 20NG-mini (raw), each lowercased with its punctuation
   stripped, once keeping its stop words (``auto`` should remove them) and once without
   them, removed with another list than the one ``auto`` counts with (the ``stop-words``
   package's; ``auto`` should leave the text alone), and MStream-News and MStream-Tweets as they are
   (preprocessed upstream: it should leave them alone).
2. **The number of clusters** (:mod:`shortclust.apps.choose_k`: GSDMM with the bound
   ``min(300, max(30, 2 sqrt n))``, clusters under ``max(3, n / 1000)`` documents merged).
   Declared from the GSDMM paper's runs on Tweet and GoogleNews (section 4.4), which are
   left out here. Held out: every other labelled set, as raw texts through ``auto``
   preprocessing, :data:`SEEDS` seeds each; clusters found beside the true classes, NMI.

Sets larger than :data:`MAX_DOCS` are subsampled (seed 0, the defaults protocol's rule).

Usage::

    python benchmarks/heldout_auto.py            # measure, archive, write the table
    python benchmarks/heldout_auto.py --no-fit   # the table from the archived records
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results" / "defaults"
RECORDS = RESULTS / "records" / "heldout.json"
TABLE = RESULTS / "heldout.md"

FILES = {"StackOverflow": "StackOverflow.jsonl", "CrisisLexT26": "CrisisLexT26.jsonl.gz",
         "20NG-mini": "20NG-mini.jsonl.gz", "MStream-News": "MStream-News.jsonl",
         "MStream-Tweets": "MStream-Tweets.jsonl", "SearchSnippets": "SearchSnippets.jsonl",
         "AgNews": "AgNews-8000.jsonl"}
#: Held out from the stop-word threshold: raw sets (made lowercase) and upstream-cleaned ones.
STOP_RAW = ["StackOverflow", "CrisisLexT26", "20NG-mini"]
STOP_CLEAN = ["MStream-News", "MStream-Tweets"]
#: Held out from the K procedure: every labelled set but Tweet and GoogleNews.
K_SETS = ["SearchSnippets", "StackOverflow", "AgNews", "CrisisLexT26", "20NG-mini",
          "MStream-News", "MStream-Tweets"]
MAX_DOCS = 3000
SEEDS = (0, 1, 2)
_NOT_LETTER = re.compile(r"[^\w]+|\d+|_")


def _documents(name):
    from shortclust.data.io import read_documents
    from shortclust.data.registry import resolve_data_dir

    raw = read_documents(Path(resolve_data_dir(None)) / FILES[name])
    rows = np.arange(len(raw.texts))
    if rows.size > MAX_DOCS:
        rows = np.sort(np.random.default_rng(0).choice(rows, MAX_DOCS, replace=False))
    return [raw.texts[i] for i in rows], [raw.labels[i] for i in rows]


def _lowercased(text, stop=None):
    tokens = _NOT_LETTER.sub(" ", text.lower()).split()
    return " ".join(t for t in tokens if stop is None or t not in stop)


def measure_stop_words():
    from stop_words import get_stop_words

    from shortclust.data.preprocess import guess_pipeline, stop_word_share

    # Removed with another list than the one `auto` counts with (the stop-words package's
    # English list against NLTK's or scikit-learn's), as an upstream cleaning would be.
    stop, rows = frozenset(get_stop_words("en")), []
    for name in STOP_RAW + STOP_CLEAN:
        texts, _ = _documents(name)
        variants = ([("lowercased, stop words kept", [_lowercased(t) for t in texts], "basic"),
                     ("lowercased, stop words removed (stop-words' list)",
                      [_lowercased(t, stop) for t in texts], "none")]
                    if name in STOP_RAW else [("as distributed", texts, "none")])
        for variant, docs, expected in variants:
            rows.append({"dataset": name, "variant": variant, "docs": len(docs),
                         "stop_share": round(stop_word_share(docs), 4),
                         "auto": guess_pipeline(docs), "expected": expected})
    return rows


def measure_k():
    import shortclust
    from shortclust.apps.choose_k import upper_bound
    from shortclust.evaluation.metrics import nmi

    rows = []
    for name in K_SETS:
        texts, labels = _documents(name)
        for seed in SEEDS:
            started = time.process_time()
            tc = shortclust.TextClusterer("gsdmm", random_state=seed).fit(texts)
            kept = tc.labels_ >= 0
            rows.append({"dataset": name, "seed": seed, "docs": len(texts),
                         "classes": len(set(labels)), "bound": upper_bound(int(kept.sum())),
                         "found": int(tc.n_clusters_),
                         "nmi": round(float(nmi(np.asarray(labels)[kept],
                                                tc.labels_[kept])), 4),
                         "cpu_seconds": round(time.process_time() - started, 2)})
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def table(records) -> str:
    lines = ["# `auto` thresholds on held-out sets", "",
             "Made by `python benchmarks/heldout_auto.py` (the module docstring says which "
             "sets chose each threshold and which are held out; nothing was tuned here). "
             f"Sets over {MAX_DOCS:,} documents subsampled (seed 0).", "",
             "## Stop words: `auto` removes them at 10% of the tokens or more", "",
             "| set | text | documents | stop-word share | `auto` chose | right |",
             "| --- | --- | --- | --- | --- | --- |"]
    stops = records["stop_words"]
    for r in stops:
        lines.append(f"| {r['dataset']} | {r['variant']} | {r['docs']:,} | "
                     f"{100 * r['stop_share']:.1f}% | {r['auto']} | "
                     f"{'yes' if r['auto'] == r['expected'] else 'NO'} |")
    right = sum(r["auto"] == r["expected"] for r in stops)
    lines += ["", f"Right on {right} of {len(stops)} held-out texts.", "",
              "## The number of clusters: GSDMM with a generous bound, small clusters merged",
              "", f"Mean ± std over {len(SEEDS)} seeds.", "",
              "| set | documents | classes | bound | clusters found | found / classes | NMI |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    runs = records["k"]
    for name in dict.fromkeys(r["dataset"] for r in runs):
        mine = [r for r in runs if r["dataset"] == name]
        found = np.array([r["found"] for r in mine], dtype=float)
        scores = np.array([r["nmi"] for r in mine])
        first = mine[0]
        lines.append(f"| {name} | {first['docs']:,} | {first['classes']} | {first['bound']} | "
                     f"{found.mean():.1f} ± {found.std(ddof=1):.1f} | "
                     f"{found.mean() / first['classes']:.2f} | "
                     f"{scores.mean():.3f} ± {scores.std(ddof=1):.3f} |")
    per_set = {name: (np.mean([r["found"] for r in runs if r["dataset"] == name]),
                      next(r["classes"] for r in runs if r["dataset"] == name))
               for name in dict.fromkeys(r["dataset"] for r in runs)}
    found = np.array([f for f, _ in per_set.values()])
    classes = np.array([c for _, c in per_set.values()])
    over = [n for n, (f, c) in per_set.items() if f > 1.5 * c]
    capped = [n for n, (f, c) in per_set.items() if c > max(r["bound"] for r in runs)]
    lines += ["", f"Clusters found range {found.min():.0f}-{found.max():.0f} while classes "
              f"range {classes.min()}-{classes.max()} (correlation of the two over the sets: "
              f"{np.corrcoef(found, classes)[0, 1]:.2f}). Over 1.5 clusters per class on "
              f"{len(over)} of {len(per_set)} sets ({', '.join(over)}); "
              f"{len(capped)} sets ({', '.join(capped)}) have more classes than the bound "
              "allows clusters. The procedure does not find the number of classes on held-out "
              "sets; `--n-clusters` or `--reduce-to` is the way when the number is known."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-fit", action="store_true", help="table from the records")
    args = parser.parse_args(argv)
    if args.no_fit:
        records = json.loads(RECORDS.read_text(encoding="utf-8"))
    else:
        records = {"stop_words": measure_stop_words(), "k": measure_k()}
        RECORDS.parent.mkdir(parents=True, exist_ok=True)
        RECORDS.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    TABLE.write_text(table(records), encoding="utf-8")
    print(TABLE.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
