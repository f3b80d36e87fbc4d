"""Tests of the user-facing apps (shortclust.apps)."""
