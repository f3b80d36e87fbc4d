"""Dataset registry: names, counts, data-directory resolution and missing-file errors."""

from pathlib import Path

import pytest

from shortclust.data.registry import (DATASETS, data_dir_origin, dataset_names, dataset_path,
                                      dataset_present, find_dataset_file, get_info,
                                      list_datasets, resolve_data_dir)
from shortclust.errors import DataError

# name -> (docs, labels) from ../shared/datasets/README.md
README_COUNTS = {
    "Tweet": (2472, 89), "GoogleNews-TS": (11109, 152), "GoogleNews-T": (11109, 152),
    "GoogleNews-S": (11109, 152), "SearchSnippets": (12340, 8),
    "SearchSnippets-test": (2280, 8), "StackOverflow": (20000, 20), "AgNews-8000": (8000, 4),
    "20NG-bydate": (18846, 20), "20NG-mini": (2000, 20), "MStream-News": (11109, 152),
    "MStream-News-T": (11109, 152), "MStream-Tweets": (30322, 269),
    "MStream-Tweets-T": (30322, 269), "CrisisLexT26": (27933, 26),
}
RAW = {"StackOverflow", "20NG-bydate", "20NG-mini", "CrisisLexT26"}
#: Datasets made of part of another file (Banerjee et al.'s 20 Newsgroups sets).
DERIVED = {"20NG-news20", "20NG-subset20", "20NG-sim3", "20NG-rel3", "20NG-diff3"}
FILES = [info for info in DATASETS if info.subset is None]


def test_registry_has_every_dataset_with_readme_counts():
    assert sorted(info.name for info in FILES) == sorted(README_COUNTS)
    assert sorted(set(dataset_names()) - set(README_COUNTS)) == sorted(DERIVED)
    for info in FILES:
        assert (info.n_docs, info.n_labels) == README_COUNTS[info.name], info.name


def test_default_preprocess_follows_raw_or_preprocessed():
    for info in FILES:
        assert info.preprocessed == (info.name not in RAW), info.name
        assert info.default_preprocess == ("gsdmm" if info.name in RAW else "none"), info.name
    for name in DERIVED:
        assert get_info(name).default_preprocess == "newsgroups"


def test_registry_metadata_is_one_line_and_filenames_match_names():
    for info in FILES:
        assert info.filename.split(".")[0] == info.name
        assert info.filename.endswith((".jsonl", ".jsonl.gz"))
        assert "\n" not in info.description and "\n" not in info.source
        assert " @ " in info.source
    assert "3951" in get_info("GoogleNews-T").description
    assert get_info("CrisisLexT26").has_time and not get_info("Tweet").has_time


def test_info_is_frozen():
    with pytest.raises(AttributeError):
        get_info("Tweet").n_docs = 1


@pytest.mark.parametrize("spelling", ["googlenews-t", "GOOGLENEWS-T", " GoogleNews-T "])
def test_lookup_is_case_insensitive(spelling):
    assert get_info(spelling).name == "GoogleNews-T"


def test_unknown_name_suggests_close_matches(one_line):
    with pytest.raises(DataError) as err:
        get_info("GoogleNews-X")
    one_line(str(err.value), "GoogleNews-X", "GoogleNews-T", "shortclust data list",
             "file path")


def test_unknown_name_without_close_match(one_line):
    with pytest.raises(DataError) as err:
        get_info("zzzzzz")
    one_line(str(err.value), "zzzzzz", "shortclust data list")
    assert "did you mean" not in str(err.value)


# --- data directory --------------------------------------------------------------------------

@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    monkeypatch.delenv("SHORTCLUST_DATA", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def test_data_dir_argument_wins(clean_env, tmp_path):
    clean_env.setenv("SHORTCLUST_DATA", str(tmp_path / "env"))
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_data_dir(str(tmp_path / "arg")) == tmp_path / "arg"


def test_env_var_beats_cache(clean_env, tmp_path):
    clean_env.setenv("SHORTCLUST_DATA", str(tmp_path / "env"))
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_data_dir() == tmp_path / "env"


def test_xdg_cache_home_is_respected(clean_env, tmp_path):
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_data_dir() == tmp_path / "xdg" / "shortclust" / "datasets"


def test_home_cache_is_the_last_resort(clean_env, tmp_path):
    clean_env.setenv("SHORTCLUST_DATA", "")
    assert resolve_data_dir() == tmp_path / "home" / ".cache" / "shortclust" / "datasets"


def test_data_dir_origin_follows_the_same_precedence(clean_env, tmp_path):
    assert data_dir_origin() == "the user cache"
    clean_env.setenv("SHORTCLUST_DATA", str(tmp_path / "env"))
    assert data_dir_origin() == "$SHORTCLUST_DATA"
    assert data_dir_origin(tmp_path / "arg") == "--data-dir"
    assert data_dir_origin("") == "$SHORTCLUST_DATA"


def test_missing_dataset_says_where_to_get_it(clean_env, tmp_path, one_line):
    clean_env.setenv("SHORTCLUST_DATA", str(tmp_path / "empty"))
    with pytest.raises(DataError) as err:
        dataset_path("tweet")
    one_line(str(err.value), "'Tweet'", str(tmp_path / "empty"), "jackyin12/GSDMM",
             "--data-dir", "SHORTCLUST_DATA")


def test_dataset_path_finds_file_and_its_compressed_twin(tmp_path):
    (tmp_path / "Tweet.jsonl").write_text('{"text": "a", "label": "1"}\n')
    (tmp_path / "20NG-mini.jsonl").write_text('{"text": "a", "label": "1"}\n')
    assert dataset_path("Tweet", tmp_path) == tmp_path / "Tweet.jsonl"
    assert dataset_path("20ng-mini", tmp_path) == tmp_path / "20NG-mini.jsonl"


def test_list_datasets_marks_absent_files(tmp_path):
    (tmp_path / "Tweet.jsonl").write_text('{"text": "a", "label": "1"}\n')
    listing = list_datasets(tmp_path)
    assert [info.name for info, _ in listing] == dataset_names()
    paths = {info.name: path for info, path in listing}
    assert paths["Tweet"] == tmp_path / "Tweet.jsonl"
    assert all(path is None for name, path in paths.items() if name != "Tweet")
    assert isinstance(paths["Tweet"], Path)


def test_find_dataset_file_returns_none_when_absent(tmp_path):
    assert find_dataset_file(get_info("Tweet"), tmp_path) is None
    (tmp_path / "Tweet.jsonl.gz").write_bytes(b"")
    assert find_dataset_file(get_info("Tweet"), tmp_path) == tmp_path / "Tweet.jsonl.gz"


def test_dataset_present_is_false_for_an_absent_file_or_an_unknown_name(tmp_path):
    assert not dataset_present("Tweet", tmp_path)
    (tmp_path / "Tweet.jsonl.gz").write_bytes(b"")
    assert dataset_present("Tweet", tmp_path) and dataset_present("tweet", tmp_path)
    assert not dataset_present("NoSuchSet", tmp_path)  # not an error: listed as not present


def test_data_dir_that_is_a_file_is_an_error(clean_env, tmp_path):
    from shortclust.errors import DataError

    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    with pytest.raises(DataError, match="is not a directory") as caught:
        resolve_data_dir(a_file)
    assert str(a_file) in str(caught.value) and "--data-dir" in str(caught.value)
    clean_env.setenv("SHORTCLUST_DATA", str(a_file))
    with pytest.raises(DataError, match="SHORTCLUST_DATA"):
        resolve_data_dir()
