"""run_experiment with a fake estimator on a tiny corpus: records, labels, resume, interrupt."""

import json

import numpy as np
import pytest

from tests.pipeline.fake_estimators import (
    LABELS, TEXTS, register_fake_counts_model, write_config, write_corpus,
)
from shortclust.config import load_config
from shortclust.errors import ConfigError, DataError
from shortclust.evaluation.metrics import METRIC_NAMES, evaluate
from shortclust.pipeline.records import RECORD_KEYS, RecordStore
import shortclust.pipeline.runner as runner_module
from shortclust.pipeline.runner import ExperimentInterrupted, run_experiment


def run(config_path, *overrides, **options):
    return run_experiment(load_config(config_path, list(overrides)), quiet=True, **options)


def test_records_labels_and_summary_are_written(config_path, output_dir):
    result = run(config_path)
    assert result.output_dir == output_dir and result.n_run == 3 and result.n_skipped == 0
    records = RecordStore(output_dir).load()
    assert [r["seed"] for r in records] == [0, 1, 2]
    for record in records:
        assert tuple(record)[: len(RECORD_KEYS)] == RECORD_KEYS
        assert set(record["metrics"]) == set(METRIC_NAMES)
        assert record["n_docs"] == len(TEXTS) and record["model"] == "fake"
        assert record["params"] == {"n_clusters": 3, "alpha": 0.5, "max_iter": 2}
        assert record["fit_seconds"] >= 0 and record["n_iter"] == 2
    assert (output_dir / "summary.csv").is_file() and (output_dir / "summary.md").is_file()
    assert list(result.summary["runs"]) == [3]


def test_metrics_are_computed_from_the_models_labels(config_path, output_dir):
    record = run(config_path).records[0]
    labels_file = output_dir / "labels" / f"{record['run_id']}.txt"
    predicted = [int(line) for line in labels_file.read_text().splitlines()]
    assert len(predicted) == len(TEXTS)
    expected_labels = np.random.default_rng(0).integers(0, 3, len(TEXTS))
    assert predicted == expected_labels.tolist()
    codes = {name: code for code, name in enumerate(sorted(set(LABELS)))}
    truth = [codes[label] for label in LABELS]
    assert record["metrics"] == pytest.approx(evaluate(truth, predicted))


def test_same_seed_gives_same_labels_and_run_id(tmp_path, config_path, fake_model):
    first = run(config_path, f"output={tmp_path / 'a'}").records
    second = run(config_path, f"output={tmp_path / 'b'}").records
    assert [r["run_id"] for r in first] == [r["run_id"] for r in second]
    for record in first:
        name = f"labels/{record['run_id']}.txt"
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    assert len({(tmp_path / "a" / f"labels/{r['run_id']}.txt").read_text() for r in first}) > 1


def test_resume_skips_finished_runs(config_path, output_dir, fake_model):
    run(config_path, "runs=2")
    result = run(config_path, "runs=4", resume=True)
    assert (result.n_skipped, result.n_run) == (2, 2)
    assert fake_model.fit_calls == 4
    assert [r["seed"] for r in RecordStore(output_dir).load()] == [0, 1, 2, 3]
    assert run(config_path, "runs=4", resume=True).n_run == 0
    assert fake_model.fit_calls == 4


def test_without_fitting_only_the_recorded_runs_are_returned(config_path, output_dir,
                                                             fake_model, monkeypatch,
                                                             tmp_path):
    run(config_path, "runs=2")
    calls = fake_model.fit_calls
    monkeypatch.setattr(runner_module.RunContext, "from_plan",
                        lambda *_: pytest.fail("features built"))
    result = run(config_path, "runs=4", fit=False)
    assert (result.n_run, result.n_skipped, fake_model.fit_calls) == (0, 2, calls)
    assert [r["seed"] for r in result.records] == [0, 1]
    elsewhere = tmp_path / "never"
    result = run(config_path, f"output={elsewhere}", fit=False)
    assert result.records == [] and not elsewhere.exists()


def test_one_untimed_warm_up_fit_when_there_is_work(config_path, fake_model):
    run(config_path)
    assert (fake_model.warm_up_fits, fake_model.fit_calls) == (1, 3)
    run(config_path, resume=True)
    assert fake_model.warm_up_fits == 1


