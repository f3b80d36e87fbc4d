"""Tuned is not tested: the stream configs on streams their settings were not chosen on.

DCT's alpha, beta, Z and precision floor (and TTM's, which copies them) were chosen on
MStream-News-T and -Tweets-T (``configs/papers/dct/dct.yaml``); the held-out table runs
the same configs, unchanged but for the dataset, preprocessing and batching, on:

- CrisisLexT26, in tweet-time order, 16 equal batches (as the shipped configs cut streams);
- 20NG-mini in the order of its posts' Date headers, 16 equal batches (``newsgroups``
  preprocessing: the header block, which names the newsgroup, dropped);
- a stream drawn from DCT's own generative process (:mod:`.synthetic`), once batched by its
  true time steps and once cut into 16 equal batches.

Every stream and setting here was fixed before these runs were fitted; nothing was chosen
by looking at them. The table reports what the runs give, wherever DCT stands.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from shortclust.evaluation.stats import format_mean_std, stat_row, welch_t_test
from shortclust.pipeline.reproduce import markdown_table, metric_values, provenance_line
from shortclust.papers.dct import synthetic

CONFIGS = "configs/papers/dct"
#: Model (as the table names it) -> (config, what its settings were chosen on).
MODELS = {
    "DCT": ("dct.yaml", "MStream-News-T and -Tweets-T (alpha, beta, Z, floor)"),
    "DCT-P": ("dct_tracking.yaml", "MStream-News-T and -Tweets-T (DCT's settings)"),
    "TTM": ("ttm.yaml", "MStream-News-T and -Tweets-T (DCT's settings)"),
    "DMM": ("dmm.yaml", "nothing: GSDMM's defaults, DCT's Z"),
    "incremental GSDMM": ("gsdmm_incremental.yaml",
                          "nothing here: the GSDMM paper's GoogleNews settings"),
    "LDA": ("lda.yaml", "nothing: Griffiths & Steyvers' beta, DCT's Z"),
}
#: The model every other is tested against, and the one it is compared with first.
FOCUS, RIVAL = "DCT", "incremental GSDMM"
SYNTHETIC_FILE = "dct-synthetic.jsonl"
SIXTEEN = ["stream.batch_by=count", "stream.n_batches=16", "stream.window=null"]
TRUE_STEPS = ["stream.batch_by=time", "stream.window=1", "stream.n_batches=null"]


@dataclass(frozen=True)
class Stream:
    """One held-out stream: the dataset, its preprocessing and its batching."""

    name: str
    dataset: str | None  # None: the synthetic stream (written to the work directory)
    preprocess: str
    batching: tuple[str, ...]
    tag: str

    def overrides(self, dataset: str) -> list[str]:
        return [f"dataset={dataset}", f"preprocess={self.preprocess}", *self.batching]


STREAMS = (
    Stream("CrisisLexT26, 16 batches", "CrisisLexT26", "auto", tuple(SIXTEEN), "CrisisLexT26"),
    Stream("20NG-mini by date, 16 batches", "20NG-mini", "newsgroups", tuple(SIXTEEN),
           "20NG-mini"),
    Stream("synthetic (DCT's process), true steps", None, "none", tuple(TRUE_STEPS),
           "synthetic_steps"),
    Stream("synthetic (DCT's process), 16 batches", None, "none", tuple(SIXTEEN),
           "synthetic_16"),
)


def tag(model: str, stream: Stream) -> str:
    """The records' tag; CrisisLexT26's are the clustering table's (same runs, run once)."""
    name = model.lower().replace("-", "_").replace(" ", "_")
    return f"{name}_{stream.tag}"


@contextlib.contextmanager
def _synthetic_dataset(job):
    """The synthetic stream's file, named relative to the checkout (run there).

    A run's id includes its dataset as the config names it, so the name must not depend
    on where the checkout is: archived records then serve a fresh clone elsewhere.
    """
    root = job.project_path(".")
    # Paths given relative to where the command ran must not move with the chdir below.
    job.work_dir, job.results_dir = job.work_dir.resolve(), job.results_dir.resolve()
    if job.data_dir is not None:
        job.data_dir = Path(job.data_dir).resolve()
    path = job.work_dir / job.paper / SYNTHETIC_FILE
    synthetic.write_stream_file(path)
    with contextlib.chdir(root):
        yield os.path.relpath(path, root)


