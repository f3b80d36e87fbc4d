"""The report opened in a real browser (headless Chromium): every figure drawn, no console
message but the page's own, the texts on the page, a screenshot kept.

Slow (Chromium starts, plotly.js parses 4.8 MB): ``make test-browser`` runs it. Without
Chromium it fails rather than skips when ``SHORTCLUST_BROWSER=1`` (as the make target sets),
so a missing browser cannot pass for a working page.
"""

import os
import re
from pathlib import Path

import pytest

from shortclust.apps.report import REPORT_FILE
from shortclust.apps.report.page import CONSOLE_PREFIX
from tests.apps.browser import chromium, open_page
from tests.apps.test_report import STREAM_CONFIG, invoke
from tests.test_cli_cluster import texts_and_labels, write_csv

pytestmark = pytest.mark.slow

if chromium() is None and os.environ.get("SHORTCLUST_BROWSER") != "1":
    pytest.skip("chromium not installed (apt-get install -y chromium)", allow_module_level=True)

SCREENSHOTS = Path(os.environ.get("SHORTCLUST_SCREENSHOTS", "")) if os.environ.get(
    "SHORTCLUST_SCREENSHOTS") else None


def check_page(page: Path, screenshot: Path, figures: int) -> None:
    opened = open_page(page, screenshot)
    assert opened.returncode == 0
    # One message, the page's own, and every figure drawn: any script error, failed
    # figure or warning is another console message and fails here.
    assert opened.console == [f"{CONSOLE_PREFIX} {figures} of {figures} figures drawn"], \
        opened.console
    assert screenshot.stat().st_size > 10_000  # something was painted


def test_cluster_report_draws_every_figure_without_a_console_error(tmp_path):
    rows = texts_and_labels(copies=4)
    data = write_csv(tmp_path / "texts.csv", rows, labels=True)
    out = tmp_path / "out"
    assert invoke("cluster", data, "-k", 4, "--output", out).exit_code == 0
    page = out / REPORT_FILE
    text = page.read_text()
    assert "Flood waters rise in the city" in text  # a representative text
    n_figures = len(re.findall(r'<div class="fig" id=', text))
    assert n_figures == 5  # map, sizes, bars, similarity, contingency
    check_page(page, (SCREENSHOTS or tmp_path) / "report_cluster.png", n_figures)


def test_stream_report_draws_sizes_over_time_and_drift(tmp_path):
    data = write_csv(tmp_path / "texts.csv", texts_and_labels(copies=4), labels=True)
    config = tmp_path / "stream.yaml"
    config.write_text(STREAM_CONFIG.format(data=data, out=tmp_path / "run", model="dct",
                                           params="{n_clusters: 5, max_iter: 3}"))
    assert invoke("run", config, "--quiet").exit_code == 0
    assert invoke("report", tmp_path / "run").exit_code == 0
    page = tmp_path / "run" / REPORT_FILE
    ids = re.findall(r'<div class="fig" id="(\w+)"', page.read_text())
    assert {"map", "stream_sizes", "births", "drift", "stream_metrics"} <= set(ids), ids
    n_figures = len(ids)
    check_page(page, (SCREENSHOTS or tmp_path) / "report_stream.png", n_figures)
