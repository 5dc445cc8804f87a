"""rows= keeps fewer per-replication rows: the summaries still cover every replication (the
same bits for means, intervals, goals and differences from point 0; percentiles within 0.1%),
the kept rows are the run's, and what needs every row says so."""

import subprocess

import numpy as np
import pytest

import gpucap

BOUND = 2.0 ** -10  # QuantileSketch::kRelativeError
GRID = {"pools.aws-h100-spot.price_usd_per_gpu_hour": [2.5, 3.5]}


@pytest.fixture(scope="module")
def training(scenarios):
    return gpucap.Scenario.load(scenarios / "spot_training.yaml").with_overrides(
        {"goals.cheap.require": "[cost <= 14000]"})


def test_no_rows_summaries_match_every_row(training):
    every = gpucap.sweep(training, GRID, replications=2000, progress=False)
    none = gpucap.sweep(training, GRID, replications=2000, progress=False, rows="none")
    assert none.replications == 2000 and none.kept_replications == 0
    assert none["cost"].shape == (2, 0) and none.to_pandas().shape[0] == 0
    a, n = every._core.summary, none._core.summary
    assert np.array_equal(a[..., :4], n[..., :4], equal_nan=True)  # mean, std, interval
    assert np.array_equal(every._core.summary_n, none._core.summary_n)
    exact = a[..., 4:]
    assert np.all((np.abs(n[..., 4:] - exact) <= BOUND * np.abs(exact)) | (np.isnan(exact) & np.isnan(n[..., 4:])))
    assert every.paired_difference("cost", 1, 0) == none.paired_difference("cost", 1, 0)
    assert none.goal_summary()["met"].tolist() == every.goal_summary()["met"].tolist()
    assert "0 rows kept" in repr(none)


def test_first_rows_are_the_runs_rows(training):
    every = gpucap.run(training, replications=900, progress=False)
    first = gpucap.run(training, replications=900, progress=False, rows=128)
    assert first.kept_replications == 128
    assert np.array_equal(first.scalars, every.scalars[:, :128], equal_nan=True)
    assert np.array_equal(first.goal_met, every.goal_met[:, :128])
    assert list(first.to_pandas().index.get_level_values("replication")) == list(range(128))
    # More rows than replications keeps them all: the exact summaries.
    assert np.array_equal(gpucap.run(training, replications=900, progress=False, rows=5000)._core.summary,
                          every._core.summary, equal_nan=True)


def test_saved_and_loaded_results_keep_the_counts(training, tmp_path):
    none = gpucap.run(training, replications=700, progress=False, rows="none")
    none.save(tmp_path / "none.h5")
    back = gpucap.load_results(tmp_path / "none.h5")
    assert back.replications == 700 and back.kept_replications == 0
    assert np.array_equal(back._core.summary, none._core.summary, equal_nan=True)
    assert back.goal_summary()["met"].tolist() == none.goal_summary()["met"].tolist()


@pytest.mark.parametrize("rows", ["some", "", 0, -3, 1.5, True, "first"])
def test_bad_rows_are_refused(training, rows):
    with pytest.raises((ValueError, TypeError)):
        gpucap.run(training, replications=10, progress=False, rows=rows)


def test_what_needs_every_row_says_so(training):
    grid = {"pools.aws-h100-spot.price_usd_per_gpu_hour": [2.5, 3.5, 4.5]}
    none = gpucap.sweep(training, grid, replications=300, progress=False, rows="none")
    with pytest.raises(ValueError, match="rows"):
        none.paired_difference("cost", 2, 1)
    with pytest.raises(ValueError):
        gpucap.run(training, replications=300, progress=False, rows="none", precision=0.05)
    with pytest.raises(ValueError, match="every row"):
        gpucap.concat([none, none], dim="point")


def test_cli_rows(cli, scenarios, tmp_path):
    out = tmp_path / "r.h5"
    done = subprocess.run([cli, "run", scenarios / "spot_training.yaml", "-r", "600", "--rows", "first 50",
                           "-o", out], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "600 replications (rows kept: first 50; summaries of all)" in done.stdout
    r = gpucap.load_results(out)
    assert r.replications == 600 and r.kept_replications == 50
    bad = subprocess.run([cli, "run", scenarios / "spot_training.yaml", "--rows", "half"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--rows: expected all, none or 'first N'" in bad.stderr
