"""Iterative classification (Rakib et al.): outlier removal, classifier retraining, and its logistic regression."""
