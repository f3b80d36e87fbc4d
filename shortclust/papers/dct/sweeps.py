"""Figures 5 and 6's analogues: cluster-based retrieval on CrisisLexT26 against lambda and Z.

The paper varies the mixture weight lambda of Eq. 13 from 0 to 1 (Figure 5: every
clustering model equals plain query likelihood at 0, improves up to about 0.6, then falls,
DCT staying above the rest) and the number of topics from 2 to 16 per query (Figure 6:
the models alike at 2, DCT ahead from 4 to 8, all flat from 8 to 16). Here both are
measured as in Table 2's analogue (:mod:`.retrieval`; event-name queries):

- **lambda**: each model's Table 2 measurement also records, for every lambda of the grid
  held fixed, the protocol's result with mu and b tuned alone (``by_lambda``); the
  figure reads it from the archive for the first ``SWEEP_RUNS`` seeds (a measurement
  archived before the field existed is measured again, with the same clusters);
- **Z**: each model with ``n_clusters`` set to each of :data:`TOPIC_COUNTS`, archived as
  methods ``"<model> Z=<Z>"``; its configs' Z = 300 is Table 2's own measurement.

Both figures are rebuilt from ``records/retrieval.json`` (``--no-fit`` measures nothing).
"""

from __future__ import annotations

import pandas as pd

from shortclust.evaluation.ranking import METRIC_LABELS, RANKING_METRICS
from shortclust.pipeline.plots import save_figure
from shortclust.pipeline.reproduce import markdown_table, provenance_line
from shortclust.papers.dct.retrieval import archived, summarise_metrics

#: The models of both figures (the paper's: DCT, TTM, DMM and LDA; and DCT-P).
SWEEP_MODELS = ("DCT", "DCT-P", "TTM", "DMM", "LDA")
#: Numbers of topics of Figure 6's analogue (the paper: 2 to 16 per query's 500 tweets;
#: here Z covers a whole stream of 26 events).
TOPIC_COUNTS = (2, 4, 8, 16, 32, 64)
#: The configs' own Z, whose point is Table 2's measurement.
CONFIG_TOPICS = 300
#: Seeds per point unless --runs (each point is a whole stream and a tuning).
SWEEP_RUNS = 2


def topics_method(model: str, n_topics: int) -> str:
    return model if n_topics == CONFIG_TOPICS else f"{model} Z={n_topics}"


def lambda_figure(job, models: dict) -> None:
    """Figure 5's analogue: measure what the archive lacks (unless ``--no-fit``), draw."""
    names = [m for m in SWEEP_MODELS if m in models]
    seeds = range(job.runs or SWEEP_RUNS)
    rows = archived(job, models, [(m, s) for s in seeds for m in names], needs="by_lambda")
    points = [(r["method"], float(lam), values["event"]) for r in rows
              for lam, values in r.get("by_lambda", {}).items()]
    frame = point_frame(points, "lambda")
    write_sweep(job, "figure5", frame, "lambda", "mixture weight lambda (Eq. 13)",
                "The paper (its own collection): at lambda = 0 every model is plain query "
                "likelihood; all improve up to about 0.6, DCT fastest, then fall, DCT "
                "staying above LM even at lambda = 1. Here mu and b are tuned by the "
                "protocol with lambda held at each value.")


def topics_figure(job, models: dict) -> None:
    """Figure 6's analogue: measure what the archive lacks (unless ``--no-fit``), draw."""
    names = [m for m in SWEEP_MODELS if m in models]
    seeds = range(job.runs or SWEEP_RUNS)
    swept = {topics_method(m, z): (models[m][0], {**models[m][1], "n_clusters": z})
             for m in names for z in (*TOPIC_COUNTS, CONFIG_TOPICS)}
    rows = archived(job, swept, [(method, s) for s in seeds for method in swept])
    by_method = {method: (m, z) for m in names for z in (*TOPIC_COUNTS, CONFIG_TOPICS)
                 for method in [topics_method(m, z)]}
    points = [(by_method[r["method"]][0], by_method[r["method"]][1], r["event"])
              for r in rows if "event" in r]
    frame = point_frame(points, "Z")
    write_sweep(job, "figure6", frame, "Z", "number of topics Z (log scale)",
                "The paper (its own collection, 2 to 16 topics per query's 500 tweets): the "
                "models alike at 2 topics, DCT ahead at 4 and 8, all flat from 8 to 16. "
                f"Here Z spans the whole stream of 26 events; Z = {CONFIG_TOPICS} is the "
                "configs' own, Table 2's measurement.", log_x=True)


