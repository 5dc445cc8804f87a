"""Sweeps on a dask.distributed cluster: replications cut into chunks, merged identically.

Replication r of every point always draws from the streams keyed by (seed, r), whichever worker
runs it, so chunks can run anywhere and the merged results (rows and summaries) are the same
bits as a local run with the same seed. Workers need gpucap installed and, for scenarios that
read data files (traces, samples), those files at the same paths.
"""

from __future__ import annotations

import math
import time
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from .results import Results
from .scenario import Scenario

#: Chunks start on multiples of this: the summary's moment block (kMomentBlock in C++'s
#: gpucap/moments.hpp), so that each chunk's blocks are the blocks of a local run; it also keeps
#: chunks sizable.
CHUNK_ALIGNMENT = _core.MOMENT_BLOCK


def _run_chunk(
    specs: Sequence[tuple],
    parameters: List[tuple],
    first: int,
    count: int,
    seed: Optional[int],
    backend: str,
    threads: int,
) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray], str, str, int]:
    """On a worker: replications [first, first + count) of every point."""
    points = [Scenario._from_spec(s) for s in specs]
    # The chunk's metadata is discarded (the merge keeps the description's): any base will do.
    core = _core.run(
        [p._core for p in points], parameters, points[0]._core, count, seed, first, backend, threads,
        None,
    )
    series = None if core.timeseries is None else np.array(core.timeseries)
    return (np.array(core.scalars), np.array(core.pool_values), series, core.backend, core.device,
            core.threads)


def _run_chunk_summary(
    specs: Sequence[tuple],
    parameters: List[tuple],
    first: int,
    count: int,
    seed: Optional[int],
    backend: str,
    threads: int,
) -> Tuple[bytes, str, str, int]:
    """On a worker: replications [first, first + count) of every point, summarized in chunks of
    bounded memory (no rows): the chunk summary's bytes and what ran it."""
    points = [Scenario._from_spec(s) for s in specs]
    return _core.run_chunk_summary([p._core for p in points], parameters, first, count, seed,
                                   backend, threads)


def chunks_of(replications: int, workers: int, chunk: Optional[int]) -> List[Tuple[int, int]]:
    """(first, count) chunks covering [0, replications): `chunk` each, or about two per worker,
    in whole multiples of CHUNK_ALIGNMENT (the last chunk takes the rest)."""
    if chunk is None:
        chunk = math.ceil(replications / max(1, 2 * workers))
    chunk = max(CHUNK_ALIGNMENT, math.ceil(chunk / CHUNK_ALIGNMENT) * CHUNK_ALIGNMENT)
    return [(first, min(chunk, replications - first)) for first in range(0, replications, chunk)]


#: Seconds between two looks at a CancelToken while waiting for the cluster.
_CANCEL_POLL_S = 0.1


def _cancelled(client: Any, futures: List[Any], cancel: Any) -> None:
    """Raises RunCancelled, after cancelling the futures on the cluster, when `cancel` is."""
    if cancel is not None and cancel.cancelled:
        client.cancel([f for f in futures if f is not None])
        raise _core.RunCancelled("the sweep was cancelled by its CancelToken; its chunks not yet "
                                 "finished were cancelled on the cluster")


def _result(client: Any, futures: List[Any], future: Any, cancel: Any) -> Any:
    """future.result(), looking at `cancel` every _CANCEL_POLL_S seconds meanwhile."""
    while True:
        _cancelled(client, futures, cancel)
        if cancel is None:
            return future.result()
        try:
            return future.result(timeout=_CANCEL_POLL_S)
        except TimeoutError:
            continue


def _as_completed(client: Any, futures: List[Any], cancel: Any) -> Any:
    """The futures as they finish, looking at `cancel` every _CANCEL_POLL_S seconds meanwhile."""
    from dask.distributed import as_completed, wait

    if cancel is None:
        yield from as_completed(futures)
        return
    pending = list(futures)
    while pending:
        _cancelled(client, futures, cancel)
        try:
            done = wait(pending, timeout=_CANCEL_POLL_S, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            continue
        pending = [f for f in pending if f not in done]
        yield from done


def run_on_cluster(
    client: Any,
    points: List[Scenario],
    parameters: List[tuple],
    base: Scenario,
    replications: Optional[int],
    seed: Optional[int],
    backend: str,
    threads: Optional[int],
    chunk_replications: Optional[int],
    progress: bool,
    keep_rows: bool = True,
    cancel: Any = None,
) -> Results:
    """Runs the points' replications in chunks on `client`'s workers and merges them: their
    rows (keep_rows), or only their chunk summaries, folded in replication order. A cancelled
    `cancel` (a CancelToken, looked at every 0.1 s) cancels the chunks not yet finished and
    raises RunCancelled."""
    from ._progress import Progress

    like = _core.describe_run([p._core for p in points], parameters, base._core, replications or 0, seed)
    total = like.replications
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    chunks = chunks_of(total, workers, chunk_replications)
    specs = [p._spec() for p in points]
    started = time.perf_counter()
    task = _run_chunk if keep_rows else _run_chunk_summary
    futures = [
        client.submit(task, specs, parameters, first, count, like.seed, backend,
                      threads or 0, pure=False)
        for first, count in chunks
    ]
    if not keep_rows:
        # Fold the summaries in replication order as they come, releasing each: the driver
        # holds one fold and the chunks that finished ahead of their turn, never the rows.
        fold = _core.ChunkFold([p._core for p in points], parameters, base._core, total, like.seed)
        first_answer = None
        with Progress(total * len(points), progress, "replications (dask)") as bar:
            update = bar.callback()
            for index, future in enumerate(futures):
                answer = _result(client, futures, future, cancel)  # a worker's error is raised here
                fold.add(answer[0])
                first_answer = first_answer or answer[1:]
                futures[index] = None
                future.release()
                if update is not None:
                    update(sum(count for _, count in chunks[: index + 1]) * len(points))
        backend_label, worker_device, worker_threads = first_answer
        device = f"dask: {len(chunks)} chunks on {workers} workers, {worker_device} each"
        return Results(fold.finish(backend_label, device, worker_threads,
                                   time.perf_counter() - started))
    with Progress(total * len(points), progress, "replications (dask)") as bar:
        update = bar.callback()
        for future in _as_completed(client, futures, cancel):
            future.result()  # a worker's error is raised here
            if update is not None:
                update(sum(count for f, (_, count) in zip(futures, chunks) if f.done()) * len(points))
    parts = client.gather(futures)
    scalars = np.concatenate([p[0] for p in parts], axis=1)
    pool_values = np.concatenate([p[1] for p in parts], axis=1)
    series = None
    if parts[0][2] is not None:
        series = np.ascontiguousarray(np.concatenate([p[2] for p in parts], axis=1))
    device = f"dask: {len(chunks)} chunks on {workers} workers, {parts[0][4]} each"
    merged = _core.Results.from_arrays(
        like, np.ascontiguousarray(scalars), np.ascontiguousarray(pool_values), like.first_replication,
        parts[0][3], device, parts[0][5], time.perf_counter() - started, series,
    )
    return Results(merged)