def test_warm_up_caps_iterations_and_runs_keep_them(config_path, fake_model, monkeypatch):
    """The untimed warm-up only compiles kernels: a huge max_iter must not run there."""
    seen = []
    fit = fake_model.fit

    def spy(self, X, y=None, callback=None):
        seen.append((self.max_iter, callback is not None))
        return fit(self, X, y, callback)

    monkeypatch.setattr(fake_model, "fit", spy)
    result = run(config_path, "model.params.max_iter=5000")
    warm = [max_iter for max_iter, timed in seen if not timed]
    timed = [max_iter for max_iter, timed in seen if timed]
    assert len(warm) == 1 and warm[0] <= 2
    assert timed == [5000] * 3
    assert all(record["n_iter"] == 5000 for record in result.records)


def test_without_resume_old_records_are_moved_aside(config_path, output_dir):
    run(config_path)
    run(config_path, "runs=1")
    backups = list(output_dir.glob("records.*.jsonl.bak"))
    assert len(backups) == 1 and len(backups[0].read_text().splitlines()) == 3
    assert len(RecordStore(output_dir).load()) == 1


def test_interrupt_keeps_finished_records(config_path, output_dir, fake_model):
    fake_model.interrupt_on_fit = 3
    with pytest.raises(ExperimentInterrupted) as caught:
        run(config_path, "runs=5")
    assert (caught.value.n_done, caught.value.n_total, caught.value.exit_code) == (2, 5, 130)
    assert str(caught.value) == "interrupted after 2 of 5 runs; rerun with --resume to continue"
    assert [r["seed"] for r in RecordStore(output_dir).load()] == [0, 1]
    assert len(list((output_dir / "labels").iterdir())) == 2
    fake_model.interrupt_on_fit = None
    assert run(config_path, "runs=5", resume=True).n_run == 3


def test_unlabelled_corpus_records_no_metrics(tmp_path, fake_model, output_dir):
    corpus = write_corpus(tmp_path / "plain.jsonl", labelled=False)
    config_path = write_config(tmp_path / "plain.yaml", corpus, output_dir)
    result = run(config_path)
    assert all(record["metrics"] is None for record in result.records)
    assert "Metrics omitted" in (output_dir / "summary.md").read_text()


@pytest.mark.parametrize("override, error", [
    ("dataset=no-such-dataset", DataError),
    ("dataset=missing.jsonl", DataError),
])
def test_problems_are_found_before_anything_is_written(config_path, output_dir, override, error):
    config = load_config(config_path, [override])
    with pytest.raises(error):
        run_experiment(config, quiet=True)
    assert not output_dir.exists()


def test_run_ignores_a_declared_sweep_grid(config_path, output_dir):
    result = run(config_path, "sweep={alpha: [0.1, 0.2]}")
    assert {r["params"]["alpha"] for r in result.records} == {0.5}


def test_grid_points_each_run_every_seed(config_path, output_dir):
    config = load_config(config_path)
    result = run_experiment(config, quiet=True, points=[{"alpha": 0.1}, {"alpha": 0.2}])
    pairs = [(r["params"]["alpha"], r["seed"]) for r in result.records]
    assert pairs == [(0.1, 0), (0.1, 1), (0.1, 2), (0.2, 0), (0.2, 1), (0.2, 2)]
    assert len({r["run_id"] for r in result.records}) == 6


def test_a_bad_grid_point_stops_the_sweep_before_any_fit(config_path, output_dir):
    config = load_config(config_path)
    with pytest.raises(ConfigError, match="at alpha=-1"):
        run_experiment(config, quiet=True, points=[{"alpha": 0.1}, {"alpha": -1}])
    assert not output_dir.exists()


def test_runner_checks_params_again(config_path, output_dir):
    config = load_config(config_path)
    config.model.params["alpha"] = -1  # e.g. a config built in code, not by load_config
    with pytest.raises(ConfigError, match="alpha"):
        run_experiment(config, quiet=True)
    assert not output_dir.exists()


def test_output_that_is_a_file_is_a_config_error(config_path, output_dir):
    output_dir.write_text("not a directory")
    with pytest.raises(ConfigError, match="is a file"):
        run(config_path)


def test_output_that_cannot_be_created_fails_before_any_fit(config_path, tmp_path, fake_model):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ConfigError, match="cannot create it .* choose another directory"):
        run(config_path, f"output={tmp_path / 'a-file' / 'out'}")
    assert fake_model.fit_calls == 0 and fake_model.warm_up_fits == 0


def test_corrupt_records_stop_a_resume_before_writing(config_path, output_dir):
    output_dir.mkdir()
    (output_dir / "records.jsonl").write_text("garbage\n")
    with pytest.raises(DataError, match="line 1"):
        run(config_path, resume=True)
    assert sorted(p.name for p in output_dir.iterdir()) == ["records.jsonl"]


