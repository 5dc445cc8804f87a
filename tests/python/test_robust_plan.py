"""Robust plans from Python: gpucap.robust_plan and RobustPlan.from_results, checked against plain
sweeps of each variant (bit-identical means), the CLI's results file, and bad inputs."""

import subprocess

import numpy as np
import pytest

import gpucap

GRID = {"pools.onprem-h100.count": [16, 48]}
VARIANTS = {
    "low": {"workloads.0.arrivals.rate_per_day": 2.5, "workloads.1.arrivals.rate_per_hour": 3},
    "base": {},
    "high": {"workloads.0.arrivals.rate_per_day": 7.5, "workloads.1.arrivals.rate_per_hour": 9},
}
RUN = {"replications": 6, "seed": 5, "progress": False}


@pytest.fixture(scope="module")
def scenario(scenarios):
    return gpucap.Scenario.load(scenarios / "owned_baseline_burst.yaml")


@pytest.fixture(scope="module")
def plan(scenario):
    return gpucap.robust_plan(scenario, GRID, VARIANTS, weights={"low": 1, "base": 2, "high": 1}, **RUN)


def test_table_matches_plain_sweeps_of_each_variant_bit_for_bit(scenario, plan):
    assert plan.results.points == 6
    assert list(plan.regret.columns) == ["low", "base", "high"]
    assert list(plan.regret.index) == ["16", "48"]
    assert plan.weights == {"low": 0.25, "base": 0.5, "high": 0.25}
    for name, overrides in VARIANTS.items():
        plain = gpucap.sweep(scenario.with_overrides(overrides), GRID, **RUN)
        means = plain.summary(["cost"])["mean"].to_numpy()
        assert np.array_equal(plan.means[name].to_numpy(), means)
        assert np.array_equal(plan.regret[name].to_numpy(), means - means.min())
    expected = (plan.means * pd_weights(plan)).sum(axis=1).to_numpy()
    assert np.allclose(plan.decisions["expected"].to_numpy(), expected, rtol=1e-15)
    max_regret = plan.regret.max(axis=1)
    assert np.array_equal(plan.decisions["max_regret"].to_numpy(), max_regret.to_numpy())
    assert plan.minimax_regret.decision == int(np.argmin(max_regret.to_numpy()))
    assert plan.expected.decision == int(np.argmin(plan.decisions["expected"].to_numpy()))
    assert plan.choices_differ == (plan.minimax_regret.decision != plan.expected.decision)
    text = str(plan)
    assert "robust plan: cost [USD], lower is better; 2 decisions x 3 variants" in text
    assert "minimax-regret choice: pools.onprem-h100.count=" in text
    # The long table carries the intervals: each variant's best decision has regret 0.
    best = plan.table[plan.table["regret"] == 0]
    assert sorted(best.index.get_level_values("variant")) == ["base", "high", "low"]


def pd_weights(plan):
    import pandas as pd

    return pd.Series(plan.weights)


def test_saved_results_give_the_same_plan_and_name_every_variant(plan, tmp_path):
    path = tmp_path / "robust.h5"
    plan.results.save(path)
    again = gpucap.RobustPlan.from_results(gpucap.load_results(path))
    assert str(again) == str(plan)
    params = again.results.parameters
    assert list(params.columns[:3]) == ["pools.onprem-h100.count", "variant", "variant_weight"]
    assert list(params["variant"]) == ["low", "base", "high"] * 2
    assert list(params["workloads.0.arrivals.rate_per_day"]) == ["2.5", "", "7.5"] * 2
    # Other weights, given afterwards, change only the expected objective.
    equal = gpucap.RobustPlan.from_results(again.results, weights={"low": 1, "base": 1, "high": 1})
    assert equal.regret.equals(plan.regret)
    assert equal.weights == {"low": 1 / 3, "base": 1 / 3, "high": 1 / 3}


def test_cli_and_python_give_the_same_bits(plan, cli, scenarios, tmp_path):
    out = tmp_path / "cli.h5"
    low = "workloads.0.arrivals.rate_per_day=2.5, workloads.1.arrivals.rate_per_hour=3"
    high = "workloads.0.arrivals.rate_per_day=7.5, workloads.1.arrivals.rate_per_hour=9"
    done = subprocess.run(
        [str(cli), "sweep", str(scenarios / "owned_baseline_burst.yaml"), "--grid",
         "pools.onprem-h100.count=16,48", "-r", "6", "--seed", "5", "--variant", f"low: {low}",
         "--variant", "base", "--variant", f"high: {high}", "--weights", "low=1,base=2,high=1",
         "-o", str(out)],
        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    from_cli = gpucap.RobustPlan.from_results(gpucap.load_results(out))
    assert from_cli.means.equals(plan.means)
    assert from_cli.regret.equals(plan.regret)
    assert str(from_cli) in done.stdout


def test_a_plain_sweep_over_demand_is_a_robust_plan_too(scenario):
    plain = gpucap.sweep(scenario, {**GRID, "workloads.0.arrivals.rate_per_day": [2.5, 7.5]}, **RUN)
    plan = gpucap.RobustPlan.from_results(plain, variant_parameter="workloads.0.arrivals.rate_per_day")
    assert plan.variants == ["2.5", "7.5"]
    assert plan.weights == {"2.5": 0.5, "7.5": 0.5}
    assert plan.regret.min().tolist() == [0.0, 0.0]


def test_bad_variants_are_refused_with_what_is_wrong(scenario, mmc):
    with pytest.raises(gpucap.ScenarioError, match="which the grid varies"):
        gpucap.robust_plan(scenario, GRID, {"a": {"pools.onprem-h100.count": 8}}, **RUN)
    with pytest.raises(gpucap.ScenarioError, match="variant 'a': .*must be a rate > 0"):
        gpucap.robust_plan(scenario, GRID, {"a": {"workloads.0.arrivals.rate_per_day": -1}}, **RUN)
    with pytest.raises(gpucap.ScenarioError, match="changes which pools exist"):
        gpucap.robust_plan(scenario, GRID, {"a": {"pools.cloud-h100": None}}, **RUN)
    with pytest.raises(ValueError, match="weights: no variant 'mid'"):
        gpucap.robust_plan(scenario, GRID, {"a": {}}, weights={"mid": 1}, **RUN)
    with pytest.raises(ValueError, match="variant 'b' has no weight"):
        gpucap.robust_plan(scenario, GRID, {"a": {}, "b": {}}, weights={"a": 1}, **RUN)
    with pytest.raises(ValueError, match="a weight is a positive number"):
        gpucap.robust_plan(scenario, GRID, {"a": {}}, weights={"a": 0}, **RUN)
    with pytest.raises(TypeError, match="must be a mapping"):
        gpucap.robust_plan(scenario, GRID, {"a": [1]}, **RUN)
    with pytest.raises(ValueError, match="objective 'price'"):
        gpucap.robust_plan(scenario, GRID, {"a": {}}, objective="price", **RUN)
    single = gpucap.run(mmc, replications=4, progress=False)
    with pytest.raises(ValueError, match="no sweep parameter 'variant'.*plain run"):
        gpucap.RobustPlan.from_results(single)
