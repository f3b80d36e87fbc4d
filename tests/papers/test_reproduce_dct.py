"""The DCT reproduction: its items, the transcription, and its tables from synthetic records."""

import json

import numpy as np
import pandas as pd

from shortclust.pipeline.reproduce import Reproduction
from shortclust.papers.dct import reported, tables
from shortclust.papers.dct.retrieval import build_table, model_clusters, step_bounds
from shortclust.papers.registry import get_paper


def test_dct_is_a_registered_paper_with_its_items():
    assert list(get_paper("dct").items) == ["clustering", "perplexity", "retrieval",
                                            "dependency", "lambda", "topics", "figures2_3",
                                            "heldout", "claims"]


def test_table2_transcription_keeps_the_papers_order_in_every_column():
    # The text layer prints Table 2 out of order; the transcription must make every column
    # follow the order the paper states (DCT > TTM > DMM > TMS >= LDA > LM).
    assert list(reported.TABLE2) == list(reported.METHODS)
    for metric in reported.METRICS:
        column = [reported.TABLE2[m][metric] for m in reported.METHODS]
        assert column == sorted(column), metric
    assert reported.TABLE2["DCT"]["map"] == 0.4132 and reported.TABLE2["LM"]["p30"] == 0.2772


def stream_record(seed, nmi, perplexities, n_clusters=5):
    batches = [{"held_out": None}] + [{"held_out": {"perplexity": p, "oov_rate": 0.1,
                                                    "n_tokens": 10}} for p in perplexities]
    return {"seed": seed, "metrics": {"nmi": nmi, "ari": nmi / 2}, "n_clusters": n_clusters,
            "fit_seconds": 1.0, "batches": batches}


def job(tmp_path):
    return Reproduction("dct", results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True,
                        fit=False)


def test_clustering_table_checks_the_bar_and_long_against_short(tmp_path):
    short = [stream_record(0, 0.90, [100, 200]), stream_record(1, 0.86, [300, 400])]
    long_ = [stream_record(0, 0.70, [100]), stream_record(1, 0.72, [100])]
    results = {"DCT": {"MStream-News-T": short, "MStream-Tweets-T": long_},
               "DCT-L": {"MStream-News-T": long_}, "DMM": None, "LDA": {}}
    tables.write_clustering(job(tmp_path), results)
    text = (tmp_path / "dct" / "clustering.md").read_text()
    assert "| MStream-News-T | 0.880 ± 0.028 | 0.710 ± 0.014 | not run | no runs yet |" in text
    assert "- DCT on MStream-News-T: NMI 0.880 (at least 0.82)." in text
    assert "- DCT on MStream-Tweets-T: NMI 0.710 (BELOW 0.82)." in text
    assert "DCT-L against DCT on MStream-News-T: NMI 0.710 vs 0.880 (worse" in text
    # perplexity: the mean over a run's scored steps, then over runs
    assert "| MStream-News-T | 250 ± 141 |" in text
    frame = pd.read_csv(tmp_path / "dct" / "clustering.csv")
    assert set(frame["model"]) == {"DCT", "DCT-L"}


def test_figure7_table_and_plot_from_records(tmp_path):
    results = {"DCT": {2: [stream_record(0, 0.5, [50.0])], 4: [stream_record(0, 0.5, [40.0])]}}
    tables.write_perplexity(job(tmp_path), results, "MStream-News-T")
    text = (tmp_path / "dct" / "figure7.md").read_text()
    assert "| DCT | 4 | 40 ± 0 | 0.100 | 1 |" in text
    assert (tmp_path / "dct" / "figure7.png").stat().st_size > 0


def test_cutoffs_fall_at_step_ends_and_models_see_each_step_once():
    bounds = step_bounds(103)
    assert bounds[-1] == 103 and bounds[3::4] == [round(k * 103 / 5) for k in range(1, 6)]

    class Recorder:
        topic_word_ = np.full((2, 3), 1 / 3)

        def __init__(self):
            self.sizes = []

        def partial_fit(self, X):
            self.sizes.append(X.shape[0])

        def predict_proba(self, X):
            return np.full((X.shape[0], 2), 0.5)

    model, counts = Recorder(), np.ones((103, 3))
    source = model_clusters(model, counts)
    for index, n in enumerate(bounds[3::4]):
        doc_topic, topic_word = source(index, n)
        assert doc_topic.shape == (n, 2) and sum(model.sizes) == n
    assert len(model.sizes) == 20


def test_retrieval_table_compares_models_with_the_references():
    row = lambda method, seed, m: {"method": method, "seed": seed,  # noqa: E731
                                   "event": {"ndcg": m, "map": m, "recall": m, "rprec": m,
                                             "p30": m}}
    rows = [row("LM", 0, 0.40), row("random clusters", 0, 0.39), row("random clusters", 1, 0.41),
            row("DCT", 0, 0.45), row("DCT", 1, 0.47), row("LDA", 0, 0.38)]
    text, frame = build_table(rows)
    assert "| DCT | 2 | 0.4600 ± 0.0141 |" in text
    assert "- DCT: MAP 0.4600; above LM, random clusters." in text
    assert "- LDA: MAP 0.3800; above neither; NOT above LM, random clusters." in text
    assert "| DCT | - | 0.6421 | 0.4132 |" in text  # the paper's row beside
    assert len(frame) == 6 and json.dumps(rows)  # rows are plain JSON (the archive)


