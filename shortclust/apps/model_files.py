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
in name order.

Loading trusts nothing in the file. The checksum detects damage (a truncated download, a
flipped bit), not a crafted file: anyone can recompute it. So a file is read in two passes
before any model code is imported (this module needs numpy only):

1. the header (at most :data:`MAX_HEADER_BYTES`, JSON nested at most
   :data:`MAX_JSON_DEPTH` deep) with the type of every key; the fitted values and the
   dtype and shape each array is declared with, against the model's invariants
   (:mod:`shortclust.models.common.invariants`: ``n_clusters_``, ``n_features_in_``, the
   vocabulary's length); the arrays' total size against a cap
   (:func:`max_array_bytes`, 2 GiB unless ``SHORTCLUST_MAX_MODEL_BYTES`` says otherwise) and
   each ZIP member's size against its declared shape, all before a byte is decompressed;
2. each array's ``.npy`` header, parsed and compared with the declaration before the
   array is allocated; the checksum; then every value range and whole-model rule.

Only then is the model's class imported, its parameters checked against its constraints
and the model rebuilt. Arrays are read with ``allow_pickle=False``; nothing in the file is
evaluated. Every refusal is a one-line :class:`~shortclust.errors.ModelFileError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import lzma
import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shortclust.errors import ConfigError, ModelFileError, ShortclustError, involving

__all__ = ["FORMAT", "FORMAT_VERSION", "SavedModel", "check_model_file", "load_model",
           "max_array_bytes", "read_model_file", "save_model"]

FORMAT = "shortclust-model"
#: Bumped whenever the layout or a model's saved attributes change; other versions are refused.
FORMAT_VERSION = 1
HEADER = "shortclust-model.json"
_ARRAYS = "arrays/"
_WAY_OUT = ("give the model.zip that `shortclust cluster` or `shortclust run --save-models` "
            "wrote")
#: The header's largest size (a vocabulary of a few million words fits).
MAX_HEADER_BYTES = 256 * 2**20
#: The deepest nesting of JSON arrays and objects the header may have.
MAX_JSON_DEPTH = 64
#: The arrays' total size unless ``SHORTCLUST_MAX_MODEL_BYTES`` sets another.
DEFAULT_MAX_ARRAY_BYTES = 2 * 2**30
_MAX_MEMBERS = 256
_NPY_HEADER_ROOM = 65536  # an .npy header's largest size (numpy's own limit is 10,000)
_DTYPES = re.compile(r"[<|][ifb][1248]")


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


def max_array_bytes() -> int:
    """The cap on a model file's arrays (bytes): ``$SHORTCLUST_MAX_MODEL_BYTES``, else 2 GiB."""
    value = os.environ.get("SHORTCLUST_MAX_MODEL_BYTES", "").strip()
    if not value:
        return DEFAULT_MAX_ARRAY_BYTES
    if not value.isdigit():
        raise ConfigError(f"SHORTCLUST_MAX_MODEL_BYTES={value!r}: give a number of bytes")
    return int(value)


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
    from shortclust.data.io import atomic_write, folder_problem, write_problem
    from shortclust.models.state import json_value

    problem = folder_problem(_model_path(path, ConfigError))
    if problem is not None:
        raise ConfigError(f"cannot save the model as '{path}': {problem}, or choose another path")
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

    try:
        atomic_write(path, write)
    except OSError as error:
        raise ConfigError(f"cannot save the model as '{path}': {write_problem(error)}: choose "
                          "another path; a model file there is kept") from None
    return Path(path)


def _model_path(path, error: type) -> Path:
    """``path`` as a Path, or ``error`` in one line when it is no path at all (None, 5)."""
    if not isinstance(path, (str, os.PathLike)):
        raise error(f"a model file is named by a path (a str or a pathlib.Path), not by "
                    f"{_short(path)}: give the model.zip's path")
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


# --- loading ----------------------------------------------------------------------------------

@dataclass
class CheckedFile:
    """A model file whose header and arrays passed every check (:func:`read_model_file`)."""

    path: Path
    header: dict
    arrays: dict[str, np.ndarray]


def load_model(path) -> SavedModel:
    """Read a model file written by :func:`save_model`, check it, rebuild the model.

    Raises
    ------
    ModelFileError
        One line naming the file and the problem: missing, a directory, FIFO or device,
        not a model file, another format version, contents that do not match the checksum
        (edited or damaged), sizes over the cap, a state that breaks the model's invariants,
        parameters the model refuses.
    """
    with involving(f"model file {path}"):
        checked = read_model_file(_model_path(path, ModelFileError))
        return _rebuild(checked.path, checked.header, checked.arrays)


def check_model_file(path) -> None:
    """The first pass alone (header, declared shapes and sizes; no array read), with numpy
    only: what a command runs before importing the model code, so a crafted file costs
    little memory.

    Raises
    ------
    ModelFileError
    """
    path = Path(path)
    with _opened_archive(path) as archive:
        _first_pass(path, archive)


def read_model_file(path) -> CheckedFile:
    """Both passes of the module docstring's checks, with numpy only (no model code).

    Raises
    ------
    ModelFileError
    """
    from shortclust.models.common.invariants import FittedStateError, check_fitted

    path = Path(path)
    with _opened_archive(path) as archive:
        header, dims = _first_pass(path, archive)
        members = _read_arrays(path, archive, header)
    if header.get("sha256") != _checksum(header, {name: raw for name, (raw, _) in
                                                  members.items()}):
        raise ModelFileError(
            f"{path}: its contents do not match their checksum (the file was edited or "
            "damaged): save the model again (shortclust cluster, or run --save-models)")
    arrays = {name[len(_ARRAYS):-len(".npy")]: array for name, (_, array) in members.items()}
    try:
        check_fitted(invariants_of(header["model"]), header["fitted"], arrays, dims)
    except FittedStateError as error:
        raise _state_error(path, header, error) from None
    return CheckedFile(path, header, arrays)


@contextlib.contextmanager
def _opened_archive(path: Path):
    """The model file as an open ZIP archive; anything the ZIP, compression or numpy
    readers raise on a damaged or crafted file becomes one :class:`ModelFileError`."""
    _check_is_regular_file(path)
    try:
        with zipfile.ZipFile(path) as archive:
            yield archive
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError,
            EOFError, RuntimeError, ValueError, zlib.error, lzma.LZMAError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(f"{path} is not a readable shortclust model file "
                             f"({_reason(error)}): {_WAY_OUT}") from None


def _reason(error: BaseException) -> str:
    text = re.sub(r"<ZipInfo filename=('[^']*')[^>]*>", r"\1", str(error)) or type(error).__name__
    return text if len(text) <= 120 else text[:117] + "..."  # a ZipInfo's repr shortened


def _check_is_regular_file(path: Path) -> None:
    try:
        path.stat()
    except FileNotFoundError:
        raise ModelFileError(f"model file not found: {path}: {_WAY_OUT}") from None
    except OSError as error:
        raise ModelFileError(f"{path}: cannot read the model file "
                             f"({error.strerror or error}): check its permissions") from None
    from shortclust.data.io import special_kind

    kind = special_kind(path)
    if kind is not None:
        raise ModelFileError(f"{path} is {kind}, not a model file: {_WAY_OUT}")


def _first_pass(path: Path, archive: zipfile.ZipFile) -> tuple[dict, dict[str, int]]:
    """The header and every declared size, checked before any array is decompressed."""
    infos = archive.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise ModelFileError(f"{path} holds {len(infos)} members, more than a model file's "
                             f"{_MAX_MEMBERS}: {_WAY_OUT}")
    by_name = {info.filename: info for info in infos}
    if len(by_name) != len(infos):
        raise ModelFileError(f"{path} holds two members of one name: {_WAY_OUT}")
    if HEADER not in by_name:
        raise ModelFileError(f"{path} is not a shortclust model file (it has no {HEADER}): "
                             f"{_WAY_OUT}")
    header = _read_header(path, archive, by_name[HEADER])
    _check_format(path, header)
    _check_header_types(path, header)
    dims = _check_declared_state(path, header)
    expected = {f"{_ARRAYS}{name}.npy" for name in header["arrays"]}
    if set(by_name) - {HEADER} != expected:
        raise ModelFileError(f"{path}: its members are not the arrays its header lists "
                             f"(the file was edited or damaged): {_WAY_OUT}")
    total, cap = 0, max_array_bytes()
    for name, meta in header["arrays"].items():
        size = np.dtype(meta["dtype"]).itemsize * _product(meta["shape"])
        total += size
        info = by_name[f"{_ARRAYS}{name}.npy"]
        if not size <= info.file_size <= size + _NPY_HEADER_ROOM:
            raise ModelFileError(
                f"{path}: array member {name} is {info.file_size} bytes, not the size of the "
                f"{meta['dtype']} array of shape {meta['shape']} the header declares (the "
                f"file was edited or damaged): {_WAY_OUT}")
    if total > cap:
        raise ModelFileError(
            f"{path}: its arrays would take {total / 2**30:.1f} GiB, over the cap of "
            f"{cap / 2**30:.1f} GiB: set SHORTCLUST_MAX_MODEL_BYTES to a larger number of "
            "bytes if you trust this file")
    return header, dims


def _product(shape) -> int:
    result = 1
    for length in shape:
        result *= length
    return result


def _read_header(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> dict:
    if info.file_size > MAX_HEADER_BYTES:
        raise ModelFileError(f"{path}: its header is {info.file_size} bytes, more than "
                             f"{MAX_HEADER_BYTES}: {_WAY_OUT}")
    with archive.open(info) as handle:
        raw = handle.read(MAX_HEADER_BYTES + 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: its header is not UTF-8: {_WAY_OUT}") from None
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ModelFileError(f"{path}: its header nests JSON {depth} levels deep, more than "
                             f"{MAX_JSON_DEPTH}: {_WAY_OUT}")
    try:
        header = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ModelFileError(f"{path}: its header is not valid JSON ({_reason(error)}): "
                             f"{_WAY_OUT}") from None
    if not isinstance(header, dict):
        raise ModelFileError(f"{path}: {HEADER} is not a JSON object: {_WAY_OUT}")
    return header


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in a JSON text (brackets in strings ignored),
    counted without recursion, so a hostile text cannot exhaust the stack.

    >>> json_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    bare = _STRINGS.sub("", text)
    codes = np.frombuffer(bare.encode("utf-8", "replace"), dtype=np.uint8)
    steps = (np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
             - np.isin(codes, (ord("]"), ord("}"))).astype(np.int64))
    return int(np.cumsum(steps).max(initial=0))


def _check_format(path: Path, header: dict) -> None:
    if header.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a shortclust model file (format "
                             f"{_short(header.get('format'))}): {_WAY_OUT}")
    version = header.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        from shortclust import __version__

        raise ModelFileError(
            f"{path} was saved by shortclust {_plain(header.get('shortclust_version', '?'))} "
            f"in model format {_short(version)}; this shortclust ({__version__}) reads format "
            f"{FORMAT_VERSION}: save the model again with this version"
        )


def _plain(value, limit: int = 40) -> str:
    """A header's string as itself (shortened), anything else as its repr."""
    return value[:limit] if isinstance(value, str) else _short(value, limit)


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_header_types(path: Path, header: dict) -> None:
    """Each header key of the type the format says, in one line naming the first that is not."""
    def refuse(what: str):
        raise ModelFileError(f"{path}: its header's {what} (the file was edited or damaged): "
                             f"{_WAY_OUT}")

    from shortclust.models import _MODELS

    name = header.get("model")
    if not isinstance(name, str) or name not in _MODELS:
        raise ModelFileError(f"{path}: unknown model {_short(name)} (this shortclust has "
                             f"{', '.join(sorted(_MODELS))}): {_WAY_OUT}")
    if invariants_of(name) is None:
        raise ModelFileError(f"{path}: model '{name}' has no predict, so no model file: "
                             f"{_WAY_OUT}")
    for key in ("params", "fitted", "arrays"):
        if not isinstance(header.get(key), dict):
            refuse(f"'{key}' is not a JSON object")
    for key in ("representation", "preprocess"):
        if header.get(key) is not None and not isinstance(header[key], dict):
            refuse(f"'{key}' is not a JSON object or null")
    if not isinstance(header.get("sha256"), str):
        refuse("'sha256' is not a string")
    vocabulary = header.get("vocabulary")
    if vocabulary is not None:
        if not isinstance(vocabulary, list) or not all(isinstance(w, str) for w in vocabulary):
            refuse("vocabulary is not a list of words")
        if len(set(vocabulary)) != len(vocabulary):
            refuse("vocabulary lists a word twice")
    preprocess = header.get("preprocess")
    if preprocess is not None:
        words = preprocess.get("min_doc_words", 0)
        if not isinstance(preprocess.get("name"), str) or \
                not isinstance(preprocess.get("version"), str):
            refuse("preprocess lacks its pipeline's name or version")
        if not isinstance(words, int) or isinstance(words, bool) or not 0 <= words <= 10**6:
            refuse(f"preprocess.min_doc_words {_short(words)} is not a count of words")
    for name, meta in header["arrays"].items():
        shape = meta.get("shape") if isinstance(meta, dict) else None
        if not isinstance(meta, dict) or not isinstance(meta.get("dtype"), str) or \
                not _DTYPES.fullmatch(meta["dtype"]) or not isinstance(shape, list) or \
                len(shape) > 8 or not all(isinstance(n, int) and not isinstance(n, bool)
                                          and 0 <= n <= 2**40 for n in shape):
            refuse(f"array {_short(name)} has no valid dtype and shape ({_short(meta)})")


def _feature_vocabulary(header: dict):
    """The vocabulary when it names the model's features (term counts or their TF-IDF);
    None for a model fitted on embeddings, whose vocabulary only serves its top words and
    the counts of new texts, not its columns."""
    representation = header.get("representation")
    if isinstance(representation, dict) and representation.get("name") not in (None, "tfidf"):
        return None
    return header.get("vocabulary")


def _check_declared_state(path: Path, header: dict) -> dict[str, int]:
    from shortclust.models.common.invariants import FittedStateError, check_shapes

    declared = {name: (np.dtype(meta["dtype"]), tuple(meta["shape"]))
                for name, meta in header["arrays"].items()}
    vocabulary = _feature_vocabulary(header)
    try:
        return check_shapes(invariants_of(header["model"]), header["fitted"], declared,
                            None if vocabulary is None else len(vocabulary), header["params"])
    except FittedStateError as error:
        raise _state_error(path, header, error) from None


def invariants_of(name: str) -> dict | None:
    """The fitted invariants of the registered model ``name`` with ``predict``, else None.

    The built-in models' come from :mod:`shortclust.models.common.invariants` without
    importing the model; a model registered otherwise (a plug-in, a test's fake) is imported
    for its class's ``_fitted_invariants``.
    """
    from shortclust.models import _MODELS
    from shortclust.models.common.invariants import FITTED_INVARIANTS

    if name in FITTED_INVARIANTS:
        return FITTED_INVARIANTS[name]
    if name not in _MODELS:
        return None
    from shortclust.models import get_model_class

    return getattr(get_model_class(name), "_fitted_invariants", None)


def _state_error(path: Path, header: dict, error: Exception) -> ModelFileError:
    return ModelFileError(
        f"{path}: the saved state does not fit model '{header.get('model')}' ({error}); the "
        "file was edited or damaged: save the model again (shortclust cluster, or run "
        "--save-models)")


def _read_arrays(path: Path, archive: zipfile.ZipFile,
                 header: dict) -> dict[str, tuple[bytes, np.ndarray]]:
    """Each member's bytes and array, its ``.npy`` header checked before allocation."""
    members = {}
    for name, meta in sorted(header["arrays"].items()):
        member = f"{_ARRAYS}{name}.npy"
        info = archive.getinfo(member)
        with archive.open(info) as handle:
            raw = handle.read(info.file_size + 1)
        if len(raw) != info.file_size:
            raise ModelFileError(f"{path}: array member {name} is not the size the ZIP "
                                 f"declares (the file was edited or damaged): {_WAY_OUT}")
        members[member] = (raw, _parse_npy(path, name, raw, meta))
    return members


def _parse_npy(path: Path, name: str, raw: bytes, meta: dict) -> np.ndarray:
    stream = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(
                stream, max_header_size=_NPY_HEADER_ROOM)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(
                stream, max_header_size=_NPY_HEADER_ROOM)
        else:
            raise ValueError(f"npy format {version}")
    except (ValueError, SyntaxError, TypeError, OverflowError) as error:
        raise ModelFileError(f"{path}: array member {name} is not a valid .npy array "
                             f"({_reason(error)}): {_WAY_OUT}") from None
    if dtype.str != meta["dtype"] or list(shape) != meta["shape"] or dtype.hasobject:
        raise ModelFileError(f"{path}: array {name} is not the {meta['dtype']} "
                             f"{meta['shape']} the header lists: {_WAY_OUT}")
    offset = stream.tell()
    if len(raw) - offset != dtype.itemsize * _product(shape):
        raise ModelFileError(f"{path}: array member {name} holds {len(raw) - offset} bytes "
                             f"of data, not the {dtype.itemsize * _product(shape)} of its "
                             f"shape (the file was edited or damaged): {_WAY_OUT}")
    array = np.frombuffer(raw, dtype=dtype, offset=offset).reshape(
        shape, order="F" if fortran else "C")
    return np.array(array, order="C")  # a writable copy, in the order the kernels expect


def _rebuild(path: Path, header: dict, arrays: dict[str, np.ndarray]) -> SavedModel:
    from shortclust.models import get_model_class
    from shortclust.models.base import validate_params
    from shortclust.models.state import model_from_state

    try:
        model_class = get_model_class(header["model"])
    except ConfigError as error:
        raise ModelFileError(f"{path}: {error}") from None
    params = header["params"]
    unknown = sorted(set(params) - set(model_class().get_params()))
    if unknown:
        raise ModelFileError(f"{path}: the saved state does not fit model "
                             f"'{header['model']}' of this shortclust (it has no parameter "
                             f"{', '.join(unknown)}): save the model again with this version")
    try:
        validate_params(model_class, params)
    except ShortclustError as error:
        raise ModelFileError(f"{path}: its parameters are not valid ({error}): the file was "
                             "edited or damaged; save the model again") from None
    try:
        model = model_from_state(model_class, params, header["fitted"], arrays,
                                 _feature_vocabulary(header))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError,
            OverflowError) as error:
        raise ModelFileError(
            f"{path}: the saved state does not fit model '{header.get('model')}' of this "
            f"shortclust ({_reason(error)}): save the model again with this version"
        ) from None
    return SavedModel(model, header["model"], header.get("vocabulary"),
                      header.get("preprocess"), header.get("representation"), header, path)
