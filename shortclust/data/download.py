"""``shortclust data download``: fetch a registered dataset from upstream, convert, verify, write.

For a dataset with an upstream entry (:mod:`shortclust.data.upstream`) the steps are:

1. fetch the upstream files at the pinned commit over HTTPS with :mod:`urllib` (each file
   from ``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>``, or the whole
   repository from ``https://github.com/<owner>/<repo>/archive/<commit>.tar.gz``);
2. convert them to the registry's JSON Lines;
3. compare the SHA-256 of that JSON Lines with the registered checksum, and refuse the
   dataset (a :class:`~shortclust.errors.DataError`, nothing written) if it differs;
4. write the file into the data directory through a temporary file renamed into place
   (:func:`shortclust.data.io.atomic_write`), so a reader never sees half a file.

A *mirror* base URL replaces both upstream hosts (``<mirror>/<owner>/<repo>/<commit>/<path>``
and ``<mirror>/<owner>/<repo>/archive/<commit>.tar.gz``): the tests serve a synthetic
mirror on 127.0.0.1, and a user behind a proxy can point at a copy of the files.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import socket
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path

from shortclust import __version__
from shortclust.data.io import atomic_write
from shortclust.data.registry import (
    DatasetInfo,
    find_dataset_file,
    get_info,
    resolve_data_dir,
)
from shortclust.data.upstream import UPSTREAMS, Upstream, to_jsonl, upstream_for
from shortclust.errors import DataError

__all__ = ["RAW_HOST", "ARCHIVE_HOST", "DEFAULT_TIMEOUT", "Fetcher", "DownloadResult",
           "download", "download_targets", "file_url", "archive_url", "upstream_bytes",
           "build_file", "describe_fetch"]

RAW_HOST = "https://raw.githubusercontent.com/"
ARCHIVE_HOST = "https://github.com/"
#: Seconds a connection or a read may stall before the download is abandoned.
DEFAULT_TIMEOUT = 60.0
_CHUNK = 1 << 16


def _base(host: str, mirror: str | None) -> str:
    """The base URL: the upstream host, or the mirror (checked, with one trailing slash)."""
    if mirror is None:
        return host
    parts = urllib.parse.urlsplit(mirror)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise DataError(f"--mirror {mirror!r} is not an http(s) URL: pass a base URL such "
                        "as http://127.0.0.1:8000/")
    return mirror.rstrip("/") + "/"


def file_url(upstream: Upstream, path: str, mirror: str | None = None) -> str:
    """URL of one upstream file at the pinned commit.

    >>> from shortclust.data.upstream import upstream_for
    >>> file_url(upstream_for("Tweet"), "data/Tweet")
    'https://raw.githubusercontent.com/jackyin12/GSDMM/1b344d9de28faee43ec0df0c3cf7ea57737fe14e/data/Tweet'
    """
    quoted = urllib.parse.quote(path)
    return f"{_base(RAW_HOST, mirror)}{upstream.repo}/{upstream.commit}/{quoted}"


def archive_url(upstream: Upstream, mirror: str | None = None) -> str:
    """URL of the repository's tarball at the pinned commit (GitHub redirects it to
    codeload.github.com; :mod:`urllib` follows the redirect)."""
    return f"{_base(ARCHIVE_HOST, mirror)}{upstream.repo}/archive/{upstream.commit}.tar.gz"


@dataclass
class Fetcher:
    """Fetches URLs with a timeout, keeping each file fetched in this session.

    Parameters
    ----------
    timeout : float
        Seconds a connection or a single read may stall (not the whole transfer).
    mirror : str or None
        Base URL replacing the upstream hosts.
    log : callable or None
        Receives one line per request (``fetching URL``); None: silent.
    """

    timeout: float = DEFAULT_TIMEOUT
    mirror: str | None = None
    log: Callable[[str], None] | None = None
    _cache: dict[str, bytes] = field(default_factory=dict, repr=False)

    def get(self, url: str) -> bytes:
        """The body of ``url`` (cached: SearchSnippets and its test split share files)."""
        if url not in self._cache:
            buffer = io.BytesIO()
            self.copy(url, buffer)
            self._cache[url] = buffer.getvalue()
        return self._cache[url]

    def copy(self, url: str, handle) -> int:
        """Stream the body of ``url`` into a binary file ``handle``; return its size.

        Raises
        ------
        DataError
            One line for every way the transfer can fail: HTTP status, refused or
            unreachable host, timeout, a connection closed early.
        """
        if self.log is not None:
            self.log(f"fetching {url}")
        request = urllib.request.Request(url, headers={"User-Agent": f"shortclust/{__version__}"})
        size = 0
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                expected = response.headers.get("Content-Length")
                while chunk := response.read(_CHUNK):
                    handle.write(chunk)
                    size += len(chunk)
        except urllib.error.HTTPError as exc:
            what = "not found" if exc.code == 404 else f"refused ({exc.reason})"
            raise DataError(f"{url}: {what} (HTTP {exc.code}): the upstream file has moved or "
                            "the mirror lacks it; nothing written") from None
        except (TimeoutError, socket.timeout):
            raise self._timed_out(url) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                raise self._timed_out(url) from None
            raise DataError(f"{url}: cannot connect ({exc.reason}): check the network or "
                            "--mirror, or copy the dataset file into the data directory "
                            "yourself; nothing written") from None
        except (HTTPException, OSError) as exc:
            raise DataError(f"{url}: transfer failed ({type(exc).__name__}: {exc}): try "
                            "again; nothing written") from None
        if expected is not None and expected.isdigit() and int(expected) != size:
            raise DataError(f"{url}: got {size} of {expected} bytes (connection closed "
                            "early): try again; nothing written")
        return size

    def _timed_out(self, url: str) -> DataError:
        return DataError(f"{url}: no answer within {self.timeout:g} s: try again later or "
                         "raise --timeout; nothing written")


def _archive_members(upstream: Upstream, fetcher: Fetcher) -> dict[str, bytes]:
    """The files under ``upstream.paths`` in the repository tarball, by path in the repo.

    The tarball goes to a temporary file (it holds the whole repository, which may be
    large); members are read, never extracted, so no path in it can reach the disk.
    """
    url = archive_url(upstream, fetcher.mirror)
    members: dict[str, bytes] = {}
    with tempfile.TemporaryFile() as spool:
        fetcher.copy(url, spool)
        spool.seek(0)
        try:
            with tarfile.open(fileobj=spool, mode="r:gz") as archive:
                for member in archive:
                    # GitHub's tarballs hold one top folder, <repo>-<commit>/.
                    _, _, path = member.name.partition("/")
                    if member.isfile() and path.startswith(upstream.paths):
                        members[path] = archive.extractfile(member).read()
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            raise DataError(f"{url}: not a readable .tar.gz ({type(exc).__name__}): the "
                            "download is corrupted or the mirror serves something else; "
                            "nothing written") from None
    if not members:
        raise DataError(f"{url}: holds no file under {', '.join(upstream.paths)}: not the "
                        "registered repository snapshot; nothing written")
    return members


def upstream_bytes(upstream: Upstream, fetcher: Fetcher) -> dict[str, bytes]:
    """Fetch the upstream files of one dataset: ``{path in the repository: bytes}``."""
    if upstream.kind == "archive":
        return _archive_members(upstream, fetcher)
    return {path: fetcher.get(file_url(upstream, path, fetcher.mirror))
            for path in upstream.paths}


def describe_fetch(upstream: Upstream) -> str:
    """What a download of ``upstream`` fetches, for ``data list`` and the progress line.

    >>> from shortclust.data.upstream import upstream_for
    >>> describe_fetch(upstream_for("SearchSnippets")), describe_fetch(upstream_for("20NG-mini"))
    ('2 files', 'the repository archive')
    """
    if upstream.kind == "archive":
        return "the repository archive"
    count = len(upstream.paths)
    return f"{count} file{'s' if count != 1 else ''}"


def _gzip(content: bytes) -> bytes:
    """Gzip as the registered ``.jsonl.gz`` files were written: level 9, no file name,
    modification time 0 (so the same content gives the same bytes)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buffer,
                       mtime=0) as handle:
        handle.write(content)
    return buffer.getvalue()


