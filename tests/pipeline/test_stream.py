"""Stream experiments on small synthetic streams: batching, records, outputs, resume, jobs,
representations, bad sections. They run through the one run pipeline (run_experiment)."""

import json

import numpy as np
import pytest
import yaml

from shortclust.config import load_config
from shortclust.errors import ConfigError
from shortclust.evaluation.metrics import evaluate
from shortclust.pipeline.records import RecordStore
from shortclust.pipeline.batches import StreamSpec, make_batches, stream_order
from shortclust.pipeline.runner import run_experiment

TOPICS = {
    "fruit": ["apple", "banana", "pear", "plum", "fig", "grape"],
    "code": ["python", "bug", "compile", "test", "merge", "branch"],
    "sport": ["goal", "match", "league", "referee", "cup", "team"],
}
N_DOCS = 36


def stream_documents(times="positions"):
    """36 documents whose topic changes over time, written in a shuffled file order.

    Document i (in time order) has topic ``i * 3 // 36``. ``times`` is ``"positions"``
    (integer times 0..35, two documents sharing each even time), ``"iso"`` (one
    document every 4 hours from 2024-01-01) or ``None`` (no times).
    """
    rng = np.random.default_rng(0)
    names = list(TOPICS)
    docs = []
    for i in range(N_DOCS):
        topic = names[i * len(names) // N_DOCS]
        doc = {"text": " ".join(rng.choice(TOPICS[topic], size=4)), "label": topic}
        if times == "positions":
            doc["time"] = i - i % 2  # ties: a stable sort must keep file order
        elif times == "iso":
            doc["time"] = f"2024-01-{1 + i // 6:02d}T{(i % 6) * 4:02d}:00:00Z"
        docs.append(doc)
    return [docs[i] for i in rng.permutation(N_DOCS)]


def write_stream_config(tmp_path, stream, times="positions", runs=2, **top):
    """A JSONL stream corpus and a GSDMM stream config over it; returns the config path."""
    corpus = tmp_path / "stream.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in stream_documents(times)))
    config = {
        "name": "stream_test", "dataset": str(corpus), "preprocess": "none",
        "model": {"name": "gsdmm", "params": {"n_clusters": 10, "alpha": 0.1, "beta": 0.1,
                                             "max_iter": 5}},
        "stream": stream, "runs": runs, "output": str(tmp_path / "out"), **top,
    }
    path = tmp_path / "stream.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def run(path, *overrides, **options):
    return run_experiment(load_config(path, list(overrides)), quiet=True, **options)


# --------------------------------------------------------------------------------------------
# batching


def test_count_batches_follow_time_order_and_batch_size(tmp_path):
    result = run(write_stream_config(tmp_path, {"batch_by": "count", "batch_size": 10}))
    records = RecordStore(result.output_dir).load()
    assert [r["seed"] for r in records] == [0, 1]
    batches = records[0]["batches"]
    assert [b["n_docs"] for b in batches] == [10, 10, 10, 6]
    assert [(b["start"], b["end"]) for b in batches] == [(0, 8), (10, 18), (20, 28), (30, 34)]
    assert records[0]["stream"] == {"batch_by": "count", "batch_size": 10}


def test_n_batches_gives_equal_batches(tmp_path):
    result = run(write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 5}))
    sizes = [b["n_docs"] for b in result.records[0]["batches"]]
    assert sizes == [8, 7, 7, 7, 7]


def test_time_batches_over_integer_positions(tmp_path):
    result = run(write_stream_config(tmp_path, {"batch_by": "time", "window": 12}))
    batches = result.records[0]["batches"]
    assert [(b["start"], b["end"], b["n_docs"]) for b in batches] == [
        (0, 12, 12), (12, 24, 12), (24, 36, 12)]


def test_time_batches_over_timestamps_skip_empty_windows(tmp_path):
    # Six documents a day over six days; 2-day windows from the first time.
    path = write_stream_config(tmp_path, {"batch_by": "time", "window": "2d"}, times="iso")
    batches = run(path).records[0]["batches"]
    assert [b["n_docs"] for b in batches] == [12, 12, 12]
    assert batches[1]["start"] == "2024-01-03T00:00:00Z"
    assert batches[1]["end"] == "2024-01-05T00:00:00Z"


