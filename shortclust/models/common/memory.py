"""Whether a fit can have the memory it needs: the model's own lower bound
(:meth:`~shortclust.models.base.ClusteringModel.memory_bytes`) against the memory available
now, checked by ``run`` (:mod:`shortclust.pipeline.plan`) and ``cluster``
(:class:`~shortclust.apps.text_clusterer.TextClusterer`) alike before any fit."""

from __future__ import annotations

__all__ = ["available_memory", "check_fit_memory"]


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_fit_memory(model_class, params, name, n_docs, n_features, n_words, where=None):
    """Refuse a setting whose fit needs more memory than is available now.

    The model's own lower bound (:meth:`ClusteringModel.memory_bytes`) is compared with
    :func:`available_memory` (no check where either is unknown), so ``n_clusters=10**9``
    is one line before the fit instead of a MemoryError or an overflow inside it.

    Parameters
    ----------
    model_class : type
    params : dict
        The parameters the fit will get (``n_clusters`` among them).
    name : str
        The model's registered name, for the message.
    n_docs, n_features : int
        The data's size; ``n_features`` None when its width is not known in advance.
    n_words : int
        The vocabulary's size, for the message.
    where : str, optional
        What holds the setting (a config file), put before the message.

    Raises
    ------
    ConfigError
    """
    from shortclust.errors import ConfigError

    needed = model_class.memory_bytes(params, n_docs, n_features)
    available = available_memory()
    if needed is None or available is None or needed <= available:
        return
    setting = f" with n_clusters={params['n_clusters']}" if "n_clusters" in params else ""
    raise ConfigError(
        f"{where + ': ' if where else ''}model '{name}'{setting} needs at least "
        f"{needed / 2**30:,.1f} GiB of memory on this corpus ({n_docs} documents, {n_words} "
        f"words) and {available / 2**30:,.1f} GiB is available: lower n_clusters or use a "
        "smaller corpus"
    )
