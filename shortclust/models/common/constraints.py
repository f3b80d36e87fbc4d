"""The constraints a model declares its constructor parameters with
(``_parameter_constraints``; :mod:`shortclust.models.base` states the contract and
re-exports them).

Every constraint refuses a value with a :class:`~shortclust.errors.ParameterError` of the
form ``"<name> must be <description>, got <value!r>"``; the same objects check values that
are not constructor parameters (``Integer(0).check(n_iter, "n_iter")``).
"""

import numbers
from collections import abc

import numpy as np

from shortclust.errors import ParameterError, short_repr

__all__ = ["MAX_INTEGER", "Boolean", "Constraint", "Integer", "Interval", "ModelName",
           "NoneOr", "Options", "ParamDict", "Real", "Seed"]


class Constraint:
    """A rule one parameter value must satisfy.

    Subclasses implement :meth:`accepts` and :meth:`describe`; :meth:`check` composes the
    message from the description, so every rule words its refusal the same way.
    """

    def accepts(self, value):
        """Whether ``value`` satisfies the rule."""
        raise NotImplementedError

    def describe(self):
        """What a valid value is, completing "NAME must be ..." (e.g. "an integer >= 1")."""
        raise NotImplementedError

    def check(self, value, name):
        """Raise :class:`ParameterError` naming ``name`` unless ``value`` is accepted."""
        if not self.accepts(value):
            raise ParameterError(f"{name} must be {self.describe()}, got {short_repr(value)}")

    def __repr__(self):
        return f"<{type(self).__name__}: {self.describe()}>"


