"""Tests of ``shortclust.models``."""
