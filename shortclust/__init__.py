"""shortclust: short-text clustering research toolkit.

``import shortclust`` stays cheap (no numpy, scikit-learn or numba): the estimator
:class:`shortclust.TextClusterer` is imported on first use.

Examples
--------
>>> import shortclust
>>> texts = ["red apple pie", "apple pie recipe", "green apple pie",
...          "football match tonight", "football cup match"]
>>> clusterer = shortclust.TextClusterer("gsdmm", n_clusters=2).fit(texts)
>>> clusterer.labels_.tolist()
[0, 0, 0, 1, 1]
"""

__version__ = "0.1.0"
__all__ = ["TextClusterer", "__version__"]

# name -> module that defines it, imported when the name is first used (PEP 562).
_LAZY = {"TextClusterer": "shortclust.apps.text_clusterer"}


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'shortclust' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])
