"""Provenance of data files (Results.inputs) and their parse-once cache, from Python."""

import hashlib

import pytest

import gpucap
from gpucap import _core

TRACE = "submit_s,gpus,duration_s\n0,1,3600\n600,2,1800\n1200,1,60\n"

SCENARIO = """name: replay
horizon: 1d
pools:
  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}
workloads:
  - name: w
    arrivals: {process: trace, file: trace.csv}
    placement: [p]
"""


def write_replay(folder):
    (folder / "trace.csv").write_text(TRACE)
    (folder / "replay.yaml").write_text(SCENARIO)
    return folder / "replay.yaml"


@pytest.mark.filterwarnings("ignore::gpucap.ResultsWarning")  # a fixed trace: identical replications
def test_results_record_each_data_file_with_its_sha256(tmp_path):
    path = write_replay(tmp_path)
    r = gpucap.run(gpucap.Scenario.load(path), replications=4, progress=False)
    expected = {
        "path": "trace.csv",
        "resolved_path": str((tmp_path / "trace.csv").resolve()),
        "size_bytes": len(TRACE),
        "sha256": hashlib.sha256(TRACE.encode()).hexdigest(),
    }
    assert r.inputs == [expected]
    r.save(tmp_path / "r.h5")
    assert gpucap.load_results(tmp_path / "r.h5").inputs == [expected]


def test_a_scenario_without_data_files_records_an_empty_list(mmc, tmp_path):
    r = gpucap.run(mmc, replications=2, progress=False)
    assert mmc.data_files == [] and r.inputs == []
    r.save(tmp_path / "r.h5")
    assert gpucap.load_results(tmp_path / "r.h5").inputs == []


@pytest.mark.filterwarnings("ignore::gpucap.ResultsWarning")  # a fixed trace: identical replications
def test_a_sweep_parses_its_trace_once_and_records_it_once(tmp_path):
    path = write_replay(tmp_path)
    _core.clear_data_cache()
    before = _core.data_cache_stats()["csv_parses"]
    r = gpucap.sweep(gpucap.Scenario.load(path), {"pools.p.quota": [2, 4, 8, 16]}, replications=2,
                     progress=False)
    stats = _core.data_cache_stats()
    assert stats["csv_parses"] - before == 1  # the scenario and its 4 points
    assert stats["reads"] == 1 and stats["hits"] >= 4
    assert [f["sha256"] for f in r.inputs] == [hashlib.sha256(TRACE.encode()).hexdigest()]
