"""What the DCT reproduction runs: configs, tags and the items.

Every model is a stream config under ``configs/papers/dct/`` run through the stream
pipeline (:mod:`shortclust.pipeline.stream`): 16 equal time steps, next-batch
perplexity on (``stream.perplexity``). A model whose config or registered model is not in
this checkout is reported as not run. Tags name the work directories and the archived
records (``results/dct/records/<tag>.json``).
"""

from __future__ import annotations

from pathlib import Path

from shortclust.models import model_names
from shortclust.papers.dct import tables

CONFIGS = Path("configs/papers/dct")
#: Model (as the tables name it) -> (config, registered model name).
MODELS = {"DCT": ("dct.yaml", "dct"), "DCT-L": ("dct_long.yaml", "dct"),
          "DCT-F": ("dct_fixed.yaml", "dct"), "DCT-P": ("dct_tracking.yaml", "dct"),
          "TTM": ("ttm.yaml", "ttm"), "DMM": ("dmm.yaml", "gsdmm"),
          "LDA": ("lda.yaml", "lda"), "MStream": ("mstream.yaml", "mstream"),
          "MStreamF": ("mstreamf.yaml", "mstreamf")}
#: The labelled streams (the paper's collection is not public).
DATASETS = ("MStream-News-T", "MStream-Tweets-T", "CrisisLexT26")
#: Figure 7's analogue: the numbers of topics, on one stream.
TOPIC_COUNTS = (2, 4, 8, 16, 32, 64, 128, 256)
PERPLEXITY_DATASET = "MStream-News-T"
PERPLEXITY_MODELS = ("DCT", "DCT-F", "DCT-P", "TTM", "DMM", "LDA")


def available(job, model: str) -> bool:
    """Whether a model's config and registered model are in this checkout."""
    config, name = MODELS[model]
    return name in model_names() and job.project_path(CONFIGS / config).is_file()


def present(job) -> list[str]:
    found = [name for name in DATASETS if job.dataset_here(name)]
    missing = sorted(set(DATASETS) - set(found))
    if missing:
        job.say(f"{job.paper}: not in the data directory (not run): {', '.join(missing)}")
    return found


def run_stream(job, model: str, dataset: str, n_topics: int | None = None) -> list[dict]:
    """A model's stream config on a dataset (with Z = ``n_topics`` if given)."""
    config, _ = MODELS[model]
    tag = f"{model.lower().replace('-', '_')}_{dataset}"
    overrides = [f"dataset={dataset}"]
    if n_topics is not None:
        tag += f"_z{n_topics}"
        overrides.append(f"model.params.n_clusters={n_topics}")
    return job.stream(CONFIGS / config, tag, overrides)


def clustering(job) -> None:
    """Clustering quality and next-batch perplexity of every model on every stream."""
    results = {model: ({dataset: run_stream(job, model, dataset) for dataset in present(job)}
                       if available(job, model) else None) for model in MODELS}
    tables.write_clustering(job, results)


def perplexity(job) -> None:
    """Figure 7's analogue: mean next-batch perplexity against the number of topics."""
    results = {}
    if job.dataset_here(PERPLEXITY_DATASET):
        for model in PERPLEXITY_MODELS:
            if not available(job, model):
                continue
            results[model] = {z: run_stream(job, model, PERPLEXITY_DATASET, z)
                              for z in TOPIC_COUNTS}
    tables.write_perplexity(job, results, PERPLEXITY_DATASET)


def retrieval_models(job) -> dict:
    """Model name -> (class, parameters) of each available stream config, for retrieval:
    the config's model parameters with its stream's ``partial_iter``."""
    from shortclust.models import get_model_class

    models = {}
    for name in ("DMM", "LDA", "TTM", "DCT", "DCT-L", "DCT-F", "DCT-P"):
        if not available(job, name):
            continue
        config = job.config(CONFIGS / MODELS[name][0])
        params = dict(config.model.params)
        partial_iter = (config.stream or {}).get("partial_iter")
        if partial_iter is not None:
            params["partial_iter"] = partial_iter
        models[name] = (get_model_class(config.model.name), params)
    return models


def retrieval(job) -> None:
    """Table 2's analogue: cluster-based retrieval on CrisisLexT26 with each model."""
    from shortclust.papers.dct.retrieval import DATASET, retrieval as run_retrieval

    if job.dataset_here(DATASET):
        run_retrieval(job, retrieval_models(job))
    else:
        job.say(f"{job.paper}: {DATASET} is not in the data directory: retrieval not run")


def dependency(job) -> None:
    """Figure 4's analogue: DCT's retrieval on CrisisLexT26 against the dependency L."""
    from shortclust.papers.dct.dependency import dependency as run_dependency
    from shortclust.papers.dct.retrieval import DATASET

    models = retrieval_models(job)
    if "DCT" in models and job.dataset_here(DATASET):
        run_dependency(job, *models["DCT"])
    else:
        job.say(f"{job.paper}: DCT or {DATASET} is not here: dependency not run")


def lambdas(job) -> None:
    """Figure 5's analogue: retrieval on CrisisLexT26 against the mixture weight lambda."""
    from shortclust.papers.dct.retrieval import DATASET
    from shortclust.papers.dct.sweeps import lambda_figure

    if job.dataset_here(DATASET):
        lambda_figure(job, retrieval_models(job))
    else:
        job.say(f"{job.paper}: {DATASET} is not in the data directory: lambda not run")


def topics(job) -> None:
    """Figure 6's analogue: retrieval on CrisisLexT26 against the number of topics."""
    from shortclust.papers.dct.retrieval import DATASET
    from shortclust.papers.dct.sweeps import topics_figure

    if job.dataset_here(DATASET):
        topics_figure(job, retrieval_models(job))
    else:
        job.say(f"{job.paper}: {DATASET} is not in the data directory: topics not run")


def retrieval_figures(job) -> None:
    """Figures 2 and 3's analogues: retrieval per cutoff day (heat maps) and per query
    (DCT minus TTM) on CrisisLexT26."""
    from shortclust.papers.dct.retrieval import DATASET
    from shortclust.papers.dct.retrieval_detail import detail

    if job.dataset_here(DATASET):
        detail(job, retrieval_models(job))
    else:
        job.say(f"{job.paper}: {DATASET} is not in the data directory: figures 2-3 not run")


ITEMS = {"clustering": clustering, "perplexity": perplexity, "retrieval": retrieval,
         "dependency": dependency, "lambda": lambdas, "topics": topics,
         "figures2_3": retrieval_figures}
