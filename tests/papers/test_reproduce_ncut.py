"""The Ncut-NMF paper's reproduction: transcription, the claim check, tables (synthetic, fast)."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from shortclust.pipeline.reproduce import Reproduction
from shortclust.models import get_model_class
from shortclust.papers.ncut import claim, plan, reported, tables, timing
from shortclust.papers.registry import get_paper

REPO = Path(__file__).resolve().parents[2]
PAPER_TEXT = sorted((REPO.parent / "shared" / "papers").glob("001_*.txt"))


def test_registered_with_every_item():
    assert list(get_paper("ncut").items) == [*plan.ITEMS, "claims"]
    assert list(plan.ITEMS) == ["table1", "figures1_2", "table2", "table3", "figure3",
                                "true_k", "lambda"]


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


def test_the_claim_is_against_all_five_baselines_of_the_paper():
    # Section 4.1.2 lists Kmeans+idf, RLSI+idf, RLSI+nc, NMF+01 and NMF+idf as baselines,
    # and section 4.4 claims NMF+nc beats "all the baselines": RLSI+nc included.
    assert set(reported.CLAIM_BASELINES) == {"Kmeans+idf", "RLSI+idf", "RLSI+nc", "NMF+01",
                                             "NMF+idf"}
    assert "NMF+nc" not in reported.CLAIM_BASELINES


@pytest.mark.skipif(not PAPER_TEXT, reason="paper text not beside the checkout")
def test_the_claim_is_quoted_from_the_paper():
    text = PAPER_TEXT[0].read_text(encoding="utf-8").replace("“", "").replace("”", "")
    assert reported.CLAIM in text
    assert "RLSI+nc" in text.split("4.1.2 Baseline Methods")[1].split("4.2")[0]


def hit(frame, dataset, k, metric, method):
    return ((frame["dataset"] == dataset) & (frame["K"] == k) & (frame["metric"] == metric)
            & (frame["method"] == method))


def test_claim_holds_when_nmf_nc_is_always_above():
    checks = claim.claim_check(synthetic_frame())
    assert list(checks["dataset"]) == ["A", "B"] and checks["holds"].all()
    k_above_3 = [k for k in plan.K_GRID if k > 3]
    assert (checks["comparisons"] == len(k_above_3) * 3 * 5).all()
    assert (checks["holds_at"] == ", ".join(map(str, k_above_3))).all()
    assert (checks["fails_at"] == "none").all()


def test_claim_fails_on_one_loss_and_names_it():
    frame = synthetic_frame()
    frame.loc[hit(frame, "B", 8, "ari", "RLSI+idf"), "mean"] += 1.0
    checks = claim.claim_check(frame).set_index("dataset")
    assert checks.loc["A", "holds"] and not checks.loc["B", "holds"]
    assert checks.loc["B", "lost"] == "RLSI+idf ARI at K = 8*"  # 1.0 above, std 0.01
    assert checks.loc["B", "won"] == checks.loc["B", "comparisons"] - 1
    assert checks.loc["B", "fails_at"] == "8" and "8" not in checks.loc["B", "holds_at"]


def test_a_loss_to_rlsi_nc_breaks_the_claim():
    frame = synthetic_frame()
    frame.loc[hit(frame, "A", 10, "nmi", "RLSI+nc"), "mean"] += 1.0
    checks = claim.claim_check(frame).set_index("dataset")
    assert not checks.loc["A", "holds"] and checks.loc["B", "holds"]
    assert checks.loc["A", "lost"] == "RLSI+nc NMI at K = 10*"


def test_claim_ignores_small_k():
    frame = synthetic_frame()
    frame.loc[(frame["K"] <= 3) & (frame["method"] == "NMF+idf"), "mean"] += 1.0
    assert claim.claim_check(frame)["holds"].all()
    assert not claim.claim_check(frame, k_min=0)["holds"].any()


def test_claim_says_at_which_k_it_holds_and_where_below_each_baseline():
    frame = synthetic_frame()
    frame.loc[hit(frame, "B", 6, "nmi", "RLSI+nc"), "mean"] += 0.06  # not significant:
    frame.loc[hit(frame, "B", 6, "nmi", "RLSI+nc"), "std"] = 0.5     # a wide spread
    frame.loc[hit(frame, "B", 12, "ari", "NMF+idf"), "mean"] += 1.0
    checks = claim.claim_check(frame)
    row = checks.set_index("dataset").loc["B"]
    assert row["fails_at"] == "6, 12" and row["holds_at"] == "4, 5, 8, 10, 15, 20"
    assert row["lost"] == "NMF+idf ARI at K = 12*; RLSI+nc NMI at K = 6"
    lines = claim.claim_lines(checks)
    assert "the claim holds at K = 4, 5, 8, 10, 15, 20 and fails at K = 6, 12" in lines[1]
    assert "the claim holds at every K (4, 5, 6, 8, 10, 12, 15, 20)" in lines[0]
    rows = claim.baseline_rows(claim.comparisons(frame), reported.METRICS)
    by_key = {(r[0], r[1]): r[2:] for r in rows}
    assert by_key[("B", "RLSI+nc")] == ["23/24", "-", "6", "-"]
    assert by_key[("B", "NMF+idf")] == ["23/24", "-", "-", "12*"]
    assert by_key[("A", "Kmeans+idf")] == ["24/24", "-", "-", "-"]


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
    lines = claim.claim_lines(claim.claim_check(frame))
    assert lines[0].startswith("- A: NMF+nc is above NMF+idf, NMF+01, RLSI+idf, RLSI+nc, "
                               "Kmeans+idf in")
    assert "the claim holds" in lines[0] and "0 losses." in lines[0]


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
    checks = claim.claim_check(frame).set_index("dataset")
    assert (checks["won_significant"] == checks["comparisons"]).all()
    assert (checks["lost_significant"] == 0).all()
    frame.loc[hit(frame, "B", 8, "ari", "RLSI+idf"), "mean"] += 1.0
    frame.loc[(frame["dataset"] == "A") & (frame["method"] == "NMF+idf"), "std"] = 1.0
    checks = claim.claim_check(frame).set_index("dataset")
    assert checks.loc["B", "lost_significant"] == 1
    per_baseline = checks.loc["A", "comparisons"] // 5
    assert checks.loc["A", "won_significant"] == checks.loc["A", "comparisons"] - per_baseline


def test_cells_without_runs_are_not_compared():
    frame = synthetic_frame()
    full = claim.claim_check(frame).set_index("dataset").loc["A", "comparisons"]
    frame.loc[(frame["dataset"] == "A") & (frame["method"] == "Kmeans+idf"), "mean"] = np.nan
    checks = claim.claim_check(frame).set_index("dataset")
    assert checks.loc["A", "comparisons"] == full - full // 5
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


def true_k_frame(gaps: dict[str, dict[str, float]], std: float = 0.01) -> pd.DataFrame:
    """Stat rows at one K per dataset: every method at 0.5, NMF+nc at 0.6, but ``gaps``
    (``{dataset: {method: mean}}``) overriding a method's mean on every metric."""
    rows = []
    for dataset, means in gaps.items():
        for method in reported.METHODS:
            for metric in reported.METRICS:
                mean = means.get(method, 0.6 if method == "NMF+nc" else 0.5)
                rows.append({"dataset": dataset, "K": 8, "method": method, "metric": metric,
                             "runs": 10, "mean": mean, "std": std})
    return pd.DataFrame(rows)


