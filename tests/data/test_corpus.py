"""Corpus: counts, labels, times, views, derived corpora, loading and the on-disk cache."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer

import shortclust.data.corpus as corpus_module
from shortclust.data import Corpus, load_corpus
from shortclust.data.corpus import counts_over
from shortclust.data.io import file_sha256
from shortclust.errors import DataError

TEXTS = ["b a b", "", "c a", "d d d b"]
LABELS = ["y", "x", "y", "z"]


@pytest.fixture
def corpus():
    return Corpus.from_texts(TEXTS, labels=LABELS, times=[3, 1, 2, 0], name="tiny")


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --- construction ----------------------------------------------------------------------------

def test_counts_match_hand_counts(corpus):
    assert corpus.vocabulary == ["a", "b", "c", "d"]
    assert corpus.counts.toarray().tolist() == [
        [1, 2, 0, 0],
        [0, 0, 0, 0],
        [1, 0, 1, 0],
        [0, 1, 0, 3],
    ]
    assert corpus.doc_lengths.tolist() == [3, 0, 2, 4]
    assert (corpus.n_docs, corpus.n_words) == (4, 4)


def test_counts_are_canonical_int32_csr(corpus):
    counts = corpus.counts
    assert sp.isspmatrix_csr(counts) or isinstance(counts, sp.csr_array)
    assert counts.dtype == np.int32
    assert counts.has_sorted_indices and counts.has_canonical_format
    assert counts.nnz == 6 and np.all(counts.data > 0)


def test_constructor_canonicalises_counts():
    raw = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), np.array([1, 0, 1]), np.array([0, 3])),
                        shape=(1, 2))
    built = Corpus(name="m", counts=raw, vocabulary=["p", "q"])
    assert built.counts.dtype == np.int32
    assert built.counts.nnz == 1 and built.counts.toarray().tolist() == [[0, 3]]
    np.testing.assert_array_equal(built.doc_index, [0])


def test_empty_document_is_kept_as_zero_row(corpus):
    assert corpus.counts[1].nnz == 0
    assert corpus.doc_index.tolist() == [0, 1, 2, 3]


def test_labels_are_coded_in_order_of_first_appearance(corpus):
    assert corpus.labels.dtype == np.int64
    assert corpus.labels.tolist() == [0, 1, 0, 2]
    assert corpus.label_names == ["y", "x", "z"]


def test_no_labels_gives_none():
    built = Corpus.from_texts(["a"])
    assert built.labels is None and built.label_names == [] and built.times is None


def test_integer_times_become_int64(corpus):
    assert corpus.times.dtype == np.int64 and corpus.times.tolist() == [3, 1, 2, 0]


def test_iso_times_become_utc_datetime64_seconds():
    built = Corpus.from_texts(["a", "b"], times=["2013-04-15T18:50:00Z",
                                                 "2013-04-15T20:50:00+02:00"])
    assert built.times.dtype == np.dtype("datetime64[s]")
    assert (built.times == np.datetime64("2013-04-15T18:50:00", "s")).all()


@pytest.mark.parametrize("kwargs, fragment", [
    ({"labels": ["a"]}, "labels"),
    ({"times": [1, 2, 3]}, "times"),
    ({"times": ["2013-01-01", 5]}, "times"),
    ({"times": ["soon", "later"]}, "ISO-8601"),
])
def test_from_texts_rejects_inconsistent_inputs(one_line, kwargs, fragment):
    with pytest.raises(DataError) as err:
        Corpus.from_texts(["a", "b"], **kwargs)
    one_line(str(err.value), fragment)


def test_constructor_rejects_mismatched_vocabulary(one_line):
    with pytest.raises(DataError) as err:
        Corpus(name="m", counts=sp.csr_matrix((2, 3), dtype=np.int32), vocabulary=["a"])
    one_line(str(err.value), "vocabulary")


# --- views -----------------------------------------------------------------------------------

def test_binary(corpus):
    assert corpus.binary().toarray().tolist() == [[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 0],
                                                  [0, 1, 0, 1]]
    assert corpus.counts[0, 1] == 2  # the counts themselves are untouched


def test_tfidf_is_sklearns_l2_normalised(corpus):
    weights = corpus.tfidf()
    expected = TfidfTransformer().fit_transform(corpus.counts.toarray())
    np.testing.assert_allclose(weights.toarray(), expected.toarray())
    norms = np.sqrt(np.asarray(weights.multiply(weights).sum(axis=1))).ravel()
    np.testing.assert_allclose(norms, [1, 0, 1, 1])


def test_tokens_repeat_word_ids_by_count(corpus):
    tokens = corpus.tokens()
    assert [t.tolist() for t in tokens] == [[0, 1, 1], [], [0, 2], [1, 3, 3, 3]]
    assert tokens[0].dtype == np.int32


# --- derived corpora -------------------------------------------------------------------------

def test_subset_by_positions_and_mask(corpus):
    part = corpus.subset([3, 0])
    assert part.counts.toarray().tolist() == [[0, 1, 0, 3], [1, 2, 0, 0]]
    assert part.labels.tolist() == [2, 0] and part.label_names == corpus.label_names
    assert part.doc_index.tolist() == [3, 0] and part.times.tolist() == [0, 3]
    assert part.vocabulary == corpus.vocabulary
    masked = corpus.subset(np.array([False, True, True, False]))
    assert masked.doc_index.tolist() == [1, 2]


@pytest.mark.parametrize("idx", [[4], np.array([True, False])])
def test_subset_rejects_bad_selection(corpus, idx):
    with pytest.raises(DataError):
        corpus.subset(idx)


def test_repeat_concatenates_copies(corpus):
    big = corpus.repeat(3)
    assert big.n_docs == 12 and big.vocabulary == corpus.vocabulary
    np.testing.assert_array_equal(big.counts.toarray(), np.tile(corpus.counts.toarray(), (3, 1)))
    assert big.labels.tolist() == corpus.labels.tolist() * 3
    assert big.doc_index.tolist() == [0, 1, 2, 3] * 3
    assert big.times.tolist() == corpus.times.tolist() * 3
    assert big.counts.has_canonical_format and big.counts.dtype == np.int32
    assert corpus.repeat(1).counts.toarray().tolist() == corpus.counts.toarray().tolist()


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_repeat_rejects_non_positive_integers(corpus, n):
    with pytest.raises(DataError):
        corpus.repeat(n)


# --- load_corpus -----------------------------------------------------------------------------

RECORDS = [{"text": "Cars drive on roads", "label": "traffic", "time": "2013-01-01T00:00:00Z"},
           {"text": "", "label": "empty", "time": "2013-01-01T00:00:01Z"},
           {"text": "a car on the road", "label": "traffic", "time": "2013-01-01T00:00:02Z"},
           {"text": "apples and pears", "label": "fruit", "time": "2013-01-01T00:00:03Z"},
           {"text": "pears or apples", "label": "fruit", "time": "2013-01-01T00:00:04Z"}]


def test_load_file_path_of_tokenised_text_defaults_to_no_preprocessing(tmp_path):
    # Lowercase words without their stop words: tokenised upstream, nothing to remove.
    stop = {"on", "a", "the", "and", "or"}
    tokenised = [{**record, "text": " ".join(w for w in record["text"].lower().split()
                                             if w not in stop)} for record in RECORDS]
    path = write_jsonl(tmp_path / "mine.jsonl", tokenised)
    loaded = load_corpus(str(path))
    assert loaded.name == "mine" and loaded.preprocess == "none"
    assert {"cars", "car", "drive"} <= set(loaded.vocabulary)  # nothing removed
    assert loaded.sha256 == file_sha256(path) and loaded.source_path == path
    assert loaded.counts[1].nnz == 0
    assert loaded.label_names == ["traffic", "empty", "fruit"]
    assert loaded.times.dtype == np.dtype("datetime64[s]")


def test_lowercase_text_full_of_stop_words_gets_them_removed(tmp_path):
    lowered = [{**record, "text": record["text"].lower()} for record in RECORDS]
    loaded = load_corpus(str(write_jsonl(tmp_path / "mine.jsonl", lowered)))
    assert loaded.preprocess == "basic"
    assert not {"the", "a", "on", "and", "or"} & set(loaded.vocabulary)


def test_load_file_path_of_raw_text_defaults_to_basic(tmp_path):
    # One capital letter in four documents is raw text enough (guess_pipeline).
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    loaded = load_corpus(str(path))
    assert loaded.preprocess == "basic"
    # Lowercased, stop words out, words of one document out (document frequency >= 2).
    assert loaded.vocabulary == ["apples", "pears"]
    assert loaded.n_docs == 5 and loaded.n_source_docs == 5  # basic drops no document
    assert load_corpus(str(path), preprocess="none").preprocess == "none"


def test_source_rows_join_a_corpus_back_to_its_file(tmp_path):
    texts = ["alpha beta gamma delta"] * 6 + ["alpha", "", "alpha beta gamma delta"]
    corpus = Corpus.from_texts(texts, pipeline="ncut")
    assert corpus.source_rows().tolist() == [0, 1, 2, 3, 4, 5, -1, -1, 6]
    kept = [i for i, row in enumerate(corpus.source_rows()) if row >= 0]
    assert kept == corpus.doc_index.tolist()


def test_counts_over_a_fixed_vocabulary_leave_unknown_words_out():
    counts = counts_over([["pear", "apple", "kiwi", "pear"], [], ["kiwi"]], ["apple", "pear"])
    assert counts.dtype == np.int32 and counts.has_canonical_format
    assert counts.toarray().tolist() == [[1, 2], [0, 0], [0, 0]]


def test_load_file_with_named_pipeline(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    loaded = load_corpus(path, preprocess="gsdmm")
    assert loaded.vocabulary == ["apple", "car", "pear", "road"]
    assert loaded.n_docs == 5 and loaded.preprocess == "gsdmm"


def test_load_csv_and_txt_paths(tmp_path):
    (tmp_path / "d.csv").write_text("text,label\nred apple,x\ngreen apple,y\n")
    (tmp_path / "d.txt").write_text("red apple\ngreen apple\n")
    from_csv, from_txt = load_corpus(tmp_path / "d.csv"), load_corpus(tmp_path / "d.txt")
    assert from_csv.vocabulary == from_txt.vocabulary == ["apple", "green", "red"]
    assert from_csv.label_names == ["x", "y"] and from_txt.labels is None


def test_missing_path_is_reported(tmp_path, one_line):
    with pytest.raises(DataError) as err:
        load_corpus(str(tmp_path / "nowhere" / "x.jsonl"))
    one_line(str(err.value), "not found", "x.jsonl")


def test_unknown_pipeline_is_reported(tmp_path, one_line):
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    with pytest.raises(DataError) as err:
        load_corpus(path, preprocess="snowball")
    one_line(str(err.value), "snowball", "gsdmm")


def fake_tweet_file(directory, n_docs=2472, n_labels=89):
    """A stand-in with the registry's Tweet counts, so named loading is tested without data."""
    directory.mkdir(exist_ok=True)
    records = [{"text": f"word{i % 50} common", "label": str(i % n_labels)}
               for i in range(n_docs)]
    return write_jsonl(directory / "Tweet.jsonl", records)


