"""Datasets defined as a subset of another file: Banerjee et al.'s 20 Newsgroups sets.

Banerjee & Basu (SDM 2007, section 4.1) take their datasets from Banerjee, Dhillon, Ghosh
and Sra (JMLR 2005): news-20 (all 20 groups), subset-20 (about 100 documents per group),
sim-3, rel-3 and diff-3 (three groups each, similar, related and different topics). They
are built here from the registered ``20NG-bydate`` file by :class:`Subset`: which groups,
how many documents per group (a seeded sample) and the stream order.

The bydate distribution has no dates. Its train split precedes its test split in time,
and within a group article numbers grow with arrival time; but each group numbers its
articles from its own start, so numbers cannot be compared across groups (sorted by number,
a stream would bring one group after another). The stream order used assumes each group
posts at a steady rate over the same period: train before test, then a post's relative
position in its group's split (its rank by article number over the group's posts in that
split), then group name. Every stretch of the stream then holds every group in proportion.
A subset's ``time`` is the stream position in that order.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from shortclust.errors import DataError


@dataclass(frozen=True)
class Subset:
    """Which documents of a parent dataset form a derived dataset, and in what order.

    Attributes
    ----------
    parent : str
        Registry name of the file the documents come from.
    groups : tuple of str or None
        Labels kept (None: every label).
    per_group : int or None
        Documents sampled per group, uniformly without replacement (None: all of them).
    seed : int
        Seed of that sample (numpy's ``default_rng``).
    order : str
        ``"newsgroups-relative"``: the stream order described in the module docstring,
        from the ``id`` (``<group>/<article number>``) and ``split`` fields; ``"file"``:
        file order.
    """

    parent: str
    groups: tuple[str, ...] | None = None
    per_group: int | None = None
    seed: int = 0
    order: str = "newsgroups-relative"

    def checksum(self, parent_sha256: str) -> str:
        """The subset's own checksum: the parent's and this definition, hashed together."""
        text = json.dumps([parent_sha256, asdict(self)], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def select(self, raw, path):
        """``(documents, rows)``: the subset of ``raw`` (a RawDocuments read from ``path``)
        in stream order, and the row of the parent each comes from; ``time`` is the stream
        position."""
        import numpy as np  # here: `data download` needs no numpy

        if raw.labels is None:
            raise DataError(f"{self.parent} has no labels: a subset by group needs them")
        labels = np.asarray(raw.labels, dtype=object)
        chosen = []
        rng = np.random.default_rng(self.seed)
        for group in self.groups or sorted(set(raw.labels)):
            rows = np.flatnonzero(labels == group)
            if rows.size == 0:
                raise DataError(f"{self.parent} has no documents of group '{group}'")
            if self.per_group is not None and self.per_group < rows.size:
                rows = np.sort(rng.choice(rows, self.per_group, replace=False))
            chosen.append(rows)
        rows = np.concatenate(chosen)
        rows = rows[self._stream_order(raw, rows, path)]
        return _take(raw, rows), rows

    def _stream_order(self, raw, rows: np.ndarray, path) -> np.ndarray:
        import numpy as np  # here: `data download` needs no numpy

        if self.order == "file":
            return np.argsort(rows, kind="stable")
        split = read_field(path, "split")
        if raw.ids is None or any(value is None for value in split):
            raise DataError(f"{path}: the newsgroup stream order needs every document's "
                            "'id' and 'split' fields: download the file again")
        posts = {}  # (split, group) -> [(article number, position)]
        for position, row in enumerate(rows):
            group, _, number = str(raw.ids[row]).rpartition("/")
            posts.setdefault((split[row] != "train", group), []).append(
                (int(number) if number.isdigit() else 0, position))
        keys = []
        for (later, group), numbered in posts.items():
            numbered.sort()
            for rank, (_, position) in enumerate(numbered):
                keys.append((later, (rank + 0.5) / len(numbered), group, position))
        return np.array([key[-1] for key in sorted(keys)], dtype=np.int64)


def read_field(path, name: str) -> list:
    """One field of every line of a JSON Lines file (None where a line lacks it)."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line).get(name) for line in lines if line.strip()]


def _take(raw, rows: np.ndarray):
    """A RawDocuments holding ``rows`` of ``raw``, times replaced by the stream position."""
    from shortclust.data.io import RawDocuments

    pick = lambda values: None if values is None else [values[i] for i in rows]  # noqa: E731
    return RawDocuments(texts=pick(raw.texts), labels=pick(raw.labels),
                        times=list(range(len(rows))), ids=pick(raw.ids))