def test_empty_windows_are_skipped():
    from shortclust.data.corpus import Corpus

    corpus = Corpus.from_texts(["a b", "b c", "c d", "d e"], times=[0, 1, 10, 11])
    spec = StreamSpec(batch_by="time", window=3)
    batches = make_batches(spec, corpus, stream_order(corpus))
    assert [(b.start, b.stop, b.first, b.last) for b in batches] == [(0, 2, 0, 3), (2, 4, 9, 12)]


def test_stream_order_is_stable_by_time():
    from shortclust.data.corpus import Corpus

    corpus = Corpus.from_texts(["a", "b", "c", "d"], times=[5, 1, 5, 1])
    assert stream_order(corpus).tolist() == [1, 3, 0, 2]


# --------------------------------------------------------------------------------------------
# what is recorded


def test_series_are_consistent_with_the_labels_written(tmp_path):
    result = run(write_stream_config(tmp_path, {"batch_by": "count", "batch_size": 12},
                                     runs=1))
    record = result.records[0]
    store = RecordStore(result.output_dir)
    labels = np.array(store.read_labels(record["run_id"]))  # document (file) order
    docs = stream_documents()
    truth = [d["label"] for d in docs]
    order = np.argsort([d["time"] for d in docs], kind="stable")
    metrics = list(record["metrics"])
    assert record["metrics"] == pytest.approx(evaluate(truth, labels, metrics=metrics))
    for batch in record["batches"]:
        rows = order[(batch["batch"] - 1) * 12: batch["batch"] * 12]
        # Earlier documents never move, so the final labels score each batch as it was.
        expected = evaluate([truth[i] for i in rows], labels[rows], metrics=metrics)
        # Each batch holds one class: the metrics undefined there are None.
        assert batch["one_class"] is True
        expected = {m: None if m in ONE_CLASS_UNDEFINED else v for m, v in expected.items()}
        assert {m: v for m, v in batch["prequential"].items() if v is None} == {
            m: v for m, v in expected.items() if v is None}
        assert {m: v for m, v in batch["prequential"].items() if v is not None} == \
            pytest.approx({m: v for m, v in expected.items() if v is not None})
    assert record["batches"][-1]["cumulative"] == pytest.approx(record["metrics"])
    assert record["n_clusters"] == record["batches"][-1]["n_clusters"]
    assert record["n_iter"] == 5 + 2 * 2  # max_iter, then partial_iter per later batch
    assert set(record["batch_fit"]) == {"metrics", "n_clusters", "fit_seconds"}
    assert all(set(b["batch_fit"]) == set(metrics) for b in record["batches"])


def test_table_figure_and_summary_are_written(tmp_path):
    result = run(write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3}))
    out = result.output_dir
    assert (out / "stream.png").stat().st_size > 0
    assert result.stream_paths["png"] == out / "stream.png"
    assert (out / "summary.csv").is_file() and list(result.summary["runs"]) == [2]
    table = result.stream_table
    assert list(table["batch"]) == [1, 2, 3] and list(table["runs"]) == [2, 2, 2]
    # Purity: each batch holds one class here, where NMI is undefined (see below).
    first = [r["batches"][0]["prequential"]["purity"] for r in result.records]
    assert table.loc[0, "prequential_purity_mean"] == pytest.approx(np.mean(first))
    assert table.loc[0, "prequential_purity_std"] == pytest.approx(np.std(first, ddof=1))
    assert {"batch_fit_nmi_mean", "cumulative_ari_std", "seconds_mean"} <= set(table.columns)
    assert (out / "stream.csv").read_text().splitlines()[0].startswith("batch,n_docs,start,end")


def test_same_seed_same_labels(tmp_path):
    stream = {"batch_by": "count", "batch_size": 10}
    first = run(write_stream_config(tmp_path, stream, runs=1), f"output={tmp_path / 'a'}")
    second = run(write_stream_config(tmp_path, stream, runs=1), f"output={tmp_path / 'b'}")
    run_id = first.records[0]["run_id"]
    assert second.records[0]["run_id"] == run_id
    assert (RecordStore(tmp_path / "a").read_labels(run_id)
            == RecordStore(tmp_path / "b").read_labels(run_id))


