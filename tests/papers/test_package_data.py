"""An installed copy reproduces from package data: every config and archive must ship."""

import fnmatch
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "shortclust" / "_packaged"


def _globs():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return pyproject["tool"]["setuptools"]["package-data"]["shortclust"]


def _covered(relative: str) -> bool:
    # setuptools' globs: '*' does not cross a '/', as fnmatch on each part
    parts = relative.split("/")
    return any(len(g.split("/")) == len(parts) and
               all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts, g.split("/")))
               for g in _globs())


def test_the_packaged_links_lead_to_the_checkouts_configs_and_results():
    assert (PACKAGED / "configs").resolve() == (REPO / "configs").resolve()
    assert (PACKAGED / "results").resolve() == (REPO / "results").resolve()


def test_every_paper_config_and_archived_record_is_package_data():
    wanted = [p for p in (REPO / "configs").rglob("*.yaml")]
    wanted += [p for p in (REPO / "results").glob("*/records/*")]
    wanted += list((REPO / "results").glob("*/timing.csv"))
    assert len(wanted) > 100
    missing = [str(p.relative_to(REPO)) for p in wanted
               if not _covered("_packaged/" + str(p.relative_to(REPO)))]
    assert not missing, f"not shipped by pip install (add a glob to pyproject.toml): {missing}"


def test_the_check_itself_tells_a_stray_file():
    assert _covered("_packaged/results/gsdmm/records/gsdmm_Tweet.json")
    assert not _covered("_packaged/results/gsdmm/records/deeper/x.json")
    assert not _covered("_packaged/results/gsdmm/table2.md")
