"""Reliability from Python: every hostile or careless argument raises ScenarioError, ValueError
or TypeError (or, for files, InputFileError, OutputError, ResultsFileError: OSErrors) naming the
argument, key or file; nothing makes the interpreter exit; outputs are never hijacked."""

import math
import os

import h5py
import numpy as np
import pytest

import gpucap

SCENARIOS = os.path.join(os.path.dirname(__file__), "..", "..", "scenarios")
MMC = os.path.join(SCENARIOS, "mmc_validation.yaml")


@pytest.fixture(scope="module")
def mmc():
    # A warm-up that covers the queue's start-up (no warning that it outlasts it).
    return gpucap.Scenario.load(MMC, {"horizon": "50h", "warmup": "5h"})


@pytest.fixture(scope="module")
def results(mmc):
    return gpucap.run(mmc, replications=6, seed=2, backend="cpu", progress=False)


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"replications": "10"}, TypeError, "replications must be a whole number"),
        ({"replications": 2.5}, TypeError, "replications must be a whole number"),
        ({"replications": True}, TypeError, "replications must be a whole number"),
        ({"replications": 0}, ValueError, "replications must be from 1 to 1000000000, got 0"),
        ({"replications": 10**12}, ValueError, "replications must be from 1 to 1000000000"),
        ({"seed": -1}, ValueError, "seed must be from 0 to 18446744073709551615, got -1"),
        ({"seed": 2**64}, ValueError, "seed must be from 0 to 18446744073709551615"),
        ({"seed": "7"}, TypeError, "seed must be a whole number"),
        ({"threads": 10**6}, ValueError, "threads must be from 0 to 1024, got 1000000"),
        ({"threads": -1}, ValueError, "threads must be from 0 to 1024"),
        ({"threads": "all"}, TypeError, "threads must be a whole number"),
        ({"backend": 3}, TypeError, "backend must be text"),
        ({"backend": "gpu"}, ValueError, "valid backends are auto, cpu, cuda, thrust-omp"),
    ],
)
def test_run_arguments_are_checked_and_named(mmc, arguments, error, message):
    with pytest.raises(error, match=message):
        gpucap.run(mmc, **{"replications": 2, "progress": False, **arguments})


def test_numpy_integers_are_accepted_everywhere(mmc):
    r = gpucap.run(mmc, replications=np.int64(3), seed=np.uint64(2**64 - 1), threads=np.int32(1),
                   backend="cpu", progress=False)
    assert r.replications == 3 and r.seed == 2**64 - 1
    s = mmc.with_overrides({"pools.gpus.quota": np.int64(9), "workloads.0.arrivals.rate_per_hour": np.float32(2)})
    assert s.pool_names == ["gpus"]
    sweep = gpucap.sweep(mmc, {"pools.gpus.quota": np.arange(8, 10)}, replications=2, backend="cpu",
                         progress=False)
    assert list(sweep.parameters["pools.gpus.quota"]) == [8, 9]


def test_override_values_a_scenario_cannot_hold_are_type_errors(mmc):
    with pytest.raises(TypeError, match=r"overrides\['pools.gpus.quota'\]: a object cannot be a scenario value"):
        mmc.with_overrides({"pools.gpus.quota": object()})
    with pytest.raises(TypeError, match="a key must be a dotted path"):
        mmc.with_overrides({3: 4})
    with pytest.raises(TypeError, match="each item must be a 'path=value' string"):
        mmc.with_overrides([None])
    with pytest.raises(TypeError, match=r"grid\['pools.gpus.quota'\]\[1\]: a complex cannot be"):
        gpucap.sweep(mmc, {"pools.gpus.quota": [8, 1j]}, replications=2, progress=False)
    with pytest.raises(TypeError, match="grid must be a mapping"):
        gpucap.sweep(mmc, [("pools.gpus.quota", [8])], replications=2, progress=False)
    with pytest.raises(gpucap.ScenarioError, match=r"\(from --set pools.gpus.quota=null\)"):
        mmc.with_overrides({"pools.gpus.quota": None})


