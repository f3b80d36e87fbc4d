"""``shortclust cluster`` and ``shortclust predict`` end to end, as a new user runs them: a CSV
of raw texts (ids, URLs, @-mentions, some texts with no word left), no config."""

import csv
import json
import zipfile

import pytest
from typer.testing import CliRunner

from shortclust.cli import app
from shortclust.data import load_corpus
from shortclust import TextClusterer
from shortclust.apps.model_files import HEADER
from shortclust.data.corpus import counts_over
from shortclust.models.dmm.gsdmm import GSDMM

TOPICS = {
    "flood": ["Flood waters rise in the city", "River flood warning for the valley",
              "Flood victims need help tonight", "Rescue boats reach flood victims"],
    "quake": ["Earthquake shakes the coast", "Strong earthquake damages buildings",
              "Earthquake magnitude revised by USGS", "Aftershocks follow the earthquake"],
    "fire": ["Wildfire spreads near homes", "Firefighters battle the wildfire",
             "Wildfire smoke covers the city", "Homes lost to the wildfire"],
}
# Texts with no word left after the basic pipeline (addresses, signs, stop words only).
EMPTY = ["http://t.co/abc @someone", "!!! ??? 123", "and the of"]


def texts_and_labels(copies=3):
    rows = []
    for copy in range(copies):
        for topic, texts in TOPICS.items():
            for number, text in enumerate(texts):
                rows.append((f"RT @user{number}: {text} http://t.co/x{copy}{number} #{topic}",
                             topic))
    for position, text in zip((4, 17, 30), EMPTY):
        rows.insert(position, (text, "none"))
    return rows


def write_csv(path, rows, labels=False):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"] + (["label"] if labels else []))
        for number, (text, label) in enumerate(rows):
            writer.writerow([f"t{number:03d}", text] + ([label] if labels else []))
    return path


@pytest.fixture
def rows():
    return texts_and_labels()


@pytest.fixture
def data(tmp_path, rows):
    return write_csv(tmp_path / "texts.csv", rows)


@pytest.fixture
def held_out(tmp_path):
    texts = [("Flood warning: river rises near the valley #flood", ""),
             ("New earthquake hits the coast, USGS says", ""),
             ("@bob wildfire smoke near homes http://t.co/q", ""),
             ("totally unrelated words here", "")]
    return write_csv(tmp_path / "held.csv", texts)


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def assert_one_error_line(result, match):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0], lines
    assert "Traceback" not in result.output


def cluster(data, out, *args):
    result = invoke("cluster", data, "--n-clusters", 5, "--output", out, "--set", "max_iter=10",
                    *args)
    assert result.exit_code == 0, result.output
    return result


def test_cluster_writes_assignments_joinable_by_id_clusters_and_a_model(tmp_path, data, rows):
    out = tmp_path / "out"
    result = cluster(data, out)
    assert sorted(p.name for p in out.iterdir()) == [
        "assignments.csv", "clusters.csv", "clusters.md", "model.zip", "record.json",
        "report.html"]
    assignments = read_csv(out / "assignments.csv")
    assert len(assignments) == len(rows)  # one row per input line
    assert [a["id"] for a in assignments] == [f"t{i:03d}" for i in range(len(rows))]
    assert [a["text"] for a in assignments] == [text for text, _ in rows]
    empty = [a for a in assignments if a["status"] == "empty"]
    assert [a["text"] for a in empty] == EMPTY
    assert {a["status"] for a in assignments} == {"ok", "empty"}
    assert all(a["cluster"].isdigit() and 0 <= float(a["probability"]) <= 1
               for a in assignments)
    # The notes: the pipeline auto chose, and how many texts were left empty, and where.
    assert "looks like raw text or holds many stop words, so it is preprocessed with 'basic'" \
        in result.stderr
    assert f"left 3 of {len(rows)} documents empty" in result.stderr
    assert str(out / "assignments.csv") in result.stderr


def test_cluster_files_and_report_show_sizes_top_words_and_representatives(tmp_path, data,
                                                                           rows):
    out = tmp_path / "out"
    result = cluster(data, out)
    clusters = read_csv(out / "clusters.csv")
    assert sum(int(c["size"]) for c in clusters) == len(rows)
    biggest = clusters[0]
    assert int(biggest["size"]) == max(int(c["size"]) for c in clusters)
    texts = {text for text, _ in rows}
    assert biggest["representative_1"] in texts and biggest["top_words"]
    markdown = (out / "clusters.md").read_text()
    first_word = biggest["top_words"].split()[0]
    assert f"## Cluster {biggest['cluster']}: {biggest['size']} documents" in markdown
    assert f"Top words: {first_word} (" in markdown
    assert "1. (row " in markdown and ", id t" in markdown
    # The terminal: clusters found, their sizes and top words.
    found = sum(1 for c in clusters if int(c["size"]))
    assert f"texts.csv: {len(rows)} documents in {found} clusters" in result.stdout
    assert f"{biggest['size']:>5}  {first_word}" in result.stdout
    # No labels, so nothing claims a metric.
    for text in (result.stdout, markdown):
        assert not any(name in text.lower() for name in ("nmi", "ari ", "purity", "labels:"))


