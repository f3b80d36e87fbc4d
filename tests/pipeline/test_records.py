"""Run records: run ids, provenance, whole-line appends, labels files."""

import json
import re
from datetime import datetime

import pytest

from shortclust.errors import DataError
from shortclust.pipeline import records
from shortclust.pipeline.records import (
    RECORD_KEYS,
    RecordStore,
    atomic_write_text,
    make_record,
    make_run_id,
)

IDENTITY = dict(dataset="Tweet", preprocess="none", model="gsdmm",
                params={"alpha": 0.1, "beta": 0.1}, seed=0)


def run_fields(run_id="abc", seed=0, **changes):
    fields = dict(run_id=run_id, config_name="demo", seed=seed, dataset="Tweet",
                  dataset_sha256="0" * 64, preprocess="none", model="gsdmm", params={"alpha": 0.1},
                  metrics={"nmi": 0.5}, n_clusters=3, n_iter=2, fit_seconds=0.01, n_docs=4)
    return fields | changes


def test_run_id_is_16_hex_and_stable():
    run_id = make_run_id(**IDENTITY)
    assert re.fullmatch(r"[0-9a-f]{16}", run_id)
    assert make_run_id(**IDENTITY) == run_id


@pytest.mark.parametrize("change", [
    {"seed": 1}, {"params": {"alpha": 0.2, "beta": 0.1}}, {"dataset": "GoogleNews-T"},
    {"preprocess": "gsdmm"}, {"model": "other"}, {"representation": {"name": "tfidf"}},
    {"stream": {"batch_by": "count", "n_batches": 4}},
])
def test_run_id_changes_with_every_input_that_decides_labels(change):
    assert make_run_id(**(IDENTITY | change)) != make_run_id(**IDENTITY)


def test_run_id_ignores_key_order():
    reordered = IDENTITY | {"params": {"beta": 0.1, "alpha": 0.1}}
    assert make_run_id(**reordered) == make_run_id(**IDENTITY)


@pytest.mark.parametrize("same", [
    None, {"name": "counts"}, {"name": "counts", "path": None, "batch_size": 64, "cache": True},
])
def test_run_id_takes_counts_however_spelled(same):
    assert make_run_id(**IDENTITY, representation=same) == make_run_id(**IDENTITY)


def test_run_id_ignores_how_vectors_are_computed():
    spec = {"name": "sentence_embeddings", "path": None, "batch_size": 64, "cache": True}
    faster = spec | {"batch_size": 256, "cache": False}
    assert make_run_id(**IDENTITY, representation=spec) == make_run_id(
        **IDENTITY, representation=faster)


def test_schema_1_record_gets_the_current_run_id():
    old = make_record(**run_fields(run_id="0123456789abcdef")) | {"schema_version": 1}
    upgraded = records.upgrade_record(old)
    assert upgraded["schema_version"] == records.SCHEMA_VERSION
    assert upgraded["run_id"] == make_run_id("Tweet", "none", "gsdmm", {"alpha": 0.1}, 0)
    assert records.upgrade_record(upgraded) == upgraded


def test_record_has_every_schema_key_in_order():
    record = make_record(**run_fields())
    assert tuple(record) == RECORD_KEYS
    assert record["schema_version"] == records.SCHEMA_VERSION
    assert {"shortclust", "python", "numpy", "scipy", "scikit-learn"} <= set(record["versions"])
    assert datetime.fromisoformat(record["timestamp"]).utcoffset().total_seconds() == 0


def test_record_requires_every_field():
    fields = run_fields()
    del fields["n_docs"]
    with pytest.raises(KeyError, match="n_docs"):
        make_record(**fields)


def test_git_commit_of_this_checkout():
    records.git_commit.cache_clear()
    commit = records.git_commit()
    assert commit == "unknown" or re.fullmatch(r"[0-9a-f]{40}(-dirty)?", commit)


def test_git_commit_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "_PACKAGE_DIR", tmp_path)
    records.git_commit.cache_clear()
    try:
        assert records.git_commit() == "unknown"
    finally:
        records.git_commit.cache_clear()


def test_append_then_load_round_trips(tmp_path):
    store = RecordStore(tmp_path / "out")
    first, second = make_record(**run_fields("a")), make_record(**run_fields("b", seed=1))
    store.append(first)
    store.append(second)
    assert store.load() == [first, second]
    assert store.done_run_ids() == {"a", "b"}
    lines = store.records_path.read_text().splitlines()
    assert [json.loads(line)["run_id"] for line in lines] == ["a", "b"]


def test_nan_metrics_are_written_as_null(tmp_path):
    store = RecordStore(tmp_path)
    store.append(make_record(**run_fields(metrics={"nmi": float("nan")})))
    assert '"nmi": null' in store.records_path.read_text()


def test_truncated_last_line_is_ignored_then_cut(tmp_path):
    store = RecordStore(tmp_path)
    store.append(make_record(**run_fields("a")))
    with open(store.records_path, "a") as handle:
        handle.write('{"run_id": "half-writ')
    assert store.done_run_ids() == {"a"}
    store.append(make_record(**run_fields("b")))
    assert [r["run_id"] for r in store.load()] == ["a", "b"]
    assert "half-writ" not in store.records_path.read_text()


def test_file_holding_only_an_unfinished_line_is_cut_to_nothing(tmp_path):
    store = RecordStore(tmp_path)
    store.records_path.write_text('{"run_id": "half')
    assert store.load() == []
    store.append(make_record(**run_fields("a")))
    assert [r["run_id"] for r in store.load()] == ["a"]
    assert store.records_path.read_text().count("\n") == 1


def test_corrupt_middle_line_is_a_one_line_data_error(tmp_path):
    store = RecordStore(tmp_path)
    store.records_path.write_text('{"run_id": "a"}\nnot json\n{"run_id": "b"}\n')
    with pytest.raises(DataError, match="line 2 is not a run record") as caught:
        store.load()
    assert "\n" not in str(caught.value)


def test_load_without_records_file(tmp_path):
    assert RecordStore(tmp_path / "none").load() == []


def test_labels_one_per_line_no_temp_left(tmp_path):
    store = RecordStore(tmp_path)
    path = store.write_labels("abc", [2, 0, 1, 1])
    assert path == tmp_path / "labels" / "abc.txt"
    assert path.read_text() == "2\n0\n1\n1\n"
    assert store.read_labels("abc") == [2, 0, 1, 1]
    assert [p.name for p in path.parent.iterdir()] == ["abc.txt"]


def test_atomic_write_keeps_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "summary.md"
    target.write_text("old")

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(records.os, "replace", fail)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.md"]


def test_move_aside_renames_records(tmp_path):
    store = RecordStore(tmp_path)
    store.append(make_record(**run_fields("a")))
    first = store.move_aside()
    store.append(make_record(**run_fields("b")))
    second = store.move_aside()
    assert first != second
    for backup in (first, second):
        assert re.fullmatch(r"records\.\d{8}T\d{6}Z(-\d+)?\.jsonl\.bak", backup.name)
    assert not store.exists()
