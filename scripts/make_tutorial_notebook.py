"""Writes notebooks/tutorial_from_logs.ipynb: docs/tutorial.md as a notebook (two logs, two
decisions), the logs read and fitted with the gpucap CLI, the scenarios run and decided with the
gpucap Python package. Run it after changing the tutorial; the notebook is stored without outputs.

    python3 scripts/make_tutorial_notebook.py
"""

import pathlib

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = pathlib.Path(__file__).resolve().parents[1]

CELLS = [
    ("md", """# Tutorial: from two production logs to two decisions

The notebook form of [docs/tutorial.md](../docs/tutorial.md). Two questions, answered from the logs in
`data/tutorial/` with nothing but gpucap: the command line reads and fits the logs (`gpucap import`,
`gpucap fit`), the Python package runs the scenarios and decides (`gpucap.sweep`, `cheapest`,
`report`).

1. **A request log** of an image-generation service: how many L4 replicas keep the 99th percentile
   of latency within 30 minutes, with 95% probability, at the least cost?
2. **An instance log** of a fleet of long-running GPU instances: how many H100s to commit to, with
   spot and on-demand for the rest, so that at most 1% of the instance-hours demanded go unserved,
   with 95% probability?"""),
    ("code", """import os
import pathlib
import json
import shlex
import subprocess
import tempfile

import gpucap

DATA = pathlib.Path("../data/tutorial").resolve()      # the two logs
WORK = pathlib.Path(tempfile.mkdtemp(prefix="gpucap_tutorial_"))  # what the steps write
# The gpucap command line: $GPUCAP_CLI, else `gpucap` on the PATH, else a build tree's.
GPUCAP = os.environ.get("GPUCAP_CLI") or next(
    (str(p) for p in [pathlib.Path("../build/release/gpucap"), pathlib.Path("../build/cpu-release/gpucap")]
     if p.exists()), "gpucap")


def gpucap_cli(command):
    \"\"\"Runs `gpucap COMMAND` in WORK and shows what it prints; an error stops the notebook.\"\"\"
    done = subprocess.run([GPUCAP, *shlex.split(command)], cwd=WORK, capture_output=True, text=True)
    print(done.stdout + done.stderr)
    if done.returncode:
        raise RuntimeError(f"gpucap {command} exited with {done.returncode}")"""),
    ("md", """## 1. A request log

ISO times with the cluster's offset, a status (`PENDING` never started, `PROCESSING` still running
when the log was cut), blank fields, no GPU column. `--map` names the columns, `--set-column gpus=1`
gives the missing one; the report says how the times were read and which `--origin` puts profiles on
the log's calendar."""),
    ("code", """gpucap_cli(f"import --format csv {DATA}/requests.csv -o requests_trace.csv "
           "--map submit=created_at,duration=exec_s,state=status,class=model "
           "--set-column gpus=1 --timezone +08:00")"""),
    ("md", """`--kind service` makes the requests an inference service on the pool `--placement` names;
`--origin` puts the profiles on the log's calendar. The demand grows about 34% a week, so
`--trend extrapolate` writes the level the log ends at rather than its average."""),
    ("code", """gpucap_cli("fit requests_trace.csv -o service.yaml --kind service --placement l4 "
           "--origin 2025-03-07T17:12:21+08:00 --trend extrapolate")"""),
    ("md", """The pool, the goal and the fitted service make the scenario; the sweep runs 1 to 5 replicas
with common random numbers, and `cheapest` picks the cheapest count that meets the goal with 95%
probability, decided by the exact interval of that probability."""),
    ("code", """HEAD = \"\"\"
name: image service on L4 GPUs
horizon: 8d
warmup: 1d
seed: 7
pools:
  l4: {gpu: L4, price_usd_per_gpu_hour: 0.71, quota: 16}
goals:
  fast:
    description: the 99th percentile of latency stays within 30 minutes
    require: [latency_p99 <= 30min]
    target: 0.95
\"\"\"
service = gpucap.Scenario.from_yaml(HEAD + (WORK / "service.yaml").read_text(), base_dir=str(WORK))
replicas = gpucap.sweep(service, {"workloads.0.replicas": [1, 2, 3, 4, 5]}, replications=200,
                        backend="cpu", progress=False)
answer = replicas.cheapest("cost", chance={"fast": None})
print(answer)
answer.comparisons"""),
    ("code", """# The answer the tutorial gives: 3 replicas (point 2); 2 meet the goal in about 90% of weeks only.
assert answer.point == 2 and answer.certain
replicas.report(str(WORK / "service_report.html"), chance={"fast": None})"""),
    ("md", """## 2. An instance log

Times in seconds since the log's start; a blank creation time is an instance already running when
the log starts, a blank deletion time one still running at its end. `--instances` reads a
deployment's instances, `--time-format seconds` times since the log's start."""),
    ("code", """gpucap_cli(f"import --format csv --instances {DATA}/instances.csv -o fleet_trace.csv "
           "--map submit=created_s,end=deleted_s,gpus=gpus --time-format seconds")"""),
    ("md", """A model of the fleet, checked against the log it was fitted to: `--check` runs the log as it was
and the fitted model side by side, and says whether the log looks like one of the model's futures."""),
    ("code", """(WORK / "fleet_pools.yaml").write_text(\"\"\"
name: fleet pools
horizon: 31d
seed: 11
pools:
  ondemand: {gpu: H100, quota: 600, price_usd_per_gpu_hour: 3.50}
\"\"\")
gpucap_cli("fit fleet_trace.csv -o fleet_model.yaml --kind deployment --placement ondemand "
           "--check instance_hours_demanded,instances_peak,instances_served_mean "
           "--check-scenario fleet_pools.yaml")"""),
    ("md", """The question is about a month like the logged one, so the fleet replays the log (a block
bootstrap of its days draws other months; the instances running at t = 0 are kept once), on committed
H100s first, then spot, then on-demand. The commitment is billed as the clouds bill a reservation
(`commitments:`): its GPUs cost 1.90 USD an hour each, used or not, and pay each hour for that
hour's on-demand usage up to their number; the first on-demand pool holds what they pay for
(`placement_limit: {pool: committed, commitment: plan}`). The committed count is swept from 0."""),
    ("code", """FLEET = \"\"\"
name: serving fleet, committed vs on-demand vs spot
horizon: 31d
seed: 11
pools:
  committed:
    gpu: H100
    quota: 400
    price_usd_per_gpu_hour: 3.50
    billing_increment: 1min
    provisioning_delay: {dist: lognormal, median: 3min, sigma: 0.5}
  spot:
    gpu: H100
    purchase: spot
    quota: 100
    price_usd_per_gpu_hour: 0.95
    provisioning_delay: {dist: lognormal, median: 20min, sigma: 0.5}
    preemption: {time_to_preemption: {dist: exponential, mean: 6h}}
  ondemand:
    gpu: H100
    quota: 400
    price_usd_per_gpu_hour: 3.50
    billing_increment: 1min
    provisioning_delay: {dist: lognormal, median: 3min, sigma: 0.5}
commitments:
  plan: {covers: [committed, ondemand], gpus: 0, price_usd_per_gpu_hour: 1.90}
workloads:
  - name: endpoints
    kind: deployment
    gpus: 1
    startup: 20min
    placement: [committed, spot, ondemand]
    placement_limit: {pool: committed, commitment: plan}
    arrivals:
      process: trace
      file: fleet_trace.csv
      submit_column: start_s
      end_column: end_s
      gpus_column: gpus
      blank_end: still_running
      resample: {block: 1d}
goals:
  low_unserved:
    description: at most 1% of the instance-hours demanded go unserved
    require: [unserved_fraction <= 0.01]
    target: 0.95
\"\"\"
fleet = gpucap.Scenario.from_yaml(FLEET, base_dir=str(WORK))
grid = {"commitments.plan.gpus": [0, 100, 200, 300]}
first = gpucap.sweep(fleet, grid, replications=100, backend="cpu", progress=False)
undecided = first.cheapest("cost", chance={"low_unserved": None})
print(undecided)
assert not undecided.certain   # 200 committed GPUs might meet the goal: not decided yet"""),
    ("md", """At 100 replications the data cannot tell whether 200 committed GPUs meet the goal, and the answer
says about how many replications would decide it. With 700:"""),
    ("code", """decided = gpucap.sweep(fleet, grid, replications=700, backend="cpu", progress=False)
commit = decided.cheapest("cost", chance={"low_unserved": None})
print(commit)
assert commit.point == 3 and commit.certain   # commit 300 H100s, as the tutorial finds
decided.report(str(WORK / "fleet_report.html"), chance={"low_unserved": None})"""),
    ("md", """Would a forecast from this log have held? `gpucap backtest` fits the log as known every third
day from day 7, forecasts the next week at each committed count, replays what happened, and scores
the forecast's intervals and plan against the best count in hindsight and the clouds' look-back
recommender ([docs/backtest.md](../docs/backtest.md))."""),
    ("code", """(WORK / "backtest_pools.yaml").write_text(\"\"\"
name: fleet backtest
seed: 11
pools:
  committed: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 600}
  ondemand: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 600}
commitments:
  plan: {covers: [committed, ondemand], gpus: 0, price_usd_per_gpu_hour: 1.90}
\"\"\")
gpucap_cli("backtest fleet_trace.csv --pools backtest_pools.yaml --placement committed,ondemand "
           "--plan commitments.plan.gpus=0,25,50,75,100,125,150,175,200,225,250 "
           "--first 7d --every 3d --horizon 7d --metrics cost,instance_hours_demanded "
           "-o fleet_backtest.json --html fleet_backtest.html")
backtest = json.loads((WORK / "fleet_backtest.json").read_text())
print(f"mean regret: {backtest['mean_regret']:.1%} (gpucap), "
      f"{backtest['mean_lookback_regret']:.1%} (look-back)")
assert backtest["mean_regret"] < backtest["mean_lookback_regret"]"""),
]


def main():
    cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in CELLS]
    notebook = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}})
    path = ROOT / "notebooks" / "tutorial_from_logs.ipynb"
    nbformat.write(notebook, str(path))
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
