"""Scenarios from Python: loading, dicts, YAML round trips, overrides and error messages."""

import numpy as np
import pytest

import gpucap
from gpucap.scenario import yaml_value


def test_load_reads_a_shipped_scenario(scenarios):
    s = gpucap.Scenario.load(scenarios / "default.yaml")
    assert s.name == "research team on three on-demand clouds (one month)"
    assert s.pool_names == ["lambda-h100", "aws-h100", "gcp-a100"]
    assert s.horizon_s == 30 * 86400
    assert s.seed == 42


def test_yaml_and_dict_round_trips_give_the_same_scenario(scenarios):
    s = gpucap.Scenario.load(scenarios / "spot_training.yaml")
    again = gpucap.Scenario.from_yaml(s.to_yaml(), base_dir=s.base_dir)
    from_dict = gpucap.Scenario.from_dict(s.to_dict(), base_dir=s.base_dir)
    for other in (again, from_dict):
        assert other.name == s.name
        assert other.pool_names == s.pool_names
        assert other.horizon_s == s.horizon_s
    # Same scenario, same seed: the same numbers.
    a = gpucap.run(s, replications=20, progress=False, backend="cpu")
    b = gpucap.run(from_dict, replications=20, progress=False, backend="cpu")
    assert np.array_equal(a.scalars, b.scalars, equal_nan=True)


def test_overrides_change_values_and_keep_the_original(mmc):
    bigger = mmc.with_overrides({"pools.gpus.quota": 6, "horizon": "200h"})
    assert bigger.horizon_s == 200 * 3600
    assert mmc.horizon_s == 300 * 3600
    assert bigger.overrides == ["pools.gpus.quota=6", "horizon=200h"]
    assert "quota: 6" in bigger.to_yaml()
    assert bigger.to_dict()["pools"]["gpus"]["quota"] == 6


def test_errors_name_file_line_column_and_key_path(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhorizon: 10h\npools:\n  p: {gpu: H100, quota: -3, price_usd_per_gpu_hour: 1}\n"
                   "workloads:\n  - name: w\n    arrivals: {process: poisson, rate_per_hour: 1}\n"
                   "    work: {dist: exponential, mean: 1h}\n")
    with pytest.raises(gpucap.ScenarioError) as error:
        gpucap.Scenario.load(bad)
    message = str(error.value)
    assert message.startswith(f"{bad}:4:")
    assert "pools.p.quota" in message
    assert isinstance(error.value, ValueError)


def test_override_errors_say_which_override(mmc):
    with pytest.raises(gpucap.ScenarioError, match=r"\(from --set pools.gpus.quota=-1\)"):
        mmc.with_overrides({"pools.gpus.quota": -1})
    with pytest.raises(gpucap.ScenarioError, match="unknown key 'qouta'"):
        mmc.with_overrides({"pools.gpus.qouta": 3})


def test_missing_file_is_a_scenario_error_and_an_os_error(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(gpucap.InputFileError) as caught:
        gpucap.Scenario.load(missing)
    assert str(caught.value) == f"cannot read scenario file '{missing}': No such file or directory"
    assert isinstance(caught.value, gpucap.ScenarioError)
    assert isinstance(caught.value, OSError)
    with pytest.raises(gpucap.InputFileError, match="is a directory, not a regular file"):
        gpucap.Scenario.load(tmp_path)


def test_override_values_are_written_in_yaml_syntax():
    assert yaml_value(3) == "3"
    assert yaml_value(1.5) == "1.5"
    assert yaml_value(True) == "true"
    assert yaml_value("30min") == "30min"
    assert yaml_value(["a", "b"]) == "[a, b]"
    assert yaml_value({"dist": "exponential", "mean": "1h"}) == "{dist: exponential, mean: 1h}"
