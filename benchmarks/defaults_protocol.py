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

What ran (written after the fits): seeds 0 and 1 for the new candidates, ``umap-silhouette``,
``umap-hdbscan`` and both BERTopic rows; seed 0 only for ``umap-kmeans-gsdmmK``,
``kmeans-minilm-auto`` and ``gsdmm-auto``; no seed 2 (a shared two-core machine at load
8-10). The table's ``runs`` column says so per cell.

**More seeds, declared before their fits (27 November 2026, 19:25 UTC; after the second
round's table was read):** seeds 2, 3 and 4 for all 8 ranked candidates and both BERTopic
rows on all 9 sets, then seed 1 for the three oldest rows, and the held-out step with seeds 1
and 2. Nothing else changes: the same 10 rows (10 candidates tried in all, 8 ranked), the
same options, the same rule applied to the mean over whatever seeds each cell then has.

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
    python benchmarks/defaults_protocol.py heldout [--candidate NAME] [--seeds 0,1,2]
    python benchmarks/defaults_protocol.py table --no-fit   # from the archived records

**Held-out rows** (``heldout``; issue 30's "``predict`` on held-out rows is at least as good
as BERTopic's ``transform``"): per set, :data:`HELDOUT` texts no fit sees (drawn with seed
0 from the rows outside the protocol's sample; for Tweet and 20NG-mini, which have none to
spare, from the sample, the fit then on the rest of it). The default candidate (by default
the one :mod:`shortclust.apps.defaults` names) runs ``shortclust cluster`` on the fit texts
and ``shortclust predict`` of its ``model.zip`` on the held-out texts; BERTopic's defaults
are fitted on the same texts and ``transform`` the same held-out texts (same embeddings,
same seeds); NMI against the hidden labels, and the same Welch test per set. Records in
``results/defaults/records/heldout.ndjson``.

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
#: `predict` on held-out rows beside BERTopic's `transform` (``heldout`` step).
HELDOUT_RECORDS = RESULTS / "records" / "heldout.ndjson"
HELD = WORK / "heldout"

#: The labelled sets (registry names), in the table's order.
DATASETS = ["Tweet", "GoogleNews-T", "GoogleNews-S", "GoogleNews-TS", "SearchSnippets",
            "StackOverflow", "AgNews", "CrisisLexT26", "20NG-mini"]
FILES = {"AgNews": "AgNews-8000.jsonl", "CrisisLexT26": "CrisisLexT26.jsonl.gz",
         "20NG-mini": "20NG-mini.jsonl.gz"}
#: Largest set clustered whole; larger ones are subsampled to this many documents.
MAX_DOCS = 3000
SEED = 0
#: Held-out texts per set (``heldout`` step).
HELDOUT = 500

#: MiniLM reduced by UMAP to 5 dimensions, then k-means: the options every umap-* row shares.
UMAP_KMEANS = ["--model", "kmeans", "--embeddings", "minilm", "--umap", "5"]

#: Candidate defaults: name -> options of `shortclust cluster` (declared before fitting).
CANDIDATES = {
    "gsdmm-auto": ["--model", "gsdmm", "--embeddings", "none"],
    "kmeans-minilm-auto": ["--model", "kmeans", "--embeddings", "minilm"],
    "umap-kmeans-gsdmmK": [*UMAP_KMEANS, "--n-clusters", "gsdmm"],
    "umap-silhouette": [*UMAP_KMEANS, "--n-clusters", "silhouette"],
    "umap-hdbscan": [*UMAP_KMEANS, "--n-clusters", "hdbscan"],
    # Second round (the docstring's reasons).
    "umap-calinski": [*UMAP_KMEANS, "--n-clusters", "calinski"],
    "umap-silhouette-cosine": [*UMAP_KMEANS, "--n-clusters", "silhouette-cosine"],
    "umap-hdbscan-kmeans": [*UMAP_KMEANS, "--n-clusters", "hdbscan-kmeans"],
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


def _append(record: dict, path: Path = RECORDS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


def _cluster(candidate: str, csv_path: Path, seed: int, out: Path):
    """``shortclust cluster CSV`` with a candidate's options: ``(labels, cpu, k_choice)``."""
    command = [str(ROOT / ".venv" / "bin" / "shortclust"), "cluster", str(csv_path),
               *CANDIDATES[candidate], "--seed", str(seed), "--output", str(out), "--quiet",
               "--no-report"]
    before = os.times()
    done = subprocess.run(command, capture_output=True, text=True)
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"{candidate} on {csv_path.name} failed: {done.stderr.strip()}")
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                          - before.children_system)
    choice = json.loads((out / "record.json").read_text()).get("k_choice", {})
    return _assigned(out / "assignments.csv"), cpu, choice


def _assigned(path: Path) -> list[int]:
    """The ``cluster`` column of an assignments file (-1 for a text left out)."""
    with open(path, newline="", encoding="utf-8") as handle:
        return [int(row["cluster"]) if row["cluster"] else -1
                for row in csv.DictReader(handle)]


def fit_candidate(candidate: str, name: str, seed: int = SEED) -> dict:
    """One `shortclust cluster` run of a candidate on a set, scored afterwards."""
    out = WORK / "out" / f"{candidate}__{name}"
    predicted, cpu, choice = _cluster(candidate, WORK / f"{name}.csv", seed, out)
    return {"candidate": candidate, "dataset": name, "n_docs": len(predicted), "seed": seed,
            "clusters": len(set(p for p in predicted if p >= 0)),
            "cpu_seconds": round(cpu, 2), "k_choice": choice,
            **_score(_labels(name), predicted)}


def _bertopic(variant: str, n_classes: int, seed: int):
    """A BERTopic model: its defaults, or with KMeans(true K); UMAP given the seed."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bertopic import BERTopic
    from umap import UMAP

    from shortclust.representations.sentence import load_encoder

    # BERTopic 0.17's default UMAP, given the seed.
    reducer = UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine",
                   random_state=seed)
    if variant == "bertopic-defaults":
        return BERTopic(embedding_model=load_encoder(), umap_model=reducer)
    from sklearn.cluster import KMeans

    return BERTopic(embedding_model=load_encoder(), umap_model=reducer,
                    hdbscan_model=KMeans(n_clusters=n_classes, random_state=seed))


def fit_bertopic(variant: str, name: str, seed: int = SEED) -> dict:
    """BERTopic on the same texts and the same cached MiniLM embeddings."""
    import bertopic

    from shortclust.representations import embed_texts

    texts, truth = _texts(name), _labels(name)
    vectors = embed_texts(texts)
    started = time.process_time()
    model = _bertopic(variant, len(set(truth)), seed)
    topics, _ = model.fit_transform(texts, embeddings=vectors)
    cpu = time.process_time() - started
    return {"candidate": variant, "dataset": name, "n_docs": len(texts), "seed": seed,
            "clusters": len(set(t for t in topics if t >= 0)), "cpu_seconds": round(cpu, 2),
            "version": bertopic.__version__, **_score(truth, topics)}


def _done(path: Path) -> set:
    """The (row, set, seed) already archived in ``path``: not fitted again (a resumed run)."""
    if not path.exists():
        return set()
    return {(r["candidate"], r["dataset"], r.get("seed", SEED))
            for r in map(json.loads, filter(str.strip, path.read_text().splitlines()))}


def _run_missing(path: Path, peer, own, candidates, datasets, seeds) -> None:
    """Each (candidate, set, seed) not yet in the records at ``path``: ``peer`` for the
    BERTopic rows, ``own`` for ours; each record appended as it finishes (resumable)."""
    done = _done(path)
    for seed in seeds:
        for name in datasets:
            for candidate in candidates:
                if (candidate, name, seed) in done:
                    continue
                record = (peer if candidate in PEERS else own)(candidate, name, seed)
                _append(record, path)
                print(json.dumps(record), flush=True)


def fit(candidates, datasets, seeds=(SEED,)) -> None:
    _run_missing(RECORDS, fit_bertopic, fit_candidate, candidates, datasets, seeds)


# --------------------------------------------------------------------------------------------
# held-out rows: `shortclust predict` beside BERTopic's `transform`


def prepare_heldout() -> None:
    """Per set, :data:`HELDOUT` texts that no fit sees, and the texts fitted on.

    Where the set has that many rows outside the protocol's sample (every set but Tweet and
    20NG-mini), they are drawn from those rows (seed 0) and the fit is on the protocol's
    own CSV; otherwise they are drawn from the sample and the fit is on the rest of it.
    """
    HELD.mkdir(parents=True, exist_ok=True)
    for name in DATASETS:
        rows = _read_jsonl(_data_dir() / FILES.get(name, f"{name}.jsonl"))
        fit_rows = np.asarray(json.loads((WORK / f"{name}.labels.json").read_text())["rows"])
        rest = np.setdiff1d(np.arange(len(rows)), fit_rows)
        rng = np.random.default_rng(SEED)
        outside = rest.size >= HELDOUT
        held = np.sort(rng.choice(rest if outside else fit_rows, HELDOUT, replace=False))
        if not outside:
            fit_rows = np.setdiff1d(fit_rows, held)
        for part, keep in (("fit", fit_rows), ("heldout", held)):
            with open(HELD / f"{name}.{part}.csv", "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(["text"])
                writer.writerows([rows[i]["text"]] for i in keep)
            (HELD / f"{name}.{part}.labels.json").write_text(json.dumps(
                {"rows": keep.tolist(), "labels": [rows[i]["label"] for i in keep]}))
        print(f"{name}: fit on {fit_rows.size}, {held.size} held out "
              f"({'outside' if outside else 'inside'} the protocol's sample)", flush=True)


def _held(name: str, part: str):
    """``(csv path, texts, labels)`` of a set's ``fit`` or ``heldout`` part."""
    path = HELD / f"{name}.{part}.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        texts = [row["text"] for row in csv.DictReader(handle)]
    return path, texts, json.loads((HELD / f"{name}.{part}.labels.json").read_text())["labels"]


