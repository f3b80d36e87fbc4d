"""Where each registered dataset comes from upstream, and how its files become our JSON Lines.

Every dataset file in the registry (:mod:`shortclust.data.registry`) was converted from a
public GitHub repository at a pinned commit. This module records, per dataset, that
repository and commit, which upstream files are needed, how they are fetched (``files``:
each file from ``raw.githubusercontent.com``; ``archive``: the repository's tarball, for
sets of thousands of small files) and a converter from the upstream bytes to the JSON Lines
the registry promises (one object per line with ``text``, ``label`` and, where the source
has them, ``id``, ``time`` and a few dataset-specific keys), together with the SHA-256 of
the converted JSON Lines. :mod:`shortclust.data.download` fetches, converts and checks.

The converters are pure functions of the upstream bytes: they raise
:class:`~shortclust.errors.DataError` on anything the upstream format does not allow (a
malformed line, counts that disagree), so a changed upstream file is refused before the
checksum is even compared.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from shortclust.errors import DataError

__all__ = ["Upstream", "UPSTREAMS", "upstream_for", "to_jsonl", "DOWNLOAD_KINDS"]

#: How the upstream bytes are fetched: one request per file, or the repository tarball.
DOWNLOAD_KINDS = ("files", "archive")

# A converter maps {upstream path: bytes} to the JSON Lines records, in file order.
Converter = Callable[[Mapping[str, bytes]], list[dict]]


@dataclass(frozen=True)
class Upstream:
    """The upstream source of one dataset file and how to rebuild it.

    Attributes
    ----------
    dataset : str
        Registry name of the dataset the converter produces.
    repo : str
        GitHub repository, ``owner/name``.
    commit : str
        The pinned commit (40 hex digits) the files are read at.
    kind : str
        ``"files"``: each path is fetched on its own; ``"archive"``: the repository's
        tarball at ``commit`` is fetched once and the files under the paths are read from it.
    paths : tuple of str
        Upstream file paths (``files``) or folder prefixes ending in ``/`` (``archive``).
    convert : callable
        ``convert({path: bytes})`` returns the records (dicts) in output order.
    sha256 : str
        SHA-256 of the dataset file as registered: the JSON Lines (UTF-8, ``\\n`` after
        every line), gzip-compressed (level 9, no name, time 0) for a ``.jsonl.gz`` file.
    content_sha256 : str or None
        For a ``.jsonl.gz`` file, SHA-256 of the decompressed JSON Lines. This is the
        checksum a download must match: gzip's bytes also depend on the zlib version
        that compressed them, the documents do not. None for a plain ``.jsonl`` file,
        whose ``sha256`` is already that of its content.
    """

    dataset: str
    repo: str
    commit: str
    kind: str
    paths: tuple[str, ...]
    convert: Converter
    sha256: str
    content_sha256: str | None = None

    @property
    def jsonl_sha256(self) -> str:
        """The checksum the converted JSON Lines must have."""
        return self.content_sha256 or self.sha256

    @property
    def source(self) -> str:
        """``owner/repo @ commit``, as ``data list`` shows it."""
        return f"{self.repo} @ {self.commit}"


def to_jsonl(records: list[dict]) -> bytes:
    """Serialise records as the registry's JSON Lines.

    Keys keep their insertion order, non-ASCII characters are written as UTF-8 (not
    ``\\u`` escapes) and every line, the last included, ends with ``\\n``.

    >>> to_jsonl([{"text": "café", "label": "1"}])
    b'{"text": "caf\\xc3\\xa9", "label": "1"}\\n'
    """
    return "".join(json.dumps(record, ensure_ascii=False) + "\n"
                   for record in records).encode("utf-8")


def _bad(path: str, problem: str) -> DataError:
    return DataError(f"upstream file {path}: {problem}: the upstream copy is not the one "
                     "registered (changed or corrupted); nothing written")


def _text(data: Mapping[str, bytes], path: str, *, bom: bool = False) -> str:
    """Decode an upstream file as strict UTF-8 (dropping a leading byte-order mark)."""
    try:
        text = data[path].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad(path, f"not UTF-8 at byte {exc.start}") from None
    return text[1:] if bom and text.startswith("\ufeff") else text


def _lines(data: Mapping[str, bytes], path: str, *, bom: bool = False) -> list[str]:
    """Lines split on ``\\n`` only: these texts may hold other characters that
    :meth:`str.splitlines` would break on (form feeds, U+2028)."""
    text = _text(data, path, bom=bom)
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def _json_lines(data: Mapping[str, bytes], path: str) -> list[dict]:
    rows = []
    for number, line in enumerate(_lines(data, path), start=1):
        try:
            row = json.loads(line)
        except ValueError:
            raise _bad(path, f"line {number} is not JSON") from None
        if not isinstance(row, dict):
            raise _bad(path, f"line {number} is not a JSON object")
        rows.append(row)
    return rows


def _field(row: dict, key: str, path: str, number: int):
    if key not in row:
        raise _bad(path, f"line {number} has no '{key}'")
    return row[key]


# --- GSDMM (Yin & Wang, KDD'14): {"text": ..., "cluster": int} per line ---------------

def _gsdmm(path: str) -> Converter:
    def convert(data):
        return [{"text": _field(row, "text", path, n), "label": str(_field(row, "cluster", path, n))}
                for n, row in enumerate(_json_lines(data, path), start=1)]
    return convert


# --- MStream (Yin et al., KDD'18): {"Id", "clusterNo", "textCleaned"} per line ---------

def _mstream(path: str) -> Converter:
    def convert(data):
        return [{"text": _field(row, "textCleaned", path, n),
                 "label": str(_field(row, "clusterNo", path, n)),
                 "id": str(_field(row, "Id", path, n)), "time": n - 1}
                for n, row in enumerate(_json_lines(data, path), start=1)]
    return convert


# --- STC2 (Xu et al.): a text file and a ground-truth file, line by line ---------------

# SearchSnippets is Phan et al.'s test set (2280 snippets) followed by their train set.
_SNIPPETS_TEST = 2280


def _stc2_pairs(data, name: str) -> list[tuple[str, str]]:
    text_path, gnd_path = f"dataset/{name}.txt", f"dataset/{name}_gnd.txt"
    texts = _lines(data, text_path, bom=True)
    labels = [label.strip() for label in _lines(data, gnd_path)]
    if len(texts) != len(labels):
        raise _bad(gnd_path, f"{len(labels)} labels for {len(texts)} texts")
    if not all(labels):
        raise _bad(gnd_path, "an empty label")
    return list(zip(texts, labels))


def _search_snippets(data):
    pairs = _stc2_pairs(data, "SearchSnippets")
    return [{"text": text, "label": label,
             "split": "test" if index < _SNIPPETS_TEST else "train"}
            for index, (text, label) in enumerate(pairs)]


def _search_snippets_test(data):
    pairs = _stc2_pairs(data, "SearchSnippets")[:_SNIPPETS_TEST]
    return [{"text": text, "label": label} for text, label in pairs]


def _stack_overflow(data):
    return [{"text": text, "label": label}
            for text, label in _stc2_pairs(data, "StackOverflow")]


# --- Rakib et al.: "label<TAB>text" per line -------------------------------------------

def _label_tab_text(path: str) -> Converter:
    def convert(data):
        records = []
        for number, line in enumerate(_lines(data, path), start=1):
            label, tab, text = line.partition("\t")
            if not tab or not label.strip():
                raise _bad(path, f"line {number} is not 'label<TAB>text'")
            records.append({"text": text, "label": label.strip()})
        return records
    return convert


# --- 20 Newsgroups: one file per post, <group>/<article number> ------------------------

def _posts(data: Mapping[str, bytes], prefix: str) -> list[tuple[str, int, str]]:
    """(group, article number, path) of every post under ``prefix``, sorted by group and
    number; other files (a macOS ``.DS_Store``) are skipped."""
    posts = []
    for path in data:
        if not path.startswith(prefix):
            continue
        parts = path[len(prefix):].split("/")
        if len(parts) == 2 and parts[1].isdigit():
            posts.append((parts[0], int(parts[1]), path))
    return sorted(posts)


def _bydate(data):
    """The 'bydate' split: train then test, each by group and article number. This copy
    was re-encoded to UTF-8 upstream, so strict UTF-8 recovers every character."""
    records = []
    for split in ("train", "test"):
        for group, number, path in _posts(data, f"data/20news-bydate-{split}/"):
            records.append({"text": _text(data, path), "label": group,
                            "id": f"{group}/{number}", "split": split})
    return records


def _usenet_text(raw: bytes) -> str:
    """A 1993 post: UTF-8 when it decodes as such, else latin-1 (the era's usual 8-bit
    charset), which decodes any byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


