"""Tests of shortclust.models.vmf."""
