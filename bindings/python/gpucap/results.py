"""Results of a run or a sweep: numpy arrays, pandas frames with units, HDF5, paired comparisons."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core


def _constraint_texts(constraints: Optional[Mapping[str, Any]],
                      chance: Optional[Mapping[str, Optional[float]]]) -> Tuple[List[str], List[str]]:
    """Mean constraints ``{"wait_p95": 3600}`` or ``{"drop_fraction": ("<=", 0.01)}`` and chance
    constraints ``{"on_time": 0.95}`` (None: the goal's target) as the C++ parsers read them."""
    texts = []
    for metric, bound in dict(constraints or {}).items():
        op, value = ("<=", bound) if not isinstance(bound, tuple) else bound
        _metric_index(metric)
        if op not in ("<=", "<", ">=", ">"):
            raise ValueError(f"constraint on {metric}: operator {op!r}; use '<=', '<', '>=' or '>'")
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"constraint on {metric}: the bound must be a number, got {value!r}")
        texts.append(f"{metric} {op} {float(value)!r}")
    chance_texts = []
    for goal, level in dict(chance or {}).items():
        if level is None:
            chance_texts.append(str(goal))
        else:
            if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
                raise ValueError(f"chance[{goal!r}]: the level must be a probability between 0 and 1, got {level!r}")
            chance_texts.append(f"{goal}>={float(level)!r}")
    return texts, chance_texts


class ResultsWarning(UserWarning):
    """Results whose numbers cannot be trusted as they look (every replication identical, ...);
    the text says why and what to change. Filter with ``warnings.simplefilter``."""

_SCALARS = _core.scalar_metrics()  # (name, unit, description, group)
_POOLS = _core.pool_metrics()
SCALAR_INDEX = {row[0]: i for i, row in enumerate(_SCALARS)}
POOL_INDEX = {row[0]: i for i, row in enumerate(_POOLS)}
UNITS = {row[0]: row[1] for row in _SCALARS}
POOL_UNITS = {row[0]: row[1] for row in _POOLS}
_STATS = ["mean", "std", "ci95_low", "ci95_high", "p5", "p50", "p95"]


def _metric_index(metric: str) -> int:
    try:
        return SCALAR_INDEX[metric]
    except KeyError:
        raise KeyError(f"unknown metric {metric!r}; valid: {', '.join(SCALAR_INDEX)}") from None


def _pool_metric_index(metric: str) -> int:
    try:
        return POOL_INDEX[metric]
    except KeyError:
        raise KeyError(f"unknown pool metric {metric!r}; valid: {', '.join(POOL_INDEX)}") from None


_NUMBER_CHARS = re.compile(r"[0-9+\-.eE]*[0-9][0-9+\-.eE]*")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def typed_values(values: Sequence[str]) -> np.ndarray:
    """A sweep parameter's values (as the user wrote them) typed: int64 when every value is a
    whole number, float64 when every value is a plain decimal number ("2.5", "1e3"), else the
    strings unchanged (durations such as "1h", names, booleans). The same rule as the results
    file's coordinates (docs/results-format.md)."""
    values = [str(v) for v in values]
    if values and all(_INTEGER.fullmatch(v) for v in values):
        numbers = [int(v) for v in values]
        if all(-2**63 <= n < 2**63 for n in numbers):
            return np.array(numbers, dtype=np.int64)
    if values and all(_NUMBER_CHARS.fullmatch(v) for v in values):
        try:
            numbers = [float(v) for v in values]
        except ValueError:
            numbers = None
        if numbers is not None and all(math.isfinite(x) for x in numbers):
            return np.array(numbers, dtype=np.float64)
    return np.array(values, dtype=object)


def _names(metrics: Optional[Union[str, Sequence[str]]], default: List[str]) -> List[str]:
    """Metric names from one name, a list of names, or None (all)."""
    if metrics is None:
        return list(default)
    if isinstance(metrics, str):
        return [metrics]
    return list(metrics)


