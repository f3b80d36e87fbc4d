"""Parameters added to a model after its runs were archived leave the old run ids alone.

``ClusteringModel._parameters_added_later`` names them with the value that reproduces the
behaviour from before them; :func:`shortclust.config.full_model_params` leaves them out
while they hold it, so run ids and the IC reproduction's work-directory tags are those of
the archived runs, and any other value gives a new id.
"""

import json
from pathlib import Path

import pytest

from tests.pipeline.fake_estimators import FakeClusterer, _register
from shortclust.config import ModelSpec, full_model_params
from shortclust.pipeline.records import make_run_id
from shortclust.pipeline.reproduce import Reproduction
from shortclust.pipeline.sweep import sweep_frame
from shortclust.models.base import (ModelDeclarationError, Real, check_declarations,
                                    identity_params, with_added_parameters)
from shortclust.papers.ic import runs as plan
from shortclust.papers.ic.reported import DATASETS, FIXED
from shortclust.papers.ic.settings import CONFIGS, IC_CONFIG, METHOD_CONFIGS, RULES

REPO = Path(__file__).resolve().parents[2]
IC_RECORDS = REPO / "results" / "ic" / "records"


class LaterClusterer(FakeClusterer):
    """:class:`FakeClusterer` with ``beta``, added after its runs were archived."""

    _parameter_constraints = {**FakeClusterer._parameter_constraints, "beta": Real(0.0)}
    _parameters_added_later = {"beta": 0.0}

    def __init__(self, *, n_clusters=3, max_iter=2, alpha=0.1, beta=0.0, random_state=None):
        super().__init__(n_clusters=n_clusters, max_iter=max_iter, alpha=alpha,
                         random_state=random_state)
        self.beta = beta


@pytest.fixture
def later(monkeypatch):
    _register(monkeypatch, "later", LaterClusterer)
    _register(monkeypatch, "fake", FakeClusterer)
    return LaterClusterer


def run_id(spec):
    return make_run_id("Tweet", "none", "fake", full_model_params(spec), 0)


def test_an_added_parameter_at_its_earlier_value_leaves_the_id_unchanged(later):
    before = full_model_params(ModelSpec(name="fake", params={"alpha": 0.2}))
    after = full_model_params(ModelSpec(name="later", params={"alpha": 0.2}))
    assert after == before == {"n_clusters": 3, "max_iter": 2, "alpha": 0.2}
    assert run_id(ModelSpec(name="later", params={"beta": 0.0})) == run_id(
        ModelSpec(name="fake"))
    other = full_model_params(ModelSpec(name="later", params={"beta": 0.5}))
    assert other == {**before, "alpha": 0.1, "beta": 0.5}
    assert run_id(ModelSpec(name="later", params={"beta": 0.5})) != run_id(
        ModelSpec(name="later"))


def test_identity_params_compare_types_and_with_added_parameters_restores_them():
    assert identity_params(LaterClusterer, {"alpha": 0.1, "beta": 0.0}) == {"alpha": 0.1}
    # False and 0 are equal in Python but are not the same setting.
    assert identity_params(LaterClusterer, {"beta": False}) == {"beta": False}
    assert with_added_parameters(LaterClusterer, {"alpha": 0.1}) == {"alpha": 0.1,
                                                                     "beta": 0.0}
    assert with_added_parameters(LaterClusterer, {"beta": 0.5})["beta"] == 0.5


@pytest.mark.parametrize("added, message", [
    ({"gamma": 0.0}, "names 'gamma', not a parameter"),
    ({"beta": 1.0}, "gives beta=1.0 but its default is 0.0"),
    ([("beta", 0.0)], "make it a dict"),
])
def test_a_wrong_declaration_is_refused_in_one_line(monkeypatch, added, message):
    monkeypatch.setattr(LaterClusterer, "_parameters_added_later", added)
    with pytest.raises(ModelDeclarationError, match=message):
        check_declarations(LaterClusterer)


def test_a_sweep_over_an_added_parameter_finds_the_runs_at_its_earlier_value(later):
    records = [{"model": "later", "seed": seed, "params": params, "metrics": {"nmi": nmi}}
               for seed, (params, nmi) in enumerate([({}, 0.5), ({"beta": 0.5}, 0.7)])]
    frame = sweep_frame(records, "beta")
    assert frame["beta"].tolist() == [0.0, 0.5] and frame["nmi_mean"].tolist() == [0.5, 0.7]


def test_ic_defaults_are_not_in_the_identity_and_its_options_are():
    default = full_model_params(ModelSpec(name="iterative_classification"))
    assert not {"variant", "selection", "p_draw", "tfidf", "outlier_copies",
                "row_order"} & set(default)
    changed = full_model_params(ModelSpec(name="iterative_classification",
                                          params={"selection": "file_order"}))
    assert changed == {**default, "selection": "file_order"}


def archived(pattern):
    """(tag, records) of the archived IC runs whose file matches ``pattern``."""
    paths = sorted(IC_RECORDS.glob(pattern))
    if not paths:
        pytest.skip(f"no archived records {pattern} in {IC_RECORDS}")
    payload = json.loads(paths[0].read_text())
    return payload["tag"], payload["records"]


@pytest.mark.parametrize("pattern", ["hac_sd_ic50_SearchSnippets-test_*.json",
                                     "glove_kmeans_ic33_Tweet_*.json"])
def test_archived_ic_runs_keep_their_run_ids(pattern):
    _, records = archived(pattern)
    for record in records:
        spec = ModelSpec(name=record["model"], params=record["params"])
        recomputed = make_run_id(record["dataset"], record["preprocess"], record["model"],
                                 full_model_params(spec), record["seed"],
                                 record.get("representation"), record.get("stream"))
        assert recomputed == record["run_id"]


def test_an_archived_ic_work_directory_keeps_its_tag():
    tag, _ = archived("hac_sd_ic50_SearchSnippets-test_*.json")
    job = Reproduction("ic", results_dir=REPO / "results")
    dataset = "SearchSnippets-test"
    base = job.config(CONFIGS / METHOD_CONFIGS["HAC_SD"], dataset,
                      plan.base_overrides("HAC_SD", dataset))
    config = job.config(IC_CONFIG, dataset,
                        plan.ic_overrides(base, DATASETS[dataset][1]) + RULES[FIXED])
    assert tag == f"hac_sd_ic50_{dataset}_{plan.config_digest(config)}"
