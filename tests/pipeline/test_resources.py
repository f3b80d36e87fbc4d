"""FitResources measures CPU time and the memory a block adds, in a fresh process."""

import json
import subprocess
import sys

PROGRAM = """
import json, numpy as np
from shortclust.pipeline.resources import FitResources
with FitResources() as small:
    pass
with FitResources() as big:
    block = np.ones(200 * 2**20 // 8)  # 200 MiB, resident once written
    total = float(block.sum())
print(json.dumps({"small": small.peak_mb, "big": big.peak_mb, "cpu": big.cpu_seconds}))
"""


def test_a_block_that_allocates_200_mib_reports_about_that_much():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                         check=True, timeout=120)
    measured = json.loads(out.stdout.strip().splitlines()[-1])
    assert measured["cpu"] >= 0
    if measured["big"] is None:  # no /proc peak reset on this system: nothing to check
        return
    assert 180 <= measured["big"] <= 260
    assert measured["small"] < 20
