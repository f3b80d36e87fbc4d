"""Tests of the paper packages: their tables, figures and reproductions."""
