"""Dirichlet multinomial mixtures: GSDMM and GSDPMM (Yin & Wang), DCT and TTM (Liang et al.), MStream and MStreamF (Yin et al.), and the collapsed Gibbs kernels they share."""
