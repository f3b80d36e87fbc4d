"""Tests of shortclust.models.nmf."""
