"""Tests of the run pipeline (shortclust.pipeline)."""