def heldout_candidate(candidate: str, name: str, seed: int) -> dict:
    """`shortclust cluster` on the fit part, then `shortclust predict` of its model.zip on
    the held-out part; both scored against the hidden labels."""
    fit_csv, _, fit_truth = _held(name, "fit")
    held_csv, held_texts, held_truth = _held(name, "heldout")
    out = WORK / "out" / f"heldout__{candidate}__{name}"
    fitted, _, choice = _cluster(candidate, fit_csv, seed, out)
    target = out / "heldout_assignments.csv"
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "shortclust"), "predict",
                           str(out / "model.zip"), str(held_csv), "--output", str(target),
                           "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"predict of {candidate} on {name} failed: {done.stderr.strip()}")
    predicted = _assigned(target)
    return {"candidate": candidate, "dataset": name, "seed": seed, "n_fit": len(fitted),
            "n_heldout": len(predicted), "clusters": len(set(p for p in fitted if p >= 0)),
            "k_choice": choice, "fit": _score(fit_truth, fitted),
            "heldout": _score(held_truth, predicted)}


def heldout_bertopic(variant: str, name: str, seed: int) -> dict:
    """BERTopic fitted on the fit part, its ``transform`` of the held-out part (topic -1,
    its outliers, a cluster of its own, as in the fits)."""
    import bertopic

    from shortclust.representations import embed_texts

    _, fit_texts, fit_truth = _held(name, "fit")
    _, held_texts, held_truth = _held(name, "heldout")
    model = _bertopic(variant, len(set(fit_truth)), seed)
    fitted, _ = model.fit_transform(fit_texts, embeddings=embed_texts(fit_texts))
    predicted, _ = model.transform(held_texts, embeddings=embed_texts(held_texts))
    return {"candidate": variant, "dataset": name, "seed": seed, "n_fit": len(fit_texts),
            "n_heldout": len(held_texts), "clusters": len(set(t for t in fitted if t >= 0)),
            "version": bertopic.__version__, "fit": _score(fit_truth, fitted),
            "heldout": _score(held_truth, [int(t) for t in predicted])}


