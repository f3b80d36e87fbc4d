"""The hybrid STREAM/OFFLINE scheme of Banerjee & Basu (SDM 2007, section 3.4), for any
incremental model with a batch step.

Private: models mix :class:`HybridStreamMixin` in; users set its two parameters.

"A hybrid topic modeling scheme that alternates between two phases: (i) STREAM phase: run
an online topic algorithm on streaming data; and (ii) OFFLINE phase: intermittently run a
batch algorithm on the accumulated offline repository data." In the experiments (Figure
1) the OFFLINE phase is "one iteration" of the batch algorithm "at every 20% of the
stream". Here:

* ``offline_every`` (None, or a fraction f in (0, 1]): None is the plain online model;
  f runs one OFFLINE iteration each time the stream reaches ``round(j f N)`` documents,
  j = 1, 2, ... (with f = 0.2: at 20%, 40%, ..., 100%), even in the middle of a batch;
* ``stream_length`` (N, the number of documents the stream will bring): the schedule is
  in fractions of the stream, which ``partial_fit`` alone cannot know. Documents past N
  are processed online only.

The mixin owns ``partial_fit``: it cuts each batch at the OFFLINE points, sends the pieces
to the model's online step and, at each point, hands everything seen so far (the
"offline repository", kept only when ``offline_every`` is set) to the model's batch step,
whose labels then replace those of every document seen. A model provides:

``_stream_rows(X_batch)``
    The checked batch, as a matrix whose rows can be sliced and stacked.
``_stream_start(rows)``
    Called with the first batch of an unfitted model: set up the online state (e.g.
    seeding). Nothing is assigned yet.
``_stream_step(rows)``
    The STREAM phase on these rows, in order: returns their labels.
``_batch_step(seen)``
    One iteration of the batch algorithm on every document seen so far (rows in stream
    order): returns their labels.

and calls :meth:`HybridStreamMixin._stream_restart` at the end of ``fit``, so that a later
``partial_fit`` continues from the fitted model (the fitted documents count as seen). Its
constructor takes ``offline_every`` and ``stream_length``, constrained by
:data:`HYBRID_CONSTRAINTS`.
"""

import math

import numpy as np
import scipy.sparse as sp

from shortclust.errors import ParameterError
from shortclust.models.base import Integer, Interval, NoneOr

HYBRID_CONSTRAINTS = {
    "offline_every": NoneOr(Interval(0.0, 1.0, closed="right",
                                     note="the fraction of the stream between OFFLINE steps")),
    "stream_length": NoneOr(Integer(1, note="documents in the whole stream")),
}


def offline_points(offline_every, stream_length):
    """Stream positions (documents seen) after which an OFFLINE iteration runs.

    Examples
    --------
    >>> offline_points(0.2, 1000)
    [200, 400, 600, 800, 1000]
    >>> offline_points(0.3, 10)
    [3, 6, 9]
    >>> offline_points(None, 10)
    []
    """
    if offline_every is None:
        return []
    steps = math.floor(1.0 / offline_every + 1e-9)
    return sorted({max(1, round(j * offline_every * stream_length))
                   for j in range(1, steps + 1)})


