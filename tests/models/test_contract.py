"""The model contract of ``shortclust.models.base``, checked on every registered model.

In the spirit of scikit-learn's ``check_estimator`` and river's generic estimator checks:
every test is parametrised over ``shortclust.models.model_names()``, so a new registration
is checked without touching this file (a model with ``predict`` is also saved to a model
file and loaded, and must predict as before), and over the harness's fake models
(``tests/pipeline/fake_estimators.py``), which the runner tests rely on to follow the
same contract. Fits use a 12-document corpus in three topics, one document empty, with
small ``n_clusters`` and iteration counts.
"""

import inspect
import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.feature_extraction.text import TfidfTransformer

from tests.pipeline import fake_estimators as fakes
from shortclust.config import ModelSpec, check_model_params
from shortclust.data.corpus import count_matrix
from shortclust.errors import ConfigError, ParameterError
from shortclust.models import _MODELS, get_model_class, model_names
from shortclust.apps.model_files import load_model, save_model
from shortclust.models.base import (Capabilities, ModelDeclarationError, check_declarations,
                                    validate_params)
from shortclust.models.state import fitted_state

FAKES = {
    "fake": fakes.register_fake_model,
    "fake_counts": fakes.register_fake_counts_model,
    "fake_stream": fakes.register_fake_stream_model,
    "fake_vector_stream": fakes.register_fake_vector_stream_model,
}
#: Models checked a second time with their parallel sweep (``threads=2``, every step of a
#: stream sampled in parallel however small): the name, "+threads=2".
THREADED = {"dct+threads=2": "dct", "gsdmm+threads=2": "gsdmm"}
NAMES = model_names() + sorted(FAKES) + sorted(THREADED)
#: Models whose library is an optional extra (`bench`): their checks are slow (UMAP compiles
#: on first use) and skipped where the library is not installed.
OPTIONAL = {"bertopic": "bertopic"}

DOCS = [
    "apple banana fruit", "banana fruit salad", "apple pie fruit", "fruit juice apple",
    "python code bug", "code review python", "bug fix code", "python test code",
    "goal match football", "football league goal", "match referee goal",
    "",  # an empty document: every model must handle one
]
COUNTS, VOCABULARY = count_matrix([doc.split() for doc in DOCS])
VECTORS = TfidfTransformer().fit_transform(COUNTS).tocsr()  # float rows, the empty one zero
N_DOCS = len(DOCS)
# Documents of random words: no clustering stands out, so a seeded model's labels vary.
NOISE_COUNTS = sp.csr_matrix(np.random.default_rng(0).poisson(0.15, size=(24, 40)))
NOISE_VECTORS = TfidfTransformer().fit_transform(NOISE_COUNTS).tocsr()
# Small settings for quick fits, applied to the parameters a model has by these names
# (mini-batches of half the corpus: one-document batches take a second per fit).
QUICK = {"n_clusters": 3, "max_iter": 3, "n_init": 2, "batch_fraction": 0.5}
# A value no constraint accepts: not a number, option, model name, mapping or seed.
BAD = "<not a valid value>"


@pytest.fixture(params=[pytest.param(name, marks=pytest.mark.slow) if name in OPTIONAL
                        else name for name in NAMES])
def model_name(request, monkeypatch):
    """Each registered model's name, and each fake model's (registered for the test)."""
    if request.param in OPTIONAL:
        pytest.importorskip(OPTIONAL[request.param])
    if request.param in FAKES:
        FAKES[request.param](monkeypatch)
    if request.param in THREADED:
        from shortclust.models.dmm import dct
        monkeypatch.setitem(QUICK, "threads", 2)
        monkeypatch.setattr(dct, "PARALLEL_MIN_WORK", 0)
        return THREADED[request.param]
    return request.param


@pytest.fixture
def model_class(model_name):
    return get_model_class(model_name)


def make(model_class, **params):
    """The model with :data:`QUICK` settings where it has such parameters, and ``params``."""
    names = model_class._get_param_names()
    return model_class(**{**{k: v for k, v in QUICK.items() if k in names}, **params})


def kinds(model_class):
    """The kinds of X its ``fit`` takes, as declared: "counts" and/or "vectors"."""
    declared = model_class.capabilities.input
    return [kind for kind in ("counts", "vectors") if declared in (kind, "both")]


def data(kind, noise=False):
    if noise:
        return NOISE_COUNTS if kind == "counts" else NOISE_VECTORS
    return COUNTS if kind == "counts" else VECTORS


def extras(model_class, noise=False):
    """``counts=`` for a model declaring ``fit_counts``, else nothing."""
    if not model_class.capabilities.fit_counts:
        return {}
    return {"counts": NOISE_COUNTS if noise else COUNTS}


