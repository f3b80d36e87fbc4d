"""GSDMM Table 2: the K-means on raw counts beside ours, and the paragraph reading them."""

from pathlib import Path

import pandas as pd
import pytest

from shortclust.config import load_config
from shortclust.pipeline.modern import MODERN
from shortclust.pipeline.reproduce import Reproduction
from shortclust.papers.gsdmm import plan
from shortclust.papers.gsdmm.kmeans_gap import (COMPARED, COMPARED_WITH, KMEANS_COUNTS,
                                                VECTORS, gap_table, verdict)
from shortclust.papers.gsdmm.reported import GOOGLE_NEWS, TABLE2_METRICS, TABLE2_PAPER, TRUE_K
from shortclust.papers.gsdmm.tables import write_table2

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs" / "papers" / "gsdmm"


def paper_kmeans(dataset, metric):
    return TABLE2_PAPER[dataset]["K-means"][metric]


def records(values: dict[str, float], runs=3, spread=0.002) -> list[dict]:
    """``runs`` records whose metrics average ``values`` (a little spread around them)."""
    offsets = [spread * (i - (runs - 1) / 2) for i in range(runs)]
    return [{"seed": i, "run_id": str(i), "n_clusters": 152,
             "metrics": {m: v + offsets[i] for m, v in values.items()}}
            for i in range(runs)]


def shifted_paper(dataset, model, shift) -> dict[str, float]:
    """The paper's numbers for ``model`` on ``dataset``, every metric moved by ``shift``."""
    values = {m: TABLE2_PAPER[dataset][model][m][0] + shift for m in TABLE2_METRICS}
    return values | {"ami_max": values["ami"]}


def results(counts_shift=0.0, unit_shift=0.07):
    return {d: {"GSDMM": records(shifted_paper(d, "GSDMM", 0.005)),
                "K-means": records(shifted_paper(d, "K-means", unit_shift)),
                KMEANS_COUNTS: records(shifted_paper(d, "K-means", counts_shift))}
            for d in GOOGLE_NEWS}


def written_table2(tmp_path, table_results):
    job = Reproduction("gsdmm", results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)
    write_table2(job, table_results)
    return ((tmp_path / "gsdmm" / "table2.md").read_text(),
            pd.read_csv(tmp_path / "gsdmm" / "table2.csv"))


def test_the_raw_counts_column_sits_beside_ours_and_is_compared_with_the_papers_kmeans(
        tmp_path):
    text, frame = written_table2(tmp_path, results(counts_shift=0.001))
    assert ("| dataset | metric | GSDMM paper | GSDMM ours | K-means paper | K-means ours | "
            "K-means raw counts ours | DMAFP paper |") in text
    nmi = paper_kmeans("GoogleNews-T", "nmi")[0]
    assert (f"| TitleSet | NMI | 0.874 ± 0.007 | 0.879 ± 0.002 | 0.732 ± 0.007 | "
            f"{nmi + 0.07:.3f} ± 0.002 | {nmi + 0.001:.3f} ± 0.002 | 0.852 ± 0.009 |") in text
    counts = frame[frame["model"] == KMEANS_COUNTS].set_index(["dataset", "metric"])
    assert counts.loc[("GoogleNews-S", "ari"), "paper_mean"] == paper_kmeans("GoogleNews-S",
                                                                             "ari")[0]
    # The paper's AMI is compared with our ami_max, as for the other models.
    assert counts.loc[("GoogleNews-TS", "ami_max"), "paper_std"] == paper_kmeans(
        "GoogleNews-TS", "ami")[1]
    assert "Runs per cell: GSDMM 3, K-means 3, K-means raw counts 3." in text


def test_the_reading_says_which_kmeans_gives_the_papers_numbers(tmp_path):
    text, _ = written_table2(tmp_path, results(counts_shift=0.001))
    assert "| dataset | vectors | NMI | H | C | ARI | AMI (max) |" in text
    assert "| TitleSet | unit TF-IDF rows | +0.070* | +0.070* | +0.070* | +0.070* | +0.070* |" \
        in text
    assert "| TitleSnippetSet | raw counts | +0.001 | +0.001 | +0.001 | +0.001 | +0.001 |" in text
    assert ("K-means on raw counts reproduces the paper's K-means: within noise in every cell "
            "(cells within noise: on unit TF-IDF rows 0 of 15, on raw counts 15 of 15).") in text
    assert "the paper does not say which vectors" in text
    assert "(on TitleSet H 0.692 against C 0.775)" in text  # the paper's, as transcribed
    assert "K-means on TF-IDF vectors with the true K" not in text  # the paper never says so


