"""The iterative-classification paper's reproduction: transcription, t-test marks, tables."""

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.pipeline.fake_estimators import write_corpus
from shortclust.evaluation.stats import mean, mean_std
from shortclust.pipeline.reproduce import Reproduction, metric_values
from shortclust.pipeline.runner import ExperimentInterrupted
from shortclust.papers.ic import figures, notes, plan, reported, runs, significance, tables, timing
from shortclust.papers.registry import get_paper, paper_names

REPO = Path(__file__).resolve().parents[2]
PAPER_TEXT = sorted((REPO.parent / "shared" / "papers").glob("004_*.txt"))
HAC_ROWS = reported.DETERMINISTIC


def records(values, metric="acc", start=0, **fields):
    """Records with ``metric`` (a fraction) = each of ``values`` in percent, seeds from start."""
    return [{"seed": start + i, "metrics": {metric: v / 100}, **fields}
            for i, v in enumerate(values)]


def full_records(acc, nmi, purity=None, n_iter=50, representation=None):
    out = []
    for i, (a, n) in enumerate(zip(acc, nmi)):
        out.append({"seed": i, "metrics": {"acc": a / 100, "nmi": n / 100,
                                           "purity": (purity or a + 5) / 100},
                    "n_iter": n_iter, "fit_seconds": 1.5,
                    "representation": representation or {"name": "sentence_embeddings"}})
    return out


def synthetic_dataset(ic_gain=10.0, seed=0, runs=5):
    """Rows of one dataset: every _IC row about ``ic_gain`` points above its base row."""
    rng = np.random.default_rng(seed)
    rows = {}
    for i, method in enumerate(reported.METHODS):
        n = 1 if method in reported.DETERMINISTIC else runs
        base = 60 + i + rng.normal(0, 0.5, n)
        rows[method] = full_records(base, base - 5)
        better = 60 + i + ic_gain + rng.normal(0, 0.5, runs)
        rows[method + reported.FIXED] = full_records(better, better - 5)
        rows[method + reported.STOPPED] = full_records(better - 1, better - 6, n_iter=2)
    gsdpmm = 30 + rng.normal(0, 0.5, runs)
    rows["GSDPMM"] = full_records(gsdpmm, gsdpmm + 10, purity=90, representation={})
    return rows


# --- registration ---------------------------------------------------------------------------


def test_ic_is_a_registered_paper_with_its_items():
    assert "ic" in paper_names()
    assert list(get_paper("ic").items) == ["hac_sd_ic", "hac_sd_gap", "table2", "table3", "table4", "table5",
                                       "figure1", "figure2", "ablation", "sparse_vs_dense", "claims"]


# --- transcription ----------------------------------------------------------------------------


def test_every_cell_of_tables_2_to_5_is_transcribed():
    paper_only_columns = {"SearchSnippets", "StackOverflow", "BioMedical"}
    for name, (metric, datasets, _) in reported.TABLES.items():
        kind = "small" if datasets is reported.SMALL else "large"
        for row in reported.TABLE_ROWS[kind]:
            for dataset in datasets:
                cell = reported.PAPER[metric][row].get(dataset)
                if row in reported.PAPER_ONLY and dataset not in paper_only_columns:
                    assert cell is None, (name, row, dataset)
                    continue
                assert cell is not None and 0 < cell.mean < 100, (name, row, dataset)
                # HAC is deterministic: one run, no std; every other row has one.
                assert (cell.std is None) == (row in HAC_ROWS), (name, row, dataset)
        for row in reported.PAPER_ONLY:  # only in Tables 2-3
            assert all(d not in reported.PAPER[metric][row] for d in reported.LARGE)


