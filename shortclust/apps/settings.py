"""Settings of :class:`~.text_clusterer.TextClusterer` that depend on the data: the
preprocessing ``auto`` picks for a collection (its script, its language, whether it looks
tokenised) and the model defaults sized to the number of documents.
"""

from __future__ import annotations

from shortclust.errors import DataError

__all__ = ["choose_pipeline", "sized_params"]


#: Above this many documents K-means runs fewer initialisations (see :func:`sized_params`).
KMEANS_FULL_INIT_DOCS = 10_000
#: Smallest mini-batch: scikit-learn's own default batch size.
MIN_BATCH = 1024


def sized_params(model_class, params: dict, n_docs: int) -> dict:
    """The model's parameters with the defaults that depend on the data's size filled in.

    Parameters the user gave are kept. K-means keeps its 20 initialisations up to
    :data:`KMEANS_FULL_INIT_DOCS` documents and runs fewer above (one at 200,000), so a
    large file clusters in about a minute; mini-batch K-means gets batches of at least
    :data:`MIN_BATCH` documents (1% of 3,000 documents, its paper's fraction, is 30, too
    few to move K centroids: most clusters end with one document).

    Examples
    --------
    >>> from shortclust.models import get_model_class
    >>> sized_params(get_model_class("kmeans"), {}, 200_000)
    {'n_init': 1}
    >>> sized_params(get_model_class("minibatch_kmeans"), {}, 3000)
    {'batch_fraction': 0.3413}
    """
    params = dict(params)
    names = model_class().get_params()
    if "n_init" in names and "n_init" not in params and model_class.__name__ == "KMeans" \
            and n_docs > KMEANS_FULL_INIT_DOCS:
        params["n_init"] = max(1, round(20 * KMEANS_FULL_INIT_DOCS / n_docs))
    if "batch_fraction" in names and "batch_fraction" not in params and n_docs:
        params["batch_fraction"] = round(min(1.0, max(0.01, MIN_BATCH / n_docs)), 4)
    return params


def choose_pipeline(texts, preprocess: str = "auto", language: str | None = None) -> Pipeline:
    """The pipeline ``preprocess`` names for ``texts``, ``auto`` resolved and ``language``
    applied.

    ``auto``: Chinese text is cut into words (``chinese``, needs jieba); Japanese is refused;
    text in another language given by ``language`` gets ``basic-<language>``; otherwise
    :func:`guess_pipeline`. ``language`` with an explicit pipeline other than ``basic`` is
    refused, as it would be ignored.

    Raises
    ------
    DataError
        One line: Japanese text, Chinese without jieba, an unknown language or pipeline.

    Examples
    --------
    >>> choose_pipeline(["the cat sat on the mat", "a dog and the cat"]).name
    'basic'
    >>> choose_pipeline(["Die Katze und der Hund"], language="de").name
    'basic-de'
    """
    from shortclust.data.languages import script_of
    from shortclust.data.preprocess import get_pipeline, guess_pipeline

    texts = list(texts)
    auto = str(preprocess).strip().lower() == "auto"
    script = script_of(texts) if auto or str(preprocess).strip().lower() == "basic" else None
    if script == "japanese":
        raise DataError("the texts are Japanese, which has no spaces between words, and "
                        "shortclust has no Japanese segmenter: give texts with words "
                        "separated by spaces and --preprocess none")
    if script == "chinese":
        return get_pipeline("chinese")
    if language is not None:
        if not (auto or str(preprocess).strip().lower() == "basic"):
            raise DataError(f"--language applies to the 'basic' preprocessing, not "
                            f"'{preprocess}': leave --preprocess out, or --language out")
        return get_pipeline(f"basic-{language}")
    return get_pipeline(guess_pipeline(texts) if auto else preprocess)