_DATE_HEADER = re.compile(r"^Date:[ \t]*(.*)$", re.MULTILINE)


def _post_time(text: str, path: str) -> str:
    """The Date header in UTC, ISO-8601 (``YYYY-MM-DDTHH:MM:SSZ``); a date without a
    known zone is read as UTC."""
    head = text.split("\n\n", 1)[0]
    match = _DATE_HEADER.search(head)
    try:
        when = parsedate_to_datetime(match.group(1).strip()) if match else None
    except (TypeError, ValueError):
        when = None
    if when is None:
        raise _bad(path, "no readable Date header")
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _mini_newsgroups(data):
    records = []
    for group, number, path in _posts(data, "mini_newsgroups/"):
        text = _usenet_text(data[path])
        records.append({"text": text, "label": group, "id": f"{group}/{number}",
                        "time": _post_time(text, path)})
    return records


# --- CrisisLexT26 (Olteanu et al., CSCW'15): per-event labelled CSV + tweet-id times ---

_CRISIS_EVENTS = (
    "2012_Colorado_wildfires", "2012_Costa_Rica_earthquake", "2012_Guatemala_earthquake",
    "2012_Italy_earthquakes", "2012_Philipinnes_floods", "2012_Typhoon_Pablo",
    "2012_Venezuela_refinery", "2013_Alberta_floods", "2013_Australia_bushfire",
    "2013_Bohol_earthquake", "2013_Boston_bombings", "2013_Brazil_nightclub_fire",
    "2013_Colorado_floods", "2013_Glasgow_helicopter_crash", "2013_LA_airport_shootings",
    "2013_Lac_Megantic_train_crash", "2013_Manila_floods", "2013_NY_train_crash",
    "2013_Queensland_floods", "2013_Russia_meteor", "2013_Sardinia_floods",
    "2013_Savar_building_collapse", "2013_Singapore_haze", "2013_Spain_train_crash",
    "2013_Typhoon_Yolanda", "2013_West_Texas_explosion",
)
# The registered file times Boston's tweets from their ids: its tweetids file is a large
# blob that the snapshot the file was built from did not hold.
_CRISIS_TIMES_FROM_ID = frozenset({"2013_Boston_bombings"})
_CRISIS_DIR = "data/CrisisLexT26"
_TWITTER_EPOCH_MS = 1288834974657  # the Twitter snowflake epoch (2010-11-04)


