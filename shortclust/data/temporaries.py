"""Temporary files and folders beside the outputs they become, and the removal of stale ones.

Every output is written to a temporary beside it and renamed over it
(:func:`shortclust.data.io.atomic_write`; ``cluster`` stages a whole folder). On every exit
path the process controls (an error, Ctrl-C, SIGTERM) the temporary is removed or renamed.
Only a process killed outright (SIGKILL, a power cut) leaves one behind. Its name says
whose it was: ``.<output name>.<process id>-<random>.tmp``, so the next shortclust
writing that output (or running into that folder) removes the temporaries whose process
is gone, and never those of a process still running (two writers of one output).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

__all__ = ["SUFFIX", "owner_alive", "prefix", "remove_stale", "stale"]

SUFFIX = ".tmp"
#: ``.<name>.<pid>-<random>.tmp``: ``name`` may itself hold dots; mkstemp's random part not.
_PATTERN = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-[a-z0-9_]+\.tmp$")


def prefix(name: str) -> str:
    """The start of a temporary's name for the output ``name`` (``mkstemp(prefix=...)``,
    with :data:`SUFFIX`)."""
    return f".{name}.{os.getpid()}-"


def owner_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (this one included; one of another user too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process, or no pid at all: leave the file alone
    return True


def stale(directory, names=None) -> list[Path]:
    """The temporaries in ``directory`` (not below) whose process is gone; only those of
    the outputs named in ``names`` if given."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        match = _PATTERN.match(entry.name)
        if match is None or (names is not None and match["name"] not in names):
            continue
        if not owner_alive(int(match["pid"])):
            found.append(Path(entry.path))
    return sorted(found)


def remove_stale(directory, names=None, recursive: bool = False) -> list[Path]:
    """Remove :func:`stale` temporaries (files or folders) in ``directory``, or in its whole
    tree with ``recursive``; return what was removed. Errors are ignored: a temporary that
    cannot be removed now is tried again next time."""
    removed = []
    folders = [Path(directory)]
    if recursive:
        folders += [Path(root) / d for root, dirs, _ in os.walk(directory) for d in dirs
                    if _PATTERN.match(d) is None]
    for folder in folders:
        for path in stale(folder, names):
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            except OSError:
                continue
            removed.append(path)
    return removed
