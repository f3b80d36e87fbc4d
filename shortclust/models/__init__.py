"""Clustering models, looked up by name from configs.

Each family has its folder (``dmm/``, ``vmf/``, ``edcm/``, ``lda/``, ``kmeans/``, ``hac/``,
``nmf/``, ``ic/``), with its public estimators, their compiled kernels and private helpers;
``common/`` holds what several families share. The contract every estimator follows is
:mod:`shortclust.models.base`.
"""

from importlib import import_module

from shortclust.errors import ConfigError

# name in a config -> (module, class). Imported lazily so that `shortclust --help` and
# configs for one model do not pay for compiling every other model's kernels.
_MODELS = {
    "dct": ("shortclust.models.dmm.dct", "DCT"),
    "ttm": ("shortclust.models.dmm.ttm", "TTM"),
    "edcm": ("shortclust.models.edcm.edcm", "EDCM"),
    "gsdmm": ("shortclust.models.dmm.gsdmm", "GSDMM"),
    "hac": ("shortclust.models.hac.hac", "HAC"),
    "hac_ward": ("shortclust.models.hac.hac_similarity", "HACWard"),
    "hac_knn": ("shortclust.models.hac.hac_similarity", "HACkNN"),
    "hac_sd": ("shortclust.models.hac.hac_similarity", "HACSD"),
    "kmeans": ("shortclust.models.kmeans.kmeans", "KMeans"),
    "kmeans_idf": ("shortclust.models.kmeans.kmeans_idf", "KMeansIdf"),
    "kmeans_minus": ("shortclust.models.kmeans.kmeans_minus", "KMeansMinus"),
    "kmeans_vsm": ("shortclust.models.kmeans.kmeans_vsm", "KMeansVSM"),
    "movmf": ("shortclust.models.vmf.movmf", "MovMF"),
    "minibatch_kmeans": ("shortclust.models.kmeans.minibatch_kmeans", "MiniBatchKMeans"),
    "gsdpmm": ("shortclust.models.dmm.gsdpmm", "GSDPMM"),
    "dmafp": ("shortclust.models.dmm.dmafp", "DMAFP"),
    "iterative_classification": ("shortclust.models.ic.iterative_classification", "IterativeClassification"),
    "ncut_nmf": ("shortclust.models.nmf.ncut_nmf", "NMFClustering"),
    "rlsi": ("shortclust.models.nmf.rlsi", "RLSI"),
    "lda": ("shortclust.models.lda.lda", "LDA"),
    "mstream": ("shortclust.models.dmm.mstream", "MStream"),
    "mstreamf": ("shortclust.models.dmm.mstream", "MStreamF"),
    # Modern baselines on document vectors (not in the papers); BERTopic needs the extra
    # `bench` when fitted, not to be named.
    "hdbscan": ("shortclust.models.modern.hdbscan_model", "HDBSCAN"),
    "bertopic": ("shortclust.models.modern.bertopic_model", "BERTopic"),
}


# name -> where the model comes from (the paper it reproduces, or its own source).
_SOURCES = {
    "gsdmm": "Yin & Wang, KDD 2014", "gsdpmm": "Yin & Wang (the DP variant of GSDMM)",
    "dmafp": "Huang et al., TKDE 2013 (GSDMM baseline)",
    "kmeans": "baseline (GSDMM, IC papers)", "hac": "baseline (GSDMM paper)",
    "minibatch_kmeans": "baseline (GSDMM paper)",
    "ncut_nmf": "Yan et al., CIKM 2012", "rlsi": "baseline (Ncut paper)",
    "kmeans_idf": "baseline (Ncut paper)",
    "movmf": "Banerjee & Basu, SDM 2007", "edcm": "Banerjee & Basu, SDM 2007",
    "lda": "Banerjee & Basu, SDM 2007", "kmeans_vsm": "baseline (Banerjee & Basu)",
    "dct": "Liang et al., KDD 2016", "ttm": "Iwata et al., IJCAI 2009 (DCT baseline)",
    "hac_sd": "Rakib et al. (IC paper)", "hac_knn": "Rakib et al. (IC paper)",
    "hac_ward": "Rakib et al. (IC paper)", "kmeans_minus": "Rakib et al. (IC paper)",
    "iterative_classification": "Rakib et al. (IC paper)",
    "mstream": "Yin et al., KDD 2018 (DCT stream baseline)",
    "mstreamf": "Yin et al., KDD 2018 (DCT stream baseline)",
    "hdbscan": "modern baseline (scikit-learn's HDBSCAN; not in the papers)",
    "bertopic": "modern baseline (BERTopic 0.17, extra bench; not in the papers)",
}
# name -> how the model settles the number of clusters, where it does so itself.
_FINDS_K = {"gsdmm": "yes, up to n_clusters", "gsdpmm": "yes",
            "dmafp": "yes, up to n_clusters", "hdbscan": "yes",
            "bertopic": "yes, unless n_clusters"}


def model_names():
    """Names accepted by ``model.name`` in an experiment config, sorted."""
    return sorted(_MODELS)


def get_model_class(name):
    """Return the estimator class registered under ``name``.

    Raises
    ------
    ConfigError
        If no model has that name; the message lists the known ones.
    """
    key = str(name).lower()
    if key not in _MODELS:
        raise ConfigError(
            f"unknown model '{name}': choose one of {', '.join(model_names())}"
        )
    module, cls = _MODELS[key]
    return getattr(import_module(module), cls)


def model_table():
    """One row per registered model: what ``shortclust models`` prints.

    Returns
    -------
    list of dict
        Keys ``name``, ``source``, ``input`` (counts, vectors or both), ``incremental``
        (has ``partial_fit``), ``predict`` and ``finds_k`` (how it settles the number of
        clusters itself, or ``"no"``: it is given K). Imports every model's module.
    """
    rows = []
    for name in model_names():
        capabilities = get_model_class(name).capabilities
        rows.append({"name": name, "source": _SOURCES.get(name, ""),
                     "input": capabilities.input, "incremental": capabilities.incremental,
                     "predict": capabilities.predict, "finds_k": _FINDS_K.get(name, "no")})
    return rows
