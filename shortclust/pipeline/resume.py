"""Which planned runs still need a fit: what is recorded, what it lacks, what is stale.

:func:`select_runs` decides without writing anything, so every check (the representation
included) can run before the first file changes; :meth:`Selection.apply` then writes what
was decided: an old records file moved aside, or, on resume, the records file completed
(archived records restored, metrics added from stored labels, records to refit dropped).

On resume a planned run counts as recorded when a record of its id is in the output
directory or in the archive (the output directory's first record wins). A recorded run
that lacks a metric now asked for gets it from its stored labels; one whose labels are not
stored (an archived run, a deleted labels file), a stream run (its per-batch series need
the batch fit's labels, which are not stored) and a run lacking the top words now asked
for are fitted again: their record leaves the records file before the fit, while an
archive keeps it until the new record replaces it there (so an interruption loses nothing
archived).

Topic quality (``topic_quality``) needs each cluster's top words, which labels alone do not
give (they are the model's): a run recorded without it, or with other settings, is scored
from the top words its record keeps (``top_words: N`` with N >= ``top_n``) and its stored
labels; a record without them is fitted again, and the message says why.

A recorded run whose labels file is gone is fitted again even when its record lacks
nothing: ``labels/<run_id>.txt`` is part of what a run leaves. Runs of the archive are the
exception: archived records never come with labels (the archive keeps metrics and
provenance only), so their labels file is not expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shortclust.errors import DataError
from shortclust.pipeline.plan import Plan, PlannedRun, columns_are_words
from shortclust.pipeline.records import RecordStore, first_of_each_run


@dataclass
class Selection:
    """What :func:`select_runs` decided.

    Attributes
    ----------
    todo : list of PlannedRun
        The runs to fit, in plan order.
    records : list of dict or None
        On resume, the records file to write before fitting (None: leave it as it is).
    completed, refit : int
        Recorded runs given the metrics they lacked, and recorded runs to fit again for
        what their record lacks.
    scored, refit_for_words : int
        Recorded runs given topic quality from their recorded top words, and those of
        ``refit`` fitted again because their records keep too few top words for it.
    unlabelled : int
        Recorded runs (not archived) to fit again because their labels file is gone (or
        their model file, with ``need_models``).
    need_models : bool
        Whether model files are asked for (``--save-models``).
    resume : bool
        Whether the experiment resumes (else it starts afresh).
    n_skipped : int
        Planned runs already recorded.
    """

    todo: list[PlannedRun]
    records: list[dict[str, Any]] | None = None
    completed: int = 0
    refit: int = 0
    resume: bool = False
    n_skipped: int = 0
    unlabelled: int = 0
    need_models: bool = False
    scored: int = 0
    refit_for_words: int = 0
    move_pending: bool = False

    def apply(self, store: RecordStore, say) -> None:
        """Write what was decided; say it.

        Starting fresh over existing records moves them aside only when the first new run
        is about to be written (:meth:`before_first_write`): a run that fails before that
        (K above the number of documents, say) leaves the finished folder as it was.
        """
        if not self.resume:
            self.move_pending = store.exists()
            return
        if self.records is not None:
            store.rewrite(self.records)
        n_planned = len(self.todo) + self.n_skipped
        say(f"resume: {self.n_skipped} of {n_planned} runs already recorded, "
            f"{len(self.todo)} to run"
            + (f"; {self.completed} given the metrics they lacked, from their stored labels"
               if self.completed else "")
            + (f"; {self.scored} given topic quality from their recorded top words"
               if self.scored else "")
            + (f"; {self.refit} fitted again for what they lack" if self.refit else "")
            + (f" ({self.refit_for_words} for topic quality: their records keep too few top "
               "words to score; top_words: N >= topic_quality.top_n keeps enough)"
               if self.refit_for_words else "")
            + (f"; {self.unlabelled} fitted again for a missing labels"
               f"{' or model' if self.need_models else ''} file" if self.unlabelled else ""))


def before_first_write(selection: Selection, store: RecordStore, say) -> Path | None:
    """Move the old records aside, if starting fresh over them, before the first write;
    return where they went (None if not moved now), for the write to put them back if it
    fails."""
    if not selection.move_pending:
        return None
    selection.move_pending = False
    backup = store.move_aside()
    say(f"moved existing {store.records_path.name} to {backup}; starting fresh")
    return backup


def select_runs(store: RecordStore, plan: Plan, resume: bool,
                archived: list[dict[str, Any]], need_models: bool = False) -> Selection:
    """Decide which planned runs to fit; write nothing.

    With ``need_models`` (``--save-models``) a recorded run without its model file is fitted
    again, as one without its labels file is.

    Raises
    ------
    DataError
        On resume, when recorded runs of the plan were fitted on another copy of the
        dataset (its checksum differs): their numbers would be mixed with new ones.
    """
    if not resume:
        return Selection(list(plan.runs))
    on_disk = store.load()
    records = first_of_each_run(on_disk, archived)
    _check_same_data(records, plan, store)
    unlabelled = _without_files(records, plan, store, {r["run_id"] for r in archived},
                                need_models)
    records = [record for record in records if record["run_id"] not in unlabelled]
    records, counts, stale = _complete(records, plan, store)
    records = [record for record in records if record["run_id"] not in stale]
    done = {record["run_id"] for record in records}
    todo = [run for run in plan.runs if run.run_id not in done]
    changed = counts.completed or counts.scored or stale or unlabelled \
        or len(records) != len(on_disk)
    return Selection(todo, records if changed else None, counts.completed, len(stale), True,
                     len(plan.runs) - len(todo), len(unlabelled), need_models,
                     counts.scored, counts.refit_for_words)


def _without_files(records, plan: Plan, store: RecordStore, archived_ids,
                   need_models: bool) -> set[str]:
    """The planned runs recorded here, not archived, whose labels file is gone (or model
    file, when models are asked for)."""
    def missing(run_id):
        return not store.labels_path(run_id).is_file() or (
            need_models and not store.model_path(run_id).is_file())

    planned = plan.run_ids
    return {r["run_id"] for r in records if r["run_id"] in planned
            and r["run_id"] not in archived_ids and missing(r["run_id"])}


def _check_same_data(records, plan: Plan, store: RecordStore) -> None:
    checksum = plan.corpus.sha256
    planned = plan.run_ids
    other = [r for r in records if r["run_id"] in planned and checksum is not None
             and r.get("dataset_sha256") not in (None, checksum)]
    if other:
        raise DataError(
            f"{store.records_path}: {len(other)} recorded runs were fitted on another copy "
            f"of dataset '{plan.config.dataset}' (its sha256 differs from the file's now): "
            "restore that copy, or start afresh (run without --resume; for a reproduction, "
            "delete its work directory and archive)"
        )


@dataclass
class _Completion:
    """What :func:`_complete` did: metrics added, topic quality added, refits for words."""

    completed: int = 0
    scored: int = 0
    refit_for_words: int = 0


def _complete(records, plan: Plan, store: RecordStore):
    """Records given the metrics and topic quality they lack (from stored labels and
    recorded top words); what was done; the ids to fit again."""
    truth, wanted, planned = plan.corpus.labels, list(plan.config.metrics), plan.run_ids
    stale, counts, out = set(), _Completion(), []
    for record in records:
        if record["run_id"] in planned:
            missing = [] if truth is None else [
                m for m in wanted if m not in (record.get("metrics") or {})]
            unscored = _lacks_quality(record, plan)
            unscorable = unscored and not _can_score(record, plan, store)
            if _lacks_words(record, plan) or unscorable or (
                    missing and not _can_complete(record, plan, store)):
                stale.add(record["run_id"])
                counts.refit_for_words += unscorable
            else:
                if missing:
                    record = _with_metrics(record, missing, truth, store)
                    counts.completed += 1
                if unscored:
                    record = _with_quality(record, plan, store)
                    counts.scored += 1
        out.append(record)
    return out, counts, stale


def _lacks_quality(record, plan: Plan) -> bool:
    scorer = plan.topic_scorer
    return scorer is not None and not scorer.is_current(record.get("topic_quality"))


def _can_score(record, plan: Plan, store: RecordStore) -> bool:
    return (plan.topic_scorer.can_score(record)
            and store.labels_path(record["run_id"]).is_file())


def _with_quality(record, plan: Plan, store: RecordStore) -> dict[str, Any]:
    import time

    started = time.perf_counter()
    entry = plan.topic_scorer.of_top_words(record["top_words"],
                                           store.read_labels(record["run_id"]))
    return {**record, "topic_quality": entry | {"seconds": time.perf_counter() - started}}


def _lacks_words(record, plan: Plan) -> bool:
    return (plan.config.top_words is not None and plan.model_class.capabilities.top_words
            and columns_are_words(plan.config) and "top_words" not in record)


def _can_complete(record, plan: Plan, store: RecordStore) -> bool:
    return plan.stream is None and store.labels_path(record["run_id"]).is_file()


def _with_metrics(record, missing, truth, store: RecordStore) -> dict[str, Any]:
    from shortclust.evaluation.metrics import evaluate

    labels = store.read_labels(record["run_id"])
    if len(labels) != len(truth):
        raise DataError(f"{store.labels_path(record['run_id'])} holds {len(labels)} labels for "
                        f"{len(truth)} documents (truncated or damaged): delete it, and "
                        "--resume fits that run again")
    computed = evaluate(truth, labels, metrics=missing)
    return {**record, "metrics": {**(record.get("metrics") or {}), **computed}}
