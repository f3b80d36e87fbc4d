"""A paper module for testing the reproduction harness: two items over the fake model.

``CONFIG`` is set by the test to a fake-model config path before the items run.
"""

from shortclust.experiments.reproduce import markdown_table, mean_std, metric_values

CONFIG = None


def table(job):
    records = job.run(CONFIG, "table_runs")
    rows = [["nmi", mean_std(metric_values(records, "nmi")), len(records)]]
    job.write_text("table.md", markdown_table(["metric", "ours", "runs"], rows) + "\n")


def sweep(job):
    frame = job.sweep(CONFIG, "sweep_runs", overrides=["sweep={alpha: [0.1, 0.3]}"])
    job.write_table("sweep", frame, "sweep\n")


ITEMS = {"table": table, "sweep": sweep}
