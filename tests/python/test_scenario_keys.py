"""The scenario key table from Python: the JSON Schema checks every shipped scenario (as an editor's
YAML language server would), refuses mistakes, and matches the CLI; scenario_keys() and explain()."""

import copy
import json
import math
import subprocess

import jsonschema
import pytest
import yaml

import gpucap


@pytest.fixture(scope="module")
def validator():
    schema = gpucap.scenario_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def shipped(scenarios):
    files = sorted(scenarios.glob("*.yaml"))
    assert len(files) >= 19
    return files


def test_every_shipped_scenario_is_valid_under_the_schema(validator, scenarios):
    for path in shipped(scenarios):
        document = yaml.safe_load(path.read_text())
        errors = [e.message for e in validator.iter_errors(document)]
        assert errors == [], f"{path.name}: {errors}"


def test_the_schema_refuses_what_the_loader_refuses(validator, scenarios):
    base = yaml.safe_load((scenarios / "spot_training.yaml").read_text())
    pool = next(iter(base["pools"]))

    def refused(edit):
        document = copy.deepcopy(base)
        edit(document)
        return not validator.is_valid(document)

    assert refused(lambda d: d["pools"][pool].__setitem__("qouta", 8))  # misspelt key
    assert refused(lambda d: d["pools"][pool].__setitem__("purchase", "on-demand"))  # not a choice
    assert refused(lambda d: d["pools"][pool].__setitem__("quota", -1))  # below the range
    assert refused(lambda d: d["pools"][pool].__setitem__("quota", 2**20))  # above it
    assert refused(lambda d: d["pools"][pool].__setitem__("price_usd_per_gpu_hour", 2e6))
    assert refused(lambda d: d.__setitem__("horizon", "30 months"))  # unknown time unit
    assert refused(lambda d: d["workloads"][0].__setitem__("work", {"dist": "normal"}))
    assert refused(lambda d: d.__setitem__("workloads", []))
    assert refused(lambda d: d.pop("pools"))  # required
    # Keys that do not apply to the pool's purchase option or the workload's kind.
    assert refused(lambda d: d["pools"][pool].__setitem__("count", 8))  # a spot pool
    assert refused(lambda d: d["workloads"][0].__setitem__("replicas", 2))  # a training class
    assert not refused(lambda d: d.__setitem__("horizon", "45d"))


def test_the_cli_prints_the_same_schema(cli):
    out = subprocess.run([str(cli), "schema"], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == gpucap.scenario_schema()


def test_scenario_keys_lists_every_key_with_its_unit_and_range():
    keys = gpucap.scenario_keys()
    assert keys.index.is_unique
    quota = keys.loc["pools.NAME.quota"]
    assert (quota["type"], quota["unit_kind"], quota["min"], quota["max"]) == (
        "integer",
        "count",
        0,
        1048575,
    )
    assert keys.loc["pools.NAME.slowdown", "unit_kind"] == "plain factor"
    assert keys.loc["workloads[].work", "unit_kind"] == "duration"
    probability = keys.loc["pools.NAME.stockout.probability"]
    assert (probability["min"], probability["max"], probability["max_open"]) == (0, 1, True)
    assert keys.loc["pools.NAME.price_usd_per_gpu_hour", "max"] == 1e6
    assert keys.loc["policy.queue", "choices"] == "fifo priority sjf shortest_job_first"
    assert keys.loc["pools.NAME.count", "applies"] == "purchase: reserved, owned"
    assert math.isinf(keys.loc["workloads[].gpus", "min"]) is False
    assert len(keys) >= 120


def test_explain_answers_short_forms_and_refuses_unknown_keys():
    text = gpucap.explain("pools.quota")
    assert text.startswith("pools.NAME.quota\n")
    assert "from 0 to 1048575" in text
    assert gpucap.explain("workloads[0].work.cv").startswith("workloads[].work.cv")
    with pytest.raises(KeyError, match="qouta"):
        gpucap.explain("pools.NAME.qouta")


def test_explain_answers_metrics():
    text = gpucap.explain("latency_p99")
    assert text.startswith("latency_p99 (metric, one value per replication)\n")
    assert "  unit:       s\n" in text and "a request of the window was served" in text
    both = gpucap.explain("utilization")  # a scalar and a pool metric
    assert "utilization (metric" in both and "utilization (pool metric" in both
    with pytest.raises(KeyError, match="no scenario key or metric 'latency_p9'"):
        gpucap.explain("latency_p9")


def test_a_slowdown_with_a_time_unit_is_refused_with_the_reason(scenarios):
    with pytest.raises(gpucap.ScenarioError, match="plain factor, not a time"):
        gpucap.Scenario.load(
            scenarios / "marketplace_batch.yaml",
            overrides={"pools.market-4090.slowdown": "1.5d"},
        )
