"""The registry of reproduced papers, and :func:`reproduce`, which runs a paper's items.

Each paper is a subpackage of :mod:`shortclust.papers` whose ``__init__`` declares, once,
``PAPER = Paper(name, title, items, options)``: its items in order (functions of a
:class:`~shortclust.pipeline.reproduce.Reproduction`) and the command-line options of
its own (:class:`Option`). The registry finds the subpackages itself, so adding a paper
means adding its package: the command line's help and ``reproduce all`` read it from here.
"""

from __future__ import annotations

import pkgutil
import time
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Callable

from shortclust.errors import ConfigError


@dataclass(frozen=True)
class Option:
    """A command-line option of one paper: ``--<name with dashes> VALUE``.

    Attributes
    ----------
    name : str
        Key in ``Reproduction.options`` (``max_copies``; on the command line
        ``--max-copies``).
    type : callable
        Converts the command line's text (``int``, ``float``, ``str``).
    default : object
        The value when the option is not given.
    help : str
        One sentence for ``shortclust reproduce --help``.
    minimum : number, optional
        Smallest accepted value.
    """

    name: str
    type: Callable[[str], Any]
    default: Any
    help: str
    minimum: Any = None

    @property
    def flag(self) -> str:
        """The option on the command line, ``--max-copies``."""
        return "--" + self.name.replace("_", "-")

    def parse(self, text: str):
        """The value of ``text``, checked; ConfigError (one line) if it is not one."""
        try:
            value = self.type(text)
        except (TypeError, ValueError):
            raise ConfigError(f"{self.flag}: {text!r} is not a valid {self.type.__name__}") \
                from None
        return self.check(value)

    def check(self, value):
        """``value`` if it is at least :attr:`minimum`; ConfigError otherwise."""
        if self.minimum is not None and value < self.minimum:
            raise ConfigError(f"{self.flag} must be at least {self.minimum}, not {value}")
        return value


