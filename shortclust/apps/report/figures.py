"""Plotly figures of a :class:`~shortclust.apps.report.data.ReportData`, one function each.

Each function takes the plain data and returns a ``plotly.graph_objects.Figure`` (or None
when there is nothing to draw); :mod:`.page` puts them into one HTML file. Texts shown by
plotly (hover, ticks) are HTML-escaped, since plotly reads a few tags in them.
"""

from __future__ import annotations

import html
import math
from typing import Any

__all__ = ["bars_figure", "births_figure", "cluster_colours", "contingency_figure",
           "drift_figure", "map_figure", "metrics_figure", "similarity_figure", "sizes_figure",
           "stream_sizes_figure"]

#: Clusters whose top words get a bar chart of their own (the largest).
BAR_CLUSTERS = 12
#: Clusters drawn as their own band in the sizes over time (the largest); the rest summed.
STREAM_BANDS = 20
_HEIGHT = 460


def _go():
    import plotly.graph_objects as go

    return go


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=False)


def cluster_colours(clusters: list[int]) -> dict[int, str]:
    """One colour per cluster (in the order given, largest first), the same in every
    figure; plotly's 24 dark then 24 light qualitative colours, repeated past 48."""
    from plotly.colors import qualitative

    palette = qualitative.Dark24 + qualitative.Light24
    return {int(c): palette[i % len(palette)] for i, c in enumerate(clusters)}


def _layout(title: str, height: int = _HEIGHT, **more) -> dict[str, Any]:
    return {"title": {"text": _esc(title), "x": 0.01}, "height": height,
            "margin": {"l": 60, "r": 20, "t": 60, "b": 50}, "template": "plotly_white",
            **more}


def map_figure(data: dict[str, Any] | None, names: dict[int, str], colours: dict[int, str]):
    """The documents in 2-D, one trace per cluster (click the legend to hide one)."""
    if not data:
        return None
    go = _go()
    by_cluster: dict[int, list[int]] = {}
    for i, cluster in enumerate(data["cluster"]):
        by_cluster.setdefault(int(cluster), []).append(i)
    figure = go.Figure()
    for cluster in sorted(by_cluster, key=lambda c: (-len(by_cluster[c]), c)):
        rows = by_cluster[cluster]
        figure.add_trace(go.Scatter(
            x=[data["x"][i] for i in rows], y=[data["y"][i] for i in rows], mode="markers",
            name=_esc(names.get(cluster, f"cluster {cluster}")),
            marker={"size": 5, "opacity": 0.75, "color": colours.get(cluster, "gray")},
            text=[_esc(data["text"][i]) for i in rows],
            hovertemplate=f"cluster {cluster}<br>%{{text}}<extra></extra>"))
    shown = (f"all {data['n_total']} documents" if data["n_shown"] == data["n_total"] else
             f"a random {data['n_shown']} of {data['n_total']} documents")
    figure.update_layout(**_layout(f"Map of the documents ({shown})", 620,
                                   legend={"itemsizing": "constant"}))
    figure.update_xaxes(showticklabels=False, zeroline=False)
    figure.update_yaxes(showticklabels=False, zeroline=False)
    return figure


def sizes_figure(clusters: list[dict[str, Any]], colours: dict[int, str]):
    """Every non-empty cluster's size, largest first."""
    shown = [c for c in clusters if c["size"]]
    if not shown:
        return None
    go = _go()
    words = [_esc(" ".join(w for w, _ in c["top_words"][:5]) or "-") for c in shown]
    figure = go.Figure(go.Bar(
        x=[f"c{c['cluster']}" for c in shown], y=[c["size"] for c in shown], text=words,
        hovertemplate="%{x}: %{y} documents<br>%{text}<extra></extra>", textposition="none",
        marker={"color": [colours.get(c["cluster"], "gray") for c in shown]}))
    figure.update_layout(**_layout(f"Cluster sizes ({len(shown)} clusters)", 360))
    figure.update_xaxes(type="category", title="cluster")
    figure.update_yaxes(title="documents")
    return figure


