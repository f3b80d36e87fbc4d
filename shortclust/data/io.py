"""Reading documents from JSON Lines, gzipped JSON Lines, CSV and plain-text files.

Every problem a user's file can have is reported as a one-line :class:`DataError` that
names the file and, where there is one, the line number (1-based, as an editor shows it).
The module also holds :func:`atomic_write`, used for the corpus cache and run records.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import itertools
import os
import re
import stat
import sys
import tempfile
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from shortclust.data import temporaries
from shortclust.errors import ConfigError, DataError, involving
from shortclust.interrupts import deferred

__all__ = ["RawDocuments", "read_documents", "file_sha256", "atomic_write",
           "SUPPORTED_SUFFIXES"]

SUPPORTED_SUFFIXES = (".jsonl.gz", ".jsonl", ".csv", ".txt")

# Errors a damaged or unreadable file raises while being read; gzip reports a bad header as
# OSError (BadGzipFile), a truncated stream as EOFError and a corrupt block as zlib.error.
_READ_ERRORS = (OSError, EOFError, zlib.error)
#: The largest integer time (stream position) accepted: differences of two such times and a
#: window stay inside int64, so batching cannot overflow.
MAX_TIME = 2**61


@dataclass
class RawDocuments:
    """Documents as read from a file, before any preprocessing.

    Attributes
    ----------
    texts : list of str
        One text per document, exactly as stored (empty strings are documents too).
    labels : list of str or None
        Ground-truth labels as strings, or None if the file has none.
    times : list or None
        ISO-8601 strings or integer stream positions, or None if the file has none.
    ids : list of str or None
        Source document ids, or None if the file has none.
    """

    texts: list[str]
    labels: list[str] | None = None
    times: list | None = None
    ids: list[str] | None = None

    def __len__(self) -> int:
        return len(self.texts)


def _fail(path: Path, lineno: int | str | None, problem: str, way_out: str) -> DataError:
    where = f"{path}, line {lineno}" if lineno is not None else str(path)
    return DataError(f"{where}: {problem}: {way_out}")


def suffix_of(path: str | os.PathLike) -> str | None:
    """Return the supported suffix ``path`` ends with (case-insensitive), or None."""
    lower = str(path).lower()
    for suffix in SUPPORTED_SUFFIXES:
        if lower.endswith(suffix):
            return suffix
    return None


def _open_binary(path: Path, suffix: str):
    """Open the file for reading bytes, turning OS errors into DataError.

    Only a regular file is opened: opening a FIFO waits for a writer forever, and a
    device such as /dev/zero is read until memory runs out.
    """
    kind = special_kind(path)
    if kind == "a directory":
        raise DataError(f"{path} is a directory: pass a data file")
    if kind is not None:
        raise _fail(path, None, f"it is {kind}, not a regular file",
                    "save the texts to a file and pass that")
    try:
        if suffix == ".jsonl.gz":
            return gzip.open(path, "rb")
        return open(path, "rb")
    except FileNotFoundError:
        raise DataError(f"file not found: {path}: check the path") from None
    except IsADirectoryError:
        raise DataError(f"{path} is a directory: pass a data file") from None
    except OSError as exc:
        raise _fail(path, None, f"cannot open file ({exc.strerror or exc})",
                    "check its permissions") from None


def _iter_lines(path: Path, suffix: str, keepends: bool = False):
    """Yield ``(lineno, text)`` for each line, decoded as strict UTF-8.

    Decoding line by line (rather than through a text wrapper, which decodes ahead in
    blocks) lets a bad byte be reported with its line number.
    """
    with _open_binary(path, suffix) as handle:
        lineno = 0
        try:
            for lineno, raw in enumerate(_split_lines(handle), start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _fail(path, lineno, f"not valid UTF-8 ({exc.reason})",
                                "re-save the file as UTF-8") from None
                if lineno == 1:
                    line = line.removeprefix("\ufeff")  # editors add a byte-order mark
                yield lineno, line if keepends else line.rstrip("\r\n")
        except _READ_ERRORS as exc:
            kind = "a corrupt or truncated gzip file" if suffix == ".jsonl.gz" else "unreadable"
            raise _fail(path, lineno + 1, f"cannot read file, {kind} ({exc})",
                        "download or copy it again") from None


_LONE_CR = re.compile(rb"(?<=\r)(?!\n)")


def _split_lines(handle):
    """The file's lines, whichever of LF, CRLF or a lone CR (old Mac files) ends them.

    A binary file splits on LF only, so a file of CR-only lines would be one document; each
    line ending in a lone CR is given LF instead.
    """
    for raw in handle:
        if b"\r" not in raw:
            yield raw
            continue
        for piece in _LONE_CR.split(raw):
            if piece:
                yield piece[:-1] + b"\n" if piece.endswith(b"\r") else piece


class _Columns:
    """Collects the optional fields (label, time, id) and checks they are all-or-nothing.

    A file where some documents have a label and others not is most likely a broken merge;
    guessing would make evaluation silently wrong, so it is an error.
    """

    def __init__(self, path: Path):
        self.path = path
        self.values: dict[str, list] = {"label": [], "time": [], "id": []}
        self.first_missing: dict[str, int | None] = {"label": None, "time": None, "id": None}
        self.first_present: dict[str, int | None] = {"label": None, "time": None, "id": None}

    def add(self, lineno: int, field: str, value) -> None:
        if value is None:
            if self.first_missing[field] is None:
                self.first_missing[field] = lineno
            if self.first_present[field] is not None:
                self._mixed(field, lineno)
            return
        if self.first_present[field] is None:
            self.first_present[field] = lineno
        if self.first_missing[field] is not None:
            self._mixed(field, self.first_missing[field])
        self.values[field].append(value)

    def _mixed(self, field: str, missing_line: int) -> None:
        raise _fail(self.path, missing_line, f"no '{field}' although line "
                    f"{self.first_present[field]} has one",
                    f"give every document {'an' if field == 'id' else 'a'} {field} or none")

    def get(self, field: str) -> list | None:
        return self.values[field] if self.first_present[field] is not None else None


def _as_label(path: Path, lineno: int, value) -> str | None:
    """Labels are strings; integer labels (common in user files) become their decimal text."""
    if value is None or (isinstance(value, str) and value == ""):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise _fail(path, lineno, f"'label' is {type(value).__name__}",
                "use a string or an integer label")


def _as_id(value) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def _as_time(path: Path, lineno: int, value):
    """Check a time value: an ISO-8601 string or an integer stream position."""
    if value is None or (isinstance(value, str) and value == ""):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if not -MAX_TIME <= value <= MAX_TIME:
            raise _fail(path, lineno, f"'time' {value} is out of range",
                        f"write integer positions between -2**61 and 2**61 ({MAX_TIME})")
        return value
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
            if moment.tzinfo is not None:
                moment.astimezone(timezone.utc)
        except ValueError:
            raise _fail(path, lineno, f"'time' {value!r} is not an ISO-8601 timestamp",
                        "write times as YYYY-MM-DDTHH:MM:SSZ or as integer positions") from None
        except OverflowError:
            raise _fail(path, lineno, f"'time' {value!r} is out of range in UTC",
                        "write a time between the years 1 and 9999") from None
        return value
    raise _fail(path, lineno, f"'time' is {type(value).__name__}",
                "write times as ISO-8601 strings or integer positions")


def _check_time_kinds(path: Path, times: list | None) -> None:
    """Timestamps and stream positions cannot share one time axis."""
    if not times:
        return
    first_is_int = isinstance(times[0], int)
    for i, value in enumerate(times):
        if isinstance(value, int) != first_is_int:
            raise _fail(path, None, f"document {i + 1} mixes a "
                        f"{'timestamp' if first_is_int else 'integer position'} with "
                        f"{'integer positions' if first_is_int else 'timestamps'}",
                        "use one kind of 'time' in the whole file")


def _parse_json_line(path: Path, lineno: int, line: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _fail(path, lineno, f"invalid JSON ({exc.msg} at column {exc.colno})",
                    "fix or remove that line") from None
    except RecursionError:
        raise _fail(path, lineno, "JSON nested too deeply to read",
                    "write one flat object per line") from None
    if not isinstance(record, dict):
        raise _fail(path, lineno, "not a JSON object",
                    'write one object per line, like {"text": "...", "label": "..."}')
    text = record.get("text")
    if not isinstance(text, str):
        if "text" not in record:
            problem = "no 'text' field"
        elif text is None:
            problem = "'text' is null"
        else:
            problem = "'text' is not a string"
        raise _fail(path, lineno, problem, 'give every line a string "text" field')
    return record


def _read_jsonl(path: Path, suffix: str) -> RawDocuments:
    texts: list[str] = []
    columns = _Columns(path)
    blank_since: int | None = None  # first line of the current run of blank lines
    for lineno, line in _iter_lines(path, suffix):
        if not line.strip():
            blank_since = blank_since or lineno
            continue
        if blank_since is not None:
            # Only trailing blank lines are harmless; one in the middle would shift every
            # later document's line number, which doc_index and error messages rely on.
            raise _fail(path, blank_since, "blank line between documents",
                        "remove it (only blank lines at the end are ignored)")
        record = _parse_json_line(path, lineno, line)
        texts.append(record["text"])
        columns.add(lineno, "label", _as_label(path, lineno, record.get("label")))
        columns.add(lineno, "time", _as_time(path, lineno, record.get("time")))
        columns.add(lineno, "id", _as_id(record.get("id")))
    return _finish(path, texts, columns)


def _read_txt(path: Path) -> RawDocuments:
    texts = [line for _, line in _iter_lines(path, ".txt")]
    # A trailing newline already ends the last line; further blank lines at the end are
    # padding, not documents. Blank lines in the middle are empty documents and stay.
    while texts and not texts[-1].strip():
        texts.pop()
    return _finish(path, texts, _Columns(path))


def _csv_rows(path: Path):
    """Yield ``(where, header, row)`` for each non-blank CSV record.

    ``where`` is the record's line, or ``"first-last"`` when a quoted field spans lines
    (an unclosed quote swallows the rest of the file, so its first line matters). The
    reader is fed lines decoded one at a time, so line numbers stay exact for decoding
    errors as well as for CSV errors.
    """
    allow_csv_fields_of(path)
    lines = (line for _, line in _iter_lines(path, ".csv", keepends=True))
    first = next(lines, None)
    delimiter = csv_delimiter(first or "")
    reader = csv.reader(itertools.chain([first] if first is not None else [], lines),
                        delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            return
        while True:
            first = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                return
            if row:  # csv yields [] for blank lines
                last = reader.line_num
                yield (str(last) if last == first else f"{first}-{last}"), header, row
    except csv.Error as exc:
        raise _fail(path, reader.line_num, f"malformed CSV ({exc})",
                    "check the quoting on that line") from None


_DELIMITERS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def csv_delimiter(header: str) -> str:
    """The separator of a CSV from its header line: a comma when it has one, else the
    semicolon, tab or vertical bar it holds most (spreadsheets in many locales save
    semicolons)."""
    if "," in header:
        return ","
    counts = {sign: header.count(sign) for sign in _DELIMITERS if sign != ","}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def allow_csv_fields_of(path) -> None:
    """Let the csv module read a field as long as the file (its default limit, 128 KB, makes
    a long but valid text "malformed")."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return
    if size > csv.field_size_limit():
        csv.field_size_limit(min(size + 1, sys.maxsize))