def test_load_named_dataset_from_data_dir(tmp_path):
    fake_tweet_file(tmp_path / "data")
    loaded = load_corpus("tweet", data_dir=tmp_path / "data")
    assert loaded.name == "Tweet" and loaded.preprocess == "none"
    assert loaded.n_docs == 2472 and len(loaded.label_names) == 89


def test_named_dataset_with_wrong_document_count_is_rejected(tmp_path, one_line):
    fake_tweet_file(tmp_path / "data", n_docs=100)
    with pytest.raises(DataError) as err:
        load_corpus("Tweet", data_dir=tmp_path / "data")
    one_line(str(err.value), "100 documents", "2472", "jackyin12/GSDMM")


def test_named_dataset_with_wrong_label_count_is_rejected(tmp_path, one_line):
    fake_tweet_file(tmp_path / "data", n_labels=10)
    with pytest.raises(DataError) as err:
        load_corpus("Tweet", data_dir=tmp_path / "data")
    one_line(str(err.value), "10 distinct labels", "89")


def test_named_dataset_missing(tmp_path, one_line):
    with pytest.raises(DataError) as err:
        load_corpus("Tweet", data_dir=tmp_path)
    one_line(str(err.value), "Tweet", str(tmp_path), "SHORTCLUST_DATA")


