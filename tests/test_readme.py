"""The README's ten lines of Python run, and print what their comments say."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_python_api_block_runs_as_its_comments_say(tmp_path, monkeypatch):
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(import shortclust\n.*?)```", text, re.S).group(1)
    assert len(block.strip().splitlines()) <= 10
    monkeypatch.chdir(tmp_path)  # the block saves model.zip in the working directory
    namespace = {}
    exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - our own README
    clusterer = namespace["clusterer"]
    assert clusterer.labels_.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert [w for w, _ in clusterer.top_words(2)[0]] == ["apple", "pie"]
    assert clusterer.predict(["apple tart with cream", "a football cup"]).tolist() == [0, 1]
    loaded = namespace["shortclust"].TextClusterer.load(tmp_path / "model.zip")
    assert np.round(loaded.predict_proba(["apple tart"])[0, 0], 2) >= 0.99
