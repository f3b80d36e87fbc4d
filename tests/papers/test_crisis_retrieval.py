"""CrisisLexT26 retrieval: queries from labels, hazard mapping, cutoffs, and the ordering
plain query likelihood < perfect clusters on a small synthetic event stream."""

import io

import numpy as np
import pytest

from shortclust.data.corpus import Corpus
from shortclust.evaluation.ranking import RANKING_METRICS
from shortclust.evaluation.retrieval import Smoothing, SmoothingGrid
from shortclust.papers.dct.crisis_retrieval import (HAZARD_EVENTS, answerable, crisis_queries,
                                                     cutoff_positions, event_query_text, main,
                                                     perfect_clusters, random_clusters,
                                                     retrieval_table, run_crisis_retrieval)

CRISIS_LABELS = [
    "2012_Italy_earthquakes", "2012_Colorado_wildfires", "2012_Philipinnes_floods",
    "2012_Venezuela_refinery", "2012_Costa_Rica_earthquake", "2012_Guatemala_earthquake",
    "2012_Typhoon_Pablo", "2013_Queensland_floods", "2013_Brazil_nightclub_fire",
    "2013_Russia_meteor", "2013_Boston_bombings", "2013_West_Texas_explosion",
    "2013_Savar_building_collapse", "2013_Singapore_haze", "2013_Alberta_floods",
    "2013_Lac_Megantic_train_crash", "2013_Spain_train_crash", "2013_Manila_floods",
    "2013_Colorado_floods", "2013_Australia_bushfire", "2013_Bohol_earthquake",
    "2013_LA_airport_shootings", "2013_Typhoon_Yolanda", "2013_Sardinia_floods",
    "2013_Glasgow_helicopter_crash", "2013_NY_train_crash"]


def test_event_queries_come_from_the_labels():
    assert event_query_text("2013_Lac_Megantic_train_crash") == "Lac Megantic train crash"
    specs = crisis_queries(CRISIS_LABELS, "basic")
    by_name = {s.name: s for s in specs}
    assert by_name["2013_Boston_bombings"].tokens == ("boston", "bombings")
    assert by_name["2012_Philipinnes_floods"].tokens == ("philippines", "floods")
    assert by_name["train crash"].relevant_labels == HAZARD_EVENTS["train crash"]
    assert [s.kind for s in specs].count("hazard") == 6


def test_every_hazard_event_is_a_crisislex_event_once():
    typed = [event for events in HAZARD_EVENTS.values() for event in events]
    assert len(typed) == len(set(typed)) and set(typed) <= set(CRISIS_LABELS)
    with pytest.raises(Exception, match="use CrisisLexT26"):
        crisis_queries(["2013_Boston_bombings"], "basic")


def test_cutoffs_split_the_stream_evenly():
    assert cutoff_positions(10, 5) == [2, 4, 6, 8, 10]
    assert cutoff_positions(7, 2) == [4, 7]


def _event_stream(rng, per_event=40):
    """Three events in time order; half of each event's tweets lack its name."""
    events = {"2013_Alpha_floods": "alpha", "2013_Beta_floods": "beta",
              "2013_Gamma_quake": "gamma"}
    texts, labels, times = [], [], []
    day = 0
    for label, name in events.items():
        own = [f"{name}word{i}" for i in range(4)]
        for i in range(per_event):
            words = list(rng.choice(own, size=3)) + list(rng.choice(
                ["water", "help", "people", "news", "today"], size=3))
            if i % 2 == 0:
                words.append(name)
            texts.append(" ".join(words))
            labels.append(label)
            times.append(f"2013-01-{1 + day // 4:02d}T00:00:00")
            day += 1
    hazards = {"flood": ("2013_Alpha_floods", "2013_Beta_floods")}
    return Corpus.from_texts(texts, labels, times, "basic"), hazards


def test_perfect_clusters_find_what_plain_likelihood_cannot():
    corpus, hazards = _event_stream(np.random.default_rng(0))
    out = io.StringIO()
    specs = answerable(crisis_queries(corpus.label_names, "basic", hazards), corpus, out)
    assert "flood" not in [s.name for s in specs]  # no tweet has the word: left out, said
    assert "query 'flood'" in out.getvalue()
    specs = [s for s in specs if s.kind == "event"]
    plain = retrieval_table(corpus, specs, None, [Smoothing(0.0, 10.0)], n_cutoffs=3)
    perfect = retrieval_table(corpus, specs, perfect_clusters(corpus),
                              [Smoothing(0.5, 10.0)], n_cutoffs=3)
    random = retrieval_table(corpus, specs, random_clusters(corpus, 3, seed=1),
                             [Smoothing(0.5, 10.0)], n_cutoffs=3)
    ap = RANKING_METRICS.index("map")
    assert np.allclose(perfect[0, :, ap], 1.0)
    # Half the tweets hold the name: plain likelihood finds those first, then guesses.
    assert 0.5 < plain[0, :, ap].mean() < 0.9
    # Random clusters mix the events: their cluster model finds nothing the text does not.
    assert perfect[0, :, ap].mean() > plain[0, :, ap].mean() + 0.1
    assert random[0, :, ap].mean() < plain[0, :, ap].mean() + 0.03


def test_run_reports_tuned_means_and_main_fails_in_one_line(tmp_path, capsys):
    corpus, hazards = _event_stream(np.random.default_rng(1), per_event=30)
    out = io.StringIO()
    grid = SmoothingGrid(lams=(0.0, 0.5), mus=(10.0,), bs=(1.0,))
    results = run_crisis_retrieval(corpus, {"LM": None, "perfect": perfect_clusters(corpus)},
                                   grid, n_cutoffs=2, n_repeats=1, hazards={}, out=out,
                                   n_folds=3, n_validation_folds=1)
    assert results["perfect"]["event"]["map"] > results["LM"]["event"]["map"]
    assert "| perfect |" in out.getvalue()
    # Figure 5's measurement: at lambda 0 the clusters have no weight, so any clusters
    # give plain query likelihood's results (the paper's Figure 5 starts from LM's).
    by_lambda = results["perfect"]["by_lambda"]
    assert set(by_lambda) == {"0.0", "0.5"} and "by_lambda" not in results["LM"]
    assert by_lambda["0.0"]["event"] == results["LM"]["event"]
    assert by_lambda["0.5"]["event"]["map"] > by_lambda["0.0"]["event"]["map"]
    assert main(["--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_on_crisislext26_true_events_beat_plain_likelihood(data_dir):
    from shortclust.data import load_corpus

    corpus = load_corpus("CrisisLexT26", "basic", data_dir)
    specs = [s for s in answerable(crisis_queries(corpus.label_names, "basic"), corpus)
             if s.kind == "event"]
    assert len(specs) == 26
    ap = RANKING_METRICS.index("map")
    plain = retrieval_table(corpus, specs, None, [Smoothing(0.0, 100.0)], n_cutoffs=2)
    perfect = retrieval_table(corpus, specs, perfect_clusters(corpus), [Smoothing(0.9, 0.0)],
                              n_cutoffs=2)
    assert np.nanmean(perfect[0, :, ap]) > np.nanmean(plain[0, :, ap]) + 0.3