def build_file(info: DatasetInfo, upstream: Upstream, fetcher: Fetcher) -> tuple[bytes, int]:
    """Fetch, convert and verify one dataset.

    Returns
    -------
    payload : bytes
        The bytes of its registered file (gzip-compressed for a ``.jsonl.gz``).
    n_docs : int
        Documents (lines) in it.

    Raises
    ------
    DataError
        If a fetch fails, the upstream format is broken, or the converted JSON Lines
        does not have the registered SHA-256.
    """
    content = to_jsonl(upstream.convert(upstream_bytes(upstream, fetcher)))
    digest = hashlib.sha256(content).hexdigest()
    if digest != upstream.jsonl_sha256:
        raise DataError(
            f"{info.name}: the converted upstream data has sha256 {digest[:16]}..., not the "
            f"registered {upstream.jsonl_sha256[:16]}...: the upstream copy was changed or "
            "corrupted; nothing written")
    payload = _gzip(content) if info.filename.endswith(".gz") else content
    return payload, content.count(b"\n")


@dataclass(frozen=True)
class DownloadResult:
    """What :func:`download` did for one dataset.

    Attributes
    ----------
    name : str
        The registry name of the file's dataset.
    path : Path
        The dataset file in the data directory.
    status : str
        ``"written"``, ``"present"`` (already there with the registered content) or
        ``"skipped"`` (there, not checked: ``if_missing``).
    sha256 : str or None
        SHA-256 of the file (None when skipped).
    n_docs : int
        Documents in the file (the registry's count when not written now).
    """

    name: str
    path: Path
    status: str
    sha256: str | None
    n_docs: int

    def line(self) -> str:
        """One line for the terminal."""
        if self.status == "skipped":
            return f"{self.name}: {self.path} is present (not checked: --if-missing)"
        what = "wrote" if self.status == "written" else "already present:"
        return f"{self.name}: {what} {self.path} ({self.n_docs} docs, sha256 {self.sha256})"


