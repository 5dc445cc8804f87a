"""gpucap.run: determinism, arrays without copies, frames with units, HDF5, the CLI's numbers,
backends, progress and Ctrl-C."""

import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import gpucap


def test_same_seed_same_arrays_and_another_seed_others(mmc):
    a = gpucap.run(mmc, replications=100, seed=3, progress=False, threads=1)
    b = gpucap.run(mmc, replications=100, seed=3, progress=False, threads=2)
    c = gpucap.run(mmc, replications=100, seed=4, progress=False)
    assert np.array_equal(a.scalars, b.scalars, equal_nan=True)
    assert np.array_equal(a.pool_values, b.pool_values, equal_nan=True)
    assert not np.array_equal(a["wait_mean"], c["wait_mean"])
    assert a.seed == 3 and a.replications == 100 and a.points == 1


def test_arrays_view_the_engine_memory(mmc):
    r = gpucap.run(mmc, replications=50, progress=False)
    cost = r["cost"]
    assert cost.shape == (1, 50)
    assert np.shares_memory(cost, r.scalars)
    assert not cost.flags.writeable
    with pytest.raises(ValueError):
        cost[0, 0] = 1.0
    assert r.pool("utilization").shape == (1, 50, 1)
    with pytest.raises(KeyError, match="unknown metric 'cots'"):
        r["cots"]


