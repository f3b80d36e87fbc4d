"""Dirichlet multinomial mixtures: GSDMM and GSDPMM (Yin & Wang), DCT and TTM (Liang et al.), and the collapsed Gibbs kernels they share."""
