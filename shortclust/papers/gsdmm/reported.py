"""What the GSDMM paper (Yin & Wang, KDD 2014) reports, transcribed, each with its source.

Its Tables 2 and 3 give numbers; its Figures 2-10 give none, so for them the paper's
reading of each figure is kept as text and tested on ours. GSDPMM's numbers come from
another paper (Rakib et al., the iterative-classification paper), as noted there.
"""

from __future__ import annotations

#: The paper's names for our datasets (section 4.1), in the order of its tables.
DATASETS = {"GoogleNews-T": "TitleSet", "GoogleNews-S": "SnippetSet",
            "GoogleNews-TS": "TitleSnippetSet", "Tweet": "TweetSet"}
#: Table 2's datasets, and the four of Figures 3-10.
GOOGLE_NEWS = ["GoogleNews-T", "GoogleNews-S", "GoogleNews-TS"]
FOUR = GOOGLE_NEWS + ["Tweet"]
#: True numbers of clusters (section 4.1).
TRUE_K = {"GoogleNews-T": 152, "GoogleNews-S": 152, "GoogleNews-TS": 152, "Tweet": 89}

#: Table 2's metrics, and how the paper (and our tables) abbreviate metrics.
TABLE2_METRICS = ["nmi", "homogeneity", "completeness", "ari", "ami"]
SHORT = {"nmi": "NMI", "homogeneity": "H", "completeness": "C", "ari": "ARI", "ami": "AMI",
         "ami_max": "AMI (max)"}

#: Table 2 of the paper: (mean, std) per dataset, model and metric.
TABLE2_PAPER = {
    "GoogleNews-T": {
        "GSDMM": {"nmi": (0.874, 0.007), "homogeneity": (0.853, 0.010),
                  "completeness": (0.896, 0.006), "ari": (0.693, 0.043), "ami": (0.831, 0.012)},
        "K-means": {"nmi": (0.732, 0.007), "homogeneity": (0.692, 0.009),
                    "completeness": (0.775, 0.006), "ari": (0.133, 0.030), "ami": (0.639, 0.011)},
        "DMAFP": {"nmi": (0.852, 0.009), "homogeneity": (0.831, 0.010),
                  "completeness": (0.875, 0.007), "ari": (0.657, 0.051), "ami": (0.814, 0.015)},
    },
    "GoogleNews-S": {
        "GSDMM": {"nmi": (0.896, 0.006), "homogeneity": (0.871, 0.008),
                  "completeness": (0.921, 0.005), "ari": (0.746, 0.014), "ami": (0.853, 0.009)},
        "K-means": {"nmi": (0.759, 0.008), "homogeneity": (0.754, 0.009),
                    "completeness": (0.764, 0.009), "ari": (0.262, 0.017), "ami": (0.708, 0.008)},
        "DMAFP": {"nmi": (0.868, 0.008), "homogeneity": (0.846, 0.011),
                  "completeness": (0.892, 0.007), "ari": (0.703, 0.018), "ami": (0.819, 0.012)},
    },
    "GoogleNews-TS": {
        "GSDMM": {"nmi": (0.928, 0.004), "homogeneity": (0.911, 0.005),
                  "completeness": (0.945, 0.003), "ari": (0.789, 0.018), "ami": (0.897, 0.006)},
        "K-means": {"nmi": (0.834, 0.005), "homogeneity": (0.836, 0.005),
                    "completeness": (0.832, 0.005), "ari": (0.370, 0.029), "ami": (0.800, 0.006)},
        "DMAFP": {"nmi": (0.901, 0.008), "homogeneity": (0.889, 0.006),
                  "completeness": (0.912, 0.004), "ari": (0.736, 0.023), "ami": (0.847, 0.009)},
    },
}

#: Figures 3-10, one pair per sweep item: (figure of clusters found, figure of quality,
#: dataset of the quality figure (None: NMI on all four), the paper's reading of each).
SWEEP_FIGURES = {
    "iterations": ("figure3", "figure4", None,
                   "the number of clusters drops quickly and is almost stable within about "
                   "ten iterations",
                   "NMI is good after two iterations and stable after about five, with "
                   "standard deviations near zero"),
    "k": ("figure5", "figure6", "GoogleNews-TS",
          "clusters found grow with K and level off near the true number (152 for Google "
          "News, 89 for Tweet) once K is large enough",
          "at small K homogeneity is low and completeness high; once K exceeds the true "
          "number both are high"),
    "alpha": ("figure7", "figure8", "Tweet",
              "clusters found grow slightly with alpha on TweetSet and TitleSet and stay "
              "stable on SnippetSet and TitleSnippetSet",
              "performance is stable across alpha in [0, 1]"),
    "beta": ("figure9", "figure10", "Tweet",
             "clusters found drop as beta grows",
             "completeness grows and homogeneity drops as beta grows"),
}
#: The x axis of each sweep's figures (the swept model parameter -> the paper's label).
XLABEL = {"max_iter": "iterations", "n_clusters": "initial K", "alpha": "alpha",
          "beta": "beta"}

#: Table 3 of the paper: running time in minutes on 1, 2, 4, ..., 256 copies of the
#: TitleSet (None: the paper's N/A, did not scale).
COPIES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
TABLE3_PAPER = {
    "gsdmm": [0.092, 0.179, 0.354, 0.711, 1.424, 2.836, 5.688, 11.346, 23.203],
    "dmafp": [1.346, 2.565, 5.090, 9.947, 19.447, 38.991, 77.503, 154.275, 308.651],
    "kmeans": [0.399, 0.773, 1.423, 2.954, 6.147, 11.509, 24.072, 49.259, None],
    "minibatch_kmeans": [0.027, 0.032, 0.041, 0.059, 0.094, 0.182, 0.340, 1.197, None],
}
#: Documents in one copy of the TitleSet.
TITLESET_DOCS = 11109

#: GSDPMM as reported by Rakib et al. (file 004, Tables 4 and 5): (mean, std) in percent.
GSDPMM_REPORTED = {
    "Tweet": {"acc": (84.39, 2.19), "nmi": (86.13, 1.91)},
    "GoogleNews-TS": {"acc": (79.51, 2.73), "nmi": (91.92, 2.25)},
    "GoogleNews-T": {"acc": (74.88, 1.93), "nmi": (86.19, 2.07)},
    "GoogleNews-S": {"acc": (71.04, 2.16), "nmi": (86.69, 2.21)},
}