def _read_csv(path: Path) -> RawDocuments:
    texts: list[str] = []
    columns = _Columns(path)
    positions: dict[str, int] | None = None
    for lineno, header, row in _csv_rows(path):
        if positions is None:
            positions = _csv_positions(path, header)
        if len(row) != len(header):
            raise _fail(path, lineno, f"{len(row)} field(s) where the header has {len(header)}",
                        "quote texts that contain commas")
        get = {name: row[i] for name, i in positions.items()}
        texts.append(get["text"])
        columns.add(lineno, "label", _as_label(path, lineno, get.get("label")))
        columns.add(lineno, "time", _as_time(path, lineno, _csv_time(get.get("time"))))
        columns.add(lineno, "id", _as_id(get.get("id")))
    return _finish(path, texts, columns)


def _csv_positions(path: Path, header: list[str]) -> dict[str, int]:
    """Column index of text/label/time/id (header names compared case-insensitively)."""
    names = [name.strip().lower() for name in header]
    if "text" not in names:
        raise _fail(path, 1, f"no 'text' column (columns: {', '.join(header)})",
                    "name the column holding the documents 'text'")
    return {f: names.index(f) for f in ("text", "label", "time", "id") if f in names}


def _csv_time(cell: str | None):
    """CSV cells are strings: an all-digit time is a stream position."""
    if cell is not None and cell.strip().lstrip("-").isdigit():
        return int(cell)
    return cell


