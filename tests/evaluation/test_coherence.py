"""Topic quality (shortclust.evaluation.coherence) against gensim's CoherenceModel and by hand."""

import math
from itertools import permutations

import numpy as np
import pytest

from shortclust.data.corpus import Corpus
from shortclust.evaluation.coherence import (
    EPSILON, Reference, cluster_topics, topic_diversity, topic_quality,
)

# Short news-like titles, already tokenised; two are empty (gensim counts them in N too) and
# one repeats a word (a boolean document counts it once).
TITLES = [
    "stocks fall as oil prices rise", "oil prices hit record high", "stocks rally on bank earnings",
    "bank earnings beat forecasts", "central bank raises interest rates",
    "interest rates rise again", "oil output cut by producers", "producers cut oil output again",
    "team wins cup final", "cup final goes to penalties", "coach praises team after final",
    "team coach resigns", "striker scores twice in cup win", "striker injury worries coach",
    "new phone launched with bigger screen", "phone screen cracks easily",
    "company launches new laptop", "laptop sales fall", "phone sales rise in china",
    "china trade talks resume", "trade talks stall over tariffs", "tariffs hit china exports",
    "exports fall as tariffs bite", "", "rain rain rain all week", "",
    "week of rain floods roads", "roads closed after floods", "oil spill closes roads",
    "bank profits rise", "stocks fall again",
]
TEXTS = [title.split() for title in TITLES]
TOPICS = [
    ["oil", "prices", "output", "producers", "cut"],
    ["bank", "earnings", "interest", "rates", "stocks", "rise"],
    ["team", "cup", "final", "coach", "striker", "penalties", "win"],
    ["phone", "screen", "laptop", "sales", "new"],
    ["china", "trade", "tariffs", "exports"],  # four words: topics of unequal length
    ["rain", "floods", "roads", "week", "oil", "team"],  # a poor topic: low coherence
]


@pytest.fixture(scope="module")
def corpus():
    return Corpus.from_texts(TITLES)


def gensim_coherence(topics, measure, window_size):
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    model = CoherenceModel(topics=topics, texts=TEXTS, dictionary=Dictionary(TEXTS),
                           coherence=measure, window_size=window_size, processes=1,
                           topn=max(len(topic) for topic in topics))
    return model.get_coherence_per_topic(), model.get_coherence()


def test_the_corpus_keeps_every_title_as_gensim_does(corpus):
    assert corpus.n_docs == len(TEXTS)  # empty titles stay: both count them in N


@pytest.mark.parametrize("ours, measure", [("npmi", "c_npmi"), ("c_v", "c_v")])
def test_npmi_and_c_v_equal_gensims_on_short_texts(corpus, ours, measure):
    # Every title is shorter than the window, so a window is a whole title (c_v's default
    # window is 110; c_npmi's 10 is set here to the longest title's length or more).
    assert max(len(text) for text in TEXTS) <= 10
    per_topic, overall = gensim_coherence(TOPICS, measure, window_size=110)
    reference = Reference(corpus.counts, corpus.vocabulary)
    np.testing.assert_allclose(reference.per_topic(TOPICS)[ours], per_topic, rtol=0, atol=1e-6)
    quality = reference.quality(TOPICS, [ours])
    assert quality[ours] == pytest.approx(overall, abs=1e-6)
    assert len(set(np.round(per_topic, 3))) == len(TOPICS)  # the topics really differ


def test_npmi_with_gensims_default_window_of_10_too(corpus):
    per_topic, _ = gensim_coherence(TOPICS, "c_npmi", window_size=10)
    ours = Reference(corpus.counts, corpus.vocabulary).per_topic(TOPICS)["npmi"]
    np.testing.assert_allclose(ours, per_topic, rtol=0, atol=1e-6)


def test_npmi_and_c_v_by_hand(corpus):
    """The definitions written out with Python floats, independently of the vectorised code."""
    documents = [set(text) for text in TEXTS]
    n = len(documents)

    def p(*words):
        return sum(all(w in d for w in words) for d in documents) / n

    def npmi(a, b):
        joint = p(a, b) + EPSILON
        return math.log(joint / (p(a) * p(b))) / -math.log(joint)

    topic = TOPICS[0]
    expected_npmi = np.mean([npmi(a, b) for a, b in permutations(topic, 2)])
    vectors = np.array([[npmi(a, b) for b in topic] for a in topic])
    whole = vectors.sum(axis=0)
    expected_c_v = np.mean([v @ whole / (np.linalg.norm(v) * np.linalg.norm(whole))
                            for v in vectors])
    result = Reference(corpus.counts, corpus.vocabulary).per_topic([topic])
    assert result["npmi"][0] == pytest.approx(expected_npmi, abs=1e-12)
    assert result["c_v"][0] == pytest.approx(expected_c_v, abs=1e-12)


