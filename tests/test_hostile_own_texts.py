"""Issue 30's path (``cluster``, ``predict``, ``shortclust.TextClusterer``) under hostile
input: each case that raised, hung or gave a silently wrong result, with its one-line
refusal (docs/hardening.md, section 7, lists them)."""

import os
import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from shortclust.cli import app
from shortclust.data.io import read_documents
from shortclust.errors import ShortclustError
from tests.pipeline.fake_estimators import TEXTS, write_corpus


def refused(args) -> str:
    """Run ``shortclust *args``; assert exit 2 with one ``error:`` line; return it."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (
        result.exit_code, result.stderr, result.exception)
    return lines[0]


# --- input files ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_input_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path, kind):
    # Opening a FIFO waited forever for a writer; /dev/zero was read until memory ran out.
    if kind == "fifo":
        path = tmp_path / "texts.csv"
        os.mkfifo(path)
    else:
        path = tmp_path / "texts.txt"
        path.symlink_to("/dev/zero")
    outcome = {}

    def read():
        try:
            read_documents(path)
        except ShortclustError as error:
            outcome["error"] = str(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive() and kind == "fifo":
        with open(path, "w"):  # let the stuck reader go
            pass
    assert not reader.is_alive(), "reading it hung"
    expected = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    assert expected in outcome["error"] and "regular file" in outcome["error"]
