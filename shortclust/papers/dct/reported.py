"""What Liang, Yilmaz & Kanoulas, "Dynamic Clustering of Streaming Short Documents" (KDD
2016), report, and the one outside figure the tables quote.

The paper evaluates DCT only extrinsically, on a collection that is not public (107 queries
over 90 days of a 1% Twitter sample, judged at five cutoff days): retrieval (its Table 2,
Figures 4-6) and perplexity (Figure 7, printed as a plot without numbers). Its clustering
quality against labels was never measured; we measure it on labelled streams.

Table 2's cells are transcribed from the paper's text layer, which prints the table out of
order: each metric's six values are assigned to the six rows (LM, LDA, TMS, DMM, TTM, DCT)
so that every column increases in the order the paper states for all five metrics ("DCT >
TTM > DMM > TMS >= LDA > LM", section 6.1).
"""

from __future__ import annotations

#: The retrieval methods of the paper's Table 2, in its row order.
METHODS = ("LM", "LDA", "TMS", "DMM", "TTM", "DCT")
#: Its metrics, in its column order (our names: :mod:`shortclust.evaluation.ranking`).
METRICS = ("ndcg", "map", "recall", "rprec", "p30")

#: Table 2: mean over the five test cutoff days, 107 queries (a re-ranked top-500 pool per
#: query and day); DCT's cells are significantly above TTM's (p < .01).
TABLE2 = {
    "LM": {"ndcg": 0.4446, "map": 0.2241, "recall": 0.3092, "rprec": 0.3534, "p30": 0.2772},
    "LDA": {"ndcg": 0.5018, "map": 0.2749, "recall": 0.3439, "rprec": 0.3976, "p30": 0.3171},
    "TMS": {"ndcg": 0.5286, "map": 0.2991, "recall": 0.3604, "rprec": 0.4152, "p30": 0.3353},
    "DMM": {"ndcg": 0.5715, "map": 0.3416, "recall": 0.3854, "rprec": 0.4460, "p30": 0.3685},
    "TTM": {"ndcg": 0.5936, "map": 0.3638, "recall": 0.4019, "rprec": 0.4648, "p30": 0.3928},
    "DCT": {"ndcg": 0.6421, "map": 0.4132, "recall": 0.4298, "rprec": 0.5021, "p30": 0.4277},
}

#: The streams of the issue's bar (DCT's NMI at least 0.82 on each). No NMI of DCT from
#: another paper is quoted beside ours: the MStream paper's numbers once quoted here could
#: not be traced to a table of a paper we hold.
BAR_STREAMS = ("MStream-News-T", "MStream-Tweets-T")

#: NMI (mean ± std over 10 trials) of MStream and MStreamF on the -T streams: Table 2 of the
#: MStream paper (Yin, Chao, Liu, Zhang, Yu & Wang, "Model-based clustering of short text
#: streams", KDD 2018), read from the PDF its authors ship with their code
#: (github.com/jackyin12/MStream @ ac89407, "SIGKDD18 Model-based Clustering of Short Text
#: Streams.pdf"; not in ``../shared/papers``): alpha = beta = 0.03, 10 iterations per batch,
#: one stored batch for MStreamF, 16 batches; its NMI (Eq. 6) is normalised by the geometric
#: mean of the entropies. Model -> dataset -> (mean, std).
MSTREAM_TABLE2 = {
    "MStream": {"MStream-News-T": (0.850, 0.004), "MStream-Tweets-T": (0.882, 0.004)},
    "MStreamF": {"MStream-News-T": (0.873, 0.003), "MStream-Tweets-T": (0.923, 0.003)},
}
