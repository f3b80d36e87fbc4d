"""The model contract: what every registered clustering model declares and provides.

A model file in ``shortclust/models`` defines one public estimator, registered by name in
``shortclust.models._MODELS`` (imported lazily, on first use). The estimator must provide:

1. **A class derived from** :class:`ClusteringModel` (scikit-learn's estimator contract:
   ``get_params``, ``set_params``, the repr and ``fit_predict`` of its ``BaseEstimator``
   and ``ClusterMixin``, implemented in :mod:`shortclust.models.common.estimator` so that
   a model that does not use scikit-learn does not import it), whose ``__init__`` takes
   keyword-only hyperparameters only and stores each one unchanged under its own name, so
   ``get_params``, ``set_params`` and ``sklearn.base.clone`` work.
2. **``_parameter_constraints``**, a class attribute: a dict naming every constructor
   parameter (``random_state`` included) with the rule its value must satisfy: one of the
   constraints of :mod:`shortclust.models.common.constraints` (re-exported here), or a
   list of them (alternatives; a value is valid if any accepts it)::

       _parameter_constraints = {
           "n_clusters": Integer(1),
           "alpha": Real(0.0),
           "likelihood": Options("eq4", "eq3"),
           "random_state": Seed(),
       }

   A rule linking several parameters (``linkage="ward"`` needs ``metric="euclidean"``)
   goes in :meth:`ClusteringModel._validate_joint_params`, which runs after them.
3. **``capabilities``**, a class attribute: a :class:`Capabilities` saying what ``fit``
   takes (word counts, document vectors or both; ``counts=`` beside vectors), whether
   the model learns incrementally, which of ``predict``, ``predict_proba`` and
   ``top_words`` it offers, and whether its labels depend on ``random_state``. The
   runner reads these; it never inspects signatures or model names.
4. **``fit(X, y=None, callback=None)``** that calls ``self._validate_params()`` once
   before any work, returns ``self`` and sets ``labels_`` (one int per document),
   ``n_clusters_`` (an int, the distinct labels) and ``n_iter_``; and the methods its
   capabilities declare: ``fit(..., counts=None)``, ``partial_fit(X_batch)``,
   ``predict(X)``, ``predict_proba(X)`` (rows summing to 1), ``top_words(n=10,
   vocabulary=None)`` (one list of ``(word, weight)`` per cluster). Methods it does not
   declare are absent.
5. **``_fitted_attributes``** when it declares ``predict``: the names of the fitted
   attributes that ``predict``, ``predict_proba`` and ``top_words`` read, ``labels_``
   included (``vocabulary_`` is kept apart), each a numpy array, a JSON value or a numpy
   Generator. :mod:`shortclust.models.state` saves a model as these values and loads it
   by setting them on a fresh instance, then calling :meth:`ClusteringModel._restore_fitted`
   (which rebuilds any helper object they imply); the loaded model predicts exactly as the
   fitted one.

A model may also declare **``_parameters_added_later``**: the constructor parameters added
after runs of it were archived, each with the value that reproduces the behaviour from
before it existed (its default)::

    _parameters_added_later = {"selection": None, "variant": "paper"}

While such a parameter holds that value it is left out of the parameters that identify a
run (:func:`identity_params`, applied by ``shortclust.config.full_model_params``), so the
run ids of archived runs, and the work-directory tags hashed from the same parameters, do
not change when a parameter is added; any other value is part of the identity, so a run
that uses the new behaviour gets a new id. Records of such runs list only the parameters
of their identity; :func:`with_added_parameters` fills the others back in.

:func:`check_declarations` checks points 1-3 and 5 and that the declared methods exist,
failing with a one-line :class:`ModelDeclarationError` that names the class and what
to add; :func:`validate_params` checks a dict of parameters against a class without
fitting (what ``shortclust.config`` does before any run). ``tests/models/test_contract.py``
checks the behaviour of every registered model against the contract.

Every constraint refuses a value with a :class:`~shortclust.errors.ParameterError` of the
form ``"<name> must be <description>, got <value!r>"`` (``"n_clusters must be an integer
>= 1, got 0"``); the same objects check values that are not constructor parameters
(``Integer(0).check(n_iter, "n_iter")``), so each rule has one implementation. An integer
is at most :data:`~shortclust.models.common.constraints.MAX_INTEGER` (2**31 - 1, the int32
the kernels count in) unless its rule sets another maximum.
"""

from dataclasses import dataclass, fields

from shortclust.errors import ModelDeclarationError
from shortclust.models.common.constraints import (  # noqa: F401 (re-exported: the contract)
    MAX_INTEGER, Boolean, Constraint, Integer, Interval, ModelName, NoneOr, Options, ParamDict,
    Real, Seed, _alternatives, _check_value)
from shortclust.models.common.estimator import Estimator, check_is_fitted  # noqa: F401
from shortclust.models.common.params import check_param_names
from shortclust.models.common.identity import (  # noqa: F401 (re-exported: part of the contract)
    _check_added_parameters,
    identity_params,
    with_added_parameters,
)

