"""Datasets made of part of another file: Banerjee et al.'s 20 Newsgroups sets."""

import numpy as np
import pytest

from shortclust.data.corpus import Corpus, load_corpus
from shortclust.data.io import read_documents
from shortclust.data.preprocess import get_pipeline
from shortclust.data.registry import dataset_present, get_info
from shortclust.data.subsets import Subset
from shortclust.representations import corpus_texts

needs_20ng = pytest.mark.skipif(not dataset_present("20NG-bydate"),
                                reason="20NG-bydate not in the data directory")


def write_posts(tmp_path):
    """Six posts of two groups, stored by (split, group, article) as 20NG-bydate is."""
    import json

    rows = [("train", "a", 10), ("train", "a", 30), ("train", "b", 20), ("test", "a", 50),
            ("test", "b", 40), ("test", "b", 60)]
    path = tmp_path / "posts.jsonl"
    with open(path, "w") as out:
        for split, group, number in rows:
            out.write(json.dumps({"text": f"Subject: {group}{number}\n\nbody {group} word{number}",
                                  "label": group, "id": f"{group}/{number}",
                                  "split": split}) + "\n")
    return path


def test_stream_order_is_train_then_relative_position_in_the_group(tmp_path):
    path = write_posts(tmp_path)
    raw, rows = Subset("posts").select(read_documents(path), path)
    # train: a has 10, 30 (positions 0.25, 0.75), b has 20 (0.5); test: a 50 (0.5), b 40,
    # 60 (0.25, 0.75). Article numbers are compared within a group only.
    assert raw.ids == ["a/10", "b/20", "a/30", "b/40", "a/50", "b/60"]
    assert rows.tolist() == [0, 2, 1, 4, 3, 5] and raw.times == list(range(6))


def test_groups_numbered_apart_are_interleaved_not_concatenated(tmp_path):
    import json

    path = tmp_path / "apart.jsonl"
    rows = [("a", n) for n in (1, 2, 3, 4)] + [("b", n) for n in (901, 902, 903, 904)]
    path.write_text("".join(json.dumps({"text": "x", "label": g, "id": f"{g}/{n}",
                                        "split": "train"}) + "\n" for g, n in rows))
    raw, _ = Subset("apart").select(read_documents(path), path)
    assert raw.labels == ["a", "b"] * 4


def test_groups_and_a_seeded_sample_per_group(tmp_path):
    path = write_posts(tmp_path)
    raw = read_documents(path)
    only_b, _ = Subset("posts", groups=("b",)).select(raw, path)
    assert set(only_b.labels) == {"b"} and len(only_b) == 3
    one, rows = Subset("posts", per_group=1, seed=3).select(raw, path)
    again, _ = Subset("posts", per_group=1, seed=3).select(raw, path)
    assert sorted(one.labels) == ["a", "b"] and one.ids == again.ids
    assert [raw.ids[r] for r in rows] == one.ids


def test_a_subset_has_its_own_checksum():
    assert Subset("x", per_group=1).checksum("abc") != Subset("x", per_group=2).checksum("abc")
    assert Subset("x").checksum("abc") != Subset("x").checksum("abd")


def test_a_missing_group_is_a_one_line_error(tmp_path, one_line):
    from shortclust.errors import DataError

    path = write_posts(tmp_path)
    with pytest.raises(DataError) as err:
        Subset("posts", groups=("zz",)).select(read_documents(path), path)
    one_line(str(err.value), "no documents of group 'zz'")


def test_newsgroups_pipeline_drops_the_header_block_and_too_frequent_words():
    tokens = get_pipeline("newsgroups").tokenize(
        ["From: someone\nSubject: rockets\n\nThe rocket engine", "no header: rocket"])
    assert tokens == [["rocket", "engine"], ["header", "rocket"]]
    # "orbit" is in 2 of 20 documents (10%: kept), "launch" in 4 (20%: removed).
    texts = [f"filler{i} filler{i} " for i in range(20)]
    texts = [t + ("orbit " if i < 2 else "") + ("launch" if i < 4 else "")
             for i, t in enumerate(texts)]
    corpus = Corpus.from_texts(texts, pipeline="newsgroups")
    assert corpus.vocabulary == ["orbit"]


def test_max_df_removes_words_in_too_many_documents():
    from shortclust.data.corpus import _filter_max_df
    import scipy.sparse as sp

    counts = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 1], [1, 0, 0], [1, 1, 0]]))
    kept, words = _filter_max_df(counts, ["all", "half", "once"], 0.5)
    assert words == ["half", "once"] and kept.shape == (4, 2)


@needs_20ng
@pytest.mark.parametrize("name", ["20NG-sim3", "20NG-subset20"])
def test_banerjee_sets_load_in_stream_order_with_texts_from_their_rows(name):
    info = get_info(name)
    corpus = load_corpus(name)
    assert corpus.n_docs == info.n_docs and len(corpus.label_names) == info.n_labels
    assert corpus.preprocess == "newsgroups" and corpus.times.tolist()[:3] == [0, 1, 2]
    first = np.bincount(corpus.labels[:corpus.n_docs // 10], minlength=info.n_labels)
    assert (first > 0).all()  # every stretch of the stream holds every group
    parent = read_documents(corpus.source_path)
    texts = corpus_texts(corpus)
    rows = corpus.file_rows[corpus.doc_index]
    assert texts[:5] == [parent.texts[r] for r in rows[:5]]
    assert [corpus.label_names[c] for c in corpus.labels[:5]] == [parent.labels[r]
                                                                 for r in rows[:5]]
    assert corpus.sha256 != load_corpus("20NG-bydate", "none").sha256
    if name == "20NG-subset20":
        assert np.bincount(corpus.labels).tolist() == [100] * 20


@needs_20ng
def test_a_subset_is_cached_under_its_own_checksum_with_its_file_rows(monkeypatch):
    import shortclust.data.corpus as corpus_module

    first = load_corpus("20NG-sim3")

    def fail(path):
        raise AssertionError("the source was read although the cache should have served it")

    monkeypatch.setattr(corpus_module, "read_documents", fail)
    second = load_corpus("20NG-sim3")
    assert second.sha256 == first.sha256 and second.vocabulary == first.vocabulary
    np.testing.assert_array_equal(second.file_rows, first.file_rows)
    assert (second.counts != first.counts).nnz == 0
