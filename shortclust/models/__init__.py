"""Clustering models, one public estimator per file, looked up by name from configs."""

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
    "iterative_classification": ("shortclust.models.ic.iterative_classification", "IterativeClassification"),
    "ncut_nmf": ("shortclust.models.nmf.ncut_nmf", "NMFClustering"),
    "rlsi": ("shortclust.models.nmf.rlsi", "RLSI"),
    "lda": ("shortclust.models.lda.lda", "LDA"),
}


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
