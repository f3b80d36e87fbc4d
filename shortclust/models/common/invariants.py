"""What a fitted model's saved attributes must satisfy before any kernel reads them.

A model file's checksum guards against damage, not against a crafted file (anyone can
recompute a SHA-256), and the compiled kernels do not bound-check: a ``cluster_word_counts_``
narrower than the vocabulary, or an ``n_clusters_`` larger than the arrays, would make them
read outside memory. So every model that declares ``predict`` declares, beside its
``_fitted_attributes``, its ``_fitted_invariants``: one rule per attribute, made of the
small vocabulary below (dtype kind, shape in named dimensions, value range, finiteness),
plus whole-model rules (counts summing consistently). :func:`check_fitted` checks a
loaded state against them and names the first broken rule in one line.

This module imports numpy only, so :mod:`shortclust.apps.model_files` can refuse a
crafted file before the model code (numba, scikit-learn: about 250 MB) is imported; the
tables live here, keyed by registry name, and each model class points at its own
(``_fitted_invariants = FITTED_INVARIANTS["gsdmm"]``), which the contract test checks.

Named dimensions: ``"K"`` (the clusters the arrays hold), ``"V"`` (``n_features_in_``,
which must equal the vocabulary's length when there is one), ``"N"`` (the fitted
documents, ``labels_``'s length) and ``"S"`` (the steps of a stream model); a dimension is
bound by its first use and every later use must agree.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Array", "Generator", "Int", "IntList", "Maybe", "Param", "Real", "Bool", "Rule",
           "FITTED_INVARIANTS", "FittedStateError", "check_fitted", "check_shapes"]

#: No dimension of a saved array may exceed this (the byte cap of a model file bounds the
#: product; this bounds each factor, so shape arithmetic stays far from int64 overflow).
MAX_DIMENSION = 2**40


class FittedStateError(ValueError):
    """A saved state breaks its model's invariants; the message names the rule."""


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Int:
    """A JSON integer in ``[low, high]``; ``equals`` names a dimension it must equal."""

    low: int | None = 0
    high: int | None = MAX_DIMENSION
    equals: str | None = None

    def check(self, name, value, dims):
        if not _is_int(value):
            raise FittedStateError(f"{name} must be an integer, got {_short(value)}")
        if (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high):
            raise FittedStateError(f"{name} must be in [{self.low}, {self.high}], got {value}")
        if self.equals is not None:
            _bind(dims, self.equals, value, name)


@dataclass(frozen=True)
class Real:
    """A finite JSON number (integers accepted), at least ``low`` when given."""

    low: float | None = None

    def check(self, name, value, dims):
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
                not np.isfinite(value):
            raise FittedStateError(f"{name} must be a finite number, got {_short(value)}")
        if self.low is not None and value < self.low:
            raise FittedStateError(f"{name} must be >= {self.low}, got {value}")


@dataclass(frozen=True)
class Bool:
    def check(self, name, value, dims):
        if not isinstance(value, bool):
            raise FittedStateError(f"{name} must be true or false, got {_short(value)}")


@dataclass(frozen=True)
class IntList:
    """A JSON list of integers in ``[low, high]``, of ``length`` items when given."""

    low: int = 0
    high: int = MAX_DIMENSION
    length: int | None = None

    def check(self, name, value, dims):
        if not isinstance(value, list) or (self.length is not None and len(value) != self.length):
            raise FittedStateError(f"{name} must be a list of {self.length or 'some'} integers, "
                                   f"got {_short(value)}")
        for item in value:
            Int(self.low, self.high).check(f"an item of {name}", item, dims)


@dataclass(frozen=True)
class Maybe:
    """null, or what ``rule`` accepts."""

    rule: Any

    def check(self, name, value, dims):
        if value is not None:
            self.rule.check(name, value, dims)


