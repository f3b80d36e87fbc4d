"""Reproduced papers: one package each, found by the registry (:mod:`.registry`).

A paper's package declares ``PAPER`` (name, title, items, options) in its ``__init__`` and
splits its work by concern: ``reported.py`` (the paper's numbers, each with its table or
figure), ``plan.py`` (configs, tags and the items that run them), ``tables.py`` and
``figures.py`` (built from run records only). Papers never import each other.
"""

from shortclust.papers.registry import (  # noqa: F401
    Option, Paper, get_paper, paper_names, registered, reproduce,
)
