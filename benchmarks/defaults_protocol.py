"""The defaults protocol of ``shortclust cluster`` (issue 30): every candidate default on
every labelled set, beside BERTopic, ranked; the default is the best mean rank.

Each labelled set is written as a raw CSV with a ``text`` column only (its labels kept
apart), clustered by ``shortclust cluster FILE`` with a candidate's options, and scored
afterwards against the hidden labels (NMI, ARI, ACC, clusters found, CPU seconds of the
whole command). BERTopic 0.17 runs in the same sitting on the same texts and the same
packaged MiniLM embeddings: its defaults (UMAP + HDBSCAN, the number of topics its own;
outliers, topic -1, are a cluster of their own for scoring), and BERTopic with scikit-learn's
KMeans given the true number of classes (an oracle K no other candidate gets).

Candidates (declared before this round of fits, 27 November 2026; the reasons in
:mod:`shortclust.apps.reduced`):

- ``gsdmm-auto``: GSDMM on word counts, K by :mod:`shortclust.apps.choose_k` (the fast path,
  no embeddings; the shipped default before this round).
- ``kmeans-minilm-auto``: k-means on the 384-d MiniLM embeddings, K from GSDMM's procedure.
- ``umap-kmeans-gsdmmK``: MiniLM reduced by UMAP (BERTopic's settings: 5 dimensions, 15
  neighbours, cosine, min_dist 0), k-means there with K from GSDMM's procedure; isolates what
  UMAP adds.
- ``umap-silhouette``: MiniLM -> UMAP -> k-means, K the best silhouette over a geometric grid
  of 13 values from 2 to min(300, max(30, 2 sqrt n)).
- ``umap-hdbscan``: MiniLM -> UMAP -> HDBSCAN (min_cluster_size max(10, n/1000)), K its count,
  its outliers joined to the nearest cluster centre (no -1 lump).

Retired after the first round (5 sets, in the records, not ranked): ``kmeans-tfidf-auto``
(last on every metric) and ``movmf-minilm-auto`` (never run).

**Second round, declared before its fits (27 November 2026, after the first round's
table, seed 0, was read).** The first round's winner, ``umap-silhouette``, lost to BERTopic's
defaults on CrisisLexT26 (11 clusters for 26 events) and 20NG-mini (7 for 20 classes): the
silhouette rewards the coarsest well-separated split, so where topics nest it chooses too
few clusters. Three candidates address that, each a single setting (no parameter of theirs
was tried on these sets beforehand); all keep MiniLM -> UMAP (5 dimensions) -> k-means and
the grid of ``umap-silhouette``:

- ``umap-calinski``: K the best Calinski-Harabasz index (Calinski & Harabasz 1974) over the
  same grid. Why: it weighs between- against within-cluster dispersion per degree of
  freedom, so it does not favour the coarsest split the way the silhouette does, and it
  was the best of 30 criteria in Milligan & Cooper's (1985) comparison.
- ``umap-silhouette-cosine``: K the best silhouette measured with the cosine distance in
  the 384-d MiniLM space (not in UMAP's), over the same grid and k-means runs. Why: UMAP
  packs neighbouring topics into one compact blob that the silhouette in its space reads
  as one cluster; in the MiniLM space, where new texts are predicted, they stay apart.
- ``umap-hdbscan-kmeans``: K the number of clusters HDBSCAN finds on the UMAP vectors (as
  ``umap-hdbscan``), then k-means at that K on every text. Why: HDBSCAN's count was about
  right where the silhouette under-split (it won CrisisLexT26 and 20NG-mini), and k-means
  then places every text by its centre instead of attaching the outliers afterwards.

Every candidate of round one and both BERTopic rows are run with seeds 0, 1 and 2, the new
ones too; the rule below is unchanged and ranks all 8 candidates of both rounds. **A search,
said plainly:** the protocol has tried 10 candidate defaults in all (7 in round one, 2 of
them retired, and these 3); the winner is the best of 8 ranked on the same 9 sets, so its
margin over BERTopic on them is optimistic, and only texts outside them (the issue's hidden
corpora) test it.

After the rule, a per-set test over seeds: the winner's seed NMIs against BERTopic
defaults' (Welch's t-test, two-sided, 5%): a set counts as above or below only when the
test says so, otherwise "within noise".

**Rule, declared before the results:** every candidate and both BERTopic rows on every set
and seed; per set, the mean NMI over the seeds ranks the rows (1 best); the candidate with
the best mean rank over the sets becomes ``cluster``'s default (ties: higher mean NMI). No
setting of any candidate is changed after seeing these results; if one is, the table says
how many settings were tried.

BERTopic's UMAP is given the run's seed (``UMAP(n_neighbors=15, n_components=5,
min_dist=0.0, metric="cosine", random_state=seed)``, its default model with the seed), so
its runs are reproducible; everything else is BERTopic's default.

Sets larger than :data:`MAX_DOCS` documents are subsampled (a fixed seed, the same rows for
every candidate), so that embedding all nine sets fits in a session on two cores; the
table says so.

Usage::

    python benchmarks/defaults_protocol.py prepare      # CSVs + labels under runs/protocol
    python benchmarks/defaults_protocol.py embed        # warm the MiniLM cache (slow)
    python benchmarks/defaults_protocol.py fit [--candidate NAME] [--dataset NAME] [--seeds 0,1,2]
    python benchmarks/defaults_protocol.py table --no-fit   # from the archived records

Records (one JSON line per candidate x set) are archived in
``results/defaults/records/runs.ndjson``; ``table --no-fit`` rebuilds ``results/defaults/table.md``
from them byte for byte.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "runs" / "protocol"
RESULTS = ROOT / "results" / "defaults"
RECORDS = RESULTS / "records" / "runs.ndjson"

#: The labelled sets (registry names), in the table's order.
DATASETS = ["Tweet", "GoogleNews-T", "GoogleNews-S", "GoogleNews-TS", "SearchSnippets",
            "StackOverflow", "AgNews", "CrisisLexT26", "20NG-mini"]
FILES = {"AgNews": "AgNews-8000.jsonl", "CrisisLexT26": "CrisisLexT26.jsonl.gz",
         "20NG-mini": "20NG-mini.jsonl.gz"}
#: Largest set clustered whole; larger ones are subsampled to this many documents.
MAX_DOCS = 3000
SEED = 0

#: Candidate defaults: name -> options of `shortclust cluster` (declared before fitting).
CANDIDATES = {
    "gsdmm-auto": ["--model", "gsdmm", "--embeddings", "none"],
    "kmeans-minilm-auto": ["--model", "kmeans", "--embeddings", "minilm"],
    "umap-kmeans-gsdmmK": ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5",
                           "--n-clusters", "gsdmm"],
    "umap-silhouette": ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5",
                        "--n-clusters", "silhouette"],
    "umap-hdbscan": ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5",
                     "--n-clusters", "hdbscan"],
    # Second round (the docstring's reasons).
    "umap-calinski": ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5",
                      "--n-clusters", "calinski"],
    "umap-silhouette-cosine": ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5",
                               "--n-clusters", "silhouette-cosine"],
    "umap-hdbscan-kmeans": ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5",
                            "--n-clusters", "hdbscan-kmeans"],
}
PEERS = ("bertopic-defaults", "bertopic-kmeans-trueK")


def _data_dir() -> Path:
    return Path(os.environ.get("SHORTCLUST_DATA", ROOT.parent / "shared" / "datasets"))


def _read_jsonl(path: Path):
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def prepare() -> None:
    """Write each set's texts as a CSV (``text`` only) and its labels beside it."""
    WORK.mkdir(parents=True, exist_ok=True)
    for name in DATASETS:
        rows = _read_jsonl(_data_dir() / FILES.get(name, f"{name}.jsonl"))
        keep = np.arange(len(rows))
        if len(rows) > MAX_DOCS:
            keep = np.sort(np.random.default_rng(SEED).choice(len(rows), MAX_DOCS,
                                                              replace=False))
        with open(WORK / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["text"])
            writer.writerows([rows[i]["text"]] for i in keep)
        (WORK / f"{name}.labels.json").write_text(json.dumps(
            {"n_source": len(rows), "rows": keep.tolist(),
             "labels": [rows[i]["label"] for i in keep]}))
        print(f"{name}: {keep.size} of {len(rows)} documents", flush=True)


