"""Threads inside one fit: numba's thread limit and the document blocks they sweep.

Shared by the approximate parallel sweeps of LDA (``lda._parallel``) and GSDMM
(``dmm._gsdmm_parallel``). Both cut the documents into contiguous blocks of about equal
tokens, one block per requested thread, so that their labels depend on the number of
blocks and the seed, never on how many threads actually ran.
"""

import contextlib

import numba
import numpy as np


@contextlib.contextmanager
def thread_limit(threads):
    """Run numba's parallel loops on at most ``threads`` threads (and at most the
    ``NUMBA_NUM_THREADS`` it started with), the previous limit restored after."""
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def block_bounds(token_ptr, n_blocks):
    """Document offsets of ``n_blocks`` contiguous blocks of about equal tokens (int64).

    ``token_ptr`` holds the documents' token offsets (length D + 1, starting at 0).
    """
    targets = np.linspace(0, token_ptr[-1], n_blocks + 1)
    bounds = np.searchsorted(token_ptr, targets, side="left").astype(np.int64)
    bounds[0], bounds[-1] = 0, token_ptr.shape[0] - 1
    return np.maximum.accumulate(bounds)