def _finish(path: Path, texts: list[str], columns: _Columns) -> RawDocuments:
    if not texts:
        raise _fail(path, None, "the file holds no documents", "check that it is the right file")
    times = columns.get("time")
    _check_time_kinds(path, times)
    return RawDocuments(texts=texts, labels=columns.get("label"), times=times,
                        ids=columns.get("id"))


def read_documents(path: str | os.PathLike) -> RawDocuments:
    """Read the documents of a ``.jsonl``, ``.jsonl.gz``, ``.csv`` or ``.txt`` file.

    Parameters
    ----------
    path : path-like
        JSON Lines (one object per line with a string ``text``, optional ``label``,
        ``time``, ``id``), optionally gzipped; CSV with a header naming a ``text`` column
        and optional ``label``, ``time``, ``id`` columns; or plain text, one document per
        line and no labels.

    Returns
    -------
    RawDocuments
        Texts in file order. Empty texts are kept as documents.

    Raises
    ------
    DataError
        Missing or unreadable file, unsupported suffix, invalid JSON or UTF-8 (with the
        line number), a line without a string ``text``, a CSV without a ``text`` column,
        labels/times/ids given for only some documents, or no documents at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
    >>> _ = p.write_text('{"text": "a b", "label": "x"}\\n{"text": "", "label": "y"}\\n')
    >>> read_documents(p).labels
    ['x', 'y']
    """
    path = Path(path)
    suffix = suffix_of(path)
    if suffix is None:
        raise DataError(f"{path}: unsupported file type: use one of "
                        f"{', '.join(SUPPORTED_SUFFIXES)}")
    with involving(f"input file {path}"):
        if suffix == ".csv":
            return _read_csv(path)
        if suffix == ".txt":
            return _read_txt(path)
        return _read_jsonl(path, suffix)


