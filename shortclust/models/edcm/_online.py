"""The sliding windows of online EDCM (Banerjee & Basu, SDM 2007, section 3.2). Private.

"Let M_h^L be the set of the last L documents that have been assigned to topic h. If
the new document x_{t+1} is assigned to topic h, then M_h^L is updated by inserting
x_{t+1} in, and deleting the oldest document in the set." :class:`Windows` keeps, per
component, a ring of at most L document ids, the window's document frequencies and the
documents themselves (only those still in some window), and runs the compiled pass
(:func:`~shortclust.models.edcm._kernels.online_pass`) over a batch.
"""

import numpy as np
import scipy.sparse as sp

from shortclust.models.edcm import _kernels as kernels


def _rows(counts):
    """(indptr, indices, lengths) of CSR counts, as the kernel reads them."""
    lengths = np.asarray(counts.sum(axis=1), dtype=np.int64).ravel()
    return (counts.indptr.astype(np.int64), counts.indices.astype(np.int64), lengths)


class Windows:
    """M_h^L for every component h, and what re-estimation needs from them.

    Attributes
    ----------
    store : scipy.sparse.csr_matrix
        The documents held by some window (word counts), one row each.
    slots : ndarray (K, L) of int64
        ``slots[h]`` a ring of rows of ``store``; ``start[h]`` its oldest slot and
        ``count[h]`` the documents held.
    df : ndarray (K, V) of int64
        Documents of window h holding word j.
    distinct : ndarray (K,) of int64
        ``df[h].sum()``: distinct words summed over window h's documents.
    """

    def __init__(self, n_clusters, capacity, n_words):
        self.store = sp.csr_matrix((0, n_words), dtype=np.int32)
        self.slots = np.full((n_clusters, capacity), -1, dtype=np.int64)
        self.start = np.zeros(n_clusters, dtype=np.int64)
        self.count = np.zeros(n_clusters, dtype=np.int64)
        self.df = np.zeros((n_clusters, n_words), dtype=np.int64)
        self.distinct = np.zeros(n_clusters, dtype=np.int64)

    @classmethod
    def from_labels(cls, counts, labels, n_clusters, capacity):
        """Windows holding, per component, the last ``capacity`` non-empty documents of
        ``counts`` (in row order) labelled with it."""
        windows = cls(n_clusters, capacity, counts.shape[1])
        nonempty = np.diff(counts.indptr) > 0
        kept = []
        for h in range(n_clusters):
            rows = np.flatnonzero((labels == h) & nonempty)[-capacity:]
            windows.slots[h, :rows.size] = np.arange(len(kept), len(kept) + rows.size)
            windows.count[h] = rows.size
            kept.extend(rows.tolist())
            occurs = counts[rows]
            windows.df[h] = np.diff(occurs.tocsc().indptr)
            windows.distinct[h] = occurs.nnz
        windows.store = sp.csr_matrix(counts[np.asarray(kept, dtype=np.int64)])
        return windows

    def run(self, batch, mixture_arrays, update_weight):
        """The online pass over ``batch`` (CSR counts, sorted indices); returns labels.

        ``mixture_arrays = (beta, s, sizes)`` are updated in place (see
        :func:`~shortclust.models.edcm._kernels.online_pass`), and so are the windows.
        """
        labels = np.empty(batch.shape[0], dtype=np.int64)
        kernels.online_pass(
            _rows(batch), _rows(self.store), mixture_arrays,
            (self.slots, self.start, self.count, self.df, self.distinct),
            float(update_weight), labels)
        self._keep_held(batch)
        return labels

    def _keep_held(self, batch):
        """Rebuild ``store`` from the documents the windows still hold, slots renumbered."""
        held = self.slots >= 0
        ids = np.unique(self.slots[held])
        both = sp.vstack([self.store, sp.csr_matrix(batch, dtype=self.store.dtype)],
                         format="csr")
        self.store = sp.csr_matrix(both[ids])
        self.slots[held] = np.searchsorted(ids, self.slots[held])
