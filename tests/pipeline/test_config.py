"""Loading experiment YAMLs: schema, defaults, --set overrides and one-line errors."""

from pathlib import Path

import pytest

from shortclust.config import ExperimentConfig, full_model_params, load_config, parse_override
from shortclust.errors import ConfigError
from shortclust.evaluation.metrics import METRIC_NAMES

VALID = """\
name: demo
dataset: Tweet
model:
  name: fake
  params: {n_clusters: 4}
"""


@pytest.fixture
def write_yaml(tmp_path, fake_model):
    def write(text, name="config.yaml"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


def assert_one_line_config_error(path, overrides=(), match=""):
    with pytest.raises(ConfigError) as caught:
        load_config(path, overrides)
    message = str(caught.value)
    assert "\n" not in message
    assert match in message, message
    return message


# --- valid configs ------------------------------------------------------------------------


def test_defaults_are_filled_in(write_yaml):
    config = load_config(write_yaml(VALID))
    assert config.preprocess == "auto"
    assert config.runs == 1 and config.seed_list == [0]
    assert config.metrics == list(METRIC_NAMES)
    assert config.output_dir == Path("runs") / "demo"
    assert config.sweep is None and config.stream is None


def test_runs_give_seeds_zero_to_n_minus_one(write_yaml):
    config = load_config(write_yaml(VALID + "runs: 4\n"))
    assert config.seed_list == [0, 1, 2, 3]


def test_explicit_seeds_win(write_yaml):
    config = load_config(write_yaml(VALID + "seeds: [7, 3]\n"))
    assert config.seed_list == [7, 3]
    assert config.runs == 2


def test_sweep_and_stream_sections_are_accepted(write_yaml):
    text = VALID + "sweep: {alpha: [0.1, 0.2]}\nstream: {batch_by: time, window: 6h}\n"
    config = load_config(write_yaml(text))
    assert config.sweep == {"alpha": [0.1, 0.2]}
    assert config.stream == {"batch_by": "time", "window": "6h"}
    assert config.stream_spec.window_seconds == 6 * 3600


@pytest.mark.parametrize("stream, fragment", [
    ("{batch_by: time}", "stream: batch_by: time needs window"),
    ("{batch_by: count, batchsize: 5}", "did you mean 'batch_size'"),
    ("{}", "stream section is empty"),
])
def test_a_bad_stream_section_fails_at_load(write_yaml, stream, fragment):
    with pytest.raises(ConfigError, match=fragment) as error:
        load_config(write_yaml(VALID + f"stream: {stream}\n"))
    assert "\n" not in str(error.value)


def test_model_name_is_case_insensitive(write_yaml):
    config = load_config(write_yaml(VALID.replace("name: fake", "name: FAKE")))
    assert config.model.name == "fake"


def test_metrics_are_normalised_and_deduplicated(write_yaml):
    config = load_config(write_yaml(VALID + "metrics: [NMI, ari, nmi]\n"))
    assert config.metrics == ["nmi", "ari"]


def test_full_params_include_defaults(write_yaml):
    config = load_config(write_yaml(VALID))
    assert full_model_params(config.model) == {"n_clusters": 4, "max_iter": 2, "alpha": 0.1}


def test_shipped_gsdmm_tweet_config_matches_the_paper():
    path = Path(__file__).resolve().parents[2] / "configs" / "gsdmm_tweet.yaml"
    config = load_config(path)
    assert (config.dataset, config.preprocess, config.model.name) == ("Tweet", "none", "gsdmm")
    assert config.model.params == {"n_clusters": 500, "alpha": 0.1, "beta": 0.1, "max_iter": 30}
    assert config.runs == 20 and config.output_dir == Path("runs/gsdmm_tweet")
    assert "4.3" in path.read_text().splitlines()[0] + path.read_text().splitlines()[1]


# --- overrides -----------------------------------------------------------------------------


def test_dotted_override_sets_nested_value(write_yaml):
    config = load_config(write_yaml(VALID), ["model.params.alpha=0.05", "dataset=GoogleNews-T"])
    assert config.model.params == {"n_clusters": 4, "alpha": 0.05}
    assert config.dataset == "GoogleNews-T"


def test_values_are_parsed_as_yaml(write_yaml):
    config = load_config(write_yaml(VALID), ["runs=3", "metrics=[nmi, acc]", "n_clusters=9"])
    assert config.runs == 3
    assert config.metrics == ["nmi", "acc"]
    n_clusters = config.model.params["n_clusters"]
    assert n_clusters == 9 and isinstance(n_clusters, int)


def test_bare_model_parameter_goes_to_model_params(write_yaml):
    config = load_config(write_yaml(VALID), ["alpha=0.05"])
    assert config.model.params["alpha"] == 0.05


def test_runs_override_replaces_seeds(write_yaml):
    config = load_config(write_yaml(VALID + "seeds: [7, 3]\n"), ["runs=3"])
    assert config.seed_list == [0, 1, 2]


def test_parse_override_splits_on_first_equals():
    assert parse_override("output=a=b") == (["output"], "a=b")
    assert parse_override("model.params.beta=0.2") == (["model", "params", "beta"], 0.2)


# --- errors: each is a ConfigError with a one-line message ---------------------------------


def test_missing_file(tmp_path):
    assert_one_line_config_error(tmp_path / "nope.yaml", match="not found")


def test_malformed_yaml_names_the_line(write_yaml):
    path = write_yaml("name: demo\ndataset: [Tweet\nmodel: {name: fake}\n")
    message = assert_one_line_config_error(path, match="malformed YAML at line")
    assert str(path) in message


def test_top_level_must_be_a_mapping(write_yaml):
    assert_one_line_config_error(write_yaml("- name: demo\n"), match="top level must be a mapping")


@pytest.mark.parametrize("text, kind", [("5\n", "an integer"), ("- a\n", "a list"),
                                        ("word\n", "a string")])
def test_top_level_says_what_it_got_in_english(write_yaml, text, kind):
    message = assert_one_line_config_error(write_yaml(text), match=f"got {kind}")
    assert message.endswith(f"got {kind}")


def test_empty_file(write_yaml):
    assert_one_line_config_error(write_yaml(""), match="empty")


def test_unknown_key_names_it_and_lists_allowed(write_yaml):
    message = assert_one_line_config_error(
        write_yaml(VALID.replace("model:", "modle:")), match="unknown key 'modle'"
    )
    assert "did you mean 'model'? allowed: name, dataset, preprocess, model" in message


def test_unknown_nested_key(write_yaml):
    text = VALID.replace("  params:", "  parms:")
    assert_one_line_config_error(
        write_yaml(text),
        match="unknown key 'model.parms' (did you mean 'params'? allowed: name, params)",
    )


def test_missing_required_key(write_yaml):
    text = "\n".join(line for line in VALID.splitlines() if not line.startswith("dataset"))
    assert_one_line_config_error(write_yaml(text), match="missing key 'dataset'")


def test_wrong_type(write_yaml):
    assert_one_line_config_error(write_yaml(VALID + "runs: many\n"), match="'runs'")


def test_runs_below_one(write_yaml):
    assert_one_line_config_error(write_yaml(VALID + "runs: 0\n"), match="greater than or equal")


def test_runs_and_seeds_disagree(write_yaml):
    assert_one_line_config_error(write_yaml(VALID + "runs: 3\nseeds: [1]\n"), match="keep only one")


def test_repeated_seed(write_yaml):
    assert_one_line_config_error(write_yaml(VALID + "seeds: [1, 1]\n"), match="repeat")


def test_negative_seed(write_yaml):
    # numpy rejects negative random states; caught here rather than mid-experiment
    assert_one_line_config_error(write_yaml(VALID + "seeds: [3, -1]\n"), match="'seeds.1'")


def test_unknown_metric(write_yaml):
    path = write_yaml(VALID + "metrics: [nmi, f1]\n")
    assert_one_line_config_error(path, match="unknown metric 'f1'")


def test_unknown_model(write_yaml):
    message = assert_one_line_config_error(
        write_yaml(VALID.replace("name: fake", "name: kmeanz")), match="unknown model 'kmeanz'"
    )
    assert "fake" in message and "gsdmm" in message


def test_unknown_model_param_lists_allowed(write_yaml):
    text = VALID.replace("n_clusters: 4", "n_clusterz: 4")
    assert_one_line_config_error(
        write_yaml(text),
        match="unknown parameter 'n_clusterz' for model 'fake' "
        "(did you mean 'n_clusters'? allowed: alpha, max_iter, n_clusters)",
    )


def test_random_state_is_not_a_config_param(write_yaml):
    text = VALID.replace("n_clusters: 4", "random_state: 4")
    assert_one_line_config_error(write_yaml(text), match="seeds")


def test_out_of_range_param_is_the_models_parameter_error(write_yaml):
    with pytest.raises(ConfigError, match=r"model\.params: alpha must be a finite number >= 0"):
        load_config(write_yaml(VALID), ["alpha=-1"])


def test_wrongly_typed_param_is_reported_by_the_model(write_yaml):
    with pytest.raises(ConfigError, match=r"model\.params: n_clusters must be an integer"):
        load_config(write_yaml(VALID), ["n_clusters=many"])


def test_override_without_equals(write_yaml):
    assert_one_line_config_error(write_yaml(VALID), ["alpha"], match="expected key=value")


def test_override_of_unknown_bare_key(write_yaml):
    path = write_yaml(VALID)
    message = assert_one_line_config_error(path, ["alpah=0.1"], match="'alpah' is neither")
    assert "alpha, max_iter, n_clusters" in message


def test_override_into_a_scalar(write_yaml):
    path = write_yaml(VALID)
    assert_one_line_config_error(path, ["dataset.x=1"], match="'dataset' is not a section")


def test_override_of_unknown_dotted_key(write_yaml):
    path = write_yaml(VALID)
    assert_one_line_config_error(path, ["model.parms.alpha=1"], match="unknown key 'model.parms'")


def test_schema_forbids_extra_keys_everywhere():
    for model in (ExperimentConfig, ExperimentConfig.model_fields["model"].annotation):
        assert model.model_config["extra"] == "forbid"


# --- issue 17: wording and safety -----------------------------------------------------------

def test_representation_as_a_bare_name(write_yaml):
    config = load_config(write_yaml(VALID + "representation: tfidf\n"))
    assert config.representation["name"] == "tfidf"
    as_mapping = load_config(write_yaml(VALID + "representation: {name: tfidf}\n", "b.yaml"))
    assert config.representation == as_mapping.representation
    overridden = load_config(write_yaml(VALID, "c.yaml"), ["representation=tfidf"])
    assert overridden.representation == as_mapping.representation


def test_duplicate_keys_are_refused_with_the_key_and_line(write_yaml):
    path = write_yaml(VALID + "model:\n  name: fake\n")  # line 6; the first is on line 3
    message = assert_one_line_config_error(path, match="duplicate key 'model'")
    assert "line 6" in message and "line 3" in message
    nested = write_yaml(VALID.replace("{n_clusters: 4}", "{n_clusters: 4, n_clusters: 5}"),
                        "n.yaml")
    assert_one_line_config_error(nested, match="duplicate key 'n_clusters'")


@pytest.mark.parametrize("name", ["../../x", "a/b", "..", "x/../y", "a\\\\b"])
def test_a_name_that_is_a_path_is_refused(write_yaml, name):
    path = write_yaml(VALID.replace("name: demo", f"name: '{name}'"))
    assert_one_line_config_error(path, match="'name'")
    assert_one_line_config_error(path, match="output")


def test_dotted_names_that_are_not_paths_are_fine(write_yaml):
    assert load_config(write_yaml(VALID.replace("name: demo", "name: run.v2"))).name == "run.v2"


def test_set_null_removes_a_section_key_but_a_model_param_stays_none(write_yaml):
    from shortclust.config import _apply_overrides

    raw = {"name": "s", "stream": {"n_batches": 5, "order_by": "time"},
           "model": {"name": "fake", "params": {"tol": 0.1}}}
    _apply_overrides(raw, ["stream.n_batches=null", "stream.batch_by=time",
                           "model.params.tol=null"])
    assert raw["stream"] == {"order_by": "time", "batch_by": "time"}
    assert raw["model"]["params"] == {"tol": None}
