"""Parameter sweeps with the fake model: grid resolution, records per point, table and figure."""

import json

import pytest
from typer.testing import CliRunner

from shortclust.cli import app
from shortclust.config import load_config
from shortclust.errors import ConfigError
from shortclust.pipeline.records import RecordStore
from shortclust.pipeline.sweep import (
    default_sweep_output, resolve_sweep, run_sweep, sweep_frame, write_sweep_outputs,
)


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


# --- which grid ----------------------------------------------------------------------------


def test_values_from_the_command_line_are_typed(config_path):
    config = load_config(config_path)
    assert resolve_sweep(config, "alpha", "0.1, 1,2.5") == ("alpha", [0.1, 1, 2.5])
    assert resolve_sweep(config, "model.params.max_iter", "3,5") == ("max_iter", [3, 5])


def test_the_configs_declared_grid_is_the_default(config_path):
    config = load_config(config_path, ["sweep={model.params.alpha: [0.2, 0.4]}"])
    assert resolve_sweep(config, "alpha", None) == ("alpha", [0.2, 0.4])


@pytest.mark.parametrize("param, values, match", [
    ("gamma", "1,2", "not a parameter of model 'fake'"),
    ("random_state", "1,2", "not a parameter"),
    ("alpha", None, "declares no grid for 'alpha'"),
    ("alpha", "", "comma-separated"),
    ("alpha", "0.1,,0.2", "comma-separated"),
    ("alpha", "0.1,0.1", "repeated"),
    ("alpha", "[0.1", "cannot read"),
])
def test_bad_grids_are_config_errors(config_path, param, values, match):
    with pytest.raises(ConfigError, match=match):
        resolve_sweep(load_config(config_path), param, values)


def test_a_declared_grid_must_be_a_non_empty_list(config_path):
    with pytest.raises(ConfigError, match="non-empty list"):
        load_config(config_path, ["sweep={alpha: 0.1}"])


def test_default_output_sits_beside_the_configs(config_path, output_dir):
    config = load_config(config_path)
    assert default_sweep_output(config, "beta") == output_dir.with_name("out_sweep_beta")


# --- running --------------------------------------------------------------------------------


def test_every_point_and_seed_is_a_record_and_the_table_aggregates_them(config_path, output_dir):
    result = run_sweep(load_config(config_path), "alpha", [0.3, 0.1], quiet=True)
    records = RecordStore(output_dir).load()
    assert len(records) == 6
    assert list(result.table["alpha"]) == [0.3, 0.1]  # the grid's order, not sorted
    assert list(result.table["runs"]) == [3, 3]
    nmi_at_01 = [r["metrics"]["nmi"] for r in records if r["params"]["alpha"] == 0.1]
    row = result.table[result.table["alpha"] == 0.1].iloc[0]
    assert row["nmi_mean"] == pytest.approx(sum(nmi_at_01) / 3)
    for ext in ("csv", "md", "png"):
        assert (output_dir / f"sweep_alpha.{ext}").stat().st_size > 0
    assert "| 0.3 | 3 |" in (output_dir / "sweep_alpha.md").read_text()


def test_sweeping_n_clusters_keeps_it_apart_from_clusters_found(config_path, output_dir):
    result = run_sweep(load_config(config_path), "n_clusters", [2, 5], quiet=True)
    assert list(result.table["n_clusters"]) == [2, 5]
    assert (result.table["n_clusters_mean"] <= result.table["n_clusters"]).all()


def test_resume_runs_only_the_missing_points(config_path, output_dir, fake_model):
    config = load_config(config_path)
    run_sweep(config, "alpha", [0.1], quiet=True)
    fake_model.fit_calls = 0
    run_sweep(config, "alpha", [0.1, 0.2], resume=True, quiet=True)
    assert fake_model.fit_calls == 3
    assert len(RecordStore(output_dir).load()) == 6


def test_outputs_can_be_rebuilt_from_records_alone(config_path, output_dir):
    first = run_sweep(load_config(config_path), "alpha", [0.1, 0.2], quiet=True)
    (output_dir / "sweep_alpha.csv").unlink()
    table = sweep_frame(RecordStore(output_dir).load(), "alpha")
    write_sweep_outputs(table, "alpha", output_dir, "alpha sweep")
    rebuilt = (output_dir / "sweep_alpha.csv").read_text()
    assert rebuilt == first.table.to_csv(index=False)


def test_sweep_frame_of_no_records_is_empty():
    assert sweep_frame([], "alpha").empty


def test_values_without_runs_get_a_row_with_zero_runs(config_path, output_dir):
    run_sweep(load_config(config_path), "alpha", [0.1], quiet=True)
    records = RecordStore(output_dir).load()
    table = sweep_frame(records, "alpha", [0.1, 0.3])
    assert list(table["alpha"]) == [0.1, 0.3] and list(table["runs"]) == [3, 0]
    assert table["nmi_mean"].isna().tolist() == [False, True]
    empty = sweep_frame([], "alpha", [0.1, 0.3])
    assert list(empty["runs"]) == [0, 0] and "nmi_mean" in empty


def test_curves_with_points_without_runs_are_drawn(tmp_path):
    import pandas as pd

    from shortclust.pipeline.sweep import plot_sweep

    table = pd.DataFrame({"alpha": [0.1, 0.3], "runs": [2, 0], "nmi_mean": [0.5, None],
                          "nmi_std": [0.1, None], "n_clusters_mean": [3.0, None],
                          "n_clusters_std": [0.0, None]})
    assert plot_sweep(table, "alpha", tmp_path / "s.png", "t").exists()


# --- command line ---------------------------------------------------------------------------


def test_cli_sweep_writes_records_table_and_figure(config_path, tmp_path):
    target = tmp_path / "sweep"
    result = invoke("sweep", config_path, "--param", "alpha", "--values", "0.1,0.2",
                    "--runs", "2", "--output", target)
    assert result.exit_code == 0, result.output
    lines = (target / "records.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["params"]["alpha"] for line in lines) == [0.1, 0.1, 0.2, 0.2]
    assert (target / "sweep_alpha.png").is_file()
    assert "alpha" in result.output and "NMI" in result.output


@pytest.mark.parametrize("args, match", [
    (["--param", "gamma", "--values", "1"], "not a parameter"),
    (["--param", "alpha", "--values", "0.1,-1"], "at alpha=-1"),
    (["--param", "alpha"], "declares no grid"),
])
def test_cli_sweep_errors_are_one_line_and_write_nothing(config_path, tmp_path, args, match):
    target = tmp_path / "sweep"
    result = invoke("sweep", config_path, *args, "--output", target)
    assert result.exit_code == 2
    assert match in result.output and result.output.count("\n") == 1
    assert not target.exists()
