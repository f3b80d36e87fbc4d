"""The HTML report's data (what it shows, computed without a browser) and the page around it.

The page is opened in a real browser by the slow test in ``test_report_browser.py``.
"""

import csv
import json
import re

import numpy as np
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from shortclust.apps.report import REPORT_FILE, write_report
from shortclust.apps.report import data as report_data
from shortclust.apps.report.layout import embed_2d
from shortclust.apps.report.page import CONSOLE_PREFIX
from shortclust.cli import app
from tests.test_cli_cluster import texts_and_labels, write_csv


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def figures_of(page: str) -> list[dict]:
    """The figures' JSON the page draws."""
    match = re.search(r"var figures = (\[.*?\]);\n", page, re.S)
    return json.loads(match.group(1))


@pytest.fixture
def clustered(tmp_path):
    rows = texts_and_labels()
    rows.insert(7, ("</script><script>alert(1)</script> flood waters <b>bold</b>", "flood"))
    data = write_csv(tmp_path / "texts.csv", rows, labels=True)
    out = tmp_path / "out"
    result = invoke("cluster", data, "-k", 4, "--output", out, "--set", "max_iter=10")
    assert result.exit_code == 0, result.output
    return out, rows


# --------------------------------------------------------------------------------------------
# the numbers


def test_batch_sizes_count_each_batchs_documents_by_their_cluster():
    order = np.array([3, 0, 4, 1, 2, 5])  # stream order of 6 documents
    labels = np.array([7, 7, 2, 9, 2, 9])  # corpus order
    clusters, sizes = report_data.batch_sizes(order, [2, 3, 1], labels)
    assert clusters == [2, 7, 9]
    # batch 1: docs 3 (c9), 0 (c7); batch 2: docs 4 (c2), 1 (c7), 2 (c2); batch 3: doc 5 (c9)
    assert sizes.tolist() == [[0, 1, 1], [2, 1, 0], [0, 0, 1]]
    assert sizes.sum() == 6


def test_births_and_deaths_leave_the_last_batch_open():
    sizes = np.array([[3, 0, 1], [0, 2, 1], [0, 0, 1]])
    births, deaths = report_data.births_and_deaths(sizes)
    assert births == [2, 1, 0]
    assert deaths == [1, 1, 0]  # the third cluster is alive at the end: no death counted


def test_contingency_keeps_the_largest_and_counts_every_document_under_the_limit():
    rng = np.random.default_rng(0)
    labels, truth = rng.integers(0, 6, 300), rng.integers(0, 4, 300)
    table = report_data.contingency(labels, truth, ["a", "b", "c", "d"], limit=60)
    assert np.sum(table["matrix"]) == 300
    sizes = [int(np.sum(labels == c)) for c in table["clusters"]]
    assert sizes == sorted(sizes, reverse=True)
    small = report_data.contingency(labels, truth, ["a", "b", "c", "d"], limit=2)
    assert len(small["clusters"]) == 2 and len(small["labels"]) == 2
    assert small["n_clusters"] == 6 and small["n_labels"] == 4


def test_similarity_is_symmetric_with_ones_on_the_diagonal():
    rng = np.random.default_rng(1)
    counts = sp.random(80, 40, density=0.1, random_state=2, format="csr") * 5
    labels = rng.integers(0, 5, 80)
    s = report_data.cluster_similarity(counts, labels, [4, 0, 2])
    matrix = np.array(s["matrix"])
    assert s["clusters"] == [4, 0, 2]
    assert np.allclose(matrix, matrix.T) and np.allclose(np.diag(matrix), 1.0)
    assert ((0 <= matrix) & (matrix <= 1)).all()


def test_subsample_is_seeded_and_stated_size():
    assert report_data.subsample(10_000, 500, 3).tolist() == \
        report_data.subsample(10_000, 500, 3).tolist()
    assert len(report_data.subsample(10_000, 500)) == 500


def test_embedding_gives_one_point_per_document_even_for_tiny_corpora():
    for n_docs, n_words in [(5, 2), (40, 30)]:
        counts = sp.csr_matrix(np.random.default_rng(0).integers(0, 3, (n_docs, n_words)))
        xy, how = embed_2d(counts, method="tsne")
        assert xy.shape == (n_docs, 2) and np.isfinite(xy).all() and "t-SNE" in how


def test_report_data_of_a_cluster_output(clustered):
    from shortclust.apps.report.cluster_output import cluster_folder_data

    out, rows = clustered
    data = cluster_folder_data(out, max_points=20)
    assignments = list(csv.DictReader(open(out / "assignments.csv", encoding="utf-8")))
    labels = np.array([int(a["cluster"]) for a in assignments if a["cluster"] != ""])
    sizes = [c["size"] for c in data.clusters if c["size"]]
    counted = np.bincount(labels)
    assert sizes == sorted(counted[counted > 0].tolist(), reverse=True)
    assert data.map["n_total"] == len(rows) - 3  # three texts have no word left
    assert data.map["n_shown"] == 20 == len(data.map["x"]) == len(data.map["text"])
    assert data.similarity["clusters"] == [c["cluster"] for c in data.clusters if c["size"]]
    assert dict(data.overview)["documents"].startswith(f"{len(rows)} in the file")


