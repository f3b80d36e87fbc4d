"""Threads inside one fit: numba's thread limit and the document blocks they sweep.

Shared by the approximate parallel sweeps of LDA (``lda._parallel``), GSDMM
(``dmm._gsdmm_parallel``) and DCT (``dmm._dct_parallel``). Both cut the documents into contiguous blocks of about equal
tokens, one block per requested thread, so that their labels depend on the number of
blocks and the seed, never on how many threads actually ran. Each block's scratch comes
from :func:`block_scratch`, so that no cache line holds two blocks' data.
"""

import contextlib

import numba
import numpy as np

#: The most blocks a sweep that passes one numpy Generator per block into a numba parallel
#: loop can have (LDA's): numba takes a tuple of at most NUMBA_PARFOR_MAX_TUPLE_SIZE (100
#: unless set) there, and failed to compile with threads=101 (UnsupportedParforsError).
MAX_GENERATOR_BLOCKS = numba.config.PARFOR_MAX_TUPLE_SIZE

#: The most blocks a GSDMM or DCT sweep may be cut into. Each block holds its own copy of
#: the counts, so a mistyped ``threads=1000000`` asked for a million copies (9 s and 1.2 GB
#: on a 2,000-text set before anything was sampled). No machine this runs on has more
#: cores than this; labels depend on the number of blocks, so the limit is fixed.
MAX_BLOCKS = 1024

#: Bytes of a cache line (x86-64 and most ARM cores): what two blocks' scratch is kept apart by.
CACHE_LINE = 64


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


def block_scratch(n_blocks, shape, dtype=np.float64, fill=None):
    """Per-block scratch: a C-contiguous array of ``n_blocks`` parts of ``shape``, padded.

    Part ``b`` is ``out[b, :shape[0]]``; the first axis after the block axis gets enough
    extra entries (at least a cache line's worth of bytes) that two blocks' parts never
    share a cache line. Without the pad, the weight rows of two blocks, written for every
    token, shared a line at the row boundary, and each write sent that line from one core
    to the other (false sharing). Kernels slice ``[b, :shape[0]]``, which numba keeps
    C-contiguous (a view of the padded array through ``[:, :n]`` would not be, and the
    sweep compiled for non-contiguous rows ran about 30% slower). ``fill``: initial
    value, or None for uninitialised memory.
    """
    shape = tuple(int(n) for n in shape)
    itemsize = np.dtype(dtype).itemsize
    inner = itemsize * int(np.prod(shape[1:], dtype=np.int64))
    extra = -(-CACHE_LINE // max(inner, 1))  # ceil: whole entries of the padded axis
    padded = (n_blocks, shape[0] + extra) + shape[1:]
    if fill is None:
        return np.empty(padded, dtype=dtype)
    return np.full(padded, fill, dtype=dtype)
