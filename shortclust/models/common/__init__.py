"""Helpers shared by several model families: input validation, TF-IDF, term weights, estimator identity, the hybrid stream mixin."""
