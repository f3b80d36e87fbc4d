"""Matrix factorisation clusterers: Ncut-weighted NMF (Yan et al.) and RLSI."""