def test_records_file_holds_only_whole_json_lines(config_path, output_dir):
    run(config_path)
    text = (output_dir / "records.jsonl").read_text()
    assert text.endswith("\n")
    assert all(isinstance(json.loads(line), dict) for line in text.splitlines())


def test_labels_are_written_before_the_record(config_path, output_dir, monkeypatch):
    def fail(self, run_id, labels):
        raise OSError("disk full")

    monkeypatch.setattr(RecordStore, "write_labels", fail)
    with pytest.raises(OSError):
        run(config_path)
    assert not (output_dir / "records.jsonl").exists()


def test_a_model_declaring_fit_counts_also_gets_the_corpus_counts(tmp_path, corpus_path,
                                                                      monkeypatch):
    from shortclust.data import load_corpus

    model = register_fake_counts_model(monkeypatch)
    path = write_config(tmp_path / "counts.yaml", corpus_path, tmp_path / "out", runs=2,
                        model={"name": "fake_counts", "params": {"n_clusters": 3}},
                        representation={"name": "tfidf"})
    run(path)
    expected = load_corpus(str(corpus_path), preprocess="none").counts
    timed = [seen for seen in model.seen if seen[2]]
    assert len(timed) == 2 and len(model.seen) == 3  # two runs and the warm-up
    for X, counts, _ in model.seen:
        assert np.issubdtype(X.dtype, np.floating)  # the representation: TF-IDF
        assert np.issubdtype(counts.dtype, np.integer) and counts.shape == expected.shape
        assert (counts != expected).nnz == 0
    # The fake model of the other tests has no counts parameter and is not given one.


def test_adding_a_metric_keeps_run_ids_and_computes_it_from_stored_labels(
        config_path, output_dir, fake_model):
    first = run(config_path, "metrics=[nmi]")
    assert all(set(r["metrics"]) == {"nmi"} for r in first.records)
    fits = fake_model.fit_calls
    again = run(config_path, "metrics=[nmi, ari, ami_max]", resume=True)
    assert [r["run_id"] for r in again.records] == [r["run_id"] for r in first.records]
    assert (again.n_run, again.n_skipped, fake_model.fit_calls) == (0, 3, fits)
    store = RecordStore(output_dir)
    for record in store.load():
        labels = store.read_labels(record["run_id"])
        truth = [sorted(set(LABELS)).index(label) for label in LABELS]
        assert record["metrics"] == pytest.approx(
            evaluate(truth, labels, metrics=["nmi", "ari", "ami_max"]))
    assert "ami_max" in (output_dir / "summary.md").read_text()


def test_a_run_lacking_a_metric_and_its_labels_is_fitted_again(config_path, output_dir,
                                                                fake_model):
    first = run(config_path, "metrics=[nmi]")
    (output_dir / "labels" / f"{first.records[1]['run_id']}.txt").unlink()
    again = run(config_path, "metrics=[nmi, ari]", resume=True)
    assert (again.n_run, again.n_skipped) == (1, 2)
    records = RecordStore(output_dir).load()
    assert len(records) == 3 and all(set(r["metrics"]) == {"nmi", "ari"} for r in records)


def test_a_recorded_run_whose_labels_file_is_gone_is_fitted_again(config_path, output_dir,
                                                                  fake_model, capsys):
    first = run(config_path)
    gone = first.records[1]["run_id"]
    (output_dir / "labels" / f"{gone}.txt").unlink()
    fits = fake_model.fit_calls
    capsys.readouterr()
    again = run_experiment(load_config(config_path), resume=True, progress=False)
    assert (again.n_run, again.n_skipped) == (1, 2)
    assert fake_model.fit_calls == fits + 1
    assert (output_dir / "labels" / f"{gone}.txt").is_file()
    assert [r["run_id"] for r in RecordStore(output_dir).load()].count(gone) == 1
    message = " ".join(capsys.readouterr().err.split())  # the console wraps lines
    assert "2 of 3 runs already recorded, 1 to run" in message
    assert "1 fitted again for a missing labels file" in message


def test_an_archived_run_needs_no_labels_file(config_path, output_dir, tmp_path, fake_model):
    from shortclust.pipeline.records import read_archive

    archive = tmp_path / "archive" / "fake.json"
    archive.parent.mkdir()
    first = run(config_path, archive=archive)
    assert len(read_archive(archive)) == 3
    for record in first.records:  # archived records never come with labels
        (output_dir / "labels" / f"{record['run_id']}.txt").unlink()
    fits = fake_model.fit_calls
    again = run(config_path, resume=True, archive=archive)
    assert (again.n_run, again.n_skipped, fake_model.fit_calls) == (0, 3, fits)
    # A fresh work directory: every run comes from the archive alone.
    fresh = run(config_path, f"output={tmp_path / 'fresh'}", resume=True, archive=archive)
    assert (fresh.n_run, fresh.n_skipped, fake_model.fit_calls) == (0, 3, fits)


