"""Upstream converters on tiny synthetic files in each upstream format, and the registry of
upstream sources (every dataset file has one, consistent with the dataset registry).

No test touches the internet; the byte-for-byte check of the converters against the real
upstream files was done once by hand (docs/data.md says how), not here.
"""

import gzip
import hashlib
import json

import pytest

from shortclust.data.registry import DATASETS, get_info
from shortclust.data.upstream import DOWNLOAD_KINDS, UPSTREAMS, to_jsonl, upstream_for
from shortclust.errors import DataError

FILES = [info for info in DATASETS if info.subset is None]


def convert(name, files):
    return upstream_for(name).convert(files)


def test_every_dataset_file_has_one_upstream_consistent_with_the_registry():
    assert sorted(u.dataset for u in UPSTREAMS) == sorted(info.name for info in FILES)
    for upstream in UPSTREAMS:
        info = get_info(upstream.dataset)
        # The registry's human-readable source names the same repository and commit.
        assert info.source.startswith(upstream.repo + " : "), info.name
        assert upstream.commit in info.source and len(upstream.commit) == 40
        assert upstream.kind in DOWNLOAD_KINDS and upstream.paths
        assert len(upstream.sha256) == 64
        # A .gz file is verified on its decompressed content.
        assert (upstream.content_sha256 is not None) == info.filename.endswith(".gz")
    for info in DATASETS:
        if info.subset is not None:
            assert upstream_for(info.name) is None


def test_registered_checksums_match_the_shared_files(data_dir):
    for upstream in UPSTREAMS:
        path = data_dir / get_info(upstream.dataset).filename
        if not path.is_file():
            continue
        raw = path.read_bytes()
        assert hashlib.sha256(raw).hexdigest() == upstream.sha256, path.name
        if upstream.content_sha256:
            content = gzip.decompress(raw)
            assert hashlib.sha256(content).hexdigest() == upstream.content_sha256, path.name


def test_to_jsonl_keeps_key_order_and_writes_utf8():
    out = to_jsonl([{"text": "naïve\u2028x", "label": "2", "time": 0}, {"text": "", "label": "1"}])
    assert out == ('{"text": "naïve\u2028x", "label": "2", "time": 0}\n'
                   '{"text": "", "label": "1"}\n').encode("utf-8")


def test_gsdmm_format():
    files = {"data/Tweet": b'{"text": "brain fluid", "cluster": 37}\n{"text": "", "cluster": 4}\n'}
    assert convert("Tweet", files) == [{"text": "brain fluid", "label": "37"},
                                       {"text": "", "label": "4"}]


def test_gsdmm_refuses_a_line_that_is_not_json(one_line):
    with pytest.raises(DataError) as err:
        convert("GoogleNews-T", {"data/T": b'{"text": "a", "cluster": 1}\n{"text": "b", \n'})
    one_line(str(err.value), "data/T", "line 2", "nothing written")
    with pytest.raises(DataError, match="no 'cluster'"):
        convert("GoogleNews-T", {"data/T": b'{"text": "a"}\n'})


def test_mstream_format_numbers_the_stream():
    files = {"MStream/data/News": b'{"Id": "000001", "clusterNo": 65, "textCleaned": "a b"}\n'
                                  b'{"Id": "000002", "clusterNo": 9, "textCleaned": "c"}\n'}
    assert convert("MStream-News", files) == [
        {"text": "a b", "label": "65", "id": "000001", "time": 0},
        {"text": "c", "label": "9", "id": "000002", "time": 1}]


def _snippets(n_test_lines):
    texts = "".join(f"snippet {i} \n" for i in range(n_test_lines + 2))
    labels = "".join(f"{1 + i % 3}\n" for i in range(n_test_lines + 2))
    return {"dataset/SearchSnippets.txt": b"\xef\xbb\xbf" + texts.encode(),
            "dataset/SearchSnippets_gnd.txt": labels.encode()}


def test_search_snippets_drop_the_bom_keep_trailing_spaces_and_split():
    records = convert("SearchSnippets", _snippets(2280))
    assert len(records) == 2282
    assert records[0] == {"text": "snippet 0 ", "label": "1", "split": "test"}
    assert records[2279]["split"] == "test" and records[2280]["split"] == "train"
    test_only = convert("SearchSnippets-test", _snippets(2280))
    assert test_only == [{"text": r["text"], "label": r["label"]} for r in records[:2280]]


def test_stc2_texts_split_on_newline_only_and_counts_must_agree():
    files = {"dataset/StackOverflow.txt": "a\x0cb\u2028c\nd e\n".encode(),
             "dataset/StackOverflow_gnd.txt": b"18\n3\n"}
    assert convert("StackOverflow", files) == [{"text": "a\x0cb\u2028c", "label": "18"},
                                               {"text": "d e", "label": "3"}]
    files["dataset/StackOverflow_gnd.txt"] = b"18\n"
    with pytest.raises(DataError, match="1 labels for 2 texts"):
        convert("StackOverflow", files)


def test_label_tab_text_format():
    files = {"data/agnewsdataraw-8000": b"3\tbhp billiton lt gt\n1\tworld news\n"}
    assert convert("AgNews-8000", files) == [{"text": "bhp billiton lt gt", "label": "3"},
                                             {"text": "world news", "label": "1"}]
    with pytest.raises(DataError, match="line 1 is not 'label<TAB>text'"):
        convert("AgNews-8000", {"data/agnewsdataraw-8000": b"no tab here\n"})


