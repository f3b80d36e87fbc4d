"""The ``stream:`` section of a config and the time-ordered batches it cuts a corpus into.

::

    stream:
      batch_by: count        # count: fixed numbers of documents; time: fixed time windows
      n_batches: 16          # count: equal batches (sizes differ by at most one) ...
      # batch_size: 700      # ... or documents per batch (the last may be smaller)
      # window: 500          # time: window length; a whole number of positions for data
      #                      # with integer times (MStream), a duration (30m, 6h, 1d, 2w)
      #                      # for ISO-8601 timestamps; windows start at the first time,
      #                      # empty ones are skipped
      partial_iter: 2        # optional: the model's partial_iter (not also in model.params)
      perplexity: true       # optional: score each batch, before the model sees it, under
      #                      # the model of the batches before (next-batch perplexity)

The section is checked when the config is loaded (:func:`parse_stream`, called by the
config schema); what depends on the corpus (its times, its size) is checked when the
experiment is planned (:func:`make_batches`). The corpus is ordered by time (stable: ties
keep file order; a corpus without times keeps file order, so only ``batch_by: count``
applies to it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from shortclust.errors import ConfigError

STREAM_KEYS = ("batch_by", "batch_size", "n_batches", "window", "partial_iter", "perplexity")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_BATCHING_HINT = ("set batch_by: count with batch_size (documents per batch) or n_batches, "
                  "or batch_by: time with window")
_WINDOW_HINT = ("a whole number of stream positions (e.g. 500) or a duration of at least "
                "one second (e.g. 30m, 6h, 1d, 2w)")


@dataclass(frozen=True)
class StreamSpec:
    """The checked ``stream:`` section of a config.

    Attributes
    ----------
    batch_by : {"count", "time"}
    batch_size, n_batches : int or None
        Count batching: documents per batch, or number of equal batches (one is set).
    window : int, str or None
        Time batching: positions (int) or a duration as written (``"6h"``).
    window_seconds : int or None
        The duration in seconds, when ``window`` is one.
    partial_iter : int or None
        Sweeps per later batch, given to the model as its ``partial_iter``.
    perplexity : True or None
        Score each batch after the first, before the model sees it, by the perplexity
        under the model of the batches before
        (:func:`~shortclust.evaluation.perplexity.model_perplexity`; words not seen yet
        count as out of vocabulary). None when not asked, so that run ids of streams
        written before the key stay as they were.
    """

    batch_by: str
    batch_size: int | None = None
    n_batches: int | None = None
    window: int | str | None = None
    window_seconds: int | None = None
    partial_iter: int | None = None
    perplexity: bool | None = None

    def as_record(self) -> dict[str, Any]:
        """The settings as written (unset keys left out), for records and run ids."""
        return {key: getattr(self, key) for key in STREAM_KEYS if getattr(self, key) is not None}


def parse_stream(section: dict, where: str = "stream") -> StreamSpec:
    """Check a ``stream:`` section and return it as a :class:`StreamSpec`.

    Raises
    ------
    ConfigError
        With a one-line message naming the key and the fix.
    """
    from shortclust.errors import allowed_hint

    if not section:
        raise ConfigError(f"{where} section is empty: {_BATCHING_HINT}")
    for key in section:
        if key not in STREAM_KEYS:
            raise ConfigError(f"{where}: unknown key '{key}' {allowed_hint(key, STREAM_KEYS)}")
    batch_by = section.get("batch_by")
    if batch_by not in ("count", "time"):
        got = "missing" if batch_by is None else f"{batch_by!r}"
        raise ConfigError(f"{where}.batch_by is {got}: {_BATCHING_HINT}")
    spec = _count_spec(section, where) if batch_by == "count" else _time_spec(section, where)
    partial_iter = section.get("partial_iter")
    if partial_iter is not None:
        _require_count(partial_iter, f"{where}.partial_iter", 0)
    perplexity = section.get("perplexity")
    if perplexity is not None and not isinstance(perplexity, bool):
        raise ConfigError(f"{where}.perplexity must be true or false, not {perplexity!r}")
    return StreamSpec(**spec, partial_iter=partial_iter, perplexity=perplexity or None)


def _count_spec(section: dict, where: str) -> dict[str, Any]:
    _forbid(section, ("window",), "time", where)
    given = [key for key in ("batch_size", "n_batches") if key in section]
    if len(given) != 1:
        problem = "needs" if not given else "takes one of"
        raise ConfigError(
            f"{where}: batch_by: count {problem} batch_size (documents per batch) or n_batches"
            + ("" if not given else ", not both: remove one")
        )
    _require_count(section[given[0]], f"{where}.{given[0]}", 1)
    return {"batch_by": "count", given[0]: section[given[0]]}


def _time_spec(section: dict, where: str) -> dict[str, Any]:
    _forbid(section, ("batch_size", "n_batches"), "count", where)
    if "window" not in section:
        raise ConfigError(f"{where}: batch_by: time needs window ({_WINDOW_HINT})")
    window = section["window"]
    if _is_int(window) and window >= 1:
        _check_window(window, where)
        return {"batch_by": "time", "window": window}
    match = _DURATION.match(window) if isinstance(window, str) else None
    amount = float(match[1]) * _UNIT_SECONDS[match[2]] if match else 0.0
    seconds = round(min(amount, 2.0 * MAX_WINDOW))  # a huge number is still refused below
    if seconds < 1:
        raise ConfigError(f"{where}.window must be {_WINDOW_HINT}; got {window!r}")
    _check_window(seconds, where)
    return {"batch_by": "time", "window": window, "window_seconds": seconds}


#: The longest window (positions or seconds): with times within +-2**61
#: (shortclust.data.io.MAX_TIME) the batching arithmetic stays inside int64.
MAX_WINDOW = 2**61


def _check_window(window: int, where: str) -> None:
    if window > MAX_WINDOW:
        raise ConfigError(f"{where}.window {window} is longer than {MAX_WINDOW} (2**61): "
                          "give a shorter window")


def _forbid(section: dict, keys, batch_by: str, where: str) -> None:
    for key in keys:
        if key in section:
            raise ConfigError(
                f"{where}.{key} applies to batch_by: {batch_by}: remove it or set "
                f"batch_by: {batch_by}"
            )


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _require_count(value, name: str, minimum: int) -> None:
    """The model contract's integer rule, refused as a config error."""
    from shortclust.errors import ParameterError
    from shortclust.models.base import Integer

    try:
        Integer(minimum).check(value, name)
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None


