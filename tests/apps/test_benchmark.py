"""``shortclust benchmark``: suites expand into cells, run through the pipeline, and the
leaderboards rebuild byte for byte from the archived records alone."""

import json

import numpy as np
import pandas as pd
import pytest

from shortclust.apps.benchmark import run_benchmark
from shortclust.apps.benchmark import leaderboard, suites
from shortclust.errors import ConfigError

MODELS = """
models:
  gsdmm: {model: gsdmm, params: {max_iter: 3}, own: {n_clusters: 10}}
  kmeans: {model: kmeans, params: {n_init: 2}}
  gsdpmm: {model: gsdpmm, params: {max_iter: 3}, own: {}}
  absent: {model: kmeans, extra: nothing, needs: no_such_module_here}
"""

SUITE = """
description: a tiny suite
runs: 2
k: [true, own]
batch: {datasets: [DATA], models: [gsdmm, kmeans, gsdpmm, absent]}
stream: {datasets: [DATA], models: [gsdmm], settings: {batch_by: count, n_batches: 2}}
"""


def corpus_file(path, n=40):
    rng = np.random.default_rng(0)
    words = [["apple", "pear", "fruit", "juice"], ["goal", "match", "ball", "team"]]
    with path.open("w") as handle:
        for i in range(n):
            label = i % 2
            text = " ".join(rng.choice(words[label], size=4))
            handle.write(json.dumps({"text": text, "label": f"c{label}", "time": i}) + "\n")
    return path


@pytest.fixture
def checkout(tmp_path):
    data = corpus_file(tmp_path / "tiny.jsonl")
    folder = tmp_path / "configs" / "benchmark"
    folder.mkdir(parents=True)
    (folder / "models.yaml").write_text(MODELS)
    (folder / "tiny.yaml").write_text(SUITE.replace("DATA", str(data)))
    return tmp_path


def job_options(root, **extra):
    return {"root": root, "results_dir": root / "results", "work_dir": root / "runs",
            "quiet": True, **extra}


def test_cells_cover_datasets_models_and_k_choices(checkout):
    suite = suites.load_suite(checkout, "tiny")
    declared = suites.load_models(checkout)
    cells = suites.cells(suite, declared, lambda dataset: 2)
    methods = [(c.kind, c.method) for c in cells]
    # gsdpmm has no n_clusters: only its own K; kmeans has no own choice: only the true K.
    assert methods == [("batch", "gsdmm (K true)"), ("batch", "gsdmm (K own)"),
                       ("batch", "kmeans (K true)"), ("batch", "gsdpmm (K own)"),
                       ("batch", "absent (K true)"), ("stream", "gsdmm (K true)"),
                       ("stream", "gsdmm (K own)")]
    true_cell = cells[0]
    assert true_cell.config["model"]["params"] == {"max_iter": 3, "n_clusters": 2}
    assert cells[1].config["model"]["params"]["n_clusters"] == 10
    assert "topic_quality" in true_cell.config and cells[-1].config["stream"]["n_batches"] == 2
    assert len({c.tag for c in cells}) == len(cells)


def test_a_bad_suite_fails_in_one_line(checkout):
    folder = checkout / "configs" / "benchmark"
    (folder / "bad.yaml").write_text("k: [maybe]\nbatch: {datasets: [x]}\n")
    with pytest.raises(ConfigError, match="k must list") as raised:
        suites.load_suite(checkout, "bad")
    assert "\n" not in str(raised.value)
    (folder / "bad.yaml").write_text("batch: {datasets: [x], models: [nosuch]}\n")
    with pytest.raises(ConfigError, match="'nosuch' is not declared"):
        suites.cells(suites.load_suite(checkout, "bad"), suites.load_models(checkout),
                     lambda d: 2)
    with pytest.raises(ConfigError, match="no benchmark suite 'other'"):
        run_benchmark(["other"], **job_options(checkout))
    with pytest.raises(ConfigError, match="--models: 'nosuch'"):
        run_benchmark(["tiny"], models=["nosuch"], **job_options(checkout))


def test_no_fit_tables_do_not_depend_on_the_extras_installed(checkout):
    """A cell with no archive reads the same whether its extra is installed or not."""
    models = checkout / "configs" / "benchmark" / "models.yaml"
    folder = checkout / "results" / "benchmark" / "tiny"
    run_benchmark(["tiny"], models=["kmeans"], **job_options(checkout))  # some records
    boards = []
    for needs in ("no_such_module_here", "json"):  # the extra missing, then installed
        models.write_text(MODELS.replace("no_such_module_here", needs))
        run_benchmark(["tiny"], fit=False, **job_options(checkout))
        boards.append((folder / "tiny.md").read_bytes())
    assert boards[0] == boards[1]
    assert b"needs the optional extra shortclust[nothing]" in boards[1]