@dataclass(frozen=True)
class Generator:
    """A saved numpy Generator: a known bit generator whose state numpy accepts."""

    def check(self, name, value, dims):
        state = value.get("numpy_generator") if isinstance(value, dict) else None
        kind = state.get("bit_generator") if isinstance(state, dict) else None
        if not isinstance(value, dict) or set(value) != {"numpy_generator"} or \
                kind not in ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937"):
            raise FittedStateError(f"{name} must be a saved numpy generator state, got "
                                   f"{_short(value)}")
        try:
            getattr(np.random, kind)().state = state
        except (TypeError, ValueError, KeyError, OverflowError, IndexError) as error:
            raise FittedStateError(f"{name} is not a valid {kind} state ({_short(error)})") \
                from None


@dataclass(frozen=True)
class Array:
    """A numpy array: dtype kind (``"i"`` signed integers, ``"f"`` floats, ``"b"``
    booleans), shape in named dimensions or integers, and the range of its values.

    ``low``/``high`` may name a dimension (``high="K"``: below K); ``finite`` refuses nan
    and inf in float arrays; ``nullable`` accepts a JSON null in place of the array.
    """

    kind: str
    shape: tuple
    low: float | str | None = None
    high: float | str | None = None
    high_exclusive: bool = False
    finite: bool = True
    nullable: bool = False

    def check_declared(self, name, dtype: np.dtype, shape: tuple, dims):
        """Dtype and shape, before the array is read."""
        if dtype.kind not in self.kind or dtype.itemsize > 8:
            kinds = " or ".join(_KINDS[kind] for kind in self.kind)
            raise FittedStateError(f"array {name} must be of {kinds}, got {dtype.str}")
        if len(shape) != len(self.shape):
            raise FittedStateError(f"array {name} must have {len(self.shape)} dimension(s), "
                                   f"got shape {list(shape)}")
        for axis, (want, got) in enumerate(zip(self.shape, shape)):
            if isinstance(want, int):
                if got != want:
                    raise FittedStateError(f"array {name} must have {want} along axis "
                                           f"{axis}, got {got}")
            else:
                _bind(dims, want, got, f"the length of array {name} along axis {axis}")

    def check_values(self, name, array: np.ndarray, dims):
        if array.size == 0:
            return
        if array.dtype.kind == "f" and self.finite and not np.isfinite(array).all():
            raise FittedStateError(f"array {name} holds nan or inf")
        low = dims[self.low] if isinstance(self.low, str) else self.low
        high = dims[self.high] if isinstance(self.high, str) else self.high
        if low is not None and array.min() < low:
            raise FittedStateError(f"array {name} holds {array.min()}, below {low}")
        if high is not None and (array.max() >= high if self.high_exclusive
                                 else array.max() > high):
            raise FittedStateError(f"array {name} holds {array.max()}, above "
                                   f"{'or at ' if self.high_exclusive else ''}{high}")


@dataclass(frozen=True)
class Param:
    """A constructor parameter tied to a dimension: ``n_clusters`` equal to K (``at_most``:
    K at most ``n_clusters``, for models that drop empty clusters). A parameter that is not
    an integer is left to the model's own constraints, checked later."""

    dim: str
    at_most: bool = False

    def check_param(self, name, value, dims):
        if not _is_int(value) or self.dim not in dims:
            return
        bound = dims[self.dim]
        if (bound > value) if self.at_most else (bound != value):
            raise FittedStateError(
                f"its arrays hold {bound} {'clusters' if self.dim == 'K' else self.dim} "
                f"but the parameter {name} is {value}")


@dataclass(frozen=True)
class Rule:
    """A whole-model rule: ``test(values, arrays, dims)`` returns None or what is wrong."""

    test: Callable[[dict, dict, dict], str | None] = field(compare=False)


_KINDS = {"i": "signed integers", "f": "floats", "b": "booleans", "u": "unsigned integers"}


class Dims(dict):
    """The bound dimensions, each with what bound it (for messages)."""

    def __init__(self):
        super().__init__()
        self.sources: dict[str, str] = {}


def _bind(dims: dict, dim: str, value: int, what: str) -> None:
    if dim in dims and dims[dim] != value:
        source = getattr(dims, "sources", {}).get(dim, _DIM_NAMES.get(dim, dim))
        raise FittedStateError(f"{what} is {value} but {source} is {dims[dim]} (both are "
                               f"the {_DIM_NAMES.get(dim, dim)})")
    if dim not in dims and hasattr(dims, "sources"):
        dims.sources[dim] = what
    dims[dim] = value