@dataclasses.dataclass
class CheapestPoint:
    """The answer of :meth:`Results.cheapest`.

    Attributes:
        point: index of the cheapest point that meets the constraints.
        parameters: that point's swept values.
        objective: the objective metric's name, and its mean and 95% interval at that point.
        comparisons: a DataFrame, one row per point: its parameters, whether it meets the
            constraints (``feasible``) and whether some constraint's interval contains its bound
            (``undecided``), the objective's mean, the paired difference from the chosen point
            (mean and interval; > 0 means dearer) with ``significant`` when the interval
            excludes 0, and for each chance constraint the goal's probability ``P(goal)`` with
            its exact interval and verdict.
        certain: no undecided constraint at the chosen point or at a cheaper point.
        explanation: the choice in words, and what the data cannot tell.
        chance: the chance constraints applied, goal -> level.
        replications_to_decide: about how many replications would decide the undecided chance
            constraints (0 when none; None when an estimate sits exactly on its level).
    """

    point: int
    parameters: Dict[str, str]
    objective: str
    mean: float
    ci_low: float
    ci_high: float
    comparisons: Any
    certain: bool = True
    explanation: str = ""
    chance: Dict[str, float] = dataclasses.field(default_factory=dict)
    replications_to_decide: Optional[int] = 0

    def __str__(self) -> str:
        params = ", ".join(f"{k} = {v}" for k, v in self.parameters.items()) or "the only point"
        unit = UNITS.get(self.objective, "")
        text = (
            f"cheapest feasible point: {self.point} ({params}): {self.objective} "
            f"{self.mean:.6g} {unit} [{self.ci_low:.6g}, {self.ci_high:.6g}]"
        )
        if not self.certain:
            text += "\n" + self.explanation.split("\n", 1)[1] if "\n" in self.explanation else ""
        return text


