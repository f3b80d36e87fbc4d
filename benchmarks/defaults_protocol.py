"""The defaults protocol of ``shortclust cluster`` (issue 30): every candidate default on
every labelled set, beside BERTopic, ranked; the default is the best mean rank.

Each labelled set is written as a raw CSV with a ``text`` column only (its labels kept
apart), clustered by ``shortclust cluster FILE`` with a candidate's options, and scored
afterwards against the hidden labels (NMI, ARI, ACC, clusters found, CPU seconds of the
whole command). BERTopic 0.17 runs in the same sitting on the same texts and the same
packaged MiniLM embeddings: its defaults (UMAP + HDBSCAN, the number of topics its own;
outliers, topic -1, are a cluster of their own for scoring), and BERTopic with scikit-learn's
KMeans given the true number of classes (an oracle K no other candidate gets).

Sets larger than :data:`MAX_DOCS` documents are subsampled (a fixed seed, the same rows for
every candidate), so that embedding all nine sets fits in a session on two cores; the
table says so.

Usage::

    python benchmarks/defaults_protocol.py prepare      # CSVs + labels under runs/protocol
    python benchmarks/defaults_protocol.py embed        # warm the MiniLM cache (slow)
    python benchmarks/defaults_protocol.py fit [--candidate NAME] [--dataset NAME]
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
    "gsdmm-auto": ["--model", "gsdmm"],
    "kmeans-tfidf-auto": ["--model", "kmeans"],
    "kmeans-minilm-auto": ["--model", "kmeans", "--embeddings", "minilm"],
    "movmf-minilm-auto": ["--model", "movmf", "--embeddings", "minilm"],
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


def fit_candidate(candidate: str, name: str) -> dict:
    """One `shortclust cluster` run of a candidate on a set, scored afterwards."""
    out = WORK / "out" / f"{candidate}__{name}"
    command = [str(ROOT / ".venv" / "bin" / "shortclust"), "cluster", str(WORK / f"{name}.csv"),
               *CANDIDATES[candidate], "--output", str(out), "--quiet"]
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
    return {"candidate": candidate, "dataset": name, "n_docs": len(predicted),
            "clusters": len(set(p for p in predicted if p >= 0)),
            "cpu_seconds": round(cpu, 2), "k_choice": choice,
            **_score(_labels(name), predicted)}


def fit_bertopic(variant: str, name: str) -> dict:
    """BERTopic on the same texts and the same cached MiniLM embeddings."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bertopic import BERTopic

    from shortclust.representations import embed_texts
    from shortclust.representations.sentence import load_encoder

    texts, truth = _texts(name), _labels(name)
    vectors = embed_texts(texts)
    started = time.process_time()
    if variant == "bertopic-defaults":
        model = BERTopic(embedding_model=load_encoder())
    else:
        from sklearn.cluster import KMeans

        model = BERTopic(embedding_model=load_encoder(),
                         hdbscan_model=KMeans(n_clusters=len(set(truth)), random_state=SEED))
    topics, _ = model.fit_transform(texts, embeddings=vectors)
    cpu = time.process_time() - started
    import bertopic

    return {"candidate": variant, "dataset": name, "n_docs": len(texts),
            "clusters": len(set(t for t in topics if t >= 0)), "cpu_seconds": round(cpu, 2),
            "version": bertopic.__version__, **_score(truth, topics)}


def fit(candidates, datasets) -> None:
    for name in datasets:
        for candidate in candidates:
            record = (fit_bertopic(candidate, name) if candidate in PEERS
                      else fit_candidate(candidate, name))
            _append(record)
            print(json.dumps(record), flush=True)


# --------------------------------------------------------------------------------------------
# the table


def _latest(records):
    latest = {}
    for record in records:
        latest[(record["candidate"], record["dataset"])] = record
    return latest


def table() -> str:
    """The table of the archived records: per set, every candidate's figures; mean ranks."""
    records = [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]
    latest = _latest(records)
    names = [c for c in [*CANDIDATES, *PEERS] if any(k[0] == c for k in latest)]
    complete = [d for d in DATASETS if all((c, d) in latest for c in names)]
    lines = ["# Defaults protocol: candidate defaults of `shortclust cluster` beside BERTopic",
             "", "Generated by `python benchmarks/defaults_protocol.py table --no-fit` from "
             "`records/runs.ndjson` (one run per candidate and set, seed 0). Sets above "
             f"{MAX_DOCS} documents are a random subsample of {MAX_DOCS} (seed {SEED}). "
             "`bertopic-kmeans-trueK` is given the true number of classes; every other row "
             "chooses its own.", "",
             "| set | candidate | docs | clusters | NMI | ARI | ACC | CPU s |",
             "|---|---|---|---|---|---|---|---|"]
    for dataset in DATASETS:
        for candidate in names:
            record = latest.get((candidate, dataset))
            if record is None:
                lines.append(f"| {dataset} | {candidate} | - | - | - | - | - | not run |")
                continue
            lines.append(f"| {dataset} | {candidate} | {record['n_docs']} | "
                         f"{record['clusters']} | {record['nmi']:.3f} | {record['ari']:.3f} | "
                         f"{record['acc']:.3f} | {record['cpu_seconds']:.1f} |")
    lines += ["", f"Mean rank by NMI over the {len(complete)} sets every row ran on "
              f"({', '.join(complete) or 'none'}); 1 is best.", "",
              "| candidate | mean NMI | mean ARI | mean rank (NMI) | mean rank (ARI) |",
              "|---|---|---|---|---|"]
    ranks = {c: {"nmi": [], "ari": []} for c in names}
    for dataset in complete:
        for metric in ("nmi", "ari"):
            values = {c: latest[(c, dataset)][metric] for c in names}
            order = sorted(names, key=lambda c: -values[c])
            for c in names:
                ranks[c][metric].append(1 + sum(values[o] > values[c] for o in order))
    for c in sorted(names, key=lambda c: np.mean(ranks[c]["nmi"]) if complete else 0):
        if not complete:
            break
        lines.append(f"| {c} | {np.mean([latest[(c, d)]['nmi'] for d in complete]):.3f} | "
                     f"{np.mean([latest[(c, d)]['ari'] for d in complete]):.3f} | "
                     f"{np.mean(ranks[c]['nmi']):.2f} | {np.mean(ranks[c]['ari']):.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "embed", "fit", "table"])
    parser.add_argument("--candidate", action="append")
    parser.add_argument("--dataset", action="append")
    parser.add_argument("--no-fit", action="store_true", help="table: from the records only")
    args = parser.parse_args(argv)
    if args.step == "prepare":
        prepare()
    elif args.step == "embed":
        embed()
    elif args.step == "fit":
        fit(args.candidate or [*CANDIDATES, *PEERS], args.dataset or DATASETS)
    else:
        text = table()
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "table.md").write_text(text)
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