def file_sha256(path: str | os.PathLike, chunk_size: int = 1 << 20) -> str:
    """Return the hex SHA-256 of the file's bytes as stored (a gzip file is not unpacked).

    Streams the file in chunks so large files need no memory.

    Raises
    ------
    DataError
        If the file is missing or unreadable.
    """
    path = Path(path)
    digest = hashlib.sha256()
    handle = _open_binary(path, "")
    with handle:
        try:
            for chunk in iter(lambda: handle.read(chunk_size), b""):
                digest.update(chunk)
        except OSError as exc:
            raise _fail(path, None, f"cannot read file ({exc})", "check the file") from None
    return digest.hexdigest()


def atomic_write(target: str | os.PathLike, write) -> None:
    """Write ``target`` through a fsynced temporary file in its directory, then rename it.

    Readers see the old file or the whole new one, never a partial file, even after a
    crash. ``write`` receives the temporary file opened for writing bytes. The directory
    must exist. On any failure the temporary file is removed and the error propagates; a
    SIGTERM waits for the rename (:func:`~shortclust.interrupts.deferred`), so it leaves
    no temporary file either. The temporary is named after this process
    (:mod:`shortclust.data.temporaries`); one that a SIGKILL left beside ``target`` is
    removed here the next time ``target`` is written.
    """
    target = Path(target)
    check_replaceable(target)
    temporaries.remove_stale(target.parent, {target.name})
    with deferred():
        _atomic_write(target, write)