class Results:
    """Results of :func:`gpucap.run` or :func:`gpucap.sweep` (or :func:`gpucap.load_results`).

    Per-replication metrics are numpy arrays shaped [points, replications] that view the
    engine's memory without copying (read-only): ``results["cost"]``. Summaries and frames come
    with units: :meth:`summary`, :meth:`to_pandas`. :meth:`save` writes the CLI's HDF5 format.
    """

    def __init__(self, core: "_core.Results") -> None:
        self._core = core

    # -- metadata ------------------------------------------------------------------------------

    @property
    def points(self) -> int:
        return self._core.points

    @property
    def replications(self) -> int:
        """Replications per point that ran: every summary covers them all."""
        return self._core.replications

    @property
    def kept_replications(self) -> int:
        """Replications per point whose rows are kept (the arrays' second dimension): all of
        them unless the run was asked to keep fewer (``rows=``)."""
        return self._core.kept_replications

    @property
    def first_replication(self) -> int:
        return self._core.first_replication

    @property
    def seed(self) -> int:
        return self._core.seed

    @property
    def backend(self) -> str:
        return self._core.backend

    @property
    def device(self) -> str:
        return self._core.device

    @property
    def backend_choice(self) -> str:
        """Why ``backend="auto"`` chose :attr:`backend`: the cost model's expected seconds on the
        CPU and on the GPU (docs/backends.md, "What auto picks"); "" when the backend was named."""
        return self._core.backend_choice

    @property
    def wall_time_s(self) -> float:
        return self._core.wall_time_s

    @property
    def scenario_name(self) -> str:
        return self._core.scenario_name

    @property
    def scenario_text(self) -> str:
        """The scenario that ran, as YAML with its overrides applied: it reloads
        (``Scenario.from_yaml``, with the original base folder) to the same scenario."""
        return self._core.scenario_text

    @property
    def scenario_source(self) -> str:
        """The scenario's text as it was read, before any override."""
        return self._core.scenario_original_text

    @property
    def scenario_overrides(self) -> List[Tuple[str, str]]:
        """The overrides applied to :attr:`scenario_source`, as (dotted path, YAML value)
        pairs in order (a sweep's own values are in :attr:`parameters`)."""
        return [tuple(o) for o in self._core.scenario_overrides]

    def _point(self, point: Any, name: str = "point") -> int:
        """A point index (negative counts from the end), checked: TypeError for anything but a
        whole number, ValueError naming the range when out of it."""
        if isinstance(point, bool) or not isinstance(point, (int, np.integer)):
            raise TypeError(f"{name} must be a whole number (a point index), got {point!r}")
        p = int(point)
        if not -self.points <= p < self.points:
            raise ValueError(f"{name} {p} is out of range: these results have {self.points} "
                             f"point{'s' if self.points != 1 else ''} (0 to {self.points - 1})")
        return p % self.points

    @property
    def warnings(self) -> List[str]:
        """What a table of these results should warn about, one sentence each: every
        replication identical (zero-width intervals), ... (the CLI prints them under its table,
        the report shows them). ``gpucap.run`` also issues each as a :class:`ResultsWarning`."""
        return list(_core.result_warnings(self._core))

    @property
    def pool_names(self) -> List[str]:
        return list(self._core.pool_names)

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """Provenance of the data files the run read (traces, samples, catalogs, availability
        and price traces; every sweep point's, each once; [] when it read none): dicts with
        path (as the scenario names it), resolved_path (absolute, links resolved), size_bytes
        and sha256 (of the bytes parsed, as `sha256sum` prints it). Stored in results files
        (/inputs) and read back with them."""
        return list(self._core.data_files)

    @property
    def metrics(self) -> List[str]:
        """Names of the scalar metrics, in column order."""
        return list(SCALAR_INDEX)

    @property
    def units(self) -> Dict[str, str]:
        """Unit of every scalar metric."""
        return dict(UNITS)

    @property
    def parameters(self) -> Any:
        """The sweep grid: a DataFrame with one row per point and one column per parameter
        (no columns for a plain run). A parameter whose values are all numbers is a number
        column (int64 when all are whole, else float64); others keep the text as written
        ("30min"). :meth:`point_parameters` gives the text as written."""
        import pandas as pd

        data = {path: typed_values(values) for path, values in self._core.sweep}
        return pd.DataFrame(data, index=pd.RangeIndex(self.points, name="point"))

    def point_parameters(self, point: int) -> Dict[str, str]:
        point = self._point(point)
        return {path: values[point] for path, values in self._core.sweep}

    # -- arrays --------------------------------------------------------------------------------

    @property
    def scalars(self) -> np.ndarray:
        """All metrics, [points, replications, metrics] (read-only view)."""
        return self._core.scalars

    @property
    def pool_values(self) -> np.ndarray:
        """All pool metrics, [points, replications, pools, metrics] (read-only view)."""
        return self._core.pool_values

    @property
    def timeseries(self) -> Optional[np.ndarray]:
        """Mean GPUs in use per pool over time, [points, replications, pools, bins] (read-only
        view), or None when the scenario records no time series (key ``timeseries.step``)."""
        return self._core.timeseries

    @property
    def jobs(self) -> Optional["pd.DataFrame"]:
        """Per-job records (scenario key ``records.jobs``), or None when the scenario records
        none: one row per job of the first replications of each point, by point, replication
        and ``job`` (arrival order). Columns: point, replication, job, class (workload name),
        arrival_s, start_s (first launch; NaN if never), end_s (completion; NaN if not done by
        the horizon), wait_s, pool (name of its last launch's pool; None if never), runs,
        preemptions, cost_usd, trace_row (the data row of the trace or ``initial_state`` file
        it came from, 1 = first; 0 when an arrival process drew it: join it back to the log).
        ``df.attrs["units"]`` maps columns to units;
        ``df.attrs["replications"]`` is the number of replications recorded per point."""
        import pandas as pd

        cols = _core.job_records(self._core)
        if cols is None:
            return None
        classes = np.asarray(list(cols.pop("classes")), dtype=object)
        replications = int(cols.pop("replications"))
        pools = np.asarray(list(self._core.pool_names) + [None], dtype=object)
        cols["class"] = classes[cols["class"]] if len(classes) else cols["class"].astype(object)
        cols["pool"] = pools[cols["pool"]]  # -1 (never launched) picks the trailing None
        df = pd.DataFrame(cols)
        df.attrs["units"] = {"arrival_s": "s", "start_s": "s", "end_s": "s", "wait_s": "s",
                             "cost_usd": "USD"}
        df.attrs["replications"] = replications
        return df

    @property
    def timeseries_step_s(self) -> float:
        """Width of the time series' bins, s (bin b covers [b step, (b + 1) step))."""
        return self._core.timeseries_step_s

    def __getitem__(self, metric: str) -> np.ndarray:
        """One metric, [points, replications] (read-only view, no copy)."""
        return self._core.scalars[:, :, _metric_index(metric)]

    def pool(self, metric: str) -> np.ndarray:
        """One pool metric, [points, replications, pools] (read-only view)."""
        return self._core.pool_values[:, :, :, _pool_metric_index(metric)]

    # -- frames --------------------------------------------------------------------------------

    def summary(self, metrics: Optional[Sequence[str]] = None, point: Optional[int] = None) -> Any:
        """Across-replication statistics: mean, std, 95% interval of the mean, p5, p50, p95.

        A DataFrame indexed by metric (plain run) or by (point, metric) (sweep), with a
        ``unit`` column and ``n``, the replications where the metric is defined: a mean, share or
        percentile over no observations (no job completed: no completion time) is NaN in that
        replication and left out. Intervals are clipped to the metric's range (0 and, for
        shares, 1). ``metrics`` selects rows; ``point`` selects one point of a sweep.
        """
        import pandas as pd

        names = _names(metrics, self.metrics)
        idx = [_metric_index(m) for m in names]
        s = self._core.summary  # [points, metrics, 7]
        counts = self._core.summary_n  # [points, metrics]
        points = range(self.points) if point is None else [self._point(point)]
        frames = []
        for p in points:
            df = pd.DataFrame(s[p, idx, :], columns=_STATS, index=pd.Index(names, name="metric"))
            df.insert(0, "unit", [UNITS[m] for m in names])
            df.insert(2, "n", counts[p, idx])
            frames.append(df)
        out = frames[0] if self.points == 1 or point is not None else pd.concat(
            frames, keys=list(points), names=["point", "metric"])
        out.attrs["warnings"] = self.warnings
        return out

    def pool_summary(self, metrics: Optional[Sequence[str]] = None) -> Any:
        """Pool statistics, indexed by (point, pool, metric), with units and ``n`` (the
        replications where the metric is defined), as :meth:`summary`."""
        import pandas as pd

        names = _names(metrics, list(POOL_INDEX))
        idx = [_pool_metric_index(m) for m in names]
        s = self._core.pool_summary  # [points, pools, metrics, 7]
        counts = self._core.pool_summary_n  # [points, pools, metrics]
        rows, index, n = [], [], []
        for p in range(self.points):
            for k, pool in enumerate(self.pool_names):
                for name, i in zip(names, idx):
                    rows.append(s[p, k, i, :])
                    index.append((p, pool, name))
                    n.append(counts[p, k, i])
        df = pd.DataFrame(np.array(rows).reshape(len(rows), 7), columns=_STATS,
                          index=pd.MultiIndex.from_tuples(index, names=["point", "pool", "metric"]))
        df.insert(0, "unit", [POOL_UNITS[i[2]] for i in index])
        df.insert(2, "n", n)
        return df

    def to_pandas(self, metrics: Optional[Sequence[str]] = None, long: bool = False) -> Any:
        """Per-replication metrics: one row per (point, replication), one column per metric,
        plus the sweep parameters (typed as in :attr:`parameters`); ``df.attrs["units"]`` maps
        columns to units.

        With ``long=True``, a tidy frame instead: one row per (point, replication, metric), with
        columns point, replication, the sweep parameters, metric, value and unit, ready for
        ``groupby``, seaborn or a database."""
        import pandas as pd

        names = _names(metrics, self.metrics)
        if long:
            return self._long_frame(names)
        idx = [_metric_index(m) for m in names]
        kept = self.kept_replications
        flat = self._core.scalars[:, :, idx].reshape(self.points * kept, len(idx))
        index = pd.MultiIndex.from_product(
            [range(self.points), range(self.first_replication, self.first_replication + kept)],
            names=["point", "replication"],
        )
        df = pd.DataFrame(flat, columns=names, index=index)
        for column, (path, values) in enumerate(self._core.sweep):
            df.insert(column, path, np.repeat(typed_values(values), kept))
        df.attrs["units"] = {m: UNITS[m] for m in names}
        return df

    def _long_frame(self, names: List[str]) -> Any:
        import pandas as pd

        idx = [_metric_index(m) for m in names]
        P, R, M = self.points, self.kept_replications, len(idx)
        values = self._core.scalars[:, :, idx].reshape(P * R * M)
        columns: Dict[str, Any] = {
            "point": np.repeat(np.arange(P, dtype=np.int64), R * M),
            "replication": np.tile(np.repeat(np.arange(self.first_replication,
                                                       self.first_replication + R, dtype=np.int64), M), P),
        }
        for path, raw in self._core.sweep:
            columns[path] = np.repeat(typed_values(raw), R * M)
        columns["metric"] = pd.Categorical(np.tile(np.array(names, dtype=object), P * R), categories=names)
        columns["value"] = values
        columns["unit"] = np.tile(np.array([UNITS[m] for m in names], dtype=object), P * R)
        return pd.DataFrame(columns)

    def to_xarray(self) -> Any:
        """Everything per replication as an ``xarray.Dataset`` (needs xarray) with dimensions
        point, replication, pool and, when the scenario records a time series, time:

        - each scalar metric as a variable (point, replication), each pool metric as
          ``pool_<metric>`` (point, replication, pool), and ``gpus_in_use`` (point,
          replication, pool, time); attributes ``unit`` and ``description``;
        - coordinates point (0 to P - 1), replication (first_replication onwards), pool (names),
          time (each bin's start, s) and each sweep parameter along point (named by its path,
          typed as in :attr:`parameters`);
        - the run's provenance (scenario, seed, backend, gpucap version) as attributes.

        The same names as the results file opened with ``xarray.open_datatree``
        (docs/results-format.md). The arrays are copies."""
        import xarray as xr

        P, R = self.points, self.kept_replications
        coords: Dict[str, Any] = {
            "point": ("point", np.arange(P, dtype=np.int64)),
            "replication": ("replication", np.arange(self.first_replication, self.first_replication + R,
                                                     dtype=np.int64)),
            "pool": ("pool", np.array(self.pool_names, dtype=object)),
        }
        for path, raw in self._core.sweep:
            coords[path] = ("point", typed_values(raw))
        data: Dict[str, Any] = {}
        scalars = np.array(self._core.scalars)
        for i, (name, unit, description, *_rest) in enumerate(_SCALARS):
            data[name] = (("point", "replication"), scalars[:, :, i], {"unit": unit, "description": description})
        pools = np.array(self._core.pool_values)
        for i, (name, unit, description, *_rest) in enumerate(_POOLS):
            data[f"pool_{name}"] = (("point", "replication", "pool"), pools[:, :, :, i],
                                   {"unit": unit, "description": f"per pool: {description}"})
        series = self._core.timeseries
        if series is not None:
            step = self.timeseries_step_s
            coords["time"] = ("time", np.arange(series.shape[3], dtype=np.float64) * step,
                              {"unit": "s", "description": "start of each time-series bin"})
            data["gpus_in_use"] = (("point", "replication", "pool", "time"), np.array(series),
                                   {"unit": "GPUs", "description": "mean GPUs in use per pool over each bin"})
        attrs = {"scenario_name": self.scenario_name, "scenario": self.scenario_text,
                 "seed": self.seed, "first_replication": self.first_replication,
                 "backend": self.backend, "backend_choice": self.backend_choice, "device": self.device,
                 "gpucap_version": self._core.gpucap_version}
        if series is not None:
            attrs["timeseries_step_s"] = self.timeseries_step_s
        return xr.Dataset(data, coords=coords, attrs=attrs)

    # -- comparisons ---------------------------------------------------------------------------

    def paired_difference(self, metric: str, a: int, b: int, confidence: float = 0.95) -> Dict[str, float]:
        """Metric at point a minus point b, replication by replication (common random numbers),
        with its mean, standard deviation and Student-t interval."""
        a, b = self._point(a, "a"), self._point(b, "b")  # negative indices too
        if not isinstance(confidence, (float, int)) or not 0 < confidence < 1:
            raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
        n, mean, std = self._core.paired_difference(_metric_index(metric), a, b)
        # One replication gives no interval: NaN bounds, as the summaries.
        half = _core.student_t_quantile(confidence, n - 1) * std / math.sqrt(n) if n > 1 else math.nan
        return {"mean": mean, "std": std, "ci_low": mean - half, "ci_high": mean + half, "n": int(n)}

    def cheapest(
        self,
        objective: str = "cost",
        constraints: Optional[Mapping[str, Union[float, Tuple[str, float]]]] = None,
        conservative: bool = False,
        confidence: float = 0.95,
        chance: Optional[Mapping[str, Optional[float]]] = None,
        points: Optional[Sequence[int]] = None,
    ) -> CheapestPoint:
        """The point with the lowest mean `objective` among those meeting every constraint.

        ``constraints`` maps a metric to an upper bound (``{"wait_p95": 3600}``) or to an
        (operator, bound) pair, operator "<=", "<", ">=" or ">" (``{"drop_fraction": ("<=",
        0.01)}``): a bound on the metric's mean. ``chance`` maps a goal of the scenario's
        ``goals:`` to the probability it must be met with (``{"on_time": 0.95}``; None: the
        goal's ``target``). A point meets a mean constraint when the mean does and a chance
        constraint when the estimated probability does; with ``conservative=True``, only when the
        whole 95% interval does (Student t for means, exact Clopper-Pearson for probabilities).

        The answer says whether it is ``certain``: a constraint whose interval contains its bound
        is undecided, and when the chosen point or a cheaper one has one, the data cannot tell
        whether another point would be the answer (``explanation`` names them and about how many
        replications would decide). The comparisons give, for every point, the paired difference
        of the objective from the chosen point and each goal's probability with its interval.
        ``points`` limits the choice to part of the grid (point indices; the others are still
        judged and listed in ``comparisons``). Raises ValueError when no point meets the
        constraints (with the same explanation).
        """
        import pandas as pd

        _metric_index(objective)
        texts, chance_texts = _constraint_texts(constraints, chance)
        allowed = [self._point(p, "points: point") for p in (points or [])]
        answer = self._core.cheapest(objective, texts, chance_texts, bool(conservative), allowed)
        if not answer["found"]:
            raise ValueError(answer["explanation"])
        best = int(answer["best"])
        summary = self._core.summary  # [points, metrics, 7]
        j = _metric_index(objective)
        means = summary[:, j, 0]
        goal_rows = {(row["point"], row["goal"]): row for row in self._core.goal_summary}
        rows = []
        for p in range(self.points):
            d = self.paired_difference(objective, p, best, confidence)
            standing = answer["points"][p]
            row = {**self.point_parameters(p), "feasible": bool(standing["feasible"]),
                   "undecided": bool(standing["undecided"]), objective: float(means[p]),
                   "minus_best": d["mean"], "ci_low": d["ci_low"], "ci_high": d["ci_high"],
                   "significant": p != best and (d["ci_low"] > 0 or d["ci_high"] < 0)}
            for (goal, _), verdict in zip(answer["chance_levels"], standing["chance"]):
                g = goal_rows[(p, goal)]
                row[f"P({goal})"] = g["probability"]
                row[f"P({goal}) low"] = g["exact_low"]
                row[f"P({goal}) high"] = g["exact_high"]
                row[f"P({goal}) verdict"] = verdict
            rows.append(row)
        comparisons = pd.DataFrame(rows, index=pd.RangeIndex(self.points, name="point"))
        mean, low, high = summary[best, j, [0, 2, 3]]
        return CheapestPoint(best, self.point_parameters(best), objective, float(mean), float(low), float(high),
                             comparisons, certain=bool(answer["certain"]), explanation=answer["explanation"],
                             chance={goal: level for goal, level in answer["chance_levels"]},
                             replications_to_decide=answer["replications_to_decide"])

    # -- goals ---------------------------------------------------------------------------------

    @property
    def stopping_rule(self) -> str:
        """How the replication count was chosen: "" for a fixed count, else the stopping rule
        (``precision=``) and its outcome."""
        return self._core.stopping_rule

    @property
    def goals(self) -> List[Dict[str, Any]]:
        """The scenario's goals (its ``goals:`` section): dicts with name, definition (the
        conditions joined with " and "), conditions, description and target (None when not
        given)."""
        return list(self._core.goals)

    @property
    def goal_met(self) -> np.ndarray:
        """[points, replications, goals]: 1 where the replication met the goal, else 0 (uint8)."""
        return self._core.goal_met

    def goal_summary(self, point: Optional[int] = None) -> Any:
        """The probability of meeting each goal: a DataFrame indexed by goal (plain run) or by
        (point, goal) (sweep), with met, n, probability, its exact (Clopper-Pearson) and Wilson
        95% intervals, the target, the verdict against it ("meets", "fails", "cannot tell") and
        about how many replications would decide a "cannot tell"."""
        import pandas as pd

        rows = self._core.goal_summary
        if point is not None:
            point = self._point(point)
            rows = [r for r in rows if r["point"] == point]
        columns = ["met", "n", "probability", "exact_low", "exact_high", "wilson_low", "wilson_high",
                   "target", "verdict", "replications_to_decide"]
        df = pd.DataFrame(rows, columns=["point", "goal"] + columns)
        if self.points == 1 or point is not None:
            return df.drop(columns="point").set_index("goal")
        return df.set_index(["point", "goal"])

    # -- files ---------------------------------------------------------------------------------

    def save(self, path: Union[str, os.PathLike], force: bool = False) -> None:
        """Writes the results to an HDF5 file in the CLI's format (docs/results-format.md),
        atomically: an exclusive temporary file with an unpredictable name, then a rename.

        Never writes through a symbolic link, onto a special file (a device, a FIFO, a folder)
        or onto a file the run read; ``force=True`` replaces a symbolic link at ``path`` (the
        link itself, never its target). Raises :class:`gpucap.OutputError` (an OSError).
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path: expected a file name, got {type(path).__name__}")
        removed = self._core.save(os.fsdecode(os.fspath(path)), bool(force))
        for stale in removed:
            import warnings

            warnings.warn(f"removed {stale!r}, a temporary file left by an earlier write that was killed",
                          RuntimeWarning, stacklevel=2)

    def __repr__(self) -> str:
        what = f"{self.points} points x " if self.points > 1 else ""
        return (
            f"Results({self.scenario_name!r}: {what}{self.replications} replications"
            f"{'' if self.kept_replications == self.replications else f' ({self.kept_replications} rows kept)'}"
            f", seed {self.seed}, "
            f"backend {self.backend} ({self.device}), {self.wall_time_s:.3g} s)"
        )

    def report(
        self,
        path: Optional[Union[str, os.PathLike]] = None,
        objective: str = "cost",
        versus: Optional[str] = None,
        force: bool = False,
        constraints: Optional[Mapping[str, Union[float, Tuple[str, float]]]] = None,
        chance: Optional[Mapping[str, Optional[float]]] = None,
        conservative: bool = False,
    ) -> Optional[str]:
        """The self-contained HTML report of these results, as ``gpucap report`` writes it
        (docs/report.md): the scenario, the summary with 95% intervals and units, histograms
        across replications, utilization (over time when recorded), and for a sweep the frontier
        of ``objective`` against ``versus`` (default wait_p95, or latency_p95 for inference-only
        scenarios) with the chosen point (lowest mean objective). No script; figures are inline
        SVG. ``constraints``, ``chance`` and ``conservative`` (as :meth:`cheapest` takes them)
        ask the question: the chosen point is then the cheapest that meets them, none when no
        point does, and the sweep table gives each point's standing.

        With ``path``, writes the file atomically under the rules of :meth:`save` (never through
        a link unless ``force``, never onto a file the run read) and returns None; without it,
        returns the HTML text. Raises ValueError for an unknown metric name and
        :class:`gpucap.OutputError` (an OSError) for a refused output.
        """
        texts, chance_texts = _constraint_texts(constraints, chance)
        question = (texts, chance_texts, bool(conservative))
        if path is None:
            return _core.render_report(self._core, objective, versus, *question)
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path: expected a file name, got {type(path).__name__}")
        removed = _core.write_report(self._core, os.fsdecode(os.fspath(path)), objective, versus, bool(force),
                                     *question)
        for stale in removed:
            import warnings

            warnings.warn(f"removed {stale!r}, a temporary file left by an earlier write that was killed",
                          RuntimeWarning, stacklevel=2)
        return None


def load_results(path: Union[str, os.PathLike]) -> Results:
    """Reads a results file written by ``gpucap run -o`` or :meth:`Results.save`.

    Checksums are verified (every dataset's Fletcher32 and the file's content checksum), so a
    corrupt file is refused. Raises :class:`gpucap.ResultsFileError` (an OSError) naming the
    file and what is wrong.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file name, got {type(path).__name__}")
    return Results(_core.Results.load(os.fsdecode(os.fspath(path))))