def _is_real(value):
    """A real number that is not a bool (True is an int to Python, never a count here)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _noted(text, note):
    return f"{text} ({note})" if note else text


#: The largest integer a parameter takes unless its rule sets another maximum: the kernels
#: count and number in int32 (LDA's topic of each token and its counts, word ids), so a
#: count beyond it would overflow one, and an iteration count beyond it (``max_iter=10**12``)
#: would run for ever; an allocation that large cannot be made either.
MAX_INTEGER = 2**31 - 1
_MAX_INTEGER_WHY = "2**31 - 1, the most the kernels' int32 counters hold"


class Integer(Constraint):
    """An integer (not a bool) at least ``minimum`` and at most ``maximum``.

    Parameters
    ----------
    minimum : int
    note : str, optional
        What the value means, appended in parentheses (useful among alternatives).
    maximum : int, default=MAX_INTEGER
        The largest value (:data:`MAX_INTEGER`: any count beyond it is a typo or an
        overflow).
    why : str, optional
        Why ``maximum`` is the limit, for the refusal of a larger value.

    Examples
    --------
    >>> Integer(1).check(0, "n_clusters")
    Traceback (most recent call last):
    ...
    shortclust.errors.ParameterError: n_clusters must be an integer >= 1, got 0
    >>> Integer(1).check(10**12, "max_iter")
    Traceback (most recent call last):
    ...
    shortclust.errors.ParameterError: max_iter must be an integer from 1 to 2147483647 (2**31 - 1, the most the kernels' int32 counters hold), got 1000000000000
    """

    def __init__(self, minimum, note=None, maximum=MAX_INTEGER, why=None):
        self.minimum, self.note, self.maximum = minimum, note, maximum
        self.why = why if why is not None or maximum != MAX_INTEGER else _MAX_INTEGER_WHY

    def accepts(self, value):
        return (_is_real(value) and isinstance(value, numbers.Integral)
                and self.minimum <= value <= self.maximum)

    def describe(self):
        return _noted(f"an integer >= {self.minimum}", self.note)

    def check(self, value, name):
        """Refuse a value as :meth:`Constraint.check` does; one above the maximum with the
        range and why it ends there."""
        if _is_real(value) and isinstance(value, numbers.Integral) and value > self.maximum:
            why = f" ({self.why})" if self.why else ""
            raise ParameterError(f"{name} must be an integer from {self.minimum} to "
                                 f"{self.maximum}{why}, got {short_repr(value)}")
        super().check(value, name)


class Real(Constraint):
    """A finite real number (not a bool) above ``minimum``, or equal to it if ``inclusive``.

    Parameters
    ----------
    minimum : float
    inclusive : bool, default=True
        ``value >= minimum`` if True, ``value > minimum`` if False.

    Examples
    --------
    >>> Real(0.0).check(-1, "alpha")
    Traceback (most recent call last):
    ...
    shortclust.errors.ParameterError: alpha must be a finite number >= 0, got -1
    """

    def __init__(self, minimum, inclusive=True):
        self.minimum, self.inclusive = minimum, inclusive

    def accepts(self, value):
        if not _is_real(value) or not np.isfinite(value):
            return False
        return value >= self.minimum if self.inclusive else value > self.minimum

    def describe(self):
        bound = ">=" if self.inclusive else ">"
        return f"a finite number {bound} {self.minimum:g}"


class Interval(Constraint):
    """A real number (not a bool) between ``low`` and ``high``.

    Parameters
    ----------
    low, high : float
    closed : {"right", "left", "both", "neither"}, default="right"
        Which ends belong to the interval: ``"right"`` is ``(low, high]``.
    kind : str, default="number"
        The noun of the description ("a number in (0, 1]", "a float in [0, 1)").
    note : str, optional
        What the value means, appended in parentheses.
    """

    def __init__(self, low, high, closed="right", kind="number", note=None):
        if closed not in ("right", "left", "both", "neither"):
            raise ValueError(f"closed must be right, left, both or neither, got {closed!r}")
        self.low, self.high, self.closed, self.kind, self.note = low, high, closed, kind, note

    def accepts(self, value):
        if not _is_real(value):
            return False
        above = value >= self.low if self.closed in ("left", "both") else value > self.low
        below = value <= self.high if self.closed in ("right", "both") else value < self.high
        return bool(above and below)  # NaN fails both comparisons

    def describe(self):
        left = "[" if self.closed in ("left", "both") else "("
        right = "]" if self.closed in ("right", "both") else ")"
        return _noted(f"a {self.kind} in {left}{self.low:g}, {self.high:g}{right}", self.note)


class Options(Constraint):
    """One of a fixed set of values (compared by equality, e.g. strings).

    Examples
    --------
    >>> Options("eq4", "eq3").check("eq5", "likelihood")
    Traceback (most recent call last):
    ...
    shortclust.errors.ParameterError: likelihood must be one of eq4, eq3, got 'eq5'
    """

    def __init__(self, *values):
        self.values = tuple(values)

    def accepts(self, value):
        # Unhashable values (lists, arrays) are never options and cannot compare safely.
        return isinstance(value, abc.Hashable) and value in self.values

    def describe(self):
        return "one of " + ", ".join(map(str, self.values))


class ModelName(Constraint):
    """The name of a registered model (any case), read from the registry when checked.

    Parameters
    ----------
    exclude : sequence of str, default=()
        Registered names not allowed here (a model cannot start from itself).
    allow_none : bool, default=False
        Also accept None.
    """

    def __init__(self, exclude=(), allow_none=False):
        self.exclude, self.allow_none = tuple(exclude), allow_none

    def names(self):
        """The allowed names, sorted."""
        from shortclust.models import model_names

        return [name for name in model_names() if name not in self.exclude]

    def accepts(self, value):
        if value is None:
            return self.allow_none
        return isinstance(value, str) and value.lower() in self.names()

    def describe(self):
        listed = "one of " + ", ".join(self.names())
        return f"None or {listed}" if self.allow_none else listed


class Boolean(Constraint):
    """True or False (a Python or numpy bool)."""

    def accepts(self, value):
        return isinstance(value, (bool, np.bool_))

    def describe(self):
        return "true or false"


class ParamDict(Constraint):
    """A mapping of parameters for an inner estimator (its names are checked jointly)."""

    def accepts(self, value):
        return isinstance(value, abc.Mapping)

    def describe(self):
        return "a mapping of parameters"


class Seed(Constraint):
    """A seed for ``numpy.random.default_rng``: None, an integer >= 0 or a numpy Generator.

    BitGenerators and SeedSequences are accepted too, as ``default_rng`` takes them.
    """

    _GENERATORS = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)

    def accepts(self, value):
        if value is None or isinstance(value, self._GENERATORS):
            return True
        return _is_real(value) and isinstance(value, numbers.Integral) and value >= 0

    def describe(self):
        return "None, an integer >= 0 or a numpy Generator"


class NoneOr(Constraint):
    """None, or a value ``inner`` accepts.

    None stands for "not set" (the parameter's documented default behaviour), so the
    refusal describes only the values a user would type: ``NoneOr(Integer(1))`` says "k
    must be an integer >= 1".
    """

    def __init__(self, inner):
        self.inner = inner

    def accepts(self, value):
        return value is None or self.inner.accepts(value)

    def describe(self):
        return self.inner.describe()

    def check(self, value, name):
        """None, else the inner rule's own check (and its wording)."""
        if value is not None:
            self.inner.check(value, name)


def _alternatives(rule):
    """A declared rule as a tuple of constraints (a list declares alternatives)."""
    return tuple(rule) if isinstance(rule, (list, tuple)) else (rule,)


def _check_value(rule, value, name):
    """Raise ParameterError unless one of the rule's alternatives accepts ``value``."""
    options = _alternatives(rule)
    if len(options) == 1:
        options[0].check(value, name)
    elif not any(option.accepts(value) for option in options):
        described = " or ".join(option.describe() for option in options)
        raise ParameterError(f"{name} must be {described}, got {value!r}")
