"""Datasets, file reading, preprocessing pipelines and the :class:`Corpus`.

Typical use::

    from shortclust.data import load_corpus
    corpus = load_corpus("GoogleNews-T")          # registry name, default preprocessing
    corpus = load_corpus("my_texts.csv", preprocess="gsdmm")

The names below are imported on first use (PEP 562), so ``shortclust data download``,
which needs neither numpy nor scipy, starts without them.
"""

__all__ = [
    "Corpus",
    "DatasetInfo",
    "PIPELINES",
    "RawDocuments",
    "get_info",
    "get_pipeline",
    "list_datasets",
    "load_corpus",
    "read_documents",
    "resolve_data_dir",
    "tokenize",
]

# name -> the module that defines it.
_LAZY = {
    "Corpus": "corpus", "load_corpus": "corpus",
    "RawDocuments": "io", "read_documents": "io",
    "PIPELINES": "preprocess", "get_pipeline": "preprocess", "tokenize": "preprocess",
    "DatasetInfo": "registry", "get_info": "registry", "list_datasets": "registry",
    "resolve_data_dir": "registry",
}


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"shortclust.data.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'shortclust.data' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])
