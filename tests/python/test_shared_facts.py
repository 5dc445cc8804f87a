"""One source for each fact that C++ and Python share: the version, the backend names, the moment
block, the run limits, the grid expansion and the HDF5 layout all come from the C++ library."""

import importlib
import re
import subprocess
from importlib import metadata

import numpy as np
import pytest

import gpucap
from gpucap import _core

run_module = importlib.import_module("gpucap.run")


def cmake_version(root) -> str:
    text = (root / "CMakeLists.txt").read_text()
    return re.search(r"project\(gpucap\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", text).group(1)


def test_the_version_is_the_cmake_projects(root):
    version = cmake_version(root)
    assert gpucap.__version__ == _core.__version__ == version
    # pyproject.toml has no version of its own: scikit-build-core reads CMakeLists.txt.
    pyproject = (root / "pyproject.toml").read_text()
    assert re.search(r'(?m)^dynamic = \["version"\]', pyproject)
    assert not re.search(r"(?m)^version\s*=", pyproject)
    try:
        installed = metadata.version("gpucap")
    except metadata.PackageNotFoundError:
        pytest.skip("gpucap is not installed with its metadata (run from a build tree)")
    assert installed == version


def test_the_cli_prints_the_same_version(cli):
    out = subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=True).stdout
    assert out == f"gpucap {gpucap.__version__}\n"


def test_backend_names_come_from_the_cpp_table():
    choices = _core.backend_choices()
    names = [name for name, _ in choices]
    assert names == ["auto", "cpu", "cuda", "thrust-omp"]
    assert run_module._BACKENDS == tuple(names)
    info = gpucap.backends()
    assert list(info) == names[1:] + ["auto"]
    assert info["auto"] in names[1:]
    cpu = info["cpu"]
    assert cpu["kind"] == "cpu" and cpu["built"] and cpu["usable"] and cpu["why"] == ""
    assert cpu["name"] in ("cpu-openmp", "cpu-serial")
    assert cpu["threads"] == cpu["devices"][0]["multiprocessors"] >= 1
    assert info["cuda"]["kind"] == info["thrust-omp"]["kind"] == "device"
    for name in names[1:]:
        assert info[name]["description"] == dict(choices)[name]
        if not info[name]["built"]:
            assert not info[name]["usable"] and info[name]["why"]
    # gpucap.run's help lists every choice with the table's description.
    for name, text in choices:
        assert f"{name!r}: {text}" in gpucap.run.__doc__
    with pytest.raises(ValueError, match=r"^backend 'gpu': valid backends are auto, cpu, cuda, thrust-omp$"):
        run_module._check_backend("gpu")


def test_chunks_start_on_the_cpp_moment_block():
    from gpucap.distributed import CHUNK_ALIGNMENT, chunks_of

    assert _core.MOMENT_BLOCK == 256
    assert CHUNK_ALIGNMENT == _core.MOMENT_BLOCK
    assert chunks_of(600, 1, 300) == [(0, 512), (512, 88)]


def test_run_limits_are_the_cpp_ones():
    assert run_module.MAX_SWEEP_POINTS == _core.MAX_SWEEP_POINTS == 100_000
    assert run_module.MAX_REPLICATIONS == _core.MAX_REPLICATIONS == 1_000_000_000
    assert run_module.MAX_THREADS == _core.MAX_THREADS == 1024


