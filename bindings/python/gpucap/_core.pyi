"""Type stub of gpucap._core, the C++ engine under the gpucap package (use gpucap, not this)."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

__version__: str
#: Replications per block of the summaries' moments (C++ kMomentBlock); chunks start on multiples.
MOMENT_BLOCK: int
#: Most points one sweep may have (C++ kMaxSweepPoints).
MAX_SWEEP_POINTS: int
#: Most replications per point (C++ kMaxReplications).
MAX_REPLICATIONS: int
#: Most CPU threads a run may ask for (C++ kMaxThreads).
MAX_THREADS: int
#: Replications per point at which select_best stops without its guarantee, by default
#: (C++ kDefaultSelectionCap).
DEFAULT_SELECTION_CAP: int
#: Most points select_best takes (C++ kMaxSelectionPoints).
MAX_SELECTION_POINTS: int

class ScenarioError(ValueError):
    """An invalid scenario: the message names file:line:column, the key path and what is valid."""

class InputFileError(ScenarioError, OSError):
    """A file a scenario needs cannot be read: missing, unreadable, not a regular file, or over
    its byte limit. The message names the file and the system's reason."""

class OutputError(OSError):
    """An output that cannot or must not be written (a link, a special file, an input of the
    run, a full disk): the message names the path and the reason."""

class ResultsFileError(OSError):
    """A results file that cannot be read: missing, not HDF5, corrupt (a failed checksum) or
    malformed; the message names the file."""

class BackendUnavailable(RuntimeError):
    """The asked-for backend cannot run here (not built, no driver, no device)."""

class RunError(RuntimeError):
    """A run failed (device error, engine invariant): the message says where."""

class Scenario:
    """A validated scenario (C++ gpucap::Scenario)."""

    name: str
    source_text: str
    original_text: str
    overrides: List[Tuple[str, str]]
    input_files: List[str]
    data_files: List[Dict[str, Any]]
    seed: int
    replications: int
    horizon_s: float
    warmup_s: float
    @property
    def pool_names(self) -> List[str]: ...
    @property
    def workload_names(self) -> List[str]: ...

def parse_scenario(
    text: str,
    origin: str,
    base_dir: str,
    overrides: Sequence[str] = ...,
    max_scenario_bytes: Optional[int] = ...,
    max_data_bytes: Optional[int] = ...,
) -> Scenario: ...
def load_scenario(
    path: str,
    overrides: Sequence[str] = ...,
    max_scenario_bytes: Optional[int] = ...,
    max_data_bytes: Optional[int] = ...,
) -> Scenario: ...

class Results:
    """Results of a run (C++ RunResults); arrays are read-only views of its memory."""

    gpucap_version: str
    scenario_name: str
    scenario_text: str
    scenario_original_text: str
    scenario_overrides: List[Tuple[str, str]]
    backend: str
    device: str
    seed: int
    points: int
    replications: int
    @property
    def kept_replications(self) -> int:
        """Replications per point whose rows are kept (all unless the run kept fewer)."""
    first_replication: int
    threads: int
    wall_time_s: float
    pool_names: List[str]
    data_files: List[Dict[str, Any]]
    @property
    def sweep(self) -> List[Tuple[str, List[str]]]: ...
    @property
    def scalars(self) -> np.ndarray:
        """[points, replications, metrics] float64, read-only view."""
    @property
    def pool_values(self) -> np.ndarray:
        """[points, replications, pools, metrics] float64, read-only view."""
    timeseries_step_s: float
    @property
    def timeseries(self) -> Optional[np.ndarray]:
        """[points, replications, pools, bins] float64 (GPUs in use), read-only view, or None."""
    @property
    def summary(self) -> np.ndarray:
        """[points, metrics, 7]: mean, std, ci95_low, ci95_high, p5, p50, p95."""
    @property
    def pool_summary(self) -> np.ndarray:
        """[points, pools, metrics, 7]."""
    @property
    def summary_n(self) -> np.ndarray:
        """[points, metrics] uint64: the replications where each metric is defined (not NaN)."""
    @property
    def pool_summary_n(self) -> np.ndarray:
        """[points, pools, metrics] uint64: the same for pool metrics."""
    def paired_difference(self, metric: int, a: int, b: int) -> Tuple[int, float, float]:
        """(n, mean, std) of the metric at point a minus point b, replication by replication."""
    def save(self, path: str, force: bool = ...) -> List[str]:
        """Writes the file atomically; returns stale temporary files it removed."""
    @staticmethod
    def load(path: str) -> "Results": ...
    @staticmethod
    def from_arrays(
        like: "Results",
        scalars: np.ndarray,
        pool_values: np.ndarray,
        first_replication: int,
        backend: str,
        device: str,
        threads: int,
        wall_time_s: float,
        timeseries: Optional[np.ndarray] = None,
    ) -> "Results": ...

