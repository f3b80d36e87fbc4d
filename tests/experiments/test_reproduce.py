"""The reproduction harness with a fake paper, and the GSDMM paper's bookkeeping."""

import shutil

import pandas as pd
import pytest
from typer.testing import CliRunner

import shortclust.experiments.reproduce as reproduce_module
from tests.experiments import fake_paper
from shortclust.cli import app
from shortclust.errors import ConfigError, DataError
from shortclust.experiments.reproduce import mean_std, paper_items, reproduce


@pytest.fixture
def paper(monkeypatch, config_path):
    monkeypatch.setitem(reproduce_module.PAPERS, "fake", "tests.experiments.fake_paper")
    monkeypatch.setattr(fake_paper, "CONFIG", config_path)
    return "fake"


def run_fake(paper, tmp_path, **options):
    return reproduce(paper, results_dir=tmp_path / "results", work_dir=tmp_path / "work",
                     quiet=True, **options)


def test_items_write_results_from_their_runs(paper, tmp_path):
    job = run_fake(paper, tmp_path)
    results = tmp_path / "results" / "fake"
    assert sorted(p.name for p in results.iterdir()) == ["records", "sweep.csv", "sweep.md",
                                                         "table.md"]
    assert "| nmi |" in (results / "table.md").read_text()
    assert "| 3 |" in (results / "table.md").read_text()  # the config's own 3 runs
    sweep = pd.read_csv(results / "sweep.csv")
    assert list(sweep["alpha"]) == [0.1, 0.3] and list(sweep["runs"]) == [3, 3]
    assert len(job.written) == 3


def test_runs_option_limits_the_seeds_used_even_when_more_are_recorded(paper, tmp_path,
                                                                        fake_model):
    run_fake(paper, tmp_path)
    fake_model.fit_calls = 0
    run_fake(paper, tmp_path, runs=2)
    assert fake_model.fit_calls == 0  # seeds 0 and 1 were recorded by the first call
    assert "| 2 |" in (tmp_path / "results" / "fake" / "table.md").read_text()
    assert list(pd.read_csv(tmp_path / "results" / "fake" / "sweep.csv")["runs"]) == [2, 2]


def test_only_runs_the_named_items(paper, tmp_path):
    run_fake(paper, tmp_path, only=["sweep"])
    assert not (tmp_path / "results" / "fake" / "table.md").exists()


def test_unknown_paper_or_item_is_a_config_error(paper, tmp_path):
    with pytest.raises(ConfigError, match="no reproduction for paper 'nope'"):
        paper_items("nope")
    with pytest.raises(ConfigError, match="no item 'tabel'"):
        run_fake(paper, tmp_path, only=["tabel"])


def test_cli_unknown_paper_is_one_error_line(tmp_path):
    result = CliRunner().invoke(app, ["reproduce", "nope", "--results", str(tmp_path / "r")])
    assert result.exit_code == 2 and "no reproduction for paper 'nope'" in result.output
    assert not (tmp_path / "r").exists()


def test_mean_std_is_the_sample_std():
    assert mean_std([1.0, 2.0, 3.0]) == "2.000 ± 1.000"
    assert mean_std([0.5]) == "0.500 ± 0.000"
    assert mean_std([]) == "n/a"


# --- the GSDMM paper's transcriptions and checks ---------------------------------------------


def test_gsdmm_table2_transcription_is_complete():
    from shortclust.papers.gsdmm import GOOGLE_NEWS, TABLE2_METRICS, TABLE2_PAPER

    for dataset in GOOGLE_NEWS:
        for model in ("GSDMM", "K-means", "DMAFP"):
            assert set(TABLE2_PAPER[dataset][model]) == set(TABLE2_METRICS)
            # GSDMM beats K-means on every cell of the paper's table.
        for metric in TABLE2_METRICS:
            assert TABLE2_PAPER[dataset]["GSDMM"][metric][0] > TABLE2_PAPER[dataset]["K-means"][metric][0]


def test_gsdmm_table2_checks_flag_a_gap_and_a_baseline_above_gsdmm():
    from shortclust.papers.gsdmm import _table2_checks

    rows = []
    for dataset, ours, kmeans in [("GoogleNews-T", 0.880, 0.7), ("GoogleNews-S", 0.850, 0.7),
                                  ("GoogleNews-TS", 0.930, 0.95)]:
        rows += [{"dataset": dataset, "model": "GSDMM", "metric": "nmi", "mean": ours,
                  "paper_mean": {"GoogleNews-T": 0.874, "GoogleNews-S": 0.896,
                                 "GoogleNews-TS": 0.928}[dataset]},
                 {"dataset": dataset, "model": "K-means", "metric": "nmi", "mean": kmeans,
                  "paper_mean": 0.7}]
    lines = _table2_checks(pd.DataFrame(rows))
    assert "within 0.015" in lines[0] and "outside 0.015" in lines[1]
    assert "NOT below" in lines[2] and "is below" in lines[0]


def test_gsdmm_sweep_outputs_from_tables(tmp_path):
    from shortclust.experiments.reproduce import Reproduction
    from shortclust.papers.gsdmm import FOUR, _sweep_outputs

    def table(shift):
        return pd.DataFrame({
            "beta": [0.02, 0.1], "runs": [2, 2],
            "n_clusters_mean": [200 + shift, 90 + shift], "n_clusters_std": [3.0, 1.0],
            **{f"{m}_mean": [0.8, 0.85] for m in ("nmi", "homogeneity", "completeness")},
            **{f"{m}_std": [0.01, 0.01] for m in ("nmi", "homogeneity", "completeness")},
        })

    job = Reproduction("gsdmm", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w",
                       quiet=True)
    _sweep_outputs(job, "beta", "beta", {d: table(i) for i, d in enumerate(FOUR)})
    text = (tmp_path / "gsdmm" / "beta.md").read_text()
    assert "| 0.02 | 200.0 ± 3.0 | 0.800 ± 0.010 |" in text
    assert "TweetSet: beta 0.02 -> 0.1: clusters 203.0 -> 93.0" in text
    assert "Runs per value: 2." in text
    for name in ("figure9.png", "figure10.png", "beta.csv"):
        assert (tmp_path / "gsdmm" / name).stat().st_size > 0


