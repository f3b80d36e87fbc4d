"""``shortclust.TextClusterer``: cluster a list of raw texts, in scikit-learn's idiom.

The estimator behind ``shortclust cluster`` and ``shortclust predict`` (both are thin
shells over it): texts in, clusters out, through one preprocessing (:mod:`shortclust.data.
preprocess`), one representation (term counts, TF-IDF or packaged embeddings), one model
of the registry, the number of clusters chosen by :mod:`.choose_k` unless given, and one
description of the clusters whatever the representation (:mod:`.describe`: class-based
TF-IDF top words and representative documents). A fitted clusterer saves to the model-file
format of :mod:`.model_files` (no code runs on loading) and loads back to predict.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from shortclust.errors import ConfigError, DataError, ParameterError, short_repr

__all__ = ["EMBEDDINGS", "TextClusterer"]

#: ``embeddings=`` names: the packaged encoder (or vectors) each stands for.
EMBEDDINGS = {"minilm": "sentence_embeddings", "glove": "glove"}
#: Share of new texts with no known word above which ``predict`` warns.
UNKNOWN_WARNING_SHARE = 0.2
#: Representative documents per cluster.
N_REPRESENTATIVES = 3


class TextClusterer(ClusterMixin, BaseEstimator):
    """Cluster raw short texts: preprocessing, representation, model, K and description.

    Parameters
    ----------
    model : str or None, default=None
        A registered model (``shortclust models`` lists them). None: ``shortclust
        cluster``'s default, chosen by the defaults protocol (:mod:`shortclust.apps.defaults`):
        k-means on MiniLM embeddings reduced by UMAP, K by the cosine silhouette in the
        MiniLM space, when the ``embeddings`` extra is installed; else GSDMM on word counts,
        the fast path (:attr:`default_note_` says which).
    n_clusters : int, "auto", "gsdmm" or a procedure of :mod:`~shortclust.apps.reduced`
        The number of clusters, or how to choose it: ``"auto"``/``"gsdmm"``, GSDMM with a
        generous bound, small clusters merged (:mod:`shortclust.apps.choose_k`); with
        embeddings, ``"hdbscan"``, ``"silhouette"``, ... (:mod:`shortclust.apps.reduced`).
    embeddings : {"minilm", "glove", "none"} or None, default=None
        Fit the model on packaged document vectors instead of words: ``"minilm"``
        (all-MiniLM-L6-v2 sentence embeddings; extra ``shortclust[embeddings]``) or
        ``"glove"`` (mean GloVe 6B 50-d word vectors; extra ``shortclust[glove]``);
        ``"none"``: words. None: words when a model is named, else the default's
        (``$SHORTCLUST_EMBEDDINGS`` stands for it when set). Models that take only vectors
        (movMF) get TF-IDF on words.
    umap_dims : int or None, default=None
        With embeddings, reduce them by UMAP to this many dimensions and cluster there with
        k-means (:mod:`shortclust.apps.reduced`). 0: no UMAP; None: the default's (0 when a
        model is named).
    preprocess : str, default="auto"
        A preprocessing pipeline, or ``"auto"`` (it reads the text:
        :func:`~shortclust.data.preprocess.guess_pipeline`).
    language : str or None, default=None
        Remove this language's stop words (``"de"``, ``"spanish"``, ...; the ``stop-words``
        package's lists) instead of English ones.
    reduce_to : int or None, default=None
        Merge the clusters found into at most this many, the most similar first.
    params : dict or None, default=None
        The model's own parameters (``{"alpha": 0.05}``).
    n_top_words : int, default=10
        Words kept per cluster (:meth:`top_words`).
    random_state : int, default=0
        Seed: same texts, parameters and seed give the same clusters.
    progress : bool, default=False
        Show progress bars (embeddings) on standard error.

    Attributes
    ----------
    settings_ : dict
        The ``model``, ``embeddings``, ``umap_dims`` and ``n_clusters`` that ran
        (:meth:`resolved_settings`).
    default_note_ : str or None
        Which default path ran and how to take the other; None when a model was named.
    labels_ : ndarray of int64 of shape (n_texts,)
        Cluster of each text, numbered 0.. by decreasing size; -1 for a text preprocessing
        dropped.
    n_clusters_ : int
        Clusters found.
    k_choice_ : KChoice
        How the number of clusters was chosen (``k_choice_.sentence()`` says it).
    clusters_ : pandas.DataFrame
        One row per cluster: ``cluster``, ``size``, ``top_words`` (space-separated),
        ``weights``, ``representative_1..3`` (texts) and ``representative_rows``.
    model_ : ClusteringModel
        The fitted model (its own cluster numbers; ``label_map_`` renumbers them).
    label_map_ : ndarray of int64
        The cluster of each of the model's clusters.
    vocabulary_ : list of str
        The words of the term counts.
    pipeline_ : Pipeline
        The preprocessing used.
    status_ : list of str
        ``ok``, ``empty`` (no word left) or ``dropped`` for each text.

    Examples
    --------
    >>> from shortclust import TextClusterer
    >>> texts = ["red apple pie", "apple pie recipe", "green apple pie", "baked apple pie",
    ...          "football match tonight", "match football score", "football cup match"]
    >>> tc = TextClusterer("gsdmm", n_clusters=2, random_state=0).fit(texts)
    >>> tc.labels_.tolist()
    [0, 0, 0, 0, 1, 1, 1]
    >>> [word for word, _ in tc.top_words()[0][:2]]
    ['apple', 'pie']
    >>> tc.predict(["apple pie with cream", "late football"]).tolist()
    [0, 1]
    >>> list(tc.clusters_.columns[:3])
    ['cluster', 'size', 'top_words']
    """

    def __init__(self, model=None, n_clusters="auto", *, embeddings=None, umap_dims=None,
                 preprocess="auto", language=None, reduce_to=None, params=None, n_top_words=10,
                 random_state=0, progress=False):
        self.model = model
        self.n_clusters = n_clusters
        self.embeddings = embeddings
        self.umap_dims = umap_dims
        self.preprocess = preprocess
        self.language = language
        self.reduce_to = reduce_to
        self.params = params
        self.n_top_words = n_top_words
        self.random_state = random_state
        self.progress = progress

    # --- fitting ------------------------------------------------------------------------------

    def fit(self, texts, y=None):
        """Cluster ``texts``.

        Parameters
        ----------
        texts : sequence of str
        y : ignored

        Returns
        -------
        self : TextClusterer

        Raises
        ------
        ShortclustError
            One line naming the problem and the fix: texts that are not strings, an unknown
            model, pipeline or embeddings, a parameter out of range.
        """
        from shortclust.data.corpus import Corpus

        texts = _checked_texts(texts)
        model_class, model_params = self._checked_settings()
        self.settings_, self.default_note_ = self.resolved_settings()
        self.pipeline_ = self._pipeline(texts)
        self._say(f"preprocessing {len(texts):,} texts ('{self.pipeline_.name}')")
        corpus = Corpus.from_texts(texts, pipeline=self.pipeline_)
        self._say(f"{corpus.n_docs:,} documents kept, {corpus.n_words:,} words")
        return self._fit_corpus(corpus, texts, model_class, model_params)

    def fit_predict(self, texts, y=None):
        """Fit on ``texts`` and return their clusters (``labels_``)."""
        return self.fit(texts).labels_

    def resolved_settings(self):
        """The model, embeddings, UMAP dimensions and K procedure a fit runs, and a note.

        Those given are kept; those left None are filled in as ``shortclust cluster`` fills
        them (:func:`~shortclust.apps.defaults.default_settings`), so both have one default.

        Returns
        -------
        settings : dict
            ``model``, ``embeddings``, ``umap_dims``, ``n_clusters``.
        note : str or None
            Which default path runs and how to take the other; None when a model is named.
        """
        from shortclust.apps.defaults import default_settings

        return default_settings(self.model, self.embeddings, self.umap_dims, self.n_clusters)

    def _fit_corpus(self, corpus, texts, model_class, model_params):
        """Fit on a corpus already preprocessed from ``texts`` (the CLI passes a file's)."""
        from shortclust.apps.choose_k import KChoice, estimate_k
        from shortclust.apps.reduced import REDUCED_ONLY

        if not hasattr(self, "settings_"):
            self.settings_, self.default_note_ = self.resolved_settings()
        model, embeddings, umap_dims, k = (self.settings_[key] for key in (
            "model", "embeddings", "umap_dims", "n_clusters"))
        self.pipeline_ = getattr(self, "pipeline_", None) or _pipeline_of(corpus)
        self.vocabulary_ = list(corpus.vocabulary)
        self.n_texts_ = len(texts)
        self.doc_index_ = np.asarray(corpus.doc_index, dtype=np.int64)
        counts = corpus.counts
        kept_texts = [texts[i] for i in self.doc_index_]
        features = self._features(counts, kept_texts, model_class, fit=True)
        mapping = None
        if "n_clusters" not in model_class().get_params():
            # GSDPMM, say, chooses the number itself.
            choice = KChoice(0, "model")
            self._say(f"fitting {model} (it chooses the number of clusters)")
            self.model_ = self._new_model(model_class, model_params, None, features, counts)
            self._fit_model(features, counts)
        elif embeddings is not None and (umap_dims or k in REDUCED_ONLY):
            from shortclust.apps.reduced import fit_reduced

            self.model_, choice = fit_reduced(features, counts, umap_dims, k,
                                              self.random_state, self._say)
        elif k in ("auto", "gsdmm"):
            self._say("choosing the number of clusters (GSDMM with a generous bound)")
            mapping, choice, gsdmm = estimate_k(counts, self.random_state)
            if model_class is type(gsdmm) and not model_params:
                self.model_ = gsdmm
            else:
                self._say(f"fitting {model} with {choice.n_clusters} clusters")
                self.model_ = self._new_model(model_class, model_params, choice.n_clusters,
                                              features, counts)
                self._fit_model(features, counts)
                mapping = None
        else:
            choice = KChoice(int(k), "given", bound=int(k))
            self._say(f"fitting {model} with {k} clusters")
            self.model_ = self._new_model(model_class, model_params, int(k), features, counts)
            self._fit_model(features, counts)
        model_labels = np.asarray(self.model_.labels_, dtype=np.int64)
        n_model = max(int(model_labels.max(initial=-1)) + 1,
                      int(getattr(self.model_, "n_clusters_", 0) or 0))
        if mapping is None:
            from shortclust.apps.describe import renumber_by_size

            mapping = renumber_by_size(np.arange(n_model),
                                       np.bincount(model_labels, minlength=n_model))
            mapping[np.bincount(model_labels, minlength=n_model) == 0] = -1
        mapping = np.concatenate([mapping, np.full(max(0, n_model - mapping.size), -1)])
        choice.found = int((mapping >= 0).sum()) if choice.method == "given" else choice.found
        if self.reduce_to is not None:
            mapping = self._reduced(mapping, model_labels, counts, features)
            choice.reduced_to = int(self.reduce_to)
        self.label_map_ = mapping.astype(np.int64)
        self.k_choice_ = choice
        self.predictor_ = None if self.model_.capabilities.predict else self._centre_predictor(
            features, counts, model_labels)
        self._describe(counts, features, self.label_map_[model_labels], texts)
        choice.n_clusters = self.n_clusters_
        self.probability_ = self._own_probabilities(features)
        return self

    def _fit_model(self, features, counts):
        """Fit ``model_``, with the counts beside vectors when it takes them (BERTopic)."""
        extra = {"counts": counts} if self.model_.capabilities.fit_counts \
            and features is not counts else {}
        self.model_.fit(features, **extra)

    def _centre_predictor(self, features, counts, model_labels):
        """K-means' rule for a model without ``predict`` (:mod:`.nearest_centre`), in the
        space it was fitted in: embeddings, or TF-IDF (learnt here when it had counts)."""
        from shortclust.apps.nearest_centre import centre_predictor

        if features is counts:
            features = self._tfidf(counts, fit=True)
        return centre_predictor(features, model_labels, self.random_state)

    def _predictor(self):
        """What predicts new texts: the model, or the nearest centre of its clusters."""
        return getattr(self, "predictor_", None) or self.model_

    def _own_probabilities(self, features):
        """Each text's probability of its own cluster (NaN where the model has none)."""
        out = np.full(self.n_texts_, np.nan)
        if self.model_.capabilities.predict_proba and self.doc_index_.size:
            proba = self._merged_proba(self.model_.predict_proba(features))
            rows = self.labels_[self.doc_index_]
            out[self.doc_index_] = proba[np.arange(rows.size), rows]
        return out

    def _merged_proba(self, raw):
        """The model's probabilities summed over the model clusters merged into each."""
        result = np.zeros((raw.shape[0], self.n_clusters_))
        for old, new in enumerate(self.label_map_[:raw.shape[1]]):
            if new >= 0:
                result[:, new] += raw[:, old]
        return result

    def _say(self, message):
        """A progress line on standard error (``progress=True`` only)."""
        if self.progress:
            import sys

            print(message, file=sys.stderr, flush=True)

    def _reduced(self, mapping, model_labels, counts, features):
        from shortclust.apps.describe import class_tfidf, merge_clusters

        labels = mapping[model_labels]
        profiles = (class_tfidf(counts, labels) if self.settings_["embeddings"] is None
                    else _centres(features, labels))
        merged = merge_clusters(labels, profiles, target=int(self.reduce_to))
        return np.where(mapping >= 0, merged[np.maximum(mapping, 0)], -1)

    def _new_model(self, model_class, params, n_clusters, features, counts):
        from shortclust.apps.settings import sized_params
        from shortclust.models.common.memory import check_fit_memory

        params = sized_params(model_class, params, counts.shape[0])
        if n_clusters is not None:
            params["n_clusters"] = n_clusters
        width = None if self.settings_["embeddings"] is not None else features.shape[1]
        check_fit_memory(model_class, params, self.settings_["model"], counts.shape[0], width,
                         counts.shape[1])
        return model_class(**params, random_state=self.random_state)

    def _checked_settings(self):
        from shortclust.apps.reduced import check_k_settings
        from shortclust.models import get_model_class
        from shortclust.models.base import validate_params
        from shortclust.models.common.params import check_param_names

        settings, _ = self.resolved_settings()
        model, embeddings, n = settings["model"], settings["embeddings"], settings["n_clusters"]
        model_class = get_model_class(model)
        check_k_settings(model, embeddings, settings["umap_dims"], n)
        for name, value in (("reduce_to", self.reduce_to), ("n_top_words", self.n_top_words)):
            if (value is not None or name == "n_top_words") and not _is_count(value):
                raise ParameterError(f"{name} must be an integer >= 1, got {short_repr(value)}")
        if embeddings is not None and embeddings not in EMBEDDINGS:
            raise ConfigError(f"unknown embeddings '{embeddings}': choose one of "
                              f"{', '.join(EMBEDDINGS)} (or none, for words)")
        if embeddings is not None and model_class.capabilities.input == "counts":
            raise ConfigError(
                f"model '{model}' takes word counts, not embeddings: leave embeddings "
                "out, or choose a vector model (kmeans, minibatch_kmeans, movmf, hac_ward, "
                "hac_sd, iterative_classification)")
        if n != "auto" and "n_clusters" not in model_class().get_params():
            raise ParameterError(f"model '{model}' chooses its own number of clusters: "
                                 "leave n_clusters (--n-clusters) out")
        if self.params is not None and not isinstance(self.params, Mapping):
            raise ParameterError(f"params must be a dict of the model's parameters, got "
                                 f"{short_repr(self.params)}: e.g. params={{'alpha': 0.05}}")
        params = dict(self.params or {})
        for reserved in ("n_clusters", "random_state"):
            if reserved in params:
                raise ParameterError(f"give {reserved} to TextClusterer itself, not in params")
        check_param_names(model_class, params, model)
        validate_params(model_class, params)
        return model_class, params

    def _pipeline(self, texts):
        from shortclust.apps.settings import choose_pipeline

        return choose_pipeline(texts, self.preprocess, self.language)

    # --- representation -----------------------------------------------------------------------

    def _features(self, counts, texts, model_class=None, fit=False):
        """What the model is fitted on / predicts from: counts, TF-IDF or embeddings."""
        model_class = model_class or type(self.model_)
        embeddings = self.settings_["embeddings"]
        if embeddings == "minilm":
            from shortclust.representations import embed_texts

            return embed_texts(texts, progress=self.progress)
        if embeddings == "glove":
            from shortclust.representations.glove import glove_vectors
            from shortclust.representations.word_vectors import mean_vectors

            return mean_vectors(counts, *glove_vectors(self.vocabulary_))
        # At fit, vector models get TF-IDF; later, whatever learnt an idf at fit (they, or a
        # nearest-centre predictor) gets TF-IDF with it.
        if model_class.capabilities.input == "vectors" if fit \
                else getattr(self, "idf_", None) is not None:
            return self._tfidf(counts, fit)
        return counts

    def _tfidf(self, counts, fit):
        """TF-IDF with the idf learnt at fit (vector-only models without embeddings)."""
        import scipy.sparse as sp
        from sklearn.preprocessing import normalize

        if fit:
            n_docs = counts.shape[0]
            df = np.bincount(counts.indices, minlength=counts.shape[1])
            self.idf_ = np.log((1 + n_docs) / (1 + df)) + 1.0  # scikit-learn's smoothed idf
        weighted = sp.csr_matrix(counts, dtype=np.float64) @ sp.diags(self.idf_)
        return normalize(weighted.tocsr())

    # --- description --------------------------------------------------------------------------

    def _describe(self, counts, features, labels, texts):
        """Top words (class TF-IDF), representatives, sizes, ``labels_`` and ``clusters_``."""
        from shortclust.apps.describe import (class_tfidf, cluster_members, clusters_table,
                                              keep_top, representatives, top_words_of_rows)

        n = int(labels.max(initial=-1)) + 1
        weights = class_tfidf(counts, labels, n)
        self._top_words = top_words_of_rows(weights, self.vocabulary_, self.n_top_words)
        members = cluster_members(labels, n)
        if self.settings_["embeddings"] is None:
            presence = counts.copy()
            presence.data[:] = 1
            directions = keep_top(weights, self.n_top_words)
            chosen = representatives(members, presence, directions, N_REPRESENTATIVES)
        else:
            chosen = representatives(members, features, _centres(features, labels, n),
                                     N_REPRESENTATIVES)
        self.labels_ = np.full(self.n_texts_, -1, dtype=np.int64)
        self.labels_[self.doc_index_] = labels
        self.n_clusters_ = n
        lengths = np.diff(counts.indptr)
        self.status_ = ["dropped"] * self.n_texts_
        for position, row in enumerate(self.doc_index_):
            self.status_[row] = "ok" if lengths[position] else "empty"
        self.representatives_ = [self.doc_index_[rows] for rows in chosen]
        self.clusters_ = clusters_table(self._top_words, [m.size for m in members],
                                        self.representatives_, texts, N_REPRESENTATIVES)

    def top_words(self, n=None):
        """The top words of each cluster: a list of ``(word, weight)`` per cluster.

        Weights are class-based TF-IDF over the members' words, whatever the model and
        representation (:func:`~shortclust.apps.describe.class_tfidf`).
        """
        self._check_fitted()
        if n is not None and not _is_count(n):
            raise ParameterError(f"n must be an integer >= 1 (or None: all), got {short_repr(n)}")
        return [words[:n] for words in self._top_words] if n else list(self._top_words)

    # --- prediction ---------------------------------------------------------------------------

    def _new_counts(self, texts):
        """The counts of new texts over the vocabulary, and the texts the pipeline keeps."""
        from shortclust.data.corpus import counts_over

        counts = counts_over(self.pipeline_.tokenize(texts), self.vocabulary_)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        kept = np.flatnonzero(lengths >= self.pipeline_.min_doc_words)
        unknown = sum(1 for i in kept if lengths[i] == 0 and texts[i].strip())
        if kept.size and unknown > UNKNOWN_WARNING_SHARE * kept.size:
            warnings.warn(
                f"{unknown} of {kept.size} new texts share no word with the model's "
                f"vocabulary of {len(self.vocabulary_)} words, so their clusters say nothing "
                "of them: are they of the same kind and language as the training texts?",
                UserWarning, stacklevel=3)
        return counts, kept

    def predict(self, texts):
        """The cluster of each new text (-1 for one the preprocessing drops)."""
        return self._predict(texts, proba=False)[0]

    def predict_proba(self, texts):
        """Each new text's probability of each cluster (rows of dropped texts are 0).

        Raises
        ------
        ConfigError
            When the model gives no probabilities (K-means, say).
        """
        return self._predict(texts, proba=True)[1]

    def _predict(self, texts, proba):
        """``(labels, probabilities or None, empty)`` of new texts; ``empty``: whether each
        text has no word of the vocabulary."""
        self._check_fitted()
        texts = _checked_texts(texts, allow_empty=True)
        model = self._predictor()
        if not model.capabilities.predict or (proba and not model.capabilities.predict_proba):
            what = "probabilities" if proba else "predictions"
            raise ConfigError(f"model '{self.settings_['model']}' gives no {what} for new "
                              "texts: choose a model that does (gsdmm, movmf, lda, ...)")
        counts, kept = self._new_counts(texts)
        labels = np.full(len(texts), -1, dtype=np.int64)
        result = np.zeros((len(texts), self.n_clusters_)) if proba else None
        if kept.size:
            features = self._features(counts[kept], [texts[i] for i in kept])
            labels[kept] = self.label_map_[model.predict(features)]
            if proba:
                result[kept] = self._merged_proba(model.predict_proba(features))
        return labels, result, np.diff(counts.indptr) == 0

    # --- files --------------------------------------------------------------------------------

    def save(self, path):
        """Write the fitted clusterer to ``path`` (a model.zip: :mod:`.model_files`)."""
        from shortclust.apps.model_files import pipeline_record, save_model
        from shortclust.models.state import fitted_state

        self._check_fitted()
        model = self._predictor()
        if not model.capabilities.predict:
            raise ConfigError(f"model '{self.settings_['model']}' has no predict, so it cannot "
                              "be saved for new texts: choose a model that predicts")
        # A model without predict is saved as its nearest-centre rule (a K-means).
        name = self.settings_["model"] if model is self.model_ else "kmeans"
        return save_model(path, name, model.get_params(), fitted_state(model),
                          vocabulary=self.vocabulary_,
                          preprocess=pipeline_record(self.pipeline_),
                          representation=self._representation_record(),
                          training=getattr(self, "training_", None),
                          clusterer=self._clusterer_record())

    def _representation_record(self):
        embeddings = self.settings_["embeddings"]
        if embeddings is not None:
            from shortclust.representations import embedding_identity

            return embedding_identity(EMBEDDINGS[embeddings]) | {"embeddings": embeddings}
        if getattr(self, "idf_", None) is not None:  # vector models, nearest centres
            return {"name": "tfidf"}
        return None

    def _clusterer_record(self):
        record = {"label_map": self.label_map_.tolist(), "k_choice": self.k_choice_.as_dict(),
                  "top_words": [[[w, float(x)] for w, x in words] for words in self._top_words],
                  "settings": {**{key: value for key, value in self.get_params().items()
                                  if key != "progress"}, **self.settings_}}
        if getattr(self, "idf_", None) is not None:
            record["idf"] = self.idf_.tolist()
        if self._predictor() is not self.model_:
            from shortclust.apps.nearest_centre import PREDICTOR

            record["predictor"] = PREDICTOR
        return record

    @classmethod
    def load(cls, path):
        """A fitted clusterer read from a model.zip written by :meth:`save`, ``shortclust
        cluster`` or ``shortclust run --save-models`` (:mod:`.clusterer_files`).

        Raises
        ------
        ModelFileError
            One line naming the file and the problem.
        """
        from shortclust.apps.clusterer_files import load_clusterer

        return load_clusterer(cls, path)

    def _check_fitted(self):
        if not hasattr(self, "model_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this TextClusterer is not fitted yet: call fit(texts) "
                                 "first, or TextClusterer.load(path)")


# --------------------------------------------------------------------------------------------
# helpers


def _is_count(value) -> bool:
    """An integer (not a bool) >= 1."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


def _checked_texts(texts, allow_empty=False) -> list[str]:
    """``texts`` as a list of str, or a one-line DataError naming the first bad item."""
    if isinstance(texts, (str, bytes)):
        raise DataError("texts must be a list of strings, not one string: wrap it in a list")
    # Iterating a table or a mapping gives its column names or keys, not its texts.
    if type(texts).__name__ == "DataFrame" or isinstance(texts, Mapping):
        kind = "dict" if isinstance(texts, Mapping) else "DataFrame"
        raise DataError(f"texts must be a list of strings, not a {kind} (its column names or "
                        "keys would be the texts): pass its column of texts, e.g. frame['text']")
    try:
        texts = list(texts)
    except TypeError:
        raise DataError(f"texts must be a list of strings, got {type(texts).__name__}: pass "
                        "one string per document") from None
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise DataError(f"texts must be strings: item {position} is a "
                            f"{type(text).__name__} ({text!r:.40}): convert it with str() or "
                            "drop it")
    if not texts and not allow_empty:
        raise DataError("no texts to cluster: pass at least one string")
    return texts


def _pipeline_of(corpus):
    from shortclust.data.preprocess import get_pipeline

    return get_pipeline(corpus.preprocess)


def _centres(features, labels, n=None):
    """Each cluster's mean unit vector (documents labelled < 0 left out)."""
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from shortclust.apps.describe import _indicator

    labels = np.asarray(labels, dtype=np.int64)
    n = int(labels.max(initial=-1)) + 1 if n is None else n
    summed = _indicator(labels, n) @ normalize(features)
    return np.asarray(summed.toarray() if sp.issparse(summed) else summed)
