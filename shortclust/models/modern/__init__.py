"""Modern baselines none of the five papers had: density clustering and BERTopic, run on
sentence embeddings (``representation: sentence_embeddings``) through maintained libraries."""
