"""Shared fixtures of the Python tests: the project's folders and the gpucap CLI binary."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def scenarios() -> pathlib.Path:
    return SCENARIOS


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The gpucap command from the C++ build ($GPUCAP_CLI, or build/release/gpucap)."""
    path = pathlib.Path(os.environ.get("GPUCAP_CLI", ROOT / "build" / "release" / "gpucap"))
    if not path.exists():
        pytest.skip(f"no gpucap CLI at {path}: build the release preset or set GPUCAP_CLI")
    return path


MMC = """
name: python test M/M/4
horizon: 300h
warmup: 10h
replications: 200
seed: 5
pools:
  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 4}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 3.0}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 1000}
"""


@pytest.fixture()
def mmc():
    import gpucap

    return gpucap.Scenario.from_yaml(MMC)
