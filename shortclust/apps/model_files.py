"""Saved models: one ZIP file of JSON and ``.npy`` arrays, whose loading executes no code.

A fitted model that declares ``predict`` is saved as the fitted attributes it lists in
``_fitted_attributes`` (the model contract; :mod:`shortclust.models.state`), with what is
needed to give it new texts: the vocabulary of its columns and the preprocessing pipeline
that made them. The file (``model.zip``) holds::

    shortclust-model.json    the header (below), UTF-8 JSON
    arrays/<attribute>.npy   each array attribute, in numpy's .npy format

The header has ``format`` (``"shortclust-model"``), ``format_version``
(:data:`FORMAT_VERSION`), ``shortclust_version``, ``model`` (the registry name), ``params``
(every constructor parameter, ``random_state`` included), ``fitted`` (the attributes that
are JSON values; a numpy Generator as ``{"numpy_generator": <its bit generator's state>}``),
``arrays`` (name -> ``{"dtype", "shape"}``), ``vocabulary`` (one word per column, or
null), ``preprocess`` (``{"name", "version", "min_doc_words"}`` of the pipeline, or null),
``representation`` (what the model was fitted on; null for term counts; for embeddings
their name, package and version), optionally ``clusterer`` (what
:class:`~.text_clusterer.TextClusterer` adds to the model), ``training``
(where it came from: dataset, its checksum, run id, seed) and ``sha256``: the SHA-256 of the
header's canonical JSON without that key, followed by each array member's name and bytes
in name order. Arrays are read with ``allow_pickle=False`` and nothing else in the file is
evaluated, so a file from elsewhere cannot run code here. A file that is not a model file,
of another ``format_version``, or whose checksum does not match its contents (edited or
damaged) is refused with a one-line :class:`~shortclust.errors.ModelFileError`.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shortclust.errors import ConfigError, ModelFileError

__all__ = ["FORMAT", "FORMAT_VERSION", "SavedModel", "load_model", "save_model"]

FORMAT = "shortclust-model"
#: Bumped whenever the layout or a model's saved attributes change; other versions are refused.
FORMAT_VERSION = 1
HEADER = "shortclust-model.json"
_ARRAYS = "arrays/"
_WAY_OUT = ("give the model.zip that `shortclust cluster` or `shortclust run --save-models` "
            "wrote")


@dataclass
class SavedModel:
    """A loaded model file.

    Attributes
    ----------
    model : ClusteringModel
        The fitted estimator: it predicts as the model that was saved.
    name : str
        Its registry name.
    vocabulary : list of str or None
        The word of each column of the counts it takes.
    preprocess : dict or None
        ``{"name", "version", "min_doc_words"}`` of the pipeline its vocabulary came from.
    representation : dict or None
        What it was fitted on (None: term counts).
    header : dict
        The whole header (``training``, versions, ...).
    path : Path
    """

    model: Any
    name: str
    vocabulary: list[str] | None
    preprocess: dict | None
    representation: dict | None
    header: dict
    path: Path


def pipeline_record(pipeline) -> dict[str, Any]:
    """What a model file says of the preprocessing (a :class:`Pipeline`)."""
    return {"name": pipeline.name, "version": pipeline.version,
            "min_doc_words": pipeline.min_doc_words}


def save_model(path, name: str, params: dict[str, Any], state, *, vocabulary=None,
               preprocess: dict | None = None, representation: dict | None = None,
               training: dict | None = None, clusterer: dict | None = None) -> Path:
    """Write a fitted model's file atomically (the format: module docstring).

    Parameters
    ----------
    path : path-like
        The file to write; its directory must exist.
    name : str
        The model's registry name.
    params : dict
        Its constructor parameters (``get_params()``); a ``random_state`` that is not an
        integer is saved as null.
    state : tuple
        :func:`~shortclust.models.state.fitted_state` of the model, computed where the
        model is (a worker process, say).
    vocabulary, preprocess, representation, training : optional
        The header's keys of these names (``preprocess`` from :func:`pipeline_record`).
    clusterer : dict, optional
        What :class:`~.text_clusterer.TextClusterer` adds (the header's ``clusterer``: its
        settings, how K was chosen, the renumbering of the model's clusters, top words).
    """
    from shortclust import __version__
    from shortclust.data.io import atomic_write
    from shortclust.models.state import json_value

    values, arrays = state
    params = dict(params)
    if not isinstance(params.get("random_state"), (int, type(None))):
        params["random_state"] = None
    members = {f"{_ARRAYS}{key}.npy": _npy_bytes(value) for key, value in arrays.items()}
    header = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "shortclust_version": __version__,
        "model": name, "params": json_value(params, "params"), "fitted": values,
        "arrays": {key: {"dtype": value.dtype.str, "shape": list(value.shape)}
                   for key, value in sorted(arrays.items())},
        "vocabulary": None if vocabulary is None else [str(word) for word in vocabulary],
        "preprocess": preprocess, "representation": representation,
        "training": json_value(training or {}, "training"),
    }
    if clusterer is not None:
        header["clusterer"] = json_value(clusterer, "clusterer")
    header["sha256"] = _checksum(header, members)

    def write(handle):
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(HEADER, json.dumps(header, ensure_ascii=False, indent=1))
            for member in sorted(members):
                archive.writestr(member, members[member])

    atomic_write(path, write)
    return Path(path)


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _checksum(header: dict, members: dict[str, bytes]) -> str:
    """SHA-256 of the header's canonical JSON (without ``sha256``) and the array members."""
    digest = hashlib.sha256()
    canonical = {key: value for key, value in header.items() if key != "sha256"}
    digest.update(json.dumps(canonical, sort_keys=True, separators=(",", ":"),
                             ensure_ascii=True).encode("utf-8"))
    for member in sorted(members):
        digest.update(member.encode("utf-8"))
        digest.update(members[member])
    return digest.hexdigest()


def load_model(path) -> SavedModel:
    """Read a model file written by :func:`save_model`, check it, rebuild the model.

    Raises
    ------
    ModelFileError
        One line naming the file and the problem: missing or not a model file, another
        format version, contents that do not match the checksum (edited or damaged), an
        unknown model or a state the model cannot take.
    """
    path = Path(path)
    header, members = _read_members(path)
    _check_format(path, header)
    if header.get("sha256") != _checksum(header, members):
        raise ModelFileError(
            f"{path}: its contents do not match their checksum (the file was edited or "
            "damaged): save the model again (shortclust cluster, or run --save-models)"
        )
    try:
        return _rebuild(path, header, members)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ModelFileError(
            f"{path}: the saved state does not fit model '{header.get('model')}' of this "
            f"shortclust ({error}): save the model again with this version"
        ) from None


def _read_members(path: Path) -> tuple[dict, dict[str, bytes]]:
    if not path.is_file():
        raise ModelFileError(f"model file not found: {path}: {_WAY_OUT}")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if HEADER not in names:
                raise ModelFileError(f"{path} is not a shortclust model file (it has no "
                                     f"{HEADER}): {_WAY_OUT}")
            header = json.loads(archive.read(HEADER).decode("utf-8"))
            members = {name: archive.read(name) for name in names if name.startswith(_ARRAYS)}
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, ValueError, EOFError) as error:
        raise ModelFileError(f"{path} is not a readable shortclust model file ({error}): "
                             f"{_WAY_OUT}") from None
    if not isinstance(header, dict):
        raise ModelFileError(f"{path}: {HEADER} is not a JSON object: {_WAY_OUT}")
    return header, members