def _texts(name: str) -> list[str]:
    with open(WORK / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return [row["text"] for row in csv.DictReader(handle)]


def _labels(name: str) -> list[str]:
    return json.loads((WORK / f"{name}.labels.json").read_text())["labels"]


def embed() -> None:
    """Compute (and cache) the MiniLM embeddings of every set's texts."""
    from shortclust.representations import embed_texts

    for name in DATASETS:
        started = time.process_time()
        vectors = embed_texts(_texts(name), progress=False)
        print(f"{name}: {vectors.shape} in {time.process_time() - started:.1f} s CPU",
              flush=True)


def _score(truth, predicted) -> dict:
    from shortclust.evaluation.metrics import evaluate

    codes = {label: i for i, label in enumerate(dict.fromkeys(truth))}
    values = evaluate(np.array([codes[t] for t in truth]), np.asarray(predicted),
                      metrics=["nmi", "ari", "acc"])
    return {key: round(float(value), 4) for key, value in values.items()}


def _append(record: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RECORDS, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


def fit_candidate(candidate: str, name: str, seed: int = SEED) -> dict:
    """One `shortclust cluster` run of a candidate on a set, scored afterwards."""
    out = WORK / "out" / f"{candidate}__{name}"
    command = [str(ROOT / ".venv" / "bin" / "shortclust"), "cluster", str(WORK / f"{name}.csv"),
               *CANDIDATES[candidate], "--seed", str(seed), "--output", str(out), "--quiet",
               "--no-report"]
    before = os.times()
    done = subprocess.run(command, capture_output=True, text=True)
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"{candidate} on {name} failed: {done.stderr.strip()}")
    with open(out / "assignments.csv", newline="", encoding="utf-8") as handle:
        predicted = [int(row["cluster"]) if row["cluster"] else -1
                     for row in csv.DictReader(handle)]
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                          - before.children_system)
    choice = json.loads((out / "record.json").read_text()).get("k_choice", {})
    return {"candidate": candidate, "dataset": name, "n_docs": len(predicted), "seed": seed,
            "clusters": len(set(p for p in predicted if p >= 0)),
            "cpu_seconds": round(cpu, 2), "k_choice": choice,
            **_score(_labels(name), predicted)}


