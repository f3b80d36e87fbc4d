"""Latent Dirichlet allocation by collapsed Gibbs sampling, batch and online (Banerjee & Basu's LDA baseline)."""
