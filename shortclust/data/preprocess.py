"""Named preprocessing pipelines, as the reproduced papers describe them.

A pipeline has two parts:

* a *document* step, ``text -> list of tokens``, applied to each document on its own
  (:func:`tokenize`);
* *corpus* steps that need the whole collection, declared as numbers and applied by
  :class:`~shortclust.data.corpus.Corpus`: ``min_df`` (drop words in fewer documents) and
  then ``min_doc_words`` (drop documents left with fewer tokens, recording which were kept).

Pipelines
---------
``none``
    Split on whitespace, nothing else: for datasets preprocessed upstream.
``gsdmm``
    Yin & Wang (KDD 2014), section 4.1.3: lowercase; remove non-Latin characters and stop
    words; lemmatise; drop tokens shorter than 2 or longer than 15; document frequency >= 2.
``ncut``
    Yan et al. (CIKM 2012), section 4.1.1: lowercase, tokenise, remove stop words, Porter
    stemming; document frequency >= 6; drop documents with fewer than 4 words.
``sklearn_english``
    What scikit-learn's ``CountVectorizer(stop_words="english")`` (and so its
    ``TfidfVectorizer``) keeps: lowercase, tokens of two or more word characters,
    scikit-learn's English stop words removed, nothing else (no markup handling, no
    document frequency cut). The vocabulary of the iterative-classification authors' code,
    and the paper's own description of its preprocessing (Rakib et al., 6.2.1).
``newsgroups``
    Banerjee & Basu (SDM 2007), section 4.1, for newsgroup posts: the header block (up to
    the first blank line) dropped; lowercase; Latin letters only; stop words removed;
    tokens of 2..15 letters; "removal of very high-frequency and low-frequency words" as
    document frequency >= 2 and in at most 15% of the documents (the paper gives no
    numbers; these are ours).
``newsgroups_headers``
    ``newsgroups`` with the header block kept: the words of its From, Subject, Organization
    and Lines lines count as the body's do (the paper does not say whether its posts kept
    their headers; they move the 20NG clusterings, see ``results/streams/``).
``basic``
    For a user's raw text (no paper): lowercase; words are runs of letters of any script
    (punctuation, digits and symbols separate them); English stop words, one-letter words
    and the tweet marks "rt" and "via" out; document frequency >= 2. No lemmatising or
    stemming, so it is fast and a word stays readable in a list of top words.

A pipeline's corpus steps can be changed by naming them after it, e.g.
``newsgroups(min_df=6)`` or ``basic(min_df=3, max_df=0.5, min_doc_words=2)``
(:func:`get_pipeline`): the document step stays the named pipeline's, and the whole
string, written canonically, is the pipeline's name in run ids, records and caches.

``auto`` (the default of :func:`~shortclust.data.corpus.load_corpus`) is not a pipeline: it
takes a registered dataset's own default, and for a file :func:`guess_pipeline`'s choice,
``basic`` for raw text and ``none`` for text that looks tokenised already.

Every pipeline but ``none`` first decodes HTML entities and drops every whitespace-delimited
token holding ``@``, ``://`` or ``www.`` (e-mail addresses, @-mentions, URLs). The papers do not
mention this because their data had none; on raw tweets and newsgroup posts these would
otherwise leave fragments such as ``http``, ``co`` and host names.

NLTK data cannot be downloaded here, so the WordNet lemmatiser and NLTK's stop-word list
are used only if their data is already installed; otherwise ``simplemma`` (offline)
lemmatises and scikit-learn's list supplies the stop words. The choice is part of each
pipeline's :attr:`Pipeline.version`, so cached corpora never mix the two.
"""

from __future__ import annotations

import html
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.metadata import PackageNotFoundError, version as package_version
from pathlib import Path
from typing import Callable, Iterable

from shortclust.errors import DataError

__all__ = ["Pipeline", "PIPELINES", "get_pipeline", "guess_pipeline", "looks_raw",
           "tokenize", "stop_words"]