def test_point_indices_are_checked(mmc):
    sweep = gpucap.sweep(mmc, {"pools.gpus.quota": [8, 9]}, replications=2, backend="cpu", progress=False)
    with pytest.raises(ValueError, match=r"point 2 is out of range: these results have 2 points \(0 to 1\)"):
        sweep.summary(point=2)
    with pytest.raises(ValueError, match="b 5 is out of range"):
        sweep.paired_difference("cost", 0, 5)
    with pytest.raises(TypeError, match="point must be a whole number"):
        sweep.point_parameters("0")
    assert sweep.point_parameters(-1) == {"pools.gpus.quota": "9"}
    assert sweep.summary(point=np.int64(1)).loc["cost", "n"] == 2


def test_one_replication_has_no_interval(mmc):
    r = gpucap.run(mmc, replications=1, backend="cpu", progress=False)
    row = r.summary().loc["cost"]
    assert math.isnan(row["ci95_low"]) and math.isnan(row["ci95_high"]) and math.isnan(row["std"])
    assert row["mean"] == row["p50"]
    d = gpucap.sweep(mmc, {"pools.gpus.quota": [8, 9]}, replications=1, backend="cpu",
                     progress=False).paired_difference("cost", 1, 0)
    assert math.isnan(d["ci_low"]) and d["n"] == 1


def test_input_limits_and_special_files(tmp_path):
    with pytest.raises(gpucap.InputFileError, match=r"over the limit of 100 bytes \(raise it with --max-scenario-size\)"):
        gpucap.Scenario.load(MMC, max_scenario_bytes=100)
    with pytest.raises(gpucap.InputFileError, match=r"the scenario is 1\.17 KiB, over the limit of 100 bytes"):
        gpucap.Scenario("#" * 1200, max_scenario_bytes=100)
    with pytest.raises(TypeError, match="max_data_bytes must be a whole number of bytes"):
        gpucap.Scenario.load(MMC, max_data_bytes="1GiB")
    if os.path.exists("/dev/zero"):
        with pytest.raises(gpucap.InputFileError, match="'/dev/zero' is a character device, not a regular file"):
            gpucap.Scenario.load("/dev/zero")
    with pytest.raises(TypeError, match="path: expected a file name"):
        gpucap.Scenario.load(None)


