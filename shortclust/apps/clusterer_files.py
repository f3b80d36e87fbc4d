"""Reading a fitted :class:`~shortclust.apps.text_clusterer.TextClusterer` back from its
model.zip (:mod:`.model_files`): the model, vocabulary, preprocessing, cluster numbering,
top words and the settings that ran; refused in one line when new texts could not be given
to it the way they were at fit."""

from __future__ import annotations

import math
import numbers

import numpy as np

from shortclust.errors import ConfigError, DataError, ModelFileError

__all__ = ["check_clusterer_record", "load_clusterer"]


def load_clusterer(cls, path):
    """A fitted ``cls`` (TextClusterer) read from the model.zip at ``path``.

    Raises
    ------
    ModelFileError
        One line naming the file and the problem.
    """
    from shortclust.apps.choose_k import KChoice
    from shortclust.apps.model_files import load_model

    saved = load_model(path)
    header = saved.header
    record = header.get("clusterer") or {}
    check_clusterer_record(saved.path, record, int(getattr(saved.model, "n_clusters_", 0) or 0),
                           len(saved.vocabulary or ()))
    settings = record.get("settings") or {}
    representation = saved.representation or {}
    embeddings = representation.get("embeddings")
    if representation and representation.get("name") not in ("tfidf", None) \
            and embeddings is None:
        raise ModelFileError(f"{saved.path}: the model was fitted on a representation "
                             "that new texts cannot be given ({}): fit it with "
                             "shortclust cluster".format(representation.get("name")))
    if embeddings is not None:
        from shortclust.representations import check_embedding_identity

        check_embedding_identity(representation, saved.path)
    if saved.vocabulary is None or not saved.preprocess:
        raise ModelFileError(f"{saved.path}: the file lacks the vocabulary or the "
                             "preprocessing of the model, so new texts cannot be given to "
                             "it: save it again (shortclust cluster)")
    tc = cls(model=saved.name, **{key: value for key, value in settings.items()
                                  if key in ("n_clusters", "umap_dims", "preprocess",
                                             "language", "reduce_to", "params",
                                             "n_top_words", "random_state")})
    tc.embeddings = embeddings
    tc.model_ = saved.model
    tc.vocabulary_ = list(saved.vocabulary)
    tc.pipeline_ = _saved_pipeline(saved)
    n_model = int(getattr(saved.model, "n_clusters_", 0) or 0)
    label_map = record.get("label_map")
    tc.label_map_ = (np.asarray(label_map, dtype=np.int64) if label_map is not None
                     else np.arange(n_model, dtype=np.int64))
    tc.n_clusters_ = int(tc.label_map_.max(initial=-1)) + 1
    tc.k_choice_ = KChoice(**record["k_choice"]) if record.get("k_choice") \
        else KChoice(tc.n_clusters_, "given")
    tc._top_words = [[(str(w), float(x)) for w, x in words]
                     for words in record.get("top_words", [])]
    if "idf" in record:
        tc.idf_ = np.asarray(record["idf"], dtype=np.float64)
    # A model without predict was saved as its nearest-centre rule (a K-means model).
    tc.model = settings.get("model", saved.name) if record.get("predictor") else saved.name
    tc.predictor_ = saved.model if record.get("predictor") else None
    tc.settings_ = {"model": tc.model, "embeddings": embeddings,
                    "umap_dims": tc.umap_dims or 0, "n_clusters": tc.n_clusters}
    tc.default_note_ = None
    tc.saved_ = saved
    return tc


def _saved_pipeline(saved):
    """The saved model's pipeline here, refused when its version differs."""
    from shortclust.data.preprocess import get_pipeline

    try:
        pipeline = get_pipeline(saved.preprocess["name"])
    except (DataError, ConfigError) as error:
        raise ModelFileError(f"{saved.path}: {error}") from None
    if pipeline.version != saved.preprocess.get("version"):
        raise ModelFileError(
            f"{saved.path}: the model's preprocessing is {saved.preprocess.get('version')} "
            f"but here '{pipeline.name}' is {pipeline.version} (other lemmatiser, stemmer or "
            "stop words), so its words would differ: predict where it was saved, or fit "
            "again here")
    return pipeline


