"""Preprocessing that reads the text: stop words whatever the case, other languages, Chinese."""

import pytest

from shortclust.apps.settings import choose_pipeline
from shortclust.data import languages
from shortclust.data.preprocess import get_pipeline, guess_pipeline
from shortclust.errors import DataError

TITLES = ["effect of the drug on the cells of mice", "a study of the cells in the liver",
          "role of the protein in the growth of cells", "the response of mice to the drug"]


def test_auto_removes_stop_words_from_lowercased_text_that_keeps_them():
    assert guess_pipeline(TITLES) == "basic"
    tokens = get_pipeline(guess_pipeline(TITLES)).tokenize(TITLES)
    assert not {"of", "the", "a", "in", "on", "to"} & {t for doc in tokens for t in doc}
    assert guess_pipeline([t.upper() for t in TITLES]) == "basic"  # whatever the case


def test_auto_leaves_tokenised_text_without_stop_words_alone():
    assert guess_pipeline(["drug effect cell mouse", "liver cell study"]) == "none"


@pytest.mark.parametrize("language, text, stop", [
    ("de", "Die Katze und der Hund sind im Garten", {"die", "und", "der", "im", "sind"}),
    ("es", "El perro y la casa en el campo de la ciudad", {"el", "la", "en", "de", "y"}),
])
def test_language_removes_that_languages_stop_words(language, text, stop):
    pytest.importorskip("stop_words")
    pipeline = choose_pipeline([text], "auto", language)
    assert pipeline.name == f"basic-{language}"
    assert not stop & set(pipeline.tokenize([text])[0])
    assert get_pipeline(pipeline.name).version == pipeline.version  # what predict looks up


def test_an_unknown_language_is_one_line():
    pytest.importorskip("stop_words")
    with pytest.raises(DataError, match="no stop-word list for language 'klingon'"):
        choose_pipeline(["x"], "auto", "klingon")


def test_chinese_is_segmented_into_words():
    pytest.importorskip("jieba")
    texts = ["北京大学的学生在图书馆学习", "上海的天气今天很好"]
    pipeline = choose_pipeline(texts)
    assert pipeline.name == "chinese"
    words = pipeline.tokenize(texts)[0]
    assert "北京大学" in words and "学生" in words and len(words) >= 3


def test_chinese_without_jieba_is_refused_in_one_line(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_jieba(name, *args, **kwargs):
        if name == "jieba":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_jieba)
    with pytest.raises(DataError, match="jieba"):
        languages.segment_chinese()


def test_japanese_is_refused_in_one_line():
    with pytest.raises(DataError, match="Japanese"):
        choose_pipeline(["今日はいい天気ですね", "東京へ行きました"])