def test_suite_runs_then_no_fit_rebuilds_every_file_byte_for_byte(checkout, tmp_path):
    job = run_benchmark(["tiny"], **job_options(checkout))
    assert job.fitted == 12  # 6 cells that can run x 2 seeds; `absent` is skipped
    folder = checkout / "results" / "benchmark" / "tiny"
    written = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert set(written) == {"tiny.md", "tiny.csv", "tiny_stream.md", "tiny_stream.csv",
                            "ranks.md", "ranks.csv"}
    board = pd.read_csv(folder / "tiny.csv")
    assert board["runs"].tolist()[:4] == [2, 2, 2, 2]
    assert board["nmi_mean"].iloc[0] >= board["nmi_mean"].iloc[1]  # best first
    assert (board["cpu_s_median"].dropna() >= 0).all()
    assert "needs the optional extra shortclust[nothing]" in written["tiny.md"].decode()
    records = checkout / "results" / "benchmark" / "records"
    assert len(list(records.glob("*.json"))) == 6
    # A fresh checkout with only the archive: nothing fitted, the same bytes.
    import shutil

    shutil.rmtree(checkout / "runs")
    for path in folder.iterdir():
        path.unlink()
    again = run_benchmark(["tiny"], fit=False, **job_options(checkout))
    assert again.fitted == 0
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == written
    # A suite nothing of which was ever run: --no-fit writes no table for it.
    shutil.rmtree(records)
    assert run_benchmark(["tiny"], fit=False, **job_options(checkout)).written == []


def test_models_option_fits_only_those_but_tables_keep_every_cell(checkout):
    job = run_benchmark(["tiny"], models=["kmeans"], **job_options(checkout))
    assert job.fitted == 2
    board = pd.read_csv(checkout / "results" / "benchmark" / "tiny" / "tiny.csv")
    assert dict(zip(board["method"], board["runs"]))["gsdmm (K true)"] == 0


def test_mean_ranks_share_ties_and_count_datasets():
    boards = {
        "a": pd.DataFrame({"method": ["x", "y", "z"], "runs": [1, 1, 1],
                           "nmi_mean": [0.9, 0.5, 0.5], "ari_mean": [0.1, 0.2, 0.3],
                           "acc_mean": [0.5, 0.5, 0.5]}),
        "b": pd.DataFrame({"method": ["x", "y"], "runs": [1, 1], "nmi_mean": [0.1, 0.2],
                           "ari_mean": [0.1, 0.2], "acc_mean": [0.3, 0.2]}),
    }
    ranks = leaderboard.mean_ranks(boards).set_index("method")
    assert ranks.loc["x", "rank_nmi"] == pytest.approx(1.5)  # 1 on a, 2 on b
    assert ranks.loc["z", "rank_nmi"] == pytest.approx(2.5) and ranks.loc["z", "datasets"] == 1
    assert ranks.loc["y", "rank_acc"] == pytest.approx(2.0)  # three-way tie on a (2), 2 on b


def test_a_model_without_a_seed_runs_once_whatever_runs_says(checkout):
    # HAC's labels are the same for every seed (capabilities.seeded False): its cell runs
    # seed 0 only, while a seeded model beside it runs every seed asked for.
    models = checkout / "configs" / "benchmark" / "models.yaml"
    models.write_text(MODELS + "  hac: {model: hac}\n")
    suite = checkout / "configs" / "benchmark" / "tiny.yaml"
    suite.write_text(suite.read_text().replace("models: [gsdmm, kmeans, gsdpmm, absent]",
                                               "models: [kmeans, hac]"))
    cells = suites.cells(suites.load_suite(checkout, "tiny"), suites.load_models(checkout),
                         lambda dataset: 2)
    assert [(c.entry, c.seeded, c.config["runs"]) for c in cells if c.kind == "batch"] == [
        ("kmeans", True, 2), ("hac", False, 1)]
    job = run_benchmark(["tiny"], runs=3, models=["kmeans", "hac"], **job_options(checkout))
    assert job.fitted == 3 + 1
    board = pd.read_csv(checkout / "results" / "benchmark" / "tiny" / "tiny.csv")
    assert dict(zip(board["model"], board["runs"])) == {"kmeans": 3, "hac": 1}


def test_jobs_fit_whole_cells_in_workers_with_the_same_results(checkout, tmp_path,
                                                                monkeypatch):
    # --jobs 2 fits two cells at a time (apps/benchmark/parallel.py), each in one process;
    # the tables equal --jobs 1's but for the timing columns, and a second command fits
    # nothing.
    from shortclust.apps.benchmark import parallel
    from shortclust.pipeline.executors import cpu_cores

    if cpu_cores() < 2:
        pytest.skip("one core: --jobs 2 is --jobs 1")
    in_workers = []
    fit_cells = parallel.fit_cells
    monkeypatch.setattr(parallel, "fit_cells", lambda job, cells, workers: in_workers.append(
        (len(cells), workers)) or fit_cells(job, cells, workers))
    single = run_benchmark(["tiny"], **job_options(checkout))
    assert in_workers == []
    other = tmp_path / "other"
    other.mkdir()
    parallel_options = {**job_options(checkout), "results_dir": other / "results",
                        "work_dir": other / "runs", "jobs": 2}
    in_parallel = run_benchmark(["tiny"], **parallel_options)
    assert in_parallel.fitted == single.fitted == 12
    assert in_workers == [(6, 2)]  # `absent` (its extra missing) is not sent to a worker
    timing = ["cpu_s_median", "wall_s_median", "peak_mb_median"]
    for board in ("tiny.csv", "tiny_stream.csv"):
        ours = pd.read_csv(other / "results" / "benchmark" / "tiny" / board)
        theirs = pd.read_csv(checkout / "results" / "benchmark" / "tiny" / board)
        pd.testing.assert_frame_equal(ours.drop(columns=timing), theirs.drop(columns=timing))
    assert run_benchmark(["tiny"], **parallel_options).fitted == 0
