"""Outputs never replace what the user owns.

A command writes its files atomically (a temporary file renamed over the target), and a
rename replaces whatever the target is: a device node (``--output /dev/null`` run as root
would replace the system's), a named pipe, or the very file the command reads. So before
anything is written:

* :func:`check_output_file` refuses an output file that is a directory, a FIFO, a device
  or a socket, or that is one of the command's inputs (the texts, the model);
* :func:`check_output_dir` refuses an output directory under which the command would
  write over one of its inputs (``cluster out/assignments.csv --output out``);
* :func:`~shortclust.data.io.check_replaceable` is the first rule at the last moment, for
  any writer (:func:`shortclust.data.io.atomic_write` calls it on every target).
"""

from __future__ import annotations

import os
from pathlib import Path

from shortclust.data.io import check_replaceable, special_kind
from shortclust.errors import ConfigError

#: What ``shortclust cluster`` writes in its output directory (:mod:`shortclust.apps.cluster`).
CLUSTER_WRITES = ("assignments.csv", "clusters.csv", "clusters.md", "model.zip", "record.json",
                  "report.html")

__all__ = ["CLUSTER_WRITES", "check_output_dir", "check_output_file", "check_replaceable",
           "check_replaces_only_its_own", "special_kind"]

def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return Path(os.path.abspath(one)) == Path(os.path.abspath(other))


def check_output_file(target, inputs: dict[str, object]) -> Path:
    """Refuse an output file that is not a regular file or is one of ``inputs``.

    Parameters
    ----------
    target : path-like
        The output file.
    inputs : dict
        What the command reads, by the name a message gives it ("input file", "model
        file") -> path.

    Raises
    ------
    ConfigError
        One line naming the output and the clash.
    """
    target = Path(target)
    check_replaceable(target)
    for name, path in inputs.items():
        if path is not None and _same_file(target, Path(path)):
            raise ConfigError(f"output '{target}' is the {name} ({path}): writing it would "
                              "overwrite it; choose another file with --output")
    return target


def check_replaces_only_its_own(target, starts: bytes | tuple[bytes, ...], what: str) -> None:
    """Refuse to replace an existing ``target`` that does not start as the command's own
    output does (``starts``, or one of them): ``report RUN --output RUN/assignments.csv``
    replaced the run's assignments with HTML, and ``predict --output notes.csv`` replaced
    any file given by mistake.

    Raises
    ------
    ConfigError
    """
    starts = (starts,) if isinstance(starts, bytes) else tuple(starts)
    try:
        with open(target, "rb") as handle:
            head = handle.read(max(len(start) for start in starts)).lower()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return
    except OSError as error:
        raise ConfigError(f"output '{target}': cannot read it ({error.strerror or error}): "
                          "choose another file with --output") from None
    if not any(head.startswith(start.lower()) for start in starts):
        raise ConfigError(f"output '{target}' exists and is not {what}: writing would replace "
                          "it; choose another file with --output, or remove it first")


def check_output_dir(directory, inputs: dict[str, object], writes=()) -> Path:
    """Refuse an output directory where the command would write over one of ``inputs``.

    ``writes`` are the names the command writes in ``directory``: files, or folders
    (``run``) everything under which counts as written.

    Raises
    ------
    ConfigError
    """
    directory = Path(directory)
    kind = special_kind(directory)
    if kind is not None and kind != "a directory":
        raise ConfigError(f"output '{directory}' is {kind}: choose a directory with --output")
    base = Path(os.path.abspath(directory))
    for written in writes:
        kind = special_kind(base / written)
        if kind is not None and kind != "a directory":
            raise ConfigError(f"output '{directory / written}' is {kind}: choose another "
                              "directory with --output")
    for name, path in inputs.items():
        if path is None:
            continue
        where = Path(os.path.abspath(path))
        for written in (base / written for written in writes):
            if _same_file(where, written) or written in where.parents:
                raise ConfigError(
                    f"output '{directory}' would overwrite the {name} ({path}), which is "
                    "among the files it writes: choose another directory with --output, or "
                    "move the file")
    return directory
