"""Slow, obvious reference implementations that the compiled kernels are tested against.

One module per model family: :mod:`~tests.naive.gsdmm` (GSDMM's ``fit``),
:mod:`~tests.naive.partial` (its ``partial_fit``), :mod:`~tests.naive.gsdpmm`,
:mod:`~tests.naive.logistic` (multinomial SAG), :mod:`~tests.naive.sparsify` (the k-NN and
SD sparsifiers), :mod:`~tests.naive.ncut` (Ncut-weighted NMF), :mod:`~tests.naive.rlsi`,
:mod:`~tests.naive.movmf` (the online vMF pass), :mod:`~tests.naive.edcm` (EDCM mixture:
EM, the s fixed point, the online pass), :mod:`~tests.naive.lda` (LDA by collapsed
Gibbs sampling, incremental LDA) and :mod:`~tests.naive.dct` (DCT's stream: Eq. 5/8, the
fixed point of Appendix B, Eq. 9-11).
Written for clarity, not speed; each consumes the random generator exactly as its model
does, so the same seed must give the same result.
"""
