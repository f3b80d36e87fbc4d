"""Languages and scripts: stop-word lists of other languages, Chinese segmentation, detection.

Used by :mod:`shortclust.data.preprocess` (which builds the pipelines):

* :func:`stop_words_for`: a language's stop words from the ``stop-words`` package on PyPI
  (lists for about 30 languages; the optional extra ``shortclust[languages]``).
* :func:`segment_chinese`: Chinese text cut into words by ``jieba`` (the same extra);
  without it Chinese is refused in one line rather than clustered as whole sentences.
* :func:`script_of`: whether a collection is mostly Chinese (Han without kana), Japanese
  (kana) or neither, from a sample of its characters.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata

from shortclust.errors import DataError

__all__ = ["LANGUAGES_EXTRA", "jieba_version", "script_of", "segment_chinese",
           "stop_words_for", "stop_words_version"]

LANGUAGES_EXTRA = "pip install 'shortclust[languages]'"
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")
_LETTER = re.compile(r"[^\W\d_]")
#: Share of a collection's letters in Han or kana above which it is that script.
SCRIPT_SHARE = 0.3
_SAMPLE = 500  # documents looked at


def script_of(texts) -> str | None:
    """``"chinese"``, ``"japanese"`` or None (anything else), from the first documents.

    Examples
    --------
    >>> script_of(["今天天气很好", "我们去公园"]), script_of(["今日はいい天気です"])
    ('chinese', 'japanese')
    >>> script_of(["plain English"]) is None
    True
    """
    letters = han = kana = 0
    for text in list(texts)[:_SAMPLE]:
        letters += len(_LETTER.findall(text))
        han += len(_HAN.findall(text))
        kana += len(_KANA.findall(text))
    if not letters or (han + kana) < SCRIPT_SHARE * letters:
        return None
    return "japanese" if kana >= 0.1 * (han + kana) else "chinese"


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def stop_words_version() -> str | None:
    """The installed ``stop-words`` package's version, or None."""
    return _version("stop-words")


def jieba_version() -> str | None:
    """The installed ``jieba`` package's version, or None."""
    return _version("jieba")


@cache
def stop_words_for(language: str) -> frozenset[str]:
    """The stop words of ``language`` (a code such as ``de`` or a name such as ``german``).

    Raises
    ------
    DataError
        Without the ``stop-words`` package, or for a language it has no list of.
    """
    try:
        from stop_words import AVAILABLE_LANGUAGES, LANGUAGE_MAPPING, get_stop_words
    except ImportError:
        raise DataError(f"--language needs the stop-words package: {LANGUAGES_EXTRA}") from None
    key = str(language).strip().lower()
    name = LANGUAGE_MAPPING.get(key, key)
    if name not in AVAILABLE_LANGUAGES:
        codes = ", ".join(sorted(LANGUAGE_MAPPING))
        raise DataError(f"no stop-word list for language '{language}': choose one of {codes}")
    return frozenset(word.lower() for word in get_stop_words(name))


def language_code(language: str) -> str:
    """The two-letter code of a language name or code (``"german"`` -> ``"de"``).

    Raises
    ------
    DataError
        As :func:`stop_words_for`.
    """
    stop_words_for(language)  # checks it
    from stop_words import LANGUAGE_MAPPING

    key = str(language).strip().lower()
    if key in LANGUAGE_MAPPING:
        return key
    return next(code for code, name in LANGUAGE_MAPPING.items() if name == key)


def segment_chinese():
    """A function cutting a text into words with jieba (its precise mode, no HMM output).

    Raises
    ------
    DataError
        Without jieba: Chinese cannot be split into words here.
    """
    try:
        import jieba
    except ImportError:
        raise DataError("the texts are Chinese, which has no spaces between words, and "
                        f"jieba (the segmenter) is not installed: {LANGUAGES_EXTRA}, or "
                        "give texts with words separated by spaces and --preprocess none"
                        ) from None
    import logging

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    return lambda text: tokenizer.lcut(text)
