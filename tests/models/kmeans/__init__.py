"""Tests of shortclust.models.kmeans."""