__all__ = [
    "INPUTS", "MAX_INTEGER", "Boolean", "Capabilities", "ClusteringModel", "Constraint",
    "Integer", "Interval", "ModelDeclarationError", "ModelName", "NoneOr", "Options", "ParamDict",
    "Real", "Seed", "check_declarations", "check_is_fitted", "identity_params",
    "validate_params", "with_added_parameters",
]

# What ``fit`` takes (Capabilities.input): integer term counts only, float document
# vectors only, or either.
INPUTS = ("counts", "vectors", "both")


# The constraints (Integer, Real, ...) live in shortclust.models.common.constraints.

# --- capabilities ---------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Capabilities:
    """What a model's ``fit`` takes and which optional methods it offers.

    Parameters
    ----------
    input : {"counts", "vectors", "both"}
        ``"counts"``: integer term counts only (a Corpus or an integer matrix);
        ``"vectors"``: float document vectors only; ``"both"``: either.
    fit_counts : bool, default=False
        ``fit`` also takes ``counts=`` (the corpus's term counts, row for row) beside its
        vectors, as iterative classification does.
    incremental : bool, default=False
        Has ``partial_fit(X_batch)``: the first call fits, later calls add documents.
    predict : bool
        Has ``predict(X)`` for new documents.
    predict_proba : bool
        Has ``predict_proba(X)``, one row per document summing to 1.
    top_words : bool
        Has ``top_words(n=10, vocabulary=None)``.
    seeded : bool, default=True
        The labels depend on ``random_state``; False for a deterministic model (HAC),
        whose runs with different seeds give the same labels.
    topics : bool, default=False
        Once fitted, gives ``topic_proportions_`` (K,) and ``topic_word_`` (K x V, rows)
        summing to 1, which perplexity and retrieval score (``shortclust.evaluation``).

    Examples
    --------
    >>> Capabilities(input="counts", predict=True, predict_proba=False, top_words=True)
    Capabilities(input='counts', fit_counts=False, incremental=False, predict=True, \
predict_proba=False, top_words=True, seeded=True, topics=False)
    """

    input: str
    fit_counts: bool = False
    incremental: bool = False
    predict: bool
    predict_proba: bool
    top_words: bool
    seeded: bool = True
    topics: bool = False

    def __post_init__(self):
        if self.input not in INPUTS:
            raise ValueError(
                f"Capabilities input must be one of {', '.join(INPUTS)}, got {self.input!r}"
            )
        for field in fields(self):
            value = getattr(self, field.name)
            if field.name != "input" and not isinstance(value, bool):
                raise TypeError(f"Capabilities {field.name} must be True or False, got {value!r}")


# capability -> the method it promises
_METHODS = {"fit_counts": "fit", "incremental": "partial_fit", "predict": "predict",
            "predict_proba": "predict_proba", "top_words": "top_words"}


# --- the base class -------------------------------------------------------------------------

class ClusteringModel(Estimator):
    """Base class of the clustering models: parameter checks from the declarations.

    Subclasses declare ``_parameter_constraints`` and ``capabilities`` (see the module
    docstring) and call :meth:`_validate_params` at the start of ``fit``. This class
    declares neither, so a subclass that forgets one is refused by name.
    """

    #: Constructor parameters added after runs were archived: name -> the value (its
    #: default) that gives the behaviour from before it existed (see the module docstring).
    _parameters_added_later = {}

    def _validate_params(self):
        """Check every constructor parameter against the class's declared constraints.

        scikit-learn's estimators have a method of the same name, which reads
        scikit-learn's own constraint types; this one reads ours.

        Raises
        ------
        ModelDeclarationError
            If the class lacks a declaration (see :func:`check_declarations`).
        ParameterError
            Naming the first parameter, in declaration order, whose value is refused.
        """
        model_class = type(self)
        check_declarations(model_class)
        params = self.get_params(deep=False)
        for name, rule in model_class._parameter_constraints.items():
            _check_value(rule, params[name], name)
        self._validate_joint_params()

    #: The fitted attributes a saved model keeps (point 5 of the module docstring); a
    #: model that declares ``predict`` must name them.
    _fitted_attributes = ()

    def _restore_fitted(self):
        """Rebuild what the fitted attributes imply, after a load set them (nothing here)."""

    def _validate_joint_params(self):
        """Rules linking several parameters; runs after each has passed its own constraint.

        Raise :class:`ParameterError` naming the parameters. Nothing by default.
        """

    @classmethod
    def memory_bytes(cls, params, n_docs, n_features):
        """A lower bound of the memory a fit allocates, in bytes; None when unknown.

        The runner compares it with the memory available before any fit, so that a
        setting that cannot fit (``n_clusters=100000000``) is refused in one line instead
        of failing in an allocation. Models whose largest arrays grow with a parameter
        override it; ``n_features`` is None when the representation's width is not known
        in advance (sentence embeddings, word vectors).
        """
        return None


