"""Yan, Guo, Liu, Cheng, Wang, CIKM 2012 (Ncut-weighted NMF): Tables 1-3 and Figure 3.

Each item runs the configs under ``configs/papers/ncut/`` and writes ``results/ncut/``:
:mod:`.reported` holds the paper's numbers, :mod:`.plan` the items and what they run,
:mod:`.tables` and :mod:`.figures` what they write, :mod:`.timing` the runs' fit times.
"""

from shortclust.papers.ncut import claims
from shortclust.papers.ncut.plan import ITEMS
from shortclust.papers.registry import Paper

PAPER = Paper(
    name="ncut",
    title="Yan, Guo, Liu, Cheng, Wang, CIKM 2012: clustering short text using "
          "Ncut-weighted non-negative matrix factorization",
    # The claims come last: they read the tables the other items have just written.
    items={**ITEMS, "claims": claims.write},
)
