"""A fuzzer for saved model files: seeded mutations of every model with ``predict``.

Each model of the contract corpus is saved, then mutated :data:`N_MUTATIONS` times, the
checksum recomputed (so only the loader's own checks stand between the file and the
kernels). The acceptance rule for each mutated file: it is refused with a one-line
:class:`ModelFileError`, or it predicts exactly as the unmutated model; never another
exception, never a result that differs between two loads.

Which mutations may a valid model survive? An in-range change that keeps a valid model
(a centroid moved, a count raised consistently) may legitimately predict differently, so
the fuzzer does not make those: it draws from mutations that break a rule the format or
the model declares (and must be refused: wrong types, out-of-range or non-finite values,
arrays of other shapes or kinds, a vocabulary of another length, deep JSON, sizes over
the cap, truncation, flipped bytes without the checksum recomputed) and from mutations
that change nothing a model reads (JSON whitespace and key order, another ZIP
compression, an equivalent integer width), which must predict exactly as before.
"""

import io
import json
import zipfile

import numpy as np
import pytest

from shortclust.apps.model_files import _checksum, load_model, save_model
from shortclust.errors import ModelFileError
from shortclust.models import get_model_class, model_names
from shortclust.models.common.invariants import (FITTED_INVARIANTS, Generator, Int, IntList,
                                                 Param, Real, Rule)
from shortclust.models.state import fitted_state
from tests.models.test_contract import VOCABULARY, data, fitted, kinds

N_MUTATIONS = 40
PREDICTING = [name for name in model_names() if get_model_class(name).capabilities.predict]
BAD = "<not a valid value>"
DEEP = "<deep>"