def test_a_labelled_file_gets_its_metrics(tmp_path, rows):
    data = write_csv(tmp_path / "labelled.csv", rows, labels=True)
    out = tmp_path / "out"
    result = cluster(data, out)
    assert "against the file's labels: nmi " in result.stdout
    assert "Against the file's labels: nmi " in (out / "clusters.md").read_text()


def in_memory_model(data, seed=0):
    """The model `run` fits, fitted here: same corpus, parameters and seed."""
    corpus = load_corpus(data)
    return GSDMM(n_clusters=5, max_iter=10, random_state=seed).fit(corpus.counts), corpus


def test_cluster_and_predict_equal_the_python_api(tmp_path, data, held_out):
    out = tmp_path / "out"
    cluster(data, out)
    texts = [a["text"] for a in read_csv(data)]
    tc = TextClusterer(n_clusters=5, params={"max_iter": 10}, random_state=0).fit(texts)
    assigned = [int(a["cluster"]) for a in read_csv(out / "assignments.csv")]
    assert assigned == tc.labels_.tolist()  # the same clusterer as the one saved
    assert [c["top_words"] for c in read_csv(out / "clusters.csv")] == \
        tc.clusters_["top_words"].tolist()
    result = invoke("predict", out / "model.zip", held_out, "--output", tmp_path / "p.csv")
    assert result.exit_code == 0, result.output
    predicted = read_csv(tmp_path / "p.csv")
    assert [p["id"] for p in predicted] == ["t000", "t001", "t002", "t003"]
    new = [p["text"] for p in predicted]
    loaded = TextClusterer.load(out / "model.zip")
    assert [int(p["cluster"]) for p in predicted] == tc.predict(new).tolist() \
        == loaded.predict(new).tolist()
    proba = tc.predict_proba(new)
    assert [float(p["probability"]) for p in predicted] == pytest.approx(
        proba.max(axis=1), rel=1e-5)
    assert predicted[3]["status"] == "empty"  # no word the model knows
    assert "4 documents given to gsdmm" in result.stdout


def test_predict_with_a_model_saved_by_run(tmp_path, data, held_out):
    config = tmp_path / "c.yaml"
    config.write_text(f"name: c\ndataset: {data}\nmodel: {{name: gsdmm, params: "
                      "{n_clusters: 5, max_iter: 10}}\nseeds: [4]\n")
    result = invoke("run", config, "--save-models", "--output", tmp_path / "runs", "--quiet")
    assert result.exit_code == 0, result.output
    [saved] = list((tmp_path / "runs" / "models").iterdir())
    result = invoke("predict", saved, held_out, "--output", tmp_path / "p.csv", "--quiet")
    assert result.exit_code == 0, result.output
    model, corpus = in_memory_model(data, seed=4)
    loaded = TextClusterer.load(saved)
    counts = counts_over(loaded.pipeline_.tokenize([row["text"] for row in read_csv(held_out)]),
                         corpus.vocabulary)
    assert [int(p["cluster"]) for p in read_csv(tmp_path / "p.csv")] == \
        model.predict(counts).tolist()


def edit_model(path, rehash, **changes):
    """Rewrite a model file with header ``changes`` (its checksum redone if ``rehash``)."""
    from shortclust.apps import model_files

    with zipfile.ZipFile(path) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(contents[HEADER]) | changes
    if rehash:
        arrays = {name: data for name, data in contents.items() if name != HEADER}
        header["sha256"] = model_files._checksum(header, arrays)
    contents[HEADER] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("rehash, changes, match", [
    (False, {"params": {"n_clusters": 50}}, "do not match their checksum"),
    (True, {"format_version": 99, "shortclust_version": "7.0"}, "saved by shortclust 7.0 in "
                                                                "model format 99"),
    (True, {"preprocess": {"name": "basic", "version": "basic-r0", "min_doc_words": 0}},
     "model's preprocessing is basic-r0"),
])
def test_a_tampered_or_foreign_model_is_one_error_line(tmp_path, data, held_out, rehash,
                                                       changes, match):
    out = tmp_path / "out"
    cluster(data, out, "--quiet")
    edit_model(out / "model.zip", rehash, **changes)
    target = tmp_path / "p.csv"
    assert_one_error_line(invoke("predict", out / "model.zip", held_out, "--output", target),
                          match)
    assert not target.exists()


