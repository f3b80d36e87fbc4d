"""`shortclust cluster`'s default path (embeddings extra present or absent), the K procedures
on reduced vectors, and the defaults protocol's table (no torch needed)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from shortclust.apps import defaults
from shortclust.apps.defaults import COUNTS_DEFAULT, EMBEDDINGS_DEFAULT, default_settings
from shortclust.errors import ConfigError, ParameterError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("SHORTCLUST_EMBEDDINGS", raising=False)


def test_extra_installed_takes_the_embedding_default(no_env):
    settings, note = default_settings(installed=True)
    assert settings == EMBEDDINGS_DEFAULT
    assert "MiniLM" in note and "--embeddings none" in note


def test_extra_absent_takes_the_counts_path_and_says_so(no_env):
    settings, note = default_settings(installed=False)
    assert settings == COUNTS_DEFAULT
    assert "not installed" in note and "shortclust[embeddings]" in note


def test_embeddings_none_takes_the_counts_path_when_installed(no_env):
    settings, note = default_settings(embeddings="none", installed=True)
    assert settings == COUNTS_DEFAULT
    assert "fast path" in note


def test_environment_stands_for_embeddings(monkeypatch):
    monkeypatch.setenv("SHORTCLUST_EMBEDDINGS", "none")
    assert default_settings(installed=True)[0] == COUNTS_DEFAULT
    monkeypatch.setenv("SHORTCLUST_EMBEDDINGS", "minilm")
    assert default_settings(installed=True)[0]["embeddings"] == "minilm"


def test_a_named_model_is_kept_as_given(no_env):
    settings, note = default_settings(model="gsdmm", installed=True)
    assert settings == {"model": "gsdmm", "embeddings": None, "umap_dims": 0,
                        "n_clusters": "auto"}
    assert note is None
    settings, _ = default_settings(model="kmeans", embeddings="minilm", n_clusters=7,
                                   installed=True)
    assert settings["n_clusters"] == 7 and settings["umap_dims"] == 0


def test_user_k_and_umap_override_the_default(no_env):
    settings, _ = default_settings(n_clusters=12, umap_dims=0, installed=True)
    assert settings["n_clusters"] == 12 and settings["umap_dims"] == 0


def test_installed_reads_the_import_specs(monkeypatch):
    monkeypatch.setattr(defaults, "find_spec", lambda name: None)
    assert not defaults.embeddings_installed()
    monkeypatch.setattr(defaults, "find_spec", lambda name: object())
    assert defaults.embeddings_installed()


@pytest.mark.parametrize("installed", [True, False])
def test_cluster_config_resolves_the_default(no_env, monkeypatch, tmp_path, installed):
    from shortclust.apps.cluster import cluster_config

    monkeypatch.setattr(defaults, "embeddings_installed", lambda: installed)
    request = cluster_config(str(tmp_path / "texts.csv"))
    expected = EMBEDDINGS_DEFAULT if installed else COUNTS_DEFAULT
    assert {key: request.settings[key] for key in expected} == expected
    assert request.default_note


def test_reduced_settings_are_checked():
    from shortclust.apps.text_clusterer import TextClusterer

    with pytest.raises(ConfigError, match="embeddings"):
        TextClusterer(model="kmeans", umap_dims=5)._checked_settings()
    with pytest.raises(ConfigError, match="kmeans"):
        TextClusterer(model="movmf", embeddings="minilm", n_clusters="hdbscan")._checked_settings()
    with pytest.raises(ParameterError, match="umap_dims"):
        TextClusterer(model="kmeans", embeddings="minilm", umap_dims=-1)._checked_settings()
    with pytest.raises(ParameterError, match="n_clusters"):
        TextClusterer(n_clusters="elbow")._checked_settings()


def _blobs(seed=0, sizes=(60, 50, 40)):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    points = np.vstack([c + rng.normal(scale=0.5, size=(n, 2)) for c, n in zip(centres, sizes)])
    truth = np.repeat(np.arange(3), sizes)
    return points, truth


def _same_partition(a, b):
    from sklearn.metrics import adjusted_rand_score

    return adjusted_rand_score(a, b) == pytest.approx(1.0)


def test_hdbscan_finds_the_blobs_and_leaves_no_outlier():
    from shortclust.apps.reduced import cluster_reduced

    points, truth = _blobs()
    # Far points HDBSCAN calls noise: each joins the blob whose centre is nearest.
    points = np.vstack([points, [[20.0, 1.0], [-1.0, 18.0]]])
    labels, choice = cluster_reduced(points, "hdbscan", umap_dims=5)
    assert choice.n_clusters == 3 and choice.method == "hdbscan" and choice.noise >= 1
    assert labels.min() >= 0
    assert _same_partition(labels, np.concatenate([truth, [1, 2]]))
    assert "HDBSCAN" in choice.sentence() and "UMAP to 5" in choice.sentence()


def test_silhouette_picks_the_number_of_blobs():
    from shortclust.apps.reduced import cluster_reduced, k_grid

    points, truth = _blobs(1)
    labels, choice = cluster_reduced(points, "silhouette", random_state=3)
    assert choice.n_clusters == 3 and 3 in k_grid(points.shape[0])
    assert _same_partition(labels, truth)
    again, _ = cluster_reduced(points, "silhouette", random_state=3)
    assert np.array_equal(labels, again)


@pytest.mark.parametrize("procedure", ["calinski", "silhouette-cosine", "hdbscan-kmeans"])
def test_second_round_procedures_pick_the_number_of_blobs(procedure):
    from shortclust.apps.reduced import cluster_reduced

    points, truth = _blobs(2)
    # silhouette-cosine reads the vectors before UMAP: blobs far from the origin, so their
    # directions differ too.
    before = points + np.array([3.0, 3.0])
    labels, choice = cluster_reduced(points, procedure, random_state=4, umap_dims=5,
                                     features=before)
    assert choice.n_clusters == 3 and choice.method == procedure
    assert _same_partition(labels, truth)
    assert str(choice.n_clusters) in choice.sentence() and "UMAP to 5" in choice.sentence()
    again, _ = cluster_reduced(points, procedure, random_state=4, umap_dims=5, features=before)
    assert np.array_equal(labels, again)


def test_silhouette_cosine_reads_the_space_before_umap():
    from shortclust.apps.reduced import cluster_reduced

    points, truth = _blobs(2)
    points[truth == 1] -= np.array([6.0, 0.0])  # blobs 0 and 1 nearer: k-means' pair at K=2
    # Before UMAP only two directions exist (blobs 0 and 1 on one ray): the cosine
    # silhouette in that space must choose 2, where the reduced space has 3 blobs.
    before = np.where(truth[:, None] == 2, np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]]))
    before = before + np.random.default_rng(0).normal(scale=0.01, size=before.shape)
    _, choice = cluster_reduced(points, "silhouette-cosine", random_state=4, features=before)
    assert choice.n_clusters == 2


def _protocol():
    spec = importlib.util.spec_from_file_location(
        "defaults_protocol", ROOT / "benchmarks" / "defaults_protocol.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_protocol_table_regenerates_byte_for_byte():
    protocol = _protocol()
    if not protocol.RECORDS.exists():
        pytest.skip("no archived records")
    assert protocol.check_table(), "results/defaults/table.md differs from `table --no-fit`"


def test_protocol_winner_is_the_shipped_embedding_default():
    """The table's declared winner is what `cluster` runs with the extra installed."""
    protocol = _protocol()
    text = (ROOT / "results" / "defaults" / "table.md").read_text()
    winner = text.split("the default is **")[1].split("**")[0]
    options = protocol.CANDIDATES[winner]
    shipped = EMBEDDINGS_DEFAULT or COUNTS_DEFAULT
    assert options[options.index("--model") + 1] == shipped["model"]
    embeddings = options[options.index("--embeddings") + 1]
    assert (None if embeddings == "none" else embeddings) == shipped["embeddings"]
    umap = int(options[options.index("--umap") + 1]) if "--umap" in options else 0
    assert umap == shipped["umap_dims"]
    k = options[options.index("--n-clusters") + 1] if "--n-clusters" in options else "auto"
    assert k == shipped["n_clusters"] or (k == "gsdmm" and shipped["n_clusters"] == "auto")