def test_cluster_writes_one_offline_page_with_every_text_escaped(clustered):
    out, rows = clustered
    page = (out / REPORT_FILE).read_text(encoding="utf-8")
    head, plotly_js, rest = re.split(r"<script>|</script>", page, maxsplit=2)
    assert "Plotly" in plotly_js and len(plotly_js) > 1_000_000  # inlined, not linked
    assert not re.search(r"<script[^>]*src=|<link|<img|<iframe|url[(]|@import", head + rest)
    assert page.count("<script>alert(1)</script>") == 0
    figures = figures_of(page)
    hover = [text for trace in figures[0]["figure"]["data"] for text in trace["text"]]
    # Shown as text on the map (plotly reads tags in hover text, so they are escaped).
    assert any(text.startswith("&lt;/script&gt;&lt;script&gt;alert(1)") for text in hover)
    assert [f["id"] for f in figures] == ["map", "sizes", "bars", "similarity", "contingency"]
    shown = sum(len(trace["x"]) for trace in figures[0]["figure"]["data"])
    assert shown == len(rows) - 3
    assert CONSOLE_PREFIX in page


def test_no_report_removes_an_earlier_one(clustered, tmp_path):
    out, rows = clustered
    data = write_csv(tmp_path / "again.csv", rows)
    result = invoke("cluster", data, "-k", 4, "--output", out, "--no-report",
                    "--set", "max_iter=5")
    assert result.exit_code == 0, result.output
    assert not (out / REPORT_FILE).exists()


def test_report_command_rewrites_from_the_folder_and_refuses_bad_input(clustered, tmp_path):
    out, _ = clustered
    target = tmp_path / "again.html"
    result = invoke("report", out, "--output", target)
    assert result.exit_code == 0, result.output
    again, first = figures_of(target.read_text()), figures_of((out / REPORT_FILE).read_text())
    # The same map and clusters (the folder keeps no labels: no contingency table).
    assert [f["id"] for f in again] == ["map", "sizes", "bars", "similarity"]
    assert again[:4] == first[:4]
    for args, match in [((tmp_path / "nowhere",), "not found"),
                        ((tmp_path,), "holds no records.jsonl")]:
        result = invoke("report", *args)
        assert result.exit_code == 2 and match in result.output
        assert result.output.count("\n") == 1


# --------------------------------------------------------------------------------------------
# streams


STREAM_CONFIG = """
name: stream_report
dataset: {data}
preprocess: basic
model:
  name: {model}
  params: {params}
stream:
  batch_by: count
  n_batches: 3
top_words: 5
seeds: [0]
output: {out}
"""


@pytest.mark.parametrize("model, params", [
    ("dct", "{n_clusters: 4, max_iter: 3}"),
    ("gsdmm", "{n_clusters: 4, max_iter: 3}"),
])
def test_stream_report_has_sizes_births_and_words_per_batch(tmp_path, model, params):
    data = write_csv(tmp_path / "texts.csv", texts_and_labels(), labels=True)
    config = tmp_path / "stream.yaml"
    config.write_text(STREAM_CONFIG.format(data=data, out=tmp_path / "run", model=model,
                                           params=params))
    result = invoke("run", config, "--quiet")
    assert result.exit_code == 0, result.output
    assert invoke("report", tmp_path / "run").exit_code == 0
    run = report_data.load_run(tmp_path / "run")
    assert run.is_stream
    batches = run.record["batches"]
    assert all(len(entry["top_words"]) >= 1 for entry in batches)  # recorded per batch
    stream = report_data.stream_data(run.record, report_data.load_run_corpus(run),
                                     np.loadtxt(tmp_path / "run" / "labels" /
                                                f"{run.run_id}.txt", dtype=int))
    per_batch = np.array(stream["sizes"]).sum(axis=0).tolist()
    assert per_batch == [entry["n_docs"] for entry in batches]
    assert sum(stream["births"]) == len(stream["clusters"])
    chosen = stream["drift_clusters"][0]
    assert len(stream["words"][chosen]) == len(batches)
    assert stream["words"][chosen][-1] == batches[-1]["top_words"][chosen]
    assert stream["words_from"].startswith("the model's top words")
    page = (tmp_path / "run" / REPORT_FILE).read_text()
    ids = [f["id"] for f in figures_of(page)]
    assert {"stream_sizes", "births", "drift", "stream_metrics"} <= set(ids)


def test_words_per_batch_without_recorded_ones_come_from_the_batchs_documents():
    from shortclust.data.corpus import Corpus

    corpus = Corpus.from_texts(["flood river", "flood rain", "fire smoke", "fire fire heat"],
                               times=[0, 1, 2, 3])
    record = {"batches": [{"batch": 1, "n_docs": 2}, {"batch": 2, "n_docs": 2}]}
    stream = report_data.stream_data(record, corpus, np.array([0, 0, 0, 0]))
    words = stream["words"][0]
    assert words[0][0] == ["flood", 0.5] and words[1][0] == ["fire", 0.6]
    assert stream["words_from"].startswith("the words most frequent")
    assert stream["sizes"] == [[2, 2]] and stream["births"] == [1, 0]


def test_run_with_report_writes_the_page_beside_the_records(config_path, output_dir):
    from typer.testing import CliRunner

    from shortclust.cli import app

    result = CliRunner().invoke(app, ["run", str(config_path), "--quiet", "--report"])
    assert result.exit_code == 0, result.output
    page = output_dir / "report.html"
    assert page.is_file() and "plotly" in page.read_text(encoding="utf-8")[:200_000].lower()
