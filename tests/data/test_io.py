"""Reading documents: formats, and one-line errors that name the file and the line."""

import gzip
import hashlib
import json
import os

import pytest

from shortclust.data.io import file_sha256, read_documents
from shortclust.errors import DataError, ShortclustError

RECORDS = [
    {"text": "red apple", "label": "fruit", "time": "2013-01-02T03:04:05Z", "id": "a"},
    {"text": "", "label": "empty", "time": "2013-01-02T03:04:06Z", "id": "b"},
    {"text": "green pear", "label": "fruit", "time": "2013-01-02T03:04:07Z", "id": "c"},
]


def jsonl(records):
    return "".join(json.dumps(r) + "\n" for r in records)


def write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- formats ---------------------------------------------------------------------------------

def test_jsonl_reads_all_fields_and_keeps_empty_text(tmp_path):
    docs = read_documents(write(tmp_path / "d.jsonl", jsonl(RECORDS)))
    assert docs.texts == ["red apple", "", "green pear"]
    assert docs.labels == ["fruit", "empty", "fruit"]
    assert docs.times == ["2013-01-02T03:04:05Z", "2013-01-02T03:04:06Z",
                          "2013-01-02T03:04:07Z"]
    assert docs.ids == ["a", "b", "c"]
    assert len(docs) == 3


def test_jsonl_gz_reads_same_as_plain(tmp_path):
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress(jsonl(RECORDS).encode()))
    assert read_documents(path) == read_documents(write(tmp_path / "d.jsonl", jsonl(RECORDS)))


def test_jsonl_trailing_blank_lines_ignored_and_optional_fields_absent(tmp_path):
    docs = read_documents(write(tmp_path / "d.jsonl", '{"text": "a"}\n{"text": "b"}\n\n  \n'))
    assert docs.texts == ["a", "b"]
    assert docs.labels is None and docs.times is None and docs.ids is None


def test_jsonl_integer_labels_and_positions(tmp_path):
    docs = read_documents(write(tmp_path / "d.jsonl",
                                '{"text": "a", "label": 7, "time": 0}\n'
                                '{"text": "b", "label": "7", "time": 1}\n'))
    assert docs.labels == ["7", "7"]
    assert docs.times == [0, 1]


def test_jsonl_byte_order_mark_is_dropped(tmp_path):
    docs = read_documents(write(tmp_path / "d.jsonl", '\ufeff{"text": "a"}\n'))
    assert docs.texts == ["a"]


def test_csv_reads_columns_in_any_order_with_quoted_commas(tmp_path):
    path = write(tmp_path / "d.csv",
                 'id,label,text,time\n'
                 '1,x,"hello, world",2013-01-02T00:00:00Z\n'
                 '2,y,,2013-01-03T00:00:00Z\n')
    docs = read_documents(path)
    assert docs.texts == ["hello, world", ""]
    assert docs.labels == ["x", "y"]
    assert docs.ids == ["1", "2"]
    assert docs.times == ["2013-01-02T00:00:00Z", "2013-01-03T00:00:00Z"]


def test_csv_integer_times_and_no_label_column(tmp_path):
    docs = read_documents(write(tmp_path / "d.csv", "Text,time\na,0\nb,5\n"))
    assert docs.texts == ["a", "b"]
    assert docs.times == [0, 5]
    assert docs.labels is None


def test_txt_one_document_per_line(tmp_path):
    docs = read_documents(write(tmp_path / "d.txt", "first doc\n\nthird doc\r\n\n\n"))
    assert docs.texts == ["first doc", "", "third doc"]
    assert docs.labels is None and docs.times is None


def test_file_sha256_is_of_stored_bytes(tmp_path):
    payload = gzip.compress(jsonl(RECORDS).encode())
    path = write(tmp_path / "d.jsonl.gz", payload)
    assert file_sha256(path) == hashlib.sha256(payload).hexdigest()
    assert file_sha256(path, chunk_size=7) == hashlib.sha256(payload).hexdigest()


# --- errors ----------------------------------------------------------------------------------

