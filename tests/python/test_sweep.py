"""gpucap.sweep: the grid, common random numbers, pairing, and the cheapest-point helper."""

import numpy as np
import pytest

import gpucap


def test_grid_is_the_cartesian_product_first_key_slowest(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5], "horizon": ["200h", "300h", "250h"]},
                     replications=20, progress=False)
    assert r.points == 6
    assert list(r.parameters["pools.gpus.quota"]) == [4, 4, 4, 5, 5, 5]
    assert list(r.parameters["horizon"]) == ["200h", "300h", "250h"] * 2
    assert r.point_parameters(4) == {"pools.gpus.quota": "5", "horizon": "300h"}
    assert r.summary(["cost"]).index.names == ["point", "metric"]


def test_points_share_random_numbers(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5, 4]}, replications=200, seed=2, progress=False)
    # Points 0 and 2 are the same scenario: identical rows. All points see the same jobs.
    assert np.array_equal(r.scalars[0], r.scalars[2], equal_nan=True)
    assert np.array_equal(r["jobs_arrived"][0], r["jobs_arrived"][1], equal_nan=True)
    d = r.paired_difference("wait_mean", 1, 0)
    assert d["ci_high"] < 0  # a fifth GPU shortens waits
    own = r.summary(["wait_mean"], point=0)
    assert d["ci_high"] - d["ci_low"] < own["ci95_high"].iloc[0] - own["ci95_low"].iloc[0]


def test_a_sweep_point_is_the_same_as_running_it_alone(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 6]}, replications=80, seed=8, progress=False)
    alone = gpucap.run(mmc.with_overrides({"pools.gpus.quota": 6}), replications=80, seed=8, progress=False)
    assert np.array_equal(r.scalars[1], alone.scalars[0], equal_nan=True)


def test_cheapest_point_meets_the_constraint_with_paired_intervals(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5, 6, 8]}, replications=300, seed=1, progress=False)
    means = r.summary(["wait_mean"])["mean"].to_numpy()
    bound = float(means[1]) * 1.01  # quota 4 waits too long; 5 and up meet the bound
    best = r.cheapest("cost", constraints={"wait_mean": bound})
    feasible = means <= bound
    assert list(best.comparisons["feasible"]) == list(feasible)
    costs = r.summary(["cost"])["mean"].to_numpy()
    assert best.point == int(np.flatnonzero(feasible)[np.argmin(costs[feasible])])
    row = best.comparisons.loc[best.point]
    assert row["minus_best"] == 0 and not row["significant"]
    assert "cheapest feasible point" in str(best)
    with pytest.raises(ValueError, match="no point meets"):
        r.cheapest("cost", constraints={"wait_mean": -1.0})
    with pytest.raises(ValueError, match="operator"):
        r.cheapest("cost", constraints={"wait_mean": ("!=", 1.0)})


def test_sweep_results_save_and_load_with_their_grid(mmc, tmp_path):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5]}, replications=10, progress=False)
    r.save(tmp_path / "s.h5")
    back = gpucap.load_results(tmp_path / "s.h5")
    assert back.points == 2
    assert list(back.parameters["pools.gpus.quota"]) == [4, 5]
    assert np.array_equal(back.scalars, r.scalars, equal_nan=True)


def test_bad_grids_are_clear_errors(mmc):
    with pytest.raises(ValueError, match="grid is empty"):
        gpucap.sweep(mmc, {}, replications=2, progress=False)
    with pytest.raises(ValueError, match="has no values"):
        gpucap.sweep(mmc, {"horizon": []}, replications=2, progress=False)
    with pytest.raises(gpucap.ScenarioError):
        gpucap.sweep(mmc, {"pools.gpus.quota": [4, -1]}, replications=2, progress=False)


def test_numpy_values_and_string_entries(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": np.arange(4, 6),
                           "pools.gpus.price_usd_per_gpu_hour": np.linspace(1.0, 2.0, 2)},
                     replications=5, progress=False)
    assert list(r.parameters["pools.gpus.quota"]) == [4, 4, 5, 5]
    assert list(r.parameters["pools.gpus.price_usd_per_gpu_hour"]) == [1.0, 2.0, 1.0, 2.0]
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [np.int64(4), np.int32(5)], "warmup": [np.str_("5h")]},
                     replications=5, progress=False)
    assert list(r.parameters["pools.gpus.quota"]) == [4, 5]
    assert list(r.parameters["warmup"]) == ["5h", "5h"]
    with pytest.raises(TypeError, match="must be a list of values"):
        gpucap.sweep(mmc, {"horizon": "200h"}, replications=2, progress=False)


def test_seed_and_replications_cannot_be_swept(mmc):
    with pytest.raises(ValueError, match="a sweep cannot vary 'seed'"):
        gpucap.sweep(mmc, {"seed": [1, 2]}, replications=2, progress=False)
    with pytest.raises(ValueError, match="a sweep cannot vary 'replications'"):
        gpucap.sweep(mmc, {"replications": [1, 2]}, progress=False)


def test_frames_keep_the_grid_order_and_take_one_metric_name(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5], "horizon": ["200h", "300h"]}, replications=3,
                     progress=False)
    df = r.to_pandas("cost")
    assert list(df.columns) == ["pools.gpus.quota", "horizon", "cost"]
    assert list(r.summary("cost").index.get_level_values("metric").unique()) == ["cost"]