def test_a_gap_beyond_two_paper_stds_is_marked_and_no_kmeans_is_said_to_reproduce(tmp_path):
    # Two of the paper's stds: NMI, H and C 0.010 to 0.018, ARI 0.034 to 0.060, AMI 0.012
    # to 0.022. A gap of 0.02 is beyond noise for NMI, H and C everywhere, within it for
    # every ARI and for TitleSet's AMI.
    _, frame = written_table2(tmp_path, results(counts_shift=0.02))
    assert ("| TitleSet | raw counts | +0.020* | +0.020* | +0.020* | +0.020 | +0.020 |"
            in gap_table(frame))
    assert verdict(frame) == ("Neither of our K-means is within noise of the paper's in every "
                              "cell (on unit TF-IDF rows 0 of 15, on raw counts 4 of 15).")


def test_a_model_without_runs_is_said_not_run():
    paper = {m: TABLE2_PAPER["GoogleNews-T"]["K-means"][m.replace("ami_max", "ami")]
             for m in COMPARED}
    frame = pd.DataFrame([
        {"dataset": "GoogleNews-T", "model": model, "metric": metric, "mean": mean,
         "paper_mean": paper[metric][0], "paper_std": paper[metric][1]}
        for model, mean in (("K-means", 0.8), (KMEANS_COUNTS, None)) for metric in COMPARED])
    assert gap_table(frame).splitlines()[2:] == [
        "| TitleSet | unit TF-IDF rows | +0.068* | +0.108* | +0.025* | +0.667* | +0.161* |",
        "| TitleSet | raw counts | not run | not run | not run | not run | not run |"]
    assert verdict(frame).startswith("Neither") and "on raw counts" not in verdict(frame)
    assert verdict(frame.iloc[:0]) == "No K-means runs are recorded yet."


def test_table2_runs_kmeans_on_raw_counts_with_the_true_k(monkeypatch):
    calls = []

    class Job:
        paper, fit = "gsdmm", False

        def run(self, path, tag, dataset, overrides=()):
            calls.append((Path(path).name, tag, dataset, list(overrides)))
            return []

        def say(self, message):
            pass

    monkeypatch.setattr(plan.tables, "write_table2", lambda job, found: calls.append(found))
    plan.table2(Job())
    *runs, found = calls
    assert ("kmeans_counts.yaml", "kmeans_counts_GoogleNews-S", "GoogleNews-S",
            [f"model.params.n_clusters={TRUE_K['GoogleNews-S']}"]) in runs
    assert list(found["GoogleNews-TS"]) == ["GSDMM", "K-means", KMEANS_COUNTS, *MODERN, "DMAFP"]
    assert ("minilm_kmeans.yaml", "modern_minilm_kmeans_GoogleNews-T", "GoogleNews-T",
            [f"model.params.n_clusters={TRUE_K['GoogleNews-T']}", "preprocess=none"]) in runs
    assert set(COMPARED_WITH) <= set(VECTORS)


def test_the_raw_counts_config_differs_from_ours_only_in_the_vectors():
    ours = load_config(CONFIGS / "kmeans.yaml")
    counts = load_config(CONFIGS / "kmeans_counts.yaml")
    assert counts.model.name == "kmeans_vsm" and ours.model.name == "kmeans"
    extra = {k: v for k, v in counts.model.params.items() if k not in ours.model.params}
    assert extra == {"use_idf": False, "norm": None}
    assert {k: counts.model.params[k] for k in ours.model.params} | {"n_clusters": 0} == \
        ours.model.params | {"n_clusters": 0}  # K is set per dataset by the reproduction
    assert (counts.runs, counts.metrics, counts.preprocess) == (ours.runs, ours.metrics,
                                                                ours.preprocess)


@pytest.mark.parametrize("model", list(VECTORS))
def test_every_kmeans_of_table2_is_compared_with_the_papers_kmeans(model):
    assert COMPARED_WITH.get(model, model) == "K-means"


def test_dmafp_sits_last_paper_then_ours_and_the_checks_compare_it_with_gsdmm(tmp_path):
    table_results = results()
    for dataset in GOOGLE_NEWS:
        table_results[dataset]["DMAFP"] = records(shifted_paper(dataset, "DMAFP", -0.01))
    text, frame = written_table2(tmp_path, table_results)
    assert "| K-means raw counts ours | DMAFP paper | DMAFP ours |" in text
    assert "| TitleSet | NMI | 0.874 ± 0.007 |" in text and "| 0.852 ± 0.009 | 0.842 ± 0.002 |" in text
    assert "DMAFP 0.842 (paper 0.852) is below GSDMM." in text
    dmafp = frame[frame["model"] == "DMAFP"].set_index(["dataset", "metric"])
    assert dmafp.loc[("GoogleNews-S", "nmi"), "paper_mean"] == 0.868


def test_run_counts_name_the_sets_where_a_row_has_fewer_runs():
    from shortclust.papers.gsdmm.tables import run_counts

    rows = [{"model": "GSDMM", "dataset": d, "runs": 20} for d in ("A", "B")] + [
        {"model": "MiniLM", "dataset": "A", "runs": 5}, {"model": "MiniLM", "dataset": "B",
                                                         "runs": 0}]
    assert run_counts(rows) == "Runs per cell: GSDMM 20, MiniLM (A 5, B 0)."
