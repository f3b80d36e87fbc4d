"""run_experiment(cluster=...): runs fitted on a Dask cluster give the same labels and
records (but timings) as runs fitted here, one after another. Skipped without dask."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from shortclust.pipeline import executors
from tests.pipeline.test_parallel import by_run_id, labels_of, run, without_timing

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def importable_tests(monkeypatch):
    """Worker processes import the fake model from tests/: the checkout on their path."""
    paths = [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))


def test_a_sweep_on_a_local_cluster_matches_one_process(tmp_path, config_path,
                                                        importable_tests):
    points = [{"alpha": 0.1}, {"alpha": 0.2}]
    sequential = run(config_path, f"output={tmp_path / 'seq'}", points=points)
    environment_before = {name: os.environ.get(name) for name in executors.WORKER_ENV}
    on_cluster = run(config_path, f"output={tmp_path / 'dask'}", points=points,
                     cluster="local", jobs=2)
    assert on_cluster.n_run == 6
    assert by_run_id(on_cluster.records) == by_run_id(sequential.records)
    assert labels_of(tmp_path / "dask", on_cluster.records) == \
        labels_of(tmp_path / "seq", sequential.records)
    assert [r["seed"] for r in on_cluster.records] == [0, 1, 2, 0, 1, 2]
    assert without_timing(on_cluster.summary).equals(without_timing(sequential.summary))
    # The workers' one-thread environment stays theirs: numba in this process refuses a
    # changed NUMBA_NUM_THREADS once its threads are up (the parallel-sweep tests after).
    assert {name: os.environ.get(name) for name in executors.WORKER_ENV} == environment_before


def test_bad_cluster_values_fail_in_one_line():
    with pytest.raises(executors.ClusterError, match="'local' or a scheduler address"):
        executors.check_cluster("localhost")
    with pytest.raises(executors.ClusterError, match="no scheduler answers"):
        executors.connect_cluster(f"tcp://127.0.0.1:{_free_port()}", 1, timeout=1)


def test_without_dask_cluster_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(executors.ClusterError, match=r"pip install 'shortclust\[cluster\]'"):
        executors.check_cluster("local")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_a_sweep_and_a_reproduction_on_a_scheduler_and_two_workers(
        tmp_path, config_path, importable_tests, monkeypatch):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ)
    started = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                 "--host", "127.0.0.1", "--port", str(port),
                                 "--dashboard-address", ":0"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        time.sleep(2)
        for _ in range(2):
            started.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address,
                 "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"], env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        points = [{"alpha": 0.1}, {"alpha": 0.2}]
        sequential = run(config_path, f"output={tmp_path / 'seq'}", points=points)
        remote = run(config_path, f"output={tmp_path / 'remote'}", points=points,
                     cluster=address)
        assert by_run_id(remote.records) == by_run_id(sequential.records)
        assert labels_of(tmp_path / "remote", remote.records) == \
            labels_of(tmp_path / "seq", sequential.records)
        # A small reproduction (the test paper: a table and a sweep) against the address.
        from shortclust.papers.registry import registered, reproduce
        from tests.pipeline import fake_paper

        monkeypatch.setitem(registered(), "fake", fake_paper.PAPER)
        monkeypatch.setattr(fake_paper, "CONFIG", config_path)
        for where, cluster in (("here", None), ("there", address)):
            reproduce("fake", results_dir=tmp_path / where, work_dir=tmp_path / f"{where}_w",
                      quiet=True, cluster=cluster)
        assert (tmp_path / "there" / "fake" / "table.md").read_bytes() == \
            (tmp_path / "here" / "fake" / "table.md").read_bytes()
        sweeps = [pd.read_csv(tmp_path / where / "fake" / "sweep.csv")
                  for where in ("here", "there")]
        untimed = [frame.drop(columns=[c for c in frame if "fit_seconds" in c])
                   for frame in sweeps]
        assert untimed[0].equals(untimed[1]) and list(untimed[0]["runs"]) == [3, 3]
    finally:
        for process in reversed(started):
            process.terminate()
        for process in reversed(started):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