def _atomic_write(target: Path, write) -> None:
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=temporaries.prefix(target.name),
                                suffix=temporaries.SUFFIX)
    try:
        # mkstemp makes the file private (0600); give it the mode a plain open would.
        os.fchmod(fd, ordinary_mode())
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException as error:
        Path(temp).unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename is None:
            error.filename = str(target)  # a full disk names the output, not a descriptor
        raise


_SPECIAL_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                  (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                  (stat.S_ISSOCK, "a socket"))


def special_kind(path) -> str | None:
    """What ``path`` is if it exists and is not a regular file ("a directory", "a FIFO
    (named pipe)", "a character device"...), following symbolic links; else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "not a regular file")


def check_replaceable(target) -> None:
    """Refuse to replace ``target`` unless it is absent or a regular file: a rename over a
    device node, a named pipe or a directory would remove it (issue 27).

    Raises
    ------
    ConfigError
    """
    kind = special_kind(target)
    if kind is not None:
        raise ConfigError(f"output '{target}' is {kind}: shortclust writes an output by "
                          "replacing the file, which would remove it; give the name of a "
                          "regular file with --output")


def write_problem(error: OSError, path=None) -> str:
    """Why writing ``path`` failed, in the words of a one-line message: a full disk, a
    permission, a part of the path that is a file, else the system's reason."""
    import errno

    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device"
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"permission denied ({error.strerror or error})"
    if path is not None and error.errno in (errno.EEXIST, errno.ENOTDIR, errno.ENOENT):
        blocking = file_in_the_way(path)
        if blocking is not None:
            return f"'{blocking}' is a file, not a folder"
    return error.strerror or str(error)


def folder_problem(path) -> str | None:
    """Why no file can be written at ``path`` for its folder (a part of the path that is a
    file, or a missing folder), in the words of a one-line message; None if it is there."""
    folder = Path(path).parent
    if folder.is_dir():
        return None
    blocking = file_in_the_way(path)
    return (f"'{blocking}' is a file, not a folder" if blocking is not None
            else f"the folder '{folder}' does not exist: create it")


def check_folder_option(option: str, folder) -> None:
    """Refuse a folder option (``--results``, ``--work-dir``) that is a file or lies under
    one, before any work: it failed only when the first table was written.

    Raises
    ------
    ConfigError
    """
    blocking = file_in_the_way(Path(folder) / "_")
    if blocking is not None:
        raise ConfigError(f"{option} '{folder}': '{blocking}' is a file, not a folder: "
                          f"choose a folder for {option}")


def file_in_the_way(path) -> Path | None:
    """The nearest existing folder above ``path`` if it is not a folder (``afile`` of
    ``afile/out.csv``), which no write under it can get past; else None."""
    existing = next((part for part in Path(path).parents if part.exists()), None)
    return existing if existing is not None and not existing.is_dir() else None


def ordinary_mode(directory: bool = False) -> int:
    """The mode a plain ``open`` (``mkdir`` if ``directory``) gives what it creates under the
    process's umask: for a temporary made private by ``mkstemp`` (``mkdtemp``) that becomes
    an output by a rename."""
    return (0o777 if directory else 0o666) & ~_umask()


def _umask() -> int:
    """The process's file-creation mask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
