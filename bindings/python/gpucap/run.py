"""Running scenarios and sweeps."""

from __future__ import annotations

import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._progress import Progress
from .cancel import CancelToken, check_token
from .results import Results, ResultsWarning
from .scenario import Scenario, as_scenario, value_limit, yaml_value

ScenarioLike = Union[Scenario, str, os.PathLike]
#: What backend= takes, from the C++ backend table: "auto", then every backend this source
#: knows (built or not; gpucap.backends() says which this build has).
_BACKEND_CHOICES = tuple(_core.backend_choices())
_BACKENDS = tuple(name for name, _ in _BACKEND_CHOICES)
#: Bounds of run arguments, the CLI's own (C++ constants): sweep points, replications per
#: point, CPU threads, seeds.
MAX_SWEEP_POINTS = _core.MAX_SWEEP_POINTS
MAX_REPLICATIONS = _core.MAX_REPLICATIONS
MAX_THREADS = _core.MAX_THREADS
MAX_SEED = 2**64 - 1


def _check_backend(backend: str) -> str:
    if not isinstance(backend, str):
        raise TypeError(f"backend must be text, one of {', '.join(_BACKENDS)}; got {backend!r}")
    if backend not in _BACKENDS:
        raise ValueError(f"backend {backend!r}: valid backends are {', '.join(_BACKENDS)}")
    return backend