def read_parts(raw: bytes) -> tuple[dict, dict[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        header = json.loads(archive.read("shortclust-model.json"))
        members = {name: archive.read(name) for name in archive.namelist()
                   if name.startswith("arrays/")}
    return header, members


def write_parts(header: dict, members: dict[str, bytes], *, checksum=True,
                compression=zipfile.ZIP_DEFLATED, header_text=None) -> bytes:
    if checksum:
        header = {**header, "sha256": _checksum(header, members)}
    text = (header_text or json.dumps(header)).replace(json.dumps(DEEP),
                                                       "[" * 100_000 + "]" * 100_000)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        archive.writestr("shortclust-model.json", text)
        for name in sorted(members):
            archive.writestr(name, members[name])
    return buffer.getvalue()


def npy(array) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def set_array(header, members, name, array):
    header["arrays"][name] = {"dtype": array.dtype.str, "shape": list(array.shape)}
    members[f"arrays/{name}.npy"] = npy(array)


def array_of(members, name):
    return np.load(io.BytesIO(members[f"arrays/{name}.npy"]), allow_pickle=False)


# --- mutations: each returns (file bytes, must_refuse) -----------------------------------------

def breaking_value(rng, header, members, invariants):
    """A JSON fitted value of the wrong type or out of its declared range."""
    name = str(rng.choice(sorted(header["fitted"])))
    rule = invariants[name]
    choices = ["19", None, {"a": 1}]
    if isinstance(rule, Int):
        choices += [[], 1.5, -1, 2**70, -(2**70), True]
    elif isinstance(rule, Real):
        choices += [[], float("nan"), float("inf"), True] + ([-1.0] if rule.low == 0 else [])
    elif isinstance(rule, IntList):
        choices += [[-1], [1.5], [2**70]]
    elif isinstance(rule, Generator):
        state = header["fitted"][name]["numpy_generator"]
        choices += [{"numpy_generator": {**state, "state": {"state": 2**300, "inc": 1}}},
                    {"numpy_generator": {"bit_generator": "PCG64"}},
                    {"numpy_generator": {**state, "bit_generator": "os.system"}}]
    else:
        choices += [0, 1, []]
    header["fitted"][name] = choices[rng.integers(len(choices))]
    return f"{name} = {str(header['fitted'][name])[:40]}"


def breaking_array(rng, header, members, invariants):
    """An array of another shape, kind, rank, or holding a value its rule refuses."""
    name = str(rng.choice(sorted(header["arrays"])))
    rule, array = invariants[name], array_of(members, name)
    kind = rng.integers(6)
    if kind == 0 and array.ndim and array.shape[-1] > 0:  # one column fewer (shrunk counts)
        array = array[..., :-1]
    elif kind == 1:  # one row more
        array = np.concatenate([array, array[:1]]) if array.ndim and array.shape[0] else \
            np.zeros((1,) + array.shape[1:], array.dtype)
    elif kind == 2:  # another rank
        array = array.reshape(-1, 1) if array.ndim == 1 else array.reshape(-1)
        if array.ndim == 2 and len(rule.shape) == 2 and array.shape[1] == 1 and \
                rule.shape[1] in ("N", "K", "V", "L", "D", "R", "W"):
            array = array.reshape(1, -1, 1)
    elif kind == 3:  # another kind: strings, complex, or floats where integers go
        array = array.astype("U3") if rng.integers(2) else array.astype(np.complex128)
        if array.dtype.kind == "U":
            # a string array cannot be saved without pickle; use bytes of another kind
            array = np.zeros(array.shape, dtype=np.complex64)
    elif kind == 4 and array.size:  # a value out of range, or nan / inf
        array = array.copy()
        index = tuple(rng.integers(n) for n in array.shape)
        if array.dtype.kind == "f":
            array[index] = [np.nan, np.inf, -np.inf][rng.integers(3)]
        elif array.dtype.kind == "b":
            array = array.astype(np.float64) + np.nan
        elif rule.high is not None or rule.low is not None:
            array[index] = (-2 if rule.low is not None else 2**40) if rng.integers(2) or \
                rule.high is None else 2**40
        else:
            array = array.astype(np.float64) * np.nan
    else:  # empty
        array = np.zeros((0,) * max(array.ndim, 1), dtype=array.dtype)
    set_array(header, members, name, array)
    # labels_ of another length is still a valid model where no other array has one row
    # per fitted document: what predict reads is unchanged.
    shared = sum("N" in getattr(rule, "shape", ()) for rule in invariants.values()) > 1
    must_refuse = not (name == "labels_" and kind in (0, 1) and not shared)
    return f"array {name} (kind {kind}) now {array.dtype.str} {list(array.shape)}", must_refuse


def breaking_header(rng, header, members, invariants):
    """A header key removed or of the wrong type; a bad parameter; a vocabulary of
    another length; deep JSON."""
    kind = rng.integers(8)
    if kind == 0:
        del header[str(rng.choice(["model", "params", "fitted", "arrays", "format"]))]
    elif kind == 1:
        header["preprocess"] = "basic"
    elif kind == 2:
        header["preprocess"] = {"name": "basic", "version": "1", "min_doc_words": "abc"}
    elif kind == 3:
        params = sorted(key for key in header["params"] if key != "random_state")
        header["params"][str(rng.choice(params))] = BAD
    elif kind == 4:
        header["vocabulary"] = header["vocabulary"] + ["zzz-extra"] if rng.integers(2) \
            else header["vocabulary"][:-1]
    elif kind == 5:
        header["vocabulary"] = [header["vocabulary"][0]] * len(header["vocabulary"])
    elif kind == 6:
        header["training"] = DEEP  # replaced by 100,000 nested lists in the text
    else:
        header["arrays"][str(rng.choice(sorted(header["arrays"])))]["shape"] = [10**12]
    return f"header mutation {kind}"


def neutral(rng, header, members, invariants):
    """Nothing a model reads: JSON layout and key order, or an equivalent integer width."""
    integer = [name for name in sorted(header["arrays"])
               if array_of(members, name).dtype.kind == "i"]
    if integer and rng.integers(2):
        name = str(rng.choice(integer))
        array = array_of(members, name)
        wider = np.int64 if array.dtype == np.int32 else np.int32
        if np.array_equal(array.astype(wider), array):
            set_array(header, members, name, array.astype(wider))
            return f"neutral: {name} as {wider.__name__}"
    return "neutral: layout"


def mutate(rng, raw: bytes, name: str) -> tuple[bytes, bool, str]:
    """A mutated file, whether it must be refused, and what was done."""
    header, members = read_parts(raw)
    invariants = FITTED_INVARIANTS[name]
    kind = rng.integers(10)
    if kind <= 1:
        what = breaking_value(rng, header, members, invariants)
        return write_parts(header, members), True, what
    if kind <= 4:
        what, must_refuse = breaking_array(rng, header, members, invariants)
        return write_parts(header, members), must_refuse, what
    if kind <= 6:
        what = breaking_header(rng, header, members, invariants)
        return write_parts(header, members), True, what
    if kind == 7:  # flipped bytes, checksum not recomputed: refused, or nothing read changed
        data = bytearray(raw)
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(len(data))] ^= 1 << int(rng.integers(8))
        return bytes(data), False, "flipped bits"
    if kind == 8:
        return raw[:rng.integers(len(raw))], True, "truncated"
    what = neutral(rng, header, members, invariants)
    text = json.dumps(dict(sorted({**header, "sha256": _checksum(header, members)}.items(),
                                  reverse=True)), indent=int(rng.integers(0, 3)))
    compression = zipfile.ZIP_STORED if rng.integers(2) else zipfile.ZIP_DEFLATED
    return (write_parts(header, members, compression=compression, header_text=text), False,
            what)


# --- the test ---------------------------------------------------------------------------------

def outcome(path, X):
    """``("refused", message)`` or ``("predicted", labels, probabilities)``."""
    try:
        model = load_model(path).model
    except ModelFileError as error:
        message = str(error)
        assert "\n" not in message and message, message
        return ("refused", message)
    labels = model.predict(X)
    proba = model.predict_proba(X) if model.capabilities.predict_proba else None
    return ("predicted", labels.tolist(), None if proba is None else proba.tolist())


@pytest.mark.parametrize("name", PREDICTING)
def test_mutated_model_files_are_refused_in_one_line_or_predict_as_before(name, tmp_path):
    model = fitted(get_model_class(name))
    path = save_model(tmp_path / "model.zip", name, model.get_params(), fitted_state(model),
                      vocabulary=VOCABULARY)
    X = data(kinds(get_model_class(name))[0])
    base = outcome(path, X)
    assert base[0] == "predicted"
    rng = np.random.default_rng(sum(map(ord, name)))
    raw = path.read_bytes()
    tally = {"refused": 0, "predicted": 0}
    for i in range(N_MUTATIONS):
        mutated, must_refuse, what = mutate(rng, raw, name)
        target = tmp_path / f"mutant{i}.zip"
        target.write_bytes(mutated)
        first, second = outcome(target, X), outcome(target, X)
        assert first == second, f"mutation {i} ({what}): two loads differ"
        if must_refuse:
            assert first[0] == "refused", f"mutation {i} of {name} ({what}) was accepted"
        else:
            assert first[0] == "refused" or first == base, \
                f"mutation {i} ({what}) predicts otherwise"
        tally[first[0]] += 1
    assert tally["refused"] >= N_MUTATIONS // 2 and tally["predicted"] >= 1, tally


def test_every_predicting_model_declares_invariants_for_exactly_its_fitted_attributes():
    for name in PREDICTING:
        model_class = get_model_class(name)
        invariants = model_class._fitted_invariants
        assert invariants is FITTED_INVARIANTS[name]
        attributes = {key for key, rule in invariants.items()
                      if not isinstance(rule, (Rule, Param))}
        assert attributes == set(model_class._fitted_attributes), name