def test_partial_iter_from_the_stream_section_reaches_the_model(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3,
                                          "partial_iter": 0}, runs=1)
    record = run(path).records[0]
    assert record["params"]["partial_iter"] == 0
    assert [b["n_iter"] for b in record["batches"]] == [5, 0, 0]


def test_a_hybrid_model_gets_the_streams_length_and_its_offline_steps(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 4}, runs=1)
    model = ("model={name: movmf, params: {n_clusters: 3, offline_every: 0.5}}")
    record = run(path, model, "representation=tfidf").records[0]
    assert record["params"]["stream_length"] == N_DOCS
    given = run(path, model, "representation=tfidf", "model.params.stream_length=20",
                "output=" + str(tmp_path / "given")).records[0]
    assert given["params"]["stream_length"] == 20  # a value the config gives is kept
    with pytest.raises(ConfigError, match="offline_every needs stream_length .* add a stream"):
        run(path, model, "representation=tfidf", "stream=null")


def test_resume_skips_finished_seeds(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "batch_size": 10})
    run(path, "runs=2")
    result = run(path, "runs=3", resume=True)
    assert (result.n_skipped, result.n_run) == (2, 1)
    assert [r["seed"] for r in result.records] == [0, 1, 2]
    assert list(result.stream_table["runs"]) == [3] * 4


def test_unlabelled_stream_records_no_metrics_and_draws_no_figure(tmp_path):
    corpus = tmp_path / "plain.jsonl"
    corpus.write_text("".join(json.dumps({"text": d["text"], "time": d["time"]}) + "\n"
                              for d in stream_documents()))
    path = write_stream_config(tmp_path, {"batch_by": "count", "batch_size": 12}, runs=1)
    result = run(path, f"dataset={corpus}")
    record = result.records[0]
    assert record["metrics"] is None and record["batches"][0]["prequential"] is None
    assert result.stream_paths["png"] is None and (result.output_dir / "stream.csv").is_file()


# --------------------------------------------------------------------------------------------
# bad stream sections


@pytest.mark.parametrize("stream, fragment", [
    ({}, "stream section is empty"),
    ({"batch_by": "size", "batch_size": 5}, "batch_by is 'size'"),
    ({"batch_size": 5}, "batch_by is missing"),
    ({"batch_by": "count", "batchsize": 5}, "did you mean 'batch_size'"),
    ({"batch_by": "count"}, "needs batch_size"),
    ({"batch_by": "count", "batch_size": 5, "n_batches": 3}, "not both"),
    ({"batch_by": "count", "batch_size": 5, "window": 3}, "window applies to batch_by: time"),
    ({"batch_by": "time"}, "needs window"),
    ({"batch_by": "time", "window": 3, "n_batches": 2}, "n_batches applies to batch_by: count"),
    ({"batch_by": "time", "window": "1 fortnight"}, "duration"),
    ({"batch_by": "time", "window": 0}, "window must be"),
    ({"batch_by": "count", "batch_size": 0}, "batch_size must be an integer >= 1"),
    ({"batch_by": "count", "batch_size": True}, "batch_size must be an integer"),
    ({"batch_by": "count", "n_batches": 2.5}, "n_batches must be an integer"),
    ({"batch_by": "count", "n_batches": 2, "partial_iter": -1}, "partial_iter must be"),
    ({"batch_by": "count", "n_batches": 40}, "exceeds the 36 documents"),
    ({"batch_by": "time", "window": "6h"}, "integer stream positions"),
])
def test_bad_stream_sections_are_one_line_config_errors(tmp_path, stream, fragment):
    with pytest.raises(ConfigError, match=fragment) as error:
        run(write_stream_config(tmp_path, stream))
    assert "\n" not in str(error.value)
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_position_window_on_timestamps_is_refused(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "time", "window": 5}, times="iso")
    with pytest.raises(ConfigError, match="has timestamps: give a duration"):
        run(path)


def test_time_batching_needs_times(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "time", "window": 5}, times=None)
    with pytest.raises(ConfigError, match="has none: use batch_by: count"):
        run(path)


