"""Hostile arguments from Python: replication ranges that would wrap around 2^64, dicts too
large or too deep for a scenario, checked before any work, with messages that name them."""

import os

import numpy as np
import pytest
import yaml

import gpucap
from conftest import MMC


@pytest.mark.parametrize("first, count", [(2**64 - 1, 2), (2**64 - 256, 257), (2**64 - 10, 1000)])
def test_a_replication_range_past_2_to_the_64_is_refused(mmc, first, count):
    # Replication 2^64 would be replication 0 again: the same random numbers twice.
    with pytest.raises(ValueError, match=r"first_replication \+ replications must be at most 2\^64 "
                                         r"\(replication indices run from 0 to 18446744073709551615\), "
                                         rf"got first_replication {first} and {count} replications: "
                                         "the index would wrap around to 0"):
        gpucap.run(mmc, replications=count, first_replication=first, progress=False)


def test_the_last_replications_before_2_to_the_64_run(mmc):
    r = gpucap.run(mmc, replications=2, first_replication=2**64 - 2, progress=False)
    assert r.first_replication == 2**64 - 2 and r.replications == 2
    again = gpucap.run(mmc, replications=1, first_replication=2**64 - 1, progress=False)
    assert np.array_equal(again.scalars[0, 0], r.scalars[0, 1], equal_nan=True)


def test_a_sweep_or_a_precision_run_past_2_to_the_64_is_refused(mmc):
    with pytest.raises(ValueError, match="got first_replication 18446744073709551615 and 2 replications"):
        gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5]}, replications=2, first_replication=2**64 - 1,
                     progress=False)
    # A run to a precision may run up to max_replications: refused before its first batch.
    with pytest.raises(ValueError, match=r"got first_replication 18446744073709551360 and 1000 "
                                         "max_replications"):
        gpucap.run(mmc, precision=0.5, max_replications=1000, first_replication=2**64 - 256,
                   progress=False)


def test_from_dict_refuses_a_large_dict_before_writing_its_yaml():
    data = yaml.safe_load(MMC)
    # 200 MB as YAML: writing it took minutes (0.7 s per MB) before the 1 MiB check; now the
    # check looks at about 1 MiB of it first.
    data["notes"] = ["x" * 100] * 2_000_000
    with pytest.raises(gpucap.InputFileError, match=r"<dict>: the scenario is more than 1048576 bytes "
                                                    r"of YAML, over the limit of 1048576 bytes \(raise "
                                                    r"it with max_scenario_bytes=\)"):
        gpucap.Scenario.from_dict(data)
    with pytest.raises(gpucap.InputFileError, match="more than 100 bytes of YAML"):
        gpucap.Scenario.from_dict(yaml.safe_load(MMC), max_scenario_bytes=100)
    # The limit can be raised, as for files.
    data = yaml.safe_load(MMC)
    data["description"] = "x" * 1_500_000
    with pytest.raises(gpucap.InputFileError, match="more than 1048576 bytes"):
        gpucap.Scenario.from_dict(data)
    assert gpucap.Scenario.from_dict(data, max_scenario_bytes=4 << 20).name == "python test M/M/4"


def test_a_dict_referring_to_one_list_many_times_counts_every_copy():
    data = yaml.safe_load(MMC)
    block = ["x" * 1000] * 100  # 100 kB, referred to 1000 times: 100 MB as YAML without aliases
    data["notes"] = [block] * 1000
    with pytest.raises(gpucap.InputFileError, match="more than 1048576 bytes"):
        gpucap.Scenario.from_dict(data)


def deep(levels, leaf=1):
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def test_nesting_deeper_than_64_levels_is_refused_not_a_recursion_error():
    data = yaml.safe_load(MMC)
    data["x"] = deep(100_000)
    with pytest.raises(gpucap.ScenarioError, match=r"^data\.x(\.a){63}: nested more than 64 levels deep"):
        gpucap.Scenario.from_dict(data)
    with pytest.raises(gpucap.ScenarioError, match="nested more than 64 levels deep"):
        gpucap.Scenario.from_yaml(MMC).with_overrides({"x": deep(100_000)})
    loop = yaml.safe_load(MMC)
    loop["x"] = loop  # a dict inside itself
    with pytest.raises(gpucap.ScenarioError, match="is a container inside itself"):
        gpucap.Scenario.from_dict(loop)


