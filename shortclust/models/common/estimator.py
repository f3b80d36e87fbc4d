"""scikit-learn's estimator contract, without importing scikit-learn.

:class:`Estimator` gives a class what scikit-learn's ``BaseEstimator`` and ``ClusterMixin``
give a clusterer, as scikit-learn 1.x documents it ("Developing scikit-learn estimators"):
parameters read from the ``__init__`` signature (:meth:`~Estimator.get_params`, with
``deep=True`` descending into parameters that are estimators themselves), set by
:meth:`~Estimator.set_params` (``<component>__<parameter>`` for nested ones), a repr that
lists the parameters changed from their defaults laid out as scikit-learn lays them out,
``fit_predict``, and the ``clusterer`` estimator type in the tags scikit-learn reads.
``sklearn.base.clone``, ``sklearn.base.is_clusterer`` and ``sklearn.utils.get_tags`` work on
it. :func:`check_is_fitted` raises scikit-learn's own ``NotFittedError``.

Why not derive from scikit-learn: importing ``sklearn.base`` imports scipy.stats and
joblib, about 1 s of CPU, more than the 20 GSDMM fits of ``make run``. The models that call
scikit-learn (K-means, HAC's baselines, iterative classification...) import it where they
use it; a model that does not need it no longer pays for it. scikit-learn is imported only
when scikit-learn itself asks (its tags) or when an unfitted model is refused.
"""

import inspect
import re

__all__ = ["Estimator", "check_is_fitted"]


class Estimator:
    """Base class of an estimator following scikit-learn's contract (module docstring).

    A subclass's ``__init__`` takes its hyperparameters as keyword arguments (no
    ``*args``) and stores each one unchanged under its own name.

    Examples
    --------
    >>> class Clusterer(Estimator):
    ...     def __init__(self, *, n_clusters=8, seed=None):
    ...         self.n_clusters, self.seed = n_clusters, seed
    >>> Clusterer(n_clusters=3)
    Clusterer(n_clusters=3)
    >>> Clusterer(n_clusters=3).set_params(seed=0).get_params()
    {'n_clusters': 3, 'seed': 0}
    """

    @classmethod
    def _get_param_names(cls):
        """The constructor's parameter names, sorted (scikit-learn's order).

        Raises
        ------
        RuntimeError
            If ``__init__`` takes ``*args``, as scikit-learn refuses it.
        """
        if cls.__init__ is object.__init__:
            return []
        names = []
        for name, param in inspect.signature(cls.__init__).parameters.items():
            if name == "self" or param.kind is param.VAR_KEYWORD:
                continue
            if param.kind is param.VAR_POSITIONAL:
                raise RuntimeError(
                    f"{cls.__name__}'s __init__ takes *{name}: an estimator names every "
                    "parameter in its signature (scikit-learn's contract)"
                )
            names.append(name)
        return sorted(names)

    def get_params(self, deep=True):
        """The estimator's parameters.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of parameters that are estimators, as
            ``<parameter>__<its parameter>``.

        Returns
        -------
        dict
            Parameter name -> value.
        """
        params = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", inner)
                              for key, inner in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params):
        """Set parameters; ``<parameter>__<its parameter>`` sets a nested estimator's.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Naming a parameter the estimator does not have.
        """
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            name, delimiter, inner = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self}. Valid parameters "
                    f"are: {self._get_param_names()!r}."
                )
            if delimiter:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, inner_params in nested.items():
            valid[name].set_params(**inner_params)
        return self

    def fit_predict(self, X, y=None, **kwargs):
        """Fit on ``X`` and return ``labels_`` (``kwargs`` go to ``fit``)."""
        self.fit(X, **kwargs)
        return self.labels_

    def __sklearn_tags__(self):
        # Only scikit-learn calls this (clone, get_tags, is_clusterer, check_estimator),
        # so scikit-learn is already imported when it runs.
        from sklearn.utils import Tags, TargetTags

        return Tags(estimator_type="clusterer", target_tags=TargetTags(required=False),
                    transformer_tags=None, regressor_tags=None, classifier_tags=None)

    def __repr__(self, N_CHAR_MAX=700):
        return _shorten(_estimator_repr(self, indent=0), N_CHAR_MAX)