# --------------------------------------------------------------------------------------------
# batches


@dataclass(frozen=True)
class Batch:
    """Documents ``order[start:stop]`` of the time-ordered stream.

    ``first``/``last`` are the batch's time range as JSON values: its time window for
    time batching, else the times of its first and last documents (stream positions
    when the corpus has no times).
    """

    start: int
    stop: int
    first: Any
    last: Any


def stream_order(corpus) -> np.ndarray:
    """Document positions sorted by time, ties (and a corpus without times) in file order."""
    if corpus.times is None:
        return np.arange(corpus.n_docs)
    return np.argsort(corpus.times, kind="stable")


def make_batches(spec: StreamSpec, corpus, order: np.ndarray, where: str = "stream") -> list[Batch]:
    """Cut the ordered stream into batches as ``spec`` says.

    Raises
    ------
    ConfigError
        If the batching does not fit the corpus (no times, a window of the wrong kind,
        more batches than documents).
    """
    times = None if corpus.times is None else corpus.times[order]
    if spec.batch_by == "time":
        return _time_batches(spec, times, where, corpus.name)
    n_docs = len(order)
    if spec.n_batches is not None and spec.n_batches > n_docs:
        raise ConfigError(
            f"{where}.n_batches={spec.n_batches} exceeds the {n_docs} documents of "
            f"'{corpus.name}': use at most {n_docs}"
        )
    if spec.n_batches is not None:
        sizes = [len(part) for part in np.array_split(np.arange(n_docs), spec.n_batches)]
    else:
        sizes = [min(spec.batch_size, n_docs - s) for s in range(0, n_docs, spec.batch_size)]
    edges = np.concatenate(([0], np.cumsum(sizes)))
    stamps = times if times is not None else np.arange(n_docs)
    return [Batch(int(a), int(b), _json_time(stamps[a]), _json_time(stamps[b - 1]))
            for a, b in zip(edges[:-1], edges[1:])]


def _time_batches(spec: StreamSpec, times, where: str, name: str) -> list[Batch]:
    if times is None:
        raise ConfigError(
            f"{where}: batch_by: time needs document times, and '{name}' has none: "
            "use batch_by: count"
        )
    is_stamp = np.issubdtype(times.dtype, np.datetime64)
    if is_stamp != (spec.window_seconds is not None):
        kind, want = (("timestamps", "a duration such as 6h or 1d") if is_stamp else
                      ("integer stream positions", "a whole number of positions"))
        raise ConfigError(f"{where}.window {spec.window!r} does not suit '{name}', which has "
                          f"{kind}: give {want}")
    values = times.astype("datetime64[s]").astype(np.int64) if is_stamp else times.astype(np.int64)
    width = spec.window_seconds if is_stamp else spec.window
    bins = (values - values[0]) // width
    edges = np.concatenate(([0], np.flatnonzero(np.diff(bins)) + 1, [len(values)]))
    unit = np.timedelta64(1, "s") if is_stamp else 1
    origin = times[0].astype("datetime64[s]") if is_stamp else int(values[0])
    return [Batch(int(a), int(b), _json_time(origin + int(bins[a]) * width * unit),
                  _json_time(origin + (int(bins[a]) + 1) * width * unit))
            for a, b in zip(edges[:-1], edges[1:])]


def _json_time(value) -> Any:
    """An int for a stream position, ``YYYY-MM-DDTHH:MM:SSZ`` for a timestamp."""
    if isinstance(value, np.datetime64):
        return str(value.astype("datetime64[s]")) + "Z"
    return int(value)
