"""Tests of ``shortclust.representations``."""