_DIM_NAMES = {"K": "number of clusters", "V": "number of features",
              "N": "number of fitted documents",
              "L": "steps of history (dependency_length)",
              "W": "window length (window)"}


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- checking ---------------------------------------------------------------------------------

def check_shapes(invariants: dict, values: dict, declared: dict[str, tuple],
                 vocabulary_length: int | None, params: dict | None = None) -> dict[str, int]:
    """The first pass, before any array is read: every JSON value, and the dtype and shape
    each array is declared with, against ``invariants``. Returns the bound dimensions.

    ``declared`` maps each array's name to ``(dtype, shape)``; ``params`` are the
    constructor parameters, checked against :class:`Param` rules (key ``"param:NAME"``).

    Raises
    ------
    FittedStateError
        The first broken rule; also attributes missing or extra.
    """
    expected = {name for name, rule in invariants.items()
                if not isinstance(rule, (Rule, Param))}
    given = set(values) | set(declared)
    if given != expected or set(values) & set(declared):
        missing, extra = sorted(expected - given), sorted(given - expected)
        raise FittedStateError(f"its fitted attributes differ from the model's (missing "
                               f"{missing or 'none'}, unexpected {extra or 'none'})")
    dims = Dims()
    if vocabulary_length is not None:
        _bind(dims, "V", vocabulary_length, "the vocabulary's length")
    for name in sorted(expected, key=lambda n: (isinstance(invariants[n], Array), n)):
        rule = invariants[name]
        if isinstance(rule, Array):
            if name in values:
                if values[name] is None and rule.nullable:
                    continue
                raise FittedStateError(f"{name} must be an array, got {_short(values[name])}")
            dtype, shape = declared[name]
            rule.check_declared(name, dtype, shape, dims)
        else:
            if name in declared:
                raise FittedStateError(f"{name} must be a JSON value, not an array")
            rule.check(name, values[name], dims)
    for key, rule in invariants.items():
        if isinstance(rule, Param) and params and key[len("param:"):] in params:
            rule.check_param(key[len("param:"):], params[key[len("param:"):]], dims)
    return dims


def check_fitted(invariants: dict, values: dict, arrays: dict[str, np.ndarray],
                 dims: dict[str, int]) -> None:
    """The second pass, after the arrays are read: value ranges and whole-model rules.

    Raises
    ------
    FittedStateError
    """
    for name, rule in invariants.items():
        if isinstance(rule, Array) and name in arrays:
            rule.check_values(name, arrays[name], dims)
    for rule in invariants.values():
        if isinstance(rule, Rule):
            problem = rule.test(values, arrays, dims)
            if problem:
                raise FittedStateError(problem)


# --- whole-model rules ------------------------------------------------------------------------

def _distinct_labels(values, arrays, dims):
    found = np.unique(arrays["labels_"]).size
    if values["n_clusters_"] != found:
        return f"n_clusters_ is {values['n_clusters_']} but labels_ holds {found} clusters"
    return None


def _sizes_count_labels(sizes: str):
    def test(values, arrays, dims):
        counted = np.bincount(arrays["labels_"], minlength=dims["K"])
        if not np.array_equal(counted, arrays[sizes]):
            return f"{sizes} does not count the documents of each cluster in labels_"
        return None
    return Rule(test)


def _totals_are_row_sums(counts: str, totals: str):
    def test(values, arrays, dims):
        # Integer totals count the tokens; float ones (after partial_fit) are expected
        # counts, checked by their range only.
        integral = arrays[totals].dtype.kind == "i" and arrays[counts].dtype.kind == "i"
        if integral and not np.array_equal(
                arrays[counts].sum(axis=1, dtype=np.int64), arrays[totals]):
            return f"{totals} is not the row sums of {counts}"
        return None
    return Rule(test)


