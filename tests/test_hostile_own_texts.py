"""Issue 30's path (``cluster``, ``predict``, ``shortclust.TextClusterer``) under hostile
input: each case that raised, hung or gave a silently wrong result, with its one-line
refusal (docs/hardening.md, section 7, lists them)."""

import os
import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from shortclust import TextClusterer
from shortclust.cli import app
from shortclust.data.io import read_documents
from shortclust.errors import ShortclustError
from tests.pipeline.fake_estimators import TEXTS, write_corpus


def refused(args) -> str:
    """Run ``shortclust *args``; assert exit 2 with one ``error:`` line; return it."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (
        result.exit_code, result.stderr, result.exception)
    return lines[0]


# --- input files ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_input_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path, kind):
    # Opening a FIFO waited forever for a writer; /dev/zero was read until memory ran out.
    if kind == "fifo":
        path = tmp_path / "texts.csv"
        os.mkfifo(path)
    else:
        path = tmp_path / "texts.txt"
        path.symlink_to("/dev/zero")
    outcome = {}

    def read():
        try:
            read_documents(path)
        except ShortclustError as error:
            outcome["error"] = str(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive() and kind == "fifo":
        with open(path, "w"):  # let the stuck reader go
            pass
    assert not reader.is_alive(), "reading it hung"
    expected = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    assert expected in outcome["error"] and "regular file" in outcome["error"]


# --- settings of cluster and TextClusterer ----------------------------------------------------

def test_an_unknown_model_parameter_is_one_line_naming_the_allowed(tmp_path):
    # --set nope=1 (and params={"nope": 1}) raised TypeError from the model's constructor.
    corpus = write_corpus(tmp_path / "docs.jsonl")
    line = refused(["cluster", corpus, "--model", "gsdmm", "--set", "alpah=0.1", "--quiet",
                    "--output", tmp_path / "out"])
    assert "unknown parameter 'alpah' for model 'gsdmm' (did you mean 'alpha'?" in line
    assert not (tmp_path / "out").exists()
    with pytest.raises(ShortclustError, match="unknown parameter 'nope'"):
        TextClusterer("kmeans", n_clusters=2, params={"nope": 1}).fit(TEXTS)


@pytest.mark.parametrize("settings, fragment", [
    ({"params": "alpha=0.1"}, "params must be a dict"),
    ({"params": 5}, "params must be a dict"),
    ({"n_top_words": 0}, "n_top_words must be an integer >= 1"),
    ({"n_top_words": "x"}, "n_top_words must be an integer >= 1"),
    ({"n_top_words": None}, "n_top_words must be an integer >= 1"),
    ({"reduce_to": True}, "reduce_to must be an integer >= 1"),
])
def test_clusterer_settings_of_the_wrong_type_are_one_line(settings, fragment):
    # Each raised TypeError or ValueError (or n_top_words=0 gave no top words, silently).
    with pytest.raises(ShortclustError, match=fragment):
        TextClusterer("gsdmm", n_clusters=3, **settings).fit(TEXTS)


def test_a_number_of_clusters_beyond_memory_is_refused_before_fitting(tmp_path):
    # -k 10**20 raised "high is out of bounds for int64" inside numpy; 10**9 asked GSDMM
    # for tens of GB.
    corpus = write_corpus(tmp_path / "docs.jsonl")
    for k in ("100000000000000000000", "1000000000"):
        line = refused(["cluster", corpus, "-k", k, "--quiet", "--output", tmp_path / "o"])
        assert "of memory" in line and "lower n_clusters" in line, line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("texts, fragment", [
    (lambda: __import__("pandas").DataFrame({"text": TEXTS}), "a DataFrame"),
    (lambda: {text: 1 for text in TEXTS}, "a dict"),
])
def test_a_table_or_a_dict_is_not_taken_for_its_keys(texts, fragment):
    # fit(DataFrame) clustered the column names (one text, "text"); fit(dict) its keys.
    with pytest.raises(ShortclustError, match=fragment):
        TextClusterer("gsdmm", n_clusters=2).fit(texts())


@pytest.mark.parametrize("n", [0, -1, "x", 2.5])
def test_top_words_of_a_count_that_is_not_one_is_one_line(n):
    # top_words(-1) silently dropped each cluster's last word, top_words(0) gave them all.
    clusterer = TextClusterer("gsdmm", n_clusters=3).fit(TEXTS)
    with pytest.raises(ShortclustError, match="n must be an integer >= 1"):
        clusterer.top_words(n)
