"""What the Ncut-weighted NMF paper (Yan, Guo, Liu, Cheng, Wang, CIKM 2012) reports.

Tables 1-3 are transcribed; Figure 3 has no numbers in the text, so its reading (section
4.4) is kept as statements that the reproduction tests on ours.
"""

from __future__ import annotations

#: The paper's six methods (section 4.1.2, Table 3, Figure 3), in its order.
METHODS = ["NMF+nc", "NMF+idf", "NMF+01", "RLSI+idf", "RLSI+nc", "Kmeans+idf"]
#: The claim tested on ours (section 4.4, word for word but the quotation marks).
CLAIM = ("NMF+nc outperforms all the baselines significantly in all evaluation metrics, "
         "especially when K is larger than 3")
#: The methods NMF+nc is claimed to beat: "all the baselines" of section 4.1.2 (Kmeans+idf,
#: RLSI+idf and RLSI+nc, NMF+01 and NMF+idf), i.e. every other method of the paper.
CLAIM_BASELINES = [m for m in METHODS if m != "NMF+nc"]
#: Figure 3's metrics, and how the tables name metrics.
METRICS = ["purity", "nmi", "ari"]
SHORT = {"purity": "Purity", "nmi": "NMI", "ari": "ARI", "acc": "ACC"}

#: Table 1 of the paper (after its preprocessing).
TABLE1_PAPER = {"Tweets": {"docs": 4520, "words": 2502, "avg_words": 8.5958,
                           "classes": None},
                "Titles": {"docs": 2630, "words": 1403, "avg_words": 5.2684, "classes": 9}}
#: Table 2 of the paper: term -> (idf, idf rank, Ncut weight, Ncut rank, delta rank).
TABLE2_PAPER = {
    "humidity": (5.238, 2054, 0.147, 640, +1414),
    "pittsburgh": (5.931, 1454, 0.130, 988, +466),
    "video": (6.625, 659, 0.200, 161, +498),
    "cap": (6.626, 524, 0.141, 764, -240),
    "org": (6.114, 1217, 0.108, 1477, -260),
    "refuse": (6.018, 1380, 0.103, 1578, -198),
}
#: Table 3 of the paper: top-5 words of four clusters per method, Tweets, K = 15.
TABLE3_CLUSTERS = ["egyptian unrest", "market", "weather", "football"]
TABLE3_PAPER = {
    "Kmeans+idf": ["egyptian egypt mubarak cairo protest", "player deal market review press",
                   "super bowl wind humidity temperature", "green bay packer super bowl"],
    "RLSI+idf": ["president egyptian mubarak cairo party", "market sale plan business party",
                 "february weather temperature issue humidity", "buy super bowl party fan"],
    "RLSI+nc": ["president mubarak egyptian cairo hosni", "market business report medium social",
                "temperature humidity barometer hpa mais", "bowl super packer bay xlv"],
    "NMF+01": ["egypt egyptian mubarak president cairo", "market report social medium online",
               "wind humidity rain temperature mph", "green bay packer red yellow"],
    "NMF+idf": ["egyptian egypt mubarak president protester",
                "market business social medium company",
                "wind humidity temperature rain mph", "green bay packer steelers pittsburgh"],
    "NMF+nc": ["egyptian cairo mubarak president protester",
               "market business company website social",
               "temperature humidity wind barometer hpa", "bowl super packer bay xlv"],
}
#: What the paper reads from Figure 3 (section 4.4), as testable statements.
FIGURE3_READING = (
    f"{CLAIM}; RLSI+nc shows great improvement over RLSI+idf; "
    "NMF+idf is slightly better than NMF+01; Kmeans works worst")
LAMBDA_CLAIM = "different lambdas in (0.1, 10) cause the results change slightly"