# Bumped whenever a pipeline's output could change, so old cache entries are not reused.
_REVISION = "1"

# Fragments left when a contraction is split at its apostrophe ("doesn't" -> "doesn", "t").
# NLTK's English list has them; scikit-learn's does not. "won" is left out on purpose: as
# the verb it is frequent and meaningful in news text.
_CONTRACTION_FRAGMENTS = frozenset(
    "don doesn didn isn aren wasn weren hasn haven hadn couldn wouldn shouldn mustn needn "
    "ll ve ain shan mightn".split()
)

# A run of Latin letters: ASCII, Latin-1 (without the signs x and /), Latin Extended A/B and
# Latin Extended Additional. Everything else (digits, punctuation, other scripts) separates.
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
_LATIN_WORD = re.compile(f"[{_LATIN}]+")

# scikit-learn's default token pattern: runs of 2+ word characters.
_WORD = re.compile(r"(?u)\b\w\w+\b")

# A run of letters of any script (word characters but digits and the underscore).
_LETTERS = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Pipeline:
    """A named preprocessing pipeline.

    Attributes
    ----------
    name : str
        Name used in configs and on the command line.
    description : str
        One line: where it comes from and what it does.
    min_df : int
        Corpus step: words in fewer documents than this are removed.
    max_df : float
        Corpus step, after ``min_df``: words in more than this fraction of the documents
        are removed (1.0: none).
    min_doc_words : int
        Corpus step, after ``min_df`` and ``max_df``: documents with fewer tokens are
        dropped.
    cache : bool
        Whether the result is worth caching on disk (the slow pipelines).
    """

    name: str
    description: str
    min_df: int = 1
    min_doc_words: int = 0
    max_df: float = 1.0
    cache: bool = True
    _factory: Callable[[], Callable[[str], list[str]]] = field(
        default=None, repr=False, compare=False)
    _components: Callable[[], str] = field(default=lambda: "", repr=False, compare=False)

    @property
    def version(self) -> str:
        """Identifies this pipeline's exact behaviour (revision and backends used)."""
        parts = [f"{self.name}-r{_REVISION}", self._components()]
        return "+".join(p for p in parts if p)

    def document_tokenizer(self) -> Callable[[str], list[str]]:
        """Return the per-document function ``text -> tokens`` (built once per process)."""
        return _built_tokenizer(self.name.partition("(")[0], self._factory)

    def tokenize(self, texts: Iterable[str]) -> list[list[str]]:
        """Apply the document step to each text (the corpus steps are not applied)."""
        doc_tokens = self.document_tokenizer()
        return [doc_tokens(text) for text in texts]


@cache
def _built_tokenizer(name, factory):
    # Keyed by name so the expensive set-up (imports, stop-word sets, caches) happens once.
    return factory()


# --- backends ------------------------------------------------------------------------------

def _nltk_search_paths() -> list[Path]:
    """The places NLTK looks for its data by default, without importing NLTK (about 1 s)."""
    env = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    prefix = Path(sys.prefix)
    defaults = [Path.home() / "nltk_data", prefix / "nltk_data", prefix / "share/nltk_data",
                prefix / "lib/nltk_data", Path("/usr/share/nltk_data"),
                Path("/usr/local/share/nltk_data"), Path("/usr/lib/nltk_data"),
                Path("/usr/local/lib/nltk_data")]
    return [Path(p) for p in env] + defaults


@cache
def _nltk_has(resource: str) -> bool:
    """True if NLTK data ``resource`` (e.g. ``corpora/wordnet``) is installed.

    Looks on disk first so that the common case (not installed) needs no NLTK import, then
    lets NLTK confirm. Never downloads.
    """
    on_disk = any((base / resource).exists() or (base / f"{resource}.zip").exists()
                  for base in _nltk_search_paths())
    if not on_disk:
        return False
    try:
        import nltk.data

        nltk.data.find(resource)
    except (LookupError, ImportError, OSError):
        return False
    return True


def _pkg_version(name: str) -> str:
    try:
        return package_version(name)
    except PackageNotFoundError:
        return "unknown"


