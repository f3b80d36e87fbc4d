"""Yin & Wang, KDD 2014 (GSDMM): Table 2, Figures 2-10 and Table 3, reproduced beside reported.

Each item runs the configs under ``configs/papers/gsdmm/`` and writes ``results/gsdmm/``:
:mod:`.reported` holds the paper's numbers, :mod:`.plan` the items and what they run,
:mod:`.tables` and :mod:`.figures` what they write, :mod:`.scaling` Table 3's benchmark.
"""

from shortclust.papers.gsdmm import claims
from shortclust.papers.gsdmm.plan import ITEMS
from shortclust.papers.registry import Option, Paper

PAPER = Paper(
    name="gsdmm",
    title="Yin & Wang, KDD 2014: short text clustering with a Dirichlet multinomial "
          "mixture (GSDMM)",
    # The claims come last: they read the tables the other items have just written.
    items={**ITEMS, "claims": claims.write},
    options=(
        Option("max_copies", int, 256, "largest number of corpus copies Table 3 measures "
               "(e.g. 16 for a quick check; larger ones are marked not run)", minimum=1),
    ),
)
