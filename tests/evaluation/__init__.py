"""Tests of ``shortclust.evaluation``."""
