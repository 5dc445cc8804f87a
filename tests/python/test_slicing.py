"""Results analysts can slice: typed parameters, long frames, to_xarray, concat, and the HDF5 file
opened by xarray with named dimensions."""

import numpy as np
import pytest

import gpucap
from gpucap.results import typed_values


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def test_parameters_are_numbers_where_every_value_is_one():
    assert typed_values(["4", "5"]).dtype == np.int64
    assert list(typed_values(["1.0", "2.5e+1"])) == [1.0, 25.0]
    assert typed_values(["1.0", "2.5e+1"]).dtype == np.float64
    assert typed_values(["1h", "2"]).dtype == object  # a duration: text as written
    assert list(typed_values(["inf", "1"])) == ["inf", "1"]
    assert list(typed_values(["true", "false"])) == ["true", "false"]


def test_long_frame_and_typed_columns(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5], "warmup": ["5h", "10h"]}, replications=6,
                     progress=False)
    assert r.parameters["pools.gpus.quota"].tolist() == [4, 4, 5, 5]
    assert r.parameters["pools.gpus.quota"].dtype == np.int64
    assert r.parameters["warmup"].tolist() == ["5h", "10h", "5h", "10h"]
    assert r.point_parameters(2) == {"pools.gpus.quota": "5", "warmup": "5h"}  # as written
    wide = r.to_pandas(["cost", "wait_mean"])
    assert wide["pools.gpus.quota"].dtype == np.int64
    long = r.to_pandas(["cost", "wait_mean"], long=True)
    assert list(long.columns) == ["point", "replication", "pools.gpus.quota", "warmup", "metric",
                                  "value", "unit"]
    assert len(long) == 4 * 6 * 2
    row = long[(long.point == 3) & (long.replication == 4) & (long.metric == "wait_mean")]
    assert row["value"].item() == r["wait_mean"][3, 4]
    assert row["unit"].item() == "s" and row["pools.gpus.quota"].item() == 5
    assert same(long[long.metric == "cost"]["value"], r["cost"].ravel())
    means = long.groupby(["point", "metric"], observed=True)["value"].mean()
    assert means[(1, "cost")] == pytest.approx(r.summary(["cost"]).loc[(1, "cost"), "mean"], rel=1e-12)


def test_to_xarray_has_named_dimensions_units_and_typed_coordinates(mmc):
    pytest.importorskip("xarray")
    r = gpucap.sweep(mmc.with_overrides({"timeseries.step": "50h"}), {"pools.gpus.quota": [4, 6]},
                     replications=5, progress=False)
    ds = r.to_xarray()
    assert dict(ds.sizes) == {"point": 2, "replication": 5, "pool": 1, "time": 6}
    assert ds["cost"].dims == ("point", "replication")
    assert ds["cost"].attrs["unit"] == "USD"
    assert same(ds["cost"], r["cost"])
    assert ds["pool_utilization"].dims == ("point", "replication", "pool")
    assert same(ds["pool_utilization"], r.pool("utilization"))
    assert same(ds["gpus_in_use"], r.timeseries)
    assert ds["pools.gpus.quota"].dims == ("point",)
    assert ds["pools.gpus.quota"].values.tolist() == [4, 6]
    assert ds["time"].values.tolist() == [0.0, 50 * 3600.0, 100 * 3600.0, 150 * 3600.0, 200 * 3600.0,
                                          250 * 3600.0]
    assert ds["pool"].values.tolist() == ["gpus"]
    by_quota = ds["cost"].groupby("pools.gpus.quota").mean(...)
    assert by_quota.sel({"pools.gpus.quota": 6}).item() == pytest.approx(r["cost"][1].mean(), rel=1e-12)