def fit_bertopic(variant: str, name: str, seed: int = SEED) -> dict:
    """BERTopic on the same texts and the same cached MiniLM embeddings."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bertopic import BERTopic

    from shortclust.representations import embed_texts
    from shortclust.representations.sentence import load_encoder

    texts, truth = _texts(name), _labels(name)
    vectors = embed_texts(texts)
    from umap import UMAP

    started = time.process_time()
    # BERTopic 0.17's default UMAP, given the seed.
    reducer = UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine",
                   random_state=seed)
    if variant == "bertopic-defaults":
        model = BERTopic(embedding_model=load_encoder(), umap_model=reducer)
    else:
        from sklearn.cluster import KMeans

        model = BERTopic(embedding_model=load_encoder(), umap_model=reducer,
                         hdbscan_model=KMeans(n_clusters=len(set(truth)), random_state=seed))
    topics, _ = model.fit_transform(texts, embeddings=vectors)
    cpu = time.process_time() - started
    import bertopic

    return {"candidate": variant, "dataset": name, "n_docs": len(texts), "seed": seed,
            "clusters": len(set(t for t in topics if t >= 0)), "cpu_seconds": round(cpu, 2),
            "version": bertopic.__version__, **_score(truth, topics)}


def fit(candidates, datasets, seeds=(SEED,)) -> None:
    for seed in seeds:
        for name in datasets:
            for candidate in candidates:
                record = (fit_bertopic(candidate, name, seed) if candidate in PEERS
                          else fit_candidate(candidate, name, seed))
                _append(record)
                print(json.dumps(record), flush=True)


# --------------------------------------------------------------------------------------------
# the table


def _latest(records):
    """The last record of each (candidate, set, seed); records before seeds were kept are
    seed 0."""
    latest = {}
    for record in records:
        latest[(record["candidate"], record["dataset"], record.get("seed", SEED))] = record
    return latest


def _cells(latest, names):
    """Per (candidate, set): the records of the seeds every row of that set ran."""
    cells = {}
    for dataset in DATASETS:
        seeds = [{k[2] for k in latest if k[0] == c and k[1] == dataset} for c in names]
        common = sorted(set.intersection(*seeds)) if seeds else []
        for c in names:
            cells[(c, dataset)] = [latest[(c, dataset, seed)] for seed in common]
    return cells


def _mean(records, key):
    return float(np.mean([record[key] for record in records]))


def table() -> str:
    """The table of the archived records: per set, every row's means over seeds; mean ranks."""
    records = [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]
    latest = _latest(records)
    names = [c for c in [*CANDIDATES, *PEERS] if any(k[0] == c for k in latest)]
    cells = _cells(latest, names)
    complete = [d for d in DATASETS if names and cells[(names[0], d)]]
    lines = ["# Defaults protocol: candidate defaults of `shortclust cluster` beside BERTopic",
             "", "Generated by `python benchmarks/defaults_protocol.py table --no-fit` from "
             "`records/runs.ndjson`. Each cell is the mean over the seeds (`runs`) that every "
             "row of its set ran. Sets above "
             f"{MAX_DOCS} documents are a random subsample of {MAX_DOCS} (seed {SEED}). "
             "`bertopic-kmeans-trueK` is given the true number of classes; every other row "
             "chooses its own. The candidates and the rule that picks the default are in the "
             "docstring of `benchmarks/defaults_protocol.py`, written before these runs.", "",
             "| set | row | runs | docs | clusters | NMI | ARI | ACC | CPU s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for dataset in DATASETS:
        for candidate in names:
            cell = cells[(candidate, dataset)]
            if not cell:
                lines.append(f"| {dataset} | {candidate} | 0 | - | - | - | - | - | not run |")
                continue
            lines.append(f"| {dataset} | {candidate} | {len(cell)} | {cell[0]['n_docs']} | "
                         f"{_mean(cell, 'clusters'):.1f} | {_mean(cell, 'nmi'):.3f} | "
                         f"{_mean(cell, 'ari'):.3f} | {_mean(cell, 'acc'):.3f} | "
                         f"{_mean(cell, 'cpu_seconds'):.1f} |")
    lines += ["", f"Mean rank by NMI over the {len(complete)} sets every row ran on "
              f"({', '.join(complete) or 'none'}); 1 is best. `> BERTopic` counts the sets "
              "where a row's mean NMI is above `bertopic-defaults`'.", "",
              "| row | mean NMI | mean ARI | mean rank (NMI) | mean rank (ARI) | > BERTopic |",
              "|---|---|---|---|---|---|"]
    means = {(c, d): {m: _mean(cells[(c, d)], m) for m in ("nmi", "ari")}
             for c in names for d in complete}
    ranks = {c: {"nmi": [], "ari": []} for c in names}
    for dataset in complete:
        for metric in ("nmi", "ari"):
            values = {c: round(means[(c, dataset)][metric], 4) for c in names}
            for c in names:
                ranks[c][metric].append(1 + sum(values[o] > values[c] for o in names))
    order = sorted(names, key=lambda c: (np.mean(ranks[c]["nmi"]),
                                         -np.mean([means[(c, d)]["nmi"] for d in complete])))
    for c in order if complete else []:
        beats = (sum(means[(c, d)]["nmi"] > means[("bertopic-defaults", d)]["nmi"]
                     for d in complete) if "bertopic-defaults" in names else 0)
        lines.append(f"| {c} | {np.mean([means[(c, d)]['nmi'] for d in complete]):.3f} | "
                     f"{np.mean([means[(c, d)]['ari'] for d in complete]):.3f} | "
                     f"{np.mean(ranks[c]['nmi']):.2f} | {np.mean(ranks[c]['ari']):.2f} | "
                     f"{beats} of {len(complete)} |")
    winner = next((c for c in order if c in CANDIDATES), None) if complete else None
    if winner:
        lines += ["", f"By the declared rule the default is **{winner}** (best mean NMI rank "
                  "among the candidates)."]
    return "\n".join(lines) + "\n"


def check_table() -> bool:
    """Whether ``table.md`` is what the records give (``table --no-fit``), byte for byte."""
    return (RESULTS / "table.md").read_text() == table()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "embed", "fit", "table"])
    parser.add_argument("--candidate", action="append")
    parser.add_argument("--dataset", action="append")
    parser.add_argument("--seeds", default=str(SEED), help="fit: comma-separated seeds")
    parser.add_argument("--no-fit", action="store_true", help="table: from the records only")
    args = parser.parse_args(argv)
    if args.step == "prepare":
        prepare()
    elif args.step == "embed":
        embed()
    elif args.step == "fit":
        fit(args.candidate or [*CANDIDATES, *PEERS], args.dataset or DATASETS,
            [int(seed) for seed in args.seeds.split(",")])
    else:
        text = table()
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "table.md").write_text(text)
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
