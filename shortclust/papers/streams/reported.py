"""What Banerjee & Basu, "Topic Models over Text Streams" (SDM 2007), report.

Tables 2 and 4 are transcribed from the paper (section 4.3); Table 3's words are kept for
the reader beside ours. slash-7 and slash-6 (Slashdot, harvested by the authors) cannot be
obtained: their rows are the paper's only. Section 4.1 gives each dataset's size after
preprocessing, which the tables show beside ours.
"""

from __future__ import annotations

#: The paper's datasets, in its order -> our registry name (None: not available).
DATASETS = {"news-20": "20NG-news20", "subset-20": "20NG-subset20", "sim-3": "20NG-sim3",
            "rel-3": "20NG-rel3", "diff-3": "20NG-diff3", "slash-7": None, "slash-6": None}
#: Short-text streams we add as extra columns (not in the paper).
EXTRA_DATASETS = {"MStream-News-T": "MStream-News-T", "CrisisLexT26": "CrisisLexT26"}
#: Section 4.1: (documents, dimensions, clusters) after the paper's preprocessing.
SIZES = {"news-20": (19941, 25936, 20), "subset-20": (1997, 13341, 20),
         "rel-3": (2996, 10091, 3), "sim-3": (2980, 5950, 3), "diff-3": (2995, 7670, 3),
         "slash-7": (6714, 5769, 7), "slash-6": (5182, 4498, 6)}

#: The three model families, as the tables name them.
BATCH = ["vMF", "EDCM", "LDA"]
ONLINE = ["o-vMF", "o-EDCM", "o-LDA"]

#: Table 2 (batch, averaged over 5 runs): dataset -> model -> (nMI, run time in seconds).
TABLE2 = {
    "news-20": {"vMF": (0.51, 204), "EDCM": (0.54, 934), "LDA": (0.53, 352)},
    "subset-20": {"vMF": (0.41, 14), "EDCM": (0.36, 25), "LDA": (0.43, 34)},
    "sim-3": {"vMF": (0.27, 2), "EDCM": (0.12, 4), "LDA": (0.11, 15)},
    "rel-3": {"vMF": (0.38, 3), "EDCM": (0.30, 9), "LDA": (0.28, 17)},
    "diff-3": {"vMF": (0.82, 1), "EDCM": (0.81, 7), "LDA": (0.74, 16)},
    "slash-7": {"vMF": (0.39, 15), "EDCM": (0.22, 40), "LDA": (0.31, 47)},
    "slash-6": {"vMF": (0.65, 6), "EDCM": (0.36, 26), "LDA": (0.46, 36)},
}

#: Table 4 (online, averaged over 5 epochs): dataset -> model -> (nMI, seconds per document).
TABLE4 = {
    "news-20": {"o-vMF": (0.54, 0.011), "o-EDCM": (0.39, 0.565), "o-LDA": (0.30, 0.010)},
    "subset-20": {"o-vMF": (0.42, 0.032), "o-EDCM": (0.27, 0.361), "o-LDA": (0.29, 0.041)},
    "sim-3": {"o-vMF": (0.17, 0.014), "o-EDCM": (0.09, 0.053), "o-LDA": (0.08, 0.011)},
    "rel-3": {"o-vMF": (0.31, 0.019), "o-EDCM": (0.16, 0.092), "o-LDA": (0.19, 0.012)},
    "diff-3": {"o-vMF": (0.72, 0.009), "o-EDCM": (0.62, 0.061), "o-LDA": (0.60, 0.008)},
    "slash-7": {"o-vMF": (0.34, 0.007), "o-EDCM": (0.16, 0.048), "o-LDA": (0.12, 0.006)},
    "slash-6": {"o-vMF": (0.54, 0.005), "o-EDCM": (0.25, 0.035), "o-LDA": (0.30, 0.004)},
}

#: Table 3: five topics of batch vMF on slash-7, their ten highest-weighted words each (the
#: printed table has no header row: its first line holds each topic's first word).
TABLE3 = [
    ["music", "apple", "itunes", "riaa", "ipod", "wikipedia", "digital", "napster", "file",
     "drm"],
    ["web", "google", "search", "yahoo", "site", "online", "sites", "ebay", "amazon",
     "engine"],
    ["scientists", "nasa", "space", "researchers", "science", "years", "earth", "found",
     "brain", "university"],
    ["internet", "broadband", "domain", "net", "network", "verisign", "bittorrent", "icann",
     "service", "access"],
    ["games", "gaming", "game", "nintendo", "sony", "xbox", "gamers", "wii", "console",
     "video"],
]

#: Figure 1: h-vMF runs one OFFLINE iteration after every 20% of the stream.
OFFLINE_EVERY = 0.2