def test_partial_iter_set_twice_is_refused(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 2,
                                          "partial_iter": 1})
    with pytest.raises(ConfigError, match="set in both stream and model.params"):
        run(path, "model.params.partial_iter=3")


def test_a_model_without_partial_fit_is_refused(tmp_path, fake_model):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 2})
    with pytest.raises(ConfigError, match="has no partial_fit"):
        run(path, "model.name=fake", "model.params={}")


def test_shipped_stream_configs_are_valid():
    from pathlib import Path

    from shortclust.pipeline.plan import _param_sets
    from shortclust.models import get_model_class

    root = Path(__file__).resolve().parents[2] / "configs"
    for name, dataset in [("gsdmm_stream_news_t", "MStream-News-T"),
                          ("gsdmm_stream_tweets_t", "MStream-Tweets-T")]:
        config = load_config(root / f"{name}.yaml")
        spec = config.stream_spec
        assert config.dataset == dataset and spec.n_batches == 16 and spec.batch_by == "count"
        (params,) = _param_sets(config, None, spec, get_model_class("gsdmm"), name)
        assert params["partial_iter"] == spec.partial_iter


# --------------------------------------------------------------------------------------------
# one pipeline: jobs, representations, no-fit, metrics added later


def test_two_workers_give_the_same_stream_labels_as_one_process(tmp_path):
    stream = {"batch_by": "count", "n_batches": 3}
    path = write_stream_config(tmp_path, stream, runs=3)
    one = run(path, f"output={tmp_path / 'one'}")
    two = run(path, f"output={tmp_path / 'two'}", jobs=2)
    assert two.n_run == 3 and [r["seed"] for r in two.records] == [0, 1, 2]
    for record in one.records:
        run_id = record["run_id"]
        assert (RecordStore(tmp_path / "two").read_labels(run_id)
                == RecordStore(tmp_path / "one").read_labels(run_id))
    timing = ("fit_seconds", "fit_cpu_seconds", "fit_peak_mb", "timestamp", "batches",
              "batch_fit")
    strip = [{k: v for k, v in r.items() if k not in timing} for r in two.records]
    assert strip == [{k: v for k, v in r.items() if k not in timing} for r in one.records]
    series = [[{k: v for k, v in b.items() if k != "seconds"} for b in r["batches"]]
              for r in two.records]
    assert series == [[{k: v for k, v in b.items() if k != "seconds"} for b in r["batches"]]
                      for r in one.records]


def test_a_stream_feeds_a_vector_model_its_representation(tmp_path, monkeypatch):
    from tests.pipeline.fake_estimators import register_fake_vector_stream_model

    register_fake_vector_stream_model(monkeypatch)
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3}, runs=2)
    # Term counts are refused by this model: the plan says so before anything is written.
    with pytest.raises(ConfigError, match="takes document vectors"):
        run(path, "model.name=fake_vector_stream", "model.params={n_clusters: 3}")
    assert not (tmp_path / "out").exists()
    result = run(path, "model.name=fake_vector_stream", "model.params={n_clusters: 3}",
                 "representation={name: tfidf}")
    record = result.records[0]
    assert record["representation"]["name"] == "tfidf"
    assert len(record["batches"]) == 3 and record["metrics"] is not None
    labels = RecordStore(result.output_dir).read_labels(record["run_id"])
    assert len(labels) == N_DOCS


def test_the_representation_is_part_of_a_stream_run_id(tmp_path, monkeypatch):
    from tests.pipeline.fake_estimators import register_fake_stream_model

    register_fake_stream_model(monkeypatch)
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3}, runs=1)
    change = ["model.name=fake_stream", "model.params={n_clusters: 3}"]
    counts = run(path, *change, f"output={tmp_path / 'c'}").records[0]["run_id"]
    tfidf = run(path, *change, "representation={name: tfidf}",
                f"output={tmp_path / 't'}").records[0]["run_id"]
    assert counts != tfidf


def test_no_fit_collects_stream_runs_without_fitting(tmp_path, monkeypatch):
    from tests.pipeline.fake_estimators import FakeStreamClusterer, register_fake_stream_model

    register_fake_stream_model(monkeypatch)
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3}, runs=2)
    change = ["model.name=fake_stream", "model.params={n_clusters: 3}"]
    fitted = run(path, *change)

    def never(*args, **kwargs):
        raise AssertionError("--no-fit fitted a model")

    monkeypatch.setattr(FakeStreamClusterer, "partial_fit", never)
    monkeypatch.setattr(FakeStreamClusterer, "fit", never)
    again = run(path, *change, "runs=3", fit=False)
    assert again.n_skipped == 2 and again.records == fitted.records


