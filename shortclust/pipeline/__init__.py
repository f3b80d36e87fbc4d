"""The run pipeline: plan, fit, resume, execute, record, summarise, sweep, stream and reproduce experiments from configs."""
