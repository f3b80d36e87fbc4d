"""Rakib et al., iterative classification ("IC"): Tables 2-5 and Appendix Figures 1-2.

Each item runs the configs under ``configs/papers/ic/`` and writes ``results/ic/``:
:mod:`.reported` holds the paper's numbers, :mod:`.settings` and :mod:`.plan` what runs,
:mod:`.tables`, :mod:`.significance` and :mod:`.notes` Tables 2-5 and the quick check,
:mod:`.figures` the Appendix figures, :mod:`.timing` ``timing.md``.
"""

from shortclust.papers.ic import claims
from shortclust.papers.ic.plan import ITEMS
from shortclust.papers.registry import Paper

PAPER = Paper(
    name="ic",
    title="Rakib, Zeh, Jankowska, Milios: enhancement of short text clustering by "
          "iterative classification (IC)",
    # The claims come last: they read the tables the other items have just written.
    items={**ITEMS, "claims": claims.write},
)
