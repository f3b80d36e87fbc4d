"""K-means variants: spherical K-means on TF-IDF, the IDF- and VSM-weighted baselines, k-means-- with outliers, and minibatch K-means."""