def _csr_window_store(values, arrays, dims):
    rows, columns = values["window_store_shape_"]
    indptr, indices = arrays["window_store_indptr_"], arrays["window_store_indices_"]
    if columns != dims["V"] or indptr.shape[0] != rows + 1:
        return "window_store_shape_ does not match the window store's arrays"
    if indptr[0] != 0 or indptr[-1] != indices.shape[0] or (np.diff(indptr) < 0).any():
        return "window_store_indptr_ is not a valid CSR row pointer"
    if indices.size and (indices.min() < 0 or indices.max() >= columns):
        return "window_store_indices_ holds a column outside the vocabulary"
    slots = arrays["window_slots_"]
    if slots.size and (slots.min() < -1 or slots.max() >= rows):
        return "window_slots_ names a row outside the window store"
    return None


def _mstream_store(values, arrays, dims):
    """MStreamF's stored batches: a valid CSR over the vocabulary, labels of live clusters."""
    ids, ptr = arrays["cluster_ids_"], arrays["stored_ptr_"]
    if ids.size > 1 and (np.diff(ids) <= 0).any():
        return "cluster_ids_ is not strictly increasing"
    if ptr.size == 0 or ptr[0] != 0 or ptr[-1] != arrays["stored_words_"].shape[0] or \
            (np.diff(ptr) < 0).any():
        return "stored_ptr_ is not a valid CSR row pointer over stored_words_"
    if arrays["stored_counts_"].shape != arrays["stored_words_"].shape:
        return "stored_counts_ and stored_words_ differ in length"
    if arrays["stored_labels_"].shape[0] != ptr.shape[0] - 1:
        return "stored_labels_ does not give one label per stored document"
    if not np.isin(arrays["stored_labels_"], ids).all():
        return "stored_labels_ names a cluster outside cluster_ids_"
    return None


def _labels(high="K") -> Array:
    return Array("i", ("N",), low=0, high=high, high_exclusive=True)


_BASE = {"labels_": _labels(), "n_clusters_": Int(0), "n_iter_": Int(0),
         "n_features_in_": Int(1, equals="V"), "distinct": Rule(_distinct_labels)}
_DMM = {**_BASE, "n_clusters_": Int(0, equals="K"), "param:n_clusters": Param("K", at_most=True),
        "cluster_sizes_": Array("i", ("K",), low=1),
        "cluster_word_counts_": Array("i", ("K", "V"), low=0),
        "sizes": _sizes_count_labels("cluster_sizes_")}
_K = {"param:n_clusters": Param("K")}
_MSTREAM = {"labels_": _labels(high="C"), "n_clusters_": Int(0, equals="C"), "n_iter_": Int(0),
            "n_features_in_": Int(1, equals="V"), "distinct": Rule(_distinct_labels),
            "cluster_ids_": Array("i", ("K",), low=0, high="C", high_exclusive=True),
            "cluster_sizes_": Array("i", ("K",), low=1),
            "cluster_word_counts_": Array("i", ("K", "V"), low=0),
            "n_batches_": Int(0, equals="B"), "next_id_": Int(0, equals="C"),
            "word_last_batch_": Array("i", ("V",), low=-1, high="B", high_exclusive=True),
            "batch_sizes_": Array("i", ("B",), low=-1, high="N"),
            "random_state_": Generator()}
_MSTREAMF = {**_MSTREAM,
            "stored_ptr_": Array("i", ("P",), low=0),
            "stored_words_": Array("i", ("T",), low=0, high="V", high_exclusive=True),
            "stored_counts_": Array("i", ("T",), low=1),
            "stored_labels_": Array("i", ("S",), low=0, high="C", high_exclusive=True),
            "store": Rule(_mstream_store)}
_CENTROIDS = {**_BASE, **_K, "cluster_centers_": Array("f", ("K", "V")), "inertia_": Real(0.0),
              "idf_": Array("f", ("V",), low=0.0, nullable=True)}
_OFFLINE_AT = IntList()
#: Smallest Dirichlet parameter DMAFP accepts (its ``lam``, ``lam0``): digamma stays finite.
DMAFP_MIN_PRIOR = 1e-10