@pytest.mark.parametrize("installed", [True, False])
def test_textclusterer_and_cluster_have_one_default(no_env, monkeypatch, tmp_path, installed):
    """`TextClusterer()` runs what `shortclust cluster FILE` runs, extra present or not."""
    from shortclust.apps.cluster import cluster_config
    from shortclust.apps.text_clusterer import TextClusterer

    monkeypatch.setattr(defaults, "embeddings_installed", lambda: installed)
    settings, note = TextClusterer().resolved_settings()
    assert settings == (EMBEDDINGS_DEFAULT if installed else COUNTS_DEFAULT)
    request = cluster_config(str(tmp_path / "texts.csv"))
    assert {key: request.settings[key] for key in settings} == settings
    assert request.default_note == note
    # Given settings are kept, in both.
    given = TextClusterer(model="kmeans", n_clusters=4).resolved_settings()[0]
    assert given == {"model": "kmeans", "embeddings": None, "umap_dims": 0, "n_clusters": 4}


def test_textclusterer_without_the_extra_fits_the_fast_path_and_says_so(no_env, monkeypatch):
    from shortclust.apps.text_clusterer import TextClusterer
    from shortclust.models.dmm.gsdmm import GSDMM

    monkeypatch.setattr(defaults, "embeddings_installed", lambda: False)
    texts = ["red apple pie", "apple pie recipe", "green apple pie", "baked apple pie",
             "football match tonight", "match football score", "football cup match"]
    tc = TextClusterer(random_state=0).fit(texts)
    assert isinstance(tc.model_, GSDMM) and tc.settings_ == COUNTS_DEFAULT
    assert "not installed" in tc.default_note_
    assert tc.get_params()["model"] is None  # fit leaves the parameters as given


def test_protocol_noise_test_separates_only_beyond_the_seeds_spread():
    welch = _protocol().defaults_table._welch
    assert welch([0.80, 0.81, 0.79], [0.70, 0.71, 0.69])[0] == "above"
    assert welch([0.70, 0.71, 0.69], [0.80, 0.81, 0.79])[0] == "below"
    assert welch([0.80, 0.70, 0.75], [0.76, 0.72, 0.78])[0] == "within noise"
    assert welch([0.8], [0.7])[0].startswith("not tested")
