"""The Ncut-NMF paper's Figures 1 and 2 on Tweet: the tf and idf distributions that motivate
the Ncut weight, and the distribution of the Ncut weights themselves.

Section 1 reads Figure 1 on the Tweets data: about 96% of the tf values (a term's count in
a document) equal 1, and the idf values are dominated by values above 8, about 65% of the
terms sharing the highest idf 11.51 (ln N for a term in one document). Figure 2 (section
3) shows the Ncut weights of the preprocessed Tweets data, "resembling a Gaussian
distribution, and much flatter than idf". Nothing is fitted: the figures are counts of the
corpus, so they depend only on the dataset and its preprocessing.

Figure 1 is drawn on Tweet with the paper's pipeline but without its document-frequency
cut (``ncut(min_df=1)``), since its highest idf is that of terms seen once (which
``df >= 6`` removes); Figure 2 on the preprocessed set (``ncut``, ``df >= 6``), as the
paper says.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shortclust.models.common.term_weights import document_frequencies, idf_weights, ncut_weights

DATASET = "Tweet"
#: Figure 1's preprocessing: the paper's pipeline without the df cut (see the docstring).
FIGURE1_PREPROCESS = "ncut(min_df=1)"
#: Figure 2's: the paper's pipeline (df >= 6, documents of >= 4 words).
FIGURE2_PREPROCESS = "ncut"
#: The paper's readings (section 1): share of tf = 1, share of terms at the highest idf.
PAPER_TF1, PAPER_TOP_IDF_SHARE, PAPER_TOP_IDF = 0.96, 0.65, 11.51
BINS = 30


def tf_shares(counts, largest: int = 5) -> pd.DataFrame:
    """Share of the (term, document) pairs with each tf value, ``largest`` and above pooled.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> tf_shares(sp.csr_matrix([[1, 2, 0], [1, 1, 7]]), largest=3)["share"].tolist()
    [0.6, 0.2, 0.2]
    """
    import scipy.sparse as sp

    values = sp.csr_matrix(counts).data.astype(np.int64)
    pooled = np.minimum(values, largest)
    rows = []
    for tf in range(1, largest + 1):
        share = float(np.mean(pooled == tf)) if values.size else 0.0
        rows.append({"tf": f"{tf}" if tf < largest else f">={largest}", "share": share})
    return pd.DataFrame(rows)


def idf_summary(counts) -> dict:
    """The idf values of the terms that occur, and how many share the highest."""
    df = document_frequencies(counts)
    idf = idf_weights(counts)[df > 0]
    top = float(idf.max()) if idf.size else 0.0
    return {"idf": idf, "top": top,
            "top_share": float(np.mean(np.isclose(idf, top))) if idf.size else 0.0,
            # The paper's "values larger than 8" of its highest 11.51, as a share of ours.
            "above": float(np.mean(idf > top * 8 / PAPER_TOP_IDF)) if idf.size else 0.0}


def histogram_frame(name: str, values: np.ndarray, low: float, high: float) -> pd.DataFrame:
    """Share of the terms per bin of ``values`` (:data:`BINS` equal bins over [low, high])."""
    counts, edges = np.histogram(values, bins=BINS, range=(low, high))
    share = counts / max(values.size, 1)
    return pd.DataFrame({"figure": name, "bin_low": edges[:-1], "bin_high": edges[1:],
                         "share": share})


def write_figures(job, raw, corpus) -> None:
    """Figures 1 and 2 (PNG) and ``figures1_2.md``/``.csv`` from the two corpora."""
    from shortclust.pipeline.plots import pyplot, save_figure
    from shortclust.pipeline.reproduce import markdown_table, provenance_line

    tf = tf_shares(raw.counts)
    idf = idf_summary(raw.counts)
    ncut = ncut_weights(corpus.counts)[document_frequencies(corpus.counts) > 0]
    idf_pre = idf_summary(corpus.counts)
    idf_scaled = idf_pre["idf"] / idf_pre["top"] if idf_pre["top"] > 0 else idf_pre["idf"]
    frames = [tf.assign(figure="1a").rename(columns={"tf": "bin"}),
              histogram_frame("1b", idf["idf"], 0.0, float(np.ceil(idf["top"]))),
              histogram_frame("2 ncut", ncut, 0.0, 1.0),
              histogram_frame("2 idf/max", idf_scaled, 0.0, 1.0)]
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.bar(tf["tf"], tf["share"], color="tab:blue")
    left.set_xlabel("tf (count of a term in a tweet)")
    left.set_ylabel("share of (term, tweet) pairs")
    left.set_title(f"(a) tf: {tf['share'].iloc[0]:.1%} equal 1 (paper: {PAPER_TF1:.0%})",
                   fontsize=9)
    right.hist(idf["idf"], bins=BINS, range=(0.0, float(np.ceil(idf["top"]))),
               weights=np.full(idf["idf"].size, 1 / max(idf["idf"].size, 1)),
               color="tab:orange")
    right.set_xlabel("idf = ln(N / df)")
    right.set_ylabel("share of terms")
    right.set_title(f"(b) idf: {idf['top_share']:.1%} of terms at the highest, "
                    f"{idf['top']:.2f} (paper: {PAPER_TOP_IDF_SHARE:.0%} at {PAPER_TOP_IDF})",
                    fontsize=9)
    figure.suptitle(f"Ncut-NMF paper, Figure 1 on {DATASET} ({raw.counts.shape[0]:,} tweets, "
                    f"{FIGURE1_PREPROCESS}): distributions of tf and idf; counts of the "
                    "corpus, no runs", fontsize=10)
    save_figure(figure, job.figure_path("figure1"))
    figure, axis = plt.subplots(figsize=(6, 3.6))
    weights = {"Ncut weight (Eq. 5, scaled to [0, 1])": ncut, "idf / max idf": idf_scaled}
    for (name, values), colour in zip(weights.items(), ("tab:green", "tab:orange")):
        axis.hist(values, bins=BINS, range=(0.0, 1.0), histtype="step", linewidth=1.6,
                  weights=np.full(values.size, 1 / max(values.size, 1)), label=name,
                  color=colour)
    axis.set_xlabel("term weight")
    axis.set_ylabel("share of terms")
    axis.legend(fontsize=8, loc="upper left")
    axis.set_title(f"Ncut-NMF paper, Figure 2 on {DATASET} ({corpus.counts.shape[0]:,} tweets, "
                   f"{corpus.counts.shape[1]:,} terms after `{FIGURE2_PREPROCESS}`): Ncut "
                   "weights beside idf; no runs", fontsize=9)
    save_figure(figure, job.figure_path("figure2"))
    summary = [
        ["1a", "share of tf values equal to 1", f"{tf['share'].iloc[0]:.3f}", f"{PAPER_TF1:.2f}"],
        ["1b", "highest idf", f"{idf['top']:.2f}", f"{PAPER_TOP_IDF:.2f}"],
        ["1b", "share of terms at the highest idf", f"{idf['top_share']:.3f}",
         f"{PAPER_TOP_IDF_SHARE:.2f}"],
        ["1b", "share of terms with idf > 8/11.51 of the highest", f"{idf['above']:.3f}",
         "most ('dominated by values larger than 8')"],
        ["2", "Ncut weight: mean, std", f"{ncut.mean():.3f}, {ncut.std():.3f}", "-"],
        ["2", "idf / max idf: mean, std", f"{idf_scaled.mean():.3f}, {idf_scaled.std():.3f}",
         "-"],
    ]
    text = "\n".join([
        "# Ncut-NMF paper, Figures 1 and 2: tf, idf and Ncut-weight distributions on Tweet", "",
        markdown_table(["figure", "quantity", "ours", "paper"], summary), "",
        f"Figure 1 (`figure1.png`) on {DATASET} with `{FIGURE1_PREPROCESS}` (the paper's "
        "pipeline without its df >= 6 cut, since the paper's highest idf is that of terms "
        "seen once); Figure 2 (`figure2.png`) on the preprocessed set (`ncut`: df >= 6, "
        "documents of at least 4 words), idf scaled by its maximum for comparison. The "
        "paper's Tweets set (4,520 tweets) is not public; ours is the GSDMM paper's Tweet set "
        f"({raw.counts.shape[0]:,} tweets here). The highest idf is ln N, so it depends on "
        "the set's size (ours is smaller). Histograms: 30 equal bins; the CSV holds every "
        "bin. Nothing is fitted (no runs).",
        provenance_line(job)]) + "\n"
    job.write_table("figures1_2", pd.concat(frames, ignore_index=True), text)