def bars_figure(clusters: list[dict[str, Any]], colours: dict[int, str],
                limit: int = BAR_CLUSTERS):
    """The top words (weight) of the ``limit`` largest clusters, one small chart each."""
    from plotly.subplots import make_subplots

    shown = [c for c in clusters if c["size"] and c["top_words"]][:limit]
    if not shown:
        return None
    go = _go()
    columns = min(4, len(shown))
    rows = math.ceil(len(shown) / columns)
    titles = [f"c{c['cluster']}: {c['size']} docs" for c in shown]
    figure = make_subplots(rows=rows, cols=columns, subplot_titles=titles,
                           horizontal_spacing=0.12, vertical_spacing=0.12 / max(rows, 1) * 2)
    for i, cluster in enumerate(shown):
        words = cluster["top_words"][:10][::-1]
        figure.add_trace(go.Bar(x=[w for _, w in words], y=[_esc(t) for t, _ in words],
                                orientation="h", showlegend=False,
                                marker={"color": colours.get(cluster["cluster"], "gray")},
                                hovertemplate="%{y}: %{x:.4g}<extra></extra>"),
                         row=i // columns + 1, col=i % columns + 1)
    figure.update_layout(**_layout(f"Top words of the {len(shown)} largest clusters "
                                   "(weights as in clusters.csv)", 260 * rows + 80))
    figure.update_yaxes(tickfont={"size": 10})
    return figure


def similarity_figure(data: dict[str, Any] | None):
    """Cluster against cluster similarity, as a heat map."""
    if not data:
        return None
    go = _go()
    names = [f"c{c}" for c in data["clusters"]]
    figure = go.Figure(go.Heatmap(
        z=data["matrix"], x=names, y=names, colorscale="Blues", zmin=0, zmax=1,
        hovertemplate="%{y} and %{x}: %{z:.3f}<extra></extra>"))
    side = max(420, min(900, 18 * len(names) + 160))
    figure.update_layout(**_layout(f"Cluster similarity: {data['basis']} "
                                   f"({len(names)} largest clusters)", side))
    figure.update_yaxes(autorange="reversed", type="category")
    figure.update_xaxes(type="category")
    return figure


def contingency_figure(data: dict[str, Any] | None):
    """Documents per cluster and gold label."""
    if not data:
        return None
    go = _go()
    labels = [_esc(name) for name in data["labels"]]
    clusters = [f"c{c}" for c in data["clusters"]]
    figure = go.Figure(go.Heatmap(
        z=data["matrix"], x=labels, y=clusters, colorscale="Viridis",
        hovertemplate="%{y}, label %{x}: %{z} documents<extra></extra>"))
    left = "" if (data["n_clusters"] <= len(clusters) and data["n_labels"] <= len(labels)) \
        else f"; largest {len(clusters)} of {data['n_clusters']} clusters, " \
             f"{len(labels)} of {data['n_labels']} labels"
    figure.update_layout(**_layout(f"Clusters against the file's labels{left}",
                                   max(420, min(1000, 16 * len(clusters) + 200))))
    figure.update_yaxes(autorange="reversed", type="category")
    figure.update_xaxes(type="category")
    return figure


def stream_sizes_figure(stream: dict[str, Any], limit: int = STREAM_BANDS):
    """Each cluster's documents per batch, stacked (the largest clusters, the rest summed)."""
    go = _go()
    totals = [sum(row) for row in stream["sizes"]]
    order = sorted(range(len(totals)), key=lambda i: (-totals[i], i))
    figure = go.Figure()
    x = stream["batch"]
    for i in order[:limit]:
        figure.add_trace(go.Scatter(x=x, y=stream["sizes"][i], stackgroup="sizes",
                                    mode="lines", line={"width": 0.5},
                                    name=f"c{stream['clusters'][i]}"))
    rest = order[limit:]
    if rest:
        summed = [sum(stream["sizes"][i][b] for i in rest) for b in range(len(x))]
        figure.add_trace(go.Scatter(x=x, y=summed, stackgroup="sizes", mode="lines",
                                    line={"width": 0.5, "color": "lightgray"},
                                    name=f"{len(rest)} other clusters"))
    figure.update_layout(**_layout("Cluster sizes over time (documents of each batch per "
                                   "cluster)", 480))
    figure.update_xaxes(title="batch")
    figure.update_yaxes(title="documents")
    return figure


def births_figure(stream: dict[str, Any]):
    """Clusters born and dying per batch, beside the number the model holds."""
    go = _go()
    x = stream["batch"]
    figure = go.Figure([
        go.Bar(x=x, y=stream["births"], name="born (first documents)"),
        go.Bar(x=x, y=[-d for d in stream["deaths"]], name="died (last documents)"),
        go.Scatter(x=x, y=stream["n_clusters"], name="clusters in the model", yaxis="y2",
                   mode="lines+markers"),
    ])
    figure.update_layout(**_layout("Births and deaths of clusters per batch", 400,
                                   barmode="relative",
                                   yaxis2={"overlaying": "y", "side": "right",
                                           "title": "clusters in the model"}))
    figure.update_xaxes(title="batch")
    figure.update_yaxes(title="clusters")
    return figure


def drift_figure(stream: dict[str, Any]):
    """Top words of a chosen cluster per batch: a heat map of word weights, one cluster
    shown at a time (the menu chooses)."""
    go = _go()
    clusters = [c for c in stream["drift_clusters"] if any(stream["words"].get(c, []))]
    if not clusters:
        return None
    figure = go.Figure()
    x = stream["batch"]
    for number, cluster in enumerate(clusters):
        per_batch = stream["words"][cluster]
        words: list[str] = []
        for batch_words in per_batch:
            words += [w for w, _ in batch_words if w not in words]
        weight = {(b, w): v for b, batch_words in enumerate(per_batch) for w, v in batch_words}
        z = [[weight.get((b, w)) for b in range(len(x))] for w in words]
        figure.add_trace(go.Heatmap(
            z=z, x=x, y=[_esc(w) for w in words], colorscale="YlOrRd", visible=number == 0,
            name=f"c{cluster}", hoverongaps=False,
            hovertemplate="batch %{x}: %{y} %{z:.4g}<extra></extra>"))
    buttons = [{"label": f"cluster {c}", "method": "update",
                "args": [{"visible": [j == i for j in range(len(clusters))]},
                         {"title.text": _drift_title(c, stream)}]}
               for i, c in enumerate(clusters)]
    figure.update_layout(**_layout(_drift_title(clusters[0], stream), 620),
                         updatemenus=[{"buttons": buttons, "x": 1.0, "xanchor": "right",
                                       "y": 1.12, "yanchor": "top"}])
    figure.update_xaxes(title="batch", type="category")
    figure.update_yaxes(type="category", tickfont={"size": 10})
    return figure


def _drift_title(cluster: int, stream: dict[str, Any]) -> str:
    source = stream["words_from"].split(" (")[0]
    return _esc(f"Top words of cluster {cluster} per batch ({source})")


def metrics_figure(stream: dict[str, Any]):
    """The stream's per-batch (prequential) metrics."""
    metrics = stream["metrics"]
    if not metrics:
        return None
    go = _go()
    figure = go.Figure([go.Scatter(x=stream["batch"], y=values, name=name.upper(),
                                   mode="lines+markers", connectgaps=False)
                        for name, values in metrics.items()])
    figure.update_layout(**_layout("Metrics of each batch just after it is clustered "
                                   "(prequential)", 400))
    figure.update_xaxes(title="batch")
    return figure
