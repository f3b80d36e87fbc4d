"""Temporaries a killed process left beside its outputs are removed by the next writer,
and those of a live process never are (issue 27, point 2)."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from shortclust.data import temporaries
from shortclust.data.io import atomic_write


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_atomic_write_names_its_temporary_after_this_process(tmp_path):
    seen = []
    atomic_write(tmp_path / "out.csv", lambda handle: seen.extend(os.listdir(tmp_path)))
    name, = seen
    assert name.startswith(f".out.csv.{os.getpid()}-") and name.endswith(".tmp")


def test_the_next_write_removes_a_killed_writers_temporary_but_not_a_live_ones(tmp_path):
    dead = tmp_path / f".out.csv.{dead_pid()}-abc123xy.tmp"
    live = tmp_path / f".out.csv.{os.getppid()}-abc123xy.tmp"
    other = tmp_path / f".other.csv.{dead_pid()}-abc123xy.tmp"  # another output's
    mine = tmp_path / ".out.csv.tmp"  # not the pattern: not ours
    for path in (dead, live, other, mine):
        path.write_text("partial")
    atomic_write(tmp_path / "out.csv", lambda handle: handle.write(b"whole"))
    assert not dead.exists()
    assert live.exists() and other.exists() and mine.exists()
    assert (tmp_path / "out.csv").read_text() == "whole"


def test_a_sigkill_mid_write_leaves_a_temporary_that_the_next_run_removes(tmp_path):
    """The real thing: a writer killed by SIGKILL while writing, then a run into the folder."""
    script = textwrap.dedent(f"""
        import os, signal
        from shortclust.data.io import atomic_write
        def write(handle):
            handle.write(b"half")
            handle.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        atomic_write({str(tmp_path / 'stream.png')!r}, write)
    """)
    killed = subprocess.run([sys.executable, "-c", script])
    assert killed.returncode == -signal.SIGKILL
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(".stream.png.")  # what SIGKILL leaves
    assert temporaries.remove_stale(tmp_path, recursive=True)
    assert list(tmp_path.iterdir()) == []


def test_a_run_into_a_folder_removes_the_stale_temporaries_in_its_tree(tmp_path, monkeypatch):
    from shortclust.pipeline.runner import run_experiment, RunOptions
    from shortclust.config import load_config
    from tests.pipeline.fake_estimators import register_fake_model, write_config, write_corpus

    register_fake_model(monkeypatch)
    corpus = write_corpus(tmp_path / "docs.jsonl")
    output = tmp_path / "out"
    (output / "labels").mkdir(parents=True)
    stale = [output / f".stream.png.{dead_pid()}-k2j4h5g6.tmp",
             output / "labels" / f".fake_test-1.txt.{dead_pid()}-k2j4h5g6.tmp"]
    for path in stale:
        path.write_text("partial")
    config = load_config(write_config(tmp_path / "fake.yaml", corpus, output, runs=1))
    run_experiment(config, RunOptions(quiet=True))
    assert not any(path.exists() for path in stale)
    assert not [p for p in output.rglob("*.tmp")]


@pytest.mark.parametrize("killed_after", ["moved aside", "replaced"])
def test_cluster_puts_back_an_output_that_a_killed_cluster_had_moved_aside(tmp_path,
                                                                         killed_after):
    from shortclust.apps.cluster import _recover

    output = tmp_path / "out"
    pid = dead_pid()
    old = tmp_path / f".out.old.{pid}-a1b2c3d4.tmp"
    staging = tmp_path / f".out.{pid}-e5f6g7h8.tmp"
    (old / "previous").mkdir(parents=True)
    (old / "previous" / "assignments.csv").write_text("previous")
    staging.mkdir()
    if killed_after == "replaced":  # the new output was in place; the old not yet removed
        output.mkdir()
        (output / "assignments.csv").write_text("new")
    _recover(output)
    expected = "previous" if killed_after == "moved aside" else "new"
    assert (output / "assignments.csv").read_text() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