def describe_run(
    points: Sequence[Scenario],
    sweep: Sequence[Tuple[str, Sequence[str]]],
    base: Scenario,
    replications: int,
    seed: Optional[int],
) -> Results: ...
def run(
    points: Sequence[Scenario],
    sweep: Sequence[Tuple[str, Sequence[str]]],
    base: Scenario,
    replications: int,
    seed: Optional[int],
    first_replication: int,
    backend: str,
    threads: int,
    progress: Optional[Callable[[int], None]],
    precision: float = ...,
    precision_metrics: Sequence[str] = ...,
    max_replications: int = ...,
    keep_rows: Optional[int] = ...,
    devices: Sequence[int] = ...,
) -> Results: ...
def run_chunk_summary(
    points: Sequence[Scenario],
    sweep: Sequence[Tuple[str, Sequence[str]]],
    first: int,
    count: int,
    seed: Optional[int],
    backend: str,
    threads: int,
) -> Tuple[bytes, str, str, int]:
    """(chunk summary bytes, backend, device, threads) of replications [first, first + count)
    summarized without rows: a cluster worker's answer for rows='none'."""

class ChunkFold:
    """Chunk summaries folded in replication order into results without rows."""
    def __init__(
        self,
        points: Sequence[Scenario],
        sweep: Sequence[Tuple[str, Sequence[str]]],
        base: Scenario,
        replications: int,
        seed: Optional[int],
    ) -> None: ...
    def add(self, chunk: bytes) -> None: ...
    def finish(self, backend: str, device: str, threads: int, wall_time_s: float) -> Results: ...

def select_best(
    points: Sequence[Scenario],
    base: Scenario,
    objective: str,
    delta: float,
    alpha: float,
    initial: int,
    max_replications: Optional[int],
    maximize: bool,
    seed: Optional[int],
    backend: str,
    threads: int,
) -> Dict[str, Any]:
    """Procedure KN over the points: best, guaranteed, replications, used, simulated, eta, h2,
    bound, backend, seed, unit, and points (one dict each: status, detail, replications,
    simulated, eliminated_by, mean, std, ci95_low, ci95_high)."""
def student_t_quantile(confidence: float, dof: int) -> float: ...
def data_cache_stats() -> Dict[str, int]: ...
def clear_data_cache() -> None: ...
def parse_grid_axis(text: str) -> Tuple[str, List[str]]:
    """(path, values) of a --grid argument 'path=v1,v2,...'."""
def expand_grid(
    axes: Sequence[Tuple[str, Sequence[str]]], grid_name: str = ...
) -> List[Tuple[str, List[str]]]:
    """The cartesian product of [(path, values)], first axis slowest, as [(path, value at each
    point)]; ScenarioError, its message starting with grid_name, for a path named twice, an axis
    without values or more than MAX_SWEEP_POINTS points."""
#: The sweep parameters that name a robust plan's variants and hold their weights.
VARIANT_PARAMETER: str
VARIANT_WEIGHT_PARAMETER: str
def check_robust_points(
    text: str,
    origin: str,
    base_dir: str,
    overrides: Sequence[str],
    decisions: Sequence[Tuple[str, Sequence[str]]],
    variants: Sequence[Tuple[str, str, Sequence[Tuple[str, str]]]],
    max_scenario_bytes: Optional[int] = ...,
    max_data_bytes: Optional[int] = ...,
) -> Tuple[List[Scenario], List[Tuple[str, List[str]]]]:
    """(points, grid) of a robust plan: every decision of the expanded grid under every variant
    (name, weight text or '', [(path, value)]); ScenarioError naming the variant."""
def robust_plan(
    results: Results, objective: int, variant_parameter: str = ..., weights: Sequence[Tuple[str, float]] = ...
) -> Dict[str, Any]:
    """The regret table of results as a dict of lists over [d * V + v] or [d], with its text."""
def scalar_metrics() -> List[Tuple[str, str, str, str]]: ...
def scenario_keys() -> List[Dict[str, Any]]: ...
def scenario_schema() -> str: ...
def explain_key(path: str) -> str: ...
def pool_metrics() -> List[Tuple[str, str, str, str]]: ...
def backends() -> Dict[str, Any]:
    """The backend table: {name: row} in its order, then "auto": the name auto resolves to."""
def backend_choices() -> List[Tuple[str, str]]:
    """(name, description) of every backend= value: "auto", then the table's rows in order."""
def results_file_layout() -> List[Dict[str, Any]]:
    """Every group, dataset and attribute of the HDF5 results file (gpucap/hdf5_layout.hpp)."""
def results_file_fields() -> List[Dict[str, Any]]:
    """The fields of /summary and /pool_summary, in /pool_summary's order."""
def job_records(results: Results) -> Optional[Dict[str, Any]]: ...
def render_report(results: Results, objective: str = ..., versus: Optional[str] = ...) -> str: ...
def write_report(
    results: Results, path: str, objective: str = ..., versus: Optional[str] = ..., force: bool = ...
) -> List[str]: ...
