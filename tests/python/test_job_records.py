"""Results.jobs: per-job records (scenario key records.jobs) as a DataFrame with units, equal
to the replication's metrics, and through an HDF5 file."""

import math

import numpy as np
import pytest

import gpucap

SPOT = "spot_training.yaml"


def _spot(scenarios, jobs):
    return gpucap.Scenario.load(scenarios / SPOT, overrides={
        "warmup": "0s", "horizon": "6d", "replications": 4, "records": {"jobs": jobs}})


def test_jobs_frame_adds_up_to_the_metrics_and_round_trips(scenarios, tmp_path):
    # No warm-up, so that every job counts in the metrics. A run of 2 replications is not
    # probed for its start-up transient (the settling probe samples 1 in 100 replications), so
    # it gives no warning.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpucap.ResultsWarning)
        r = gpucap.run(_spot(scenarios, 2), progress=False, threads=2)
    df = r.jobs
    assert df.attrs["replications"] == 2
    assert df.attrs["units"]["cost_usd"] == "USD" and df.attrs["units"]["end_s"] == "s"
    assert list(df.columns) == ["point", "replication", "job", "class", "arrival_s", "start_s",
                                "end_s", "wait_s", "pool", "runs", "preemptions", "cost_usd",
                                "trace_row"]
    assert (df["trace_row"] == 0).all()  # drawn arrivals: no row of a trace
    assert set(df["class"]) == {"finetune"}
    assert set(df["pool"].dropna()) <= set(r.pool_names)
    for rep in range(2):
        jobs = df[df.replication == rep]
        assert list(jobs.job) == list(range(len(jobs)))
        assert len(jobs) == r["jobs_arrived"][0, rep]
        assert jobs.end_s.notna().sum() == r["jobs_completed"][0, rep]
        assert jobs.preemptions.sum() == r["preemptions"][0, rep]
        assert math.isclose(jobs.cost_usd.sum(), r["cost"][0, rep], rel_tol=1e-9)
        np.testing.assert_array_equal(jobs.wait_s, jobs.start_s - jobs.arrival_s)
    path = tmp_path / "r.h5"
    r.save(path)
    back = gpucap.load_results(path).jobs
    assert back.equals(df)
    assert back.attrs == df.attrs


def test_no_records_by_default(mmc):
    assert gpucap.run(mmc, replications=5, progress=False).jobs is None