def _whole(value: Any, name: str, low: int, high: int) -> Optional[int]:
    """`value` as an int in [low, high] (None passes through); numpy integers are accepted.
    TypeError for anything but a whole number, ValueError when out of range, both naming
    the argument."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number from {low} to {high}, got {value!r} "
                        f"({type(value).__name__})")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}, got {value}")
    return value


def run(
    scenario: ScenarioLike,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    backend: str = "auto",
    threads: Optional[int] = None,
    progress: bool = True,
    first_replication: int = 0,
    precision: Optional[float] = None,
    metrics: Optional[Sequence[str]] = None,
    max_replications: Optional[int] = None,
    rows: Union[str, int] = "all",
    devices: Optional[Sequence[int]] = None,
    cancel: Optional[CancelToken] = None,
    host_threads: Optional[int] = None,
) -> Results:
    """Simulates `replications` independent futures of `scenario`.

    Args:
        scenario: a :class:`Scenario` or the path of a scenario file.
        replications: how many (default: the scenario's ``replications``).
        seed: the random seed (default: the scenario's ``seed``). Replication r draws from
            streams keyed by (seed, r): the same seed gives the same numbers on any backend,
            thread count or machine.
        backend: where the replications run, one of:
{backends}
        threads: CPU threads (default: all cores).
        progress: show a tqdm progress bar.
        first_replication: index of the first replication (the run is replications
            [first_replication, first_replication + replications) of a larger one; chunks join
            with :func:`gpucap.concat` into the same bits as one run).
        precision: run until the 95% interval of the mean of each of ``metrics`` (default
            ``["cost"]``) is within this fraction of the mean (e.g. 0.01), adding replications
            in whole blocks of 256; ``replications`` is then the first batch and
            ``max_replications`` (default 1,000,000) the cap. The results are the same bits as
            a run with the final count; :attr:`Results.stopping_rule` says how it ended.
        rows: the per-replication rows to keep: ``"all"`` (the default), ``"none"``, or a
            number N (the first N replications'). With fewer, replications run in chunks whose
            rows are summarized and dropped, so memory does not grow with replications: means,
            deviations, intervals, goal probabilities and paired differences from point 0 are
            the same bits as with every row, percentiles within 0.1%
            (:attr:`Results.kept_replications` says how many rows there are).
        devices: with a device backend, the devices to use by index (default: every one the
            backend sees, :func:`backends` lists them); the batches go to whichever device is
            free, with the same bits on any set of devices.
        host_threads: with a device backend, CPU threads that join the devices, taking batches
            from the same queue (default 0; ``backend="auto"`` sets it where its cost model
            expects both to finish first); the same bits. ``Results.backend_choice`` says why
            auto chose what it did.
        cancel: a :class:`gpucap.CancelToken`; its ``cancel()``, from any thread, stops the run
            at its next replication (a device: batch) and the run raises
            :class:`gpucap.RunCancelled` (also when the token was cancelled before the run
            started, or while it was finishing).

    Returns:
        :class:`Results`. Raises :class:`gpucap.ScenarioError` for an invalid scenario,
        :class:`gpucap.BackendUnavailable` when the backend cannot run here,
        KeyboardInterrupt when interrupted (the run stops within a replication or a batch) and
        :class:`gpucap.RunCancelled` when cancelled (``cancel=``, :func:`gpucap.cancel_runs`,
        or the interpreter's exit: see :mod:`gpucap.cancel`).
    """
    scenario = as_scenario(scenario)
    return _run_points([scenario], [], scenario, replications, seed, backend, threads, progress,
                       first_replication, precision=precision, metrics=metrics,
                       max_replications=max_replications, rows=rows, devices=devices,
                       cancel=cancel, host_threads=host_threads)


run.__doc__ = run.__doc__.replace(
    "{backends}", "\n".join(f"            {name!r}: {text}" for name, text in _BACKEND_CHOICES))


def sweep(
    scenario: ScenarioLike,
    grid: Mapping[str, Sequence[Any]],
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    backend: str = "auto",
    threads: Optional[int] = None,
    progress: bool = True,
    client: Any = None,
    chunk_replications: Optional[int] = None,
    skip_invalid: bool = False,
    first_replication: int = 0,
    precision: Optional[float] = None,
    metrics: Optional[Sequence[str]] = None,
    max_replications: Optional[int] = None,
    rows: Union[str, int] = "all",
    devices: Optional[Sequence[int]] = None,
    cancel: Optional[CancelToken] = None,
) -> Results:
    """Runs every point of a parameter grid with common random numbers.

    The points are the cartesian product of ``grid`` (first key slowest), e.g.
    ``{"pools.reserved.count": [0, 8, 16], "workloads.0.checkpoint.interval": ["30min", "1h"]}``
    gives 6 points. All points run in one batch on one backend, and replication r of every point
    draws the same random numbers, so differences between points are paired
    (:meth:`Results.paired_difference`, :meth:`Results.cheapest`).

    With ``client`` (a ``dask.distributed.Client``), replications are cut into chunks of
    ``chunk_replications`` (default: about two per worker, in whole blocks of
    ``gpucap.distributed.CHUNK_ALIGNMENT`` replications) that run on the
    cluster's workers; the merged results are identical to a local run with the same seed.

    Every point is checked before anything runs. When some are invalid, a
    :class:`gpucap.ScenarioError` lists each of them with its values; with ``skip_invalid=True``
    the valid points run (the results hold only them) and a RuntimeWarning names the others.

    ``precision``, ``metrics`` and ``max_replications`` apply the stopping rule as in
    :func:`run`, at every point (not with ``client``).

    ``first_replication`` runs replications [first_replication, first_replication +
    replications) of every point (a chunk of a larger sweep, for :func:`gpucap.concat`).

    ``devices`` chooses a device backend's devices, as in :func:`run`. ``rows`` keeps fewer
    per-replication rows, as in :func:`run`; paired differences from point
    0 are kept exactly, others need every row. With ``client`` and ``rows="none"`` the workers
    send back chunk summaries (about 24 bytes per metric per 256 replications, plus a sketch
    per metric), not rows, and the merge is the same bits as a local run with ``rows="none"``.

    ``cancel`` (a :class:`gpucap.CancelToken`) cancels the sweep as in :func:`run`; with
    ``client`` its chunks not yet finished are cancelled on the cluster (a chunk already
    running on a worker runs to its end there) and :class:`gpucap.RunCancelled` is raised.
    """
    scenario = as_scenario(scenario)
    cancel = check_token(cancel, "sweep")
    points, parameters = _grid_points(scenario, grid, skip_invalid, "sweep")
    if client is not None:
        if precision is not None:
            raise ValueError("sweep: precision (the stopping rule) runs locally; drop client= or precision=")
        if devices is not None:
            raise ValueError("sweep: devices= applies to local runs; a cluster's workers use "
                             "their own devices")
        if first_replication != 0:
            raise ValueError("sweep: first_replication is for local chunks; with client= the "
                             "cluster runs every replication from 0")
        from .distributed import run_on_cluster

        replications = _whole(replications, "replications", 1, MAX_REPLICATIONS)
        seed = _whole(seed, "seed", 0, MAX_SEED)
        threads = _whole(threads, "threads", 0, MAX_THREADS)
        chunk_replications = _whole(chunk_replications, "chunk_replications", 1, MAX_REPLICATIONS)
        keep = _keep_rows(rows)
        if keep not in (None, 0):
            raise ValueError("sweep: with client=, rows must be 'all' or 'none' (the first N rows "
                             "of a cluster run are not gathered)")
        return run_on_cluster(
            client, points, parameters, scenario, replications, seed,
            _check_backend(backend), threads, chunk_replications, progress, keep_rows=keep != 0,
            cancel=cancel,
        )
    return _run_points(points, parameters, scenario, replications, seed, backend, threads, progress,
                       first_replication, precision=precision, metrics=metrics,
                       max_replications=max_replications, rows=rows, devices=devices,
                       cancel=cancel)


def _grid_points(
    scenario: Scenario, grid: Mapping[str, Sequence[Any]], skip_invalid: bool, caller: str
) -> Tuple[List[Scenario], List[Tuple[str, List[str]]]]:
    """The valid points of ``grid`` over ``scenario`` (first key slowest) and the parameters
    (path, value at each point). Messages start with ``caller`` (the public function's name)."""
    if not isinstance(grid, Mapping):
        raise TypeError(f"{caller}: grid must be a mapping {{path: [values...]}}, got {type(grid).__name__}")
    if not grid:
        raise ValueError(f"{caller}: the grid is empty; give {{path: [values...]}}")
    paths = list(grid.keys())
    for path in paths:
        if not isinstance(path, str) or not path:
            raise TypeError(f"{caller}: a grid key must be a dotted path such as 'pools.a.quota', got {path!r}")
        if isinstance(grid[path], (str, bytes)) or not hasattr(grid[path], "__iter__"):
            raise TypeError(f"{caller}: grid entry {path!r} must be a list of values, got {grid[path]!r}")
    values = [list(grid[p]) for p in paths]
    # Each value in override syntax once (TypeError naming the entry for what cannot be one),
    # then the C++ expansion (the CLI's): the points, first key slowest, or a ScenarioError for
    # an entry without values or too many points.
    limit = value_limit(scenario._limits[0])
    texts = [[yaml_value(v, f"grid[{p!r}][{i}]", limit) for i, v in enumerate(vals)]
             for p, vals in zip(paths, values)]
    expanded = _core.expand_grid(list(zip(paths, texts)), f"{caller}: the grid")
    points = []
    invalid: List[str] = []
    sweep_values: List[List[str]] = [[] for _ in paths]
    for index in range(len(expanded[0][1])):
        point_values = [values_at[index] for _, values_at in expanded]
        assignments = [f"{p}={v}" for p, v in zip(paths, point_values)]
        try:
            points.append(scenario.with_overrides(assignments))
        except _core.InputFileError:
            raise
        except _core.ScenarioError as e:
            label = ", ".join(f"{p} = {v}" for p, v in zip(paths, point_values))
            invalid.append(f"sweep point {index} ({label}): {e}")
            continue
        for k, v in enumerate(point_values):
            sweep_values[k].append(v)
    if invalid:
        total = len(invalid) + len(points)
        listing = "\n  ".join(invalid[:20]) + (f"\n  ... and {len(invalid) - 20} more" if len(invalid) > 20 else "")
        if not skip_invalid or not points:
            hint = " (all of them)" if skip_invalid else " (skip_invalid=True runs the others)"
            raise _core.ScenarioError(f"{len(invalid)} of {total} sweep points are invalid{hint}:\n  {listing}")
        import warnings

        warnings.warn(f"{caller}: skipped {len(invalid)} of {total} points:\n  {listing}", RuntimeWarning, stacklevel=3)
    return points, list(zip(paths, sweep_values))


def _run_points(
    points: List[Scenario],
    parameters: List[tuple],
    base: Scenario,
    replications: Optional[int],
    seed: Optional[int],
    backend: str,
    threads: Optional[int],
    progress: bool,
    first_replication: int = 0,
    precision: Optional[float] = None,
    metrics: Optional[Sequence[str]] = None,
    max_replications: Optional[int] = None,
    rows: Union[str, int] = "all",
    devices: Optional[Sequence[int]] = None,
    cancel: Optional[CancelToken] = None,
    host_threads: Optional[int] = None,
) -> Results:
    _check_backend(backend)
    cancel = check_token(cancel, "run")
    keep = _keep_rows(rows)
    if devices is not None and (isinstance(devices, (str, bytes)) or not hasattr(devices, "__iter__")):
        raise TypeError(f"devices must be a list of device indices (e.g. [0, 1]), got {devices!r}")
    device_list = [] if devices is None else [_whole(d, f"devices[{i}]", 0, 1023) for i, d in enumerate(devices)]
    replications = _whole(replications, "replications", 1, MAX_REPLICATIONS)
    seed = _whole(seed, "seed", 0, MAX_SEED)
    threads = _whole(threads, "threads", 0, MAX_THREADS)
    host_threads = _whole(host_threads, "host_threads", 0, MAX_THREADS)
    first_replication = _whole(first_replication, "first_replication", 0, MAX_SEED)
    max_replications = _whole(max_replications, "max_replications", 2, MAX_REPLICATIONS)
    names: List[str] = []
    if precision is None:
        if metrics is not None or max_replications is not None:
            raise ValueError("metrics and max_replications apply only with precision= (the stopping rule)")
    else:
        if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision <= 1:
            raise ValueError(f"precision must be a fraction of the mean above 0 and at most 1 (e.g. 0.01), "
                             f"got {precision!r}")
        names = ["cost"] if metrics is None else ([metrics] if isinstance(metrics, str) else list(metrics))
        from .results import SCALAR_INDEX

        for name in names:
            if name not in SCALAR_INDEX:
                raise KeyError(f"unknown metric {name!r}; valid: {', '.join(SCALAR_INDEX)}")
    # With a stopping rule the final count is not known: the bar counts without a total.
    total = None if precision is not None else (replications or points[0].replications) * len(points)
    with Progress(total, progress) as bar:
        core = _core.run(
            [p._core for p in points], parameters, base._core, replications or 0, seed,
            first_replication, backend, threads or 0, bar.callback(),
            float(precision or 0.0), names, max_replications or 0, keep, device_list, cancel,
            host_threads or 0,
        )
    results = Results(core)
    for text in results.warnings:  # shown once in a notebook, under the cell
        warnings.warn(text, ResultsWarning, stacklevel=3)
    return results


def _keep_rows(rows: Union[str, int]) -> Optional[int]:
    """rows= as the rows to keep per point: None for all, 0 for none, else N."""
    if isinstance(rows, str):
        if rows == "all":
            return None
        if rows == "none":
            return 0
        raise ValueError(f"rows must be 'all', 'none' or a number of rows to keep, got {rows!r}")
    return _whole(rows, "rows", 1, MAX_REPLICATIONS)


def backends() -> Dict[str, Any]:
    """The backend table: what this build has and this machine can run.

    One entry per backend, in the table's order (the ``backend=`` names), then ``"auto"``: the
    name ``backend="auto"`` resolves to here. Each entry has ``kind`` ("cpu" or "device"),
    ``description``, ``built``, ``usable`` and ``why`` (why it cannot run; empty when it can),
    and, when built, ``name`` (what results record as their backend, e.g. "cpu-openmp"),
    ``targets`` and ``devices`` (name, memory, compute capability, multiprocessors or threads).
    The cpu entry also has ``threads``, the threads a run uses by default."""
    return _core.backends()


def scalar_metrics() -> "Any":
    """The per-replication metrics: a DataFrame indexed by name with unit, description, group."""
    import pandas as pd

    rows = _core.scalar_metrics()
    return pd.DataFrame(rows, columns=["metric", "unit", "description", "group"]).set_index("metric")


def scenario_keys() -> "Any":
    """Every key of the scenario format: a DataFrame indexed by key path (``pools.NAME.quota``,
    ``workloads[].work``) with its type, unit kind and unit, range (``min``/``max`` and whether
    each end is excluded; infinite when unbounded), choices, default, where it applies, what else
    is valid, and its description. The loader reads the same table."""
    import pandas as pd

    return pd.DataFrame(_core.scenario_keys()).set_index("path")


def scenario_schema() -> "Dict[str, Any]":
    """The JSON Schema (draft 2020-12) of scenario files, as printed by ``gpucap schema``."""
    import json

    return json.loads(_core.scenario_schema())


def explain(path: str) -> str:
    """What ``gpucap explain PATH`` prints for a scenario key (e.g. ``"pools.quota"``) or an
    output metric (e.g. ``"latency_p99"``: unit, meaning, workloads, when it is NaN, where it is
    stored)."""
    key, metric = _core.explain_key(path), _core.explain_metric(path)
    if not key and not metric:
        raise KeyError(
            f"no scenario key or metric {path!r}; see gpucap.scenario_keys() and gpucap.scalar_metrics()"
        )
    return key + ("\n" if key and metric else "") + metric


def pool_metrics() -> "Any":
    """The per-pool metrics: a DataFrame indexed by name with unit and description."""
    import pandas as pd

    rows = _core.pool_metrics()
    return pd.DataFrame(rows, columns=["metric", "unit", "description", "group"]).set_index("metric")
