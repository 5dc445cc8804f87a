"""Selecting the best sweep point with a statistical guarantee (procedure KN, Kim & Nelson 2001).

    >>> sel = gpucap.select_best("scenarios/mmc_validation.yaml",
    ...                          {"pools.gpus.quota": [8, 9, 12]},
    ...                          objective="wait_mean", delta=60)
    >>> sel.best, sel.parameters      # (2, {'pools.gpus.quota': '12'})
    >>> print(sel)                    # the table: replications, mean, 95% CI, status

See docs/decisions.md ("Selecting the best") for the procedure and what the guarantee means.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from typing import Any, Dict, Mapping, Optional, Sequence

from . import _core
from .cancel import CancelToken, check_token
from .run import MAX_REPLICATIONS, MAX_SEED, MAX_THREADS, ScenarioLike, _check_backend, _grid_points, _whole
from .scenario import as_scenario

#: Replications per point at which a race still open stops without the guarantee (C++ constant).
DEFAULT_MAX_REPLICATIONS = _core.DEFAULT_SELECTION_CAP


@dataclasses.dataclass
class Selection:
    """The answer of :func:`select_best`.

    Attributes:
        best: index of the selected point (in grid order, first key slowest; with ``points``,
            still the grid's index).
        parameters: that point's swept values.
        guaranteed: True when the procedure ended by its own rule, so that the best is the
            true best with probability at least ``1 - alpha`` whenever it is at least ``delta``
            better than every other point; False when the race was still open at
            ``max_replications`` (then ``best`` has the best mean among those left).
        objective, unit, maximize, delta, alpha, initial, max_replications: what was asked.
        replications: replications of the best point (the last r of the race).
        used: replications used by the procedure, all points together; ``simulated`` also
            counts those run past a point's elimination inside a batch (never used).
        bound: the replication by which the race ends at the latest (exact ties aside).
        seed, backend, scenario_name: what ran.
        table: a DataFrame, one row per point: its parameters, ``replications`` (used),
            ``simulated``, the objective's ``mean``, ``std``, ``ci95_low``, ``ci95_high`` (over
            its used replications, in ``unit``; ``table.attrs["units"]``), ``status`` (best,
            eliminated, tied, at_cap), ``eliminated_by`` (a point index, or <NA>) and ``detail``.
    """

    best: int
    parameters: Dict[str, str]
    guaranteed: bool
    objective: str
    unit: str
    maximize: bool
    delta: float
    alpha: float
    initial: int
    max_replications: int
    replications: int
    used: int
    simulated: int
    bound: int
    seed: int
    backend: str
    scenario_name: str
    table: Any

    def __str__(self) -> str:
        u = self.unit
        goal = "maximize" if self.maximize else "minimize"
        head = (
            f"select the best of {len(self.table)} points of \"{self.scenario_name}\": {goal} {self.objective} [{u}], "
            f"delta {self.delta:.6g} {u}, alpha {self.alpha:.6g}, initial {self.initial} "
            f"replications, seed {self.seed}, backend {self.backend}\n"
            f"P(correct selection) >= {100 * (1 - self.alpha):.6g}% when the best mean is at "
            "least delta better than every other\n\n"
        )
        shown = self.table.drop(columns=["simulated", "std", "status", "eliminated_by"]).copy()
        shown[f"{self.objective} [{u}]"] = shown.pop("mean").map(lambda v: f"{v:.4g}")
        low, high = shown.pop("ci95_low"), shown.pop("ci95_high")
        shown[f"95% CI of mean [{u}]"] = [
            "n/a" if math.isnan(a) else f"[{a:.4g}, {b:.4g}]" for a, b in zip(low, high)
        ]
        shown["status"] = shown.pop("detail")
        label = ", ".join(f"{k} = {v}" for k, v in self.parameters.items())
        best_mean = self.table["mean"].loc[self.best]
        tail = f"\n\nbest: point {self.best} ({label}), {self.objective} {best_mean:.4g} {u}"
        if not self.guaranteed:
            tail += (f"; NO GUARANTEE: several points were still in the race at "
                     f"max_replications {self.max_replications}; raise it or widen delta")
        tail += (f"\nreplications: {self.used} used by the procedure, {self.simulated} simulated "
                 "(a batch runs on past an elimination; those are not used); the race ends by "
                 f"replication {self.bound} at the latest (ties aside)")
        return head + shown.to_string() + tail


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"select_best: {name} must be a number, got {value!r} ({type(value).__name__})")
    return float(value)


def _grid_index(point: Any, count: int) -> int:
    """A point index of a grid of `count` points (negative counts from the end), checked."""
    if isinstance(point, bool) or not isinstance(point, numbers.Integral):
        raise TypeError(f"select_best: points: a point must be a whole number (an index), got {point!r}")
    p = int(point)
    if not -count <= p < count:
        raise ValueError(f"select_best: points: point {p} is out of range: the grid has {count} "
                         f"points (0 to {count - 1})")
    return p % count


def select_best(
    scenario: ScenarioLike,
    grid: Mapping[str, Sequence[Any]],
    objective: str = "cost",
    delta: float = None,  # type: ignore[assignment]
    alpha: float = 0.05,
    initial: int = 20,
    max_replications: Optional[int] = None,
    maximize: bool = False,
    seed: Optional[int] = None,
    backend: str = "auto",
    threads: Optional[int] = None,
    skip_invalid: bool = False,
    cancel: Optional[CancelToken] = None,
    points: Optional[Sequence[int]] = None,
) -> Selection:
    """Selects the best point of a parameter grid with a guarantee (procedure KN).

    Every point runs ``initial`` replications; then, one replication at a time and with common
    random numbers (replication r of every point draws the same random numbers), points whose
    mean ``objective`` is clearly worse than another's are screened out, and the others run on
    until one is left. The point selected is the best with probability at least ``1 - alpha``
    whenever the best mean is at least ``delta`` better than every other (the indifference
    zone: differences below ``delta``, in the objective's unit, do not matter).

    Args:
        scenario: a :class:`Scenario` or the path of a scenario file.
        grid: ``{path: [values...]}`` as for :func:`gpucap.sweep`: the points are its product.
        objective: any per-replication metric (:func:`gpucap.scalar_metrics`), defined in every
            replication; the best has the smallest mean (the largest with ``maximize=True``).
        delta: the indifference zone, in the objective's unit; required, > 0.
        alpha: 1 - the probability of correct selection; 0 < alpha < 1 - 1/points.
        initial: first-stage replications of every point (>= 2; more give better variance
            estimates and fewer wasted replications later).
        max_replications: the most replications of one point (default
            ``DEFAULT_MAX_REPLICATIONS``); a race still open there ends without the guarantee.
        seed, backend, threads: as for :func:`gpucap.run`.
        skip_invalid: as for :func:`gpucap.sweep`.
        cancel: a :class:`gpucap.CancelToken`, as for :func:`gpucap.run`.
        points: race only these points of the grid (indices in grid order, as
            :meth:`Results.cheapest` takes them; at least 2); the table, ``best`` and
            ``eliminated_by`` keep the grid's indices. Replication r of a point draws the same
            random numbers whichever points race beside it.

    Returns:
        :class:`Selection`, whose ``table`` says each point's replications, mean with its 95%
        interval and why it was eliminated.
    """
    scenario = as_scenario(scenario)
    cancel = check_token(cancel, "select_best")
    if not isinstance(objective, str):
        raise TypeError(f"select_best: objective must be a metric name, got {objective!r}")
    if delta is None:
        raise TypeError("select_best: delta is required: the smallest difference in the objective "
                        "worth detecting, in its unit (e.g. delta=100 for 100 USD)")
    delta = _number(delta, "delta")
    alpha = _number(alpha, "alpha")
    initial = _whole(initial, "initial", 2, MAX_REPLICATIONS)
    max_replications = _whole(max_replications, "max_replications", initial, MAX_REPLICATIONS)
    seed = _whole(seed, "seed", 0, MAX_SEED)
    threads = _whole(threads, "threads", 0, MAX_THREADS)
    _check_backend(backend)
    grid_points, parameters = _grid_points(scenario, grid, skip_invalid, "select_best")
    ids = list(range(len(grid_points)))
    if points is not None:
        ids = sorted({_grid_index(p, len(grid_points)) for p in points})
    raced = [grid_points[i] for i in ids]
    if len(raced) < 2:
        given = "points= gives" if points is not None else "the grid gives"
        raise ValueError(f"select_best: needs at least 2 points, {given} {len(raced)}; "
                         + ("give more points" if points is not None else "give the grid more values"))
    parameters = [(path, [values[i] for i in ids]) for path, values in parameters]
    out = _core.select_best(
        [p._core for p in raced], scenario._core, objective, delta, alpha, initial,
        max_replications, bool(maximize), seed, backend, threads or 0, cancel,
    )
    import pandas as pd

    rows = out["points"]
    if ids != list(range(len(ids))):  # the race's "by point k" in grid indices
        for r in rows:
            r["detail"] = re.sub(r"(by point|with point) (\d+)",
                                 lambda m: f"{m.group(1)} {ids[int(m.group(2))]}", r["detail"])
    table = pd.DataFrame(
        {
            **{path: values for path, values in parameters},
            **{key: [r[key] for r in rows] for key in (
                "replications", "simulated", "mean", "std", "ci95_low", "ci95_high", "status",
                "eliminated_by", "detail")},
        }
    )
    table["eliminated_by"] = pd.array(
        [None if e is None or pd.isna(e) else ids[int(e)] for e in table["eliminated_by"].tolist()],
        dtype="Int64")
    table.index = pd.Index(ids, name="point")
    table.attrs["units"] = {k: out["unit"] for k in ("mean", "std", "ci95_low", "ci95_high")}
    best = out["best"]
    return Selection(
        best=ids[best],
        parameters={path: values[best] for path, values in parameters},
        guaranteed=out["guaranteed"],
        objective=objective,
        unit=out["unit"],
        maximize=bool(maximize),
        delta=delta,
        alpha=alpha,
        initial=initial,
        max_replications=max_replications or max(DEFAULT_MAX_REPLICATIONS, initial),
        replications=out["replications"],
        used=out["used"],
        simulated=out["simulated"],
        bound=out["bound"],
        seed=out["seed"],
        backend=out["backend"],
        scenario_name=scenario.name,
        table=table,
    )
