"""The Ncut-NMF paper's reproduction: transcription, the claim check, tables (synthetic, fast)."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from shortclust.experiments.reproduce import Reproduction
from shortclust.models import get_model_class
from shortclust.papers.ncut import plan, reported, tables, timing
from shortclust.papers.registry import get_paper

REPO = Path(__file__).resolve().parents[2]
PAPER_TEXT = sorted((REPO.parent / "shared" / "papers").glob("001_*.txt"))


def test_registered_with_every_item():
    assert get_paper("ncut").items is plan.ITEMS
    assert list(get_paper("ncut").items) == ["table1", "table2", "table3", "figure3", "true_k",
                                         "lambda"]


def test_six_methods_each_with_a_config():
    # The paper lists six methods (section 4.1.2, Table 3): three NMF, two RLSI, Kmeans+idf.
    assert reported.METHODS == ["NMF+nc", "NMF+idf", "NMF+01", "RLSI+idf", "RLSI+nc",
                                "Kmeans+idf"]
    assert list(plan.METHOD_CONFIGS) == reported.METHODS
    for method in reported.METHODS:
        assert (REPO / plan.config_path(method)).exists()
    assert set(reported.TABLE3_PAPER) == set(reported.METHODS)


def test_transcription_is_complete():
    assert set(reported.TABLE2_PAPER) == {"humidity", "pittsburgh", "video", "cap", "org", "refuse"}
    for idf, idf_rank, weight, weight_rank, delta in reported.TABLE2_PAPER.values():
        assert 0 < weight < 1 < idf
        # The paper's delta is the rank difference, except 'video' (659 - 161 = 498, printed
        # as +498) which agrees; check every row.
        assert delta == idf_rank - weight_rank
    for method, clusters in reported.TABLE3_PAPER.items():
        assert len(clusters) == len(reported.TABLE3_CLUSTERS) == 4
        assert all(len(c.split()) == 5 for c in clusters), method
    assert reported.TABLE1_PAPER["Titles"]["classes"] == 9


@pytest.mark.skipif(not PAPER_TEXT, reason="paper text not beside the checkout")
def test_transcription_matches_the_paper_text():
    text = PAPER_TEXT[0].read_text(encoding="utf-8")
    for term, (idf, idf_rank, weight, weight_rank, delta) in reported.TABLE2_PAPER.items():
        assert f"{term}\t{idf:.3f}({idf_rank})\t{weight:.3f}({weight_rank})\t{delta:+d}" in text
    for i, label in enumerate(reported.TABLE3_CLUSTERS):
        line = next(x for x in text.splitlines() if re.match(rf"cluster{i + 1}: ", x))
        assert label.split()[0] in line
        assert line.split("\t")[1:] == [reported.TABLE3_PAPER[m][i] for m in reported.TABLE3_PAPER]


def synthetic_frame(nc_gain=0.05, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for dataset in ("A", "B"):
        for k in plan.K_GRID:
            for metric in reported.METRICS:
                base = rng.uniform(0.2, 0.6)
                for method in reported.METHODS:
                    gain = nc_gain if method == "NMF+nc" else rng.uniform(-0.02, 0.0)
                    rows.append({"dataset": dataset, "method": method, "K": k,
                                 "metric": metric, "runs": 3, "mean": base + gain,
                                 "std": 0.01})
    return pd.DataFrame(rows)


def test_claim_holds_when_nmf_nc_is_always_above():
    checks = tables.claim_check(synthetic_frame())
    assert list(checks["dataset"]) == ["A", "B"] and checks["holds"].all()
    k_above_3 = sum(k > 3 for k in plan.K_GRID)
    assert (checks["comparisons"] == k_above_3 * 3 * 4).all()


def test_claim_fails_on_one_loss_and_names_it():
    frame = synthetic_frame()
    hit = (frame["dataset"] == "B") & (frame["K"] == 8) & (frame["metric"] == "ari") & (
        frame["method"] == "RLSI+idf")
    frame.loc[hit, "mean"] += 1.0
    checks = tables.claim_check(frame).set_index("dataset")
    assert checks.loc["A", "holds"] and not checks.loc["B", "holds"]
    assert checks.loc["B", "lost"] == "RLSI+idf K=8 ARI"
    assert checks.loc["B", "won"] == checks.loc["B", "comparisons"] - 1


def test_claim_ignores_small_k_and_rlsi_nc():
    frame = synthetic_frame()
    frame.loc[(frame["K"] <= 3) & (frame["method"] == "NMF+idf"), "mean"] += 1.0
    frame.loc[frame["method"] == "RLSI+nc", "mean"] += 1.0  # not among the claim's baselines
    assert tables.claim_check(frame)["holds"].all()
    assert not tables.claim_check(frame, k_min=0)["holds"].any()


def test_pair_wins_and_worst_share():
    frame = synthetic_frame(nc_gain=-0.5)
    assert tables.worst_share(frame, "NMF+nc") == (len(frame) // 6, len(frame) // 6)
    won, made = tables.pair_wins(frame, "NMF+idf", "NMF+nc")
    assert won == made == len(frame) // 6


def test_rank_table_ranks_heaviest_first():
    # term 0 in every document (idf 0), term 2 alone in a document (highest idf and Ncut).
    counts = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [1, 1, 0]]))
    ranks = tables.rank_table(counts, ["every", "common", "rare"]).set_index("term")
    assert ranks.loc["rare", "idf_rank"] == 1 and ranks.loc["every", "idf_rank"] == 3
    assert ranks.loc["rare", "ncut_rank"] == 1
    assert (ranks["delta_rank"] == ranks["idf_rank"] - ranks["ncut_rank"]).all()


def test_figure_markdown_and_claim_lines_format():
    frame = synthetic_frame()
    text = tables.figure_markdown(frame, plan.K_GRID)
    assert "## A: Purity" in text and "## B: ARI" in text
    assert "| K | NMF+nc | NMF+idf | NMF+01 | RLSI+idf | RLSI+nc | Kmeans+idf |" in text
    assert re.search(r"\| 2 \| 0\.\d{3} ± 0\.010 \|", text)
    lines = tables.claim_lines(tables.claim_check(frame))
    assert lines[0].startswith("- A: NMF+nc beats NMF+idf, NMF+01, RLSI+idf, Kmeans+idf in")
    assert "the claim holds" in lines[0]


def test_stat_rows_mean_and_sample_std():
    records = [{"metrics": {"purity": v, "nmi": v, "ari": v}} for v in (0.2, 0.4)]
    rows = tables.stat_rows("NMF+nc", records, dataset="A", K=4)
    assert [r["metric"] for r in rows] == reported.METRICS
    assert rows[0]["mean"] == pytest.approx(0.3) and rows[0]["std"] == pytest.approx(0.1414, 1e-3)
    assert rows[0]["runs"] == 2 and rows[0]["dataset"] == "A"


def test_kmeans_idf_clusters_binary_idf_vectors():
    model_class = get_model_class("kmeans_idf")
    counts = sp.csr_matrix(np.array([[3, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 2],
                                     [0, 0, 2, 1]]), dtype=np.int64)
    model = model_class(n_clusters=2, n_init=2, random_state=0).fit(counts)
    labels = model.labels_
    assert labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2]
    assert np.allclose(model.idf_weights_, np.log(2))
    # Binary x idf: the counts 3 and 1 weigh the same, so documents 0 and 1 coincide.
    assert np.array_equal(model.predict(counts), labels)
    assert len(model.top_words(2)) == 2


def test_table2_write_formats_paper_and_ours(tmp_path):
    counts = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [1, 1, 0]]))
    ranks = tables.rank_table(counts, ["video", "humid", "other"])

    class Corpus:
        pass

    corpus = Corpus()
    corpus.counts = counts
    job = Reproduction("ncut", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w",
                       quiet=True)
    tables.write_table2(job, ranks, corpus, lambda w: {"humidity": "humid"}.get(w, w))
    text = (tmp_path / "ncut" / "table2.md").read_text()
    assert "| humidity | 5.238 (2054) | 0.147 (640) | +1414 | humid | 0.288 (2) |" in text
    assert "| pittsburgh |" in text and "not in vocabulary" in text
    assert (tmp_path / "ncut" / "table2.csv").exists()


def test_claim_counts_significant_wins_and_losses_by_welch():
    frame = synthetic_frame()  # NMF+nc 0.05 above, std 0.01, 3 runs: every win significant
    checks = tables.claim_check(frame).set_index("dataset")
    assert (checks["won_significant"] == checks["comparisons"]).all()
    assert (checks["lost_significant"] == 0).all()
    hit = (frame["dataset"] == "B") & (frame["K"] == 8) & (frame["metric"] == "ari") & (
        frame["method"] == "RLSI+idf")
    frame.loc[hit, "mean"] += 1.0
    frame.loc[(frame["dataset"] == "A") & (frame["method"] == "NMF+idf"), "std"] = 1.0
    checks = tables.claim_check(frame).set_index("dataset")
    assert checks.loc["B", "lost_significant"] == 1
    per_baseline = checks.loc["A", "comparisons"] // 4
    assert checks.loc["A", "won_significant"] == checks.loc["A", "comparisons"] - per_baseline


def test_cells_without_runs_are_not_compared():
    frame = synthetic_frame()
    full = tables.claim_check(frame).set_index("dataset").loc["A", "comparisons"]
    frame.loc[(frame["dataset"] == "A") & (frame["method"] == "Kmeans+idf"), "mean"] = np.nan
    checks = tables.claim_check(frame).set_index("dataset")
    assert checks.loc["A", "comparisons"] == full - full // 4
    assert checks.loc["A", "holds"]


def test_true_k_table_carries_no_fit_times(tmp_path):
    records = [{"seed": s, "metrics": {"purity": 0.5 + s / 10, "nmi": 0.4, "ari": 0.3},
                "fit_seconds": 1.0 + s} for s in range(3)]
    job = Reproduction("ncut", runs=3, results_dir=tmp_path, work_dir=tmp_path / "w",
                       quiet=True)
    tables.write_true_k(job, {("A", 4): {m: records for m in reported.METHODS}}, ["B"])
    frame = pd.read_csv(tmp_path / "ncut" / "true_k.csv")
    assert set(frame["metric"]) == set(reported.METRICS)  # no fit_seconds rows
    text = (tmp_path / "ncut" / "true_k.md").read_text()
    assert "| A | 4 | Purity | 0.600 ± 0.100 |" in text and "Not present: B." in text


def test_fit_times_go_to_the_timing_file_one_item_at_a_time(tmp_path):
    job = Reproduction("ncut", runs=2, results_dir=tmp_path, work_dir=tmp_path / "w",
                       quiet=True)
    runs = [{"seed": 0, "fit_seconds": 2.0}, {"seed": 1, "fit_seconds": 4.0}]
    order = list(plan.ITEMS)
    timing.record_fit_times(job, "true_k", [timing.fit_time_row("true_k", "A", "NMF+nc", runs)],
                            order)
    timing.record_fit_times(job, "figure3", [timing.fit_time_row("figure3", "A", "NMF+nc",
                                                                 runs[:1])], order)
    timing.record_fit_times(job, "true_k", [timing.fit_time_row("true_k", "A", "NMF+nc",
                                                                runs[1:])], order)  # again
    frame = pd.read_csv(tmp_path / "ncut" / "timing.csv")
    assert list(frame["item"]) == ["figure3", "true_k"]  # the items' order, one row each
    assert frame.set_index("item").loc["true_k", ["runs", "fit_seconds_sum"]].tolist() == [1, 4.0]
    text = (tmp_path / "ncut" / "timing.md").read_text()
    assert "| figure3 | A | NMF+nc | 1 | 2.00 ± 0.00 | 2.0 |" in text