def test_gsdmm_table3_reads_measurements_and_marks_the_rest_not_run(tmp_path):
    import json

    from shortclust.experiments.reproduce import Reproduction
    from shortclust.papers.gsdmm import SCALING_MODELS, table3

    job = Reproduction("gsdmm", results_dir=tmp_path / "r", work_dir=tmp_path / "w",
                       quiet=True, max_copies=2)
    lines = [{"model": m, "copies": c, "status": "ok", "fit_seconds": 0.5 * c,
              "sample_seconds": 0.4 * c if m == "gsdmm" else None, "peak_rss_mib": 300.0}
             for m in SCALING_MODELS for c in (1, 2)]
    lines.append({"model": "gsdmm", "copies": 4, "status": "killed", "peak_rss_mib": 9000.0})
    (tmp_path / "w" / "gsdmm").mkdir(parents=True)
    (tmp_path / "w" / "gsdmm" / "scaling.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n")
    table3(job)  # every size up to max_copies is measured: no benchmark subprocess
    text = (tmp_path / "r" / "gsdmm" / "table3.md").read_text()
    assert "| 1 | 11,109 | 0.092 | 0.50 s (0.40), 300 MiB | 11x |" in text
    assert "| 256 | 2,843,904 | 23.203 | not run | - |" in text
    frame = pd.read_csv(tmp_path / "r" / "gsdmm" / "table3.csv")
    assert (frame["status"] == "ok").sum() == 6


def test_cli_interrupt_keeps_finished_runs_and_exits_130(paper, tmp_path, fake_model):
    fake_model.interrupt_on_fit = 2
    args = ["reproduce", "fake", "--results", str(tmp_path / "r"), "--work-dir",
            str(tmp_path / "w"), "--quiet"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130 and "rerun the same command" in result.output
    assert "Traceback" not in result.output
    records = (tmp_path / "w" / "fake" / "table_runs" / "records.jsonl").read_text()
    assert len(records.splitlines()) == 1
    fake_model.interrupt_on_fit = None
    assert CliRunner().invoke(app, args).exit_code == 0
    assert "| 3 |" in (tmp_path / "r" / "fake" / "table.md").read_text()


def test_a_run_recorded_twice_counts_once():
    from shortclust.experiments.reproduce import _of_seeds

    records = [{"run_id": "a", "seed": 0}, {"run_id": "b", "seed": 1},
               {"run_id": "a", "seed": 0}, {"run_id": "c", "seed": 5}]
    assert [r["run_id"] for r in _of_seeds(records, [0, 1])] == ["a", "b"]


def test_no_fit_builds_tables_from_the_recorded_runs_only(paper, tmp_path, fake_model):
    run_fake(paper, tmp_path, runs=2)
    fake_model.fit_calls = 0
    job = run_fake(paper, tmp_path, runs=5, fit=False)
    assert fake_model.fit_calls == 0 and job.fitted == 0
    assert "| 2 |" in (tmp_path / "results" / "fake" / "table.md").read_text()
    assert list(pd.read_csv(tmp_path / "results" / "fake" / "sweep.csv")["runs"]) == [2, 2]


def test_cli_no_fit_on_an_empty_work_dir_writes_tables_without_runs(paper, tmp_path,
                                                                     fake_model):
    result = CliRunner().invoke(app, ["reproduce", paper, "--no-fit", "--quiet",
                                      "--results", str(tmp_path / "r"),
                                      "--work-dir", str(tmp_path / "w")])
    assert result.exit_code == 0, result.output
    assert fake_model.fit_calls == 0
    assert "| 0 |" in (tmp_path / "r" / "fake" / "table.md").read_text()


def test_archived_records_are_reused_on_a_fresh_work_dir(paper, tmp_path, fake_model):
    job = run_fake(paper, tmp_path)
    assert job.archive
    archive = tmp_path / "results" / "fake" / "records"
    files = sorted(archive.iterdir())
    assert files and all(path.suffix == ".json" for path in files)
    before = {path.name: path.read_bytes() for path in files}
    table = (tmp_path / "results" / "fake" / "table.md").read_text()
    # Another machine: the committed results (archive included), no work directory.
    shutil.rmtree(tmp_path / "work")
    fake_model.fit_calls = 0
    run_fake(paper, tmp_path)
    assert fake_model.fit_calls == 0  # every run came from the archive
    assert (tmp_path / "results" / "fake" / "table.md").read_text() == table
    assert {path.name: path.read_bytes() for path in archive.iterdir()} == before
    # --no-fit rebuilds the same tables from the archive alone.
    shutil.rmtree(tmp_path / "work")
    run_fake(paper, tmp_path, fit=False)
    assert (tmp_path / "results" / "fake" / "table.md").read_text() == table


def test_a_damaged_archive_is_a_one_line_data_error(paper, tmp_path):
    run_fake(paper, tmp_path)
    victim = next((tmp_path / "results" / "fake" / "records").iterdir())
    victim.write_text('{"records": [{"seed": 0}]}')
    with pytest.raises(DataError, match="is not a record archive .*delete it to fit its runs"):
        run_fake(paper, tmp_path)