def test_anchor_values_and_marks_of_the_transcription():
    acc, nmi = reported.PAPER["acc"], reported.PAPER["nmi"]
    Reported = reported.Reported
    assert acc["HAC_SD_IC"]["SearchSnippets-test"] == Reported(92.16, 0.85, False)
    assert acc["HAC_SD_IC"]["Tweet"] == Reported(91.52, 0.99, False)
    assert acc["HAC_kNN"]["SearchSnippets"] == Reported(79.08, None, True)
    assert acc["SIF-Auto"]["BioMedical"] == Reported(55.73, 1.97, False)
    assert nmi["GSDPMM"]["Tweet"] == Reported(86.13, 1.91, False)
    assert nmi["HAC_kNN_IC"]["GoogleNews-S"] == Reported(87.71, 0.16, True)
    # Table 3's k-means_IC row carries no * at all; HAC_SD and HAC_SD_IC never do.
    assert not any(nmi["k-means_IC"][d].star for d in reported.SMALL)
    assert all(nmi["k-means_IC"][d].star for d in reported.LARGE)
    for metric in ("acc", "nmi"):
        for row in ("HAC_SD", "HAC_SD_IC"):
            assert not any(c.star for c in reported.PAPER[metric][row].values())
    stars = sum(c.star for rows in reported.PAPER.values() for cells in rows.values()
                for c in cells.values())
    assert stars == 156


@pytest.mark.skipif(not PAPER_TEXT, reason="the paper's text copy is not beside the checkout")
def test_transcription_matches_the_papers_text_copy():
    text = PAPER_TEXT[0].read_text(encoding="utf-8").replace("±plus-or-minus\\pm", "±")
    number = re.compile(r"\d+\.\d+\*?(?:±\d+\.\d+)?")
    for metric, part, table in (("acc", 0, 2), ("nmi", 0, 3), ("acc", 1, 4), ("nmi", 1, 5)):
        start = text.index(f"Table {table}: ")
        end = text.index("Table" if table < 5 else "To compensate", start + 10)
        printed = [number.findall(line) for line in text[start:end].splitlines()[1:]
                   if re.match(r"\s*(HAC|k-|STC2|SIF|GSDPMM)", line)]
        ours = [[cell for cell in row.split("|")[part].split() if cell != "-"]
                for row in reported.PAPER_TEXT[metric].values()]
        assert printed == [row for row in ours if row], table


def test_a_malformed_transcription_cell_is_refused():
    with pytest.raises(ValueError, match="cannot read"):
        reported.parse_reported({"acc": {"HAC": "1.0 2.0 x 4.0 5.0 | 1.0 2.0 3.0 4.0"}})
    with pytest.raises(ValueError, match="expected 5 | 4 cells"):
        reported.parse_reported({"acc": {"HAC": "1.0 | 1.0"}})


