"""The exponential-family approximation of the Dirichlet compound multinomial (EDCM; Banerjee & Basu): batch and online EM."""
