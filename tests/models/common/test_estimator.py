"""Our estimator base against scikit-learn's: parameters, repr, clone, tags, not-fitted errors.

The models no longer derive from scikit-learn's ``BaseEstimator`` (importing it costs about
1 s); these tests hold the replacement to scikit-learn's own behaviour on every registered
model.
"""

import inspect
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone, is_clusterer
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags

from shortclust.models import get_model_class, model_names
from shortclust.models.common.estimator import Estimator, check_is_fitted


def sklearn_twin(model_class):
    """A scikit-learn ``BaseEstimator`` with the same name and constructor signature, which
    stores its keyword arguments: scikit-learn's get_params and repr applied to the same
    parameters."""
    def __init__(self, **params):
        for name, value in params.items():
            setattr(self, name, value)

    __init__.__signature__ = inspect.signature(model_class.__init__)
    return type(model_class.__name__, (BaseEstimator,), {"__init__": __init__})


def changed(value):
    """A different value of the same kind (long, so that reprs wrap)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 123457
    if isinstance(value, float):
        return value + 0.123456789
    if isinstance(value, str):
        return value + "_and_a_long_suffix"
    if isinstance(value, dict):
        return {"zeta": 1, "alpha": [1, 2, (3,)], "beta": {"b": None, "a": 0.5}}
    return 7 if value is None else value


def settings(model_class):
    defaults = model_class().get_params(deep=False)
    every = {name: changed(value) for name, value in defaults.items()}
    first = dict(list(every.items())[:1])
    return [{}, first, every]


@pytest.mark.parametrize("name", model_names())
def test_params_repr_and_clone_are_scikit_learns(name):
    model_class = get_model_class(name)
    twin = sklearn_twin(model_class)
    for params in settings(model_class):
        ours = model_class(**params)
        theirs = twin(**ours.get_params(deep=False))
        assert ours.get_params() == theirs.get_params()
        assert repr(ours) == repr(theirs)
        assert ours.__repr__(N_CHAR_MAX=60) == theirs.__repr__(N_CHAR_MAX=60)
        copy = clone(ours)
        assert type(copy) is model_class and copy is not ours
        assert copy.get_params() == ours.get_params()
    assert model_class._get_param_names() == twin._get_param_names()


@pytest.mark.parametrize("name", model_names())
def test_scikit_learn_sees_a_clusterer(name):
    model = get_model_class(name)()
    assert is_clusterer(model) and get_tags(model).estimator_type == "clusterer"


class Inner(Estimator):
    def __init__(self, *, a=1, b=None):
        self.a, self.b = a, b


class Outer(Estimator):
    def __init__(self, *, inner=None, c=0.5):
        self.inner, self.c = inner, c

    def fit(self, X, y=None):
        self.labels_ = np.zeros(len(X), dtype=np.int64)
        return self


def test_nested_parameters_as_scikit_learn_gives_and_sets_them():
    model = Outer(inner=Inner(a=2))
    assert model.get_params() == {"c": 0.5, "inner": model.inner, "inner__a": 2,
                                  "inner__b": None}
    assert model.set_params(inner__b="x", c=1.0) is model
    assert model.inner.b == "x" and model.c == 1.0
    assert repr(model) == "Outer(c=1.0, inner=Inner(a=2, b='x'))"
    twin = sklearn_twin(Outer)(inner=sklearn_twin(Inner)(a=2, b="x"), c=1.0)
    assert repr(model) == repr(twin)
    copy = clone(model)
    assert copy.inner is not model.inner and copy.inner.get_params() == model.inner.get_params()


def test_an_unknown_parameter_is_refused_as_scikit_learn_refuses_it():
    with pytest.raises(ValueError, match=r"Invalid parameter 'd' for estimator Outer\(\)\. "
                                         r"Valid parameters are: \['c', 'inner'\]\."):
        Outer().set_params(d=1)


def test_varargs_are_refused():
    class Loose(Estimator):
        def __init__(self, *args):
            self.args = args

    with pytest.raises(RuntimeError, match=r"Loose's __init__ takes \*args"):
        Loose._get_param_names()


def test_fit_predict_returns_the_labels():
    assert Outer().fit_predict([[0], [1], [2]]).tolist() == [0, 0, 0]


def test_not_fitted_is_scikit_learns_error():
    model = get_model_class("gsdmm")()
    with pytest.raises(NotFittedError, match="This GSDMM instance is not fitted yet"):
        check_is_fitted(model, "labels_")
    with pytest.raises(NotFittedError):
        model.predict(np.ones((2, 3)))
    model.labels_ = np.zeros(2)
    check_is_fitted(model, "labels_")  # nothing raised


def test_importing_a_model_needs_no_scikit_learn():
    # The models that call scikit-learn import it where they call it, except iterative
    # classification, whose inner classifiers are scikit-learn estimators.
    code = ("import sys; from shortclust.models import get_model_class, model_names\n"
            "for name in set(model_names()) - {'iterative_classification'}:\n"
            "    get_model_class(name)().get_params(); repr(get_model_class(name)())\n"
            "print([m for m in ('sklearn', 'pandas') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
