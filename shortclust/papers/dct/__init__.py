"""Liang, Yilmaz & Kanoulas, KDD 2016 (DCT, dynamic clustering of short-text streams).

Each item runs the stream configs under ``configs/papers/dct/`` and writes
``results/dct/``: :mod:`.reported` holds the paper's numbers, :mod:`.plan` the items and
what they run, :mod:`.tables` what they write.
"""

from shortclust.papers.dct import claims, heldout
from shortclust.papers.dct.plan import ITEMS
from shortclust.papers.registry import Paper

PAPER = Paper(
    name="dct",
    title="Liang, Yilmaz & Kanoulas, KDD 2016: dynamic clustering of short-text streams "
          "(DCT; clustering, perplexity and retrieval on labelled streams)",
    # The claims come last: they read the tables the other items have just written.
    items={**ITEMS, "heldout": heldout.heldout, "claims": claims.write},
)
