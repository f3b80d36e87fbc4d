"""run_experiment(jobs=N): runs fitted by worker processes give the same labels and records.

Process pools start slowly, so two tests use a real loky pool; the others replace the pool
with an in-process stand-in that runs each task at submission (same code path otherwise).
"""

from concurrent.futures import Future

import joblib
import numpy as np
import pytest

from tests.pipeline.fake_estimators import write_config
from shortclust.config import load_config
from shortclust.pipeline import executors
from shortclust.pipeline.fitting import RunContext
from shortclust.pipeline.records import RecordStore
from shortclust.pipeline.runner import ExperimentInterrupted, resolve_jobs, run_experiment

# Measured, so different in every run: wall and CPU seconds, peak memory, the time.
TIMING = ("fit_seconds", "fit_cpu_seconds", "fit_peak_mb", "timestamp")


def run(config_path, *overrides, **options):
    return run_experiment(load_config(config_path, list(overrides)), quiet=True, **options)


def by_run_id(records):
    return {r["run_id"]: {k: v for k, v in r.items() if k not in TIMING} for r in records}


def labels_of(output_dir, records):
    store = RecordStore(output_dir)
    return {r["run_id"]: store.read_labels(r["run_id"]) for r in records}


def without_timing(summary):
    return summary[[c for c in summary.columns if "fit_seconds" not in c]]


class InlinePool:
    """Stands in for the loky pool: one in-process 'worker', each task run at submit."""

    instances = []

    def __init__(self, workers, context, warm_params):
        self.workers, self.shut = workers, None
        executors.setup_worker(context, warm_params)
        InlinePool.instances.append(self)

    def submit(self, fn, *args):
        future = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt too, as a worker's
            future.set_exception(exc)
        return future

    def shutdown(self, wait=True, kill_workers=False):
        self.shut = (wait, kill_workers)


@pytest.fixture
def inline_pool(monkeypatch):
    InlinePool.instances = []
    monkeypatch.setattr(executors, "worker_pool", InlinePool)
    return InlinePool


def test_resolve_jobs(monkeypatch):
    import joblib

    monkeypatch.setattr(joblib, "cpu_count", lambda: 8)
    assert [resolve_jobs(n) for n in (1, 3, 0, -1, -2, -20)] == [1, 3, 8, 8, 7, 1]


def test_two_worker_processes_match_one_process_then_resume(tmp_path, config_path, fake_model):
    sequential = run(config_path, "runs=4", f"output={tmp_path / 'seq'}")
    run(config_path, "runs=2", f"output={tmp_path / 'par'}")
    parallel = run(config_path, "runs=4", f"output={tmp_path / 'par'}", jobs=2, resume=True)
    assert (parallel.n_run, parallel.n_skipped) == (2, 2)
    assert by_run_id(parallel.records) == by_run_id(sequential.records)
    assert labels_of(tmp_path / "par", parallel.records) == \
        labels_of(tmp_path / "seq", sequential.records)
    assert [r["seed"] for r in parallel.records] == [0, 1, 2, 3]  # listed in plan order
    assert without_timing(parallel.summary).equals(without_timing(sequential.summary))
    assert fake_model.fit_calls == 6  # the two resumed fits happened in other processes


def test_real_gsdmm_in_two_workers_matches_one_process(tmp_path, corpus_path):
    config = write_config(tmp_path / "gsdmm.yaml", corpus_path, tmp_path / "seq", runs=3,
                          model={"name": "gsdmm",
                                 "params": {"n_clusters": 6, "max_iter": 5, "beta": 0.1}},
                          sweep={"alpha": [0.1, 0.5]})
    points = [{"alpha": 0.1}, {"alpha": 0.5}]
    sequential = run(config, points=points)
    parallel = run(config, f"output={tmp_path / 'par'}", points=points, jobs=2)
    assert parallel.n_run == 6
    assert by_run_id(parallel.records) == by_run_id(sequential.records)
    assert labels_of(tmp_path / "par", parallel.records) == \
        labels_of(tmp_path / "seq", sequential.records)


def test_dct_with_threads_gives_the_same_labels_with_any_jobs(tmp_path, corpus_path):
    # Workers run numba on one thread (WORKER_ENV), this process on up to two: the
    # parallel sweep's labels depend on its blocks, not on the threads that ran them.
    from shortclust.models.dmm import dct

    n_clusters = 20000  # 12 short documents: enough topics to pass the parallel threshold
    assert 30 * n_clusters >= dct.PARALLEL_MIN_WORK
    config = write_config(tmp_path / "dct.yaml", corpus_path, tmp_path / "seq", runs=2,
                          model={"name": "dct", "params": {"n_clusters": n_clusters,
                                                           "max_iter": 3, "threads": 2}})
    sequential = run(config)
    parallel = run(config, f"output={tmp_path / 'par'}", jobs=2)
    assert by_run_id(parallel.records) == by_run_id(sequential.records)
    assert labels_of(tmp_path / "par", parallel.records) == \
        labels_of(tmp_path / "seq", sequential.records)


