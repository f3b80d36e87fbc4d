"""Tests of ``shortclust.experiments``."""
