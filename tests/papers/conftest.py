"""Paper tests build their reproductions on empty results folders of their own.

A results folder other than the checkout's starts from a copy of the committed archives
(:meth:`~shortclust.pipeline.reproduce.Reproduction.seeded`, tested in
``tests/pipeline/test_reproduce.py``); here that copy would mix the committed runs and
timings into what each test writes, so it is turned off.
"""

import pytest


@pytest.fixture(autouse=True)
def _no_committed_archives(monkeypatch):
    from shortclust.pipeline.reproduce import Reproduction

    monkeypatch.setattr(Reproduction, "seeded",
                        lambda self, relative: self.results_dir / self.paper / relative)