# --------------------------------------------------------------------------------------------
# batches of one class (an event stream)

#: Metrics undefined or degenerate when the documents scored hold one class.
ONE_CLASS_UNDEFINED = {"nmi", "ami", "ari", "homogeneity", "completeness", "v_measure"}


def test_a_batch_of_one_class_records_its_undefined_metrics_as_null(tmp_path):
    # 12 documents per topic in time order: batches of 12 hold one class each.
    result = run(write_stream_config(tmp_path, {"batch_by": "count", "batch_size": 12}))
    for record in RecordStore(result.output_dir).load():
        assert [b.get("one_class") for b in record["batches"]] == [True, True, True]
        for batch in record["batches"]:
            for series in ("prequential", "batch_fit"):
                scores = batch[series]
                assert {m for m, v in scores.items() if v is None} == ONE_CLASS_UNDEFINED
                assert 0 < scores["purity"] <= 1 and 0 < scores["acc"] <= 1
        cumulative = [b["cumulative"]["nmi"] for b in record["batches"]]
        assert cumulative[0] is None and None not in cumulative[1:]  # 2, then 3 classes
        assert None not in record["metrics"].values()
    text = (result.output_dir / "records.jsonl").read_text()
    assert '"nmi": null' in text
    table = result.stream_table
    assert table["prequential_nmi_mean"].isna().all()
    assert list(table["prequential_nmi_runs"]) == [0, 0, 0]  # seeds scored on the batch
    assert "prequential_purity_runs" not in table  # defined everywhere: no count column


def test_the_stream_table_and_report_leave_one_class_batches_out(tmp_path, capsys):
    # 4 batches of 9: the first and the last hold one class, the middle two two classes.
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 4})
    result = run_experiment(load_config(path), progress=False)
    records = result.records
    assert [b.get("one_class", False) for b in records[0]["batches"]] == [
        True, False, False, True]
    table = result.stream_table
    nmi = table["prequential_nmi_mean"]
    assert nmi.isna().tolist() == [True, False, False, True]
    middle = [np.mean([r["batches"][i]["prequential"]["nmi"] for r in records]) for i in (1, 2)]
    assert nmi.mean() == pytest.approx(np.mean(middle))
    assert list(table["prequential_nmi_runs"]) == [0, 2, 2, 0]
    assert table["prequential_purity_mean"].notna().all()
    csv = (result.output_dir / "stream.csv").read_text().splitlines()
    assert "prequential_nmi_runs" in csv[0].split(",")
    message = " ".join(capsys.readouterr().err.split())
    assert "mean per-batch NMI over 2 of 4 batches" in message
    assert "2 batches hold one class (NMI undefined) and are left out" in message
    assert "0.0000" not in message.split("mean per-batch")[1].split(";")[0]


def test_old_stream_records_with_zeros_still_tabulate(tmp_path):
    from shortclust.pipeline.stream import stream_frame

    result = run(write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 4}))
    old = json.loads(json.dumps(result.records))
    for record in old:  # as recorded before: 0.0 for a one-class batch, no one_class key
        for batch in record["batches"]:
            batch.pop("one_class", None)
            for series in ("prequential", "cumulative", "batch_fit"):
                batch[series] = {m: 0.0 if v is None else v for m, v in batch[series].items()}
    table = stream_frame(old)
    first = [r["batches"][0]["prequential"]["nmi"] for r in old]
    assert table["prequential_nmi_mean"].notna().all()
    assert table.loc[0, "prequential_nmi_mean"] == pytest.approx(np.mean(first))
    assert "one_class" not in table and not [c for c in table if c.endswith("_nmi_runs")]


# --------------------------------------------------------------------------------------------
# incremental LDA (Banerjee & Basu, section 3.3) through the pipeline