def fitted(model_class, seed=0, noise=False):
    """A quick fit on the first kind of X the model takes."""
    X = data(kinds(model_class)[0], noise)
    model = make(model_class, random_state=seed)
    assert model.fit(X, **extras(model_class, noise)) is model
    return model


def label_bound(model):
    """Labels lie below ``n_clusters`` when the model has it, else below ``n_clusters_``."""
    n_clusters = model.get_params().get("n_clusters")
    return n_clusters if isinstance(n_clusters, int) else model.n_clusters_


def assert_valid_clustering(model, n_docs=N_DOCS):
    labels = np.asarray(model.labels_)
    assert labels.shape == (n_docs,) and np.issubdtype(labels.dtype, np.integer)
    assert labels.min() >= 0 and labels.max() < label_bound(model)
    assert isinstance(model.n_clusters_, int) and not isinstance(model.n_clusters_, bool)
    assert model.n_clusters_ == np.unique(labels).size
    assert isinstance(model.n_iter_, (int, np.integer)) and model.n_iter_ >= 0


def assert_absent_or_refused(model, method, *args):
    """An undeclared method is absent, or raises when called."""
    bound = getattr(model, method, None)
    if bound is not None:
        with pytest.raises((NotImplementedError, ParameterError, AttributeError, TypeError)):
            bound(*args)


# --- declarations ---------------------------------------------------------------------------

def test_declarations_are_complete_and_the_defaults_valid(model_class):
    check_declarations(model_class)
    assert isinstance(model_class.capabilities, Capabilities)
    params = model_class._get_param_names()
    assert set(model_class._parameter_constraints) == set(params)
    assert "random_state" in params  # the runner passes every run's seed
    validate_params(model_class, {})


def test_constructor_takes_keyword_only_params_and_round_trips(model_class):
    signature = inspect.signature(model_class.__init__)
    assert all(p.kind is p.KEYWORD_ONLY for name, p in signature.parameters.items()
               if name != "self")
    model = make(model_class, random_state=7)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert model_class().set_params(**model.get_params()).get_params() == model.get_params()
    assert model.random_state == 7


# --- fit ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["counts", "vectors"])
def test_fit_takes_the_declared_input_and_refuses_the_other(model_class, kind):
    model = make(model_class, random_state=0)
    if kind in kinds(model_class):
        assert model.fit(data(kind), **extras(model_class)) is model
        assert_valid_clustering(model)
    else:
        with pytest.raises(ParameterError):
            model.fit(data(kind), **extras(model_class))


def test_same_seed_same_labels(model_class):
    first = fitted(model_class, seed=0).labels_
    np.testing.assert_array_equal(fitted(model_class, seed=0).labels_, first)


def test_labels_depend_on_the_seed_exactly_when_declared_seeded(model_class):
    runs = {tuple(fitted(model_class, seed, noise=True).labels_) for seed in range(4)}
    assert (len(runs) > 1) == model_class.capabilities.seeded


def test_counts_beside_vectors_only_where_declared(model_class):
    model = make(model_class, random_state=0)
    X = data(kinds(model_class)[-1])
    if model_class.capabilities.fit_counts:
        assert_valid_clustering(model.fit(X, counts=COUNTS))
    else:
        with pytest.raises(TypeError):
            model.fit(X, counts=COUNTS)


def test_every_parameter_refuses_a_bad_value_in_fit_and_in_a_config(model_name, model_class):
    X = data(kinds(model_class)[0])
    for param in model_class._parameter_constraints:
        with pytest.raises(ParameterError) as raised:
            make(model_class, **{param: BAD}).fit(X, **extras(model_class))
        message = str(raised.value)
        assert message.startswith(f"{param} must be ") and "\n" not in message, message
        if param == "random_state":
            continue  # a config cannot set it: the seeds do
        with pytest.raises(ConfigError) as raised:
            check_model_params(ModelSpec(name=model_name, params={param: BAD}), where="test")
        assert f"model.params: {param} must be " in str(raised.value)
        assert "\n" not in str(raised.value)


# --- optional methods -----------------------------------------------------------------------

def test_partial_fit_where_declared(model_class):
    X = data(kinds(model_class)[0])
    if not model_class.capabilities.incremental:
        assert_absent_or_refused(make(model_class, random_state=0), "partial_fit", X)
        return
    runs = []
    for _ in range(2):
        model = make(model_class, random_state=0)
        assert model.partial_fit(X[:5]) is model
        assert_valid_clustering(model, n_docs=5)
        assert model.partial_fit(X[5:]) is model
        assert_valid_clustering(model)
        runs.append(np.asarray(model.labels_))
    np.testing.assert_array_equal(runs[0], runs[1])
    if model_class.capabilities.predict:
        assert model.predict(X).shape == (N_DOCS,)