def _default_candidate() -> str:
    """The candidate that is ``cluster``'s default now (:mod:`shortclust.apps.defaults`)."""
    from shortclust.apps.defaults import EMBEDDINGS_DEFAULT as chosen

    wanted = ["--model", chosen["model"], "--embeddings", chosen["embeddings"], "--umap",
              str(chosen["umap_dims"]), "--n-clusters", chosen["n_clusters"]]
    return next(name for name, options in CANDIDATES.items() if options == wanted)


def heldout(candidates, datasets, seeds) -> None:
    _run_missing(HELDOUT_RECORDS, heldout_bertopic, heldout_candidate, candidates, datasets,
                 seeds)


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
    """Per (candidate, set): the records of every seed that row ran on that set (the
    ``runs`` column says how many)."""
    return {(c, dataset): [latest[k] for k in sorted(latest) if k[:2] == (c, dataset)]
            for dataset in DATASETS for c in names}


def _mean(records, key):
    return float(np.mean([record[key] for record in records]))


def table() -> str:
    """The table of the archived records: per set, every row's means over seeds; mean ranks."""
    records = [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]
    latest = _latest(records)
    names = [c for c in [*CANDIDATES, *PEERS] if any(k[0] == c for k in latest)]
    cells = _cells(latest, names)
    complete = [d for d in DATASETS if names and all(cells[(c, d)] for c in names)]
    lines = ["# Defaults protocol: candidate defaults of `shortclust cluster` beside BERTopic",
             "", "Generated by `python benchmarks/defaults_protocol.py table --no-fit` from "
             "`records/runs.ndjson`. Each cell is the mean over the seeds that row ran on that "
             "set (`runs`). Sets above "
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
    if winner and len(complete) < len(DATASETS):
        lines += ["", f"The rule is applied once every row has run on all {len(DATASETS)} "
                  f"sets: {len(complete)} so far, so no default is named by this table yet."]
        winner = None
    if winner:
        lines += ["", f"By the declared rule the default is **{winner}** (best mean NMI rank "
                  "among the candidates)."]
        if "bertopic-defaults" in names:
            lines += _noise_lines(winner, {d: cells[(winner, d)] for d in complete},
                                  {d: cells[("bertopic-defaults", d)] for d in complete},
                                  "nmi", f"{winner} against bertopic-defaults")
    if HELDOUT_RECORDS.exists():
        lines += _heldout_lines()
    return "\n".join(lines) + "\n"


def _welch(ours, theirs):
    """``(verdict, p)``: "above"/"below" when Welch's two-sided t-test over the seeds
    rejects equal means at 5%, else "within noise" (also with fewer than 2 seeds a side)."""
    from scipy.stats import ttest_ind

    if min(len(ours), len(theirs)) < 2:
        return "not tested (fewer than 2 seeds)", float("nan")
    if np.std(ours) == 0 and np.std(theirs) == 0:  # no spread: the t statistic is undefined
        differ = not np.isclose(np.mean(ours), np.mean(theirs))
        verdict = ("above" if np.mean(ours) > np.mean(theirs) else "below") if differ \
            else "within noise"
        return verdict, 0.0 if differ else 1.0
    p = float(ttest_ind(ours, theirs, equal_var=False).pvalue)
    if p >= 0.05:
        return "within noise", p
    return ("above" if np.mean(ours) > np.mean(theirs) else "below"), p


def _noise_lines(ours_name, ours, theirs, key, title, field=None):
    """Per set: both rows' mean ± std over the seeds, the difference, Welch's verdict."""
    def values(cell):
        return [float(r[field][key] if field else r[key]) for r in cell]

    lines = ["", f"Per-set test over seeds, {title} (NMI; Welch's t-test, two-sided, 5%):", "",
             f"| set | seeds | {ours_name} | bertopic-defaults | difference | p | verdict |",
             "|---|---|---|---|---|---|---|"]
    verdicts = []
    for dataset in ours:
        a, b = values(ours[dataset]), values(theirs[dataset])
        verdict, p = _welch(a, b)
        verdicts.append(verdict)
        lines.append(f"| {dataset} | {len(a)} / {len(b)} | {np.mean(a):.3f} ± {np.std(a):.3f} "
                     f"| {np.mean(b):.3f} ± {np.std(b):.3f} | {np.mean(a) - np.mean(b):+.3f} "
                     f"| {p:.3f} | {verdict} |")
    counts = {v: sum(x.startswith(v) for x in verdicts) for v in ("above", "below", "within",
                                                                  "not")}
    lines += ["", f"Beyond noise: above on {counts['above']} of {len(verdicts)} sets, below on "
              f"{counts['below']}; within noise on {counts['within']}"
              + (f"; not tested on {counts['not']}." if counts["not"] else ".")]
    return lines


def _heldout_lines():
    """The held-out section: `predict` against BERTopic's `transform`, per set."""
    records = [json.loads(line) for line in HELDOUT_RECORDS.read_text().splitlines()
               if line.strip()]
    latest = {(r["candidate"], r["dataset"], r["seed"]): r for r in records}
    rows = [c for c in [*CANDIDATES, *PEERS] if any(k[0] == c for k in latest)]
    lines = ["", "## Held-out rows: `shortclust predict` beside BERTopic's `transform`", "",
             f"Generated from `records/heldout.ndjson` (the `heldout` step; the split is in the "
             f"docstring): each row is fitted on the fit texts and assigns {HELDOUT} texts no "
             "fit saw; NMI of those assignments against the hidden labels (`held-out NMI`), "
             "beside the NMI of the fit texts' own clusters (`fit NMI`). Mean ± std over the "
             "seeds (`runs`).", "",
             "| set | row | runs | fit texts | held-out texts | clusters | fit NMI | "
             "held-out NMI | held-out ARI |", "|---|---|---|---|---|---|---|---|---|"]
    cells = {}
    for dataset in DATASETS:
        seeds = [{k[2] for k in latest if k[0] == c and k[1] == dataset} for c in rows]
        common = sorted(set.intersection(*seeds)) if seeds else []
        for c in rows:
            cell = cells[(c, dataset)] = [latest[(c, dataset, seed)] for seed in common]
            if not cell:
                continue
            held = [r["heldout"]["nmi"] for r in cell]
            lines.append(f"| {dataset} | {c} | {len(cell)} | {cell[0]['n_fit']} | "
                         f"{cell[0]['n_heldout']} | {_mean(cell, 'clusters'):.1f} | "
                         f"{np.mean([r['fit']['nmi'] for r in cell]):.3f} | "
                         f"{np.mean(held):.3f} ± {np.std(held):.3f} | "
                         f"{np.mean([r['heldout']['ari'] for r in cell]):.3f} |")
    done = [d for d in DATASETS if rows and all(cells.get((c, d)) for c in rows)]
    for c in rows:
        if c in PEERS or "bertopic-defaults" not in rows or not done:
            continue
        ours = [np.mean([r["heldout"]["nmi"] for r in cells[(c, d)]]) for d in done]
        theirs = [np.mean([r["heldout"]["nmi"] for r in cells[("bertopic-defaults", d)]])
                  for d in done]
        lines += ["", f"{c}: mean held-out NMI {np.mean(ours):.3f} against BERTopic "
                  f"`transform`'s {np.mean(theirs):.3f} over the {len(done)} sets both ran; at "
                  f"least as good on {sum(a >= b for a, b in zip(ours, theirs))} of "
                  f"{len(done)}."]
        lines += _noise_lines(c, {d: cells[(c, d)] for d in done},
                              {d: cells[("bertopic-defaults", d)] for d in done}, "nmi",
                              f"held-out rows, {c} `predict` against BERTopic `transform`",
                              field="heldout")
    return lines


def check_table() -> bool:
    """Whether ``table.md`` is what the records give (``table --no-fit``), byte for byte."""
    return (RESULTS / "table.md").read_text() == table()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "embed", "fit", "heldout", "table"])
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
    elif args.step == "heldout":
        if not (HELD / f"{DATASETS[-1]}.heldout.csv").exists():
            prepare_heldout()
        heldout(args.candidate or [_default_candidate(), "bertopic-defaults"],
                args.dataset or DATASETS, [int(seed) for seed in args.seeds.split(",")])
    else:
        text = table()
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "table.md").write_text(text)
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
