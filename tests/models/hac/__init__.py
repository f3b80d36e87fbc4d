"""Tests of shortclust.models.hac."""
