"""Plots of results (matplotlib): metric distributions, cost-versus-wait frontiers, a metric
across a sweep, and GPUs in use over time.

    >>> import gpucap.plot
    >>> gpucap.plot.distribution(results, "cost")
    >>> gpucap.plot.frontier(sweep_results, x="wait_p95", y="cost")
    >>> gpucap.plot.utilization(results)      # needs the scenario key timeseries: {step: 1h}

Every function draws on ``ax`` (a new figure when None) and returns the Axes. Durations (metrics
in seconds) are drawn in the unit that suits their range: s, min, h or d, named on the axis.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .results import UNITS, Results

#: Duration units for axes: (name, seconds), largest first. A duration axis uses the largest
#: unit of which the data's largest magnitude holds at least two.
DURATION_UNITS = (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0))


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, 4.2))[1]


def _label(results: Results, point: int) -> str:
    params = results.point_parameters(point)
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in params.items()) or results.scenario_name


def duration_unit(values_s: Any) -> Tuple[str, float]:
    """(unit, seconds per unit) for drawing durations `values_s` (seconds): d, h, min or s,
    the largest unit of which the largest finite magnitude holds at least two."""
    v = np.abs(np.asarray(values_s, dtype=float))
    v = v[np.isfinite(v)]
    top = float(v.max()) if v.size else 0.0
    for name, seconds in DURATION_UNITS:
        if top >= 2 * seconds:
            return name, seconds
    return "s", 1.0


def _scale(metric: str, *arrays: Any) -> Tuple[str, float]:
    """The axis title of `metric` and the divisor that converts its values to the axis' unit
    (durations to h or d, from the range of `arrays`; other units as they are)."""
    unit = UNITS.get(metric, "")
    if unit == "s":
        unit, divisor = duration_unit(np.concatenate([np.ravel(a) for a in arrays]))
        return f"{metric} [{unit}]", divisor
    return (f"{metric} [{unit}]" if unit else metric), 1.0


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
    chosen = list(range(results.points)) if points is None else list(points)
    raw = results[metric]
    title, divisor = _scale(metric, raw[chosen])
    values = raw / divisor
    edges = np.histogram_bin_edges(values[chosen][np.isfinite(values[chosen])], bins=bins)
    for p in chosen:
        finite = values[p][np.isfinite(values[p])]
        line = ax.hist(finite, bins=edges, alpha=0.45, label=_label(results, p))[2][0]
        ax.axvline(finite.mean(), color=line.get_facecolor(), linestyle="--", alpha=0.9)
    ax.set_xlabel(title)
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


#: Where a point's label may go, in points from the point: right above first, then around it at
#: growing distances.
_LABEL_OFFSETS = [(dx * r, dy * r) for r in (1, 2, 3)
                  for dx, dy in ((6, 6), (6, -12), (-6, 6), (-6, -12), (0, 12), (0, -18), (12, 0), (-12, 0))]


def _place_labels(ax: Any, labels: Sequence[Tuple[str, float, float]], renderer: Any) -> List[Any]:
    """Annotates each (text, x, y) in order at the first offset where its box overlaps no label
    already placed, inside the axes when some such place is; a label with no free place is left
    out. Returns the annotations."""
    placed, boxes = [], []
    frame = ax.get_window_extent(renderer)

    def inside(box: Any) -> bool:
        return box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1

    for text, x, y in labels:
        for must_be_inside in (True, False):
            for dx, dy in _LABEL_OFFSETS:
                ha = "left" if dx >= 0 else "right"
                ann = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy),
                                  fontsize="x-small", ha=ha)
                box = ann.get_window_extent(renderer)
                if not any(box.overlaps(b) for b in boxes) and (inside(box) or not must_be_inside):
                    placed.append(ann)
                    boxes.append(box)
                    break
                ann.remove()
            else:
                continue
            break
    return placed


def frontier(
    results: Results,
    x: str = "wait_p95",
    y: str = "cost",
    annotate: Any = "frontier",
    chosen: Optional[int] = None,
    ax: Any = None,
) -> Any:
    """Each sweep point's mean `y` against its mean `x`, with 95% intervals on both, and the
    Pareto frontier (points no other point beats on both) joined by a line.

    ``annotate``: "frontier" (default) labels the frontier's points and the chosen one, True
    every point, False none; labels never overlap (one that finds no free place is left out).
    ``chosen``: a point index (e.g. ``results.cheapest(...).point``) drawn as a star."""
    ax = _axes(ax)
    sx = results.summary([x])
    sy = results.summary([y])
    cols = ["mean", "ci95_low", "ci95_high"]
    xs, ys = sx[cols].to_numpy(), sy[cols].to_numpy()  # one row per point
    xtitle, xdiv = _scale(x, xs)
    ytitle, ydiv = _scale(y, ys)
    xs, ys = xs / xdiv, ys / ydiv
    mx, my = xs[:, 0], ys[:, 0]
    ex = np.abs(xs[:, 1:].T - mx)
    ey = np.abs(ys[:, 1:].T - my)
    ax.errorbar(mx, my, xerr=ex, yerr=ey, fmt="o", capsize=3, color="tab:blue", alpha=0.8,
                label="sweep point (95% CI)")
    front = pareto_points(mx, my)
    ax.plot(mx[front], my[front], "-", color="tab:red", alpha=0.7, label="Pareto frontier")
    if chosen is not None:
        chosen = results._point(chosen, "chosen")
        ax.plot([mx[chosen]], [my[chosen]], "*", color="tab:orange", markersize=14, label="chosen point")
    ax.set_xlabel(xtitle)
    ax.set_ylabel(ytitle)
    ax.set_title(f"{y} against {x}")
    ax.legend(fontsize="small")
    if annotate:
        if annotate == "frontier":
            order = ([chosen] if chosen is not None else []) + [int(p) for p in front if p != chosen]
        else:
            order = ([chosen] if chosen is not None else []) + [p for p in range(results.points) if p != chosen]
        ax.figure.canvas.draw()  # final limits, so that label boxes are where they will be drawn
        renderer = ax.figure.canvas.get_renderer()
        _place_labels(ax, [(_label(results, p), mx[p], my[p]) for p in order], renderer)
    return ax


def _columns_vary(params: Any, names: Sequence[str]) -> List[str]:
    return [c for c in names if params[c].nunique(dropna=False) > 1]


def sweep_metric(
    results: Results,
    metric: str,
    parameter: Optional[str] = None,
    ax: Any = None,
) -> Any:
    """A metric's mean and 95% interval against one swept parameter (the first by default).

    With other swept parameters, one line per combination of their values (named in the
    legend), so that a line never crosses from one to another. Numeric parameters are placed at
    their values; others in the order they first appear in the grid."""
    ax = _axes(ax)
    params = results.parameters
    if parameter is None:
        if params.shape[1] == 0:
            raise ValueError("sweep_metric needs a sweep (results with parameters)")
        parameter = params.columns[0]
    if parameter not in params.columns:
        raise ValueError(f"sweep_metric: {parameter!r} is not a swept parameter; the parameters are "
                         f"{', '.join(params.columns) or 'none (a plain run)'}")
    s = results.summary([metric])
    stats = s[["mean", "ci95_low", "ci95_high"]].to_numpy()
    title, divisor = _scale(metric, stats)
    stats = stats / divisor
    column = params[parameter]
    numeric = column.dtype.kind in "iuf"
    if numeric:
        position = column.to_numpy(dtype=float)
        ticks = sorted(set(position))
        tick_labels = [str(v) for v in sorted(set(column))]
    else:
        order: Dict[Any, int] = {}
        for v in column:
            order.setdefault(v, len(order))
        position = np.array([order[v] for v in column], dtype=float)
        ticks, tick_labels = list(range(len(order))), [str(v) for v in order]
    others = _columns_vary(params, [c for c in params.columns if c != parameter])
    groups: Dict[Tuple, List[int]] = {}
    for p in range(results.points):
        groups.setdefault(tuple(params[c].iloc[p] for c in others), []).append(p)
    for key, members in groups.items():
        members = sorted(members, key=lambda p: position[p])
        label = ", ".join(f"{c.split('.')[-1]}={v}" for c, v in zip(others, key)) or None
        mean = stats[members, 0]
        err = np.abs(stats[members, 1:].T - mean)
        ax.errorbar(position[members], mean, yerr=err, fmt="o-", capsize=3, label=label)
    ax.set_xticks(ticks)
    ax.set_xticklabels(tick_labels, rotation=30 if len(ticks) > 6 else 0)
    ax.set_xlabel(parameter)
    ax.set_ylabel(title)
    ax.set_title(f"{metric} (mean, 95% CI) per point")
    if others:
        ax.legend(fontsize="small", title=", ".join(c.split(".")[-1] for c in others))
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
    ``quotas`` ({pool: GPUs}), the values are divided by the quota: utilization in [0, 1]; then
    the pools drawn are those in ``quotas`` unless ``pools`` names them. Time is in h, or in d
    for series longer than four days."""
    series = results.timeseries
    if series is None:
        raise ValueError(
            "these results have no time series: set the scenario key timeseries: {step: 1h} "
            "(or override {'timeseries.step': '1h'}) and run again"
        )
    point = results._point(point)
    if pools is None:
        names = [n for n in results.pool_names if quotas is None or n in quotas]
    else:
        names = [pools] if isinstance(pools, str) else list(pools)
    valid = ", ".join(results.pool_names)
    for name in list(names) + list(quotas or {}):
        if name not in results.pool_names:
            raise ValueError(f"utilization: no pool {name!r}; the pools are {valid}")
    if quotas is not None:
        missing = [n for n in names if n not in quotas]
        if missing:
            raise ValueError(f"utilization: quotas has no quota for {', '.join(missing)} (give one per "
                             f"pool drawn, or pools=[...] to draw fewer)")
    if not names:
        raise ValueError("utilization: no pool to draw")
    ax = _axes(ax)
    bins = series.shape[3]
    span_s = bins * results.timeseries_step_s
    unit, seconds = ("d", 86400.0) if span_s > 4 * 86400 else ("h", 3600.0)
    t = (np.arange(bins) + 0.5) * results.timeseries_step_s / seconds
    for name in names:
        k = results.pool_names.index(name)
        values = series[point, :, k, :]
        if quotas is not None:
            values = values / float(quotas[name])
        line = ax.plot(t, values.mean(axis=0), label=name)[0]
        low, high = np.percentile(values, [5, 95], axis=0)
        ax.fill_between(t, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel(f"time [{unit}]")
    ax.set_ylabel("utilization [fraction of quota]" if quotas is not None else "GPUs in use [GPUs]")
    ax.set_title(f"{'utilization' if quotas is not None else 'GPUs in use'} over time: mean, "
                 f"5-95% band ({results.replications} replications)")
    ax.legend(fontsize="small")
    return ax


__all__ = ["distribution", "duration_unit", "frontier", "pareto_points", "sweep_metric", "utilization"]