class HybridStreamMixin:
    """``partial_fit`` as the STREAM phase with OFFLINE iterations (module docstring).

    Fitted attributes it sets: ``labels_`` (every document seen, in stream order),
    ``n_clusters_``, ``n_iter_`` (1 for the STREAM pass plus the OFFLINE iterations of the
    last call), ``n_seen_`` and ``offline_at_`` (the positions where OFFLINE ran).
    """

    def partial_fit(self, X_batch, y=None):
        """Cluster a batch online, with an OFFLINE iteration at each scheduled point.

        The first call on an unfitted model checks the parameters and starts the stream
        (``_stream_start``); each call processes its rows in order; a call after ``fit``
        continues from the fitted model.

        Parameters
        ----------
        X_batch : matrix of shape (n_batch, n_features)
            The next documents of the stream, of the kind ``fit`` takes.
        y : ignored

        Returns
        -------
        self
        """
        if not hasattr(self, "n_seen_"):
            # Checked when the stream starts (or in fit); not again per call, whose
            # cost (about a millisecond) would dominate one-document batches.
            self._validate_params()
            self._validate_stream_params()
        if self.offline_every is not None and getattr(self, "_repository", []) is None:
            self._seen()  # refuses: a loaded hybrid model lacks the documents it has seen
        rows = self._stream_rows(X_batch)
        if not hasattr(self, "n_seen_"):
            self._stream_start(rows)
            self._stream_restart(None, np.empty(0, dtype=np.int64))
        n_rows = rows.shape[0]
        start = self.n_seen_
        cuts = [p - start for p in offline_points(self.offline_every, self.stream_length)
                if start < p <= start + n_rows]
        done, n_iter = 0, 0
        for cut, offline in [(c, True) for c in cuts] + [(n_rows, False)]:
            if cut > done:
                piece = rows if (done, cut) == (0, n_rows) else rows[done:cut]
                self._absorb(piece, self._stream_step(piece))
                n_iter = max(n_iter, 1)
                done = cut
            if offline:
                self._relabel(self._batch_step(self._seen()))
                self.offline_at_.append(self.n_seen_)
                n_iter += 1
        self.n_iter_ = n_iter
        return self

    def _validate_stream_params(self):
        """Checked when a stream starts (and by the planner once it has filled
        ``stream_length`` from a stream's size), not with the other parameters: a config
        with a stream section leaves ``stream_length`` to the stream."""
        if self.offline_every is not None and self.stream_length is None:
            raise ParameterError(
                "offline_every needs stream_length (the number of documents the stream "
                "will bring, so that OFFLINE steps fall at fractions of it): set "
                "stream_length or remove offline_every"
            )

    def _stream_restart(self, rows, labels):
        """Start the stream state from ``labels`` of ``rows`` (None and none: a new stream)."""
        self.offline_at_ = []
        keep = self.offline_every is not None and rows is not None
        self._repository = [rows] if keep else []
        self._relabel(labels)

    def _relabel(self, labels):
        """Replace the labels of every document seen (a fit or an OFFLINE step).

        Labels live in a buffer that grows by doubling, so appending a batch costs its own
        size, not the stream's; ``labels_`` is a view of its filled part. A relabelling
        writes a new buffer, so an earlier ``labels_`` never changes under its holder.
        """
        labels = np.asarray(labels, dtype=np.int64)
        self._label_buffer = np.empty(max(16, 2 * labels.size), dtype=np.int64)
        self._label_buffer[:labels.size] = labels
        self._cluster_sizes = np.bincount(labels) if labels.size else np.zeros(0, np.int64)
        self.n_seen_ = int(labels.size)
        self._publish_labels()

    def _absorb(self, rows, labels):
        """Append a STREAM piece's labels (and rows, for a hybrid model)."""
        labels = np.asarray(labels, dtype=np.int64)
        end = self.n_seen_ + labels.size
        if end > self._label_buffer.size:
            grown = np.empty(2 * end, dtype=np.int64)
            grown[:self.n_seen_] = self._label_buffer[:self.n_seen_]
            self._label_buffer = grown
        self._label_buffer[self.n_seen_:end] = labels
        added = np.bincount(labels)
        if added.size > self._cluster_sizes.size:
            self._cluster_sizes = np.pad(self._cluster_sizes,
                                         (0, added.size - self._cluster_sizes.size))
        self._cluster_sizes[:added.size] += added
        self.n_seen_ = end
        if self.offline_every is not None:
            self._repository.append(rows)
        self._publish_labels()

    def _publish_labels(self):
        self.labels_ = self._label_buffer[:self.n_seen_]
        self.n_clusters_ = int(np.count_nonzero(self._cluster_sizes))

    def _seen(self):
        """Every document seen, stacked once and kept stacked."""
        chunks = self._repository
        if chunks is None:
            raise ParameterError(
                "this hybrid model was loaded from a file, which does not keep the documents "
                "its OFFLINE steps need: stream the documents again with a new model, or "
                "set offline_every: null to continue online only")
        if len(chunks) > 1:
            stacked = sp.vstack(chunks, format="csr") if sp.issparse(chunks[0]) \
                else np.vstack(chunks)
            self._repository = [stacked]
        return self._repository[0]
