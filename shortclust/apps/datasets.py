"""What ``shortclust data list`` and ``data info`` show: tables and fields of the registered
datasets, their upstream sources, and of a corpus file given by path."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from shortclust.data.download import describe_fetch
from shortclust.data.registry import DatasetInfo
from shortclust.data.upstream import upstream_for

__all__ = ["datasets_table", "sources_table", "dataset_fields", "file_fields", "yes_no"]


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _relative_to(path: Path | None, directory: Path) -> str:
    if path is None:
        return "-"
    try:
        return str(path.relative_to(directory))
    except ValueError:
        return str(path)


def _table(caption: str):
    from rich import box
    from rich.table import Table

    return Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True,
                 caption=caption)


def datasets_table(entries, directory: Path):
    """A rich table of (DatasetInfo, path or None) pairs, paths relative to ``directory``."""
    table = _table("paths are relative to the data directory")
    table.add_column("name", no_wrap=True)
    for header in ("docs", "labels", "preprocessed", "present"):
        table.add_column(header, justify="right" if header in ("docs", "labels") else "left")
    table.add_column("path", overflow="fold")
    for info, path in entries:
        table.add_row(
            info.name, str(info.n_docs), str(info.n_labels), yes_no(info.preprocessed),
            yes_no(path is not None), _relative_to(path, directory),
        )
    return table


def sources_table(entries):
    """Where each dataset comes from (``owner/repo @ commit``, the commit cut to 12 digits)
    and how ``data download`` fetches it."""
    table = _table("commits cut to 12 digits (`data info NAME` shows the whole one); "
                   "`shortclust data download NAME|all` fetches, converts and checks a file")
    table.add_column("name", no_wrap=True)
    table.add_column("upstream (owner/repo @ commit)", overflow="fold")
    table.add_column("download", no_wrap=True)
    for info, _ in entries:
        upstream = upstream_for(info.name)
        if upstream is None:
            table.add_row(info.name, f"drawn from {info.subset.parent}", "its source")
        else:
            table.add_row(info.name, f"{upstream.repo} @ {upstream.commit[:12]}", upstream.kind)
    return table


def dataset_fields(info: DatasetInfo, path: Path | None, directory: Path) -> dict[str, str]:
    """The registry entry of one dataset, its upstream, and where its file is."""
    upstream = upstream_for(info.name)
    if upstream is None:
        source = {"upstream": "-", "download": "derived: download its source file"}
    else:
        source = {"upstream": upstream.source,
                  "download": f"{upstream.kind} ({describe_fetch(upstream)})"}
    fields = asdict(info) | source | {
        "present": path is not None,
        "path": str(path) if path else f"(not in {directory})",
    }
    return {key: yes_no(value) if isinstance(value, bool) else str(value)
            for key, value in fields.items()}


def file_fields(path: Path) -> dict[str, str]:
    """What a corpus file holds: documents, labels, times, ids, checksum."""
    from shortclust.data.io import file_sha256, read_documents
    from shortclust.data.preprocess import guess_pipeline

    documents = read_documents(path)
    labels = documents.labels
    guess = guess_pipeline(documents.texts)
    return {
        "path": str(path.resolve()),
        "docs": str(len(documents.texts)),
        "empty texts": str(sum(not text.strip() for text in documents.texts)),
        "labels": "no" if labels is None else f"{len(set(labels))} classes",
        "times": yes_no(documents.times is not None),
        "ids": yes_no(documents.ids is not None),
        "sha256": file_sha256(path),
        "preprocess": f"auto: {guess} ("
                      f"{'raw text' if guess == 'basic' else 'looks tokenised already'})",
    }