def point_frame(points, key: str) -> pd.DataFrame:
    """Mean and std over seeds of each metric per (model, point); ``points`` is a list
    of ``(model, point, event-query metrics)``."""
    records = []
    found_models = dict.fromkeys(p[0] for p in points)  # SWEEP_MODELS' order, then the rest
    for model in [m for m in SWEEP_MODELS if m in found_models] + [
            m for m in found_models if m not in SWEEP_MODELS]:
        for value in sorted({p[1] for p in points if p[0] == model}):
            found = [p[2] for p in points if p[0] == model and p[1] == value]
            records.append({"model": model, key: value, "runs": len(found),
                            **summarise_metrics(found)})
    return pd.DataFrame(records)


def write_sweep(job, name: str, frame: pd.DataFrame, key: str, xlabel: str, paper: str,
                log_x: bool = False) -> None:
    """One panel per metric, one line per model; the table beside it."""
    import matplotlib.pyplot as plt

    number = name.removeprefix("figure")
    fig, axes = plt.subplots(1, len(RANKING_METRICS), figsize=(16, 3.6))
    for ax, metric in zip(axes, RANKING_METRICS):
        for model in dict.fromkeys(frame["model"]) if len(frame) else []:
            part = frame[frame["model"] == model]
            ax.errorbar(part[key], part[f"{metric}_mean"], yerr=part[f"{metric}_std"],
                        marker="o", capsize=3, label=model)
        ax.set(xlabel=xlabel, title=METRIC_LABELS[metric])
        if log_x:  # ticks at the measured values, written as numbers
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted(frame[key].unique()) if len(frame) else [1])
            ax.xaxis.set_major_formatter(plt.matplotlib.ticker.ScalarFormatter())
            ax.xaxis.set_minor_locator(plt.matplotlib.ticker.NullLocator())
    if len(frame):
        axes[0].legend(fontsize="small")
    runs = sorted(frame["runs"].unique().tolist()) if len(frame) else []
    fig.suptitle(f"Figure {number} analogue: retrieval on CrisisLexT26 (event-name queries) "
                 f"against {key}, mean ± std over {', '.join(map(str, runs)) or 0} runs "
                 "per point")
    fig.tight_layout()
    save_figure(fig, job.figure_path(name))
    plt.close(fig)
    table = [[r["model"], _point(r[key]), int(r["runs"])]
             + [f"{r[f'{m}_mean']:.4f} ± {r[f'{m}_std']:.4f}" for m in RANKING_METRICS]
             for _, r in frame.iterrows()]
    text = "\n".join([
        f"# DCT (KDD 2016), Figure {number} analogue: retrieval against {key}", "",
        f"![Figure {number} analogue]({name}.png)", "",
        markdown_table(["model", key, "runs"] + [METRIC_LABELS[m] for m in RANKING_METRICS],
                       table), "",
        "Event-name queries on CrisisLexT26, ranked as in `table2.md` (Eq. 12-13, the "
        "60/30/10 tuning); mean ± sample std over seeds. " + paper + " DCT-P: DCT with the "
        "generative process's precisions (`configs/papers/dct/dct_tracking.yaml`). TTM: "
        "the topic tracking model, the documents of a step as its users.",
        provenance_line(job), ""])
    job.write_table(name, frame, text)


def _point(value) -> str:
    return f"{value:g}"


__all__ = ["lambda_figure", "topics_figure", "point_frame", "SWEEP_MODELS", "TOPIC_COUNTS"]
