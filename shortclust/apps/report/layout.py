"""Two coordinates per document for the report's map.

The documents' TF-IDF vectors (scikit-learn's ``TfidfTransformer`` of the term counts,
rows L2-normalised) are reduced by truncated SVD to at most :data:`SVD_COMPONENTS`
dimensions, then to two: by UMAP (cosine metric) when ``umap-learn`` is installed, else by
t-SNE (scikit-learn, PCA initialisation). Both are seeded, so the same run gives the same
map.
"""

from __future__ import annotations

import importlib.util
import inspect

import numpy as np

__all__ = ["SVD_COMPONENTS", "embed_2d", "has_umap"]

#: Dimensions kept by the truncated SVD before the 2-D layout.
SVD_COMPONENTS = 50
#: Fewer documents than this are laid out by t-SNE even where UMAP is installed (UMAP's
#: neighbour graph wants more).
UMAP_MIN_DOCS = 100
#: t-SNE's gradient steps.
TSNE_ITERATIONS = 500


def has_umap() -> bool:
    """Whether ``umap-learn`` is installed (the map then uses UMAP)."""
    return importlib.util.find_spec("umap") is not None


def embed_2d(counts, *, seed: int = 0, method: str | None = None):
    """2-D coordinates of the rows of a document-term count matrix.

    Parameters
    ----------
    counts : sparse matrix, shape (n_docs, n_words)
    seed : int
    method : {"umap", "tsne", None}
        None: UMAP when installed (and :data:`UMAP_MIN_DOCS` documents or more), else
        t-SNE.

    Returns
    -------
    xy : ndarray of shape (n_docs, 2)
    description : str
        How the coordinates were made, for the map's caption.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.random(40, 30, density=0.2, random_state=0, format="csr")
    >>> xy, how = embed_2d(X, method="tsne")
    >>> xy.shape, how.startswith("t-SNE")
    ((40, 2), True)
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.preprocessing import normalize

    n_docs, n_words = counts.shape
    tfidf = TfidfTransformer().fit_transform(counts)
    components = min(SVD_COMPONENTS, n_words - 1, n_docs - 1)
    if components >= 2:
        reduced = TruncatedSVD(n_components=components, random_state=seed).fit_transform(tfidf)
    else:  # too few words or documents to reduce: the TF-IDF itself
        reduced, components = tfidf.toarray(), n_words
    reduced = normalize(reduced)
    method = method or ("umap" if has_umap() and n_docs >= UMAP_MIN_DOCS else "tsne")
    if method == "umap":
        import umap

        reducer = umap.UMAP(n_components=2, metric="cosine", random_state=seed, n_jobs=1,
                            n_neighbors=min(15, n_docs - 1))
        xy = reducer.fit_transform(reduced)
        how = f"UMAP (cosine) of TF-IDF reduced to {components} dimensions by truncated SVD"
    else:
        from sklearn.manifold import TSNE

        perplexity = float(min(30.0, max(2.0, (n_docs - 1) / 3)))
        # Half scikit-learn's default iterations: the layout settles well before, at half
        # the time (scikit-learn < 1.5 calls the parameter n_iter).
        steps = "max_iter" if "max_iter" in inspect.signature(TSNE).parameters else "n_iter"
        xy = TSNE(n_components=2, init="pca", random_state=seed, perplexity=perplexity,
                  metric="cosine", **{steps: TSNE_ITERATIONS}).fit_transform(reduced)
        how = (f"t-SNE (cosine, perplexity {perplexity:g}) of TF-IDF reduced to "
               f"{components} dimensions by truncated SVD (umap-learn not installed)")
    return np.asarray(xy, dtype=np.float64), how
