"""Preprocessing pipelines: the document steps and the corpus steps they declare."""

import numpy as np
import pytest

from shortclust.data.corpus import Corpus
from shortclust.data.preprocess import (PIPELINES, get_pipeline, guess_pipeline, looks_raw,
                                        stop_words, tokenize)
from shortclust.errors import DataError


def gsdmm(text):
    return tokenize([text], "gsdmm")[0]


def test_none_splits_on_whitespace_only():
    assert tokenize(["The Cars,  ran\tfast 42", ""], "none") == [
        ["The", "Cars,", "ran", "fast", "42"], []]


def test_pipelines_declare_the_papers_corpus_steps():
    assert (PIPELINES["none"].min_df, PIPELINES["none"].min_doc_words) == (1, 0)
    assert (PIPELINES["gsdmm"].min_df, PIPELINES["gsdmm"].min_doc_words) == (2, 0)
    assert (PIPELINES["ncut"].min_df, PIPELINES["ncut"].min_doc_words) == (6, 4)
    assert (PIPELINES["basic"].min_df, PIPELINES["basic"].min_doc_words) == (2, 0)
    assert not PIPELINES["none"].cache and PIPELINES["gsdmm"].cache


def test_get_pipeline_is_case_insensitive_and_passes_pipelines_through():
    assert get_pipeline("GSDMM") is PIPELINES["gsdmm"]
    assert get_pipeline(PIPELINES["ncut"]) is PIPELINES["ncut"]


def test_unknown_pipeline_lists_the_known_ones(one_line):
    with pytest.raises(DataError) as err:
        get_pipeline("porter")
    one_line(str(err.value), "'porter'", "none", "gsdmm", "ncut")


def test_version_names_the_backends():
    version = PIPELINES["gsdmm"].version
    assert version.startswith("gsdmm-r")
    assert ("simplemma" in version) or ("wordnet" in version)
    assert "stop" in version
    assert "porter" in PIPELINES["ncut"].version


# --- gsdmm (Yin & Wang 4.1.3) ----------------------------------------------------------------

def test_gsdmm_lowercases():
    assert gsdmm("Apple BANANA Cherry") == ["apple", "banana", "cherry"]


def test_gsdmm_removes_stop_words():
    assert gsdmm("the apple and a banana were there") == ["apple", "banana"]
    assert {"the", "and", "were", "there"} <= stop_words()


def test_gsdmm_removes_non_latin_characters():
    # Digits, punctuation and other scripts separate words and vanish; Latin accents stay.
    assert gsdmm("Москва apple42banana 東京 café, naïve!") == ["apple", "banana", "café",
                                                               "naïve"]


def test_gsdmm_lemmatises():
    assert gsdmm("cars children") == ["car", "child"]


def test_gsdmm_length_filter_2_to_15():
    assert gsdmm("x ox abcdefghijklmno abcdefghijklmnop") == ["ox", "abcdefghijklmno"]


def test_gsdmm_drops_urls_addresses_and_entities():
    text = ("see http://t.co/AbC and www.example.org, mail <bob@example.com> "
            "RT @user: fish &amp; chips")
    assert gsdmm(text) == ["mail", "rt", "fish", "chip"]


def test_gsdmm_contraction_fragments_are_stop_words():
    assert gsdmm("I don't think it's fine, we'll see") == ["think", "fine"]


def test_gsdmm_document_frequency_at_least_two_is_a_corpus_step():
    texts = ["Cars and the roads", "A car!", "ROADS, 2 roads", "lonely"]
    assert tokenize(texts, "gsdmm") == [["car", "road"], ["car"], ["road", "road"], ["lonely"]]
    corpus = Corpus.from_texts(texts, pipeline="gsdmm")
    assert corpus.vocabulary == ["car", "road"]  # "lonely" is in one document only
    assert corpus.counts.toarray().tolist() == [[1, 1], [1, 0], [0, 2], [0, 0]]
    assert corpus.n_docs == 4  # gsdmm drops words, never documents


# --- ncut (Yan et al. 4.1.1) -----------------------------------------------------------------

def test_ncut_stems_and_removes_stop_words():
    assert tokenize(["The runners were running quickly to generalization"], "ncut") == [
        ["runner", "run", "quickli", "gener"]]


def test_ncut_min_df_then_drops_short_documents_and_records_them():
    common = "alpha beta gamma delta"
    texts = [common] * 6 + ["alpha beta gamma", "", f"{common} rare"]
    corpus = Corpus.from_texts(texts, labels=list("aaaaaabcd"), pipeline="ncut")
    assert corpus.vocabulary == ["alpha", "beta", "delta", "gamma"]  # "rare": df 1 < 6
    # Line 6 has 3 words, line 7 none: fewer than 4, so dropped (and recorded as such).
    np.testing.assert_array_equal(corpus.doc_index, [0, 1, 2, 3, 4, 5, 8])
    assert corpus.n_source_docs == 9
    assert corpus.doc_lengths.tolist() == [4] * 7
    assert corpus.label_names == ["a", "d"]
    assert corpus.labels.tolist() == [0] * 6 + [1]