def test_summary_matches_numpy_and_carries_units(mmc):
    r = gpucap.run(mmc, replications=400, progress=False)
    s = r.summary()
    assert s.loc["cost", "unit"] == "USD"
    assert s.loc["wait_mean", "unit"] == "s"
    values = r["wait_mean"][0]
    assert s.loc["wait_mean", "mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert s.loc["wait_mean", "std"] == pytest.approx(values.std(ddof=1), rel=1e-9)
    assert s.loc["wait_mean", "p95"] == pytest.approx(np.quantile(values, 0.95), rel=1e-12)
    assert s.loc["wait_mean", "ci95_low"] < s.loc["wait_mean", "mean"] < s.loc["wait_mean", "ci95_high"]
    df = r.to_pandas(["cost", "wait_mean"])
    assert df.shape == (400, 2)
    assert df.attrs["units"] == {"cost": "USD", "wait_mean": "s"}
    pools = r.pool_summary(["utilization"])
    assert pools.loc[(0, "gpus", "utilization"), "unit"] == "fraction"


def test_hdf5_round_trip_keeps_everything(mmc, tmp_path):
    r = gpucap.run(mmc, replications=64, seed=11, progress=False)
    path = tmp_path / "r.h5"
    r.save(path)
    back = gpucap.load_results(path)
    assert np.array_equal(back.scalars, r.scalars, equal_nan=True)
    assert np.array_equal(back.pool_values, r.pool_values, equal_nan=True)
    assert np.array_equal(back._core.summary, r._core.summary, equal_nan=True)
    assert back.seed == 11 and back.backend == r.backend and back.scenario_text == r.scenario_text
    h5py = pytest.importorskip("h5py")
    with h5py.File(path) as f:
        assert f["replications/cost"].shape == (1, 64)


def test_python_and_cli_give_the_same_numbers(cli, scenarios, tmp_path):
    out = tmp_path / "cli.h5"
    subprocess.run([str(cli), "run", str(scenarios / "spot_training.yaml"), "-r", "60", "--seed", "17",
                    "-q", "--backend", "cpu", "-o", str(out)], check=True)
    from_cli = gpucap.load_results(out)
    from_python = gpucap.run(scenarios / "spot_training.yaml", replications=60, seed=17, progress=False)
    assert np.array_equal(from_cli.scalars, from_python.scalars, equal_nan=True)
    assert np.array_equal(from_cli.pool_values, from_python.pool_values, equal_nan=True)
    assert np.array_equal(from_cli._core.summary, from_python._core.summary, equal_nan=True)


def test_thrust_omp_backend_gives_the_cpu_bits(mmc):
    if not gpucap.backends()["thrust-omp"]["usable"]:
        pytest.skip("this build has no thrust-omp backend")
    cpu = gpucap.run(mmc, replications=300, progress=False, backend="cpu")
    dev = gpucap.run(mmc, replications=300, progress=False, backend="thrust-omp")
    assert dev.backend == "thrust-omp"
    assert np.array_equal(cpu.scalars, dev.scalars, equal_nan=True)
    assert np.array_equal(cpu._core.summary, dev._core.summary, equal_nan=True)


def test_auto_says_why_it_chose_and_a_named_backend_says_nothing(mmc, tmp_path):
    r = gpucap.run(mmc, replications=16, seed=3, progress=False)
    if gpucap.backends()["auto"] == "cpu":  # no usable GPU: the model's CPU time, and why
        assert r.backend_choice.startswith("cpu: expected ") and " events expected; no " in r.backend_choice
    assert r.backend_choice.split(":")[0].split(" + ")[0] in ("cpu", "cuda")
    r.save(tmp_path / "auto.h5")
    assert gpucap.load_results(tmp_path / "auto.h5").backend_choice == r.backend_choice
    assert gpucap.run(mmc, replications=16, seed=3, progress=False, backend="cpu").backend_choice == ""


def test_host_threads_beside_a_device_give_the_cpu_bits(mmc):
    if not gpucap.backends()["thrust-omp"]["usable"]:
        pytest.skip("this build has no thrust-omp backend")
    cpu = gpucap.run(mmc, replications=600, progress=False, backend="cpu")
    both = gpucap.run(mmc, replications=600, progress=False, backend="thrust-omp", host_threads=1)
    assert both.device.endswith(" + host, 1 threads")
    assert np.array_equal(cpu.scalars, both.scalars, equal_nan=True)
    assert np.array_equal(cpu._core.summary, both._core.summary, equal_nan=True)
    with pytest.raises(ValueError, match="host threads join the devices"):
        gpucap.run(mmc, replications=2, progress=False, backend="cpu", host_threads=1)
    with pytest.raises(ValueError, match="host_threads"):
        gpucap.run(mmc, replications=2, progress=False, backend="thrust-omp", host_threads=-1)


def test_backend_errors_are_clear(mmc):
    with pytest.raises(ValueError, match="valid backends are auto, cpu, cuda, thrust-omp"):
        gpucap.run(mmc, replications=2, backend="tpu", progress=False)
    info = gpucap.backends()
    assert info["auto"] in ("cpu", "cuda")
    if not info["cuda"]["usable"]:
        with pytest.raises(gpucap.BackendUnavailable, match="^backend cuda: "):
            gpucap.run(mmc, replications=2, backend="cuda", progress=False)


def test_progress_reports_every_replication(mmc, monkeypatch):
    seen = []
    import gpucap._progress as progress

    class Recorder:
        def __init__(self, total, unit, desc, leave):
            self.total = total

        def update(self, n):
            seen.append(n)

        def close(self):
            pass

    monkeypatch.setattr(progress, "_tqdm_class", lambda: Recorder)
    gpucap.run(mmc, replications=120, progress=True)
    assert sum(seen) == 120


def test_ctrl_c_stops_a_long_run_cleanly(mmc):
    long_run = mmc.with_overrides({"horizon": "20000h"})
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        gpucap.run(long_run, replications=100000, progress=False)
    elapsed = time.perf_counter() - started
    assert elapsed < 10, f"the run took {elapsed:.1f} s to stop"
    # The engine is usable afterwards.
    assert gpucap.run(mmc, replications=4, progress=False).replications == 4


def test_time_series_adds_up_to_the_gpu_hours_used(mmc, tmp_path):
    s = mmc.with_overrides({"timeseries.step": "5h"})  # 300 h horizon, 10 h warm-up: 60 bins
    r = gpucap.run(s, replications=50, progress=False)
    series = r.timeseries
    assert series.shape == (1, 50, 1, 60)
    assert r.timeseries_step_s == 5 * 3600
    assert np.shares_memory(series, r.timeseries)
    used_h = series[0, :, 0, 2:].sum(axis=1) * 5  # bins 2.. cover the window [10 h, 300 h]
    assert np.allclose(used_h, r.pool("gpu_hours_used")[0, :, 0], rtol=1e-12)
    assert gpucap.run(mmc, replications=2, progress=False).timeseries is None
    r.save(tmp_path / "ts.h5")
    back = gpucap.load_results(tmp_path / "ts.h5")
    assert np.array_equal(back.timeseries, r.timeseries, equal_nan=True)
    assert back.timeseries_step_s == r.timeseries_step_s


def test_a_signal_handlers_own_exception_stops_the_run(mmc):
    class Deadline(Exception):
        pass

    def on_alarm(signum, frame):
        raise Deadline()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Deadline):
            gpucap.run(mmc.with_overrides({"horizon": "20000h"}), replications=100000, progress=False)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_run_description_has_no_rows_to_view(mmc):
    described = gpucap._core.describe_run([mmc._core], [], mmc._core, 10, None)
    with pytest.raises(ValueError, match="hold no rows"):
        described.scalars


