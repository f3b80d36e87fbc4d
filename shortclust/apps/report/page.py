"""One self-contained HTML page from a :class:`~shortclust.apps.report.data.ReportData`.

plotly.js is inlined once (``plotly.offline.get_plotlyjs()``, about 4.8 MB), the figures
follow as JSON (plotly's encoder escapes ``<`` and ``/``, so no text can close the script),
and the tables are HTML with every text escaped. The page loads nothing from the network.
When every figure is drawn it logs ``shortclust-report: N of N figures drawn`` on the
console (the browser test reads it); a figure that fails logs an error.
"""

from __future__ import annotations

import html
from typing import Any

from shortclust.apps.report import figures as fig
from shortclust.apps.report.data import ReportData

__all__ = ["CONSOLE_PREFIX", "render"]

#: Start of the one console message the page writes.
CONSOLE_PREFIX = "shortclust-report:"
#: Top words shown per cluster in the table.
_TABLE_WORDS = 10
#: Clusters in the table (the largest).
TABLE_CLUSTERS = 60

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1280px; padding: 0 16px;
       color: #222; }
h1 { font-size: 1.5em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 3px 8px; vertical-align: top; text-align: left; }
th { background: #f4f4f4; }
.overview th { white-space: nowrap; }
.clusters td.texts { font-size: 0.92em; max-width: 640px; }
.clusters ol { margin: 0; padding-left: 1.3em; }
.note { color: #555; font-size: 0.9em; }
.fig { width: 100%; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text))


def render(data: ReportData) -> str:
    """The report as one HTML document (a string)."""
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    sections: list[str] = []
    figures: list[tuple[str, Any]] = []

    def figure(name: str, made) -> str:
        if made is None:
            return ""
        figures.append((name, made))
        return f'<div class="fig" id="{name}"></div>'

    names = {c["cluster"]: f"c{c['cluster']}: " + " ".join(w for w, _ in c["top_words"][:3])
             for c in data.clusters}
    colours = fig.cluster_colours([c["cluster"] for c in data.clusters if c["size"]])
    sections.append(_overview(data))
    if data.map:
        sections.append("<h2 id=\"map-section\">Map</h2>"
                        + figure("map", fig.map_figure(data.map, names, colours))
                        + f'<p class="note">{_e(data.map["method"])}; coloured by cluster, '
                        "hover for the text; click a cluster in the legend to hide it, "
                        "double-click to show it alone.</p>")
    sections.append("<h2 id=\"clusters\">Clusters</h2>"
                    + figure("sizes", fig.sizes_figure(data.clusters, colours))
                    + figure("bars", fig.bars_figure(data.clusters, colours))
                    + _clusters_table(data))
    if data.similarity:
        sections.append("<h2 id=\"similar\">Which clusters are alike</h2>"
                        + figure("similarity", fig.similarity_figure(data.similarity))
                        + '<p class="note">Pairs near 1 use the same words: candidates to '
                        "merge.</p>")
    if data.contingency:
        sections.append("<h2 id=\"labels\">Against the labels</h2>"
                        + _metrics_table(data.metrics)
                        + figure("contingency", fig.contingency_figure(data.contingency)))
    if data.stream:
        stream = data.stream
        sections.append(
            "<h2 id=\"stream\">Over the stream</h2>"
            + figure("stream_sizes", fig.stream_sizes_figure(stream))
            + figure("births", fig.births_figure(stream))
            + figure("drift", fig.drift_figure(stream))
            + f'<p class="note">Words: {_e(stream["words_from"])}. Sizes, births and deaths '
            "count each batch's documents by the cluster the run gave them.</p>"
            + figure("stream_metrics", fig.metrics_figure(stream)))
    payload = ",".join(
        '{"id": "%s", "figure": %s}' % (name, pio.to_json(made, validate=False))
        for name, made in figures)
    script = _DRAW.replace("__FIGURES__", f"[{payload}]").replace("__PREFIX__", CONSOLE_PREFIX)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(data.title)}</title><style>{_STYLE}</style>"
            f"<script>{get_plotlyjs()}</script></head><body>"
            f"<h1>{_e(data.title)}</h1>{''.join(sections)}"
            f"<script>{script}</script></body></html>\n")


_DRAW = """
(function () {
  var figures = __FIGURES__;
  var config = {responsive: true, displaylogo: false};
  var drawn = 0;
  Promise.all(figures.map(function (f) {
    return Plotly.newPlot(f.id, f.figure.data, f.figure.layout, config)
      .then(function () { drawn += 1; });
  })).then(function () {
    console.log("__PREFIX__ " + drawn + " of " + figures.length + " figures drawn");
  }, function (error) {
    console.error("__PREFIX__ a figure failed: " + error);
  });
})();
"""


def _overview(data: ReportData) -> str:
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in data.overview)
    notes = "".join(f"<li>{_e(note)}</li>" for note in data.notes)
    return ("<h2 id=\"overview\">Overview</h2>" f'<table class="overview">{rows}</table>'
            + (f'<ul class="note">{notes}</ul>' if notes else ""))


def _clusters_table(data: ReportData) -> str:
    rows = []
    shown = [cluster for cluster in data.clusters if cluster["size"]]
    for cluster in shown[:TABLE_CLUSTERS]:
        words = ", ".join(f"{_e(w)} ({v:.3g})" for w, v in cluster["top_words"][:_TABLE_WORDS])
        texts = "".join(f"<li>{_e(doc['text'])}</li>" for doc in cluster["representatives"])
        rows.append(f"<tr><td>c{cluster['cluster']}</td><td>{cluster['size']} "
                    f"({100 * cluster['share']:.1f}%)</td><td>{words or '-'}</td>"
                    f'<td class="texts"><ol>{texts}</ol></td></tr>')
    more = len(shown) - TABLE_CLUSTERS
    return ('<table class="clusters"><tr><th>cluster</th><th>size</th><th>top words '
            "(weight)</th><th>representative documents</th></tr>" + "".join(rows)
            + "</table>" + (f'<p class="note">The {more} smaller clusters are left out here '
                            "(clusters.csv and clusters.md list every cluster).</p>"
                            if more > 0 else ""))


def _metrics_table(metrics: dict[str, Any] | None) -> str:
    if not metrics:
        return ""
    cells = "".join(f"<tr><th>{_e(name.upper())}</th><td>{value:.4f}</td></tr>"
                    for name, value in metrics.items() if isinstance(value, (int, float)))
    return f'<table class="metrics">{cells}</table>'
