"""Mixtures of von Mises-Fisher distributions (Banerjee & Basu): batch and online movMF, their EM and density helpers."""
