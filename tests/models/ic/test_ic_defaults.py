"""Iterative classification's defaults give the labels they gave before its options were added.

``ic_default_labels.json`` beside this file holds the labels that the code of commit
15d3609 (before ``variant``, ``selection``, ``p_draw``, ``tfidf`` and
``row_order`` existed) gave for each case below and seeds 0-2; it was written by running
this file as a script against that checkout::

    PYTHONPATH=/path/to/checkout-at-15d3609 python tests/models/ic/test_ic_defaults.py

The cases cover every step the options touch: the draw of P, the Isolation Forest's
seeds, the random trimming, the classifier's seed and warm start, the stopping rule.
"""

import json
from pathlib import Path

import numpy as np

from tests.models.ic.test_iterative_classification import corrupted, planted

REFERENCE = Path(__file__).with_name("ic_default_labels.json")
SEEDS = (0, 1, 2)
#: name -> constructor parameters (besides random_state).
CASES = {
    "defaults": {},
    "fifty_iterations": {"tol": None, "max_iter": 6},
    "lbfgs": {"tol": None, "max_iter": 4, "classifier_params": {"solver": "lbfgs"}},
    "fixed_p_more_outliers": {"tol": None, "max_iter": 4, "P1": 0.6, "P2": 0.6,
                              "outlier_params": {"contamination": 0.2}},
    "no_outliers": {"tol": None, "max_iter": 4, "outlier": "none"},
    "knn": {"tol": None, "max_iter": 3, "classifier": "knn"},
}


def reference_inputs():
    """Counts of planted topics (one empty row) and a 40%-corrupted initial labelling."""
    counts, topics = planted(n_docs=240, n_topics=5, words_per_topic=12, seed=3)
    return counts, corrupted(topics, 0.4, seed=5)


def labels_of_every_case():
    """{case: {seed: labels}} from the IterativeClassification importable here."""
    from shortclust.models.ic.iterative_classification import IterativeClassification

    counts, initial = reference_inputs()
    return {name: {str(seed): IterativeClassification(**params, random_state=seed)
                   .fit(counts, init_labels=initial).labels_.tolist() for seed in SEEDS}
            for name, params in CASES.items()}


def test_the_defaults_reproduce_the_labels_of_the_code_before_the_options():
    expected = json.loads(REFERENCE.read_text())
    assert set(expected) == set(CASES)
    assert labels_of_every_case() == expected


def test_the_reference_cases_are_not_trivial():
    """The stored labels differ between seeds and from the initial labels (else the
    comparison above could not fail)."""
    expected = json.loads(REFERENCE.read_text())
    _, initial = reference_inputs()
    for by_seed in expected.values():
        assert any(np.any(np.asarray(labels) != initial) for labels in by_seed.values())
    assert expected["fifty_iterations"]["0"] != expected["fifty_iterations"]["1"]


if __name__ == "__main__":
    REFERENCE.write_text(json.dumps(labels_of_every_case(), sort_keys=True) + "\n")