def test_the_grid_expansion_is_the_cpp_one(mmc):
    assert _core.expand_grid([("a", ["1", "2"]), ("b", ["x", "y", "z"])]) == [
        ("a", ["1", "1", "1", "2", "2", "2"]),
        ("b", ["x", "y", "z", "x", "y", "z"]),
    ]
    assert _core.expand_grid([]) == []
    with pytest.raises(gpucap.ScenarioError, match=r"^sweep: the grid entry 'h' has no values$"):
        _core.expand_grid([("h", [])], "sweep: the grid")
    with pytest.raises(gpucap.ScenarioError, match=r"^--grid names 'a' twice; give each path once"):
        _core.expand_grid([("a", ["1"]), ("a", ["2"])])
    # gpucap.sweep expands through it: the same order and the same limit.
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5], "horizon": ["200h", "250h"]}, replications=2,
                     progress=False)
    assert [(p, list(v)) for p, v in r._core.sweep] == _core.expand_grid(
        [("pools.gpus.quota", ["4", "5"]), ("horizon", ["200h", "250h"])])
    too_many = {"pools.gpus.quota": list(range(1, 1001)), "horizon": [f"{h}h" for h in range(200, 400)]}
    with pytest.raises(ValueError, match=r"^sweep: the grid has 200000 points, more than the 100000 a sweep "
                                         r"may have; sweep fewer values at once$"):
        gpucap.sweep(mmc, too_many, replications=2, progress=False)


def expand(item: dict) -> list:
    """The concrete names an item of the layout stands for (the sweep below has one parameter)."""
    names = {"<metric>": [m[0] for m in _core.scalar_metrics()],
             "<pool metric>": [m[0] for m in _core.pool_metrics()],
             "<parameter>": ["pools.gpus.quota"]}
    return names.get(item["name"], [item["name"]])


def test_the_hdf5_layout_table_is_the_file(mmc, tmp_path):
    h5py = pytest.importorskip("h5py")
    layout = _core.results_file_layout()
    # Goals and per-job records too: /goals and /jobs are written only when the scenario asks;
    # and fewer rows than replications, for /difference_summary.
    scenario = mmc.with_overrides({"timeseries.step": "50h", "goals": {"cheap": {"require": ["cost <= 1e9"]}},
                                   "records": {"jobs": 1}})
    r = gpucap.sweep(scenario, {"pools.gpus.quota": [4, 5]},
                     replications=3, progress=False, rows=2)
    path = tmp_path / "r.h5"
    r.save(path)
    metric_datasets = [i for i in layout if i["kind"] == "dataset" and i["type"] == "float64"
                       and i["parent"] != "/settling"]
    listed = set()
    with h5py.File(path, "r") as f:
        for item in layout:
            # /settling is in files without a time series (this one has one): the settling
            # probe's round trip is tests/unit/result_warnings_test.cpp's.
            if item["parent"] == "/settling" or (item["parent"] == "/" and item["name"] == "settling"):
                continue
            for name in expand(item):
                if item["kind"] == "attribute":
                    owners = ([f[d["parent"]][n] for d in metric_datasets for n in expand(d)]
                              if item["parent"] == "every metric dataset" else [f[item["parent"]]])
                    for owner in owners:
                        assert name in owner.attrs, f"{owner.name} lacks attribute {name}"
                        listed.add((owner.name, name))
                    continue
                full = "/" if name == "/" else f"{item['parent'].rstrip('/')}/{name}"
                assert full in f, f"{full} missing"
                listed.add((full, None))
                obj = f[full]
                if item["kind"] == "group":
                    assert isinstance(obj, h5py.Group)
                else:
                    assert isinstance(obj, h5py.Dataset)
                    assert obj.ndim == item["shape"].count(",") + 1, full
                    if item["type"] == "float64":
                        assert obj.dtype == np.float64
                        assert obj.attrs["unit"] == (item["unit"] or obj.attrs["unit"])
                    if item["type"] == "compound":
                        fields = [x["name"] for x in _core.results_file_fields()
                                  if full == "/pool_summary" or not x["pool_only"]]
                        assert list(obj.dtype.names) == fields
        # Nothing in the file that the table does not list, but for the attributes of HDF5's
        # dimension scales (kHdf5DimensionScaleAttributes in gpucap/hdf5_layout.hpp).
        scale_attributes = {"CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST"}
        present = {("/", None)} | {("/", a) for a in f.attrs}

        def visit(name, obj):
            present.add(("/" + name, None))
            present.update(("/" + name, a) for a in obj.attrs if a not in scale_attributes)

        f.visititems(visit)
    assert present == listed
