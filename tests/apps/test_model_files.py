"""Model files: what they hold, and every way a file can be refused (one line, no code run).

That every model with ``predict`` predicts the same after a save and a load is checked over
the whole registry in ``tests/models/test_contract.py``.
"""

import io
import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from shortclust.errors import ModelFileError
from shortclust.apps import model_files
from shortclust.apps.model_files import (FORMAT_VERSION, HEADER, load_model,
                                                pipeline_record, save_model)
from shortclust.data.preprocess import get_pipeline
from shortclust.models.dmm.gsdmm import GSDMM
from shortclust.models.state import fitted_state

X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]] * 3)
WORDS = ["apple", "banana", "goal", "match"]


@pytest.fixture
def model():
    return GSDMM(n_clusters=4, beta=0.05, max_iter=5, random_state=0).fit(X)


@pytest.fixture
def path(tmp_path, model):
    return save_model(tmp_path / "model.zip", "gsdmm", model.get_params(), fitted_state(model),
                      vocabulary=WORDS, preprocess=pipeline_record(get_pipeline("basic")),
                      training={"dataset": "mine.csv", "seed": 0})


def members(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def rewrite(path, contents, rehash=False):
    """Write ``contents`` (member -> bytes) as the model file, its checksum redone if asked."""
    if rehash:
        header = json.loads(contents[HEADER])
        arrays = {name: data for name, data in contents.items() if name != HEADER}
        header["sha256"] = model_files._checksum(header, arrays)
        contents = {**contents, HEADER: json.dumps(header).encode()}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def edited_header(path, rehash=False, **changes):
    contents = members(path)
    header = json.loads(contents[HEADER])
    header.update(changes)
    rewrite(path, {**contents, HEADER: json.dumps(header).encode()}, rehash)


def assert_refused(path, *fragments):
    with pytest.raises(ModelFileError) as raised:
        load_model(path)
    message = str(raised.value)
    assert "\n" not in message and str(path) in message
    for fragment in fragments:
        assert fragment in message, message


def test_the_file_holds_a_json_header_and_npy_arrays_only(path, model):
    contents = members(path)
    header = json.loads(contents[HEADER])
    assert header["format"] == "shortclust-model" and header["format_version"] == FORMAT_VERSION
    assert header["model"] == "gsdmm" and header["params"]["random_state"] == 0
    assert header["vocabulary"] == WORDS and header["preprocess"]["name"] == "basic"
    assert header["training"] == {"dataset": "mine.csv", "seed": 0}
    assert "random_state_" in header["fitted"]  # the Generator, as its state
    arrays = {name for name in contents if name != HEADER}
    assert arrays == {f"arrays/{name}.npy" for name in header["arrays"]}
    for name in arrays:  # each loads without pickle
        np.load(io.BytesIO(contents[name]), allow_pickle=False)


def test_a_loaded_model_names_its_words_and_predicts_as_the_fitted_one(path, model):
    saved = load_model(path)
    assert saved.name == "gsdmm" and saved.vocabulary == WORDS
    np.testing.assert_array_equal(saved.model.predict(X[::-1]), model.predict(X[::-1]))
    assert [word for word, _ in saved.model.top_words(2)[0]] == \
        [WORDS[i] for i, _ in model.top_words(2)[0]]


def test_an_edited_header_is_refused(path):
    edited_header(path, params={"n_clusters": 4, "alpha": 0.5})
    assert_refused(path, "do not match their checksum", "edited or damaged")


def test_an_edited_array_is_refused(path):
    contents = members(path)
    name = "arrays/cluster_word_counts_.npy"
    data = bytearray(contents[name])
    data[-1] ^= 1
    rewrite(path, {**contents, name: bytes(data)})
    assert_refused(path, "do not match their checksum")


def test_another_format_version_is_refused_naming_both(path):
    edited_header(path, rehash=True, format_version=FORMAT_VERSION + 1,
                  shortclust_version="9.9.9")
    assert_refused(path, f"model format {FORMAT_VERSION + 1}", "shortclust 9.9.9",
                   f"reads format {FORMAT_VERSION}", "save the model again")


@pytest.mark.parametrize("changes, fragment", [
    ({"format": "other-tool"}, "not a shortclust model file"),
    ({"model": "word2vec"}, "unknown model 'word2vec'"),
    ({"params": {"n_clusters": 4, "colour": "red"}}, "does not fit model 'gsdmm'"),
    ({"fitted": {}}, "does not fit model 'gsdmm'"),
])
def test_a_consistent_file_that_does_not_fit_is_refused(path, changes, fragment):
    edited_header(path, rehash=True, **changes)
    assert_refused(path, fragment)


def test_an_array_that_needs_pickle_is_refused_without_unpickling(path):
    contents = members(path)
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    contents["arrays/cluster_sizes_.npy"] = buffer.getvalue()
    rewrite(path, contents, rehash=True)
    assert_refused(path, "array cluster_sizes_ is not the <i8 [3] the header lists")


def test_a_missing_or_extra_array_is_refused(path):
    contents = members(path)
    rewrite(path, {**contents, "arrays/extra_.npy": contents["arrays/labels_.npy"]},
            rehash=True)
    assert_refused(path, "its members are not the arrays its header lists")


@pytest.mark.parametrize("content, fragment", [
    (b"not a zip at all", "not a readable shortclust model file"),
    (None, "not a shortclust model file (it has no shortclust-model.json)"),
])
def test_what_is_not_a_model_file_is_refused(tmp_path, content, fragment):
    target = tmp_path / "model.zip"
    if content is None:
        rewrite(target, {"readme.txt": b"hello"})
    else:
        target.write_bytes(content)
    assert_refused(target, fragment)


def test_a_missing_file_is_refused(tmp_path):
    assert_refused(tmp_path / "nothing.zip", "model file not found")


def test_a_generator_parameter_is_saved_as_null(tmp_path, model):
    params = {**model.get_params(), "random_state": np.random.default_rng(1)}
    saved = save_model(tmp_path / "m.zip", "gsdmm", params, fitted_state(model))
    assert load_model(saved).model.random_state is None