def test_save_refuses_links_special_files_and_inputs(results, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep")
    link = tmp_path / "link.h5"
    link.symlink_to(precious)
    with pytest.raises(gpucap.OutputError, match="it is a symbolic link"):
        results.save(link)
    assert precious.read_text() == "keep"
    results.save(link, force=True)
    assert not link.is_symlink() and precious.read_text() == "keep"
    assert gpucap.load_results(link).replications == 6
    with pytest.raises(gpucap.OutputError, match="it is a directory"):
        results.save(tmp_path / ".")
    with pytest.raises(gpucap.OutputError, match="an input of this run"):
        results.save(MMC)
    with pytest.raises(OSError):  # OutputError is an OSError
        results.save(tmp_path / "missing" / "r.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.h5", "precious.txt"]


def test_save_refuses_an_output_that_a_cli_run_is_writing(results, tmp_path, cli):
    """One writer per output: a save onto the output of a running `gpucap run -o` would be
    replaced by that run's results when it ends; it is refused, naming the run's process."""
    import subprocess
    import time

    out = tmp_path / "r.h5"
    run = subprocess.Popen([str(cli), "run", MMC, "-r", "100000000", "--rows", "none", "-q", "-o", str(out)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "r.h5.lock").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with pytest.raises(gpucap.OutputError, match=rf"being written by another gpucap run \(process {run.pid} "):
            results.save(out)
        assert not out.exists()
    finally:
        run.kill()
        run.wait()
    # The killed run's lock is taken over: the save goes through.
    results.save(out)
    assert gpucap.load_results(out).replications == results.replications


def test_broken_results_files_raise_results_file_errors_naming_the_file(results, tmp_path):
    missing = tmp_path / "missing.h5"
    with pytest.raises(gpucap.ResultsFileError, match=f"'{missing}'"):
        gpucap.load_results(missing)
    text = tmp_path / "text.h5"
    text.write_text("not hdf5")
    with pytest.raises(gpucap.ResultsFileError, match="not an HDF5 file"):
        gpucap.load_results(text)
    for name, value in [("replications", 10**12), ("points", 2**40), ("replications", 7)]:
        path = tmp_path / f"absurd-{name}-{value}.h5"
        results.save(path)
        with h5py.File(path, "r+") as f:
            f.attrs.modify(name, np.uint64(value))
        with pytest.raises(gpucap.ResultsFileError, match=f"'{path}'"):
            gpucap.load_results(path)
    # Changed data (through h5py, which updates HDF5's own checksums) no longer matches the
    # file's checksum, and with that header removed, not the content checksum either.
    tampered = tmp_path / "tampered.h5"
    results.save(tampered)
    with h5py.File(tampered, "r+") as f:
        f["replications/cost"][0, 0] = 1.0
    with pytest.raises(gpucap.ResultsFileError, match="its bytes do not match its checksum"):
        gpucap.load_results(tampered)
    with open(tampered, "r+b") as f:
        f.write(b"\0" * 512)
    with pytest.raises(gpucap.ResultsFileError, match="its content does not match its checksum"):
        gpucap.load_results(tampered)


def test_stored_scenario_reloads_to_the_same_results(tmp_path):
    overrides = {"description": "line one\nline two # not a comment", "name": "it's \"quoted\" # too",
                 "horizon": "40h", "warmup": "5h"}
    scenario = gpucap.Scenario.load(MMC, overrides)
    r = gpucap.run(scenario, replications=4, backend="cpu", progress=False)
    r.save(tmp_path / "r.h5")
    stored = gpucap.load_results(tmp_path / "r.h5")
    assert [p for p, _ in stored.scenario_overrides] == list(overrides)
    with open(MMC) as f:
        assert stored.scenario_source == f.read()
    again = gpucap.Scenario.from_yaml(stored.scenario_text, base_dir=SCENARIOS)
    # Override texts are YAML: the '#' of a plain value starts a comment, in the run as here.
    assert again.name == scenario.name == "it's \"quoted\""
    rerun = gpucap.run(again, replications=4, backend="cpu", progress=False)
    np.testing.assert_array_equal(rerun.scalars, r.scalars)


def test_sweeps_list_every_invalid_point_or_skip_them(mmc):
    with pytest.raises(gpucap.ScenarioError) as caught:
        gpucap.sweep(mmc, {"pools.gpus.quota": [4, -1, 8, 0]}, replications=2, progress=False)
    message = str(caught.value)
    assert message.startswith("2 of 4 sweep points are invalid (skip_invalid=True runs the others):")
    assert "sweep point 1 (pools.gpus.quota = -1)" in message and "sweep point 3 (pools.gpus.quota = 0)" in message
    # Quota 4 is below M/M/8's load (7.2 GPUs busy on average): its queue grows, and the run
    # says so (queue_length_drift) besides the skipped points.
    with pytest.warns(gpucap.ResultsWarning, match="the queue still grows"), \
            pytest.warns(RuntimeWarning, match="skipped 2 of 4 points"):
        r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, -1, 8, 0]}, replications=2, backend="cpu",
                         progress=False, skip_invalid=True)
    assert list(r.parameters["pools.gpus.quota"]) == [4, 8]
    with pytest.raises(gpucap.ScenarioError, match=r"\(all of them\)"):
        gpucap.sweep(mmc, {"pools.gpus.quota": [-1, 0]}, replications=2, progress=False, skip_invalid=True)


def test_an_override_through_an_alias_changes_only_that_copy(tmp_path):
    text = (
        "name: aliases\nhorizon: 10d\npools:\n"
        "  a: &pool {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n  b: *pool\n"
        "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n"
    )
    s = gpucap.Scenario.from_yaml(text, base_dir=str(tmp_path)).with_overrides({"pools.b.quota": 4})
    quotas = {name: pool["quota"] for name, pool in s.to_dict()["pools"].items()}
    assert quotas == {"a": 8, "b": 4}


def test_none_deletes_a_key_so_that_another_form_can_replace_it():
    edge = gpucap.Scenario.load(os.path.join(SCENARIOS, "edge_vs_cloud_inference.yaml"))
    autoscaling = {"min_replicas": 1, "max_replicas": 4, "idle_timeout": "5min"}
    with pytest.raises(gpucap.ScenarioError, match="not both"):
        edge.with_overrides({"workloads.ranker.autoscaling": autoscaling})
    s = edge.with_overrides({"workloads.ranker.replicas": None, "workloads.ranker.autoscaling": autoscaling})
    workload = s.to_dict()["workloads"][0]
    assert "replicas" not in workload and workload["autoscaling"]["max_replicas"] == 4
