"""Tests of shortclust.models.ic."""
