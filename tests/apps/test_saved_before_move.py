"""Model files saved before the models moved into family folders still load and predict alike.

``saved_before_move/`` holds a GSDMM and a K-means model that ``shortclust cluster`` wrote at
commit 9aa44ff (the flat ``shortclust/models/`` layout), on 60 synthetic texts of three
topics, and what ``shortclust predict`` printed there for 20 new texts. A model file names
its model by registry name, not by module path, so the move must not change a byte of what
predict writes.
"""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from shortclust.cli import app

HERE = Path(__file__).resolve().parent / "saved_before_move"


@pytest.mark.parametrize("model", ["gsdmm", "kmeans"])
def test_a_model_saved_before_the_move_predicts_as_it_did(model, tmp_path):
    output = tmp_path / "assignments.csv"
    result = CliRunner().invoke(app, ["predict", str(HERE / f"{model}_model.zip"),
                                      str(HERE / "new_texts.csv"), "--output", str(output),
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert output.read_bytes() == (HERE / f"{model}_new_assignments.csv").read_bytes()