@dataclass(frozen=True)
class Paper:
    """One reproduced paper, as its package declares it.

    Attributes
    ----------
    name : str
        What ``shortclust reproduce NAME`` takes (the package's name).
    title : str
        The paper, in one line (authors, venue, subject).
    items : dict of str to callable
        Item name -> function of a Reproduction, in the order ``reproduce`` runs them.
    options : tuple of Option
        The paper's own command-line options, with their defaults.
    """

    name: str
    title: str
    items: dict[str, Callable]
    options: tuple[Option, ...] = field(default=())

    def option(self, name: str) -> Option:
        """The declared option called ``name``; ConfigError listing the declared ones."""
        for option in self.options:
            if option.name == name:
                return option
        raise ConfigError(f"paper '{self.name}' has no option --{name.replace('_', '-')}: "
                          f"{_listing('its options are', [o.flag for o in self.options])}")

    def resolve_options(self, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every declared option's value: ``given`` (checked) or its default."""
        given = dict(given or {})
        for name, value in given.items():
            self.option(name).check(value)
        return {option.name: given.get(option.name, option.default) for option in self.options}

    def choose_items(self, only: list[str] | None = None) -> list[str]:
        """The items to run, in the paper's order: all, or those named in ``only`` (an
        empty list, from ``--only ""``, is refused: it ran every item)."""
        if only is None:
            return list(self.items)
        if not only:
            raise ConfigError(f"--only names no item of paper '{self.name}': choose from "
                              f"{', '.join(self.items)}, or leave --only out for all")
        unknown = [name for name in only if name not in self.items]
        if unknown:
            raise ConfigError(f"paper '{self.name}' has no item '{unknown[0]}': "
                              f"choose from {', '.join(self.items)}")
        return [name for name in self.items if name in only]


def _listing(lead: str, names: list[str]) -> str:
    return f"{lead} {', '.join(names)}" if names else "it has none"


_registered: dict[str, Paper] | None = None


def registered() -> dict[str, Paper]:
    """Every paper, by name, in the order ``reproduce all`` runs them (sorted by name).

    The paper packages are found and imported on first use. The dict itself is returned,
    so a test may add a paper of its own (``monkeypatch.setitem(registered(), ...)``).
    """
    global _registered
    if _registered is None:
        import shortclust.papers as package

        found = {}
        for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if module.ispkg:
                paper = import_module(f"{package.__name__}.{module.name}").PAPER
                found[paper.name] = paper
        _registered = found
    return _registered


def paper_names() -> list[str]:
    """The registered papers' names, in the order ``reproduce all`` runs them."""
    return list(registered())


def get_paper(name: str) -> Paper:
    """The registered paper ``name``; ConfigError (one line) listing the papers otherwise."""
    papers = registered()
    if name not in papers:
        raise ConfigError(f"no reproduction for paper '{name}': choose one of "
                          f"{', '.join(papers)} or all")
    return papers[name]


def reproduce(paper: str, runs: int | None = None, only: list[str] | None = None,
              results_dir=None, work_dir=None, data_dir=None, quiet: bool = False,
              jobs: int = 1, fit: bool = True, options: dict[str, Any] | None = None,
              cluster: str | None = None):
    """Run a paper's items (all, or those named in ``only``) and write its results.

    Parameters
    ----------
    paper : str
        A registered paper's name.
    runs : int, optional
        Seeds ``0..runs-1`` for every config (default: the paper's own counts).
    only : list of str, optional
        Item names; default every item.
    results_dir, work_dir : path, optional
        Default: ``results/`` and ``runs/reproduce/`` of the project checkout.
    data_dir : path, optional
        Dataset directory (default: ``$SHORTCLUST_DATA``).
    quiet : bool
        No progress output.
    jobs : int
        Worker processes fitting each config's runs.
    fit : bool
        ``False``: fit nothing, build the tables from the runs already recorded.
    options : dict, optional
        Values of the paper's own options (:class:`Option`); the others keep their defaults.
    cluster : str, optional
        Fit on a Dask cluster: ``"local"`` or a scheduler address (``RunOptions.cluster``).

    Returns
    -------
    Reproduction
        The job, with the files it wrote (``written``) and the runs it fitted.

    Raises
    ------
    ConfigError
        Unknown paper, item or option, or a bad option value; DataError or
        ParameterError from the runs themselves.
    """
    from shortclust.pipeline.reproduce import Reproduction

    declared = get_paper(paper)
    chosen = declared.choose_items(only)
    job = Reproduction(paper, runs=runs, results_dir=results_dir, work_dir=work_dir,
                       data_dir=data_dir, quiet=quiet, jobs=jobs, cluster=cluster,
                       fit=fit,
                       options=declared.resolve_options(options))
    for name in chosen:
        started = time.perf_counter()
        job.collected, job.absent = 0, []
        declared.items[name](job)
        job.say(f"{paper}: {name} done in {time.perf_counter() - started:.0f} s")
    return job


def parse_paper_options(papers: list[Paper], args: list[str]) -> dict[str, dict[str, Any]]:
    """Split command-line words (``--max-copies 16``) into each paper's option values.

    An option goes to every paper in ``papers`` that declares it (``reproduce all``).

    Returns
    -------
    dict
        Paper name -> {option name: value} (only the options given).

    Raises
    ------
    ConfigError
        A word that is no declared option of these papers, an option without its value,
        or a value the option refuses.
    """
    values: dict[str, dict[str, Any]] = {paper.name: {} for paper in papers}
    words = list(args)
    while words:
        word = words.pop(0)
        flag, equals, text = word.partition("=")
        owners = [p for p in papers if flag in (o.flag for o in p.options)]
        if not flag.startswith("--") or not owners:
            raise ConfigError(_not_an_option(word, papers))
        if not equals:
            if not words:
                raise ConfigError(f"{flag} needs a value")
            text = words.pop(0)
        for paper in owners:
            option = next(o for o in paper.options if o.flag == flag)
            values[paper.name][option.name] = option.parse(text)
    return values


def _not_an_option(word: str, papers: list[Paper]) -> str:
    names = ", ".join(paper.name for paper in papers)
    flags = sorted({option.flag for paper in papers for option in paper.options})
    what = "an option" if word.startswith("-") else "an argument"
    whose = f"paper '{names}'" if len(papers) == 1 else f"papers {names}"
    return (f"{word!r} is not {what} of {whose}: "
            f"{_listing('its own options are', flags)} (see shortclust reproduce --help)")


def describe_papers() -> str:
    """The registered papers, their items and their own options, for the command's help."""
    paragraphs = []
    for paper in registered().values():
        lines = [f"{paper.name}: {paper.title}. Items: {', '.join(paper.items)}."]
        lines += [f"  {option.flag} (default {option.default}): {option.help}."
                  for option in paper.options]
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)