def _stop_words_source() -> str:
    return "nltk-stop" if _nltk_has("corpora/stopwords") else "sklearn-stop"


@cache
def stop_words() -> frozenset[str]:
    """English stop words: NLTK's list if its data is installed, else scikit-learn's.

    Both are extended with the contraction fragments (``don``, ``ll``, ...) that tokenising
    at apostrophes produces.
    """
    if _stop_words_source() == "nltk-stop":
        from nltk.corpus import stopwords

        words = frozenset(stopwords.words("english"))
    else:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        words = frozenset(ENGLISH_STOP_WORDS)
    return words | _CONTRACTION_FRAGMENTS


def _lemmatizer_name() -> str:
    return "wordnet" if _nltk_has("corpora/wordnet") else f"simplemma-{_pkg_version('simplemma')}"


def _make_lemmatize() -> Callable[[str], str]:
    """The paper's WordNet lemmatiser (noun, NLTK's default) if installed, else simplemma."""
    if _lemmatizer_name() == "wordnet":
        from nltk.stem import WordNetLemmatizer

        return WordNetLemmatizer().lemmatize
    import simplemma

    return lambda word: simplemma.lemmatize(word, lang="en")


class _WordTable(dict):
    """Memoises a per-word transformation; ``""`` means "drop this word".

    Corpora repeat words a lot (20NG-bydate: ~5M tokens, far fewer distinct words), so each
    distinct word is lemmatised or stemmed once.
    """

    def __init__(self, transform: Callable[[str], str]):
        super().__init__()
        self._transform = transform

    def __missing__(self, word: str) -> str:
        result = self[word] = self._transform(word)
        return result


def _strip_markup(text: str) -> str:
    """Decode HTML entities; drop tokens that are URLs, e-mail addresses or @-mentions.

    Whole whitespace-delimited tokens are dropped: a regular expression for addresses has
    to be tried at every position and took 2 s on 20NG-bydate, this takes 0.5 s.
    """
    if "&" in text:
        text = html.unescape(text)
    if "@" in text or "://" in text or "www." in text:
        text = " ".join([w for w in text.split()
                         if "@" not in w and "://" not in w and "www." not in w])
    if not text.isascii():
        # Composed form, so an accented letter is one Latin character, not a letter plus a
        # separating combining mark.
        text = unicodedata.normalize("NFC", text)
    return text


# --- pipelines -----------------------------------------------------------------------------

def _make_none() -> Callable[[str], list[str]]:
    return str.split


def _make_gsdmm() -> Callable[[str], list[str]]:
    stop = stop_words()
    lemmatize = _make_lemmatize()

    def transform(word: str) -> str:
        if word in stop:
            return ""
        lemma = lemmatize(word).lower()
        # A dictionary lemma can hold characters the tokeniser would have split on.
        if not _LATIN_WORD.fullmatch(lemma):
            lemma = word
        # The lemma is checked too: "others" -> "other" is as empty as the stop word itself.
        if lemma in stop or not 2 <= len(lemma) <= 15:
            return ""
        return lemma

    return _word_tokenizer(_LATIN_WORD, transform)


def _make_newsgroups(keep_headers: bool = False) -> Callable[[str], list[str]]:
    stop = stop_words()

    def transform(word: str) -> str:
        return "" if word in stop or not 2 <= len(word) <= 15 else word

    tokens = _word_tokenizer(_LATIN_WORD, transform)
    if keep_headers:
        return tokens

    def doc_tokens(text: str) -> list[str]:
        # A post is its header block ("From: ...", "Subject: ..."), a blank line, the body.
        _, blank, body = text.partition("\n\n")
        return tokens(body if blank else text)

    return doc_tokens


def _make_ncut() -> Callable[[str], list[str]]:
    from nltk.stem.porter import PorterStemmer

    stop = stop_words()
    # The algorithm as Porter published it, not NLTK's later extensions.
    stem = PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM).stem
    return _word_tokenizer(_WORD, lambda word: "" if word in stop else stem(word))