def test_predict_where_declared(model_class):
    model = fitted(model_class)
    X = data(kinds(model_class)[0])
    if not model_class.capabilities.predict:
        assert_absent_or_refused(model, "predict", X)
        return
    labels = np.asarray(model.predict(X))
    assert labels.shape == (N_DOCS,) and np.issubdtype(labels.dtype, np.integer)
    assert labels.min() >= 0 and labels.max() < label_bound(model)


def test_predict_proba_where_declared(model_class):
    model = fitted(model_class)
    X = data(kinds(model_class)[0])
    if not model_class.capabilities.predict_proba:
        assert_absent_or_refused(model, "predict_proba", X)
        return
    proba = model.predict_proba(X)
    assert proba.shape[0] == N_DOCS and proba.shape[1] >= model.n_clusters_
    assert np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if model_class.capabilities.predict:
        np.testing.assert_array_equal(proba.argmax(axis=1), model.predict(X))


def test_topic_distributions_where_declared(model_class):
    if not model_class.capabilities.topics:
        return
    model = fitted(model_class)
    theta, phi = np.asarray(model.topic_proportions_), np.asarray(model.topic_word_)
    assert theta.ndim == 1 and phi.shape == (theta.size, model.n_features_in_)
    assert np.all(theta >= 0) and np.all(phi >= 0)
    np.testing.assert_allclose(theta.sum(), 1.0)
    np.testing.assert_allclose(phi.sum(axis=1), 1.0)


def test_top_words_where_declared(model_class):
    model = fitted(model_class)
    if not model_class.capabilities.top_words:
        assert_absent_or_refused(model, "top_words", 2, VOCABULARY)
        return
    top = model.top_words(n=2, vocabulary=VOCABULARY)
    assert len(top) >= model.n_clusters_
    for words in top:
        assert 1 <= len(words) <= 2
        assert all(word in VOCABULARY and isinstance(weight, float) for word, weight in words)


# --- saved models: the fitted state round-trips -----------------------------------------------

def saved_and_loaded(model_name, model, tmp_path):
    """``model`` through its fitted state and a model file, and back."""
    state = fitted_state(model)
    path = save_model(tmp_path / "model.zip", model_name, model.get_params(), state,
                      vocabulary=VOCABULARY)
    return load_model(path).model


def test_fitted_state_is_plain_json_and_numeric_arrays(model_class):
    model = fitted(model_class)
    if not model_class.capabilities.predict:
        return  # nothing to save: no predict, no new texts to assign
    values, arrays = fitted_state(model)
    json.dumps(values, allow_nan=False)  # plain JSON, no pickled object
    assert set(values) | set(arrays) == set(model_class._fitted_attributes)
    assert all(isinstance(array, np.ndarray) and not array.dtype.hasobject
               for array in arrays.values())


@pytest.mark.parametrize("kind", ["counts", "vectors"])
def test_a_loaded_model_predicts_as_the_fitted_one(model_name, model_class, kind, tmp_path):
    if not model_class.capabilities.predict or kind not in kinds(model_class):
        return
    model = make(model_class, random_state=0).fit(data(kind), **extras(model_class))
    loaded = saved_and_loaded(model_name, model, tmp_path)
    assert type(loaded) is model_class and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.labels_, model.labels_)
    # New documents: the corpus's rows in another order, and noise over its words.
    new = data(kind)[::-1]
    noise = NOISE_COUNTS[:, :len(VOCABULARY)]
    others = [new, noise if kind == "counts" else TfidfTransformer().fit_transform(noise)]
    for X in others:
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        if model_class.capabilities.predict_proba:
            np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    if model_class.capabilities.top_words:
        assert loaded.top_words(3) == model.top_words(3, vocabulary=VOCABULARY)


def test_a_loaded_incremental_model_continues_as_the_fitted_one(model_name, model_class,
                                                                tmp_path):
    if not (model_class.capabilities.predict and model_class.capabilities.incremental):
        return
    X = data(kinds(model_class)[0])
    model = make(model_class, random_state=3).partial_fit(X[:6])
    loaded = saved_and_loaded(model_name, model, tmp_path)
    np.testing.assert_array_equal(loaded.partial_fit(X[6:]).labels_,
                                  model.partial_fit(X[6:]).labels_)


