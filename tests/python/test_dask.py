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


def test_a_cluster_sweep_without_rows_folds_to_the_local_bits(client, mmc):
    grid = {"pools.gpus.quota": [4, 6]}
    local = gpucap.sweep(mmc, grid, replications=1500, seed=5, progress=False, backend="cpu",
                         rows="none")
    remote = gpucap.sweep(mmc, grid, replications=1500, seed=5, progress=False, backend="cpu",
                          client=client, chunk_replications=512, rows="none")
    assert remote.kept_replications == 0 and remote.replications == 1500
    assert np.array_equal(local._core.summary, remote._core.summary, equal_nan=True)
    assert np.array_equal(local._core.pool_summary, remote._core.pool_summary, equal_nan=True)
    assert remote.paired_difference("wait_mean", 1, 0) == local.paired_difference("wait_mean", 1, 0)
    assert remote.device.startswith("dask: 3 chunks on 2 workers")
    with pytest.raises(ValueError, match="rows"):
        gpucap.sweep(mmc, grid, replications=600, progress=False, client=client, rows=100)


def test_chunks_cover_the_replications_in_whole_blocks():
    from gpucap.distributed import chunks_of

    assert chunks_of(700, 2, 256) == [(0, 256), (256, 256), (512, 188)]
    assert chunks_of(100, 8, None) == [(0, 100)]
    chunks = chunks_of(10000, 4, None)
    assert sum(c for _, c in chunks) == 10000
    assert all(first % 256 == 0 for first, _ in chunks)


def test_each_worker_parses_a_trace_once_and_the_merge_keeps_the_inputs(client, tmp_path):
    import hashlib

    trace = "submit_s,gpus,duration_s\n" + "".join(f"{60 * i},1,600\n" for i in range(50))
    (tmp_path / "trace.csv").write_text(trace)
    (tmp_path / "replay.yaml").write_text(
        "name: replay\nhorizon: 1d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 4}\n"
        "workloads:\n  - name: w\n    arrivals: {process: trace, file: trace.csv}\n    placement: [p]\n")
    client.run(gpucap._core.clear_data_cache)
    before = {w: st["csv_parses"] for w, st in client.run(gpucap._core.data_cache_stats).items()}
    s = gpucap.Scenario.load(tmp_path / "replay.yaml")
    r = gpucap.sweep(s, {"pools.p.quota": [2, 4]}, replications=1024, seed=3, progress=False,
                     backend="cpu", client=client, chunk_replications=256)
    # 4 chunks, each rebuilding both points on a worker: one parse per worker process.
    after = client.run(gpucap._core.data_cache_stats)
    parses = [st["csv_parses"] - before[w] for w, st in after.items()]
    assert sum(parses) >= 1 and all(p <= 1 for p in parses)
    assert [f["sha256"] for f in r.inputs] == [hashlib.sha256(trace.encode()).hexdigest()]


@pytest.mark.parametrize("rows", ["all", "none"])
def test_a_token_cancels_a_cluster_sweep(client, mmc, rows):
    import threading

    token = gpucap.CancelToken()
    timer = threading.Timer(0.5, token.cancel)  # about 160 s of chunks otherwise
    timer.start()
    with pytest.raises(gpucap.RunCancelled, match="cancelled by its CancelToken; its chunks not yet "
                                                  "finished were cancelled on the cluster"):
        gpucap.sweep(mmc.with_overrides({"horizon": "20000h"}), {"pools.gpus.quota": [4, 6]},
                     replications=256 * 40, progress=False, backend="cpu", client=client,
                     chunk_replications=256, rows=rows, cancel=token)
    timer.join()