LINE_ERRORS = [
    ("invalid_json", "d.jsonl", '{"text": "a"}\n{"text": "b"\n', "line 2", "invalid JSON"),
    ("no_text", "d.jsonl", '{"text": "a"}\n{"text": "b"}\n{"label": "x"}\n', "line 3",
     "no 'text'"),
    ("text_not_string", "d.jsonl", '{"text": 5}\n', "line 1", "not a string"),
    ("text_null", "d.jsonl", '{"text": "a"}\n{"text": null}\n', "line 2", "'text' is null"),
    ("not_object", "d.jsonl", '{"text": "a"}\n["a"]\n', "line 2", "not a JSON object"),
    ("labels_partly_missing", "d.jsonl",
     '{"text": "a", "label": "x"}\n{"text": "b", "label": "y"}\n{"text": "c"}\n',
     "line 3", "label"),
    ("labels_missing_first", "d.jsonl", '{"text": "a"}\n{"text": "b", "label": "y"}\n',
     "line 1", "label"),
    ("times_partly_missing", "d.jsonl", '{"text": "a", "time": 0}\n{"text": "b"}\n',
     "line 2", "time"),
    ("bad_time", "d.jsonl", '{"text": "a", "time": "yesterday"}\n', "line 1", "ISO-8601"),
    ("bad_label_type", "d.jsonl", '{"text": "a", "label": [1]}\n', "line 1", "label"),
    ("blank_in_middle", "d.jsonl", '{"text": "a"}\n\n{"text": "b"}\n', "line 2", "blank"),
    ("bad_utf8", "d.jsonl", b'{"text": "a"}\n{"text": "\xff"}\n', "line 2", "UTF-8"),
    ("csv_no_text_column", "d.csv", "body,label\na,x\n", "line 1", "'text' column"),
    ("csv_field_count", "d.csv", "text,label\na,x\nb,c,y\n", "line 3", "3 field(s)"),
    ("csv_labels_partly_missing", "d.csv", "text,label\na,x\nb,\n", "line 3", "label"),
    ("csv_bad_utf8", "d.csv", b"text,label\na,x\nb,y\n\xff,z\n", "line 4", "UTF-8"),
    ("csv_multiline_record", "d.csv", 'text,label\n"a\nb",x,extra\n', "line 2-3", "field(s)"),
    ("txt_bad_utf8", "d.txt", b"fine\nfine\n\xc3\x28\n", "line 3", "UTF-8"),
]


@pytest.mark.parametrize("name, filename, content, where, what", LINE_ERRORS,
                         ids=[e[0] for e in LINE_ERRORS])
def test_malformed_file_names_file_and_line(tmp_path, one_line, name, filename, content,
                                            where, what):
    path = write(tmp_path / filename, content)
    with pytest.raises(DataError) as err:
        read_documents(path)
    one_line(str(err.value), str(path), where, what)


def test_mixed_time_kinds_rejected(tmp_path, one_line):
    path = write(tmp_path / "d.jsonl", '{"text": "a", "time": 0}\n'
                                       '{"text": "b", "time": "2013-01-01T00:00:00Z"}\n')
    with pytest.raises(DataError) as err:
        read_documents(path)
    one_line(str(err.value), str(path), "time")


@pytest.mark.parametrize("filename", ["d.jsonl", "d.jsonl.gz", "d.csv", "d.txt"])
def test_missing_file(tmp_path, one_line, filename):
    with pytest.raises(DataError) as err:
        read_documents(tmp_path / filename)
    one_line(str(err.value), "not found", filename)


@pytest.mark.parametrize("filename, content", [
    ("d.jsonl", ""), ("d.jsonl", "\n\n"), ("d.txt", ""), ("d.csv", ""), ("d.csv", "text,label\n"),
    ("d.jsonl.gz", gzip.compress(b"", mtime=0)),
])
def test_empty_file(tmp_path, one_line, filename, content):
    path = write(tmp_path / filename, content)
    with pytest.raises(DataError) as err:
        read_documents(path)
    one_line(str(err.value), str(path), "no documents")


def test_not_gzip(tmp_path, one_line):
    path = write(tmp_path / "d.jsonl.gz", jsonl(RECORDS))
    with pytest.raises(DataError) as err:
        read_documents(path)
    one_line(str(err.value), str(path), "gzip")


def test_truncated_gzip_names_line(tmp_path, one_line):
    payload = gzip.compress(jsonl(RECORDS * 50).encode())
    path = write(tmp_path / "d.jsonl.gz", payload[: len(payload) - 20])
    with pytest.raises(DataError) as err:
        read_documents(path)
    one_line(str(err.value), str(path), "line", "gzip")


def test_directory_is_not_a_file(tmp_path, one_line):
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    with pytest.raises(DataError) as err:
        read_documents(folder)
    one_line(str(err.value), str(folder), "directory")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads files whatever their permissions")
@pytest.mark.parametrize("filename", ["d.jsonl", "d.csv"])
def test_unreadable_file(tmp_path, one_line, filename):
    path = write(tmp_path / filename, jsonl(RECORDS))
    path.chmod(0)
    try:
        with pytest.raises(DataError) as err:
            read_documents(path)
    finally:
        path.chmod(0o600)
    one_line(str(err.value), str(path), "permissions")


def test_unsupported_suffix(tmp_path, one_line):
    path = write(tmp_path / "d.parquet", "x")
    with pytest.raises(DataError) as err:
        read_documents(path)
    one_line(str(err.value), str(path), ".jsonl", ".csv")


def test_data_error_is_a_shortclust_error():
    assert issubclass(DataError, ShortclustError)
