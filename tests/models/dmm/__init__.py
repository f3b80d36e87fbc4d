"""Tests of shortclust.models.dmm."""