def test_metrics_with_no_observations_are_nan_and_the_summary_counts_where_defined(tmp_path):
    # One GPU; a job of 2 h at t = 0 and a horizon of 1 h: no job completes, so the completion
    # time is not defined (NaN, not 0); waits are (the job launched at once).
    trace = tmp_path / "jobs.csv"
    trace.write_text("submit_s,gpus,duration_s\n0,1,7200\n")
    s = gpucap.Scenario.from_yaml(
        "name: t\nhorizon: 1h\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 1}\n"
        "workloads:\n  - {name: j, arrivals: {process: trace, file: jobs.csv}}\n",
        base_dir=str(tmp_path),
    )
    with pytest.warns(gpucap.ResultsWarning, match="all 3 replications gave the same values"):
        r = gpucap.run(s, replications=3, progress=False, backend="cpu")
    assert np.isnan(r["completion_mean"]).all()
    assert np.isnan(r["completion_p50"]).all()
    assert (r["wait_mean"] == 0).all()
    table = r.summary(["completion_mean", "wait_mean", "jobs_completed"])
    assert table.loc["completion_mean", "n"] == 0
    assert np.isnan(table.loc["completion_mean", "mean"])
    assert table.loc["wait_mean", "n"] == 3
    assert table.loc["jobs_completed", "n"] == 3 and table.loc["jobs_completed", "mean"] == 0
    pools = r.pool_summary(["cost"])
    assert list(pools["n"]) == [3]  # pool costs are always defined


def test_cost_by_purchase_option_adds_up_to_the_cost(scenarios):
    r = gpucap.run(scenarios / "mixed_fleet.yaml", replications=12, seed=5, progress=False)
    metrics = gpucap.scalar_metrics()
    options = ["on_demand", "spot", "reserved", "owned", "marketplace", "serverless"]
    assert all(metrics.loc[f"cost_{o}", "group"] == "cost_by_option" for o in options)
    assert all(metrics.loc[f"cost_{o}", "unit"] == "USD" for o in options)
    split = sum(r[f"cost_{o}"][0] for o in options)
    np.testing.assert_allclose(split, r["cost"][0], rtol=1e-12)
    # mixed_fleet: one on-demand and one spot pool, each filed under its option
    pools = list(r.pool_names)
    np.testing.assert_array_equal(r["cost_spot"][0], r.pool("cost")[0, :, pools.index("aws-h100-spot")])
    assert (r["cost_spot"][0] > 0).all() and (r["cost_reserved"][0] == 0).all()


def test_identical_replications_warn_and_random_ones_do_not(tmp_path, mmc):
    (tmp_path / "trace.csv").write_text("submit_s,gpus,duration_s\n0,1,3600\n100,2,7200\n")
    (tmp_path / "fixed.yaml").write_text(
        "name: fixed\nhorizon: 2d\nseed: 1\n"
        "pools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
        "workloads:\n  - name: jobs\n    placement: [p]\n"
        "    arrivals: {process: trace, file: trace.csv, submit_column: submit_s, "
        "gpus_column: gpus, duration_column: duration_s}\n")
    with pytest.warns(gpucap.ResultsWarning, match="all 4 replications gave the same values"):
        r = gpucap.run(tmp_path / "fixed.yaml", replications=4, progress=False)
    assert len(r.warnings) == 1 and "arrivals.resample" in r.warnings[0]
    assert r.summary().attrs["warnings"] == r.warnings
    assert np.all(r["cost"][0] == r["cost"][0, 0])
    import warnings as _warnings
    with _warnings.catch_warnings():
        _warnings.simplefilter("error", gpucap.ResultsWarning)
        random = gpucap.run(mmc, replications=4, progress=False)
    assert random.warnings == [] and random.summary().attrs["warnings"] == []