def _crisis_paths() -> tuple[str, ...]:
    paths = []
    for event in _CRISIS_EVENTS:
        paths.append(f"{_CRISIS_DIR}/{event}/{event}-tweets_labeled.csv")
        if event not in _CRISIS_TIMES_FROM_ID:
            paths.append(f"{_CRISIS_DIR}/{event}/{event}-tweetids_entire_period.csv")
    return tuple(paths)


def _csv_rows(data, path: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(_text(data, path), newline="")))
    if not rows:
        raise _bad(path, "empty")
    return rows[1:]  # the header line


def _snowflake_time(tweet_id: str) -> str:
    """Creation time encoded in a tweet id (Twitter snowflake), to the second."""
    milliseconds = (int(tweet_id) >> 22) + _TWITTER_EPOCH_MS
    when = datetime.fromtimestamp(milliseconds // 1000, tz=timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _crisis_times(data, event: str) -> dict[str, str]:
    path = f"{_CRISIS_DIR}/{event}/{event}-tweetids_entire_period.csv"
    times = {}
    for row in _csv_rows(data, path):
        try:
            when = datetime.strptime(row[0].strip(), "%a %b %d %H:%M:%S %z %Y")
        except (IndexError, ValueError):
            raise _bad(path, f"unreadable timestamp in {row[:2]}") from None
        times[row[1].strip()] = when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return times


def _crisis_lex(data):
    records = []
    for event in _CRISIS_EVENTS:
        times = {} if event in _CRISIS_TIMES_FROM_ID else _crisis_times(data, event)
        path = f"{_CRISIS_DIR}/{event}/{event}-tweets_labeled.csv"
        for row in _csv_rows(data, path):
            if len(row) != 5 or not row[0].strip().isdigit():
                raise _bad(path, f"a row with {len(row)} fields, not 5 starting with a tweet id")
            tweet_id = row[0].strip()
            when = times.get(tweet_id) or _snowflake_time(tweet_id)
            records.append({"text": row[1], "label": event, "id": tweet_id, "time": when,
                            "info_source": row[2], "info_type": row[3],
                            "informativeness": row[4]})
    # A stream: by time, then by tweet id (ids grow with time within a second too).
    records.sort(key=lambda record: (record["time"], int(record["id"])))
    return records


# --- The registered sources ----------------------------------------------------------

_GSDMM = ("jackyin12/GSDMM", "1b344d9de28faee43ec0df0c3cf7ea57737fe14e")
_MSTREAM = ("jackyin12/MStream", "ac894075f2bbb93405679e237d2d5d11a325078c")
_STC2 = ("jacoxu/STC2", "34a28c5a8cf2d6e1db300d32f271f6522db3bde5")


def _files(dataset, source, paths, convert, sha256, content_sha256=None) -> Upstream:
    return Upstream(dataset, *source, "files", tuple(paths), convert, sha256, content_sha256)


def _gsdmm_entry(dataset, name, sha256):
    return _files(dataset, _GSDMM, [f"data/{name}"], _gsdmm(f"data/{name}"), sha256)


def _mstream_entry(dataset, name, sha256):
    path = f"MStream/data/{name}"
    return _files(dataset, _MSTREAM, [path], _mstream(path), sha256)


def _stc2_paths(name):
    return [f"dataset/{name}.txt", f"dataset/{name}_gnd.txt"]


UPSTREAMS: tuple[Upstream, ...] = (
    _gsdmm_entry("Tweet", "Tweet",
                 "5ca20d18ef77ae80986f081562e7c6eae80eaf878a832aea56cf86f02503424d"),
    _gsdmm_entry("GoogleNews-T", "T",
                 "a804eae72aa0174c7855e95682792b16af321f8ed5eaf298659601539ed1289e"),
    _gsdmm_entry("GoogleNews-S", "S",
                 "81093e7516643770458703efd5a3ccac03df6791b528377ea3a35908a6947b6d"),
    _gsdmm_entry("GoogleNews-TS", "TS",
                 "b7456c7170bc978b7f7f3a3e1db8477a4a866d887c9c79324faaccf029a0deba"),
    _files("SearchSnippets", _STC2, _stc2_paths("SearchSnippets"), _search_snippets,
           "b6f67489a966115335976f0f26f0581cdfa68b4f04b8050e8e048a0476fbb50b"),
    _files("SearchSnippets-test", _STC2, _stc2_paths("SearchSnippets"),
           _search_snippets_test,
           "11dff84c16858dee2fdaba6a444af1ae9663c54b3d164e8c182913e9e670fc72"),
    _files("StackOverflow", _STC2, _stc2_paths("StackOverflow"), _stack_overflow,
           "a71cc54eca4f239089f425948f9987156311cd29663371b26f43da8e402d1a07"),
    _files("AgNews-8000", ("rashadulrakib/short-text-clustering-enhancement",
                           "f363b66e6fd51f9dd1db679d2a9ce55538ab9868"),
           ["data/agnewsdataraw-8000"], _label_tab_text("data/agnewsdataraw-8000"),
           "4390345465e7da688a7ad972f123c1218113d7b16f18aa72e2a902887e28c184"),
    Upstream("20NG-bydate", "julenminer/mlnn_P65", "7393be663c8dd63e64c8264476494e62edf05c6e",
             "archive", ("data/20news-bydate-train/", "data/20news-bydate-test/"), _bydate,
             "704c502c74c2d8300c361316164c51640f3b4500f48aa39f6509fe415f584bc1",
             "4a314bf9292e11b0c9fd4994fea650485c3c9970a1ad46cea284e4ea3256cd89"),
    Upstream("20NG-mini", "vaishnavivisweswaraiah/IR_TextMining",
             "511b749f62be2276e217b8275a6f054b1248ec8f", "archive", ("mini_newsgroups/",),
             _mini_newsgroups,
             "96692ad1167b38212694885983ad418d8830499c9632a7bbd365cbd5c134b2ff",
             "cbbcdc9b609756fe4dd26d9d1a2d10e90c37fcf0acada2e80e3004476a31deb1"),
    _mstream_entry("MStream-News", "News",
                   "ff52464155637ab9ccb9aed32824a7e4fe4a5f0e8503fb231d42268305fa1da7"),
    _mstream_entry("MStream-News-T", "News-T",
                   "4a2b991e0afebef98efb51d65628987ab12b39fa60314089767103f60e451a51"),
    _mstream_entry("MStream-Tweets", "Tweets",
                   "b15815fdeeb6499eebc77575474a720464636d768905480ac22386498b159dc7"),
    _mstream_entry("MStream-Tweets-T", "Tweets-T",
                   "45b04db67e722c052f63ca62c822c1e0bc7e90240920bac67a6aaede1a15db82"),
    _files("CrisisLexT26", ("sajao/CrisisLex", "d67cddd51131dbb28842209014f67cffe359ff42"),
           _crisis_paths(), _crisis_lex,
           "2fedb3bf55e5d3fe7ed44e0d22e0385dbf6c23c9f7a63436f8f257f05e0999bc",
           "c49e9c5ba017c1943c29674a80a3179732372845a8aecf4b819265f3ac6cf424"),
)

_BY_NAME = {upstream.dataset.lower(): upstream for upstream in UPSTREAMS}


def upstream_for(name: str) -> Upstream | None:
    """The upstream entry of a registered dataset name (case-insensitive), or None for a
    dataset derived from another file (the 20NG subsets) or one without an upstream."""
    return _BY_NAME.get(str(name).strip().lower())
