"""A fitted model's state as plain values, and the model rebuilt from them.

The model contract (:mod:`shortclust.models.base`, point 5) has every model that declares
``predict`` list its ``_fitted_attributes``. :func:`fitted_state` turns them into JSON values
and numpy arrays, which cross processes and files without pickle;
:func:`model_from_state` sets them on a fresh instance and calls its ``_restore_fitted``.
The model so rebuilt predicts exactly as the fitted one (``tests/models/test_contract.py``
checks every registered model). The file format around it is
:mod:`shortclust.apps.model_files`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["fitted_state", "json_value", "model_from_state"]

# Bit generators a saved numpy Generator may name (looked up in numpy.random by name).
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937")


def fitted_state(model) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The model's ``_fitted_attributes`` as ``(JSON values, arrays)``.

    A numpy Generator (GSDMM's ``random_state_``) becomes ``{"numpy_generator": <its bit
    generator's state>}``.

    Raises
    ------
    TypeError
        If an attribute is neither a numeric array, a JSON value nor a numpy Generator (a
        model listing such an attribute breaks the contract).
    AttributeError
        If the model is not fitted.
    """
    values, arrays = {}, {}
    for name in type(model)._fitted_attributes:
        value = getattr(model, name)
        what = f"{type(model).__name__}.{name}"
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise TypeError(f"{what} is an object array: a saved model keeps numbers")
            arrays[name] = value
        elif isinstance(value, np.random.Generator):
            values[name] = {"numpy_generator": value.bit_generator.state}
        else:
            values[name] = json_value(value, what)
    return values, arrays


def json_value(value, what: str = "value"):
    """``value`` as a JSON value: numpy scalars become Python numbers, tuples lists.

    Raises
    ------
    TypeError
        For anything else (an array, an estimator, a Generator).
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [json_value(item, what) for item in value]
    if isinstance(value, dict):
        return {str(key): json_value(item, what) for key, item in value.items()}
    raise TypeError(f"{what} is a {type(value).__name__}: a saved model keeps arrays, "
                    "JSON values and numpy Generators only")


def model_from_state(model_class: type, params: dict[str, Any], values: dict[str, Any],
                     arrays: dict[str, np.ndarray], vocabulary=None):
    """A fitted ``model_class`` from its constructor parameters and :func:`fitted_state`.

    ``vocabulary`` (one word per column) becomes its ``vocabulary_``, so ``top_words``
    names words.

    Raises
    ------
    KeyError
        If the attributes given are not exactly the class's ``_fitted_attributes``.
    ValueError
        A Generator state naming an unknown bit generator.
    """
    model = model_class(**params)
    given, expected = set(values) | set(arrays), set(model_class._fitted_attributes)
    if given != expected or set(values) & set(arrays):
        raise KeyError(f"fitted attributes {sorted(given)} are not the model's "
                       f"{sorted(expected)}")
    for name, value in values.items():
        setattr(model, name, _generator(value) if _is_generator(value) else value)
    for name, value in arrays.items():
        setattr(model, name, value)
    model.vocabulary_ = None if vocabulary is None else list(vocabulary)
    model._restore_fitted()
    return model


def _is_generator(value) -> bool:
    return isinstance(value, dict) and set(value) == {"numpy_generator"}


def _generator(value) -> np.random.Generator:
    state = value["numpy_generator"]
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in _BIT_GENERATORS:
        raise ValueError(f"unknown bit generator {name!r}")
    bit_generator = getattr(np.random, name)()
    bit_generator.state = state
    return np.random.Generator(bit_generator)
