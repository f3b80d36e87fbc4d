"""Registry of the known datasets: names, files, expected sizes and upstream provenance.

The project never ships the data. Files are found in a *data directory*: the ``data_dir``
argument (the CLI's ``--data-dir``), else ``$SHORTCLUST_DATA``, else the user cache
(``$XDG_CACHE_HOME/shortclust/datasets``, by default ``~/.cache/shortclust/datasets``).
The expected document and label counts let a loader detect a partial or corrupted copy, and
the provenance tells a user elsewhere where to get a missing file.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from shortclust.data.subsets import Subset
from shortclust.errors import DataError, ShortclustError

__all__ = [
    "DatasetInfo",
    "DATASETS",
    "dataset_names",
    "get_info",
    "resolve_data_dir",
    "data_dir_origin",
    "find_dataset_file",
    "dataset_path",
    "list_datasets",
]


@dataclass(frozen=True)
class DatasetInfo:
    """What the project knows about one dataset file.

    Attributes
    ----------
    name : str
        Registry name (looked up case-insensitively).
    filename : str
        File name inside the data directory.
    n_docs : int
        Number of documents (lines) in the file.
    n_labels : int
        Number of distinct ground-truth labels.
    preprocessed : bool
        True if the source text was already preprocessed upstream (lowercased, stop words
        removed, ...), so it only needs whitespace splitting.
    default_preprocess : str
        Pipeline used when ``preprocess="auto"``, derived from ``preprocessed``: ``"none"``
        for preprocessed sets, ``"gsdmm"`` (the GSDMM paper's 4.1.3) for raw ones.
    has_time : bool
        True if documents carry a ``time`` (a timestamp or a stream position).
    source : str
        Upstream origin as ``repository : path @ commit``.
    description : str
        One line: what the texts are, plus quirks a user should know.
    subset : Subset or None
        A dataset made of some documents of another registered file (its ``filename``):
        which ones and in what order (:mod:`shortclust.data.subsets`).
    pipeline : str or None
        Default pipeline when it is neither ``"none"`` nor ``"gsdmm"``.
    """

    name: str
    filename: str
    n_docs: int
    n_labels: int
    preprocessed: bool
    default_preprocess: str = field(init=False)
    has_time: bool
    source: str
    description: str
    subset: Subset | None = None
    pipeline: str | None = None

    def __post_init__(self):
        # Frozen, so the derived field is set past the dataclass's __setattr__.
        default = self.pipeline or ("none" if self.preprocessed else "gsdmm")
        object.__setattr__(self, "default_preprocess", default)


_GSDMM = "jackyin12/GSDMM : data/{} @ 1b344d9de28faee43ec0df0c3cf7ea57737fe14e"
_STC2 = ("jacoxu/STC2 : dataset/{0}.txt + dataset/{0}_gnd.txt @ "
         "34a28c5a8cf2d6e1db300d32f271f6522db3bde5")
_MSTREAM = "jackyin12/MStream : MStream/data/{} @ ac894075f2bbb93405679e237d2d5d11a325078c"


def _entry(preprocessed, name, filename, n_docs, n_labels, source, description,
           has_time=False, subset=None, pipeline=None):
    return DatasetInfo(name, filename, n_docs, n_labels, preprocessed, has_time, source,
                       description, subset, pipeline)


_20NG = "20NG-bydate.jsonl.gz"
_20NG_SOURCE = "derived from 20NG-bydate (Banerjee, Dhillon, Ghosh & Sra, JMLR 2005)"


def _newsgroups(name, n_docs, n_labels, description, groups=None, per_group=None):
    """A Banerjee et al. 20 Newsgroups set drawn from 20NG-bydate, in stream order."""
    return _raw(name, _20NG, n_docs, n_labels, _20NG_SOURCE, description, has_time=True,
                subset=Subset("20NG-bydate", groups, per_group, seed=0),
                pipeline="newsgroups")


_pre = partial(_entry, True)   # text preprocessed upstream
_raw = partial(_entry, False)  # raw text


# Counts and provenance as in ../shared/datasets/README.md; tests check every present file
# against them.
DATASETS: tuple[DatasetInfo, ...] = (
    _pre("Tweet", "Tweet.jsonl", 2472, 89, _GSDMM.format("Tweet"),
         "GSDMM TweetSet: TREC microblog tweets, preprocessed (label ids 1..110 with gaps)"),
    _pre("GoogleNews-T", "GoogleNews-T.jsonl", 11109, 152, _GSDMM.format("T"),
         "GSDMM Google News titles, preprocessed; 1 empty text (line 3951)"),
    _pre("GoogleNews-S", "GoogleNews-S.jsonl", 11109, 152, _GSDMM.format("S"),
         "GSDMM Google News snippets, preprocessed; 1 empty text (line 6832)"),
    _pre("GoogleNews-TS", "GoogleNews-TS.jsonl", 11109, 152, _GSDMM.format("TS"),
         "GSDMM Google News title + snippet, preprocessed (T + ' ' + S on every line)"),
    _pre("SearchSnippets", "SearchSnippets.jsonl", 12340, 8, _STC2.format("SearchSnippets"),
         "Phan et al. web search snippets, preprocessed; first 2280 lines are the test split"),
    _pre("SearchSnippets-test", "SearchSnippets-test.jsonl", 2280, 8,
         _STC2.format("SearchSnippets") + " (first 2280 lines)",
         "Phan et al. web search snippets, test split only (first 2280 lines of SearchSnippets)"),
    _raw("StackOverflow", "StackOverflow.jsonl", 20000, 20, _STC2.format("StackOverflow"),
         "StackOverflow question titles, raw, 1000 per tag (2 titles keep HTML '&amp;')"),
    _pre("AgNews-8000", "AgNews-8000.jsonl", 8000, 4,
         "rashadulrakib/short-text-clustering-enhancement : data/agnewsdataraw-8000 @ "
         "f363b66e6fd51f9dd1db679d2a9ce55538ab9868",
         "AG News subset (Rakib et al.), preprocessed, 2000 per class (HTML residue 'lt gt')"),
    _raw("20NG-bydate", "20NG-bydate.jsonl.gz", 18846, 20,
         "julenminer/mlnn_P65 : data/20news-bydate-train/, data/20news-bydate-test/ @ "
         "7393be663c8dd63e64c8264476494e62edf05c6e",
         "20 Newsgroups 'bydate' (11314 train + 7532 test), raw posts with headers, no dates"),
    _raw("20NG-mini", "20NG-mini.jsonl.gz", 2000, 20,
         "vaishnavivisweswaraiah/IR_TextMining : mini_newsgroups/ @ "
         "511b749f62be2276e217b8275a6f054b1248ec8f",
         "CMU mini_newsgroups, 100 raw posts per group with full headers; time from Date header",
         has_time=True),
    _pre("MStream-News", "MStream-News.jsonl", 11109, 152, _MSTREAM.format("News"),
         "MStream News stream (GoogleNews titles, line 3951 not empty); time = stream position",
         has_time=True),
    _pre("MStream-News-T", "MStream-News-T.jsonl", 11109, 152, _MSTREAM.format("News-T"),
         "MStream News reordered so topics are local in time; time = stream position",
         has_time=True),
    _pre("MStream-Tweets", "MStream-Tweets.jsonl", 30322, 269, _MSTREAM.format("Tweets"),
         "MStream TREC microblog tweet stream (not the GSDMM Tweet set); time = stream position",
         has_time=True),
    _pre("MStream-Tweets-T", "MStream-Tweets-T.jsonl", 30322, 269, _MSTREAM.format("Tweets-T"),
         "MStream Tweets reordered so topics are local in time; time = stream position",
         has_time=True),
    _newsgroups("20NG-news20", 18846, 20, "news-20 of Banerjee & Basu: all 20 groups of "
                "20NG-bydate, headers dropped; time = stream position"),
    _newsgroups("20NG-subset20", 2000, 20, "subset-20 of Banerjee & Basu: 100 random posts "
                "per group of 20NG-bydate (seed 0); time = stream position", per_group=100),
    _newsgroups("20NG-sim3", 2946, 3, "sim-3 of Banerjee & Basu: comp.graphics, "
                "comp.os.ms-windows.misc, comp.windows.x; time = stream position",
                groups=("comp.graphics", "comp.os.ms-windows.misc", "comp.windows.x")),
    _newsgroups("20NG-rel3", 2625, 3, "rel-3 of Banerjee & Basu: talk.politics.guns, "
                "talk.politics.mideast, talk.politics.misc; time = stream position",
                groups=("talk.politics.guns", "talk.politics.mideast", "talk.politics.misc")),
    _newsgroups("20NG-diff3", 2780, 3, "diff-3 of Banerjee & Basu: alt.atheism, "
                "rec.sport.baseball, sci.space; time = stream position",
                groups=("alt.atheism", "rec.sport.baseball", "sci.space")),
    _raw("CrisisLexT26", "CrisisLexT26.jsonl.gz", 27933, 26,
         "sajao/CrisisLex : data/CrisisLexT26/<event>/<event>-tweets_labeled.csv @ "
         "d67cddd51131dbb28842209014f67cffe359ff42",
         "26 crisis events 2012-2013, raw time-stamped tweets in several languages, 2625 repeats",
         has_time=True),
)

_BY_KEY = {info.name.lower(): info for info in DATASETS}


def dataset_names() -> list[str]:
    """Registry names, in registry order."""
    return [info.name for info in DATASETS]


def get_info(name: str) -> DatasetInfo:
    """Return the registry entry for ``name`` (case-insensitive).

    Raises
    ------
    DataError
        If no dataset has that name; the message suggests close matches.
    """
    info = _BY_KEY.get(str(name).strip().lower())
    if info is not None:
        return info
    close = difflib.get_close_matches(str(name).lower(), list(_BY_KEY), n=3, cutoff=0.5)
    hint = ""
    if close:
        hint = " (did you mean " + ", ".join(_BY_KEY[c].name for c in close) + "?)"
    raise DataError(
        f"unknown dataset '{name}'{hint}: `shortclust data list` shows all, "
        "or pass a file path (.jsonl, .jsonl.gz, .csv, .txt)"
    )


def user_cache_home() -> Path:
    """``$XDG_CACHE_HOME`` if set (and absolute, as the XDG spec requires), else ``~/.cache``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg)
    return Path.home() / ".cache"


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Return the directory that holds the dataset files.

    Parameters
    ----------
    data_dir : path-like, optional
        Explicit directory (the CLI's ``--data-dir``); wins over everything else.

    Returns
    -------
    Path
        ``data_dir``, else ``$SHORTCLUST_DATA``, else the user cache
        ``$XDG_CACHE_HOME/shortclust/datasets`` (``~/.cache/shortclust/datasets``).
        The directory is not required to exist.

    Raises
    ------
    DataError
        When the path exists but is not a directory (``--data-dir /etc/passwd``).
    """
    directory, origin = _choose_data_dir(data_dir)
    if directory.exists() and not directory.is_dir():
        how = "--data-dir" if origin == "--data-dir" else "--data-dir or SHORTCLUST_DATA"
        raise DataError(
            f"data directory {directory} (from {origin}) is not a directory: point {how} "
            "at the folder holding the dataset files"
        )
    return directory


def data_dir_origin(data_dir: str | os.PathLike | None = None) -> str:
    """Which source :func:`resolve_data_dir` takes the directory from.

    Returns
    -------
    str
        ``"--data-dir"``, ``"$SHORTCLUST_DATA"`` or ``"the user cache"``.
    """
    return _choose_data_dir(data_dir)[1]


def _choose_data_dir(data_dir) -> tuple[Path, str]:
    """The data directory and its origin; the one place that holds the precedence."""
    if data_dir is not None and str(data_dir) != "":
        return Path(data_dir).expanduser(), "--data-dir"
    env = os.environ.get("SHORTCLUST_DATA", "")
    if env:
        return Path(env).expanduser(), "$SHORTCLUST_DATA"
    return user_cache_home() / "shortclust" / "datasets", "the user cache"


def _candidates(info: DatasetInfo, directory: Path) -> list[Path]:
    """File names accepted for a dataset: the registered one, then its (de)compressed twin.

    A user who gunzipped ``20NG-bydate.jsonl.gz`` (or gzipped a large ``.jsonl``) still
    has the same documents, so both spellings are found.
    """
    main = directory / info.filename
    if info.filename.endswith(".gz"):
        twin = directory / info.filename[: -len(".gz")]
    else:
        twin = directory / (info.filename + ".gz")
    return [main, twin]


def find_dataset_file(info: DatasetInfo, directory: str | os.PathLike) -> Path | None:
    """Return the file of ``info`` in ``directory`` (or its (de)compressed twin), or None."""
    for path in _candidates(info, Path(directory)):
        if path.is_file():
            return path
    return None


def dataset_present(name: str, data_dir: str | os.PathLike | None = None) -> bool:
    """Whether a registered dataset's file is in the data directory.

    False, not an error, for a name the registry does not know: a reproduction lists the
    datasets it could not run rather than stopping.
    """
    try:
        return find_dataset_file(get_info(name), resolve_data_dir(data_dir)) is not None
    except ShortclustError:
        return False


def dataset_path(name: str, data_dir: str | os.PathLike | None = None) -> Path:
    """Return the path of a registered dataset's file.

    Raises
    ------
    DataError
        If the name is unknown, or the file is not in the data directory (the message
        names the upstream source and how to point at another directory).
    """
    info = get_info(name)
    directory = resolve_data_dir(data_dir)
    path = find_dataset_file(info, directory)
    if path is None:
        raise DataError(
            f"dataset '{info.name}' ({info.filename}) not found in {directory}: "
            f"download it from {info.source} or set --data-dir / SHORTCLUST_DATA"
        )
    return path


def list_datasets(
    data_dir: str | os.PathLike | None = None,
) -> list[tuple[DatasetInfo, Path | None]]:
    """List every registered dataset with its file in the data directory.

    Returns
    -------
    list of (DatasetInfo, Path or None)
        In registry order; the path is None when the file is absent.
    """
    directory = resolve_data_dir(data_dir)
    return [(info, find_dataset_file(info, directory)) for info in DATASETS]