def test_true_k_findings_say_which_baseline_wins_by_how_much_and_whether_by_noise():
    frame = true_k_frame({"Noise": {"RLSI+idf": 0.61}, "Factor": {"RLSI+nc": 0.7},
                          "Weights": {"NMF+idf": 0.7}, "Fine": {}})
    frame.loc[frame["dataset"] == "Noise", "std"] = 0.2  # a 0.01 gap within the spread
    data = {d: {"docs": 1000, "words": 300, "classes": 8} for d in frame["dataset"].unique()}
    text = "\n".join(claim.true_k_findings(frame, data))
    assert "- Noise (1,000 documents, 300 words, 8 classes, 125.0 documents per class): " \
           "NMF+nc is below RLSI+idf on Purity by 0.010 (p = 0.912)" in text
    assert "Every loss is within noise (no Welch p < 0.05; the largest gap 0.010)." in text
    assert "are to RLSI+nc only, which uses the same Ncut weights: what separates them " \
           "here is the factorization" in text
    assert "(up to 0.100) to NMF+idf: here NMF with Ncut weights is behind" in text
    assert "- Fine (" not in text  # no loss, nothing to explain
    assert "| Factor | 1,000 | 300 | 8 | 125.0 | +0.100 (p < 0.001) | -0.100 (p < 0.001) | no |" \
        in text


def test_true_k_findings_set_a_nested_set_beside_the_set_it_is_cut_from():
    frame = true_k_frame({"SearchSnippets": {}, "SearchSnippets-test": {"NMF+idf": 0.7}})
    data = {"SearchSnippets": {"docs": 12000, "words": 3000, "classes": 8},
            "SearchSnippets-test": {"docs": 2000, "words": 900, "classes": 8}}
    text = "\n".join(claim.true_k_findings(frame, data))
    assert "- SearchSnippets-test is the first 2,280 lines of SearchSnippets" in text
    assert "NMF+nc - NMF+idf in NMI is +0.100 (p < 0.001) on SearchSnippets (12,000 " \
           "documents" in text and "-0.100 (p < 0.001) on SearchSnippets-test (2,000" in text
    del data["SearchSnippets"]
    assert "first 2,280 lines" not in "\n".join(claim.true_k_findings(frame, data))


def test_nested_sets_are_the_first_lines_of_the_set_they_are_cut_from():
    from shortclust.data.registry import dataset_path, dataset_present, get_info

    for part, whole in claim.NESTED_SETS.items():
        if not (dataset_present(part) and dataset_present(whole)):
            pytest.skip("datasets not in the data directory")
        def documents(name):  # the whole set's lines also carry a "split" key
            return [(d["text"], d["label"]) for d in map(
                json.loads, dataset_path(name).read_text(encoding="utf-8").splitlines())]

        head, lines = documents(whole), documents(part)
        assert len(lines) == get_info(part).n_docs < len(head)
        assert lines == head[:len(lines)]
