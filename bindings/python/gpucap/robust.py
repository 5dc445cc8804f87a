"""Robust plans: every decision of a sweep grid under every named variant of the scenario
(demand x0.75, x1.5, ...), compared by regret. The computation is the C++ one the CLI prints
(``gpucap sweep --variant``); see docs/decisions.md."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import _core
from ._progress import Progress
from .cancel import CancelToken, check_token
from .results import SCALAR_INDEX, UNITS, Results
from .run import MAX_REPLICATIONS, MAX_SEED, MAX_THREADS, ScenarioLike, _check_backend, _whole
from .scenario import as_scenario, value_limit, yaml_value


@dataclass
class RobustChoice:
    """One of a robust plan's two choices, and how it compares with the runner-up.

    ``value`` is the choice's criterion (max regret or expected objective, the objective's
    unit); ``difference`` is the runner-up's minus it, with the 95% interval of that
    difference over replications (common random numbers); ``distinguishable`` is False when the
    interval includes 0 (the data cannot tell the two apart). ``runner_up`` is None when there
    is one decision."""

    criterion: str
    decision: int
    parameters: Dict[str, str]
    value: float
    runner_up: Optional[int]
    runner_up_parameters: Optional[Dict[str, str]]
    difference: float
    ci_low: float
    ci_high: float
    distinguishable: bool

    def __str__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.parameters.items()) or "the scenario"
        return f"{self.criterion} choice: {params} ({self.value:.6g})"


class RobustPlan:
    """The regret table of a robust plan and its minimax-regret and expected choices.

    For an objective to minimize: ``regret[d, v] = mean(d, v) - min over d' of mean(d', v)``;
    a decision's max regret is its largest regret over the variants, its expected objective the
    weighted mean over them. Build one with :func:`gpucap.robust_plan` or, from saved results,
    :meth:`RobustPlan.from_results`.

    Attributes:
        results: the :class:`Results` of the sweep (decisions x variants, one file).
        objective: the metric minimized; ``unit`` its unit.
        means: DataFrame decisions x variants of the objective's means.
        regret: DataFrame decisions x variants of regrets (0 for each variant's best decision).
        table: long DataFrame, one row per (decision, variant): point, mean and its interval,
            regret and the interval of the paired difference from the variant's best decision.
        decisions: DataFrame per decision: max_regret, worst_variant, expected and its interval.
        weights: the normalized weights, {variant: probability}.
        minimax_regret, expected: the two :class:`RobustChoice`.
    """

    def __init__(self, results: Results, objective: str, data: Dict[str, Any]) -> None:
        import pandas as pd

        self.results = results
        self.objective = objective
        self.unit = UNITS[objective]
        self._data = data
        paths: List[str] = list(data["decision_paths"])
        decisions: List[List[str]] = [list(d) for d in data["decisions"]]
        variants: List[str] = list(data["variants"])
        self.variants = variants
        n_variants = len(variants)
        if len(paths) == 1:
            index = pd.Index([d[0] for d in decisions], name=paths[0])
        elif paths:
            index = pd.MultiIndex.from_tuples([tuple(d) for d in decisions], names=paths)
        else:
            index = pd.Index(["(the scenario)"], name="decision")
        columns = pd.Index(variants, name="variant")

        def grid(values: Sequence[float]) -> Any:
            rows = [list(values[d * n_variants:(d + 1) * n_variants]) for d in range(len(decisions))]
            return pd.DataFrame(rows, index=index, columns=columns)

        self.means = grid(data["objective"]["mean"])
        self.regret = grid(data["regret"])
        long_index = pd.MultiIndex.from_tuples(
            [(d, v) for d in range(len(decisions)) for v in variants], names=["decision", "variant"])
        self.table = pd.DataFrame(
            {
                "point": data["points"],
                "mean": data["objective"]["mean"],
                "ci_low": data["objective"]["ci_low"],
                "ci_high": data["objective"]["ci_high"],
                "regret": data["regret"],
                "regret_ci_low": data["regret_interval"]["ci_low"],
                "regret_ci_high": data["regret_interval"]["ci_high"],
            },
            index=long_index,
        )
        self.table.attrs["units"] = {c: self.unit for c in self.table.columns if c != "point"}
        self.decisions = pd.DataFrame(
            {
                "max_regret": data["max_regret"],
                "worst_variant": [variants[v] for v in data["worst_variant"]],
                "expected": data["expected"],
                "expected_ci_low": data["expected_interval"]["ci_low"],
                "expected_ci_high": data["expected_interval"]["ci_high"],
            },
            index=index,
        )
        self.decisions.attrs["units"] = {c: self.unit for c in ("max_regret", "expected", "expected_ci_low",
                                                                 "expected_ci_high")}
        self.weights = dict(zip(variants, data["probabilities"]))
        self.best = {v: int(b) for v, b in zip(variants, data["best"])}

        def params(d: Optional[int]) -> Optional[Dict[str, str]]:
            return None if d is None else dict(zip(paths, decisions[d]))

        def choice(criterion: str, d: int, value: float, c: Dict[str, Any]) -> RobustChoice:
            return RobustChoice(criterion, d, params(d), value, c["runner_up"], params(c["runner_up"]),
                                c["difference"], c["ci_low"], c["ci_high"], c["distinguishable"])

        mm, ex = data["minimax_choice"], data["expected_choice"]
        self.minimax_regret = choice("minimax-regret", mm, data["max_regret"][mm], data["minimax_runner_up"])
        self.expected = choice(f"expected-{objective}", ex, data["expected"][ex], data["expected_runner_up"])

    @property
    def choices_differ(self) -> bool:
        """True when the minimax-regret and the expected choice are different decisions."""
        return self.minimax_regret.decision != self.expected.decision

    @classmethod
    def from_results(
        cls,
        results: Results,
        objective: str = "cost",
        variant_parameter: str = "variant",
        weights: Optional[Mapping[str, float]] = None,
    ) -> "RobustPlan":
        """The robust plan of saved or fresh results.

        Results of :func:`gpucap.robust_plan` or ``gpucap sweep --variant`` have a ``variant``
        parameter (and their weights). A plain sweep works too: name the parameter that holds
        the what-ifs (e.g. ``variant_parameter="workloads.0.arrivals.rate_per_day"``); every
        other parameter is then a decision, and the weights are equal unless given.
        ``weights`` ({variant: weight > 0}, normalized) replaces the stored ones.
        """
        if not isinstance(results, Results):
            raise TypeError(f"results: expected gpucap.Results, got {type(results).__name__}")
        if objective not in SCALAR_INDEX:
            raise ValueError(f"objective {objective!r}: valid metrics are {', '.join(SCALAR_INDEX)}")
        pairs = _weight_pairs(weights)
        data = _core.robust_plan(results._core, SCALAR_INDEX[objective], variant_parameter, pairs)
        return cls(results, objective, data)

    def __str__(self) -> str:
        return self._data["text"]

    def __repr__(self) -> str:
        return (f"RobustPlan({self.objective!r}: {len(self.decisions)} decisions x {len(self.variants)} "
                f"variants; minimax regret -> {self.minimax_regret.parameters}, expected -> "
                f"{self.expected.parameters})")


def _weight_pairs(weights: Optional[Mapping[str, float]]) -> List[tuple]:
    if weights is None:
        return []
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping {{variant: weight}}, got {type(weights).__name__}")
    pairs = []
    for name, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w <= 0:
            raise ValueError(f"weights[{name!r}] = {w!r}: a weight is a positive number")
        pairs.append((str(name), float(w)))
    return pairs


def robust_plan(
    scenario: ScenarioLike,
    grid: Mapping[str, Sequence[Any]],
    variants: Mapping[str, Optional[Mapping[str, Any]]],
    weights: Optional[Mapping[str, float]] = None,
    objective: str = "cost",
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    backend: str = "auto",
    threads: Optional[int] = None,
    progress: bool = True,
    cancel: Optional[CancelToken] = None,
) -> RobustPlan:
    """Runs every decision of ``grid`` under every variant, with common random numbers, and
    compares the decisions by regret.

    Args:
        scenario: a :class:`Scenario` or the path of a scenario file.
        grid: the decisions, as for :func:`gpucap.sweep`: ``{"pools.onprem.count": [16, 32, 48]}``.
        variants: ``{name: {dotted.path: value, ...}}``, e.g. ``{"low": {"workloads.0.arrivals.
            rate_per_day": 3}, "base": {}, "high": {...}}``; any key but the set of pools, and
            none of the grid's paths. Applied after the scenario's own overrides, before the
            decision's values.
        weights: ``{name: weight}`` for the expected objective (normalized; default equal).
        objective: the metric to minimize (default ``"cost"``).
        replications, seed, backend, threads, progress, cancel: as for :func:`gpucap.sweep`.

    Returns:
        :class:`RobustPlan`; its ``results`` hold the sweep (save them with ``.results.save``;
        :meth:`RobustPlan.from_results` recomputes the plan from the file). Raises
        :class:`gpucap.ScenarioError` for a bad variant or point (naming the variant).
    """
    scenario = as_scenario(scenario)
    cancel = check_token(cancel, "robust_plan")
    if objective not in SCALAR_INDEX:
        raise ValueError(f"objective {objective!r}: valid metrics are {', '.join(SCALAR_INDEX)}")
    if not isinstance(grid, Mapping) or not grid:
        raise TypeError("robust_plan: grid must be a non-empty mapping {path: [values...]}")
    paths = list(grid.keys())
    for path in paths:
        if not isinstance(path, str) or not path:
            raise TypeError(f"robust_plan: a grid key must be a dotted path, got {path!r}")
        if isinstance(grid[path], (str, bytes)) or not hasattr(grid[path], "__iter__"):
            raise TypeError(f"robust_plan: grid entry {path!r} must be a list of values, got {grid[path]!r}")
    limit = value_limit(scenario._limits[0])
    texts = [[yaml_value(v, f"grid[{p!r}][{i}]", limit) for i, v in enumerate(grid[p])] for p in paths]
    decisions = _core.expand_grid(list(zip(paths, texts)), "robust_plan: the grid")
    if not isinstance(variants, Mapping) or not variants:
        raise TypeError("robust_plan: variants must be a non-empty mapping {name: {path: value}}")
    pairs = _weight_pairs(weights)
    weight_of = dict(pairs)
    unknown = sorted(set(weight_of) - {str(n) for n in variants})
    if unknown:
        raise ValueError(f"weights: no variant {unknown[0]!r}; the variants are {', '.join(map(str, variants))}")
    tuples = []
    for name, overrides in variants.items():
        if not isinstance(name, str):
            raise TypeError(f"robust_plan: a variant name must be text, got {name!r}")
        overrides = {} if overrides is None else overrides
        if not isinstance(overrides, Mapping):
            raise TypeError(f"variants[{name!r}] must be a mapping {{path: value}}, got {overrides!r}")
        if weights is not None and name not in weight_of:
            raise ValueError(f"weights: variant {name!r} has no weight; weigh every variant")
        weight = repr(weight_of[name]) if name in weight_of else ""
        sets = [(str(p), yaml_value(v, f"variants[{name!r}][{p!r}]", limit)) for p, v in overrides.items()]
        tuples.append((name, weight, sets))
    text, origin, base_dir, overrides_set, limits = scenario._spec()
    points, parameters = _core.check_robust_points(text, origin, base_dir, overrides_set, decisions, tuples,
                                                   *limits)
    _check_backend(backend)
    replications = _whole(replications, "replications", 1, MAX_REPLICATIONS)
    seed = _whole(seed, "seed", 0, MAX_SEED)
    threads = _whole(threads, "threads", 0, MAX_THREADS)
    total = (replications or scenario.replications) * len(points)
    with Progress(total, progress) as bar:
        core = _core.run(points, parameters, scenario._core, replications or 0, seed, 0, backend,
                         threads or 0, bar.callback(), cancel=cancel)
    return RobustPlan.from_results(Results(core), objective)


__all__ = ["RobustChoice", "RobustPlan", "robust_plan"]