def test_words_missing_from_the_reference_are_left_out(corpus):
    reference = Reference(corpus.counts, corpus.vocabulary)
    with_unknown = [["oil", "zebra", "prices", "output"], ["zebra", "oil"], ["gnu"]]
    result = reference.per_topic(with_unknown)
    assert result["npmi"][0] == reference.per_topic([["oil", "prices", "output"]])["npmi"][0]
    assert np.isnan(result["npmi"][1]) and np.isnan(result["c_v"][2])  # under two words
    quality = reference.quality(with_unknown)
    assert quality["npmi"] == pytest.approx(result["npmi"][0])  # means over scored topics
    assert quality["diversity"] == pytest.approx(5 / 7)  # every topic counts here


def test_no_scorable_topic_gives_nan_not_an_error(corpus):
    quality = topic_quality([["zebra", "gnu"], []], corpus.counts, corpus.vocabulary)
    assert math.isnan(quality["npmi"]) and math.isnan(quality["c_v"])
    assert quality["diversity"] == 1.0


def test_diversity_and_measure_choice():
    assert topic_diversity([["a", "b", "c"], ["a", "b", "d"]]) == pytest.approx(4 / 6)
    assert topic_diversity([["a", "a", "b"]]) == 1.0  # a repeated word is one word
    assert math.isnan(topic_diversity([]))
    counts = np.eye(3, dtype=int)
    assert list(topic_quality([["a", "b"]], counts, "abc", ["diversity"])) == ["diversity"]
    with pytest.raises(ValueError, match="unknown topic-quality measure 'umass'"):
        topic_quality([["a", "b"]], counts, "abc", ["umass"])


def test_cluster_topics_drop_words_a_cluster_does_not_hold_and_empty_clusters():
    counts = np.array([[2, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 1]])
    vocabulary = ["a", "b", "c", "d"]
    labels = np.array([0, 0, 2, 2])  # cluster 1 is empty
    top_words = [[("a", 0.5), ("b", 0.4), ("c", 0.05)],  # c: padding, no document of 0 has it
                 [("a", 0.3), ("b", 0.3), ("c", 0.3)],
                 [("d", 0.6), ("c", 0.3), ("zebra", 0.1)]]
    assert cluster_topics(top_words, labels, counts, vocabulary) == [["a", "b"], ["d", "c"]]
    bare = [["a", "b", "c"], [], ["d", "c", "a"]]
    assert cluster_topics(bare, labels, counts, vocabulary) == [["a", "b"], ["d", "c"]]
    outlier = np.array([0, -1, 2, 2])  # document 1 in no cluster (document 0 holds a, b)
    assert cluster_topics(bare, outlier, counts, vocabulary) == [["a", "b"], ["d", "c"]]
    assert cluster_topics(bare, np.array([-1, 0, 2, 2]), counts, vocabulary) == [  # only b
        ["b"], ["d", "c"]]
    with pytest.raises(ValueError, match="one label per document"):
        cluster_topics(top_words, labels[:3], counts, vocabulary)


def test_gsdmm_clusters_on_googlenews_t_agree_with_gensim(data_dir):
    """Real top words of a real model: GSDMM's clusters of GoogleNews-T titles."""
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    from shortclust.data import load_corpus
    from shortclust.models.dmm.gsdmm import GSDMM

    corpus = load_corpus("GoogleNews-T", data_dir=data_dir).subset(np.arange(3000))
    model = GSDMM(n_clusters=60, max_iter=5, random_state=0).fit(corpus.counts)
    topics = cluster_topics(model.top_words(10, vocabulary=corpus.vocabulary), model.labels_,
                            corpus.counts, corpus.vocabulary)
    assert sum(len(topic) < 10 for topic in topics) < len(topics)
    vocabulary = np.asarray(corpus.vocabulary, dtype=object)
    texts = [list(np.repeat(vocabulary[row.indices], row.data)) for row in corpus.counts]
    assert max(len(text) for text in texts) <= 110
    dictionary = Dictionary(texts)
    scored = [topic for topic in topics if len(topic) >= 2]
    ours = Reference(corpus.counts, corpus.vocabulary).per_topic(scored)
    for measure, name in (("c_npmi", "npmi"), ("c_v", "c_v")):
        theirs = CoherenceModel(topics=scored, texts=texts, dictionary=dictionary,
                                coherence=measure, window_size=110, processes=1,
                                topn=10).get_coherence_per_topic()
        np.testing.assert_allclose(ours[name], theirs, rtol=0, atol=1e-6)
