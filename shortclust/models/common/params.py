"""The names a model's constructor takes, checked before its values are
(:func:`shortclust.models.base.validate_params` checks both): ``run``'s config,
``cluster``/``TextClusterer`` and the model-file loader refuse an unknown name in one line."""

from shortclust.errors import ParameterError, allowed_hint, short_repr

__all__ = ["check_param_names"]


def check_param_names(model_class, params, name=None) -> None:
    """Refuse a key of ``params`` that is not a constructor parameter of ``model_class``.

    Parameters
    ----------
    model_class : type
    params : dict
    name : str, optional
        The model's registered name, for the message.

    Raises
    ------
    ParameterError
        Naming the key and the parameters there are (``random_state`` left out: the seed
        sets it), with the closest one when one is close.

    Examples
    --------
    >>> from shortclust.models import get_model_class
    >>> check_param_names(get_model_class("kmeans"), {"n_init": 3, "n_iniit": 2}, "kmeans")
    Traceback (most recent call last):
    ...
    shortclust.errors.ParameterError: unknown parameter 'n_iniit' for model 'kmeans' (did you mean 'n_init'? allowed: max_iter, n_clusters, n_init, tol)
    """
    known = model_class().get_params()
    for key in params:
        if key not in known:
            hint = allowed_hint(key, sorted(k for k in known if k != "random_state"))
            model = f" for model '{name}'" if name else ""
            raise ParameterError(f"unknown parameter {short_repr(key)}{model} {hint}")
