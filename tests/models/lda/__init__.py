"""Tests of shortclust.models.lda."""