def test_appendix_grids_are_the_papers():
    assert [p for p, _ in reported.FIGURE_GRIDS["figure1"]] == [
        0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    assert reported.FIGURE_GRIDS["figure2a"][0] == (0.4, 0.9) and reported.FIGURE_GRIDS["figure2a"][-1] \
        == (0.85, 0.9)
    assert reported.FIGURE_GRIDS["figure2b"][0] == (0.5, 0.55) and reported.FIGURE_GRIDS["figure2b"][-1] \
        == (0.5, 0.95)


# --- t-tests and marks ---------------------------------------------------------------------


def test_marks_dagger_below_own_ic_and_star_below_hac_sd_ic():
    rows = synthetic_dataset(ic_gain=10.0)
    rows["HAC"] = full_records([99.0], [99.0])  # HAC far above everything: no mark
    marks = {row: significance.marks_for(row, rows, "acc")[0] for row in reported.ROWS + ["GSDPMM"]}
    assert marks["HAC_SD"] == "†"  # below its _IC; not compared with HAC_SD_IC twice
    assert marks["HAC_SD_IC"] == ""
    assert marks["HAC_kNN"] == "†*" and marks["k-means"] == "†*"
    assert marks["HAC"] == ""
    assert marks["GSDPMM"] == "*"
    assert marks["k-means--_IC"] == ""  # above HAC_SD_IC (60 + 4 + 10 > 60 + 10)
    _, tests = significance.marks_for("HAC_kNN", rows, "acc")
    assert tests["vs_ic"].kind == "one-sample" and tests["vs_best"].kind == "one-sample"
    assert significance.marks_for("k-means", rows, "acc")[1]["vs_ic"].kind == "paired"


def test_effect_cell_says_whether_ic_raised_both_metrics():
    rows = synthetic_dataset(ic_gain=10.0)
    assert significance.effect_cell(rows, "k-means").startswith("yes, both significant: ACC +")
    lower = synthetic_dataset(ic_gain=-5.0)
    assert significance.effect_cell(lower, "HAC_SD").startswith("no: ACC -")
    mixed = synthetic_dataset(ic_gain=10.0)
    mixed["k-means_IC"] = full_records([80, 81, 82, 80, 81], [1, 2, 1, 2, 1])
    assert significance.effect_cell(mixed, "k-means").startswith("no: ")
    slight = synthetic_dataset(ic_gain=10.0)
    base = [r["metrics"]["acc"] * 100 for r in slight["k-means"]]
    slight["k-means_IC"] = full_records([b + d for b, d in zip(base, [3, -2, 2, -1, 0.5])],
                                        [b + 10 for b in base])
    assert significance.effect_cell(slight, "k-means").startswith("yes, not both significant")
    assert significance.effect_cell({}, "HAC") == "n/a"


# --- tables ------------------------------------------------------------------------------------


def test_table_layout_paper_beside_ours_and_absent_datasets():
    table = tables.build_table("table2", {"SearchSnippets-test": synthetic_dataset()}, "FOOTER")
    text = table.markdown
    header = text.splitlines()[2]
    assert "| SearchSnippetTest paper | SearchSnippetTest ours | SearchSnippetTest ours purity |" \
        in header
    for absent in ("SearchSnippet", "AgNews", "StackOverflow", "BioMedical"):
        assert f"| {absent} paper (not present here) |" in header + "|"
        assert f"- {absent}: not present in the data directory, not run." in text
    hac_sd_ic = next(line for line in text.splitlines() if line.startswith("| HAC_SD_IC |"))
    assert hac_sd_ic.startswith("| HAC_SD_IC | 87.67 ± 0.63 | 92.16 ± 0.85 | ")
    hac_knn = next(line for line in text.splitlines() if line.startswith("| HAC_kNN |"))
    assert re.match(r"\| HAC_kNN \| 79\.08 \* \| 87\.14 \* \| 6\d\.\d\d †\* \|", hac_knn)
    stc2 = next(line for line in text.splitlines() if line.startswith("| STC2-LE |"))
    assert stc2 == ("| STC2-LE | 78.29 ± 2.72 * | - | paper only | paper only | - | "
                    "53.81 ± 3.37 * | 44.81 ± 1.72 * |")
    assert "**" in text  # our best row is bold
    assert "sentence embeddings (all-MiniLM-L6-v2)" in text
    assert "| HAC_SD_IC (3.3) | " in text and "(2.0 it.)" in text
    assert re.search(r"- SearchSnippetTest: HAC_SD_IC (69|70)\.\d\d vs paper 92\.16 \(-2", text)
    assert "Runs per cell: 5 (HAC_SD, HAC_kNN, HAC: one run" in text
    assert text.rstrip().endswith("FOOTER")


def test_run_counts_are_given_per_dataset_when_they_differ():
    results = {"Tweet": synthetic_dataset(runs=20), "GoogleNews-TS": synthetic_dataset(runs=2)}
    text = tables.build_table("table4", results).markdown
    assert "Runs per cell: Tweet 20; GoogleNews-TS 2 (HAC_SD" in text


def test_table_csv_holds_marks_tests_and_the_papers_numbers():
    frame = tables.build_table("table4", {"Tweet": synthetic_dataset()}).frame
    row = frame[(frame["row"] == "k-means") & (frame["metric"] == "acc")].iloc[0]
    assert row["runs"] == 5 and bool(row["dagger"]) and bool(row["star"])
    assert row["ic_test"] == "paired" and row["ic_p"] < 0.05 and row["ic_diff"] > 5
    assert row["paper_mean"] == 82.85 and row["paper_std"] == 0.24 and row["paper_star"]
    stopped = frame[(frame["row"] == "HAC_SD_IC (3.3)") & (frame["metric"] == "acc")].iloc[0]
    assert stopped["n_iter_mean"] == 2.0
    assert set(frame["metric"]) == {"acc", "purity"}
    nmi = tables.build_table("table5", {"Tweet": synthetic_dataset()}).frame
    assert set(nmi["metric"]) == {"nmi"}


def test_tables_carry_no_fit_times():
    # Fit times change when the same runs are fitted again; they belong in timing.md only.
    table = tables.build_table("table4", {"Tweet": synthetic_dataset()})
    assert not [c for c in table.frame.columns if "seconds" in c]
    assert "Fitting behind" not in table.markdown and " min" not in table.markdown
    assert "Time taken: `timing.md`." in table.markdown
    grid = figures.grid_frame({(0.5, 0.5): full_records([70.0], [60.0])}, "P1")
    assert not [c for c in grid.columns if "seconds" in c]


def test_nmi_table_has_no_purity_column_and_an_effect_table():
    text = tables.build_table("table3", {"StackOverflow": synthetic_dataset()}).markdown
    assert "purity" not in text.splitlines()[2]
    assert "| HAC_SD | yes, both significant: ACC +" in text


def test_no_present_dataset_still_gives_a_table():
    text = tables.build_table("table5", {}).markdown
    assert "No dataset of this table is present in the data directory." in text
    assert "| HAC_SD_IC | 86.87 ± 0.13 | 93.21 ± 0.14 | 87.87 ± 1.00 | 89.96 ± 0.11 |" in text


def test_check_says_within_or_not_for_acc_and_purity():
    rows = {"SearchSnippets-test": {
        "HAC_SD": full_records([88.0], [78.0]),
        "HAC_SD_IC": full_records([90.0, 91.0], [85.0, 86.0], purity=93.0),
        "HAC_SD_IC (3.3)": full_records([89.0, 89.5], [84.0, 84.5], n_iter=1)}}
    text, frame = tables.build_check({"GloVe": rows})
    assert "- SearchSnippetTest (GloVe): ACC 90.50 vs 92.16 (-1.66): within 5 points; purity " \
           "(the authors' code's 'acc') 93.00 (+0.84): within." in text
    assert "Of the gap: with ACC, HAC_SD itself is -1.47 from the paper (88.00 vs 89.47) " \
           "and IC adds +2.50 (paper +2.69)" in text
    assert "- Tweet: not present in the data directory." in text
    assert len(frame) == 9
    rows["SearchSnippets-test"]["HAC_SD_IC"] = full_records([70.0, 71.0], [70.0, 71.0])
    assert "(-21.66): NOT within 5 points" in tables.build_check({"GloVe": rows})[0]


def test_tables_show_each_representation_beside_the_paper():
    both = {"GloVe": {"Tweet": synthetic_dataset()}, "MiniLM": {}}
    table = tables.build_tables("table4", both, "FOOTER")
    text = table.markdown
    assert "| method | Tweet paper | Tweet GloVe | Tweet MiniLM |" in text
    assert "## GloVe (the paper's kind of representation)" in text
    assert "## MiniLM" in text and "### Gap to the paper" in text
    assert "- Tweet: GloVe" in text and "MiniLM no runs: not every row has runs yet." in text
    assert set(table.frame["representation"]) == {"GloVe"}
    assert text.rstrip().endswith("FOOTER")


def test_tables_report_words_without_a_vector_from_the_records():
    glove = synthetic_dataset()
    glove["HAC_SD"][0]["representation_coverage"] = {
        "words": 100, "words_without_vector": 7, "tokens": 1000,
        "tokens_without_vector": 20, "documents": 50, "documents_without_vector": 1}
    text = tables.build_tables("table4", {"GloVe": {"Tweet": glove}}).markdown
    assert "- Tweet, GloVe: word vectors: 7 of 100 words (20 of 1,000 tokens, 2.0%) have " \
           "none; 1 of 50 documents has none" in text


def test_closeness_names_the_representation_nearer_the_paper():
    near, far = synthetic_dataset(), synthetic_dataset()
    for records in far.values():
        for record in records:
            record["metrics"] = {m: v - 0.2 for m, v in record["metrics"].items()}
    lines = tables.closeness_lines({"GloVe": {"Tweet": near}, "MiniLM": {"Tweet": far}},
                                   ["Tweet"], "acc")
    assert lines[1].endswith(": GloVe is closer.")


# --- figures ---------------------------------------------------------------------------------


def test_figure_tables_and_best_values():
    grouped = {}
    for i, (p1, p2) in enumerate(reported.FIGURE_GRIDS["figure1"]):
        grouped[(p1, p2)] = [
            {"seed": s, "params": {"P1": p1, "P2": p2}, "fit_seconds": 1.0,
             "metrics": {"acc": (70 + i - s) / 100, "purity": (80 + i) / 100, "nmi": 0.6}}
            for s in range(2)]
    frame = figures.grid_frame(grouped, "P1")
    assert list(frame["runs"]) == [2] * 12 and frame["acc_mean"].iloc[0] == pytest.approx(69.5)
    lines = figures.figure_markdown("figure1", {"figure1": {"Tweet": frame}})
    text = "\n".join(lines)
    assert "| 0.40 | 69.50 ± 0.71 | 80.00 ± 0.00 | 60.00 ± 0.00 |" in text
    assert "- Tweet: paper best 84.88 at P = 0.60; ours: best ACC 80.50 at P = 0.95, best " \
           "purity 91.00 at P = 0.95." in text


def test_figure_outputs_write_table_and_png(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    job = Reproduction("ic", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)
    grouped = {point: [{"seed": 0, "params": {"P1": point[0], "P2": point[1]},
                        "metrics": {"acc": 0.7, "purity": 0.8, "nmi": 0.6}}]
               for point in reported.FIGURE_GRIDS["figure2a"] + reported.FIGURE_GRIDS["figure2b"]}
    panels = {panel: {"SearchSnippets-test": figures.grid_frame(
        {p: grouped[p] for p in reported.FIGURE_GRIDS[panel]}, x)}
        for panel, x in (("figure2a", "P1"), ("figure2b", "P2"))}
    figures.write_figure(job, "figure2", panels, "Representation: REPRESENTATION.")
    text = (tmp_path / "ic" / "figure2.md").read_text()
    assert "## Figure 2a: P2 = 0.90, P1 varies" in text and "Runs per point: 1 (" in text
    assert "Representation: REPRESENTATION." in text
    assert (tmp_path / "ic" / "figure2.png").stat().st_size > 0
    assert len(pd.read_csv(tmp_path / "ic" / "figure2.csv")) == 19


# --- composition of the configs and the runs ------------------------------------------------


class RecordingJob(Reproduction):
    """A Reproduction whose runs are recorded, not fitted."""

    def __init__(self, **options):
        super().__init__("ic", **options)
        self.calls = []

    def run(self, path, tag, dataset=None, overrides=()):
        config = self.config(path, dataset, overrides)
        self.calls.append((tag, config))
        return []


def test_ic_rows_start_from_their_initial_configs(monkeypatch):
    monkeypatch.chdir(REPO)
    job = RecordingJob(runs=3)
    runs.run_method(job, "HAC_SD", "Tweet")
    runs.run_method(job, "k-means", "Tweet")
    configs = {tag.rsplit("_", 2)[0]: config for tag, config in job.calls}
    assert sorted(configs) == ["hac_sd", "hac_sd_ic33", "hac_sd_ic50", "kmeans", "kmeans_ic33",
                               "kmeans_ic50"]
    assert configs["hac_sd"].seed_list == [0]  # deterministic: once, whatever --runs says
    assert configs["kmeans"].seed_list == [0, 1, 2]
    for method in ("hac_sd", "kmeans"):
        base = configs[method]
        assert base.model.params["n_clusters"] == 89
        for rule, tol in (("ic50", None), ("ic33", 0.05)):
            enhanced = configs[f"{method}_{rule}"]
            params = enhanced.model.params
            assert enhanced.model.name == "iterative_classification"
            assert params["initial"] == base.model.name
            assert params["initial_params"] == base.model.params
            assert params["n_clusters"] == 89 and params["tol"] == tol
            assert params["max_iter"] == 50
            assert enhanced.representation == base.representation
            assert enhanced.seed_list == [0, 1, 2]
    # Tags name what is run: another representation is another directory.
    tags = [tag for tag, _ in job.calls]
    assert len(set(tags)) == len(tags)
    assert all(tag.split("_")[-2] == "Tweet" for tag in tags)


def test_glove_rows_run_the_same_configs_on_glove_in_their_own_directories(monkeypatch):
    monkeypatch.chdir(REPO)
    job = RecordingJob(runs=2)
    runs.run_method(job, "k-means", "Tweet", "GloVe")
    runs.run_method(job, "k-means", "Tweet", "MiniLM")
    glove = {tag.rsplit("_", 2)[0]: c for tag, c in job.calls if tag.startswith("glove_")}
    minilm = {tag.rsplit("_", 2)[0]: c for tag, c in job.calls if not tag.startswith("glove_")}
    assert sorted(glove) == ["glove_kmeans", "glove_kmeans_ic33", "glove_kmeans_ic50"]
    assert sorted(minilm) == ["kmeans", "kmeans_ic33", "kmeans_ic50"]  # archived tags kept
    for config in glove.values():
        assert config.representation["name"] == "glove"
    for config in minilm.values():
        assert config.representation["name"] == "sentence_embeddings"


def test_item_overrides_win_over_runs(monkeypatch):
    monkeypatch.chdir(REPO)
    job = Reproduction("ic", runs=4)
    path = runs.CONFIGS / "hac_sd.yaml"
    assert job.config(path, "Tweet", ["seeds=[0]"]).seed_list == [0]
    assert job.config(path, "Tweet").seed_list == [0, 1, 2, 3]


# --- wall time -----------------------------------------------------------------------------


def test_timing_keeps_one_row_per_item_and_run_count(tmp_path):
    job = Reproduction("ic", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)
    timing.record_timing(job, "table2", 90.0, 10, {"runs": 12, "fit_seconds": 60.0})
    timing.record_timing(job, "hac_sd_ic", 30.0, 6, {"runs": 6, "fit_seconds": 20.0})
    timing.record_timing(job, "table2", 3.0, 0, {"runs": 12, "fit_seconds": 60.0})
    job.runs = None
    timing.record_timing(job, "table2", 600.0, 100, {"runs": 120, "fit_seconds": 500.0})
    frame = pd.read_csv(tmp_path / "ic" / "timing.csv", dtype={"runs_setting": str})
    assert list(zip(frame["item"], frame["runs_setting"])) == [
        ("hac_sd_ic", "2"), ("table2", "2"), ("table2", "default (20; figures 5)")]
    text = (tmp_path / "ic" / "timing.md").read_text()
    assert "| table2 | 2 | 1.5 | 10 | 12 | 1.0 |" in text  # reuse only: time kept
    assert "- `--runs 2`: 2.0 min of wall time over 2 items, 16 runs fitted." in text
    timing.record_timing(job, "table2", 60.0, 20, {"runs": 120, "fit_seconds": 500.0})  # resumed
    timing.record_timing(job, "hac_sd_ic", 30.0, 2, {"runs": 6, "fit_seconds": 20.0})
    timing.record_timing(job, "hac_sd_ic", 12.0, 6, {"runs": 6, "fit_seconds": 20.0})
    frame = pd.read_csv(tmp_path / "ic" / "timing.csv", dtype={"runs_setting": str})
    rows = frame.set_index(["item", "runs_setting"])
    assert rows.loc[("table2", "default (20; figures 5)"), ["wall_seconds", "runs_fitted"]].tolist() \
        == [660.0, 120]
    assert rows.loc[("hac_sd_ic", "default (20; figures 5)"), "wall_seconds"] == 12.0  # fitted all: anew


def test_a_no_fit_rebuild_does_not_pass_for_the_items_wall_time(tmp_path):
    job = Reproduction("ic", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True,
                       fit=False)
    timing.record_timing(job, "table2", 4.0, 0, {"runs": 12, "fit_seconds": 600.0})
    text = (tmp_path / "ic" / "timing.md").read_text()
    assert "| table2 | 2 | not measured | 0 | 12 | 10.0 |" in text
    assert "- `--runs 2`: wall time not measured, 0 runs fitted." in text
    job.fit = True
    timing.record_timing(job, "table2", 90.0, 12, {"runs": 12, "fit_seconds": 600.0})
    assert "| table2 | 2 | 1.5 | 12 | 12 | 10.0 |" in (tmp_path / "ic" / "timing.md").read_text()


def test_a_measured_invocation_after_an_unmeasured_one_keeps_its_time(tmp_path):
    job = Reproduction("ic", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True,
                       fit=False)
    timing.record_timing(job, "table2", 4.0, 0, {"runs": 12, "fit_seconds": 600.0})
    job.fit = True  # resumed: fits the 8 runs still missing
    timing.record_timing(job, "table2", 90.0, 8, {"runs": 20, "fit_seconds": 900.0})
    assert "| table2 | 2 | 1.5 | 8 | 20 | 15.0 |" in (tmp_path / "ic" / "timing.md").read_text()
    timing.record_timing(job, "table2", 30.0, 0, {"runs": 20, "fit_seconds": 900.0},
                     interrupted=True)  # stopped in the middle of a run: its time counts
    assert "| table2 | 2 | 2.0 | 8 | 20 | 15.0 |" in (tmp_path / "ic" / "timing.md").read_text()


def test_timed_item_records_its_runs(tmp_path):
    job = Reproduction("ic", runs=1, results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)

    def item(job):
        job.fitted += 3
        return {"runs": 5, "fit_seconds": 2.0}

    timing.timed("figure1", item, ["figure1"])(job)
    frame = pd.read_csv(tmp_path / "ic" / "timing.csv")
    assert frame.iloc[0][["runs_fitted", "runs_used"]].tolist() == [3, 5]


# --- end to end on a tiny corpus --------------------------------------------------------------


def test_a_table_end_to_end_on_a_tiny_corpus(tmp_path, monkeypatch):
    """Real runs (TF-IDF instead of embeddings, a 12-document corpus as the only dataset)."""
    monkeypatch.chdir(REPO)
    corpus = str(write_corpus(tmp_path / "tiny.jsonl"))
    monkeypatch.setitem(reported.DATASETS, corpus, ("Tiny", 3))
    monkeypatch.setitem(reported.TABLES, "table2", ("acc", [corpus], 2))
    monkeypatch.setitem(notes.DATA_NOTES, corpus, "a test corpus")
    monkeypatch.setattr(Reproduction, "dataset_here", lambda self, name: True)
    base_overrides = runs.base_overrides
    monkeypatch.setattr(plan, "REPRESENTATIONS", {"TF-IDF": None})
    monkeypatch.setattr(runs, "REPRESENTATIONS", {"TF-IDF": None})
    # The modern baselines need sentence embeddings: none on this corpus (their rows say so).
    monkeypatch.setattr(plan, "run_modern", lambda job, dataset, k, preprocess=None: {})
    monkeypatch.setattr(runs, "base_overrides", lambda method, dataset, rep: base_overrides(
        method, dataset, rep) + ["representation={name: tfidf}", "preprocess=none",
                            *(["model.params.n_init=2"] if "k-means" in method else [])])
    job = Reproduction("ic", runs=2, results_dir=tmp_path / "r", work_dir=tmp_path / "w",
                       quiet=True)
    plan.ITEMS["table2"](job)
    text = (tmp_path / "r" / "ic" / "table2.md").read_text()
    assert "| Tiny paper | Tiny ours | Tiny ours purity |" in text
    assert "TF-IDF vectors" in text
    assert "| MiniLM k-means (not in paper) | ACC | - |" in text
    frame = pd.read_csv(tmp_path / "r" / "ic" / "table2.csv")
    counts = frame[frame["metric"] == "acc"].set_index("row")["runs"]
    assert counts["HAC_SD"] == 1 and counts["k-means"] == 2 and counts["HAC_SD_IC"] == 2
    assert counts["GSDPMM"] == 2
    timing = pd.read_csv(tmp_path / "r" / "ic" / "timing.csv")
    # HAC rows once, k-means and k-means-- twice, ten IC rows twice, GSDPMM twice.
    assert timing.iloc[0]["runs_fitted"] == timing.iloc[0]["runs_used"] == 3 + 4 + 20 + 2
    job.fitted = 0
    plan.ITEMS["table2"](job)  # everything is reused
    assert job.fitted == 0


# Ctrl-C between two fits, and during a fit (the runner turns it into ExperimentInterrupted).
@pytest.mark.parametrize("stop", [KeyboardInterrupt, lambda: ExperimentInterrupted(2, 20)])
def test_an_interrupted_item_adds_its_time_and_runs(tmp_path, stop):
    job = Reproduction("ic", runs=1, results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)
    timing.record_timing(job, "table2", 100.0, 4, {"runs": 10, "fit_seconds": 80.0})

    def stopped(job):
        job.fitted += 2
        raise stop()

    with pytest.raises((KeyboardInterrupt, ExperimentInterrupted)):
        timing.timed("table2", stopped, ["table2"])(job)
    rows = pd.read_csv(tmp_path / "ic" / "timing.csv").set_index("item")
    assert rows.loc["table2", "runs_fitted"] == 6 and rows.loc["table2", "runs_used"] == 10
    assert rows.loc["table2", "fit_seconds_sum"] == 80.0  # the last complete build's
    assert rows.loc["table2", "wall_seconds"] >= 100.0  # earlier time kept, this one added
    # The next invocation finishes the remaining runs: its time adds up too.
    timing.record_timing(job, "table2", 50.0, 4, {"runs": 10, "fit_seconds": 80.0})
    rows = pd.read_csv(tmp_path / "ic" / "timing.csv").set_index("item")
    assert rows.loc["table2", "runs_fitted"] == 10 and rows.loc["table2", "wall_seconds"] >= 150.0


def test_cells_do_not_depend_on_the_order_runs_were_recorded_in():
    # --jobs records runs as they finish; a fresh clone restores them in seed order.
    from shortclust.pipeline.reproduce import by_seed

    values = [0.1, 0.2, 0.3, 0.7, 0.11]
    records = [{"seed": seed, "run_id": f"r{seed}", "metrics": {"acc": value},
                "fit_seconds": value} for seed, value in enumerate(values)]
    orders = list(itertools.permutations(records))
    naive = {mean_std(significance.values_of(list(order), "acc").values()) for order in orders}
    assert len(naive) > 1  # the last digits do depend on the order of the terms
    cells = {(mean_std(significance.values_of(by_seed(list(order)), "acc").values()),
              mean(metric_values(by_seed(list(order)), "fit_seconds")))
             for order in orders}
    assert len(cells) == 1


# --- the HAC_SD gap ---------------------------------------------------------------------------


def test_hac_sd_gap_text_states_what_each_suspect_measured():
    from shortclust.papers.ic.hac_sd_gap import gap_text

    rows = [{"suspect": "ours", "setting": "s", "acc": 80.0, "nmi": 70.0},
            {"suspect": "linkage library", "setting": "f", "acc": 80.0, "nmi": 70.0},
            {"suspect": "linkage input", "setting": "r", "acc": 75.0, "nmi": 60.0},
            {"suspect": "sparsification count", "setting": "c", "acc": 81.0, "nmi": 60.0},
            {"suspect": "subset", "setting": "0", "acc": 70.0, "nmi": 50.0},
            {"suspect": "subset", "setting": "1", "acc": 72.0, "nmi": 50.0}]
    text = gap_text(rows)
    assert "fastcluster gives the same labels as scipy" in text
    assert "other counts than Algorithm 2's l = n/K - 1 score higher (81.00 to 81.00)" in text
    assert "give 71.00 ± 1.41 (from 70.00 to 72.00) against 80.00" in text
    assert "an implementation choice above moves HAC_SD" in text  # a count scored higher
    assert "Not measured yet" in gap_text([])


def test_hac_sd_gap_no_fit_reads_the_archive_and_measures_nothing(tmp_path, monkeypatch):
    from shortclust.papers.ic import hac_sd_gap as gap

    monkeypatch.setattr(gap, "measure", lambda data_dir=None: pytest.fail("measured"))
    job = Reproduction("ic", results_dir=tmp_path, work_dir=tmp_path / "w", fit=False,
                       quiet=True)
    gap.hac_sd_gap(job)
    assert "Not measured yet" in (tmp_path / "ic" / "hac_sd_gap.md").read_text()
    archive = tmp_path / "ic" / "records" / gap.ARCHIVE
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_text('[{"suspect": "ours", "setting": "s", "acc": 80.0, "nmi": 70.0}]')
    gap.hac_sd_gap(job)
    assert "| ours | s | 80.00 | 70.00 |" in (tmp_path / "ic" / "hac_sd_gap.md").read_text()
