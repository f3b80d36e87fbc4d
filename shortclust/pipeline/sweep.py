"""Parameter sweeps: one experiment config run over a grid of one model parameter.

Every (grid point, seed) pair is an ordinary run with an ordinary record, written by
:func:`shortclust.pipeline.runner.run_experiment`, so a sweep resumes like a run does.
The sweep table (``sweep_<param>.csv`` / ``.md``) and figure (``sweep_<param>.png``) are
computed from the records alone and can be rebuilt at any time with :func:`sweep_frame` and
:func:`write_sweep_outputs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from shortclust.config import ExperimentConfig, get_model_class, model_param_names
from shortclust.errors import ConfigError, short_repr
from shortclust.pipeline.records import atomic_write_text

#: Columns of a sweep table besides the metrics: what the figure also plots.
SWEEP_VALUES = ["n_clusters", "fit_seconds"]


@dataclass
class SweepResult:
    """What :func:`run_sweep` produced.

    Attributes
    ----------
    param : str
        The swept model parameter.
    table : pandas.DataFrame
        :func:`sweep_frame` of the records: one row per grid value.
    output_dir : Path
        Where records, labels, the table and the figure were written.
    paths : dict
        ``{"csv": ..., "md": ..., "png": ...}``.
    """

    param: str
    table: pd.DataFrame
    output_dir: Path
    paths: dict[str, Path]


def resolve_sweep(config: ExperimentConfig, param: str, values_text: str | None):
    """The parameter name and grid values of a sweep, checked.

    Parameters
    ----------
    config : ExperimentConfig
        The base experiment.
    param : str
        A model parameter, bare (``beta``) or dotted (``model.params.beta``).
    values_text : str or None
        Comma-separated values from ``--values`` (each parsed as YAML, so ``10`` is an int
        and ``0.1`` a float); ``None`` takes the grid the config declares under ``sweep:``.

    Returns
    -------
    (str, list)

    Raises
    ------
    ConfigError
        Unknown parameter, unparsable or empty values, or no grid anywhere.
    """
    name = param.strip().removeprefix("model.params.")
    allowed = model_param_names(get_model_class(config.model.name))
    if name not in allowed:
        raise ConfigError(
            f"--param {param!r}: not a parameter of model '{config.model.name}' "
            f"(choose from {', '.join(allowed)})"
        )
    if values_text is not None:
        return name, _parse_values(values_text)
    grid = (config.sweep or {}).get(name)
    if grid is None:
        raise ConfigError(
            f"config '{config.name}' declares no grid for '{name}': pass --values v1,v2,... "
            f"or add `sweep: {{{name}: [v1, v2, ...]}}` to the config"
        )
    return name, list(grid)


def _parse_values(text: str) -> list[Any]:
    parts = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not part for part in parts):
        raise ConfigError(f"--values {short_repr(text)}: give comma-separated values, e.g. "
                          "0.02,0.05,0.1")
    values = []
    for part in parts:
        try:
            values.append(yaml.safe_load(part))
        except yaml.YAMLError:
            raise ConfigError(f"--values: cannot read {short_repr(part)} as a value") from None
    seen = set()
    for value in values:
        if repr(value) in seen:  # the value named, not a grid of thousands quoted whole
            raise ConfigError(f"--values: {short_repr(value)} is repeated; list each value "
                              "once")
        seen.add(repr(value))
    return values


def default_sweep_output(config: ExperimentConfig, param: str) -> Path:
    """``<config output>_sweep_<param>``, e.g. ``runs/gsdmm_tweet_sweep_beta``."""
    base = config.output_dir
    return base.with_name(f"{base.name}_sweep_{param}")


def run_sweep(config: ExperimentConfig, param: str, values: list[Any], options=None,
              **option_values) -> SweepResult:
    """Run ``config`` at every value of ``param``, each for every seed; write table and figure.

    The records go to ``config.output_dir`` (callers set it, see :func:`default_sweep_output`).
    ``options`` (a :class:`~shortclust.pipeline.runner.RunOptions`, or its fields as
    keywords) says how: resume, jobs, quiet, ...

    Raises
    ------
    ConfigError, DataError, ParameterError
        Before any fit (every grid value is checked first).
    ExperimentInterrupted
        On Ctrl-C; finished runs are kept and ``--resume`` continues.
    """
    from dataclasses import replace

    from shortclust.pipeline.runner import RunOptions, run_experiment

    options = replace(options or RunOptions(), **option_values)
    points = [{param: value} for value in values]
    result = run_experiment(config, options, points=points, table=False)
    title = f"{config.model.name} on {config.dataset}: {param} sweep"
    table = sweep_frame(result.records, param, values)
    paths = write_sweep_outputs(table, param, result.output_dir, title)
    if not options.quiet:
        _show(table, param, title, paths, options.console)
    return SweepResult(param, table, result.output_dir, paths)


#: Columns of the terminal table (the Markdown table has every metric).
_TERMINAL_COLUMNS = ["n_clusters", "nmi", "homogeneity", "completeness", "ari", "npmi", "c_v"]


def _show(table: pd.DataFrame, param: str, title: str, paths: dict[str, Path], console) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    shown = [c for c in _TERMINAL_COLUMNS if c in SWEEP_VALUES or c in sweep_metrics(table)]
    from shortclust.evaluation.stats import counts_text

    runs = counts_text(table["runs"])
    grid = Table(title=title, caption=f"mean±std over {runs} runs per value",
                 box=box.SIMPLE_HEAD, padding=(0, 1))
    short = {"n_clusters": "clusters", "nmi": "NMI", "homogeneity": "H", "completeness": "C",
             "ari": "ARI", "npmi": "NPMI", "c_v": "C_v"}
    for header in [param] + [short.get(c, c) for c in shown]:
        grid.add_column(header, justify="right", no_wrap=True)
    for _, row in table.iterrows():
        grid.add_row(str(row[param]), *(_mean_std(row, c, compact=True) for c in shown))
    Console(highlight=False).print(grid) if console is None else console.print(grid)
    err = console or Console(stderr=True, highlight=False)
    err.print(f"sweep table: {paths['md']}  figure: {paths['png']}", markup=False)


def _model_params(record) -> dict[str, Any]:
    """A record's parameters, with those its model added later filled in where it leaves
    them out (their earlier value, which is not part of a run's identity)."""
    from shortclust.models.base import with_added_parameters

    params = record.get("params") or {}
    try:
        model_class = get_model_class(record.get("model", ""))
    except ConfigError:  # not a registered model (a record from elsewhere): as recorded
        return params
    return with_added_parameters(model_class, params)


def sweep_frame(records, param: str, values: list[Any] | None = None) -> pd.DataFrame:
    """Mean and std over seeds of every metric, clusters found and fit time, per grid value.

    Parameters
    ----------
    records : iterable of dict
        Run records whose ``params`` contain ``param``.
    param : str
        The swept parameter.
    values : list, optional
        Keep only these values, in this order (default: every value found, sorted).

    Returns
    -------
    pandas.DataFrame
        Columns ``param`` (the value), ``runs``, then ``<name>_mean`` and ``<name>_std`` for
        each metric and for ``n_clusters`` and ``fit_seconds``; std is the sample std
        (ddof=1), 0 for a single run.
    """
    from shortclust.evaluation.stats import summarize_groups
    from shortclust.pipeline.summary import metric_columns, records_frame

    params = [_model_params(r) for r in records]
    records = [r for r, given in zip(records, params) if param in given]
    params = [given for given in params if param in given]
    frame = records_frame(records)
    if frame.empty:
        return _order(_no_runs(param), param, values)
    # Grouped under a private name: the swept parameter may be n_clusters, which is also
    # the name of the clusters-found column.
    frame["_value"] = [given[param] for given in params]
    names = metric_columns(frame.drop(columns=["_value"])) + SWEEP_VALUES
    frame[names] = frame[names].apply(pd.to_numeric, errors="coerce")
    table = summarize_groups(frame, "_value", names).rename(columns={"_value": param})
    return _order(table, param, values)


def _no_runs(param: str) -> pd.DataFrame:
    """An empty sweep table with the usual columns (every metric, clusters, fit time)."""
    from shortclust.evaluation.metrics import METRIC_NAMES

    names = list(METRIC_NAMES) + SWEEP_VALUES
    columns = [param, "runs"] + [f"{n}_{s}" for n in names for s in ("mean", "std")]
    return pd.DataFrame(columns=columns)


def _order(table: pd.DataFrame, param: str, values: list[Any] | None) -> pd.DataFrame:
    """The rows of ``values`` in that order; a value without runs gets ``runs`` 0 and NaN."""
    if values is None:
        return table
    position = {repr(v): i for i, v in enumerate(values)}
    keep = table[param].map(lambda v: repr(v) in position).astype(bool)
    table = table.loc[keep].copy()
    found = {repr(v) for v in table[param]}
    missing = [{param: v, "runs": 0} for v in values if repr(v) not in found]
    if missing:
        table = pd.concat([table, pd.DataFrame(missing)], ignore_index=True) if len(table) \
            else pd.DataFrame(missing, columns=table.columns)
    table["runs"] = table["runs"].astype(int)
    table["_order"] = table[param].map(lambda v: position[repr(v)])
    return table.sort_values("_order").drop(columns="_order").reset_index(drop=True)


def sweep_metrics(table: pd.DataFrame) -> list[str]:
    """Metric names with at least one value in a :func:`sweep_frame` table."""
    names = [c[: -len("_mean")] for c in table.columns if c.endswith("_mean")]
    return [n for n in names if n not in SWEEP_VALUES and table[f"{n}_mean"].notna().any()]


def sweep_markdown(table: pd.DataFrame, param: str, title: str) -> str:
    """A Markdown table, a row per grid value, cells ``mean ± std``, and a note on runs."""
    shown = ["n_clusters"] + sweep_metrics(table) + ["fit_seconds"]
    headers = [param, "runs"] + [_HEADERS.get(name, name) for name in shown]
    lines = [f"# {title}", "", _md_row(headers), _md_row(["---"] * len(headers))]
    for _, row in table.iterrows():
        cells = [str(row[param]), str(int(row["runs"]))]
        cells += [_mean_std(row, name) for name in shown]
        lines.append(_md_row(cells))
    runs = sorted({int(r) for r in table["runs"]}) if not table.empty else []
    lines += ["", f"Runs per value: {', '.join(map(str, runs)) or 'none'}; cells are mean ± "
              "sample std over seeds (ddof=1). Fit seconds exclude kernel compilation."]
    return "\n".join(lines) + "\n"


_HEADERS = {"n_clusters": "clusters", "fit_seconds": "fit seconds"}


def _mean_std(row, name: str, compact: bool = False) -> str:
    from shortclust.evaluation.stats import format_mean_std

    digits = {"n_clusters": 1, "fit_seconds": 3}.get(name, 3 if compact else 4)
    # Compact cells fit six columns into an 80-column terminal.
    return format_mean_std(row[f"{name}_mean"], row[f"{name}_std"], digits,
                           separator="±" if compact else " ± ")


def _md_row(cells) -> str:
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def write_sweep_outputs(table: pd.DataFrame, param: str, output_dir, title: str) -> dict[str, Path]:
    """Write ``sweep_<param>.csv``, ``.md`` and ``.png`` into ``output_dir``; return paths."""

    output_dir = Path(output_dir)
    paths = {ext: output_dir / f"sweep_{param}.{ext}" for ext in ("csv", "md", "png")}
    atomic_write_text(paths["csv"], table.to_csv(index=False))
    atomic_write_text(paths["md"], sweep_markdown(table, param, title))
    plot_sweep(table, param, paths["png"], title)
    return paths


def plot_sweep(table: pd.DataFrame, param: str, path, title: str) -> Path:
    """One panel per metric and one for clusters found, each against the swept parameter."""
    from shortclust.pipeline.plots import (draw_curves, label, panel_figure, save_figure,
                                           spread_text, table_curve)

    names = ["n_clusters"] + sweep_metrics(table)
    figure, axes = panel_figure(len(names))
    for axis, name in zip(axes, names):
        draw_curves(axis, [table_curve(table, param, name)], param, label(name))
    figure.suptitle(f"{title} ({spread_text(table['runs'], 'value')})", fontsize=11)
    return save_figure(figure, path)
