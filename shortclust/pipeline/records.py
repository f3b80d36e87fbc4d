"""Run records: one JSON line per (config, seed), the single source of truth for tables.

A record says exactly what ran (dataset name and sha256, preprocessing, model, every
parameter including defaults, seed), what came out (metrics, clusters found, iterations,
fit seconds) and where (package versions, git commit, UTC timestamp). Its ``run_id``
hashes what decides the run's labels (dataset, preprocessing, representation, model,
parameters, seed, stream settings) and nothing else, so a rerun of the same setting has
the same id and ``--resume`` can skip it, whichever metrics are reported.

Files in an output directory::

    records.jsonl              one whole JSON object per line, appended and fsynced
    labels/<run_id>.txt        predicted cluster of each document, one per line, in the
                               corpus's order (what metrics are computed from)
    assignments/<run_id>.csv   one row per input document: its row and id in the file, its
                               cluster, probability and status (:mod:`.assignments`)
    clusters/<run_id>.csv      each cluster's size and top words
    models/<run_id>.zip        the fitted model (``--save-models``; :mod:`.model_files`)

A run's files are written (atomically) before its record, so a record never points at a
missing labels file. An *archive* (``results/<paper>/records/<tag>.json``) keeps the
records of an output directory (not its labels) with the results, so runs fitted on one
machine count as recorded on another.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import subprocess
from datetime import datetime, timezone
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from shortclust.data.io import atomic_write
from shortclust.errors import DataError, involving
from shortclust.interrupts import deferred

SCHEMA_VERSION = 2
RECORDS_FILE = "records.jsonl"
LABELS_DIR = "labels"
ASSIGNMENTS_DIR = "assignments"
CLUSTERS_DIR = "clusters"
MODELS_DIR = "models"

RECORD_KEYS = (
    "schema_version",
    "run_id",
    "config_name",
    "seed",
    "dataset",
    "dataset_sha256",
    "preprocess",
    "model",
    "params",
    "metrics",
    "n_clusters",
    "n_iter",
    "fit_seconds",
    "n_docs",
    "versions",
    "git_commit",
    "timestamp",
)

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------------
# identity and provenance


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def identity_representation(representation: dict | None) -> dict | None:
    """The part of a ``representation:`` section that decides a run's labels.

    Term counts (the default) are ``None``, however spelled; ``cache`` and ``batch_size``
    only change how fast the vectors are computed (the cache key ignores them too), so
    they are left out.
    """
    if not representation or representation.get("name", "counts") == "counts":
        return None
    return {key: value for key, value in sorted(representation.items())
            if key not in ("cache", "batch_size") and value is not None}


def make_run_id(dataset, preprocess, model, params, seed, representation=None,
                stream=None) -> str:
    """First 16 hex digits of the sha256 of the canonical JSON of what decides a run's labels.

    Parameters
    ----------
    dataset : str
        Dataset as named in the config (registry name or path).
    preprocess : str
        The preprocessing pipeline actually applied.
    model : str
        Registered model name.
    params : dict
        Every constructor parameter, defaults included, without ``random_state`` and
        without a parameter added after runs were archived that holds its earlier value
        (:func:`shortclust.config.full_model_params` gives them so).
    seed : int
        The run's seed (the model's ``random_state``).
    representation : dict or None
        The config's ``representation:`` (see :func:`identity_representation`).
    stream : dict or None
        The stream settings of a stream run (``StreamSpec.as_record()``).

    Notes
    -----
    Which metrics are reported is not part of the identity: a metric added later is
    computed from the stored labels of the runs already recorded, not by refitting them.

    Examples
    --------
    >>> a = make_run_id("Tweet", "none", "gsdmm", {"alpha": 0.1}, 0)
    >>> a == make_run_id("Tweet", "none", "gsdmm", {"alpha": 0.1}, 0, {"name": "counts"})
    True
    >>> a == make_run_id("Tweet", "none", "gsdmm", {"alpha": 0.1}, 1)
    False
    """
    identity = {
        "dataset": str(dataset),
        "preprocess": str(preprocess),
        "representation": identity_representation(representation),
        "model": str(model),
        "params": params,
        "seed": int(seed),
        "stream": stream or None,
    }
    return hashlib.sha256(canonical_json(identity).encode("utf-8")).hexdigest()[:16]


def record_run_id(record: dict[str, Any]) -> str:
    """The run id a record's own fields give under the current identity."""
    return make_run_id(record["dataset"], record["preprocess"], record["model"],
                       record["params"], record["seed"], record.get("representation"),
                       record.get("stream"))


