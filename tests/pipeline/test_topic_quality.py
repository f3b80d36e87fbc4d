"""Topic quality in experiments: the config section, its checks, records, summaries, resume."""

import json

import numpy as np
import pytest
from rich.console import Console

from tests.pipeline.fake_estimators import (
    TEXTS, register_fake_topics_model, write_config, write_corpus,
)
from shortclust.config import load_config
from shortclust.data import load_corpus
from shortclust.errors import ConfigError, DataError
from shortclust.evaluation.coherence import cluster_topics, topic_quality
from shortclust.pipeline.records import RecordStore
from shortclust.pipeline.runner import run_experiment
from shortclust.pipeline.summary import summary_markdown


@pytest.fixture
def topics_model(monkeypatch):
    return register_fake_topics_model(monkeypatch)


@pytest.fixture
def config_path(tmp_path, corpus_path, output_dir, topics_model):
    """Three runs of the fake topic model, its top words scored with the defaults."""
    return write_config(tmp_path / "topics.yaml", corpus_path, output_dir,
                        model={"name": "fake_topics", "params": {"n_clusters": 4}},
                        topic_quality=True)


def run(config_path, *overrides, **options):
    options.setdefault("quiet", True)
    return run_experiment(load_config(config_path, list(overrides)), **options)


def expected_quality(record, corpus, labels, top_n=10, reference=None):
    """What the record should hold: the fake model refitted, its clusters scored directly."""
    from tests.pipeline.fake_estimators import FakeTopicsClusterer

    model = FakeTopicsClusterer(**record["params"], random_state=record["seed"])
    model.fit(corpus.counts, callback=lambda *_: None)
    assert model.labels_.tolist() == list(labels)
    topics = cluster_topics(model.top_words(top_n, vocabulary=corpus.vocabulary), labels,
                            corpus.counts, corpus.vocabulary)
    reference = reference or corpus
    return topics, topic_quality(topics, reference.counts, reference.vocabulary)


# --- the config section ---------------------------------------------------------------------


def test_shorthands_and_defaults(config_path):
    spec = load_config(config_path).topic_quality
    assert (spec.measures, spec.top_n, spec.reference) == (["npmi", "c_v", "diversity"], 10, None)
    listed = load_config(config_path, ["topic_quality=[C_V, npmi]"]).topic_quality
    assert listed.measures == ["c_v", "npmi"]
    assert load_config(config_path, ["topic_quality=false"]).topic_quality is None
    assert load_config(config_path, ["topic_quality={top_n: 5}"]).topic_quality.top_n == 5


@pytest.mark.parametrize("override, match", [
    ("topic_quality=[npmi, umass]",
     r"'topic_quality.measures': unknown measure 'umass' \(choose from npmi, c_v, diversity\)"),
    ("topic_quality={top_n: 1}", "'topic_quality.top_n'"),
    ("topic_quality={window: 10}", "unknown key 'topic_quality.window'"),
    ("topic_quality={reference: ' '}", "must name a dataset or a corpus file"),
])
def test_bad_sections_are_one_line_config_errors(config_path, override, match):
    with pytest.raises(ConfigError, match=match) as info:
        load_config(config_path, [override])
    assert "\n" not in str(info.value)


def test_a_model_without_top_words_is_refused_before_anything_is_written(
        config_path, output_dir, fake_model):
    config = load_config(config_path, ["model.name=fake"])
    with pytest.raises(ConfigError, match=r"model 'fake' has no top_words, which topic_quality "
                                          r"scores: .*\(.*gsdmm.*\)") as info:
        run_experiment(config, quiet=True)
    assert "\n" not in str(info.value) and not output_dir.exists()


def test_top_words_of_vectors_are_refused(config_path, output_dir):
    config = load_config(config_path, ["representation=sentence_embeddings"])
    with pytest.raises(ConfigError, match="representation 'sentence_embeddings' gives vectors"):
        run_experiment(config, quiet=True)
    assert not output_dir.exists()


def test_a_missing_reference_file_stops_before_anything_is_written(config_path, output_dir,
                                                                    tmp_path):
    missing = tmp_path / "nope.jsonl"
    config = load_config(config_path, [f"topic_quality={{reference: '{missing}'}}"])
    with pytest.raises(DataError, match="nope.jsonl"):
        run_experiment(config, quiet=True)
    assert not output_dir.exists()


# --- records and summaries ------------------------------------------------------------------


def test_each_run_records_the_quality_of_its_clusters(config_path, output_dir, corpus_path,
                                                      topics_model):
    result = run(config_path)
    assert topics_model.top_words_calls == 3  # once per run, never in the warm-up
    corpus = load_corpus(corpus_path, preprocess="none")
    store = RecordStore(output_dir)
    for record in result.records:
        entry = record["topic_quality"]
        labels = store.read_labels(record["run_id"])
        topics, expected = expected_quality(record, corpus, labels)
        assert {k: entry[k] for k in expected} == pytest.approx(expected)
        assert (entry["top_n"], entry["reference"]) == (10, None)
        assert entry["clusters"] == len(np.unique(labels)) == len(topics)
        assert entry["seconds"] >= 0
    values = {json.dumps(r["topic_quality"]["npmi"]) for r in result.records}
    assert len(values) > 1  # the seeds' clusterings differ, so does their coherence
    summary = result.summary
    for name in ("npmi", "c_v", "diversity"):
        runs = [r["topic_quality"][name] for r in result.records]
        assert summary[f"{name}_mean"].iloc[0] == pytest.approx(np.mean(runs))
    text = (output_dir / "summary.md").read_text()
    assert "| npmi | c_v | diversity |" in text and "mean coherence" in text


