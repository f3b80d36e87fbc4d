"""Datasets, file reading, preprocessing pipelines and the :class:`Corpus`.

Typical use::

    from shortclust.data import load_corpus
    corpus = load_corpus("GoogleNews-T")          # registry name, default preprocessing
    corpus = load_corpus("my_texts.csv", preprocess="gsdmm")
"""

from shortclust.data.corpus import Corpus, load_corpus
from shortclust.data.io import RawDocuments, read_documents
from shortclust.data.preprocess import PIPELINES, get_pipeline, tokenize
from shortclust.data.registry import DatasetInfo, get_info, list_datasets, resolve_data_dir

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