@pytest.mark.parametrize("grid", [[0.1, 0.1], [1, 1.0]])
def test_a_grid_value_listed_twice_is_refused_before_any_fit(config_path, output_dir, grid):
    config = load_config(config_path)
    with pytest.raises(ConfigError, match="are the same setting: list each value once"):
        run_experiment(config, quiet=True, points=[{"alpha": value} for value in grid])
    assert not output_dir.exists()


def test_a_changed_dataset_file_stops_a_resume(config_path, output_dir, corpus_path):
    run(config_path)
    with open(corpus_path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"text": "one more fruit", "label": "fruit"}) + "\n")
    with pytest.raises(DataError, match="fitted on another copy of dataset"):
        run(config_path, "metrics=[nmi, ari]", resume=True)
    assert len(RecordStore(output_dir).load()) == 3  # nothing rewritten


def test_checks_come_before_an_old_records_file_is_moved_aside(config_path, output_dir):
    run(config_path)
    before = (output_dir / "records.jsonl").read_text()
    with pytest.raises(DataError, match="word-vector file"):
        run(config_path, "representation={name: word_vectors, path: /no/such/vectors.txt}")
    assert (output_dir / "records.jsonl").read_text() == before
    assert not list(output_dir.glob("records.*.bak"))


# --- the output directory is locked while a run writes it --------------------------------------

LOCK_FILE = ".shortclust.lock"


def _hold_lock(directory):
    import fcntl
    import os

    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_locked_output_directory_is_refused_and_nothing_is_written(config_path, output_dir):
    import os

    fd = _hold_lock(output_dir)
    try:
        with pytest.raises(ConfigError, match="another shortclust run") as caught:
            run(config_path)
        assert str(output_dir) in str(caught.value) and "--output" in str(caught.value)
        assert sorted(p.name for p in output_dir.iterdir()) == [LOCK_FILE]
    finally:
        os.close(fd)
    assert run(config_path).n_run == 3  # released: the next run works


def test_the_lock_is_held_while_fitting_and_gone_after(config_path, output_dir, fake_model,
                                                       monkeypatch):
    import fcntl
    import os

    held = []
    fit = fake_model.fit

    def spy(self, X, y=None, callback=None):
        if callback is not None:
            fd = os.open(output_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held.append(False)
            except BlockingIOError:
                held.append(True)
            finally:
                os.close(fd)
        return fit(self, X, y, callback)

    monkeypatch.setattr(fake_model, "fit", spy)
    run(config_path)
    assert held == [True, True, True]
    assert not (output_dir / LOCK_FILE).exists()


def test_no_fit_takes_no_lock(config_path, output_dir):
    import os

    run(config_path)
    fd = _hold_lock(output_dir)
    try:
        assert len(run(config_path, fit=False).records) == 3
    finally:
        os.close(fd)


def test_a_setting_that_cannot_fit_in_memory_is_refused_before_anything(
        tmp_path, corpus_path, output_dir, monkeypatch):
    from shortclust.models.common import memory

    path = write_config(tmp_path / "big.yaml", corpus_path, output_dir, runs=1,
                        model={"name": "gsdmm", "params": {"n_clusters": 50, "max_iter": 2}})
    monkeypatch.setattr(memory, "available_memory", lambda: 1000)  # bytes
    with pytest.raises(ConfigError, match=r"n_clusters=50 needs at least 0\.0 GiB .*lower "
                                          "n_clusters"):
        run(path)
    assert not output_dir.exists()
    monkeypatch.setattr(memory, "available_memory", lambda: None)  # unknown: no check
    assert run(path).n_run == 1


def test_gsdmm_memory_bound_counts_the_word_cluster_table():
    from shortclust.models.dmm.gsdmm import GSDMM

    assert GSDMM.memory_bytes({"n_clusters": 10**8}, 2472, 5098) >= 5098 * 10**8 * 2
    assert GSDMM.memory_bytes({"n_clusters": 10}, 10, None) is None


def test_a_representation_error_leaves_no_output_folder(config_path, output_dir):
    with pytest.raises(DataError, match="word-vector file"):
        run(config_path, "representation={name: word_vectors, path: /no/such/vectors.txt}")
    assert not output_dir.exists()  # the lock file and the folders made for it are gone