def test_from_dict_takes_numpy_values_and_names_what_it_cannot_hold():
    data = yaml.safe_load(MMC)
    data["seed"] = np.int64(9)
    data["pools"]["gpus"]["quota"] = np.int32(6)
    s = gpucap.Scenario.from_dict(data)
    assert (s.seed, s.to_dict()["pools"]["gpus"]["quota"]) == (9, 6)
    data["pools"]["gpus"]["price_usd_per_gpu_hour"] = object()
    with pytest.raises(TypeError, match=r"data\.pools\.gpus\.price_usd_per_gpu_hour: a object cannot "
                                        "be a scenario value"):
        gpucap.Scenario.from_dict(data)
    with pytest.raises(TypeError, match="from_dict: data must be a mapping"):
        gpucap.Scenario.from_dict([("name", "x")])


@pytest.mark.parametrize("arguments, error, message", [
    ({"first_replication": -1}, ValueError, "first_replication must be from 0 to 18446744073709551615, got -1"),
    ({"first_replication": 2**64}, ValueError, "first_replication must be from 0 to 18446744073709551615"),
    ({"devices": 3}, TypeError, "devices must be a list of device indices"),
    ({"devices": [-1]}, ValueError, r"devices\[0\] must be from 0 to 1023, got -1"),
    ({"devices": [2**64]}, ValueError, r"devices\[0\] must be from 0 to 1023"),
    ({"rows": -1}, ValueError, "rows must be from 1 to 1000000000, got -1"),
    ({"rows": 2**70}, ValueError, "rows must be from 1 to 1000000000"),
])
def test_integers_that_would_wrap_in_cpp_are_refused_by_name(mmc, arguments, error, message):
    with pytest.raises(error, match=message):
        gpucap.run(mmc, **{"replications": 2, "progress": False, **arguments})


def test_byte_limits_out_of_range_are_refused_by_name():
    with pytest.raises(ValueError, match=r"max_scenario_bytes must be from 1 to 2\^63 - 1 bytes, got 0"):
        gpucap.Scenario(MMC, max_scenario_bytes=0)
    with pytest.raises(ValueError, match=r"max_data_bytes must be from 1 to 2\^63 - 1 bytes, got 9223372036854775808"):
        gpucap.Scenario(MMC, max_data_bytes=2**63)


def test_an_override_value_longer_than_a_scenario_may_be_is_refused_before_its_yaml(mmc):
    # A 2 MB list took 5 s of YAML and parsing before a ScenarioError; a 5 MB text was taken
    # into a scenario that could not be loaded again from its own text.
    big = ["x" * 10] * 200_000
    with pytest.raises(gpucap.InputFileError, match=r"^overrides\['description'\]: the value is more "
                                                    r"than 1048576 bytes of YAML, over the limit of "
                                                    r"1048576 bytes \(raise it with max_scenario_bytes=\)"):
        mmc.with_overrides({"description": big})
    with pytest.raises(gpucap.InputFileError, match=r"^overrides\['description'\]: the value is more"):
        mmc.with_overrides({"description": "x" * (5 << 20)})
    with pytest.raises(gpucap.InputFileError, match=r"^overrides\[0\]: the value is more"):
        mmc.with_overrides(["description=" + "x" * (5 << 20)])
    with pytest.raises(gpucap.InputFileError, match=r"^grid\['description'\]\[1\]: the value is more"):
        gpucap.sweep(mmc, {"description": ["a", big]}, replications=2, progress=False)
    raised = gpucap.Scenario(MMC, max_scenario_bytes=8 << 20)
    assert len(raised.with_overrides({"description": "x" * (2 << 20)}).to_yaml()) > 2 << 20


def test_threads_the_system_refuses_raise_instead_of_ending_the_interpreter(tmp_path):
    # threads=1024 (inside the documented range) under a 4 GB address space, as in a
    # memory-capped container: OpenMP ended the process ("Thread creation failed"), so that
    # `except BaseException` never ran. Now a gpucap.RunError that says how many to ask for.
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import resource, sys
        import gpucap
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))
        scenario = gpucap.Scenario.load(sys.argv[1]).with_overrides({"horizon": "10h", "warmup": "0s"})
        try:
            gpucap.run(scenario, replications=64, threads=1024, backend="cpu", progress=False)
            print("ran")
        except gpucap.RunError as e:
            print("caught:", e)
        r = gpucap.run(scenario, replications=64, threads=8, backend="cpu", progress=False)
        print("then", len(r["cost"][0]))
        """
    )
    scenario = os.path.join(os.path.dirname(__file__), "..", "..", "scenarios", "mmc_validation.yaml")
    out = subprocess.run([sys.executable, "-c", script, scenario], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "caught: cannot run 1024 threads: the system refused thread" in out.stdout, out.stdout
    assert "then 64" in out.stdout
