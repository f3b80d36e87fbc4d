"""shortclust: short-text clustering research toolkit."""

__version__ = "0.1.0"