def _check_format(path: Path, header: dict) -> None:
    if header.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a shortclust model file (format "
                             f"{header.get('format')!r}): {_WAY_OUT}")
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        from shortclust import __version__

        raise ModelFileError(
            f"{path} was saved by shortclust {header.get('shortclust_version', '?')} in "
            f"model format {version}; this shortclust ({__version__}) reads format "
            f"{FORMAT_VERSION}: save the model again with this version"
        )


def _rebuild(path: Path, header: dict, members: dict[str, bytes]) -> SavedModel:
    from shortclust.models import get_model_class
    from shortclust.models.state import model_from_state

    try:
        model_class = get_model_class(header["model"])
    except ConfigError as error:
        raise ModelFileError(f"{path}: {error}") from None
    declared = header["arrays"]
    if set(members) != {f"{_ARRAYS}{name}.npy" for name in declared}:
        raise ValueError("its arrays are not those the header lists")
    arrays = {}
    for name, meta in declared.items():
        array = np.lib.format.read_array(io.BytesIO(members[f"{_ARRAYS}{name}.npy"]),
                                         allow_pickle=False)
        if array.dtype.str != meta["dtype"] or list(array.shape) != meta["shape"]:
            raise ValueError(f"array {name} is not the {meta['dtype']} {meta['shape']} "
                             "the header lists")
        arrays[name] = array
    model = model_from_state(model_class, header["params"], header["fitted"], arrays,
                             header.get("vocabulary"))
    return SavedModel(model, header["model"], header.get("vocabulary"),
                      header.get("preprocess"), header.get("representation"), header, path)