def test_bydate_posts_train_first_then_by_group_and_article_number():
    post = "From: a@b\nSubject: s\n\nbody þ\n".encode()
    files = {"data/20news-bydate-test/alt.atheism/53000": post,
             "data/20news-bydate-train/sci.space/61000": post,
             "data/20news-bydate-train/alt.atheism/9999": post,
             "data/20news-bydate-train/alt.atheism/10000": post,
             "data/20news-bydate-test/.DS_Store": b"\x00junk"}
    records = convert("20NG-bydate", files)
    assert [(r["id"], r["split"]) for r in records] == [
        ("alt.atheism/9999", "train"), ("alt.atheism/10000", "train"),
        ("sci.space/61000", "train"), ("alt.atheism/53000", "test")]
    assert records[0]["text"] == "From: a@b\nSubject: s\n\nbody þ\n"
    assert records[0]["label"] == "alt.atheism" and list(records[0]) == [
        "text", "label", "id", "split"]
    with pytest.raises(DataError, match="not UTF-8"):
        convert("20NG-bydate", {"data/20news-bydate-train/x/1": b"caf\xe9"})


def test_mini_newsgroups_time_in_utc_and_latin1_fallback():
    files = {
        "mini_newsgroups/sci.med/58100": b"From: x\nDate: Mon, 5 Apr 1993 14:01:16 EDT\n\nhi\n",
        "mini_newsgroups/alt.atheism/51126": b"Date: 2 Apr 93 20:57:33 GMT\n\ncaf\xe9\n",
        "mini_newsgroups/.DS_Store": b"\x00",
    }
    records = convert("20NG-mini", files)
    assert [r["id"] for r in records] == ["alt.atheism/51126", "sci.med/58100"]
    assert records[0]["time"] == "1993-04-02T20:57:33Z" and records[0]["text"].endswith("café\n")
    assert records[1]["time"] == "1993-04-05T18:01:16Z"  # EDT is UTC-4
    with pytest.raises(DataError, match="no readable Date header"):
        convert("20NG-mini", {"mini_newsgroups/sci.med/1": b"From: x\n\nDate: in the body\n"})


def _crisis_files(boston_rows, other_rows, other_times):
    head = "Tweet ID, Tweet Text, Information Source, Information Type, Informativeness\n"
    directory = "data/CrisisLexT26"
    files = {}
    for event in upstream_for("CrisisLexT26").paths:
        files[event] = head.encode()  # every event present, most of them empty
    boston = f"{directory}/2013_Boston_bombings/2013_Boston_bombings-tweets_labeled.csv"
    italy = f"{directory}/2012_Italy_earthquakes/2012_Italy_earthquakes"
    files[boston] = (head + boston_rows).encode()
    files[f"{italy}-tweets_labeled.csv"] = (head + other_rows).encode()
    files[f"{italy}-tweetids_entire_period.csv"] = (
        "Timestamp, Tweet-ID, Included(Y/N)\n" + other_times).encode()
    for path in files:
        if path.endswith("tweetids_entire_period.csv") and "Italy" not in path:
            files[path] = b"Timestamp, Tweet-ID, Included(Y/N)\n"
    return files


def _snowflake(when_ms):
    """A tweet id created at ``when_ms`` (Unix ms): Twitter's epoch 1288834974657 ms,
    the time in the bits above 22, a worker/sequence number below."""
    return ((when_ms - 1288834974657) << 22) | 0b1011_0000_1111


def test_crisis_lex_times_from_the_tweetids_file_or_the_snowflake_id_then_sorted():
    # 2013-04-15T18:50:07.999Z = 1366051807999 ms
    boston_id = _snowflake(1366051807999)
    boston = f'"{boston_id}","RT @x: prayers, boston",Outsiders,Sympathy and support,Related\n'
    italy = ('"203440928084602880","Dov\'è il piano?",Outsiders,Other,Related\n'
             '"203440928084602881","second ""quoted""",Media,Other,Not related\n')
    times = ('"Fri May 18 11:04:31 +0000 2012","203440928084602880",Y\n'
             '"Fri May 18 13:04:31 +0200 2012","203440928084602881",Y\n')
    records = convert("CrisisLexT26", _crisis_files(boston, italy, times))
    assert [r["id"] for r in records] == ["203440928084602880", "203440928084602881",
                                          str(boston_id)]
    first = records[0]
    assert list(first) == ["text", "label", "id", "time", "info_source", "info_type",
                           "informativeness"]
    assert first["time"] == records[1]["time"] == "2012-05-18T11:04:31Z"  # +0200 to UTC
    assert records[1]["text"] == 'second "quoted"'
    assert records[2]["time"] == "2013-04-15T18:50:07Z"  # to the second, not rounded up
    assert records[2]["label"] == "2013_Boston_bombings"
    assert json.loads(to_jsonl(records).decode().split("\n")[0])["text"] == "Dov'è il piano?"


def test_crisis_lex_refuses_a_row_without_five_fields():
    rows = '"203440928084602880","text only"\n'
    with pytest.raises(DataError, match="2 fields"):
        convert("CrisisLexT26", _crisis_files("", rows, ""))