#: Each registered model with ``predict``: its fitted attributes' invariants.
FITTED_INVARIANTS: dict[str, dict[str, Any]] = {
    "gsdmm": {**_DMM, "n_batches_": Int(0), "random_state_": Generator()},
    "gsdpmm": {**_DMM, "n_clusters_init_": Int(1)},
    "mstream": _MSTREAM,
    "dmafp": {**_BASE, "n_clusters_": Int(0, equals="K"),
              "param:n_clusters": Param("K", at_most=True),
              "cluster_log_weights_": Array("f", ("K",), high=0.0),
              "cluster_word_params_": Array("f", ("K", "V"), low=DMAFP_MIN_PRIOR),
              "shared_word_params_": Array("f", ("V",), low=DMAFP_MIN_PRIOR),
              "discriminative_": Array("f", ("V",), low=0.0, high=1.0)},
    "mstreamf": _MSTREAMF,
    "kmeans": _CENTROIDS,
    "kmeans_vsm": _CENTROIDS,
    "kmeans_idf": {**_CENTROIDS, "idf_weights_": Array("f", ("V",), low=0.0)},
    "minibatch_kmeans": {**_CENTROIDS, "n_steps_": Int(0), "batch_size_": Int(1)},
    "ncut_nmf": {**_BASE, **_K, "term_weights_": Array("f", ("V",), low=0.0),
                 "components_": Array("f", ("K", "V"), low=0.0),
                 "cluster_sizes_": Array("i", ("K",), low=0),
                 "objective_": Real(),
                 "sizes": _sizes_count_labels("cluster_sizes_")},
    "lda": {**_BASE, **_K, "n_batches_": Int(0), "random_state_": Generator(),
            "doc_topic_": Array("f", ("N", "K"), low=0.0),
            "topic_word_counts_": Array("if", ("K", "V"), low=0),
            "topic_totals_": Array("if", ("K",), low=0),
            "offline_at_": _OFFLINE_AT,
            "totals": _totals_are_row_sums("topic_word_counts_", "topic_totals_")},
    "dct": {**_BASE, **_K, "n_steps_": Int(0), "random_state_": Generator(),
            "param:dependency_length": Param("L"),
            "proportions_history_": Array("f", ("L", "K"), low=0.0),
            "topic_word_history_": Array("f", ("L", "K", "V"), low=0.0),
            "topic_pseudo_counts_": Array("f", ("K",), low=0.0),
            "topic_word_pseudo_counts_": Array("f", ("K", "V"), low=0.0)},
    "ttm": {**_BASE, **_K, "n_steps_": Int(0), "random_state_": Generator(),
            "topic_proportions_": Array("f", ("K",), low=0.0),
            "topic_word_": Array("f", ("K", "V"), low=0.0),
            "alpha_": Real(0.0), "beta_": Array("f", ("K",), low=0.0)},
    "edcm": {**_BASE, **_K, "param:window": Param("W"), "beta_": Array("f", ("K", "V"), low=0.0),
             "precisions_": Array("f", ("K",), low=0.0),
             "component_sizes_": Array("f", ("K",), low=0.0),
             "weights_": Array("f", ("K",), low=0.0),
             "word_prior_": Array("f", ("V",), low=0.0),
             "window_slots_": Array("i", ("K", "W"), low=-1),
             "window_start_": Array("i", ("K",), low=0, high="W", high_exclusive=True),
             "window_count_": Array("i", ("K",), low=0, high="W"),
             "window_df_": Array("i", ("K", "V"), low=0),
             "window_distinct_": Array("i", ("K",), low=0),
             "window_store_data_": Array("i", ("D",)),
             "window_store_indices_": Array("i", ("D",)),
             "window_store_indptr_": Array("i", ("R",), low=0),
             "window_store_shape_": IntList(length=2),
             "store": Rule(_csr_window_store)},
    "movmf": {**_BASE, **_K, "means_": Array("f", ("K", "V")),
              "concentrations_": Array("f", ("K",), low=0.0),
              "weights_": Array("f", ("K",), low=0.0),
              "counts_": Array("f", ("K",), low=0.0),
              "resultants_": Array("f", ("V", "K")),
              "resultant_norms2_": Array("f", ("K",), low=0.0),
              "started_": Array("b", ("K",)),
              "by_cosine_": Bool(), "cosine_sum_": Real(), "n_cosines_": Int(0),
              "offline_at_": _OFFLINE_AT},
}