def check_is_fitted(estimator, attribute):
    """Raise scikit-learn's ``NotFittedError`` unless ``estimator`` has ``attribute``.

    scikit-learn's own check with one attribute named; its exception type (a
    ``ValueError`` and an ``AttributeError``), imported only when it is raised.
    """
    if not hasattr(estimator, attribute):
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


# --- the repr -------------------------------------------------------------------------------
# scikit-learn prints an estimator as ``Name(param=value, ...)`` with only the parameters
# that differ from their defaults, in sorted order, on one line when it fits in 80
# characters; otherwise the parameters are packed into lines aligned after the opening
# parenthesis. Values are their reprs, dict items sorted by key, nested estimators the same
# way on one line.

_WIDTH = 80
_MAX_PARAMS = 30  # more changed parameters than this are elided as ", ..."


def _changed_params(estimator):
    defaults = {name: param.default for name, param
                in inspect.signature(type(estimator).__init__).parameters.items()}

    def changed(name, value):
        if name not in defaults or defaults[name] is inspect.Parameter.empty:
            return True
        default = defaults[name]
        if hasattr(value, "get_params") and type(value) is not type(default):
            return True
        return repr(value) != repr(default) and not (_is_nan(value) and _is_nan(default))

    return {name: value for name, value in estimator.get_params(deep=False).items()
            if changed(name, value)}


def _is_nan(value):
    return isinstance(value, float) and value != value


def _value_repr(value):
    """A parameter value on one line: containers recursively, dicts sorted by key."""
    if hasattr(value, "get_params") and not isinstance(value, type):
        items = sorted(_changed_params(value).items())
        return f"{type(value).__name__}(" + ", ".join(
            f"{name}={_value_repr(inner)}" for name, inner in items) + ")"
    if isinstance(value, dict) and type(value).__repr__ is dict.__repr__:
        try:
            items = sorted(value.items())
        except TypeError:  # keys of several types: scikit-learn's pprint orders by type first
            items = sorted(value.items(), key=lambda item: (str(type(item[0])), item[0]))
        return "{" + ", ".join(f"{_value_repr(key)}: {_value_repr(inner)}"
                               for key, inner in items) + "}"
    if isinstance(value, list) and type(value).__repr__ is list.__repr__:
        return "[" + ", ".join(map(_value_repr, value)) + "]"
    if isinstance(value, tuple) and type(value).__repr__ is tuple.__repr__:
        inner = ", ".join(map(_value_repr, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _estimator_repr(estimator, indent):
    name = type(estimator).__name__
    items = [f"{key}={_value_repr(value)}"
             for key, value in sorted(_changed_params(estimator).items())]
    one_line = f"{name}(" + ", ".join(items) + ")"
    if len(one_line) <= _WIDTH - indent:
        return one_line
    # Pack items greedily; a continuation line starts under the first parameter.
    column = indent + len(name) + 1
    room = _WIDTH - column + 1
    lines, line, width = [], [], room
    for position, item in enumerate(items[:_MAX_PARAMS]):
        last = position == len(items) - 1
        need = len(item) + 2 + (1 if last else 0)  # ", " after it, or ")" after the last
        if need > width and line:
            lines.append(", ".join(line))
            line, width = [], room
        line.append(item)
        width -= need
    lines.append(", ".join(line))
    body = (",\n" + " " * column).join(lines)
    if len(items) > _MAX_PARAMS:
        body += ", ..."
    return f"{name}({body})"


def _shorten(text, limit):
    """Elide the middle of a repr of more than ``limit`` non-blank characters, keeping about
    ``limit / 2`` at each end (scikit-learn's rule for very long reprs)."""
    if len("".join(text.split())) <= limit:
        return text
    pattern = r"^(\s*\S){%d}" % (limit // 2)
    left = re.match(pattern, text).end()
    right = re.match(pattern, text[::-1]).end()
    if "\n" in text[left:-right]:
        right = re.match(pattern + r"[^\n]*\n", text[::-1]).end()
    if left + 3 < len(text) - right:
        text = text[:left] + "..." + text[-right:]
    return text