# Marks of a tweet's form, not of its topic (a retweet, a "via @user" credit): on raw tweets
# they would top every cluster's words.
_TWEET_MARKS = frozenset({"rt", "via"})


def _make_basic() -> Callable[[str], list[str]]:
    dropped = stop_words() | _TWEET_MARKS
    return _word_tokenizer(_LETTERS, lambda word: "" if word in dropped or len(word) < 2
                           else word)


def _make_sklearn_english() -> Callable[[str], list[str]]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    findall = _WORD.findall  # scikit-learn's default token_pattern

    def doc_tokens(text: str) -> list[str]:
        return [word for word in findall(text.lower()) if word not in ENGLISH_STOP_WORDS]

    return doc_tokens


def _word_tokenizer(
    word: re.Pattern, transform: Callable[[str], str]
) -> Callable[[str], list[str]]:
    """The document step of a paper pipeline: ``text -> tokens``.

    Strips markup, lowercases, finds the words matching ``word`` and maps each through
    ``transform`` (once per distinct word), dropping those it maps to ``""``.
    """
    lookup = _WordTable(transform).__getitem__
    findall = word.findall  # bound once: this runs for every document

    def doc_tokens(text: str) -> list[str]:
        return [w for w in map(lookup, findall(_strip_markup(text).lower())) if w]

    return doc_tokens


PIPELINES: dict[str, Pipeline] = {
    "none": Pipeline(
        "none", "whitespace split only, for text preprocessed upstream",
        cache=False, _factory=_make_none),
    "gsdmm": Pipeline(
        "gsdmm", "GSDMM (Yin & Wang 2014, 4.1.3): lowercase, Latin letters only, stop words, "
        "lemmatise, token length 2..15, document frequency >= 2",
        min_df=2, _factory=_make_gsdmm,
        _components=lambda: f"{_lemmatizer_name()}+{_stop_words_source()}"),
    "ncut": Pipeline(
        "ncut", "Ncut-NMF (Yan et al. 2012, 4.1.1): lowercase, stop words, Porter stemming, "
        "document frequency >= 6, drop documents with fewer than 4 words",
        min_df=6, min_doc_words=4, _factory=_make_ncut,
        _components=lambda: f"porter-nltk-{_pkg_version('nltk')}+{_stop_words_source()}"),
    "sklearn_english": Pipeline(
        "sklearn_english", "scikit-learn's CountVectorizer(stop_words='english'): lowercase, "
        "tokens of 2+ word characters, its English stop words; no document frequency cut",
        _factory=_make_sklearn_english,
        _components=lambda: f"scikit-learn-{_pkg_version('scikit-learn')}"),
    "newsgroups": Pipeline(
        "newsgroups", "Banerjee & Basu (2007, 4.1) on newsgroup posts: headers dropped, "
        "lowercase, Latin letters only, stop words, token length 2..15, document frequency "
        ">= 2 and <= 15% of the documents",
        min_df=2, max_df=0.15, _factory=_make_newsgroups,
        _components=_stop_words_source),
    "newsgroups_headers": Pipeline(
        "newsgroups_headers", "newsgroups with the header block kept (From, Subject, "
        "Organization, Lines: their words, as any other)",
        min_df=2, max_df=0.15, _factory=lambda: _make_newsgroups(keep_headers=True),
        _components=_stop_words_source),
    "basic": Pipeline(
        "basic", "raw text: lowercase; drop URLs, e-mail addresses, @-mentions, punctuation, "
        "digits, one-letter words, English stop words and 'rt'/'via'; document frequency >= 2",
        min_df=2, cache=False, _factory=_make_basic, _components=_stop_words_source),
}


