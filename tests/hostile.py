"""Hostile inputs for the hardening tests and ``docs/hardening.md``'s cases.

Crafted model files (an edited header with its checksum recomputed, as an attacker would),
a ZIP bomb, and the other odd files a user or an attacker may hand the command line. Each
function writes one file and returns its path; nothing here runs shortclust.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

HEADER = "shortclust-model.json"


def read_model(path) -> tuple[dict, dict[str, bytes]]:
    """A model file's header and array members (bytes)."""
    with zipfile.ZipFile(path) as archive:
        header = json.loads(archive.read(HEADER))
        members = {name: archive.read(name) for name in archive.namelist()
                   if name.startswith("arrays/")}
    return header, members


def checksum(header: dict, members: dict[str, bytes]) -> str:
    """The format's SHA-256, recomputed as anyone can (see model_files)."""
    digest = hashlib.sha256()
    canonical = {key: value for key, value in header.items() if key != "sha256"}
    digest.update(json.dumps(canonical, sort_keys=True, separators=(",", ":"),
                             ensure_ascii=True).encode("utf-8"))
    for member in sorted(members):
        digest.update(member.encode("utf-8"))
        digest.update(members[member])
    return digest.hexdigest()


def write_model(path, header: dict, members: dict[str, bytes], *, recompute=True) -> Path:
    if recompute:
        header = {**header, "sha256": checksum(header, members)}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(HEADER, json.dumps(header))
        for name in sorted(members):
            archive.writestr(name, members[name])
    return Path(path)


def npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def edited_model(source, target, **fitted) -> Path:
    """``source`` with fitted JSON values replaced (``n_clusters_=10**7``), checksum redone."""
    header, members = read_model(source)
    header["fitted"].update(fitted)
    return write_model(target, header, members)


def edited_header(source, target, edit) -> Path:
    """``source`` with ``edit(header)`` applied, checksum redone."""
    header, members = read_model(source)
    edit(header)
    return write_model(target, header, members)


def longer_vocabulary(source, target) -> Path:
    """A vocabulary longer than the count arrays (three different outputs before)."""
    return edited_header(source, target, lambda header: header["vocabulary"].extend(
        f"extra{i}" for i in range(50)))


def shrunk_counts(source, target, name="cluster_word_counts_") -> Path:
    """One column fewer in a count array, the header's shape updated to match."""
    header, members = read_model(source)
    array = np.load(io.BytesIO(members[f"arrays/{name}.npy"]))[..., :-1]
    members[f"arrays/{name}.npy"] = npy_bytes(array)
    header["arrays"][name]["shape"] = list(array.shape)
    return write_model(target, header, members)


def deep_header(source, target, depth=100_000) -> Path:
    """A header whose ``training`` is ``depth`` nested lists (RecursionError before)."""
    header, members = read_model(source)
    header["training"] = "<deep>"
    text = json.dumps(header).replace('"<deep>"', "[" * depth + "]" * depth)
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(HEADER, text)
        for name in sorted(members):
            archive.writestr(name, members[name])
    return Path(target)


def huge_npy_header(source, target, name="labels_") -> Path:
    """An ``.npy`` member whose own header declares shape (10**12,) (MemoryError before)."""
    header, members = read_model(source)
    raw = members[f"arrays/{name}.npy"]
    start = raw.index(b"(")
    end = raw.index(b")", start)
    fake = raw[:start] + b"(1000000000000,)" + raw[end + 1:]
    members[f"arrays/{name}.npy"] = fake
    return write_model(target, header, members)


def zip_bomb(source, target, gib: float = 6.0, *, honest_header=True) -> Path:
    """``source`` whose ``labels_`` member is ``gib`` GiB of zeros (a few MB compressed).

    ``honest_header``: the header declares the member's true shape (and the checksum is
    recomputed over it, streaming); otherwise it keeps the small shape and lies.
    """
    header, members = read_model(source)
    name = "arrays/labels_.npy"
    length = int(gib * 2**30) // 8
    npy_head = npy_bytes(np.zeros(0, dtype="<i8")).replace(b"(0,)", f"({length},)".encode())
    # .npy headers are padded to a multiple of 64 bytes: realign after the longer shape.
    npy_head = _realigned(npy_head)
    members.pop(name)
    if honest_header:
        header["arrays"]["labels_"]["shape"] = [length]
    chunk = bytes(64 * 2**20)
    digest = hashlib.sha256()
    canonical = {key: value for key, value in header.items() if key != "sha256"}
    digest.update(json.dumps(canonical, sort_keys=True, separators=(",", ":"),
                             ensure_ascii=True).encode("utf-8"))
    everything = sorted([*members, name])
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=1) as archive:
        for member in everything:
            if member != name:
                digest.update(member.encode("utf-8"))
                digest.update(members[member])
                continue
            digest.update(member.encode("utf-8"))
            with archive.open(member, "w", force_zip64=True) as handle:
                handle.write(npy_head)
                digest.update(npy_head)
                left = length * 8
                while left:
                    piece = chunk[:min(left, len(chunk))]
                    handle.write(piece)
                    digest.update(piece)
                    left -= len(piece)
        for member in members:
            archive.writestr(member, members[member])
        header["sha256"] = digest.hexdigest()
        archive.writestr(HEADER, json.dumps(header))
    return Path(target)


def _realigned(head: bytes) -> bytes:
    """An .npy v1 header re-padded so the data starts at a multiple of 64 bytes."""
    text = head[10:].rstrip(b" \n") + b" "
    total = 10 + len(text) + 1
    padding = (-total) % 64
    body = text + b" " * padding + b"\n"
    return head[:8] + len(body).to_bytes(2, "little") + body
