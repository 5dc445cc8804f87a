"""gpucap: Monte Carlo simulation of GPU cloud capacity, from Python.

    >>> import gpucap
    >>> scenario = gpucap.Scenario.load("scenarios/spot_training.yaml")
    >>> results = gpucap.run(scenario, replications=2000, seed=1)
    >>> results.summary().loc["cost"]            # mean, 95% CI, quantiles, with units
    >>> grid = {"workloads.0.checkpoint.interval": ["15min", "30min", "1h", "2h"]}
    >>> sweep = gpucap.sweep(scenario, grid, replications=2000)
    >>> sweep.cheapest("cost", constraints={"completion_p95": 3 * 86400})
    >>> gpucap.select_best(scenario, grid, objective="cost", delta=100)  # with a guarantee
    >>> plan = gpucap.robust_plan(scenario, grid, {"low": {"workloads.0.arrivals.rate_per_day": 3},
    ...                                            "base": {}}, replications=500)
    >>> print(plan)                               # regret table, minimax-regret and expected choices

The engine is C++ (gpucap._core); runs release the GIL, show progress with tqdm, and stop
cleanly on Ctrl-C or a gpucap.CancelToken's cancel() from any thread. Results hold per-replication metrics as numpy arrays (views, no copies),
summaries as pandas DataFrames with units, and save to the same HDF5 format as the CLI.
"""

from ._core import (
    BackendUnavailable,
    InputFileError,
    OutputError,
    ResultsFileError,
    RunCancelled,
    RunError,
    ScenarioError,
    __version__,
)
from .cancel import CancelToken, cancel_runs, runs_in_progress
from .catalog import catalog, catalog_path
from .results import CheapestPoint, Results, ResultsWarning, concat, load_results
from .robust import RobustChoice, RobustPlan, robust_plan
from .run import (
    backends,
    explain,
    pool_metrics,
    run,
    scalar_metrics,
    scenario_keys,
    scenario_schema,
    sweep,
)
from .scenario import Scenario
from .selection import Selection, select_best

__all__ = [
    "BackendUnavailable",
    "CancelToken",
    "CheapestPoint",
    "InputFileError",
    "OutputError",
    "Results",
    "ResultsFileError",
    "ResultsWarning",
    "RobustChoice",
    "RobustPlan",
    "RunCancelled",
    "RunError",
    "Scenario",
    "ScenarioError",
    "Selection",
    "__version__",
    "backends",
    "cancel_runs",
    "catalog",
    "catalog_path",
    "concat",
    "explain",
    "load_results",
    "pool_metrics",
    "robust_plan",
    "run",
    "runs_in_progress",
    "scalar_metrics",
    "scenario_keys",
    "scenario_schema",
    "select_best",
    "sweep",
]
