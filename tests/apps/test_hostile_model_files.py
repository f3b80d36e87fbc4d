"""Crafted model files through the whole ``shortclust predict`` command (issue 27, point 1).

Each file is refused in one line with exit status 2, and, where the file would make the
model allocate or read a lot, at a small peak memory: the checks run on numpy alone,
before the model code (numba, scikit-learn) is imported. Peak memory is the child's
``ru_maxrss``, measured by a fresh Python process that runs nothing but the command.
"""

import os
import subprocess
import sys

import pytest
import scipy.sparse as sp

from shortclust.apps.model_files import load_model, pipeline_record, save_model
from shortclust.data.preprocess import get_pipeline
from shortclust.errors import ModelFileError
from shortclust.models.dmm.gsdmm import GSDMM
from shortclust.models.state import fitted_state
from tests import hostile

X = sp.csr_matrix([[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1]] * 3)
WORDS = ["apple", "banana", "goal", "match"]
#: The peak memory a refused file may cost the whole command (issue 27's acceptance).
MAX_RSS_MB = 200

MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
sys.stdout.write(f"{done.returncode}\\n{peak}\\n{done.stderr}")
"""


@pytest.fixture
def model_path(tmp_path):
    model = GSDMM(n_clusters=4, beta=0.05, max_iter=5, random_state=0).fit(X)
    return save_model(tmp_path / "model.zip", "gsdmm", model.get_params(), fitted_state(model),
                      vocabulary=WORDS, preprocess=pipeline_record(get_pipeline("basic")))


@pytest.fixture
def texts(tmp_path):
    path = tmp_path / "new.txt"
    path.write_text("apple banana\ngoal match\n")
    return path


def predict(model, texts, tmp_path, **env):
    """``(exit status, peak RSS in MB, stderr)`` of ``shortclust predict MODEL TEXTS``."""
    command = [sys.executable, "-c", MEASURED, sys.executable, "-m", "shortclust", "predict",
               str(model), str(texts), "--output", str(tmp_path / "out.csv")]
    out = subprocess.run(command, capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=300).stdout
    status, peak, stderr = out.split("\n", 2)
    return int(status), int(peak), stderr


def assert_refused_in_one_line(status, stderr, *fragments):
    assert status == 2, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), stderr
    assert "Traceback" not in stderr
    for fragment in fragments:
        assert fragment in stderr, stderr


def test_the_model_predicts_before_it_is_crafted(model_path, texts, tmp_path):
    status, _, stderr = predict(model_path, texts, tmp_path)
    assert status == 0, stderr


def test_a_huge_n_clusters_is_refused_in_one_line_at_small_peak_memory(model_path, texts,
                                                                      tmp_path):
    crafted = hostile.edited_model(model_path, tmp_path / "crafted.zip", n_clusters_=10**7)
    status, peak, stderr = predict(crafted, texts, tmp_path)
    assert_refused_in_one_line(status, stderr, "n_clusters_ is 10000000")
    assert peak < MAX_RSS_MB, peak


@pytest.mark.parametrize("honest", [True, False])
def test_a_zip_bomb_is_refused_before_it_is_decompressed(model_path, texts, tmp_path, honest):
    # 64 MiB of zeros against a cap of 1 MiB: the code path of the 6 GiB bomb (the slow test
    # below), in a second.
    bomb = hostile.zip_bomb(model_path, tmp_path / "bomb.zip", 1 / 16, honest_header=honest)
    status, peak, stderr = predict(bomb, texts, tmp_path,
                                   SHORTCLUST_MAX_MODEL_BYTES=str(2**20))
    assert_refused_in_one_line(status, stderr, "over the cap" if honest else "not the size")
    assert peak < MAX_RSS_MB, peak


@pytest.mark.slow
@pytest.mark.parametrize("honest", [True, False])
def test_a_6_gib_zip_bomb_is_refused_at_small_peak_memory(model_path, texts, tmp_path, honest):
    bomb = hostile.zip_bomb(model_path, tmp_path / "bomb.zip", 6.0, honest_header=honest)
    status, peak, stderr = predict(bomb, texts, tmp_path)
    assert_refused_in_one_line(status, stderr, "over the cap" if honest else "not the size")
    assert peak < MAX_RSS_MB, peak


@pytest.mark.parametrize("craft, fragment", [
    (hostile.longer_vocabulary, "vocabulary's length"),
    (hostile.shrunk_counts, "cluster_word_counts_"),
    (hostile.deep_header, "nests JSON"),
    (hostile.huge_npy_header, "not the <i8 [12] the header lists"),
    (lambda source, target: hostile.edited_model(source, target, n_clusters_="19"),
     "n_clusters_ must be an integer"),
    (lambda source, target: hostile.edited_model(source, target, n_clusters_=-3),
     "n_clusters_ must be in"),
    (lambda source, target: hostile.edited_model(
        source, target, random_state_={"numpy_generator": {"bit_generator": "PCG64"}}),
     "random_state_"),
    (lambda source, target: hostile.edited_header(
        source, target, lambda header: header.update(preprocess="basic")), "'preprocess'"),
    (lambda source, target: hostile.edited_header(
        source, target, lambda header: header["preprocess"].update(min_doc_words="abc")),
     "min_doc_words"),
    (lambda source, target: hostile.edited_header(
        source, target, lambda header: header["params"].update(beta="x")), "beta must be"),
    (lambda source, target: hostile.edited_header(
        source, target, lambda header: header["vocabulary"].__setitem__(0, {"a": 1})),
     "vocabulary is not a list of words"),
])
def test_each_crafted_file_of_the_issue_is_refused_in_one_line(model_path, tmp_path, craft,
                                                               fragment):
    # In process (the command line shows a ModelFileError as its one line, exit 2: above).
    crafted = craft(model_path, tmp_path / "crafted.zip")
    with pytest.raises(ModelFileError) as refused:
        load_model(crafted)
    assert "\n" not in str(refused.value) and fragment in str(refused.value), refused.value


@pytest.mark.parametrize("kind", ["directory", "fifo", "device"])
def test_a_model_path_that_is_not_a_file_is_named_as_what_it_is(texts, tmp_path, kind):
    if kind == "directory":
        target, expected = tmp_path, "is a directory"
    elif kind == "fifo":
        target, expected = tmp_path / "pipe", "is a FIFO"
        os.mkfifo(target)
    else:
        target, expected = "/dev/zero", "is a character device"
    status, _, stderr = predict(target, texts, tmp_path)
    assert_refused_in_one_line(status, stderr, expected)
