"""`data download` against a synthetic mirror served on 127.0.0.1 (no test touches the
internet): tiny files in the upstream formats, whose converted checksum each test registers
in place of the real one; success, a corrupted or changed file, a missing file, a timeout,
a truncated transfer, a broken archive, files already present, the command line."""

import dataclasses
import gzip
import hashlib
import io
import os
import tarfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

import shortclust.data.download as download_module
from shortclust.cli import app
from shortclust.data.download import Fetcher, download, download_targets
from shortclust.data.upstream import UPSTREAMS, upstream_for
from shortclust.errors import DataError

TWEET = upstream_for("Tweet")
TWEET_URL_PATH = f"/jackyin12/GSDMM/{TWEET.commit}/data/Tweet"
TWEET_UPSTREAM = b'{"text": "brain fluid", "cluster": 37}\n{"text": "trailer talk", "cluster": 14}\n'
# Written by hand from the format (not by the converter): what the download must produce.
TWEET_JSONL = b'{"text": "brain fluid", "label": "37"}\n{"text": "trailer talk", "label": "14"}\n'


class _Mirror:
    """A GitHub-like file server on 127.0.0.1: ``files`` maps URL paths to bodies."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.delay: dict[str, float] = {}      # path -> seconds to wait before answering
        self.short: set[str] = set()           # paths sent with a Content-Length too large
        self.requests: list[str] = []
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                mirror.requests.append(self.path)
                time.sleep(mirror.delay.get(self.path, 0))
                body = mirror.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                extra = 100 if self.path in mirror.short else 0
                self.send_header("Content-Length", str(len(body) + extra))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def mirror():
    served = _Mirror()
    yield served
    served.close()


@pytest.fixture
def register(monkeypatch):
    """Register checksums for the tiny files: ``register(name, jsonl_bytes)``."""
    registered = {}

    def add(name, jsonl):
        original = upstream_for(name)
        sha = hashlib.sha256(jsonl).hexdigest()
        fields = {"sha256": sha}
        if original.content_sha256 is not None:
            fields = {"sha256": "not compared", "content_sha256": sha}
        registered[name.lower()] = dataclasses.replace(original, **fields)

    monkeypatch.setattr(download_module, "upstream_for",
                        lambda name: registered.get(name.lower(), upstream_for(name)))
    return add


def fetcher(mirror, timeout=5.0):
    return Fetcher(timeout=timeout, mirror=mirror.url)


def leftovers(directory):
    return sorted(os.listdir(directory)) if directory.exists() else []


def test_download_writes_the_converted_file_with_the_registered_checksum(mirror, register,
                                                                         tmp_path):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    register("Tweet", TWEET_JSONL)
    data = tmp_path / "new" / "data"  # created on the way
    result = download("Tweet", data, fetcher(mirror))
    assert result.status == "written" and result.path == data / "Tweet.jsonl"
    assert (data / "Tweet.jsonl").read_bytes() == TWEET_JSONL
    assert result.sha256 == hashlib.sha256(TWEET_JSONL).hexdigest() and result.n_docs == 2
    assert leftovers(data) == ["Tweet.jsonl"]  # no temporary file left
    assert mirror.requests == [TWEET_URL_PATH]


def test_a_changed_or_corrupted_upstream_file_is_refused_and_nothing_written(
        mirror, register, tmp_path, one_line):
    register("Tweet", TWEET_JSONL)
    for body in (TWEET_UPSTREAM.replace(b"37", b"38"),      # a changed label
                 TWEET_UPSTREAM[:-5],                        # cut short
                 b"\x89PNG\r\n\x1a\n" + TWEET_UPSTREAM):     # garbage
        mirror.files[TWEET_URL_PATH] = body
        with pytest.raises(DataError) as err:
            download("Tweet", tmp_path, fetcher(mirror))
        one_line(str(err.value), "nothing written")
        assert leftovers(tmp_path) == []
    assert "changed or corrupted" in str(err.value)


def test_a_missing_upstream_file_is_refused(mirror, register, tmp_path, one_line):
    register("Tweet", TWEET_JSONL)
    with pytest.raises(DataError) as err:
        download("Tweet", tmp_path, fetcher(mirror))
    one_line(str(err.value), TWEET_URL_PATH, "HTTP 404", "nothing written")
    assert leftovers(tmp_path) == []


def test_a_stalled_server_times_out(mirror, register, tmp_path, one_line):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    mirror.delay[TWEET_URL_PATH] = 2.0
    register("Tweet", TWEET_JSONL)
    started = time.monotonic()
    with pytest.raises(DataError) as err:
        download("Tweet", tmp_path, fetcher(mirror, timeout=0.3))
    assert time.monotonic() - started < 1.8
    one_line(str(err.value), "no answer within 0.3 s", "--timeout")
    assert leftovers(tmp_path) == []


def test_a_transfer_cut_short_is_refused(mirror, register, tmp_path, one_line):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    mirror.short.add(TWEET_URL_PATH)
    register("Tweet", TWEET_JSONL)
    with pytest.raises(DataError) as err:
        download("Tweet", tmp_path, fetcher(mirror, timeout=2))
    one_line(str(err.value), TWEET_URL_PATH, "nothing written")
    assert leftovers(tmp_path) == []


def test_no_server_is_refused_in_one_line(tmp_path, register, one_line):
    register("Tweet", TWEET_JSONL)
    probe = _Mirror()
    url = probe.url
    probe.close()  # nothing listens on that port any more
    with pytest.raises(DataError) as err:
        download("Tweet", tmp_path, Fetcher(timeout=2, mirror=url))
    one_line(str(err.value), "cannot connect", "nothing written")


MINI = upstream_for("20NG-mini")


def _tarball(prefix, members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, body in members.items():
            info = tarfile.TarInfo(f"{prefix}/{name}")
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


MINI_ARCHIVE_PATH = f"/{MINI.repo}/archive/{MINI.commit}.tar.gz"
MINI_MEMBERS = {
    "mini_newsgroups/sci.med/59000": b"Subject: b\nDate: 6 Apr 93 01:00:00 GMT\n\nbody\n",
    "mini_newsgroups/alt.atheism/51121": b"Subject: a\nDate: 5 Apr 93 18:01:16 GMT\n\nhi\n",
    "README.md": b"not a post\n",
}
MINI_JSONL = (
    b'{"text": "Subject: a\\nDate: 5 Apr 93 18:01:16 GMT\\n\\nhi\\n", "label": "alt.atheism", '
    b'"id": "alt.atheism/51121", "time": "1993-04-05T18:01:16Z"}\n'
    b'{"text": "Subject: b\\nDate: 6 Apr 93 01:00:00 GMT\\n\\nbody\\n", "label": "sci.med", '
    b'"id": "sci.med/59000", "time": "1993-04-06T01:00:00Z"}\n')


def test_an_archive_download_reads_the_tarball_and_writes_reproducible_gzip(mirror, register,
                                                                            tmp_path):
    mirror.files[MINI_ARCHIVE_PATH] = _tarball(f"IR_TextMining-{MINI.commit}", MINI_MEMBERS)
    register("20NG-mini", MINI_JSONL)
    result = download("20NG-mini", tmp_path, fetcher(mirror))
    written = (tmp_path / "20NG-mini.jsonl.gz").read_bytes()
    assert result.path.name == "20NG-mini.jsonl.gz" and gzip.decompress(written) == MINI_JSONL
    assert written[4:8] == b"\x00\x00\x00\x00"  # gzip mtime 0: same content, same bytes
    again = tmp_path / "again"
    download("20NG-mini", again, fetcher(mirror))
    assert (again / "20NG-mini.jsonl.gz").read_bytes() == written


def test_a_broken_or_foreign_archive_is_refused(mirror, register, tmp_path, one_line):
    register("20NG-mini", MINI_JSONL)
    mirror.files[MINI_ARCHIVE_PATH] = _tarball("x", MINI_MEMBERS)[:200]
    with pytest.raises(DataError) as err:
        download("20NG-mini", tmp_path, fetcher(mirror))
    one_line(str(err.value), "not a readable .tar.gz", "nothing written")
    mirror.files[MINI_ARCHIVE_PATH] = _tarball("x", {"other/file": b"1"})
    with pytest.raises(DataError, match="holds no file under mini_newsgroups/"):
        download("20NG-mini", tmp_path, fetcher(mirror))
    assert leftovers(tmp_path) == []


def test_a_present_file_is_checked_kept_or_replaced_on_request(mirror, register, tmp_path,
                                                               one_line):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    register("Tweet", TWEET_JSONL)
    target = tmp_path / "Tweet.jsonl"
    target.write_bytes(TWEET_JSONL)
    assert download("Tweet", tmp_path, fetcher(mirror)).status == "present"
    assert mirror.requests == []  # verified locally, nothing fetched
    target.write_bytes(b'{"text": "my own edit", "label": "1"}\n')
    with pytest.raises(DataError) as err:
        download("Tweet", tmp_path, fetcher(mirror))
    one_line(str(err.value), "--force")
    assert target.read_bytes() == b'{"text": "my own edit", "label": "1"}\n'  # kept
    result = download("Tweet", tmp_path, fetcher(mirror), if_missing=True)
    assert result.status == "skipped" and mirror.requests == []
    assert download("Tweet", tmp_path, fetcher(mirror), force=True).status == "written"
    assert target.read_bytes() == TWEET_JSONL


def test_an_unwritable_data_directory_is_refused(mirror, register, tmp_path, one_line):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    register("Tweet", TWEET_JSONL)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(DataError) as err:  # a folder cannot be made inside a file
        download("Tweet", tmp_path / "a-file" / "data", fetcher(mirror))
    one_line(str(err.value), "cannot write", "--data-dir", "nothing written")
    assert leftovers(tmp_path) == ["a-file"]


def test_targets_and_bad_names(one_line):
    assert download_targets("all") == [u.dataset for u in UPSTREAMS] and len(UPSTREAMS) == 15
    assert download_targets("20ng-Rel3") == ["20NG-bydate"]
    assert download_targets("tweet") == ["Tweet"]
    with pytest.raises(DataError) as err:
        download_targets("Twet")
    one_line(str(err.value), "did you mean Tweet")
    with pytest.raises(DataError, match="download 20NG-bydate"):
        download("20NG-sim3")
    with pytest.raises(DataError, match="not an http"):
        download_module.file_url(TWEET, "data/Tweet", mirror="ftp://example.org/")


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def test_cli_download_succeeds_and_reports_the_checksum(mirror, register, tmp_path):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    register("Tweet", TWEET_JSONL)
    result = invoke("data", "download", "Tweet", "--data-dir", tmp_path, "--mirror", mirror.url)
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(TWEET_JSONL).hexdigest() in result.output
    assert (tmp_path / "Tweet.jsonl").read_bytes() == TWEET_JSONL


def test_cli_refuses_a_corrupted_file_in_one_line_with_status_2(mirror, register, tmp_path):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM.replace(b"14", b"15")
    register("Tweet", TWEET_JSONL)
    result = invoke("data", "download", "Tweet", "--data-dir", tmp_path, "--mirror", mirror.url)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "changed or corrupted" in errors[0], result.output
    assert "Traceback" not in result.output and leftovers(tmp_path) == []


def test_cli_all_continues_past_a_failure_and_exits_2(mirror, register, tmp_path):
    mirror.files[TWEET_URL_PATH] = TWEET_UPSTREAM
    register("Tweet", TWEET_JSONL)
    mirror.files[MINI_ARCHIVE_PATH] = _tarball(f"IR_TextMining-{MINI.commit}", MINI_MEMBERS)
    register("20NG-mini", MINI_JSONL)
    result = invoke("data", "download", "all", "--data-dir", tmp_path, "--mirror", mirror.url,
                    "--timeout", 5)
    assert result.exit_code == 2
    assert sorted(os.listdir(tmp_path)) == ["20NG-mini.jsonl.gz", "Tweet.jsonl"]
    assert "2 of 15 datasets written" in result.output, result.output


def test_cli_data_list_shows_upstream_source_and_kind(tmp_path):
    result = invoke("data", "list", "--data-dir", tmp_path)
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert f"jackyin12/GSDMM @ {TWEET.commit[:12]}" in flat
    assert "archive" in flat and "files" in flat and "20NG-bydate" in flat


def test_cli_download_of_tweet_reaches_the_registered_checksum(mirror, data_dir, tmp_path):
    """With the real registered checksum (nothing patched): the mirror serves a Tweet file in
    GSDMM's upstream format, rebuilt from the shared copy, and the download must write a
    file with the registered SHA-256."""
    import json

    shared = (data_dir / "Tweet.jsonl").read_bytes()
    rows = [json.loads(line) for line in shared.decode().splitlines()]
    mirror.files[TWEET_URL_PATH] = "".join(
        json.dumps({"text": row["text"], "cluster": int(row["label"])}) + "\n"
        for row in rows).encode()
    result = invoke("data", "download", "Tweet", "--data-dir", tmp_path / "D",
                    "--mirror", mirror.url)
    assert result.exit_code == 0, result.output
    written = (tmp_path / "D" / "Tweet.jsonl").read_bytes()
    assert hashlib.sha256(written).hexdigest() == TWEET.sha256 in result.output
    assert written == shared
