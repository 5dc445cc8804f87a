"""gpucap.select_best: the KN selection from Python, against the CLI and a plain sweep."""

import math
import subprocess

import pytest

import gpucap

GRID = {"pools.gpus.quota": [8, 9, 12]}
OVERRIDES = ["horizon=200h", "warmup=10h"]


@pytest.fixture(scope="module")
def mmc8(scenarios):
    return gpucap.Scenario.load(scenarios / "mmc_validation.yaml").with_overrides(OVERRIDES)


def test_selects_the_largest_pool_with_a_table(mmc8):
    sel = gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, threads=2)
    assert sel.guaranteed
    assert sel.best == 2
    assert sel.parameters == {"pools.gpus.quota": "12"}
    t = sel.table
    assert list(t["pools.gpus.quota"]) == ["8", "9", "12"]
    assert list(t["status"]) == ["eliminated", "eliminated", "best"]
    assert t["eliminated_by"].isna().tolist() == [False, False, True]
    assert t.attrs["units"]["mean"] == "s"
    assert sel.used == int(t["replications"].sum())
    assert (t["simulated"] >= t["replications"]).all()
    assert all(t["ci95_low"] < t["mean"]) and all(t["mean"] < t["ci95_high"])
    text = str(sel)
    assert "wait_mean [s]" in text and "95% CI of mean [s]" in text
    assert "best: point 2 (pools.gpus.quota = 12)" in text


def test_means_are_those_of_a_plain_sweep_of_the_used_replications(mmc8):
    sel = gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, initial=10)
    for point, row in sel.table.iterrows():
        plain = gpucap.sweep(mmc8, GRID, replications=int(row["replications"]), progress=False)
        assert math.isclose(row["mean"], plain["wait_mean"][point].mean(), rel_tol=1e-12)


def test_same_selection_as_the_cli(mmc8, cli, scenarios):
    sel = gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60)
    out = subprocess.run(
        [str(cli), "sweep", str(scenarios / "mmc_validation.yaml"), "--grid", "pools.gpus.quota=8,9,12",
         "--set", OVERRIDES[0], "--set", OVERRIDES[1], "--select-best", "--objective", "wait_mean",
         "--delta", "60"],
        capture_output=True, text=True, check=True).stdout
    for point, row in sel.table.iterrows():
        assert row["detail"] in out
        assert f"{row['mean']:.4g}" in out


def test_maximize_and_the_cap(mmc8):
    # Maximizing the wait picks the smallest pool.
    assert gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, maximize=True).best == 0
    # Cost barely depends on the quota here: a delta of 1e-6 USD cannot be resolved within 30.
    sel = gpucap.select_best(mmc8, {"pools.gpus.quota": [11, 12]}, objective="cost",
                             delta=1e-6, max_replications=30)
    assert not sel.guaranteed
    assert sel.replications == 30 and sel.used == 60
    assert "NO GUARANTEE" in str(sel)
    assert list(sel.table["status"]) == ["best", "at_cap"]
    # 30 and 31 GPUs are never all busy: identical results, tied at the first screening.
    tied = gpucap.select_best(mmc8, {"pools.gpus.quota": [30, 31]}, objective="cost", delta=1)
    assert tied.guaranteed and tied.best == 0 and tied.replications == 20
    assert list(tied.table["status"]) == ["best", "tied"]


def test_bad_arguments_say_what_is_valid(mmc8):
    with pytest.raises(TypeError, match="delta is required"):
        gpucap.select_best(mmc8, GRID, objective="cost")
    with pytest.raises(ValueError, match=r"select_best: delta .* must be a finite number above 0"):
        gpucap.select_best(mmc8, GRID, objective="cost", delta=0)
    with pytest.raises(ValueError, match=r"below 1 - 1/k = 0.666667 for 3 points"):
        gpucap.select_best(mmc8, GRID, objective="cost", delta=1, alpha=0.7)
    with pytest.raises(ValueError, match="initial must be from 2"):
        gpucap.select_best(mmc8, GRID, objective="cost", delta=1, initial=1)
    with pytest.raises(ValueError, match="unknown objective 'price'; valid: cost"):
        gpucap.select_best(mmc8, GRID, objective="price", delta=1)
    with pytest.raises(ValueError, match="needs at least 2 points, the grid gives 1"):
        gpucap.select_best(mmc8, {"pools.gpus.quota": [8]}, objective="cost", delta=1)
    with pytest.raises(TypeError, match="delta must be a number"):
        gpucap.select_best(mmc8, GRID, objective="cost", delta="100")


def test_part_of_the_grid(mmc8, cli, scenarios):
    # Points 0 and 2 only: the table, best and eliminated_by keep the grid's indices, and each
    # raced point's mean is a plain sweep's over its replications (replication r of a point draws
    # the same numbers whichever points race beside it).
    sel = gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, points=[2, 0])
    assert list(sel.table.index) == [0, 2]
    assert sel.best == 2 and sel.parameters == {"pools.gpus.quota": "12"}
    assert sel.table.loc[0, "eliminated_by"] == 2
    assert sel.table.loc[0, "detail"].endswith("by point 2")
    for point, row in sel.table.iterrows():
        plain = gpucap.sweep(mmc8, GRID, replications=int(row["replications"]), progress=False)
        assert math.isclose(row["mean"], plain["wait_mean"][point].mean(), rel_tol=1e-12)
    assert "best: point 2 (pools.gpus.quota = 12)" in str(sel)
    out = subprocess.run(
        [str(cli), "sweep", str(scenarios / "mmc_validation.yaml"), "--grid", "pools.gpus.quota=8,9,12",
         "--set", OVERRIDES[0], "--set", OVERRIDES[1], "--select-best", "--objective", "wait_mean",
         "--delta", "60", "--points", "0,2"],
        capture_output=True, text=True, check=True).stdout
    for point, row in sel.table.iterrows():
        assert row["detail"] in out
        assert f"{row['mean']:.4g}" in out
    with pytest.raises(ValueError, match="needs at least 2 points, points= gives 1"):
        gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, points=[1, 1])
    with pytest.raises(ValueError, match="point 3 is out of range: the grid has 3 points"):
        gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, points=[0, 3])
    with pytest.raises(TypeError, match="a point must be a whole number"):
        gpucap.select_best(mmc8, GRID, objective="wait_mean", delta=60, points=[0, "1"])