def test_preprocessing_that_drops_documents_is_said_and_outputs_still_join(tmp_path, data,
                                                                          rows):
    out = tmp_path / "out"
    result = cluster(data, out, "--preprocess", "ncut")
    assignments = read_csv(out / "assignments.csv")
    dropped = [a for a in assignments if a["status"] == "dropped"]
    assert dropped and all(a["cluster"] == "" for a in dropped)
    assert f"preprocessing 'ncut' dropped {len(dropped)} of {len(rows)} documents" \
        in result.stderr
    assert [a["id"] for a in assignments] == [f"t{i:03d}" for i in range(len(rows))]
    kept = [a for a in assignments if a["status"] != "dropped"]
    assert sum(int(c["size"]) for c in read_csv(out / "clusters.csv")) == len(kept)


def test_a_model_without_predict_saves_its_nearest_centres(tmp_path, data, held_out):
    out = tmp_path / "out"
    result = invoke("cluster", data, "--model", "hac", "-k", 3, "--output", out)
    assert result.exit_code == 0, result.output
    assert (out / "model.zip").is_file() and (out / "clusters.md").is_file()
    assert "model 'hac' has no predict of its own: model.zip gives a new text the cluster " \
        "of the nearest centre" in result.stderr
    result = invoke("predict", out / "model.zip", held_out, "--output", tmp_path / "p.csv")
    assert result.exit_code == 0, result.output
    new = [p["text"] for p in read_csv(tmp_path / "p.csv")]
    assert [int(p["cluster"]) for p in read_csv(tmp_path / "p.csv")] == \
        TextClusterer.load(out / "model.zip").predict(new).tolist()


@pytest.mark.parametrize("args, match", [
    (["--model", "gsdmn"], "unknown model 'gsdmn'"),
    (["--model", "gsdpmm", "-k", 5], "chooses its own number of clusters"),
    (["-k", "many"], "--n-clusters must be 'auto', hdbscan, silhouette, gsdmm, calinski"),
    (["--model", "gsdmm", "--embeddings", "minilm"], "takes word counts, not embeddings"),
    (["--embeddings", "bert", "--model", "kmeans"], "unknown embeddings 'bert'"),
    (["--set", "alpha=-1"], "alpha must be a finite number >= 0"),
    (["--preprocess", "stem"], "unknown preprocessing pipeline 'stem'"),
    # Each names the option of `cluster` to use, not a syntax the user did not get wrong.
    (["--set", "model.name=kmeans"], "--set model.name=...: `cluster` takes this as an "
                                     "option: use --model NAME instead"),
    (["--set", "n_clusters=5"], "use --n-clusters K (or -k K) instead"),
    (["--set", "random_state=3"], "use --seed N instead"),
    (["--set", "model.params.alpha=0.5"], "by its bare name: --set alpha=0.5"),
])
def test_bad_options_are_one_error_line_and_write_nothing(tmp_path, data, args, match):
    out = tmp_path / "out"
    assert_one_error_line(invoke("cluster", data, "--output", out, *args), match)
    assert not out.exists()


def test_a_missing_file_is_one_error_line(tmp_path):
    out = tmp_path / "out"
    assert_one_error_line(invoke("cluster", tmp_path / "nope.csv", "--output", out),
                          "not found")
    assert not out.exists()


def test_default_output_is_beside_the_current_directory(tmp_path, data, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke("cluster", data.name, "-k", 3, "--quiet").exit_code == 0
    assert (tmp_path / "texts_clusters" / "assignments.csv").is_file()
    assert invoke("predict", "texts_clusters/model.zip", data.name, "--quiet").exit_code == 0
    assert len(read_csv(tmp_path / "texts_assignments.csv")) == len(read_csv(data))


def test_help_lists_cluster_and_predict():
    result = invoke("--help")
    assert "cluster" in result.stdout and "predict" in result.stdout
    assert "--n-clusters" in invoke("cluster", "--help").stdout


def test_ctrl_c_during_cluster_exits_130_in_one_line_and_writes_nothing(tmp_path, data,
                                                                       monkeypatch):
    def interrupted(self, texts, y=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(TextClusterer, "fit", interrupted)
    out = tmp_path / "out"
    result = invoke("cluster", data, "--output", out)
    assert result.exit_code == 130 and result.stderr.strip() == "interrupted"
    assert not out.exists() and list(tmp_path.iterdir()) == [data]


def test_a_failure_while_writing_leaves_the_earlier_output_as_it_was(tmp_path, data,
                                                                    monkeypatch):
    import shortclust.apps.cluster as cluster_app

    out = tmp_path / "out"
    cluster(data, out, "--quiet")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(path, clusterer, raw):
        (path.parent / "assignments.csv").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(cluster_app, "_write_assignments", broken)
    assert invoke("cluster", data, "--output", out, "-k", 3).exit_code == 130
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "texts.csv"]


def test_an_output_folder_of_other_files_is_refused(tmp_path, data):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert_one_error_line(invoke("cluster", data, "--output", out), "did not write")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
