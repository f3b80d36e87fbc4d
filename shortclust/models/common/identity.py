"""Parameters added to a model after runs of it were archived, kept out of run identities.

A model declares ``_parameters_added_later = {name: earlier value}`` (see
:mod:`shortclust.models.base`); while such a parameter holds that value it is left out of
what identifies a run, so archived run ids and reproduction tags do not change when a
parameter is added.
"""

import inspect

from shortclust.errors import ModelDeclarationError


def _check_added_parameters(model_class, name):
    added = model_class._parameters_added_later
    if not isinstance(added, dict):
        raise _declaration_error(
            f"{name}._parameters_added_later is {added!r}: make it a dict of parameter name "
            "-> the value that reproduces the behaviour from before the parameter existed"
        )
    defaults = {param: value.default for param, value
                in inspect.signature(model_class.__init__).parameters.items()}
    for param, value in added.items():
        if param not in defaults:
            raise _declaration_error(
                f"{name}._parameters_added_later names {param!r}, not a parameter of its "
                "__init__: remove it or add the parameter"
            )
        if not _same_value(defaults[param], value):
            raise _declaration_error(
                f"{name}._parameters_added_later gives {param}={value!r} but its default is "
                f"{defaults[param]!r}: the default must be the value that reproduces the "
                "behaviour from before the parameter existed"
            )


def _same_value(first, second):
    """Equal and of the same type (so that ``0`` never stands for ``False`` or ``None``)."""
    return type(first) is type(second) and first == second


def identity_params(model_class, params):
    """``params`` without the parameters added later that hold their earlier value.

    What identifies a run (its id, a reproduction's tag) must not change when a parameter
    is added to a model: ``model_class._parameters_added_later`` names such parameters
    with the value that reproduces the behaviour from before them, and a parameter holding
    that value is left out here. Any other value is kept, so it changes the identity.

    Parameters
    ----------
    model_class : type
        A ClusteringModel class.
    params : dict
        Constructor parameters (JSON values: what a record stores).

    Returns
    -------
    dict

    Examples
    --------
    >>> from shortclust.models import get_model_class
    >>> ic = get_model_class("iterative_classification")
    >>> identity_params(ic, {"P1": 0.5, "selection": None})
    {'P1': 0.5}
    >>> identity_params(ic, {"P1": 0.5, "selection": "file_order"})
    {'P1': 0.5, 'selection': 'file_order'}
    """
    added = getattr(model_class, "_parameters_added_later", {})
    return {param: value for param, value in params.items()
            if not (param in added and _same_value(value, added[param]))}


def with_added_parameters(model_class, params):
    """``params`` (a record's) with the parameters added later that it leaves out, at
    their earlier value: the inverse of :func:`identity_params`."""
    return {**getattr(model_class, "_parameters_added_later", {}), **params}


def _declaration_error(message):
    return ModelDeclarationError(message)