def test_ncut_leaving_nothing_is_an_error(one_line):
    with pytest.raises(DataError) as err:
        Corpus.from_texts(["one two three four five"] * 3, pipeline="ncut")
    one_line(str(err.value), "ncut", "no words")


def test_tokenize_keeps_one_list_per_text():
    texts = ["", "the", "apples"]
    assert tokenize(texts, "gsdmm") == [[], [], ["apple"]]


# --- basic (raw text, no paper) --------------------------------------------------------------

def test_basic_lowercases_and_drops_addresses_mentions_punctuation_digits_stop_words():
    text = ("RT @bob: Check https://t.co/xyz and www.x.org, the NEW #Python 3.12 release!!! "
            "Don't miss it via mail@example.com")
    assert tokenize([text], "basic") == [["check", "new", "python", "release", "miss"]]


def test_basic_keeps_words_of_every_script_and_their_form():
    # No lemmatising, no Latin-only filter: a user's French, Russian or Japanese stays.
    assert tokenize(["Cafés à Москва, 東京 & running cars"], "basic") == [
        ["cafés", "москва", "東京", "running", "cars"]]


def test_basic_document_frequency_at_least_two_keeps_every_document():
    corpus = Corpus.from_texts(["Red apples!", "green APPLES", "@only http://x.y"],
                               pipeline="basic")
    assert corpus.vocabulary == ["apples"]
    assert corpus.n_docs == 3 and corpus.doc_lengths.tolist() == [1, 1, 0]


# --- guessing a file's pipeline --------------------------------------------------------------

@pytest.mark.parametrize("text, raw", [
    ("apple pie recipe", False), ("don't e-mail new_york", False), ("", False),
    ("Apple pie", True), ("apple, pie", True), ("see www.x.org", True), ("cc @bob", True),
    ("10 €", True), ("price 10", False),
])
def test_looks_raw(text, raw):
    assert looks_raw(text) is raw


def test_guess_pipeline_takes_raw_text_from_five_percent_of_documents():
    tokenised = ["apple pie"] * 95
    assert guess_pipeline(tokenised + ["Apple pie"] * 4) == "none"
    assert guess_pipeline(tokenised + ["Apple pie"] * 5) == "basic"
    assert guess_pipeline(["", "  "]) == "none"
    assert guess_pipeline(["Apple", "", "", ""]) == "basic"  # empty documents do not count


def test_sklearn_english_keeps_what_scikit_learns_vectoriser_keeps():
    from sklearn.feature_extraction.text import CountVectorizer

    texts = ["The Quick brown-fox's C++ code &amp; a_b x 42 and 7",
             "Why does my SYSTEM call fail? (it's the e-mail)", "", "of the and"]
    vectoriser = CountVectorizer(stop_words="english").fit(texts)
    analyse = vectoriser.build_analyzer()
    assert tokenize(texts, "sklearn_english") == [analyse(text) for text in texts]
    corpus = Corpus.from_texts(texts, pipeline="sklearn_english")
    assert corpus.vocabulary == sorted(vectoriser.vocabulary_)
    assert (corpus.counts != vectoriser.transform(texts)).nnz == 0
    assert "scikit-learn" in PIPELINES["sklearn_english"].version


def test_a_pipeline_name_may_set_its_corpus_steps():
    pipe = get_pipeline("Basic( min_doc_words=2,min_df=3 )")
    assert (pipe.name, pipe.min_df, pipe.min_doc_words) == ("basic(min_df=3, min_doc_words=2)", 3, 2)
    assert pipe.version != PIPELINES["basic"].version  # caches and run ids tell them apart
    assert get_pipeline(pipe.name) == pipe  # the canonical name reads back as itself
    assert get_pipeline("basic()") is PIPELINES["basic"]
    texts = ["red apple pie", "red apple", "green apple", "blue sky", "pie red apple"]
    default = Corpus.from_texts(texts, pipeline="basic")
    tighter = Corpus.from_texts(texts, pipeline=pipe)
    assert default.vocabulary == ["apple", "pie", "red"] and default.n_docs == 5
    assert tighter.vocabulary == ["apple", "red"] and tighter.preprocess == pipe.name
    assert tighter.n_docs == 3  # min_doc_words=2: "green apple" and "blue sky" go


@pytest.mark.parametrize("name, said", [
    ("basic(min_df=0)", "min_df must be an integer >= 1"),
    ("basic(max_df=nan)", "max_df must be in (0, 1]"),
    ("basic(max_df=1.5)", "max_df must be in (0, 1]"),
    ("basic(min_df=2.5)", "min_df must be an integer >= 1"),
    ("basic(stem=yes)", "'stem=yes' is not a setting"),
    ("basic(min_df=3", "close the settings with ')'"),
])
def test_bad_corpus_settings_say_what_to_write(name, said, one_line):
    with pytest.raises(DataError) as err:
        get_pipeline(name)
    one_line(str(err.value), said)
