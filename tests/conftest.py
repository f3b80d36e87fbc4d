"""Shared test set-up: locate the real datasets."""

import os
from pathlib import Path

import pytest

_DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def shared_data_dir():
    """The real datasets' folder, or None when this machine has none."""
    env = os.environ.get("SHORTCLUST_DATA")
    for candidate in (Path(env) if env else None, _DEFAULT_DATA):
        if candidate is not None and candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def data_dir():
    """Folder of the real datasets; skips the test when it is absent."""
    found = shared_data_dir()
    if found is None:
        pytest.skip("real datasets not present (set SHORTCLUST_DATA)")
    return found
