"""Tests of shortclust.models.common."""