def upgrade_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record of an older schema brought to :data:`SCHEMA_VERSION`.

    Schema 1 hashed the metric list into the run id (and a stream's settings into its
    parameters); its run id is recomputed from the record's own fields. The labels file
    keeps its old name, so such a run's labels are not found and a metric it lacks is
    computed by fitting it again.
    """
    if record.get("schema_version", SCHEMA_VERSION) >= SCHEMA_VERSION:
        return record
    return {**record, "schema_version": SCHEMA_VERSION, "run_id": record_run_id(record)}


def package_versions() -> dict[str, str]:
    """Versions of shortclust, Python and the numeric libraries (numba only if installed).

    Read from package metadata, so numba is not imported (and compiled) just to be named;
    read once per process (each look-up scans the installed packages' metadata, and every
    run's record asks).
    """
    return dict(_package_versions())


@lru_cache(maxsize=1)
def _package_versions() -> dict[str, str]:
    from shortclust import __version__

    versions = {"shortclust": __version__, "python": platform.python_version()}
    for name in ("numpy", "scipy", "scikit-learn", "numba"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name != "numba":
                versions[name] = "unknown"
    return versions


@lru_cache(maxsize=1)
def git_commit() -> str:
    """Commit of the shortclust source tree, ``"-dirty"`` if it has uncommitted changes.

    Only changes under the package directory count (output folders and configs do not
    change the code that ran). ``"unknown"`` when the package is not in a git checkout or
    git is unavailable. Cached for the life of the process.
    """
    if not _git("ls-files", "--", "__init__.py"):
        return "unknown"
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return "unknown"
    dirty = _git("status", "--porcelain", "--", ".")
    return commit + ("-dirty" if dirty else "")


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=_PACKAGE_DIR, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def utc_timestamp() -> str:
    """Current UTC time as ISO 8601 with seconds, e.g. ``2024-05-01T12:00:00+00:00``."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def make_record(**fields: Any) -> dict[str, Any]:
    """Complete a record with schema version, versions, git commit and timestamp.

    ``fields`` must hold the other keys of :data:`RECORD_KEYS`; missing ones raise KeyError.
    """
    record = {
        "schema_version": SCHEMA_VERSION,
        "versions": package_versions(),
        "git_commit": git_commit(),
        "timestamp": utc_timestamp(),
        **fields,
    }
    missing = [key for key in RECORD_KEYS if key not in record]
    if missing:
        raise KeyError(f"record lacks {', '.join(missing)}")
    ordered = {key: record.pop(key) for key in RECORD_KEYS}
    return ordered | record


# --------------------------------------------------------------------------------------------
# files


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path``, creating its directory, atomically.

    Readers see either the old file or the whole new one, never a partial file (see
    :func:`shortclust.data.io.atomic_write`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda handle: handle.write(text.encode("utf-8")))


def _as_int_list(labels: Iterable) -> list[int]:
    """``labels`` as Python ints: a numpy integer array converted in one call."""
    if getattr(labels, "dtype", None) is not None and labels.dtype.kind in "iu":
        return labels.tolist()
    return [int(label) for label in labels]


def _json_safe(value: Any) -> Any:
    """Make ``value`` strict JSON: NaN/inf become None, numpy scalars Python numbers."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class RecordStore:
    """The records and labels of one output directory.

    Parameters
    ----------
    output_dir : str or Path
        Directory holding ``records.jsonl`` and ``labels/``; created on first write.

    Notes
    -----
    A record counts only once its line ends with a newline. :meth:`append` writes the whole
    line with one ``os.write`` and fsyncs it; a trailing fragment left by a crash is ignored
    by :meth:`load` and cut off before the next append.
    """

    def __init__(self, output_dir):
        self.output_dir = Path(output_dir)
        self.records_path = self.output_dir / RECORDS_FILE
        self.labels_dir = self.output_dir / LABELS_DIR

    def exists(self) -> bool:
        """True if a records file is present."""
        return self.records_path.is_file()

    def append(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one JSON line, then flush it to disk (fsync)."""
        line = json.dumps(_json_safe(record), ensure_ascii=False, allow_nan=False) + "\n"
        data = line.encode("utf-8")
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self._drop_partial_tail()
        with deferred():  # a SIGTERM waits for the whole line (raised after it)
            fd = os.open(self.records_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = 0
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            finally:
                os.close(fd)

    def rewrite(self, records: list[dict[str, Any]]) -> None:
        """Replace the whole records file with ``records``, atomically."""
        lines = [json.dumps(_json_safe(r), ensure_ascii=False, allow_nan=False) + "\n"
                 for r in records]
        atomic_write_text(self.records_path, "".join(lines))

    def _drop_partial_tail(self) -> None:
        """Cut a trailing line without newline (a write interrupted by a crash).

        Only the last byte is read in the usual case, so appending stays cheap however
        many records the file already holds.
        """
        if not self.exists():
            return
        with open(self.records_path, "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            handle.seek(0)
            handle.truncate(handle.read().rfind(b"\n") + 1)
            handle.flush()
            os.fsync(handle.fileno())

    def load(self) -> list[dict[str, Any]]:
        """Every complete record, in file order ([] if there is no records file).

        Raises
        ------
        DataError
            If a complete line is not a JSON object (the file was edited or corrupted).
        """
        if not self.exists():
            return []
        with involving(f"records file {self.records_path}"):
            text = self.records_path.read_text(encoding="utf-8", errors="replace")
            lines = text.split("\n")[:-1]  # the last piece is "" or an unfinished line
            return [upgrade_record(self._parse(number, line))
                    for number, line in enumerate(lines, 1) if line.strip()]

    def _parse(self, number: int, line: str) -> dict[str, Any]:
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("run_id"), str) or \
                not isinstance(record.get("metrics"), (dict, type(None))):
            raise DataError(
                f"{self.records_path} line {number} is not a run record (or its run_id or "
                "metrics were edited): remove that line, or rerun without --resume to start "
                "fresh"
            )
        return record

    def done_run_ids(self) -> set[str]:
        """run_ids of the complete records."""
        return {record["run_id"] for record in self.load()}

    def labels_path(self, run_id: str) -> Path:
        """Where the labels of ``run_id`` are stored."""
        return self.labels_dir / f"{run_id}.txt"

    def assignments_path(self, run_id: str) -> Path:
        """Where the assignments of ``run_id`` (one row per input document) are stored."""
        return self.output_dir / ASSIGNMENTS_DIR / f"{run_id}.csv"

    def clusters_path(self, run_id: str) -> Path:
        """Where the clusters of ``run_id`` (sizes, top words) are stored."""
        return self.output_dir / CLUSTERS_DIR / f"{run_id}.csv"

    def model_path(self, run_id: str) -> Path:
        """Where the fitted model of ``run_id`` is saved (``--save-models``)."""
        return self.output_dir / MODELS_DIR / f"{run_id}.zip"

    def write_labels(self, run_id: str, labels: Iterable) -> Path:
        """Write one label per line (document order) atomically; return the file's path."""
        # As Python ints: int() of each numpy integer took a millisecond per 2,500 labels.
        values = _as_int_list(labels)
        text = "\n".join(map(str, values)) + "\n" if values else ""
        path = self.labels_path(run_id)
        atomic_write_text(path, text)
        return path

    def read_labels(self, run_id: str) -> list[int]:
        """The labels stored for ``run_id``, as ints.

        Raises
        ------
        DataError
            The file is not one integer per line (edited or damaged).
        """
        path = self.labels_path(run_id)
        try:
            return [int(line) for line in path.read_text().split()]
        except (ValueError, UnicodeDecodeError):
            raise DataError(f"{path} is damaged (not one integer label per line): delete "
                            "it, and --resume fits that run again") from None

    def move_aside(self) -> Path:
        """Rename ``records.jsonl`` to ``records.<UTC time>.jsonl.bak``; return the new path."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.output_dir / f"records.{stamp}.jsonl.bak"
        counter = 1
        while target.exists():
            target = self.output_dir / f"records.{stamp}-{counter}.jsonl.bak"
            counter += 1
        os.replace(self.records_path, target)
        return target


# --------------------------------------------------------------------------------------------
# archives: run records kept with the results, to reuse on another machine


def first_of_each_run(*sources: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of ``sources`` in order, each run id once (the first record found wins).

    Two processes may both record a run, and an archive may hold a run its work directory
    holds too; every reader must keep the same one, or a table rebuilt from the archive
    would differ from the table printed when the runs were fitted.
    """
    seen, kept = set(), []
    for records in sources:
        for record in records:
            if record["run_id"] not in seen:
                seen.add(record["run_id"])
                kept.append(record)
    return kept


def read_archive(path) -> list[dict[str, Any]]:
    """The run records of an archive (``{"tag": ..., "records": [...]}``), upgraded.

    Raises
    ------
    DataError
        The file is not such an archive.
    """
    try:
        records = json.loads(Path(path).read_text(encoding="utf-8"))["records"]
        if not all(isinstance(r, dict) and isinstance(r.get("run_id"), str) for r in records):
            raise ValueError("a record without run_id")
        return [upgrade_record(record) for record in records]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataError(
            f"{path} is not a record archive ({error}): restore it with git, or delete it "
            "to fit its runs again"
        ) from None


def write_archive(path, records: Iterable[dict[str, Any]]) -> None:
    """Write ``records`` (each run once, first wins) as an archive, in seed order.

    The order and the formatting are fixed, so the same records give the same bytes.
    """
    path = Path(path)
    ordered = sorted(first_of_each_run(records), key=lambda r: (r.get("seed", 0), r["run_id"]))
    lines = ",\n".join(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in ordered)
    atomic_write_text(path, f'{{"tag": {json.dumps(path.stem)}, "records": [\n{lines}\n]}}\n')