# --- cache -----------------------------------------------------------------------------------

def assert_same_corpus(a, b):
    assert a.vocabulary == b.vocabulary and a.label_names == b.label_names
    assert (a.counts != b.counts).nnz == 0 and a.counts.dtype == b.counts.dtype
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.times, b.times)
    np.testing.assert_array_equal(a.doc_index, b.doc_index)
    assert (a.name, a.sha256, a.preprocess, a.n_source_docs) == (
        b.name, b.sha256, b.preprocess, b.n_source_docs)


def forbid_reading(monkeypatch):
    def fail(path):
        raise AssertionError("the source was read although the cache should have served it")
    monkeypatch.setattr(corpus_module, "read_documents", fail)


def test_cache_round_trip(tmp_path, isolated_cache, monkeypatch):
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    first = load_corpus(path, preprocess="gsdmm")
    assert sorted(p.suffix for p in isolated_cache.iterdir()) == [".json", ".npz"]
    forbid_reading(monkeypatch)
    second = load_corpus(path, preprocess="gsdmm")
    assert_same_corpus(first, second)
    assert second.source_path == path


def test_cache_keeps_dropped_documents_recorded(tmp_path, monkeypatch):
    records = [{"text": "alpha beta gamma delta", "label": "k"}] * 6 + [{"text": "x", "label": "j"}]
    path = write_jsonl(tmp_path / "n.jsonl", records)
    first = load_corpus(path, preprocess="ncut")
    forbid_reading(monkeypatch)
    second = load_corpus(path, preprocess="ncut")
    assert second.doc_index.tolist() == list(range(6)) and second.n_source_docs == 7
    assert_same_corpus(first, second)


