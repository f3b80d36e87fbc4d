"""What the Banerjee & Basu reproduction runs: configs, families, tags and run counts;
the items that build tables from them are in :mod:`shortclust.papers.streams.plan`.
"""

from __future__ import annotations

from pathlib import Path

from shortclust.data.registry import get_info
from shortclust.models import model_names
from shortclust.papers.streams.reported import DATASETS, EXTRA_DATASETS

CONFIGS = Path("configs/papers/streams")
#: Family -> (batch config, online config, registered model name).
FAMILIES = {"vMF": ("vmf.yaml", "vmf_online.yaml", "movmf"),
            "EDCM": ("edcm.yaml", "edcm_online.yaml", "edcm"),
            "LDA": ("lda.yaml", "lda_online.yaml", "lda")}
HYBRID_CONFIG = CONFIGS / "hvmf.yaml"
#: Runs per cell unless --runs: the paper's 5, and 10 on the 3-class sets, whose spread over
#: seeds is large.
RUNS, SMALL_K_RUNS = 5, 10


def available(job, family: str) -> bool:
    """Whether a family's configs and model are in this checkout."""
    batch, online, model = FAMILIES[family]
    return model in model_names() and all(
        job.project_path(CONFIGS / name).is_file() for name in (batch, online))


def our_datasets(job) -> dict[str, str]:
    """Paper name (or our stream's name) -> registry name, for the datasets present."""
    wanted = {p: r for p, r in DATASETS.items() if r is not None} | EXTRA_DATASETS
    present = {p: r for p, r in wanted.items() if job.dataset_here(r)}
    missing = sorted(set(wanted) - set(present))
    if missing:
        job.say(f"{job.paper}: not in the data directory (not run): {', '.join(missing)}")
    return present


def overrides(job, dataset: str) -> list[str]:
    """K = the dataset's number of groups; the run count of its kind of set."""
    n_labels = get_info(dataset).n_labels
    extra = [] if job.runs is not None else [f"runs={SMALL_K_RUNS if n_labels <= 3 else RUNS}"]
    return [f"dataset={dataset}", f"model.params.n_clusters={n_labels}", *extra]


def _tag(family: str, kind: str, dataset: str) -> str:
    return f"{family.lower()}_{kind}_{dataset}"


def run_batch(job, family: str, dataset: str, variant: str | None = None,
              more: tuple[str, ...] | list[str] = ()) -> list[dict]:
    """A family's batch config on a dataset; ``variant`` names a run with ``more``
    overrides (another preprocessing, say) in its own tag."""
    config = CONFIGS / FAMILIES[family][0]
    kind = "batch" if variant is None else f"batch_{variant}"
    return job.run(config, _tag(family, kind, dataset), dataset,
                   overrides(job, dataset) + list(more))


def run_online(job, family: str, dataset: str) -> list[dict]:
    config = CONFIGS / FAMILIES[family][1]
    return job.stream(config, _tag(family, "online", dataset), overrides(job, dataset))


def by_family(job, run) -> dict[str, dict[str, list[dict]] | None]:
    """``{family: {paper dataset: records}}``; None for a family not available."""
    datasets = our_datasets(job)
    return {family: ({name: run(job, family, registry) for name, registry in datasets.items()}
                     if available(job, family) else None)
            for family in FAMILIES}
