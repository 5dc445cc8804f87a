"""Sweeps on a dask.distributed LocalCluster (worker processes) give a local run's bits."""

import numpy as np
import pytest

import gpucap

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_cluster_sweep_equals_local_sweep(client, mmc):
    mmc = mmc.with_overrides({"timeseries.step": "50h"})
    grid = {"pools.gpus.quota": [4, 6]}
    local = gpucap.sweep(mmc, grid, replications=700, seed=12, progress=False, backend="cpu")
    remote = gpucap.sweep(mmc, grid, replications=700, seed=12, progress=False, backend="cpu",
                          client=client, chunk_replications=256)
    assert remote.points == 2 and remote.replications == 700
    assert np.array_equal(local.scalars, remote.scalars, equal_nan=True)
    assert np.array_equal(local.pool_values, remote.pool_values, equal_nan=True)
    assert np.array_equal(local._core.summary, remote._core.summary, equal_nan=True)
    assert np.array_equal(local.timeseries, remote.timeseries, equal_nan=True)
    assert remote.device.startswith("dask: 3 chunks on 2 workers")


def test_chunks_cover_the_replications_in_whole_blocks():
    from gpucap.distributed import chunks_of

    assert chunks_of(700, 2, 256) == [(0, 256), (256, 256), (512, 188)]
    assert chunks_of(100, 8, None) == [(0, 100)]
    chunks = chunks_of(10000, 4, None)
    assert sum(c for _, c in chunks) == 10000
    assert all(first % 256 == 0 for first, _ in chunks)
