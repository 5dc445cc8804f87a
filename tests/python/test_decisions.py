"""Goals, chance-constrained choices and the stopping rule from Python."""

import math

import numpy as np
import pytest

import gpucap
from gpucap import _core

GOALS = """
goals:
  short_waits:
    description: the mean wait stays under 20 minutes
    require: [wait_mean <= 20min]
    target: 0.9
  all_done: {require: [jobs_completed >= 0.98 * jobs_arrived]}
"""


@pytest.fixture()
def mmc_goals():
    from conftest import MMC

    return gpucap.Scenario.from_yaml(MMC + GOALS)


def test_goal_probabilities_are_the_share_of_replications(mmc_goals):
    r = gpucap.run(mmc_goals, replications=300, seed=2, progress=False)
    assert [g["name"] for g in r.goals] == ["short_waits", "all_done"]
    assert r.goals[0]["target"] == 0.9 and r.goals[1]["target"] is None
    assert r.goals[0]["definition"] == "wait_mean <= 20min"
    met = r.goal_met
    assert met.shape == (1, 300, 2) and met.dtype == np.uint8
    assert np.array_equal(met[0, :, 0], (r["wait_mean"][0] <= 1200).astype(np.uint8))
    table = r.goal_summary()
    row = table.loc["short_waits"]
    assert row["met"] == int(met[0, :, 0].sum()) and row["n"] == 300
    assert 0 < row["met"] < 300  # the goal is neither certain nor impossible here
    exact = _core.clopper_pearson_interval(int(row["met"]), 300)
    assert row["exact_low"] == exact["low"] and row["exact_high"] == exact["high"]
    assert row["verdict"] in ("meets", "fails", "cannot tell")
    assert row["exact_low"] <= row["wilson_low"] <= row["probability"] <= row["wilson_high"] <= row["exact_high"]


def test_goals_survive_a_results_file(mmc_goals, tmp_path):
    r = gpucap.run(mmc_goals, replications=50, seed=2, progress=False)
    path = tmp_path / "goals.h5"
    r.save(path)
    back = gpucap.load_results(path)
    assert back.goals == r.goals
    assert np.array_equal(back.goal_met, r.goal_met)
    assert back.goal_summary().equals(r.goal_summary())


def test_cheapest_under_a_chance_constraint(mmc_goals):
    r = gpucap.sweep(mmc_goals, {"pools.gpus.quota": [4, 5, 6, 8]}, replications=256, seed=1, progress=False)
    table = r.goal_summary()
    p = table.xs("short_waits", level="goal")["probability"].to_numpy()
    costs = r.summary(["cost"])["mean"].to_numpy()
    level = 0.8
    best = r.cheapest("cost", chance={"short_waits": level})
    feasible = p >= level
    assert best.point == int(np.flatnonzero(feasible)[np.argmin(costs[feasible])])
    assert list(best.comparisons["feasible"]) == list(feasible)
    assert best.chance == {"short_waits": level}
    for point in range(r.points):
        row = best.comparisons.loc[point]
        assert row["P(short_waits)"] == p[point]
        low, high = row["P(short_waits) low"], row["P(short_waits) high"]
        verdict = "meets" if low >= level else "fails" if high < level else "cannot tell"
        assert row["P(short_waits) verdict"] == verdict
    # The goal's own target (0.9) when the level is None.
    assert r.cheapest(chance={"short_waits": None}).chance == {"short_waits": 0.9}
    # Conservative: the exact interval's lower end must clear the level.
    careful = r.cheapest(chance={"short_waits": level}, conservative=True)
    lows = best.comparisons["P(short_waits) low"].to_numpy()
    assert careful.point == int(np.flatnonzero(lows >= level)[np.argmin(costs[lows >= level])])
    assert isinstance(best.certain, bool) and "cheapest feasible point" in best.explanation
    # Part of the grid: only the points allowed may be chosen; the others are still judged.
    allowed = [q for q in range(r.points) if q != best.point]
    mask = feasible.copy()
    mask[best.point] = False
    if mask.any():
        part = r.cheapest("cost", chance={"short_waits": level}, points=allowed)
        assert part.point == int(np.flatnonzero(mask)[np.argmin(costs[mask])])
        assert list(part.comparisons["feasible"]) == list(feasible)
    with pytest.raises(ValueError, match="out of range"):
        r.cheapest("cost", points=[r.points])
    with pytest.raises(TypeError):
        r.cheapest("cost", points=["0"])


def test_chance_errors_name_what_is_valid(mmc_goals, mmc):
    r = gpucap.run(mmc_goals, replications=20, seed=2, progress=False)
    with pytest.raises(ValueError, match="no goal named 'shrt_waits' .*did you mean 'short_waits'"):
        r.cheapest(chance={"shrt_waits": 0.9})
    with pytest.raises(ValueError, match="between 0 and 1"):
        r.cheapest(chance={"short_waits": 1.5})
    with pytest.raises(ValueError, match="has no target"):
        r.cheapest(chance={"all_done": None})
    plain = gpucap.run(mmc, replications=20, seed=2, progress=False)
    assert plain.goals == [] and plain.goal_met.shape == (1, 20, 0)
    with pytest.raises(ValueError, match="these results have no goals"):
        plain.cheapest(chance={"x": 0.5})
    with pytest.raises(ValueError, match="no point meets the constraints"):
        r.cheapest(chance={"short_waits": 0.999999}, conservative=True)


def test_goal_errors_point_at_the_condition(mmc):
    from conftest import MMC

    with pytest.raises(gpucap.ScenarioError, match=r"goals\.x\.require\[0\]: .*unknown metric 'cots'"):
        gpucap.Scenario.from_yaml(MMC + "goals:\n  x: {require: [cots <= 1]}\n")


def test_stopping_rule_gives_the_bits_of_a_fixed_run(mmc):
    r = gpucap.run(mmc, replications=64, seed=3, precision=0.01, metrics=["cost", "wait_mean"], progress=False)
    assert r.replications % 256 == 0
    assert "reached at" in r.stopping_rule and "cost, wait_mean" in r.stopping_rule
    for metric in ("cost", "wait_mean"):
        s = r.summary([metric]).loc[metric]
        assert (s["ci95_high"] - s["ci95_low"]) / 2 <= 0.01 * abs(s["mean"])
    fixed = gpucap.run(mmc, replications=r.replications, seed=3, progress=False)
    assert fixed.stopping_rule == ""
    assert np.array_equal(r.scalars, fixed.scalars, equal_nan=True)
    assert r.summary().equals(fixed.summary())


def test_stopping_rule_options_are_checked(mmc):
    with pytest.raises(ValueError, match="precision must be"):
        gpucap.run(mmc, replications=10, precision=0, progress=False)
    with pytest.raises(ValueError, match="only with precision"):
        gpucap.run(mmc, replications=10, max_replications=100, progress=False)
    with pytest.raises(KeyError, match="unknown metric"):
        gpucap.run(mmc, replications=10, precision=0.1, metrics=["cots"], progress=False)
    capped = gpucap.run(mmc, replications=10, precision=1e-6, max_replications=300, progress=False)
    assert capped.replications == 300 and "NOT reached" in capped.stopping_rule
    swept = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 6]}, replications=10, precision=0.05, progress=False)
    for point in range(2):
        s = swept.summary(["cost"], point=point).loc["cost"]
        assert (s["ci95_high"] - s["ci95_low"]) / 2 <= 0.05 * s["mean"]
    assert math.isfinite(swept.summary(["cost"], point=0).loc["cost"]["mean"])