def run(job, model: str, stream: Stream, dataset: str) -> list[dict]:
    """A model's config on a held-out stream (the config's own 5 seeds unless ``--runs``)."""
    config, _ = MODELS[model]
    return job.stream(f"{CONFIGS}/{config}", tag(model, stream), stream.overrides(dataset))


def heldout(job) -> None:
    """Every model on every held-out stream present; the table."""
    results: dict[str, dict[str, list[dict]]] = {}
    for stream in STREAMS:
        if stream.dataset is not None and not job.dataset_here(stream.dataset):
            job.say(f"{job.paper}: {stream.dataset} not in the data directory (not run)")
            continue
        if stream.dataset is None:
            with _synthetic_dataset(job) as dataset:
                results[stream.name] = {m: run(job, m, stream, dataset) for m in MODELS}
        else:
            results[stream.name] = {m: run(job, m, stream, stream.dataset) for m in MODELS}
    write_heldout(job, results)


def cell(records: list[dict], metric: str = "nmi") -> dict:
    return stat_row(metric_values(records, metric))


def verdict(first: dict, second: dict, alpha: float = 0.05) -> str:
    """``above``, ``below`` or ``not distinguishable`` by Welch's t-test over seeds."""
    test = welch_t_test(first, second)
    if test.p is None:
        return f"no test ({test.kind})"
    if test.p >= alpha:
        return f"not distinguishable (Welch p = {test.p:.3g})"
    return f"{'above' if test.diff > 0 else 'below'} (Welch p = {test.p:.3g})"


def write_heldout(job, results: dict) -> None:
    rows, csv_rows, lines = [], [], []
    for stream, found in results.items():
        rows.append([stream] + [format_mean_std(cell(found[m])["mean"], cell(found[m])["std"])
                                if found.get(m) else "-" for m in MODELS])
        for model, records in found.items():
            if records:
                nmi, ari = cell(records), cell(records, "ari")
                csv_rows.append({"stream": stream, "model": model, "runs": nmi["runs"],
                                 "nmi_mean": nmi["mean"], "nmi_std": nmi["std"],
                                 "ari_mean": ari["mean"], "ari_std": ari["std"],
                                 "tuned_on": MODELS[model][1]})
        if found.get(FOCUS):
            focus = cell(found[FOCUS])
            others = [f"{m} {cell(found[m])['mean']:.3f}: DCT "
                      f"{verdict(focus, cell(found[m]))}" for m in MODELS
                      if m != FOCUS and found.get(m)]
            lines.append(f"- {stream}: DCT {focus['mean']:.3f}; "
                         + "; ".join(others) + ".")
    counts = sorted({row["runs"] for row in csv_rows})
    text = "\n".join([
        "# Held-out streams: the stream configs on data their settings were not chosen on", "",
        "NMI (arithmetic normalisation, scikit-learn's default) of every document's cluster "
        "at the end of the stream, mean ± sample std over seeds.", "",
        markdown_table(["stream"] + list(MODELS), rows), "",
        "**DCT against each model (Welch's t-test over seeds, 0.05)**", "", *lines, "",
        "**Settings chosen on**", "",
        *[f"- {m} (`{CONFIGS}/{c}`): {on}." for m, (c, on) in MODELS.items()], "",
        "Each config is run as shipped but for the dataset, the preprocessing (CrisisLexT26: "
        "`auto`; 20NG-mini: `newsgroups`, header block dropped, since its Newsgroups header "
        "names the label; synthetic: `none`) and the batching. CrisisLexT26 is in tweet-time "
        "order and 20NG-mini in Date-header order, each cut into 16 equal batches; the "
        "synthetic stream (`shortclust/papers/dct/synthetic.py`: "
        + ", ".join(f"{k} {v}" for k, v in synthetic.SYNTHETIC.items())
        + ") is drawn from DCT's generative process and batched once by its true steps "
        "(one batch per step) and once into 16 equal batches (which cut across the steps). "
        "The streams, their batching and every setting were fixed before these runs were "
        "fitted and not changed after seeing them. "
        "DMM: the DCT paper's static DMM baseline (GSDMM through the steps, Z = 300, 10 "
        "sweeps a step); incremental GSDMM: GSDMM's partial_fit with the GSDMM paper's "
        "settings (K = 500, 30 iterations, 2 sweeps a later batch). The CrisisLexT26 runs are "
        "those of `clustering.md` (the same configs), but incremental GSDMM's.",
        "Runs per cell: " + (", ".join(map(str, counts)) or "none") + ".",
        provenance_line(job), ""])
    job.write_table("heldout", pd.DataFrame(csv_rows), text)
