"""Tests of ``shortclust.data``."""
