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
What ran (written after the fits): on 27 November (load 11-17), seed 2 for all 10 rows on
Tweet, the three GoogleNews sets and SearchSnippets (and ``gsdmm-auto`` on StackOverflow),
and the held-out step with seed 1 on all 9 sets and seed 2 on the first 6 (Tweet to
StackOverflow); on 28 November (00:54-02:20 UTC, load 6-10), the rest as declared: seed 2 on
the other 4 sets, seed 1 for the three oldest rows, seeds 3 and 4 everywhere, and the
held-out step's seed 2 on AgNews, CrisisLexT26 and 20NG-mini. Every (row, set) cell now has
seeds 0-4, every held-out cell seeds 0-2. The rule still picks ``umap-silhouette-cosine``.

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

# The table writer is a sibling module; on the path also when this file is loaded by a test.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import defaults_table  # noqa: E402

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
            for r in defaults_table.read_records(path)}


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
# the table (written by defaults_table.py, beside this file)


def table() -> str:
    """The tables of the archived records (:func:`defaults_table.table`)."""
    return defaults_table.table(defaults_table.Layout(
        RECORDS, HELDOUT_RECORDS, tuple(CANDIDATES), PEERS, tuple(DATASETS), MAX_DOCS, SEED,
        HELDOUT))


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