def test_figure4_averages_each_length_over_its_seeds(tmp_path):
    from shortclust.papers.dct.dependency import dependency_frame, method_name, write_figure

    metrics = lambda m: {"ndcg": m, "map": m, "recall": m, "rprec": m, "p30": m}  # noqa: E731
    rows = [{"method": method_name(1), "seed": 0, "event": metrics(0.40)},
            {"method": method_name(1), "seed": 1, "event": metrics(0.42)},
            {"method": method_name(4), "seed": 0, "event": metrics(0.45)},
            {"method": "DCT", "seed": 0, "event": metrics(0.9)}]  # Table 2's: not a point
    frame = dependency_frame(rows)
    assert frame["L"].tolist() == [1, 4] and frame["runs"].tolist() == [2, 1]
    write_figure(job(tmp_path), frame)
    text = (tmp_path / "dct" / "figure4.md").read_text()
    assert "| 1 | 2 | 0.4100 ± 0.0141 |" in text
    assert (tmp_path / "dct" / "figure4.png").stat().st_size > 0


def test_the_archive_is_measured_only_where_it_lacks_and_kept_as_each_finishes(tmp_path,
                                                                                monkeypatch):
    from shortclust.papers.dct import retrieval

    path = tmp_path / "dct" / "records" / "retrieval.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps([{"method": "LM", "seed": 0}, {"method": "DCT", "seed": 7}]))
    measured = []

    def fake_measure(job, corpus, models, method, seed):
        measured.append((method, seed))
        return {"method": method, "seed": seed}

    monkeypatch.setattr(retrieval, "measure", fake_measure)
    monkeypatch.setattr(retrieval, "crisis_corpus", lambda job: "corpus")
    want = [("LM", 0), ("DCT", 0), ("DCT", 1)]
    no_fit = job(tmp_path)
    assert retrieval.archived(no_fit, {}, want) == [{"method": "LM", "seed": 0}]
    assert measured == [] and no_fit.collected == 1
    fitting = Reproduction("dct", results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)
    shown = retrieval.archived(fitting, {}, want)
    assert measured == [("DCT", 0), ("DCT", 1)]
    assert [(r["method"], r["seed"]) for r in shown] == want
    assert len(json.loads(path.read_text())) == 4  # the seed-7 row stays in the archive


def test_a_measurement_lacking_a_needed_field_is_replaced_in_its_place(tmp_path, monkeypatch):
    from shortclust.papers.dct import retrieval

    path = tmp_path / "dct" / "records" / "retrieval.json"
    path.parent.mkdir(parents=True)
    old = [{"method": "DCT", "seed": 0}, {"method": "LM", "seed": 0},
           {"method": "DMM", "seed": 0, "by_lambda": {}}]
    path.write_text(json.dumps(old))
    monkeypatch.setattr(retrieval, "measure", lambda job, corpus, models, method, seed: {
        "method": method, "seed": seed, "by_lambda": {"0.0": {}}})
    monkeypatch.setattr(retrieval, "crisis_corpus", lambda job: "corpus")
    want = [("DCT", 0), ("DMM", 0)]
    no_fit = job(tmp_path)
    assert len(retrieval.archived(no_fit, {}, want, needs="by_lambda")) == 2  # as archived
    fitting = Reproduction("dct", results_dir=tmp_path, work_dir=tmp_path / "w", quiet=True)
    retrieval.archived(fitting, {}, want, needs="by_lambda")
    rows = json.loads(path.read_text())
    assert [r["method"] for r in rows] == ["DCT", "LM", "DMM"]
    assert rows[0]["by_lambda"] == {"0.0": {}} and rows[2]["by_lambda"] == {}  # DMM kept


def test_figures_5_and_6_average_each_point_over_its_seeds(tmp_path):
    from shortclust.papers.dct.sweeps import point_frame, write_sweep

    metrics = lambda m: {"ndcg": m, "map": m, "recall": m, "rprec": m, "p30": m}  # noqa: E731
    points = [("DCT", 0.0, metrics(0.40)), ("DCT", 0.0, metrics(0.42)),
              ("DCT", 0.5, metrics(0.50)), ("DMM", 0.0, metrics(0.41))]
    frame = point_frame(points, "lambda")
    assert frame[["model", "lambda", "runs"]].values.tolist() == [
        ["DCT", 0.0, 2], ["DCT", 0.5, 1], ["DMM", 0.0, 1]]
    write_sweep(job(tmp_path), "figure5", frame, "lambda", "lambda", "The paper: ...")
    text = (tmp_path / "dct" / "figure5.md").read_text()
    assert "| DCT | 0 | 2 | 0.4100 ± 0.0141 |" in text and "Figure 5 analogue" in text
    assert (tmp_path / "dct" / "figure5.png").stat().st_size > 0
