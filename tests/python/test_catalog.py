"""gpucap.catalog_path() and gpucap.catalog(): the project's price catalog is installed with the
package (pip install .) and found from it, so that a scenario written in a notebook can name it
wherever gpucap runs."""

import os

import pytest

import gpucap

REPO = os.path.join(os.path.dirname(__file__), "..", "..")


def test_the_catalog_is_found_and_is_the_projects():
    path = gpucap.catalog_path()
    assert os.path.isfile(path)
    package = os.path.dirname(os.path.realpath(gpucap.__file__))
    in_package = os.path.join(package, "data", "gpu_prices.csv")
    in_tree = os.path.realpath(os.path.join(REPO, "data", "gpu_prices.csv"))
    # Installed: the package's own copy (so it is there without the source tree).
    if os.path.isfile(in_package):
        assert path == os.path.realpath(in_package)
    else:
        assert path == in_tree
    with open(path, "rb") as found, open(in_tree, "rb") as project:
        assert found.read() == project.read()


def test_rows_filter_and_order():
    rows = gpucap.catalog(gpu="H100", provider="aws")
    # docs/importing.md, `gpucap catalog list --gpu H100 --provider aws`: the same two rows.
    assert list(rows.index) == ["aws/p5.48xlarge/us-east-1", "aws/p5.48xlarge/us-west-2"]
    assert rows["on_demand_usd_per_gpu_hour"].tolist() == [12.29, 12.29]
    assert rows["spot_usd_per_gpu_hour"].tolist() == pytest.approx([2.624175, 3.822475])
    everything = gpucap.catalog()
    assert len(everything) == 60
    prices = everything["on_demand_usd_per_gpu_hour"].tolist()
    assert prices == sorted(prices)
    assert gpucap.catalog(gpu="no such GPU").empty


def test_a_scenario_from_python_names_it(tmp_path):
    # One 8-GPU job of exactly 1 h on the catalog's aws/p5.48xlarge/us-east-1 (12.29 USD per
    # GPU-hour, per-second billing): cost 8 x 12.29 = 98.32 USD in every replication.
    text = f"""
name: catalog from the package
horizon: 1d
seed: 1
catalog: {gpucap.catalog_path()}
pools:
  p5:
    catalog_row: aws/p5.48xlarge/us-east-1
    quota: 8
workloads:
  - name: one
    gpus: 8
    arrivals: {{process: trace, file: one.csv}}
"""
    (tmp_path / "one.csv").write_text("submit_s,gpus,duration_s\n0,8,3600\n")
    scenario = gpucap.Scenario.from_yaml(text, base_dir=str(tmp_path))
    # Nothing in it is random, so the run says that its replications are identical.
    with pytest.warns(gpucap.ResultsWarning, match="gave the same values"):
        results = gpucap.run(scenario, replications=2, backend="cpu", progress=False)
    assert results["cost"][0].tolist() == pytest.approx([98.32, 98.32], rel=1e-12)


def test_matching_is_the_clis():
    # `gpucap catalog list --gpu h100` lists the H100s: the model and provider match whatever
    # their case, as in the CLI (the same C++ reader and filter).
    assert list(gpucap.catalog(gpu="h100", provider="AWS").index) == list(
        gpucap.catalog(gpu="H100", provider="aws").index
    )
    assert len(gpucap.catalog(gpu="h100")) > 0
    spot = gpucap.catalog(gpu="H100", spot=True)
    prices = spot["spot_usd_per_gpu_hour"].tolist()
    assert prices == sorted(prices) and not spot["spot_usd_per_gpu_hour"].isna().any()
    assert set(gpucap.catalog(region="us-east-1")["region"]) == {"us-east-1"}


def test_hostile_files_are_refused_not_read(tmp_path):
    # A FIFO (nothing would ever write it: reading it would block forever), a device that never
    # ends, a file that is not a catalog and one over the byte limit: each a clear error.
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    with pytest.raises(gpucap.InputFileError, match="not a regular file"):
        gpucap.catalog(str(fifo))
    with pytest.raises(gpucap.InputFileError, match="not a regular file"):
        gpucap.catalog("/dev/zero")
    other = tmp_path / "jobs.csv"
    other.write_text("submit_s,gpus,duration_s\n0,1,60\n")
    with pytest.raises(ValueError, match=r"jobs.csv: no column \"key\"; a price catalog needs"):
        gpucap.catalog(str(other))
    with pytest.raises(gpucap.InputFileError, match="over the limit"):
        gpucap.catalog(gpucap.catalog_path(), max_bytes=100)
    with pytest.raises(gpucap.InputFileError, match="No such file"):
        gpucap.catalog(str(tmp_path / "missing.csv"))
