"""Banerjee & Basu, SDM 2007 (topic models over text streams): Tables 2-4, Figure 1, and
Table 2 at the paper's vocabulary sizes (:mod:`.dims`).

Each item runs the configs under ``configs/papers/streams/`` and writes
``results/streams/``: :mod:`.reported` holds the paper's numbers, :mod:`.plan` the items
and what they run, :mod:`.tables` what they write.
"""

from shortclust.papers.registry import Paper
from shortclust.papers.streams import claims
from shortclust.papers.streams.plan import ITEMS

PAPER = Paper(
    name="streams",
    title="Banerjee & Basu, SDM 2007: topic models over text streams (batch and online "
          "vMF, EDCM and LDA; the hybrid h-vMF)",
    # The claims come last: they read the tables the other items have just written.
    items={**ITEMS, "claims": claims.write},
)
