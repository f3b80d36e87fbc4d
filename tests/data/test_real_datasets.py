"""The registry against the real shared datasets; skipped where that data is absent.

The data directory is ``$SHORTCLUST_DATA`` (set by the Makefile and CI), else the
``shared/datasets`` folder beside the checkout.
"""

import os
from pathlib import Path

import numpy as np
import pytest

from shortclust.data import load_corpus, read_documents
from shortclust.data.registry import DATASETS, get_info, list_datasets


def _shared_data_dir() -> Path:
    env = os.environ.get("SHORTCLUST_DATA", "")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "datasets"


DATA_DIR = _shared_data_dir()
HAVE_DATA = DATA_DIR.is_dir() and any(DATA_DIR.glob("*.jsonl*"))
PRESENT = {info.name for info, path in list_datasets(DATA_DIR) if path is not None}
SLOW = {"20NG-bydate", "CrisisLexT26"}

pytestmark = pytest.mark.skipif(not HAVE_DATA, reason=f"no shared datasets in {DATA_DIR}")


def dataset_param(info):
    marks = [pytest.mark.slow] if info.name in SLOW else []
    marks.append(pytest.mark.skipif(info.name not in PRESENT, reason=f"{info.name} absent"))
    return pytest.param(info, id=info.name, marks=marks)


def test_every_shared_file_is_registered():
    files = {p.name for p in DATA_DIR.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz"))}
    assert files == {info.filename for info in DATASETS}


@pytest.mark.parametrize("info", [dataset_param(i) for i in DATASETS])
def test_dataset_loads_with_registry_counts(info):
    corpus = load_corpus(info.name, data_dir=DATA_DIR)
    assert corpus.preprocess == info.default_preprocess
    assert corpus.n_docs == info.n_docs
    assert len(corpus.label_names) == info.n_labels
    assert corpus.labels.min() == 0 and corpus.labels.max() == info.n_labels - 1
    np.testing.assert_array_equal(corpus.doc_index, np.arange(info.n_docs))
    assert (corpus.times is not None) == info.has_time
    assert corpus.counts.has_canonical_format and corpus.counts.dtype == np.int32
    assert corpus.n_words > 1000


@pytest.mark.parametrize("name, line", [("GoogleNews-T", 3951), ("GoogleNews-S", 6832)])
def test_googlenews_has_exactly_one_empty_document(name, line):
    if name not in PRESENT:
        pytest.skip(f"{name} absent")
    corpus = load_corpus(name, data_dir=DATA_DIR)
    empty = np.flatnonzero(corpus.doc_lengths == 0)
    assert corpus.doc_index[empty].tolist() == [line - 1]  # doc_index is 0-based


def test_mstream_news_times_are_stream_positions():
    if "MStream-News" not in PRESENT:
        pytest.skip("MStream-News absent")
    corpus = load_corpus("MStream-News", data_dir=DATA_DIR)
    assert corpus.times.dtype == np.int64
    np.testing.assert_array_equal(corpus.times, np.arange(corpus.n_docs))


def test_twenty_ng_mini_times_are_1993_timestamps():
    if "20NG-mini" not in PRESENT:
        pytest.skip("20NG-mini absent")
    corpus = load_corpus("20NG-mini", data_dir=DATA_DIR)
    assert corpus.times.dtype == np.dtype("datetime64[s]")
    assert corpus.times.min() >= np.datetime64("1993-02-22")
    assert corpus.times.max() < np.datetime64("1993-05-29")


def test_ncut_on_stackoverflow_drops_and_records_short_titles():
    if "StackOverflow" not in PRESENT:
        pytest.skip("StackOverflow absent")
    corpus = load_corpus("StackOverflow", preprocess="ncut", data_dir=DATA_DIR)
    assert 0 < corpus.n_docs < get_info("StackOverflow").n_docs
    assert corpus.doc_lengths.min() >= 4
    assert np.all(np.diff(corpus.doc_index) > 0)
    assert corpus.n_source_docs == 20000
    # The kept documents' labels are those of the source lines doc_index points to.
    raw = read_documents(DATA_DIR / "StackOverflow.jsonl")
    names = np.array(corpus.label_names)[corpus.labels]
    assert names.tolist() == [raw.labels[i] for i in corpus.doc_index]


@pytest.mark.slow
def test_twenty_ng_bydate_gsdmm_vocabulary_is_filtered():
    if "20NG-bydate" not in PRESENT:
        pytest.skip("20NG-bydate absent")
    corpus = load_corpus("20NG-bydate", data_dir=DATA_DIR)
    df = np.bincount(corpus.counts.indices, minlength=corpus.n_words)
    assert df.min() >= 2
    assert all(2 <= len(w) <= 15 and w == w.lower() for w in corpus.vocabulary)
    assert "the" not in corpus.vocabulary


@pytest.mark.parametrize("info", [dataset_param(i) for i in DATASETS])
def test_a_file_path_guesses_the_pipeline_its_registry_entry_implies(info):
    """auto on a file takes none for the sets preprocessed upstream, basic for raw text."""
    from shortclust.data.preprocess import guess_pipeline

    texts = read_documents(DATA_DIR / info.filename).texts
    assert guess_pipeline(texts) == ("none" if info.preprocessed else "basic")