def test_gsdmm_with_threads_gives_the_same_labels_with_any_jobs(tmp_path, corpus_path):
    # As DCT's above; 3 sweeps: the sequential first one, then two in blocks.
    config = write_config(tmp_path / "gsdmm.yaml", corpus_path, tmp_path / "seq", runs=2,
                          model={"name": "gsdmm", "params": {"n_clusters": 8, "max_iter": 3,
                                                             "threads": 2}})
    sequential = run(config)
    parallel = run(config, f"output={tmp_path / 'par'}", jobs=2)
    assert by_run_id(parallel.records) == by_run_id(sequential.records)
    assert labels_of(tmp_path / "par", parallel.records) == \
        labels_of(tmp_path / "seq", sequential.records)


def test_jobs_are_capped_by_the_runs_to_do(config_path, inline_pool, monkeypatch):
    monkeypatch.setattr(joblib, "cpu_count", lambda: 8)
    run(config_path, "runs=1", jobs=4)
    assert inline_pool.instances == []  # one run: fitted here, no pool
    run(config_path, "runs=3", jobs=8)
    (pool,) = inline_pool.instances
    assert pool.workers == 3 and pool.shut == (True, False)


def test_jobs_are_capped_by_the_cores(config_path, inline_pool, monkeypatch):
    monkeypatch.setattr(joblib, "cpu_count", lambda: 2)
    assert [resolve_jobs(n) for n in (1, 2, 3, 999, 0)] == [1, 2, 2, 2, 2]
    run(config_path, "runs=3", jobs=999)
    (pool,) = inline_pool.instances
    assert pool.workers == 2


def test_a_sweep_passes_its_jobs_to_the_runner(config_path, inline_pool):
    from shortclust.config import load_config
    from shortclust.pipeline.sweep import run_sweep

    run_sweep(load_config(config_path), "alpha", [0.1, 0.2], quiet=True, jobs=2)
    assert len(inline_pool.instances) == 1
    run(config_path)  # the default is one process: no pool
    assert len(inline_pool.instances) == 1


def test_each_worker_warms_up_once_untimed(config_path, fake_model, inline_pool):
    run(config_path, jobs=2)
    assert (fake_model.warm_up_fits, fake_model.fit_calls) == (1, 3)


def test_interrupt_keeps_finished_runs_and_stops_the_workers(config_path, output_dir,
                                                              fake_model, inline_pool):
    fake_model.interrupt_on_fit = 2
    with pytest.raises(ExperimentInterrupted) as caught:
        run(config_path, jobs=2)
    # Run 1 was written before run 2 failed; run 3 had finished and is written too.
    assert (caught.value.n_done, caught.value.n_total) == (2, 3)
    records = RecordStore(output_dir).load()
    assert sorted(r["seed"] for r in records) == [0, 2]
    assert inline_pool.instances[0].shut == (False, True)
    for record in records:
        assert (output_dir / "labels" / f"{record['run_id']}.txt").is_file()
    assert (output_dir / "summary.md").is_file()
    fake_model.interrupt_on_fit = None
    resumed = run(config_path, jobs=2, resume=True)
    assert (resumed.n_run, resumed.n_skipped) == (1, 2)


def test_a_failing_run_propagates_after_writing_finished_ones(config_path, output_dir,
                                                             monkeypatch, inline_pool):
    original = RunContext.fit

    def fail_on_seed_1(self, run, callback):
        if run.seed == 1:
            raise RuntimeError("model blew up")
        return original(self, run, callback)

    monkeypatch.setattr(RunContext, "fit", fail_on_seed_1)
    with pytest.raises(RuntimeError, match="blew up"):
        run(config_path, jobs=2)
    assert sorted(r["seed"] for r in RecordStore(output_dir).load()) == [0, 2]


def test_worker_environment_limits_threads():
    assert executors.WORKER_ENV["OMP_NUM_THREADS"] == "1"
    assert executors.WORKER_ENV["OPENBLAS_NUM_THREADS"] == "1"
    assert np.all([value == "1" for value in executors.WORKER_ENV.values()])
