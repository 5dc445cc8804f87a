"""Plots of results (matplotlib): metric distributions, cost-versus-wait frontiers, and GPUs in
use over time.

    >>> import gpucap.plot
    >>> gpucap.plot.distribution(results, "cost")
    >>> gpucap.plot.frontier(sweep_results, x="wait_p95", y="cost")
    >>> gpucap.plot.utilization(results)      # needs the scenario key timeseries: {step: 1h}

Every function draws on ``ax`` (a new figure when None) and returns the Axes.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .results import UNITS, Results


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, 4.2))[1]


def _label(results: Results, point: int) -> str:
    params = results.point_parameters(point)
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in params.items()) or results.scenario_name


def _axis_title(metric: str) -> str:
    unit = UNITS.get(metric, "")
    return f"{metric} [{unit}]" if unit else metric


def distribution(
    results: Results,
    metric: str,
    points: Optional[Sequence[int]] = None,
    bins: int = 40,
    ax: Any = None,
) -> Any:
    """Histogram of a metric over the replications, one per point (all points by default),
    with each point's mean as a dashed line."""
    ax = _axes(ax)
    values = results[metric]
    chosen = list(range(results.points)) if points is None else list(points)
    edges = np.histogram_bin_edges(values[chosen].ravel(), bins=bins)
    for p in chosen:
        line = ax.hist(values[p], bins=edges, alpha=0.45, label=_label(results, p))[2][0]
        ax.axvline(values[p].mean(), color=line.get_facecolor(), linestyle="--", alpha=0.9)
    ax.set_xlabel(_axis_title(metric))
    ax.set_ylabel("replications")
    ax.set_title(f"{metric}: {results.replications} replications per point")
    if len(chosen) > 1 or results.point_parameters(0):
        ax.legend(fontsize="small")
    return ax


def pareto_points(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the points not dominated when both x and y are to be minimized, by x."""
    order = np.lexsort((y, x))
    front, best_y = [], np.inf
    for i in order:
        if y[i] < best_y:
            front.append(i)
            best_y = y[i]
    return np.array(front, dtype=int)


def frontier(
    results: Results,
    x: str = "wait_p95",
    y: str = "cost",
    annotate: bool = True,
    ax: Any = None,
) -> Any:
    """Each sweep point's mean `y` against its mean `x`, with 95% intervals on both, and the
    Pareto frontier (points no other point beats on both) joined by a line."""
    ax = _axes(ax)
    sx = results.summary([x])
    sy = results.summary([y])
    mx, my = sx["mean"].to_numpy(), sy["mean"].to_numpy()  # one row per point
    ex = np.abs(sx[["ci95_low", "ci95_high"]].to_numpy().T - mx)
    ey = np.abs(sy[["ci95_low", "ci95_high"]].to_numpy().T - my)
    ax.errorbar(mx, my, xerr=ex, yerr=ey, fmt="o", capsize=3, color="tab:blue", alpha=0.8,
                label="sweep point (95% CI)")
    front = pareto_points(mx, my)
    ax.plot(mx[front], my[front], "-", color="tab:red", alpha=0.7, label="Pareto frontier")
    if annotate:
        for p in range(results.points):
            ax.annotate(_label(results, p), (mx[p], my[p]), textcoords="offset points",
                        xytext=(5, 5), fontsize="x-small")
    ax.set_xlabel(_axis_title(x))
    ax.set_ylabel(_axis_title(y))
    ax.set_title(f"{y} against {x}")
    ax.legend(fontsize="small")
    return ax


def sweep_metric(
    results: Results,
    metric: str,
    parameter: Optional[str] = None,
    ax: Any = None,
) -> Any:
    """A metric's mean and 95% interval at each point, against one swept parameter (the first
    by default), in grid order."""
    ax = _axes(ax)
    params = results.parameters
    if parameter is None:
        if params.shape[1] == 0:
            raise ValueError("sweep_metric needs a sweep (results with parameters)")
        parameter = params.columns[0]
    s = results.summary([metric])
    mean = s["mean"].to_numpy()
    err = np.abs(s[["ci95_low", "ci95_high"]].to_numpy().T - mean)
    labels = params[parameter].astype(str).to_numpy()
    positions = np.arange(results.points)
    ax.errorbar(positions, mean, yerr=err, fmt="o-", capsize=3)
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, rotation=30 if results.points > 6 else 0)
    ax.set_xlabel(parameter)
    ax.set_ylabel(_axis_title(metric))
    ax.set_title(f"{metric} (mean, 95% CI) per point")
    return ax


def utilization(
    results: Results,
    point: int = 0,
    pools: Optional[Sequence[str]] = None,
    quotas: Optional[dict] = None,
    ax: Any = None,
) -> Any:
    """GPUs in use per pool over time (the scenario must set ``timeseries: {step: ...}``): the
    mean over replications as a line and the 5th to 95th percentile band shaded. With
    ``quotas`` ({pool: GPUs}), the values are divided by the quota: utilization in [0, 1]."""
    series = results.timeseries
    if series is None:
        raise ValueError(
            "these results have no time series: set the scenario key timeseries: {step: 1h} "
            "(or override {'timeseries.step': '1h'}) and run again"
        )
    ax = _axes(ax)
    names = results.pool_names if pools is None else list(pools)
    step_h = results.timeseries_step_s / 3600.0
    bins = series.shape[3]
    t = (np.arange(bins) + 0.5) * step_h
    for name in names:
        k = results.pool_names.index(name)
        values = series[point, :, k, :]
        if quotas is not None:
            values = values / float(quotas[name])
        line = ax.plot(t, values.mean(axis=0), label=name)[0]
        low, high = np.percentile(values, [5, 95], axis=0)
        ax.fill_between(t, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("time [h]")
    ax.set_ylabel("utilization [fraction of quota]" if quotas is not None else "GPUs in use [GPUs]")
    ax.set_title(f"{'utilization' if quotas is not None else 'GPUs in use'} over time: mean, "
                 f"5-95% band ({results.replications} replications)")
    ax.legend(fontsize="small")
    return ax


__all__ = ["distribution", "frontier", "pareto_points", "sweep_metric", "utilization"]
