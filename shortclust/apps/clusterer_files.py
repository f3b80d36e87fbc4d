"""Reading a fitted :class:`~shortclust.apps.text_clusterer.TextClusterer` back from its
model.zip (:mod:`.model_files`): the model, vocabulary, preprocessing, cluster numbering,
top words and the settings that ran; refused in one line when new texts could not be given
to it the way they were at fit."""

from __future__ import annotations

import numpy as np

from shortclust.errors import ConfigError, DataError, ModelFileError

__all__ = ["load_clusterer"]


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
