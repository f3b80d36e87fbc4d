"""What every run leaves beside its labels: assignments joinable to the input, its clusters'
top words, its model (``save_models``), and the notes on preprocessing."""

import csv
import io

import numpy as np
import pytest
from rich.console import Console

from shortclust.config import config_from_mapping
from shortclust.errors import ConfigError
from shortclust.apps.model_files import load_model
from shortclust.pipeline.records import RecordStore
from shortclust.pipeline.runner import run_experiment

COMMON = {"fruit": "apple banana cherry grape", "sport": "goal match team league"}


def write_texts(path, n_short=3):
    """A CSV of ids and texts, two topics; ``n_short`` texts too short for ``ncut``."""
    rows = []
    for i in range(14):
        topic = "fruit" if i % 2 else "sport"
        rows.append((f"d{i}", f"{COMMON[topic]} note{i}", topic))
    for i in range(n_short):
        rows.insert(2 + 3 * i, (f"s{i}", "apple goal", "fruit"))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label"])
        writer.writerows(rows)
    return path, rows


def config(tmp_path, data, **changes):
    raw = {"name": "outputs", "dataset": str(data), "preprocess": "ncut",
           "model": {"name": "gsdmm", "params": {"n_clusters": 4, "max_iter": 5}},
           "runs": 2, "output": str(tmp_path / "out")} | changes
    return config_from_mapping(raw)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def run(experiment, **options):
    console = Console(file=io.StringIO(), width=400)
    result = run_experiment(experiment, console=console, progress=False, **options)
    return result, console.file.getvalue()


def test_assignments_keep_every_input_document_in_order_with_its_id(tmp_path):
    data, rows = write_texts(tmp_path / "texts.csv")
    result, said = run(config(tmp_path, data))
    store = RecordStore(result.output_dir)
    for record in result.records:
        assignments = read_csv(store.assignments_path(record["run_id"]))
        assert [a["id"] for a in assignments] == [row[0] for row in rows]
        assert [a["row"] for a in assignments] == [str(i) for i in range(1, len(rows) + 1)]
        dropped = [a for a in assignments if a["status"] == "dropped"]
        assert [a["id"] for a in dropped] == ["s0", "s1", "s2"] and \
            all(a["cluster"] == "" for a in dropped)
        kept = [int(a["cluster"]) for a in assignments if a["status"] == "ok"]
        assert kept == store.read_labels(record["run_id"])  # the labels, joined back
        probabilities = [float(a["probability"]) for a in assignments if a["status"] == "ok"]
        assert all(0 < p <= 1 for p in probabilities)
    assert f"preprocessing 'ncut' dropped 3 of {len(rows)} documents (fewer than 4 words" \
        in said and "assignments/<run_id>.csv" in said


def test_clusters_files_give_sizes_and_top_words_and_records_stay_as_they_were(tmp_path):
    data, rows = write_texts(tmp_path / "texts.csv")
    result, _ = run(config(tmp_path, data))
    record = result.records[0]
    clusters = read_csv(RecordStore(result.output_dir).clusters_path(record["run_id"]))
    assert sum(int(c["size"]) for c in clusters) == record["n_docs"] == len(rows) - 3
    assert len(clusters) == record["n_clusters"]
    for cluster in clusters:
        words, weights = cluster["top_words"].split(), cluster["weights"].split()
        assert len(words) == len(weights) == min(10, len(result.corpus.vocabulary))
        assert [float(w) for w in weights] == sorted(map(float, weights), reverse=True)
    # The record has top words only when the config asks (the reproductions' records).
    assert "top_words" not in record and "cluster_sizes" not in record
    asked, _ = run(config(tmp_path, data, top_words=3, output=str(tmp_path / "asked")))
    assert len(asked.records[0]["top_words"][0]) == 3


def test_a_model_without_top_words_still_gets_its_cluster_sizes(tmp_path, fake_model):
    data, rows = write_texts(tmp_path / "texts.csv", n_short=0)
    experiment = config(tmp_path, data, preprocess="none",
                        model={"name": "fake", "params": {"n_clusters": 3}})
    result, _ = run(experiment)
    clusters = read_csv(RecordStore(result.output_dir).clusters_path(
        result.records[0]["run_id"]))
    assert sum(int(c["size"]) for c in clusters) == len(rows)
    assert {c["top_words"] for c in clusters} == {""}
    assignments = read_csv(RecordStore(result.output_dir).assignments_path(
        result.records[0]["run_id"]))
    assert "probability" not in assignments[0]  # the fake has no predict_proba


def test_save_models_keeps_each_runs_model_with_its_words_and_pipeline(tmp_path):
    data, _ = write_texts(tmp_path / "texts.csv")
    result, _ = run(config(tmp_path, data), save_models=True)
    store = RecordStore(result.output_dir)
    for record in result.records:
        saved = load_model(store.model_path(record["run_id"]))
        assert saved.name == "gsdmm" and saved.vocabulary == result.corpus.vocabulary
        assert saved.preprocess["name"] == "ncut" and saved.preprocess["min_doc_words"] == 4
        assert saved.header["training"]["run_id"] == record["run_id"]
        assert saved.model.random_state == record["seed"]
        assert saved.model.labels_.tolist() == store.read_labels(record["run_id"])


def test_without_save_models_no_model_is_written(tmp_path):
    data, _ = write_texts(tmp_path / "texts.csv")
    result, _ = run(config(tmp_path, data))
    assert not (result.output_dir / "models").exists()


def test_resume_with_save_models_refits_a_run_whose_model_is_gone(tmp_path):
    data, _ = write_texts(tmp_path / "texts.csv")
    experiment = config(tmp_path, data)
    first, _ = run(experiment, save_models=True)
    store = RecordStore(first.output_dir)
    gone = store.model_path(first.records[1]["run_id"])
    gone.unlink()
    assert run(experiment, resume=True)[0].n_run == 0  # models not asked for: nothing to do
    again, said = run(experiment, resume=True, save_models=True)
    assert again.n_run == 1 and gone.is_file()
    assert "1 fitted again for a missing labels or model file" in said


@pytest.mark.parametrize("changes, fragment", [
    ({"model": {"name": "hac", "params": {"n_clusters": 2}}}, "model 'hac' has no predict"),
    ({"representation": "tfidf", "model": {"name": "kmeans", "params": {"n_clusters": 2}}},
     "representation 'tfidf' gives other features"),
])
def test_save_models_of_a_model_that_cannot_assign_new_texts_is_refused(tmp_path, changes,
                                                                        fragment):
    data, _ = write_texts(tmp_path / "texts.csv")
    with pytest.raises(ConfigError, match=fragment):
        run(config(tmp_path, data, **changes), save_models=True)
    assert not (tmp_path / "out").exists()


def test_auto_preprocessing_of_a_file_says_what_it_chose(tmp_path):
    data, _ = write_texts(tmp_path / "texts.csv", n_short=0)
    tokenised, said = run(config(tmp_path, data, preprocess="auto"))
    assert tokenised.corpus.preprocess == "none"
    assert "looks tokenised already" in said and "--set preprocess=NAME" in said
    raw = tmp_path / "raw.csv"
    raw.write_text(data.read_text().replace("apple", "Apple!"), encoding="utf-8")
    result, said = run(config(tmp_path, raw, preprocess="auto", output=str(tmp_path / "r")))
    assert result.corpus.preprocess == "basic" and "looks like raw text" in said
    assert np.all(result.corpus.doc_lengths > 0)
