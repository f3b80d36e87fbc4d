"""User-facing commands on top of the pipeline: cluster your own file, predict with a saved model, model files and assignments."""
