"""The reproduction harness with a fake paper, the paper registry, GSDMM's bookkeeping."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import shortclust.pipeline.reproduce as reproduce_module
from tests.pipeline import fake_paper
from shortclust.cli import app
from shortclust.errors import ConfigError, DataError
from shortclust.pipeline.records import read_archive
from shortclust.pipeline.runner import ExperimentInterrupted
from shortclust.pipeline.reproduce import Reproduction, project_root
from shortclust.papers import registry
from shortclust.papers.registry import get_paper, paper_names, registered, reproduce

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def paper(monkeypatch, config_path):
    monkeypatch.setitem(registered(), "fake", fake_paper.PAPER)
    monkeypatch.setattr(fake_paper, "CONFIG", config_path)
    return "fake"


def run_fake(paper, tmp_path, **options):
    return reproduce(paper, results_dir=tmp_path / "results", work_dir=tmp_path / "work",
                     quiet=True, **options)


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


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


def test_no_fit_without_runs_keeps_the_tables_there_and_writes_missing_ones(paper, tmp_path):
    run_fake(paper, tmp_path)
    table = tmp_path / "results" / "fake" / "table.md"
    before = table.read_text()
    shutil.rmtree(tmp_path / "work")
    shutil.rmtree(tmp_path / "results" / "fake" / "records")  # no run left anywhere
    job = run_fake(paper, tmp_path, fit=False)
    assert table.read_text() == before and table in job.kept and not job.written
    elsewhere = tmp_path / "elsewhere"  # nothing there yet: the empty tables are written
    job = reproduce(paper, results_dir=elsewhere, work_dir=tmp_path / "w2", quiet=True,
                    fit=False)
    assert (elsewhere / "fake" / "table.md").exists() and not job.kept


# --- the registry ------------------------------------------------------------------------------


def test_every_paper_package_is_registered_under_its_own_name():
    assert paper_names() == ["dct", "gsdmm", "ic", "ncut", "streams"]  # found, not listed by hand; sorted
    packages = sorted(p.name for p in (REPO / "shortclust" / "papers").iterdir()
                      if (p / "__init__.py").is_file())
    assert packages == paper_names()
    for name, paper in registered().items():
        assert paper.name == name and paper.title and paper.items
        assert all(callable(item) and item.__doc__ for item in paper.items.values())


def test_unknown_paper_or_item_is_a_one_line_config_error_listing_the_choices(paper, tmp_path):
    with pytest.raises(ConfigError) as error:
        get_paper("nope")
    assert str(error.value) == ("no reproduction for paper 'nope': choose one of dct, gsdmm, "
                                "ic, ncut, streams, fake or all")
    with pytest.raises(ConfigError) as error:
        run_fake(paper, tmp_path, only=["tabel"])
    assert str(error.value) == "paper 'fake' has no item 'tabel': choose from table, sweep"
    assert not (tmp_path / "results").exists()


def test_cli_unknown_paper_is_one_error_line(tmp_path):
    result = invoke("reproduce", "nope", "--results", tmp_path / "r")
    assert result.exit_code == 2
    assert result.output == ("error: no reproduction for paper 'nope': choose one of dct, "
                             "gsdmm, ic, ncut, streams or all\n")
    assert not (tmp_path / "r").exists()


def test_cli_help_lists_the_registered_papers_their_items_and_options(paper):
    result = invoke("reproduce", "--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())  # the help is wrapped to the terminal
    for name, declared in registered().items():
        assert f"{name}: {declared.title}. Items: {', '.join(declared.items)}." in text
    assert "--max-copies (default 256): largest number of corpus copies" in text
    assert "--scale (default 1): a number the table prints." in text
    command = typer.main.get_command(app).commands["reproduce"]
    assert "max_copies" not in {param.name for param in command.params}  # the paper's own


def test_reproduce_all_runs_every_registered_paper(monkeypatch, config_path, tmp_path):
    monkeypatch.setattr(registry, "registered", lambda: {"fake": fake_paper.PAPER})
    monkeypatch.setattr(fake_paper, "CONFIG", config_path)
    result = invoke("reproduce", "all", "--results", tmp_path / "r", "--work-dir",
                    tmp_path / "w", "--quiet")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r" / "fake" / "table.md").is_file()


# --- a paper's own options -----------------------------------------------------------------


def test_a_paper_option_reaches_its_items(paper, tmp_path):
    for flag in (["--scale", "3"], ["--scale=3"]):
        result = invoke("reproduce", "fake", *flag, "--results", tmp_path / "r",
                        "--work-dir", tmp_path / "w", "--quiet", "--only", "table")
        assert result.exit_code == 0, result.output
        assert "scale 3" in (tmp_path / "r" / "fake" / "table.md").read_text()
    run_fake(paper, tmp_path, only=["table"])  # not given: the declared default
    assert "scale 1" in (tmp_path / "results" / "fake" / "table.md").read_text()


def test_max_copies_is_accepted_for_gsdmm(monkeypatch, tmp_path):
    seen = {}

    def fake_reproduce(name, **options):
        seen[name] = options["options"]
        return Reproduction(name, results_dir=tmp_path, work_dir=tmp_path)

    monkeypatch.setattr(registry, "reproduce", fake_reproduce)
    assert invoke("reproduce", "gsdmm", "--max-copies", 16, "--quiet").exit_code == 0
    assert seen == {"gsdmm": {"max_copies": 16}}
    seen.clear()
    assert invoke("reproduce", "all", "--max-copies", 4, "--quiet").exit_code == 0
    assert seen == {"dct": {}, "gsdmm": {"max_copies": 4}, "ic": {}, "ncut": {}, "streams": {}}


@pytest.mark.parametrize("args, message", [
    (["ic", "--max-copies", "16"],
     "error: '--max-copies' is not an option of paper 'ic': it has none (see shortclust "
     "reproduce --help)\n"),
    (["gsdmm", "--max-copies", "0"], "error: --max-copies must be at least 1, not 0\n"),
    (["gsdmm", "--max-copies", "many"], "error: --max-copies: 'many' is not a valid int\n"),
    (["gsdmm", "--max-copies"], "error: --max-copies needs a value\n"),
    (["gsdmm", "--rusn", "2"],
     "error: '--rusn' is not an option of paper 'gsdmm': its own options are --max-copies "
     "(see shortclust reproduce --help)\n"),
])
def test_a_bad_paper_option_is_one_error_line_before_any_run(tmp_path, args, message):
    result = invoke("reproduce", *args, "--results", tmp_path / "r")
    assert result.exit_code == 2 and result.output == message
    assert not (tmp_path / "r").exists()


def test_options_given_to_the_function_are_checked_and_completed(paper, tmp_path):
    with pytest.raises(ConfigError, match="paper 'fake' has no option --speed: its options "
                                          "are --scale"):
        run_fake(paper, tmp_path, options={"speed": 2})
    with pytest.raises(ConfigError, match="--scale must be at least 1, not 0"):
        run_fake(paper, tmp_path, options={"scale": 0})
    assert get_paper("gsdmm").resolve_options() == {"max_copies": 256}
    assert get_paper("ic").resolve_options() == {}


# --- the project checkout: from any working directory -------------------------------------------


def test_configs_and_default_directories_are_the_checkouts(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # somewhere else
    job = Reproduction("gsdmm")
    assert project_root() == REPO
    assert job.results_dir == REPO / "results" and job.work_dir == REPO / "runs" / "reproduce"
    config = job.config("configs/papers/gsdmm/gsdmm.yaml", "Tweet")
    assert config.name == "gsdmm_paper_gsdmm" and config.runs == 20
    assert job.project_path("benchmarks/bench_scaling.py").is_file()
    assert str(job.shown_work_dir()) == "runs/reproduce"  # footers name no machine's path
    explicit = Reproduction("gsdmm", results_dir=Path("r"), work_dir=Path("w"))
    assert explicit.results_dir == Path("r")  # relative to the working directory
    assert str(explicit.shown_work_dir()) == "w"


def test_runs_without_results_writes_to_a_scratch_folder_never_the_committed_one():
    job = Reproduction("gsdmm", runs=2)
    assert job.results_dir == REPO / "runs" / "reproduce" / "results"
    assert job.config("configs/papers/gsdmm/gsdmm.yaml", "Tweet").runs == 2


def test_another_results_folder_starts_from_a_copy_of_the_committed_archive(tmp_path):
    committed = REPO / "results" / "gsdmm" / "records" / "gsdmm_Tweet.json"
    job = Reproduction("gsdmm", results_dir=tmp_path / "r", work_dir=tmp_path / "w")
    path = job.archive_path("gsdmm_Tweet.json")
    assert path == tmp_path / "r" / "gsdmm" / "records" / "gsdmm_Tweet.json"
    assert path.read_bytes() == committed.read_bytes()
    path.write_text("{}")  # a folder's own archive is never replaced by the committed one
    assert job.archive_path("gsdmm_Tweet.json").read_text() == "{}"
    assert not job.archive_path("no_such_tag.json").exists()


def test_an_installed_copy_reads_its_packaged_data_and_needs_results(monkeypatch, tmp_path):
    import shortclust

    site = tmp_path / "site" / "shortclust"
    (site / "_packaged" / "configs" / "papers").mkdir(parents=True)
    monkeypatch.setattr(shortclust, "__file__", str(site / "__init__.py"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert project_root() == site / "_packaged"
    with pytest.raises(ConfigError, match="give --results DIR"):
        Reproduction("gsdmm")
    job = Reproduction("gsdmm", results_dir=tmp_path / "out")
    assert job.work_dir == tmp_path / "cache" / "shortclust" / "reproduce"


def test_without_configs_anywhere_is_a_one_line_config_error(monkeypatch, tmp_path):
    import shortclust

    monkeypatch.setattr(shortclust, "__file__", str(tmp_path / "site" / "shortclust" /
                                                    "__init__.py"))
    with pytest.raises(ConfigError) as error:
        project_root()
    assert "\n" not in str(error.value)
    assert str(error.value).startswith("no configs/papers/ in ")
    with pytest.raises(ConfigError):
        Reproduction("gsdmm")  # the default results/ cannot be found either


def test_a_fake_paper_with_relative_configs_runs_from_another_directory(
        monkeypatch, tmp_path, config_path):
    checkout = tmp_path / "checkout"
    (checkout / "configs" / "papers" / "fake").mkdir(parents=True)
    shutil.copy(config_path, checkout / "configs" / "papers" / "fake" / "fake.yaml")
    monkeypatch.setattr(reproduce_module, "project_root", lambda: checkout)
    monkeypatch.setitem(registered(), "fake", fake_paper.PAPER)
    monkeypatch.setattr(fake_paper, "CONFIG", "configs/papers/fake/fake.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = invoke("reproduce", "fake", "--only", "table", "--quiet")
    assert result.exit_code == 0, result.output
    assert "| 3 |" in (checkout / "results" / "fake" / "table.md").read_text()
    assert (checkout / "runs" / "reproduce" / "fake" / "table_runs").is_dir()
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(not os.environ.get("SHORTCLUST_DATA"), reason="needs the shared datasets")
def test_ic_quick_check_regenerates_from_its_records_in_another_directory(tmp_path):
    """The committed hac_sd_ic table, rebuilt by the command line run from elsewhere."""
    records = tmp_path / "r" / "ic" / "records"
    records.mkdir(parents=True)
    for archive in (REPO / "results" / "ic" / "records").glob("*hac_sd_*.json"):
        shutil.copy(archive, records)
    command = [sys.executable, "-m", "shortclust", "reproduce", "ic", "--only", "hac_sd_ic",
               "--no-fit", "--quiet", "--results", "r", "--work-dir", "w"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ours = (tmp_path / "r" / "ic" / "hac_sd_ic.md").read_text().splitlines()
    committed = (REPO / "results" / "ic" / "hac_sd_ic.md").read_text().splitlines()
    assert ours[:-1] == committed[:-1]  # the footer names the work directory, here `w/ic/`
    assert "the records under `w/ic/`" in ours[-1]  # --work-dir: relative to the working dir
    assert not (tmp_path / "w").exists()  # --no-fit writes no records anywhere
    archives = {path.name: path.read_bytes() for path in records.iterdir()}
    assert archives == {path.name: (REPO / "results" / "ic" / "records" / path.name).read_bytes()
                        for path in records.iterdir()}


# --- the GSDMM paper's transcriptions and checks ---------------------------------------------


def test_gsdmm_table2_transcription_is_complete():
    from shortclust.papers.gsdmm.reported import GOOGLE_NEWS, TABLE2_METRICS, TABLE2_PAPER

    for dataset in GOOGLE_NEWS:
        for model in ("GSDMM", "K-means", "DMAFP"):
            assert set(TABLE2_PAPER[dataset][model]) == set(TABLE2_METRICS)
        # GSDMM beats K-means on every cell of the paper's table.
        for metric in TABLE2_METRICS:
            assert TABLE2_PAPER[dataset]["GSDMM"][metric][0] > TABLE2_PAPER[dataset]["K-means"][metric][0]


def test_gsdmm_table2_checks_flag_a_gap_and_a_baseline_above_gsdmm():
    from shortclust.papers.gsdmm.tables import table2_checks

    rows = []
    for dataset, ours, kmeans in [("GoogleNews-T", 0.880, 0.7), ("GoogleNews-S", 0.850, 0.7),
                                  ("GoogleNews-TS", 0.930, 0.95)]:
        rows += [{"dataset": dataset, "model": "GSDMM", "metric": "nmi", "mean": ours,
                  "paper_mean": {"GoogleNews-T": 0.874, "GoogleNews-S": 0.896,
                                 "GoogleNews-TS": 0.928}[dataset]},
                 {"dataset": dataset, "model": "K-means", "metric": "nmi", "mean": kmeans,
                  "paper_mean": 0.7}]
    lines = table2_checks(pd.DataFrame(rows))
    assert "within 0.015" in lines[0] and "outside 0.015" in lines[1]
    assert "NOT below" in lines[2] and "is below" in lines[0]


IC_PAPER = sorted((REPO.parent / "shared" / "papers").glob("004_*.txt"))


@pytest.mark.skipif(not IC_PAPER, reason="paper text not beside the checkout")
def test_gsdpmm_numbers_are_the_ic_papers_gsdpmm_rows_and_it_never_runs_gsdmm():
    import re

    from shortclust.papers.gsdmm.reported import GSDPMM_REPORTED

    text = IC_PAPER[0].read_text(encoding="utf-8")
    assert "GSDMM" not in text.replace("GSDPMM", "")  # the IC paper has no GSDMM number
    # Tables 4 (ACC) and 5 (NMI) list Tweet, GoogleNews-TS, -T, -S; each table's text
    # follows its caption, and its last row is GSDPMM.
    order = ["Tweet", "GoogleNews-TS", "GoogleNews-T", "GoogleNews-S"]
    for table, metric in (("Table 4:", "acc"), ("Table 5:", "nmi")):
        after = text.split(table)[1]
        row = next(line for line in after.splitlines() if line.strip().startswith("GSDPMM"))
        numbers = [float(x) for x in re.findall(r"\d+\.\d+", row)]
        assert numbers == [v for d in order for v in GSDPMM_REPORTED[d][metric]]


def test_gsdmm_figure2_attributes_the_ic_papers_tweet_number_to_gsdpmm(tmp_path):
    from shortclust.papers.gsdmm.reported import TABLE2_METRICS
    from shortclust.papers.gsdmm.tables import write_figure2

    def records(level):
        return [{"seed": s, "n_clusters": 89,
                 "metrics": {m: level + s / 100 for m in TABLE2_METRICS}} for s in range(3)]

    ours = {"GSDMM": records(0.85), "K-means": records(0.78), "HAC Ward": records(0.77),
            "HAC average": records(0.80)}
    job = Reproduction("gsdmm", runs=3, results_dir=tmp_path, work_dir=tmp_path / "w",
                       quiet=True)
    write_figure2(job, ours)
    text = (tmp_path / "gsdmm" / "figure2.md").read_text()
    assert "does not run GSDMM; on Tweet it reports GSDPMM" in text
    assert "NMI 86.13 ± 1.91 % (its Table 5)" in text and "(Table 4)" in text
    assert "same setting" not in text and "0.861" not in text
    assert (tmp_path / "gsdmm" / "figure2.png").stat().st_size > 0


def test_gsdmm_sweep_outputs_from_tables(tmp_path):
    from shortclust.papers.gsdmm.reported import FOUR
    from shortclust.papers.gsdmm.tables import write_sweep

    def table(shift):
        return pd.DataFrame({
            "beta": [0.02, 0.1], "runs": [2, 2],
            "n_clusters_mean": [200 + shift, 90 + shift], "n_clusters_std": [3.0, 1.0],
            **{f"{m}_mean": [0.8, 0.85] for m in ("nmi", "homogeneity", "completeness")},
            **{f"{m}_std": [0.01, 0.01] for m in ("nmi", "homogeneity", "completeness")},
            "fit_seconds_mean": [1.0, 2.0], "fit_seconds_std": [0.1, 0.1],
        })

    job = Reproduction("gsdmm", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w",
                       quiet=True)
    write_sweep(job, "beta", "beta", {d: table(i) for i, d in enumerate(FOUR)})
    text = (tmp_path / "gsdmm" / "beta.md").read_text()
    assert "| 0.02 | 200.0 ± 3.0 | 0.800 ± 0.010 |" in text
    assert "TweetSet: beta 0.02 -> 0.1: clusters 203.0 -> 93.0" in text
    assert "Runs per value: 2." in text
    for name in ("figure9.png", "figure10.png", "beta.csv"):
        assert (tmp_path / "gsdmm" / name).stat().st_size > 0
    assert not any(c.startswith("fit_seconds") for c in pd.read_csv(tmp_path / "gsdmm" /
                                                                     "beta.csv").columns)


def test_gsdmm_table3_reads_measurements_and_marks_the_rest_not_run(tmp_path):
    from shortclust.papers.gsdmm.plan import table3
    from shortclust.papers.gsdmm.scaling import SCALING_MODELS

    # A project without committed measurements: only what this test writes is there.
    job = Reproduction("gsdmm", results_dir=tmp_path / "r", work_dir=tmp_path / "w",
                       quiet=True, options={"max_copies": 2}, project=tmp_path / "project")
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
    assert (frame["status"] == "ok").sum() == 2 * len(SCALING_MODELS)
    # Nothing was measured, so the archive is left as it was (here: none).
    assert not (tmp_path / "r" / "gsdmm" / "records" / "scaling.json").exists()


# --- interruption, archives, --no-fit ----------------------------------------------------------


def test_cli_interrupt_keeps_finished_runs_and_exits_130(paper, tmp_path, fake_model):
    fake_model.interrupt_on_fit = 2
    args = ["reproduce", "fake", "--results", tmp_path / "r", "--work-dir", tmp_path / "w",
            "--quiet"]
    result = invoke(*args)
    assert result.exit_code == 130 and "rerun the same command" in result.output
    assert "Traceback" not in result.output
    records = (tmp_path / "w" / "fake" / "table_runs" / "records.jsonl").read_text()
    assert len(records.splitlines()) == 1
    fake_model.interrupt_on_fit = None
    assert invoke(*args).exit_code == 0
    assert "| 3 |" in (tmp_path / "r" / "fake" / "table.md").read_text()


def test_cli_sigterm_during_reproduce_exits_143(paper, tmp_path, fake_model, monkeypatch):
    from shortclust.errors import Terminated

    fit = fake_model.fit

    def fit_then_terminated(self, X, y=None, callback=None):
        if callback is not None and fake_model.fit_calls == 1:
            raise Terminated  # what the CLI's SIGTERM handler raises
        return fit(self, X, y, callback)

    monkeypatch.setattr(fake_model, "fit", fit_then_terminated)
    result = invoke("reproduce", "fake", "--results", tmp_path / "r", "--work-dir",
                    tmp_path / "w", "--quiet")
    assert result.exit_code == 143
    assert "fake: terminated (SIGTERM) after 1 of" in result.output


def test_a_run_recorded_twice_counts_once_and_the_first_record_wins():
    from shortclust.pipeline.records import first_of_each_run

    records = [{"run_id": "a", "seed": 0, "n": 1}, {"run_id": "b", "seed": 1},
               {"run_id": "a", "seed": 0, "n": 2}]
    archived = [{"run_id": "a", "seed": 0, "n": 3}, {"run_id": "c", "seed": 5}]
    kept = first_of_each_run(records, archived)
    assert [(r["run_id"], r.get("n")) for r in kept] == [("a", 1), ("b", None), ("c", None)]


def test_no_fit_builds_tables_from_the_recorded_runs_only(paper, tmp_path, fake_model):
    run_fake(paper, tmp_path, runs=2)
    fake_model.fit_calls = 0
    job = run_fake(paper, tmp_path, runs=5, fit=False)
    assert fake_model.fit_calls == 0 and job.fitted == 0
    assert "| 2 |" in (tmp_path / "results" / "fake" / "table.md").read_text()
    assert list(pd.read_csv(tmp_path / "results" / "fake" / "sweep.csv")["runs"]) == [2, 2]


def test_cli_no_fit_on_an_empty_work_dir_writes_tables_without_runs(paper, tmp_path,
                                                                     fake_model):
    result = invoke("reproduce", paper, "--no-fit", "--quiet", "--results", tmp_path / "r",
                    "--work-dir", tmp_path / "w")
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


# --- archives and the planned runs ------------------------------------------------------------


def fake_job(tmp_path, **options):
    return Reproduction("fake", results_dir=tmp_path / "results", work_dir=tmp_path / "work",
                        quiet=True, **options)


def test_a_changed_config_on_the_same_tag_never_mixes_its_runs_in(tmp_path, config_path,
                                                                   fake_model):
    job = fake_job(tmp_path)
    assert {r["params"]["alpha"] for r in job.run(config_path, "tag")} == {0.5}
    changed = job.run(config_path, "tag", overrides=["model.params.alpha=0.7"])
    assert len(changed) == 3 and {r["params"]["alpha"] for r in changed} == {0.7}
    frame = job.sweep(config_path, "tag", overrides=["sweep={alpha: [0.5, 0.9]}"])
    assert list(frame["runs"]) == [3, 3]


def test_an_interrupted_refit_keeps_the_archived_runs(tmp_path, config_path, fake_model):
    job = fake_job(tmp_path)
    job.run(config_path, "tag", overrides=["metrics=[nmi]"])
    archive = tmp_path / "results" / "fake" / "records" / "tag.json"
    shutil.rmtree(tmp_path / "work")  # another machine: the archive, no labels
    fake_model.fit_calls, fake_model.interrupt_on_fit = 0, 2
    with pytest.raises(ExperimentInterrupted):
        job.run(config_path, "tag", overrides=["metrics=[nmi, ari]"])
    records = read_archive(archive)
    assert sorted(r["seed"] for r in records) == [0, 1, 2]
    assert [set(r["metrics"]) for r in sorted(records, key=lambda r: r["seed"])] == [
        {"nmi", "ari"}, {"nmi"}, {"nmi"}]  # the refit finished replaces its record
    fake_model.interrupt_on_fit = None
    done = job.run(config_path, "tag", overrides=["metrics=[nmi, ari]"])
    assert all(set(r["metrics"]) == {"nmi", "ari"} for r in done)
    assert all(set(r["metrics"]) == {"nmi", "ari"} for r in read_archive(archive))


def test_no_fit_reads_the_archive_and_writes_nothing(tmp_path, config_path, fake_model):
    fake_job(tmp_path).run(config_path, "tag")
    archive = tmp_path / "results" / "fake" / "records" / "tag.json"
    before = archive.read_bytes()
    shutil.rmtree(tmp_path / "work")
    records = fake_job(tmp_path, fit=False).run(config_path, "tag")
    assert [r["seed"] for r in records] == [0, 1, 2]
    assert not (tmp_path / "work").exists() and archive.read_bytes() == before


def test_a_kept_figure_is_drawn_into_one_scratch_directory_removed_with_the_job(tmp_path):
    from shortclust.pipeline.reproduce import Reproduction

    figure = tmp_path / "fake" / "figure1.png"
    figure.parent.mkdir(parents=True)
    figure.write_bytes(b"committed")
    job = Reproduction("fake", results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True,
                       fit=False)
    scratch = job.figure_path("figure1")
    assert scratch != figure and figure in job.kept
    assert job.figure_path("figure1").parent == scratch.parent  # one directory per job
    scratch.write_bytes(b"drawn")
    del job
    import gc

    gc.collect()
    assert not scratch.parent.exists() and figure.read_bytes() == b"committed"


def test_no_fit_keeps_a_table_whose_dataset_is_absent_instead_of_dropping_its_rows(tmp_path):
    """``--no-fit`` without a dataset's file must not rewrite a committed table without
    that dataset's rows (it did: the DCT held-out table lost CrisisLexT26 and 20NG-mini,
    exit 0); with the data, or when fitting, the table is written as before."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    committed = tmp_path / "results" / "dct" / "heldout.md"
    committed.parent.mkdir(parents=True)
    committed.write_text("| CrisisLexT26 | 0.640 |\n| synthetic | 0.603 |\n")

    job = Reproduction("dct", results_dir=tmp_path / "results", work_dir=tmp_path / "w",
                       data_dir=empty, quiet=True, fit=False)
    job.collected = 4  # the synthetic streams' runs were found
    # A name the registry does not know (IC's BioMedical: the paper's numbers only) is
    # absent by design and must not stop --no-fit from rewriting (it kept IC Tables 2-3).
    assert job.dataset_here("BioMedical") is False
    assert job.absent == []
    assert job.dataset_here("CrisisLexT26") is False
    assert job.absent == ["CrisisLexT26"]
    job.write_text("heldout.md", "| synthetic | 0.603 |\n")
    assert committed.read_text() == "| CrisisLexT26 | 0.640 |\n| synthetic | 0.603 |\n"
    assert job.kept == [committed]

    fitting = Reproduction("dct", results_dir=tmp_path / "results", work_dir=tmp_path / "w",
                           data_dir=empty, quiet=True, fit=True)
    fitting.collected = 4
    assert fitting.dataset_here("CrisisLexT26") is False
    fitting.write_text("heldout.md", "| synthetic | 0.603 |\n")
    assert committed.read_text() == "| synthetic | 0.603 |\n"
