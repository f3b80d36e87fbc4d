"""Shared fixtures for the data tests."""

import pytest


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """Keep every test's corpus cache in its own temporary directory, never in ~/.cache."""
    cache = tmp_path / "corpus-cache"
    monkeypatch.setenv("SHORTCLUST_CACHE", str(cache))
    return cache


def assert_one_line(message: str, *fragments: str) -> None:
    """A user-facing error is one line and names what it is about."""
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


@pytest.fixture
def one_line():
    return assert_one_line
