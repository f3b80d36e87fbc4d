"""Open an HTML page in headless Chromium: its console messages and a screenshot.

Chromium is Debian's ``chromium`` package (``apt-get install -y chromium``). It runs with a
fresh profile, no sandbox (tests run as root), no GPU, and every background connection of
its own turned off, so the page is all it loads. Console messages are read from its log
(``--enable-logging=stderr --v=0`` writes each as ``INFO:CONSOLE...] "message", source:``);
those of Chromium's own ``chrome://`` pages (a "slow network" notice of its interface's
font when the machine is loaded) are kept apart: they are not the page's.

Run as a script to check a page and keep its screenshot::

    python -m tests.apps.browser report.html shot.png [--offline] [--bottom=PIXELS]

``--offline`` runs Chromium in a network namespace of its own (``unshare -n``): no network;
``--bottom=2300`` keeps the last 2300 pixels of the page (a stream report's stream part).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
_CONSOLE = re.compile(r':CONSOLE[^\]]*\] "(.*)", source: (\S*)')


def chromium() -> str | None:
    """The Chromium executable, or None when it is not installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class Opened:
    """``console``: the page's console messages; ``browser``: those of Chromium's own pages
    (``chrome://``: its interface, not the page)."""

    console: list[str]
    browser: list[str]
    seconds: float
    screenshot: Path
    returncode: int


def open_page(page, screenshot, *, width: int = 1280, height: int = 2400,
              budget_ms: int = 30000, offline: bool = False, timeout: int = 300) -> Opened:
    """Load ``page`` (a file) in headless Chromium, wait for its scripts (virtual time
    ``budget_ms``), save a ``width`` x ``height`` screenshot; return its console messages."""
    import time

    browser = chromium()
    if browser is None:
        raise RuntimeError("chromium is not installed: apt-get install -y chromium")
    with tempfile.TemporaryDirectory(prefix="shortclust-chromium-") as profile:
        command = [browser, *FLAGS, f"--user-data-dir={profile}",
                   f"--window-size={width},{height}", f"--virtual-time-budget={budget_ms}",
                   f"--screenshot={Path(screenshot).resolve()}",
                   Path(page).resolve().as_uri()]
        if offline:
            command = ["unshare", "-n", *command]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - started
    messages = [(m.group(1), m.group(2)) for m in _CONSOLE.finditer(done.stderr)]
    console = [text for text, source in messages if not source.startswith("chrome://")]
    browser = [text for text, source in messages if source.startswith("chrome://")]
    return Opened(console, browser, seconds, Path(screenshot), done.returncode)


def compress_png(path, colours: int = 128) -> Path:
    """Rewrite a screenshot as a palette PNG (a few hundred KB at most for a page)."""
    from PIL import Image

    image = Image.open(path).convert("RGB")
    image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return Path(path)


def keep_bottom(path, height: int) -> Path:
    """Crop a screenshot to the ``height`` pixels above the end of the painted page."""
    import numpy as np
    from PIL import Image

    image = Image.open(path).convert("RGB")
    painted = np.flatnonzero((np.asarray(image).min(axis=(1, 2)) < 250))
    end = int(painted[-1]) + 20 if painted.size else image.height
    image.crop((0, max(0, end - height), image.width, min(end, image.height))).save(path)
    return Path(path)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    bottom = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("--bottom=")), None)
    opened = open_page(args[0], args[1], offline="--offline" in sys.argv,
                       height=12000 if bottom else 2400)
    if bottom:
        keep_bottom(opened.screenshot, bottom)
    compress_png(opened.screenshot)
    for line in opened.console:
        print(f"console: {line}")
    print(f"chromium exit {opened.returncode}, {opened.seconds:.1f} s; screenshot "
          f"{opened.screenshot} ({opened.screenshot.stat().st_size / 1e3:.0f} KB)")
