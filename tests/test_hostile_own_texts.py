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
from tests.refusals import refused


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


# --- the clusterer record of a model file -------------------------------------------------------

def _set(key, value):
    return lambda header: header["clusterer"].__setitem__(key, value)


def _set_in(section, key, value):
    return lambda header: header["clusterer"][section].__setitem__(key, value)


CLUSTERER_EDITS = {
    # Each raised a traceback (AttributeError, TypeError, ValueError, IndexError) ...
    "record_not_an_object": lambda header: header.__setitem__("clusterer", 5),
    "label_map_of_words": _set("label_map", ["x", "y", "z"]),
    "label_map_too_short": _set("label_map", [0]),
    "label_map_nested": _set("label_map", [[0], [1], [2]]),
    "label_map_beyond_int64": _set("label_map", [0, 1, 10**30]),
    "k_choice_unknown_key": _set_in("k_choice", "evil", 1),
    "k_choice_a_list": _set("k_choice", [1, 2]),
    "top_words_a_number": _set("top_words", 5),
    "top_words_without_weights": _set("top_words", [[["a"]], [], []]),
    "top_words_weight_a_word": _set("top_words", [[["a", "x"]], [], []]),
    "settings_a_list": _set("settings", [1]),
    "idf_too_short": _set("idf", [1.0]),
    "idf_a_string": _set("idf", "abc"),
    # ... or a silently wrong result: cluster 1000000 assigned, or every text "dropped".
    "label_map_out_of_range": _set("label_map", [0, 1, 10**6]),
    "label_map_all_negative": _set("label_map", [-5, -5, -5]),
    "label_map_with_a_gap": _set("label_map", [0, 2, 2]),
    "k_choice_n_clusters_a_word": _set_in("k_choice", "n_clusters", "three"),
    "settings_n_top_words_a_word": _set_in("settings", "n_top_words", "x"),
    "settings_params_a_string": _set_in("settings", "params", "x"),
    "predictor_unknown": _set("predictor", "evil"),
}


@pytest.mark.parametrize("case", sorted(CLUSTERER_EDITS))
def test_a_crafted_clusterer_record_is_refused_in_one_line(saved_gsdmm, tmp_path, case):
    from tests import hostile

    crafted = hostile.edited_header(saved_gsdmm, tmp_path / "crafted.zip",
                                    CLUSTERER_EDITS[case])
    line = refused(["predict", crafted, saved_gsdmm.parent / "new.txt", "--output",
                    tmp_path / "p.csv"])
    assert "clusterer" in line and "edited or damaged" in line, line
    assert not (tmp_path / "p.csv").exists()


def test_the_untouched_clusterer_record_still_predicts(saved_gsdmm, tmp_path):
    from tests import hostile

    copy = hostile.edited_header(saved_gsdmm, tmp_path / "copy.zip", lambda header: None)
    texts = ["apple pie", "goal match"]
    assert TextClusterer.load(copy).predict(texts).tolist() == \
        TextClusterer.load(saved_gsdmm).predict(texts).tolist()


# --- messages -------------------------------------------------------------------------------

def test_control_characters_quoted_from_a_file_are_shown_escaped(tmp_path):
    # A CSV header of control bytes was printed raw: an escape sequence in a file could
    # drive the terminal showing the error.
    path = tmp_path / "texts.csv"
    path.write_bytes(b"\x1b[2J\x1b]0;pwned\x07,\x00label\nhello,x\n")
    line = refused(["cluster", path, "--quiet", "--output", tmp_path / "out"])
    assert "\x1b" not in line and "\x00" not in line and "\x07" not in line
    assert "\\x1b[2J" in line


def test_a_bound_gsdmm_did_not_fill_is_not_called_the_number_asked_for(tmp_path):
    # -k 50 on 12 texts: GSDMM keeps 3-5 clusters, and the report said "5 clusters asked
    # for (--n-clusters)".
    clusterer = TextClusterer("gsdmm", n_clusters=50).fit(TEXTS)
    sentence = clusterer.k_choice_.sentence()
    assert sentence.startswith(f"50 clusters asked for (--n-clusters); "
                               f"{clusterer.n_clusters_} of them kept documents"), sentence
    exact = TextClusterer("kmeans", n_clusters=3).fit(TEXTS).k_choice_.sentence()
    assert exact == "3 clusters asked for (--n-clusters)"


def test_texts_of_blank_lines_do_not_suggest_the_pipeline_already_used(tmp_path):
    # "preprocessing 'none' left no words ...: use more documents or preprocess 'none'".
    with pytest.raises(ShortclustError) as caught:
        TextClusterer("gsdmm", n_clusters=2, preprocess="none").fit(["  ", "\t"])
    assert "or preprocess 'none'" not in str(caught.value)
    assert "with words in them" in str(caught.value)


def test_probabilities_refused_do_not_name_kmeans_as_a_model_that_gives_them():
    clusterer = TextClusterer("kmeans", n_clusters=3).fit(TEXTS)
    with pytest.raises(ShortclustError) as caught:
        clusterer.predict_proba(["apple pie"])
    assert "kmeans" not in str(caught.value).split("choose", 1)[1]


@pytest.mark.parametrize("path", [None, 5])
def test_save_and_load_of_something_that_is_no_path_are_one_line(tmp_path, path):
    # TypeError from pathlib before.
    clusterer = TextClusterer("gsdmm", n_clusters=3).fit(TEXTS)
    with pytest.raises(ShortclustError, match="named by a path"):
        clusterer.save(path)
    with pytest.raises(ShortclustError, match="named by a path"):
        TextClusterer.load(path)


def test_save_into_a_missing_folder_names_the_folder(tmp_path):
    # FileNotFoundError naming the hidden temporary file before.
    clusterer = TextClusterer("gsdmm", n_clusters=3).fit(TEXTS)
    with pytest.raises(ShortclustError, match="the folder .*nowhere' does not exist"):
        clusterer.save(tmp_path / "nowhere" / "model.zip")


def test_report_never_replaces_a_file_that_is_not_a_report(tmp_path):
    # `report RUN --output RUN/assignments.csv` replaced the run's assignments with HTML.
    corpus = write_corpus(tmp_path / "docs.jsonl")
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["cluster", str(corpus), "-k", "3", "--output", str(run),
                                      "--quiet", "--no-report"])
    assert result.exit_code == 0, result.stderr
    before = (run / "assignments.csv").read_bytes()
    line = refused(["report", run, "--output", run / "assignments.csv"])
    assert "is not an HTML report" in line
    assert (run / "assignments.csv").read_bytes() == before
    result = CliRunner().invoke(app, ["report", str(run)])
    again = CliRunner().invoke(app, ["report", str(run)])  # its own report is replaced
    assert result.exit_code == 0 and again.exit_code == 0, (result.stderr, again.stderr)