def test_predict_without_saved_labels_is_refused():
    class Unsaveable(fakes.FakeClusterer):
        capabilities = Capabilities(input="both", predict=True, predict_proba=False,
                                    top_words=False)
        _fitted_attributes = ("n_clusters_",)

        def predict(self, X):
            return np.zeros(X.shape[0], dtype=np.int64)

    with pytest.raises(ModelDeclarationError, match="Unsaveable declares predict=True but its "
                                                    "_fitted_attributes lack labels_"):
        check_declarations(Unsaveable)
    Unsaveable._fitted_attributes = ("labels_", "vocabulary_")
    with pytest.raises(ModelDeclarationError, match="lists vocabulary_"):
        check_declarations(Unsaveable)


# --- a class missing its declarations -------------------------------------------------------

DAMAGES = {
    "constraints removed": ({"_parameter_constraints": None}, "_parameter_constraints"),
    "constraints blank": ({"_parameter_constraints": {}}, "no constraint for parameter"),
    "capabilities removed": ({"capabilities": None}, "capabilities"),
}


def register(monkeypatch, broken):
    """Make ``broken`` a module attribute and register it as model ``broken``."""
    monkeypatch.setattr(sys.modules[__name__], broken.__name__, broken, raising=False)
    monkeypatch.setitem(_MODELS, "broken", (__name__, broken.__name__))


def assert_refused_by_name(monkeypatch, broken, missing):
    """check_declarations, fit and a config all refuse ``broken`` in one line naming it."""
    with pytest.raises(ModelDeclarationError) as raised:
        check_declarations(broken)
    message = str(raised.value)
    assert broken.__name__ in message and missing in message and "\n" not in message
    register(monkeypatch, broken)
    with pytest.raises(ConfigError) as raised:
        check_model_params(ModelSpec(name="broken"), where="test")
    assert broken.__name__ in str(raised.value) and missing in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_subclass_missing_a_declaration_is_refused_by_name(model_class, damage,
                                                             monkeypatch):
    attributes, missing = DAMAGES[damage]
    broken = type(f"Broken{model_class.__name__}", (model_class,), attributes)
    assert_refused_by_name(monkeypatch, broken, missing)
    with pytest.raises(ModelDeclarationError, match=broken.__name__):
        make(broken, random_state=0).fit(data(kinds(model_class)[0]), **extras(model_class))


def test_a_model_outside_the_contract_is_refused_by_name(monkeypatch):
    class LegacyClusterer(BaseEstimator):  # what a model file held before the contract
        def __init__(self, *, n_clusters=3, random_state=None):
            self.n_clusters = n_clusters
            self.random_state = random_state

        def fit(self, X, y=None):
            return self

    assert_refused_by_name(monkeypatch, LegacyClusterer, "ClusteringModel")


def test_hand_written_validation_and_a_promised_method_missing_are_refused():
    class OwnValidation(fakes.FakeClusterer):
        def _validate_params(self):
            pass

    class NoPredict(fakes.FakeClusterer):
        capabilities = Capabilities(input="both", predict=True, predict_proba=False,
                                    top_words=False)

    with pytest.raises(ModelDeclarationError, match="OwnValidation overrides _validate_params"):
        check_declarations(OwnValidation)
    with pytest.raises(ModelDeclarationError, match="NoPredict declares predict=True .* no "
                                                    "predict method"):
        check_declarations(NoPredict)


@pytest.mark.parametrize("fields, message", [
    ({"input": "text"}, "input must be one of counts, vectors, both"),
    ({"input": "counts", "top_words": "yes"}, "top_words must be True or False"),
])
def test_capabilities_refuse_a_bad_declaration(fields, message):
    declared = {"input": "both", "predict": False, "predict_proba": False, "top_words": False}
    with pytest.raises((TypeError, ValueError), match=message):
        Capabilities(**{**declared, **fields})


# --- the fake stream models -----------------------------------------------------------------

def test_fake_stream_appends_labels_from_one_generator_kept_after_the_first_call():
    model = fakes.FakeStreamClusterer(n_clusters=3, random_state=4)
    model.partial_fit(COUNTS[:5])
    generator = model.random_state_
    model.partial_fit(COUNTS[5:])
    assert model.random_state_ is generator and model.n_iter_ == 1
    whole = fakes.FakeStreamClusterer(n_clusters=3, random_state=4).fit(COUNTS)
    np.testing.assert_array_equal(model.labels_, whole.labels_)


def test_fake_vector_stream_refuses_counts_and_takes_vectors():
    model = fakes.FakeVectorStreamClusterer(random_state=0)
    for counts in (COUNTS, COUNTS.toarray(), sp.csr_matrix(COUNTS, dtype=np.int64)):
        with pytest.raises(ParameterError, match="takes document vectors"):
            model.partial_fit(counts)
    assert model.partial_fit(VECTORS).labels_.shape == (N_DOCS,)
