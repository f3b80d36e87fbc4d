"""Hierarchical agglomerative clustering: plain HAC, Ward and the sparsified similarity graphs (SD and k-NN) of Rakib et al."""