def get_pipeline(name: str | Pipeline) -> Pipeline:
    """Return the pipeline called ``name`` (case-insensitive); a Pipeline passes through.

    ``name`` may set the corpus steps of a named pipeline in parentheses,
    ``"NAME(min_df=INT, max_df=FLOAT, min_doc_words=INT)"`` (any of the three, in any
    order); the pipeline returned is named canonically (keys sorted, values as given
    by :func:`repr`), so equal settings give equal names.

    Raises
    ------
    DataError
        If there is no such pipeline (the message lists the available ones) or a setting
        is unknown or out of range.

    Examples
    --------
    >>> get_pipeline("newsgroups").min_df
    2
    >>> pipe = get_pipeline("Newsgroups( max_df=0.1,min_df=6 )")
    >>> pipe.name, pipe.min_df, pipe.max_df
    ('newsgroups(max_df=0.1, min_df=6)', 6, 0.1)
    """
    if isinstance(name, Pipeline):
        return name
    text = str(name).strip().lower()
    base, paren, settings = text.partition("(")
    pipeline = PIPELINES.get(base.strip()) or _language_pipeline(base.strip())
    if pipeline is None:
        raise DataError(f"unknown preprocessing pipeline '{name}': choose one of "
                        f"{', '.join(PIPELINES)} (or auto)")
    if not paren:
        return pipeline
    if not settings.endswith(")"):
        raise DataError(f"preprocessing '{name}': close the settings with ')', e.g. "
                        f"{base.strip()}(min_df=3)")
    values = _corpus_settings(settings[:-1], str(name))
    canonical = ", ".join(f"{key}={value!r}" for key, value in sorted(values.items()))
    if not values:
        return pipeline
    return replace(pipeline, name=f"{pipeline.name}({canonical})",
                   description=f"{pipeline.description}; here {canonical}", **values)


#: The corpus steps a pipeline name may set: key -> (type, smallest, largest).
_CORPUS_SETTINGS = {"min_df": (int, 1, None), "max_df": (float, 0.0, 1.0),
                    "min_doc_words": (int, 0, None)}


def _corpus_settings(text: str, name: str) -> dict:
    """``"min_df=6, max_df=0.1"`` -> ``{"min_df": 6, "max_df": 0.1}``, checked."""
    values = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, equals, raw = (part.strip() for part in item.partition("="))
        if key not in _CORPUS_SETTINGS or not equals:
            raise DataError(f"preprocessing '{name}': '{item}' is not a setting; write "
                            f"KEY=VALUE with KEY one of {', '.join(_CORPUS_SETTINGS)}")
        kind, low, high = _CORPUS_SETTINGS[key]
        try:
            value = kind(raw) if kind is float else int(raw, 10)
        except ValueError:
            value = None
        valid = value is not None and (low < value <= high if kind is float else value >= low)
        if not valid:  # (a NaN fails the float test too)
            bounds = "in (0, 1]" if kind is float else f"an integer >= {low}"
            raise DataError(f"preprocessing '{name}': {key} must be {bounds}, not '{raw}'")
        values[key] = value
    return values


# What tokenised text has none of, besides capital letters: a sign other than the apostrophe,
# the hyphen and the underscore (which tokenised sets keep in "don't", "e-mail", "new_york");
# addresses hold one (".", "@", ":").
_RAW_SIGN = re.compile(r"[^\w\s'-]")

#: Share of the (non-empty) documents that must look raw for a file to count as raw text.
RAW_SHARE = 0.05


def looks_raw(text: str) -> bool:
    """Whether ``text`` shows what a tokenised document has not: capitals, punctuation, an
    address or another sign.

    Examples
    --------
    >>> looks_raw("apple pie recipe"), looks_raw("Apple pie!"), looks_raw("see www.x.org")
    (False, True, True)
    """
    return text != text.lower() or _RAW_SIGN.search(text) is not None