def _is_int(value, low, high) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < high


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and math.isfinite(value)


#: The type of each saved setting TextClusterer reads back (None allowed for each but
#: ``model``, ``preprocess`` and ``n_top_words``).
_SETTINGS = {"model": str, "n_clusters": (int, str), "embeddings": str, "umap_dims": int,
             "preprocess": str, "language": str, "reduce_to": int, "params": dict,
             "n_top_words": int, "random_state": int}


def check_clusterer_record(path, record, n_model: int, n_words: int) -> None:
    """Refuse, in one line, a header's ``clusterer`` record that is not what
    :meth:`TextClusterer.save` writes for a model of ``n_model`` clusters and ``n_words``
    words: every value read back is checked before use, as the model's own state is.

    ``label_map`` gives each of the model's clusters its cluster (-1: none), numbered
    0..n-1 with none missing; ``top_words`` has n lists of ``[word, weight]``; ``idf`` one
    positive weight per word; ``k_choice`` only :class:`~.choose_k.KChoice`'s fields.

    Raises
    ------
    ModelFileError
    """
    from dataclasses import fields

    from shortclust.apps.choose_k import KChoice
    from shortclust.apps.model_files import _WAY_OUT
    from shortclust.apps.nearest_centre import PREDICTOR
    from shortclust.errors import short_repr

    def refuse(what: str):
        raise ModelFileError(f"{path}: its header's clusterer.{what} (the file was edited "
                             f"or damaged): {_WAY_OUT}")

    if not isinstance(record, dict):
        raise ModelFileError(f"{path}: its header's clusterer is not a JSON object (the file "
                             f"was edited or damaged): {_WAY_OUT}")
    label_map = record.get("label_map", list(range(n_model)))
    if not isinstance(label_map, list) or len(label_map) != n_model or \
            not all(_is_int(new, -1, n_model) for new in label_map):
        refuse(f"label_map is not one cluster in -1..{n_model - 1} for each of the model's "
               f"{n_model} clusters")
    used = {new for new in label_map if new >= 0}
    if used != set(range(len(used))) or not used:
        refuse("label_map does not number the clusters 0, 1, ... with none missing")
    n = len(used)
    choice = record.get("k_choice")
    known = {field.name for field in fields(KChoice)}
    if choice is not None and (not isinstance(choice, dict) or not set(choice) <= known
                               or not _is_int(choice.get("n_clusters"), 0, 2**31)
                               or not isinstance(choice.get("method"), str)
                               or not all(_is_int(choice.get(key), -1, 2**63)
                                          or choice.get(key) is None for key in
                                          ("bound", "found", "min_size", "reduced_to",
                                           "noise"))):
        refuse(f"k_choice is not how the number of clusters was chosen ({short_repr(choice)})")
    top_words = record.get("top_words", [])
    if not isinstance(top_words, list) or len(top_words) not in (0, n) or not all(
            isinstance(words, list) and all(
                isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                and _is_number(pair[1]) for pair in words) for words in top_words):
        refuse(f"top_words is not a list of [word, weight] pairs for each of the {n} clusters")
    idf = record.get("idf")
    if idf is not None and (not isinstance(idf, list) or len(idf) != n_words
                            or not all(_is_number(x) and x > 0 for x in idf)):
        refuse(f"idf is not one positive weight for each of the {n_words} words")
    if record.get("predictor") not in (None, PREDICTOR):
        refuse(f"predictor is {short_repr(record.get('predictor'))}, not {PREDICTOR!r}")
    settings = record.get("settings", {})
    if not isinstance(settings, dict):
        refuse("settings is not a JSON object")
    for key, kind in _SETTINGS.items():
        value = settings.get(key)
        if (value is not None or key in ("model", "preprocess", "n_top_words")) and \
                key in settings and (not isinstance(value, kind) or isinstance(value, bool)
                                     or (isinstance(value, int) and value < 0)):
            refuse(f"settings.{key} is {short_repr(value)}, not of the type it is saved as")