def concat(results: Sequence[Results], dim: str = "point") -> Results:
    """Joins results of the same scenario and seed into one, as if one run had produced them.

    ``dim="point"``: sweeps of the same scenario (source text and overrides), seed, pools and
    replications with different grids; the points one after the other (a point present in two
    parts is kept once). Every part must sweep the same parameters: give a parameter you kept
    fixed as a one-value grid. ``dim="replication"``: runs of the same points with consecutive
    replication ranges ([0, 1000) and [1000, 2000)), in any order.

    Replication r of every point draws the same random numbers in any run with that seed, so
    the joined rows and recomputed summaries are the same bits as one run of the whole. Raises
    ValueError naming the part and what differs (scenario, seed, pools, replications,
    parameters, a gap between chunks).
    """
    parts = list(results)
    if not parts:
        raise ValueError("concat: no results to join")
    for i, r in enumerate(parts):
        if not isinstance(r, Results):
            raise TypeError(f"concat: part {i} is a {type(r).__name__}, expected gpucap.Results")
    if dim not in ("point", "replication"):
        raise ValueError(f"concat: dim is {dim!r}; valid: 'point' or 'replication'")
    return Results(_core.concat_results([r._core for r in parts], dim))


__all__ = ["CheapestPoint", "Results", "concat", "load_results", "typed_values", "SCALAR_INDEX", "UNITS"]