def guess_pipeline(texts: Iterable[str]) -> str:
    """``"basic"`` for raw text or text full of stop words, ``"none"`` for text that looks
    tokenised already (stop words removed: under :data:`STOP_SHARE` of its tokens).

    Text counts as raw when at least :data:`RAW_SHARE` of its non-empty documents have a
    capital letter, punctuation, an address or another sign (:func:`looks_raw`). On the
    shared datasets the sets preprocessed upstream have at most 0.2% such documents, the
    raw ones (tweets, questions, newsgroup posts) more than 90%.

    Examples
    --------
    >>> guess_pipeline(["apple pie", "banana split"]), guess_pipeline(["Apple pie.", "ok"])
    ('none', 'basic')
    """
    documents = [text for text in texts if text.strip()]
    if not documents:
        return "none"
    raw = sum(map(looks_raw, documents))
    if raw >= RAW_SHARE * len(documents) or stop_word_share(documents) >= STOP_SHARE:
        return "basic"
    return "none"


#: Share of the tokens of text that looks tokenised that may be English stop words (any
#: case) before ``auto`` removes them (``basic``): the sets whose stop words were removed
#: upstream have under 2% (Tweet, GoogleNews, SearchSnippets, AgNews), lowercased titles
#: that kept theirs about 30%.
STOP_SHARE = 0.1


def stop_word_share(texts: Iterable[str], sample: int = 2000) -> float:
    """The share of the whitespace tokens of the first ``sample`` texts that are English
    stop words, whatever their case.

    >>> stop_word_share(["the cat of the house", "CATS AND DOGS"])
    0.5
    """
    stop, total, hits = stop_words(), 0, 0
    for text in list(texts)[:sample]:
        tokens = text.lower().split()
        total, hits = total + len(tokens), hits + sum(token in stop for token in tokens)
    return hits / total if total else 0.0


@cache  # one Pipeline (so one built tokenizer: jieba loads its dictionary) per name
def _language_pipeline(base: str) -> Pipeline | None:
    """``basic-<language>`` (another language's stop words) or ``chinese``; else None."""
    from shortclust.data import languages

    if base == "chinese":
        return Pipeline(
            "chinese", "Chinese cut into words by jieba; Latin words lowercased; English "
            "stop words, punctuation and digits dropped; document frequency >= 2",
            min_df=2, cache=False, _factory=_make_chinese,
            _components=lambda: f"jieba-{languages.jieba_version()}+{_stop_words_source()}")
    name, _, language = base.partition("-")
    if name != "basic" or not language:
        return None
    code = languages.language_code(language)
    return Pipeline(
        f"basic-{code}", f"basic with the stop words of '{code}' (stop-words package)",
        min_df=2, cache=False, _factory=lambda: _make_language(code),
        _components=lambda: f"stop-words-{languages.stop_words_version()}")


def _make_language(code: str) -> Callable[[str], list[str]]:
    from shortclust.data.languages import stop_words_for

    dropped = stop_words_for(code) | _TWEET_MARKS
    return _word_tokenizer(_LETTERS, lambda word: "" if word in dropped or len(word) < 2
                           else word)


def _make_chinese() -> Callable[[str], list[str]]:
    from shortclust.data.languages import segment_chinese

    cut, dropped, letters = segment_chinese(), stop_words() | _TWEET_MARKS, _LETTERS.fullmatch
    return lambda text: [word for word in (w.strip().lower() for w in cut(_strip_markup(text)))
                         if letters(word) and word not in dropped
                         and (len(word) > 1 or ord(word) > 0x2e80)]


def tokenize(texts: Iterable[str], pipeline: str | Pipeline = "none") -> list[list[str]]:
    """Tokenise each text with a pipeline's document step.

    The corpus steps (``min_df``, ``min_doc_words``) need the whole collection and are
    applied by :meth:`Corpus.from_texts <shortclust.data.corpus.Corpus.from_texts>`.

    Parameters
    ----------
    texts : iterable of str
    pipeline : str or Pipeline
        ``"none"``, ``"gsdmm"``, ``"ncut"`` or ``"basic"``.

    Returns
    -------
    list of list of str
        One token list per text, in order (possibly empty).

    Examples
    --------
    >>> tokenize(["The cars were parked, 3 of them!"], "gsdmm")
    [['car', 'park']]
    """
    return get_pipeline(pipeline).tokenize(texts)