def test_incremental_lda_streams_through_the_pipeline(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3,
                                          "partial_iter": 4}, runs=2)
    lda = ["model.name=lda", "model.params={n_clusters: 3, alpha: 0.1, beta: 0.01, max_iter: 30}"]
    result = run(path, *lda)
    records = result.records
    assert [r["seed"] for r in records] == [0, 1] and records[0]["params"]["partial_iter"] == 4
    for record in records:
        batches = record["batches"]
        assert [b["n_iter"] for b in batches] == [30, 1, 1]  # window fit, then STREAM passes
        assert [b["n_docs"] for b in batches] == [12, 12, 12]
        labels = RecordStore(result.output_dir).read_labels(record["run_id"])
        assert len(labels) == N_DOCS and set(labels) <= {0, 1, 2}
        assert record["batch_fit"]["n_clusters"] >= 1 and record["metrics"]["purity"] > 0
    again = run(path, *lda, f"output={tmp_path / 'again'}")
    assert [r["run_id"] for r in again.records] == [r["run_id"] for r in records]
    for record in records:
        assert (RecordStore(tmp_path / "again").read_labels(record["run_id"])
                == RecordStore(result.output_dir).read_labels(record["run_id"]))


def test_hybrid_lda_runs_offline_steps_in_a_stream(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3}, runs=1)
    params = "model.params={n_clusters: 3, max_iter: 20, partial_iter: 2, offline_every: 0.5}"
    record = run(path, "model.name=lda", params).records[0]
    assert record["params"]["stream_length"] == N_DOCS  # filled in from the stream
    # OFFLINE steps after 18 and 36 documents: in the second and the third batch.
    assert [b["n_iter"] for b in record["batches"]] == [20, 2, 2]


def test_perplexity_scores_each_batch_under_the_model_of_the_batches_before(tmp_path):
    from shortclust.evaluation.perplexity import perplexity

    stream = {"batch_by": "count", "n_batches": 6}  # two batches per topic
    plain = run(write_stream_config(tmp_path, stream, runs=1)).records[0]
    path = write_stream_config(tmp_path, {**stream, "perplexity": True}, runs=1)
    scored = run(path, f"output={tmp_path / 'scored'}").records[0]
    assert scored["run_id"] != plain["run_id"]
    assert scored["metrics"] == plain["metrics"]  # scoring does not touch the fit
    held = [batch.get("held_out") for batch in scored["batches"]]
    assert held[0] is None
    # a topic's second batch: its words were seen; its first: none were (no perplexity)
    for second in (held[1], held[3], held[5]):
        assert second["perplexity"] > 1 and second["oov_rate"] < 0.5
    for first in (held[2], held[4]):
        assert first == {"perplexity": None, "oov_rate": 1.0, "n_tokens": 0}
    off = write_stream_config(tmp_path, {**stream, "perplexity": False}, runs=1)
    assert run(off, f"output={tmp_path / 'off'}").records[0]["run_id"] == plain["run_id"]
    assert perplexity([1.0], [[1.0]], np.array([[3]])).perplexity == 1.0


def test_perplexity_needs_a_topic_model_on_counts(tmp_path):
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3,
                                          "perplexity": True})
    with pytest.raises(ConfigError, match="gives no topic_proportions_ and topic_word_"):
        run(path, "model.name=edcm", "model.params={n_clusters: 3}")
    with pytest.raises(ConfigError, match="perplexity must be true or false"):
        load_config(write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 3,
                                                    "perplexity": "yes"}))


def test_a_bad_model_parameter_is_refused_before_the_corpus_is_loaded(tmp_path, monkeypatch):
    from shortclust.pipeline import plan

    def never(config, data_dir):
        raise AssertionError("the corpus was loaded before the parameters were checked")

    monkeypatch.setattr(plan, "load_experiment_corpus", never)
    # A stream's partial_iter becomes a model parameter: only the stream section can make
    # it, so it is checked with the parameters the stream completes.
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 2,
                                          "partial_iter": -1})
    with pytest.raises(ConfigError, match="partial_iter"):
        run(path)
    path = write_stream_config(tmp_path, {"batch_by": "count", "n_batches": 2,
                                          "partial_iter": 1})
    with pytest.raises(ConfigError, match="not a parameter of model"):
        run(path, "model.name=dct", "model.params={}")