def test_cache_misses_when_the_file_changes(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    load_corpus(path, preprocess="gsdmm")
    melons = {"text": "melons", "label": "fruit", "time": "2013-01-01T00:00:05Z"}
    write_jsonl(path, RECORDS + [melons, melons])
    reloaded = load_corpus(path, preprocess="gsdmm")
    assert "melon" in reloaded.vocabulary and reloaded.n_docs == 7


def test_no_cache_for_pipeline_none_or_when_disabled(tmp_path, isolated_cache):
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    load_corpus(path)
    load_corpus(path, preprocess="gsdmm", cache=False)
    assert not isolated_cache.exists()


def test_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SHORTCLUST_CACHE", str(blocker / "cache"))
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    assert load_corpus(path, preprocess="gsdmm").n_docs == 5


def test_corrupt_cache_entry_is_rebuilt(tmp_path, isolated_cache):
    path = write_jsonl(tmp_path / "mine.jsonl", RECORDS)
    first = load_corpus(path, preprocess="gsdmm")
    for entry in isolated_cache.iterdir():
        entry.write_bytes(b"garbage")
    assert_same_corpus(first, load_corpus(path, preprocess="gsdmm"))
    # ...and the rebuilt entry is valid again.
    assert json.loads(next(isolated_cache.glob("*.json")).read_text())["n_source_docs"] == 5


def test_cache_dir_follows_xdg_when_unset(monkeypatch, tmp_path):
    monkeypatch.delenv("SHORTCLUST_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert corpus_module.resolve_cache_dir() == tmp_path / "xdg" / "shortclust" / "corpora"