def test_an_unlabelled_corpus_gets_topic_quality_but_no_metrics(tmp_path, topics_model):
    corpus = write_corpus(tmp_path / "unlabelled.jsonl", labelled=False)
    path = write_config(tmp_path / "u.yaml", corpus, tmp_path / "out",
                        model={"name": "fake_topics", "params": {"n_clusters": 4}},
                        topic_quality=["npmi"])
    result = run(path, "runs=2")
    assert all(r["metrics"] is None for r in result.records)
    assert all(set(r["topic_quality"]) >= {"npmi"} and "c_v" not in r["topic_quality"]
               for r in result.records)
    text = summary_markdown(result.summary)
    assert "| npmi |" in text and "Metrics omitted for" in text  # clustering metrics only


def test_another_reference_corpus(config_path, output_dir, corpus_path, tmp_path):
    other = tmp_path / "reference.txt"
    other.write_text("\n".join(TEXTS[:4] * 3 + ["python code", "goal"]) + "\n")
    result = run(config_path, f"topic_quality={{reference: '{other}'}}", "runs=1")
    record = result.records[0]
    corpus = load_corpus(corpus_path, preprocess="none")
    labels = RecordStore(output_dir).read_labels(record["run_id"])
    reference = load_corpus(other, preprocess="none")
    _, expected = expected_quality(record, corpus, labels, reference=reference)
    _, own = expected_quality(record, corpus, labels)
    entry = record["topic_quality"]
    assert {k: entry[k] for k in expected} == pytest.approx(expected)
    assert entry["npmi"] != pytest.approx(own["npmi"])
    assert entry["reference"] == str(other)


def test_sweep_tables_show_topic_quality(config_path, output_dir):
    from shortclust.pipeline.sweep import sweep_frame, sweep_markdown

    config = load_config(config_path, ["runs=2"])
    result = run_experiment(config, quiet=True, points=[{"n_clusters": 2}, {"n_clusters": 4}])
    table = sweep_frame(result.records, "n_clusters", [2, 4])
    assert {"npmi_mean", "c_v_std", "diversity_mean"} <= set(table.columns)
    assert "| npmi | c_v | diversity |" in sweep_markdown(table, "n_clusters", "t")


# --- resume ---------------------------------------------------------------------------------


def resume_message(config_path, *overrides):
    console = Console(record=True, width=400)
    result = run_experiment(load_config(config_path, list(overrides)), resume=True,
                            console=console, progress=False)
    return result, " ".join(console.export_text().split())


def test_resume_scores_recorded_runs_from_their_top_words_without_fitting(
        config_path, output_dir, topics_model, tmp_path):
    run(config_path, "topic_quality=false", "top_words=10")
    fits = topics_model.fit_calls
    result, message = resume_message(config_path, "top_words=10")
    assert (result.n_run, topics_model.fit_calls) == (0, fits)
    assert "3 given topic quality from their recorded top words" in message
    fresh = run(config_path, "top_words=10", f"output={tmp_path / 'fresh'}")
    for resumed, fitted in zip(result.records, fresh.records):
        scored = {k: v for k, v in resumed["topic_quality"].items() if k != "seconds"}
        assert scored == pytest.approx({k: v for k, v in fitted["topic_quality"].items()
                                        if k != "seconds"})
    # The same settings again: nothing left to do, nothing rewritten.
    again, message = resume_message(config_path, "top_words=10")
    assert again.n_run == 0 and "topic quality" not in message


def test_resume_refits_runs_whose_records_lack_the_top_words_and_says_why(
        config_path, output_dir, topics_model):
    run(config_path, "topic_quality=false", "top_words=3")  # fewer than top_n = 10
    fits = topics_model.fit_calls
    result, message = resume_message(config_path)
    assert (result.n_run, topics_model.fit_calls) == (3, fits + 3)
    assert "3 fitted again for what they lack (3 for topic quality: their records keep " \
           "too few top words to score; top_words: N >= topic_quality.top_n keeps enough)" \
           in message
    assert all("topic_quality" in r for r in RecordStore(output_dir).load())


def test_resume_rescores_runs_scored_with_other_settings(config_path, output_dir,
                                                          topics_model):
    run(config_path, "top_words=10")
    fits = topics_model.fit_calls
    result, message = resume_message(config_path, "top_words=10", "topic_quality={top_n: 3}")
    assert (result.n_run, topics_model.fit_calls) == (0, fits)
    assert "3 given topic quality" in message
    assert all(r["topic_quality"]["top_n"] == 3 for r in result.records)
