"""What the Banerjee & Basu reproduction runs: configs, tags and the items.

Every model family (vMF, EDCM, LDA) has a batch config and an online (stream) config under
``configs/papers/streams/``; a family whose configs or model are not in this checkout yet
is reported as not run. K is the number of groups of each dataset. Tags name the work
directories and the archived records (``results/streams/records/<tag>.json``).
"""

from __future__ import annotations

from shortclust.papers.streams import tables
from shortclust.papers.streams.cells import cells as run_cells
from shortclust.papers.streams.dims import dims as run_dims
from shortclust.papers.streams.reported import DATASETS, EXTRA_DATASETS
from shortclust.papers.streams.runs import (
    HYBRID_CONFIG, by_family, our_datasets, overrides, run_batch, run_online,
)


def table2(job) -> None:
    """Table 2: batch vMF, EDCM and LDA, NMI and run time, paper beside ours."""
    tables.write_table2(job, by_family(job, run_batch))


def table3(job) -> None:
    """Table 3: the top 10 words of five batch vMF clusters (news-20; slash-7 is not public)."""
    records = run_batch(job, "vMF", DATASETS["news-20"]) \
        if job.dataset_here(DATASETS["news-20"]) else []
    tables.write_table3(job, records)


def table4(job) -> None:
    """Table 4: online vMF, EDCM and LDA, NMI and time per document, paper beside ours."""
    tables.write_table4(job, by_family(job, run_online))


def figure1(job) -> None:
    """Figure 1: h-vMF's NMI against the fraction of the stream, OFFLINE every 20%."""
    hybrid, online = {}, {}
    for name, registry in our_datasets(job).items():
        if name in EXTRA_DATASETS:
            continue  # the paper's figure: the news datasets
        hybrid[name] = job.stream(HYBRID_CONFIG, f"hvmf_{registry}", overrides(job, registry))
        online[name] = run_online(job, "vMF", registry)
    tables.write_figure1(job, hybrid, online)


def dims(job) -> None:
    """Table 2 at the paper's vocabulary sizes, then with the posts' headers kept."""
    run_dims(job)


def cells(job) -> None:
    """The cells no preprocessing explains, rerun under model settings of the time."""
    run_cells(job)


ITEMS = {"table2": table2, "table3": table3, "table4": table4, "figure1": figure1,
         "dims": dims, "cells": cells}
