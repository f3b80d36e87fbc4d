"""results/defaults/heldout.md is what benchmarks/heldout_auto.py --no-fit makes of its
archived records, byte for byte, and its verdicts follow from the records."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module():
    spec = importlib.util.spec_from_file_location("heldout_auto",
                                                  ROOT / "benchmarks" / "heldout_auto.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_heldout_table_regenerates_from_its_records():
    module = _module()
    records = json.loads(module.RECORDS.read_text(encoding="utf-8"))
    assert module.table(records) == module.TABLE.read_text(encoding="utf-8")


def test_heldout_sets_are_not_the_sets_that_chose_the_thresholds():
    module = _module()
    chose_stop = {"Tweet", "GoogleNews", "SearchSnippets", "AgNews"}
    chose_k = {"Tweet", "GoogleNews"}
    records = json.loads(module.RECORDS.read_text(encoding="utf-8"))
    assert not {r["dataset"] for r in records["stop_words"]} & chose_stop
    assert not {r["dataset"].split("-")[0] for r in records["k"]} & chose_k
