"""A paper for testing the reproduction harness: two items over the fake model, one option.

``CONFIG`` is set by the test to a fake-model config path before the items run.
"""

from shortclust.evaluation.stats import mean_std_text
from shortclust.pipeline.reproduce import markdown_table, metric_values
from shortclust.papers.registry import Option, Paper

CONFIG = None


def table(job):
    records = job.run(CONFIG, "table_runs")
    rows = [["nmi", mean_std_text(metric_values(records, "nmi")), len(records)]]
    footer = f"scale {job.options['scale']}"
    job.write_text("table.md", markdown_table(["metric", "ours", "runs"], rows) + "\n"
                   + footer + "\n")


def sweep(job):
    frame = job.sweep(CONFIG, "sweep_runs", overrides=["sweep={alpha: [0.1, 0.3]}"])
    job.write_table("sweep", frame, "sweep\n")


PAPER = Paper(
    name="fake",
    title="A test paper",
    items={"table": table, "sweep": sweep},
    options=(Option("scale", int, 1, "a number the table prints", minimum=1),),
)