def test_the_results_file_opens_in_xarray_with_named_dimensions(mmc, tmp_path):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    r = gpucap.sweep(mmc.with_overrides({"timeseries.step": "50h"}),
                     {"pools.gpus.quota": [4, 6], "warmup": ["5h", "10h"]}, replications=4,
                     progress=False)
    path = tmp_path / "r.h5"
    r.save(path)
    with open(path, "rb") as f:
        assert f.read(20) == b"GPUCAP RESULTS FILE\n"  # the user block is still there
    tree = xr.open_datatree(path, engine="h5netcdf")
    root = tree.to_dataset()
    assert root["point"].values.tolist() == [0, 1, 2, 3]
    assert root["replication"].values.tolist() == [0, 1, 2, 3]
    assert root["pool"].values.tolist() == ["gpus"]
    assert root["time"].values.tolist() == [i * 50 * 3600.0 for i in range(6)]
    assert root["time"].attrs["unit"] == "s"
    assert root["pools.gpus.quota"].dims == ("point",)
    assert root["pools.gpus.quota"].values.tolist() == [4.0, 4.0, 6.0, 6.0]
    assert root["warmup"].values.tolist() == ["5h", "10h", "5h", "10h"]
    reps = tree["replications"].to_dataset()
    assert reps["cost"].dims == ("point", "replication")
    assert reps["cost"].attrs["unit"] == "USD"
    assert same(reps["cost"], r["cost"])
    assert reps["replication"].values.tolist() == [0, 1, 2, 3]  # inherited from the root
    pools = xr.open_dataset(path, engine="h5netcdf", group="pools")
    assert pools["utilization"].dims == ("point", "replication", "pool")
    assert same(pools["utilization"], r.pool("utilization"))
    series = xr.open_dataset(path, engine="h5netcdf", group="timeseries")["gpus_in_use"]
    assert series.dims == ("point", "replication", "pool", "time")
    assert same(series, r.timeseries)
    sweep = xr.open_dataset(path, engine="h5netcdf", group="sweep")
    assert sweep["values"].dims == ("paths", "point")
    tree.close()
    pools.close()
    back = gpucap.load_results(path)  # gpucap's own reader still reads it
    assert same(back.scalars, r.scalars) and same(back._core.summary, r._core.summary)


def test_concat_of_replication_chunks_is_one_run_bit_for_bit(mmc):
    one = gpucap.run(mmc, replications=40, seed=9, progress=False)
    a = gpucap.run(mmc, replications=20, seed=9, progress=False)
    b = gpucap.run(mmc, replications=20, seed=9, first_replication=20, progress=False)
    joined = gpucap.concat([b, a], dim="replication")  # any order
    assert joined.replications == 40 and joined.first_replication == 0
    assert same(joined.scalars, one.scalars)
    assert same(joined.pool_values, one.pool_values)
    assert same(joined._core.summary, one._core.summary)
    assert same(joined._core.pool_summary, one._core.pool_summary)
    with pytest.raises(ValueError, match="start at 20, expected 10"):
        gpucap.concat([gpucap.run(mmc, replications=10, seed=9, progress=False), b], dim="replication")


def test_concat_of_sweeps_is_the_combined_sweep(mmc):
    grid = "pools.gpus.quota"
    whole = gpucap.sweep(mmc, {grid: [4, 5, 6]}, replications=12, seed=2, progress=False)
    a = gpucap.sweep(mmc, {grid: [4, 5]}, replications=12, seed=2, progress=False)
    b = gpucap.sweep(mmc, {grid: [5, 6]}, replications=12, seed=2, progress=False)
    joined = gpucap.concat([a, b])  # 5 is in both: kept once
    assert joined.points == 3
    assert joined.parameters[grid].tolist() == [4, 5, 6]
    assert same(joined.scalars, whole.scalars)
    assert same(joined._core.summary, whole._core.summary)
    assert same(joined._core.pool_summary, whole._core.pool_summary)
    other_seed = gpucap.sweep(mmc, {grid: [7]}, replications=12, seed=3, progress=False)
    with pytest.raises(ValueError, match="seed is 3"):
        gpucap.concat([a, other_seed])
    other_grid = gpucap.sweep(mmc, {"warmup": ["5h"]}, replications=12, seed=2, progress=False)
    with pytest.raises(ValueError, match="swept parameters differ"):
        gpucap.concat([a, other_grid])
    other_scenario = gpucap.sweep(mmc.with_overrides({"horizon": "200h"}), {grid: [7]},
                                  replications=12, seed=2, progress=False)
    with pytest.raises(ValueError, match="overrides differ"):
        gpucap.concat([a, other_scenario])
    with pytest.raises(ValueError, match="dim is 'pool'"):
        gpucap.concat([a, b], dim="pool")
    with pytest.raises(TypeError, match="expected gpucap.Results"):
        gpucap.concat([a, "b"])
