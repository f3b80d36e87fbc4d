"""Tests of shortclust.models.edcm."""