def check_declarations(model_class):
    """Check that ``model_class`` declares what the contract asks for (module docstring).

    Parameters
    ----------
    model_class : type

    Raises
    ------
    ModelDeclarationError
        A ``TypeError`` with a one-line message naming the class and what to add: not a
        :class:`ClusteringModel`; a hand-written ``_validate_params``; no
        :class:`Capabilities`; no ``_parameter_constraints`` dict; a constructor
        parameter without a constraint, or a constraint for no parameter; a declared
        capability whose method is missing; ``predict`` without ``_fitted_attributes``.
    """
    name = getattr(model_class, "__name__", repr(model_class))
    if not (isinstance(model_class, type) and issubclass(model_class, ClusteringModel)):
        raise ModelDeclarationError(
            f"{name} is not a ClusteringModel: derive it from "
            "shortclust.models.base.ClusteringModel and declare _parameter_constraints "
            "and capabilities"
        )
    if model_class._validate_params is not ClusteringModel._validate_params:
        raise ModelDeclarationError(
            f"{name} overrides _validate_params: remove it and declare "
            "_parameter_constraints (rules linking parameters go in _validate_joint_params)"
        )
    _check_capabilities(model_class, name)
    _check_constraints(model_class, name)
    _check_fitted_attributes(model_class, name)
    _check_added_parameters(model_class, name)


def _check_capabilities(model_class, name):
    capabilities = getattr(model_class, "capabilities", None)
    if not isinstance(capabilities, Capabilities):
        raise ModelDeclarationError(
            f"{name} declares no capabilities: add a class attribute capabilities = "
            "Capabilities(input=..., predict=..., predict_proba=..., top_words=...) "
            "from shortclust.models.base"
        )
    for capability, method in _METHODS.items():
        if getattr(capabilities, capability) and not callable(getattr(model_class, method, None)):
            raise ModelDeclarationError(
                f"{name} declares {capability}=True in its capabilities but has no "
                f"{method} method: add {method} or declare {capability}=False"
            )


def _check_constraints(model_class, name):
    try:
        params = model_class._get_param_names()
    except RuntimeError as error:  # an __init__ with *args, refused as scikit-learn does
        raise ModelDeclarationError(f"{name}: {error}") from None
    constraints = getattr(model_class, "_parameter_constraints", None)
    if not isinstance(constraints, dict):
        raise ModelDeclarationError(
            f"{name} declares no _parameter_constraints: add a class attribute "
            "_parameter_constraints = {name: constraint} from shortclust.models.base, "
            f"one for each of its parameters ({', '.join(params)})"
        )
    missing = [param for param in params if param not in constraints]
    if missing:
        raise ModelDeclarationError(
            f"{name} has no constraint for parameter(s) {', '.join(missing)}: add them to "
            f"{name}._parameter_constraints (e.g. Integer(1), Real(0.0), Options(...), "
            "Seed())"
        )
    unknown = [key for key in constraints if key not in params]
    if unknown:
        raise ModelDeclarationError(
            f"{name}._parameter_constraints names {', '.join(map(str, unknown))}, not "
            "parameters of its __init__: remove them or add the parameters"
        )
    for param, rule in constraints.items():
        options = _alternatives(rule)
        if not options or not all(isinstance(option, Constraint) for option in options):
            raise ModelDeclarationError(
                f"{name}._parameter_constraints[{param!r}] is {rule!r}, not a constraint: "
                "use one (or a list of alternatives) from shortclust.models.base"
            )


def _check_fitted_attributes(model_class, name):
    attributes = model_class._fitted_attributes
    well_formed = isinstance(attributes, tuple) and all(
        isinstance(attribute, str) and attribute.endswith("_") for attribute in attributes)
    if not well_formed:
        raise ModelDeclarationError(
            f"{name}._fitted_attributes is {attributes!r}: make it a tuple of fitted "
            "attribute names (ending in '_')"
        )
    if model_class.capabilities.predict and "labels_" not in attributes:
        raise ModelDeclarationError(
            f"{name} declares predict=True but its _fitted_attributes lack labels_: list "
            "labels_ and every fitted attribute predict reads, so the model can be saved"
        )
    if "vocabulary_" in attributes:
        raise ModelDeclarationError(
            f"{name}._fitted_attributes lists vocabulary_, which a saved model keeps apart: "
            "remove it"
        )


def validate_params(model_class, params):
    """Check constructor parameters against ``model_class``'s declarations, without fitting.

    Parameters
    ----------
    model_class : type
        A registered model class.
    params : dict
        Constructor parameters; those not given take their defaults, which are checked
        too.

    Raises
    ------
    ModelDeclarationError
        If the class lacks a declaration (a ``TypeError``).
    ParameterError
        If ``params`` names a parameter the class lacks, or a value is refused.

    Examples
    --------
    >>> from shortclust.models import get_model_class
    >>> validate_params(get_model_class("gsdmm"), {"alpha": -1})
    Traceback (most recent call last):
    ...
    shortclust.errors.ParameterError: alpha must be a finite number >= 0, got -1
    """
    check_declarations(model_class)
    check_param_names(model_class, params)
    model_class(**params)._validate_params()