def download_targets(name: str) -> list[str]:
    """Registry names of the files ``data download NAME`` writes.

    ``all`` gives every dataset with an upstream entry; a dataset derived from another
    file (the 20NG subsets) gives that file.

    >>> download_targets("20NG-sim3")
    ['20NG-bydate']
    """
    if name.strip().lower() == "all":
        return [upstream.dataset for upstream in UPSTREAMS]
    info = get_info(name)
    if info.subset is not None:
        return download_targets(info.subset.parent)
    if upstream_for(info.name) is None:
        raise DataError(f"dataset '{info.name}' has no registered upstream to download from: "
                        f"get it from {info.source}")
    return [info.name]


def _content_sha256(path: Path) -> str:
    """SHA-256 of a dataset file's JSON Lines (decompressed for a ``.gz``)."""
    digest = hashlib.sha256()
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except (OSError, EOFError) as exc:  # a damaged .gz reads as another content
        return f"unreadable ({type(exc).__name__})"
    return digest.hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def download(
    name: str,
    data_dir: str | os.PathLike | None = None,
    fetcher: Fetcher | None = None,
    *,
    force: bool = False,
    if_missing: bool = False,
    log: Callable[[str], None] | None = None,
) -> DownloadResult:
    """Download one registered dataset file into the data directory.

    Parameters
    ----------
    name : str
        Registry name of a dataset with an upstream entry (see :func:`download_targets`).
    data_dir : path-like, optional
        Target directory (else ``$SHORTCLUST_DATA``, else the user cache); created if
        missing.
    fetcher : Fetcher, optional
        Timeout, mirror and session cache (default: upstream hosts, 60 s timeout).
    force : bool
        Replace a present file whose content differs from the registered one (by default
        such a file, perhaps the user's own edit, is kept and the call refused).
    if_missing : bool
        Return at once, without reading it, if the file (or its (de)compressed twin) is
        present.
    log : callable, optional
        Receives one line before the fetch (what is fetched from where).

    Returns
    -------
    DownloadResult

    Raises
    ------
    DataError
        Unknown name, failed fetch, upstream data that does not convert or does not have
        the registered checksum, a present file that differs (without ``force``), or a
        data directory that cannot be written. Nothing is written in any of these cases.
    """
    info = get_info(name)
    upstream = upstream_for(info.name)
    if upstream is None:  # a derived set: name its file (download_targets raises if none)
        raise DataError(f"dataset '{info.name}' is made from another file: download "
                        f"{', '.join(download_targets(info.name))}")
    fetcher = fetcher or Fetcher()
    directory = resolve_data_dir(data_dir)
    present = find_dataset_file(info, directory)
    if present is not None:
        if if_missing:
            return DownloadResult(info.name, present, "skipped", None, info.n_docs)
        if _content_sha256(present) == upstream.jsonl_sha256:
            return DownloadResult(info.name, present, "present", _file_sha256(present),
                                  info.n_docs)
        if not force:
            raise DataError(f"{info.name}: {present} is present but its content is not the "
                            "registered one: move it away or pass --force to replace it")
    if log is not None:
        log(f"{info.name}: fetching {describe_fetch(upstream)} from {upstream.source}")
    payload, n_docs = build_file(info, upstream, fetcher)
    target = directory / info.filename
    try:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(target, lambda handle: handle.write(payload))
    except OSError as exc:
        raise DataError(f"cannot write {target} ({exc.strerror or type(exc).__name__}): "
                        "pass --data-dir (or set SHORTCLUST_DATA) to a writable folder; "
                        "nothing written") from None
    return DownloadResult(info.name, target, "written", hashlib.sha256(payload).hexdigest(),
                          n_docs)
