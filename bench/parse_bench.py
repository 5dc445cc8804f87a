#!/usr/bin/env python3
"""Parse benchmark (issue 13): how long a user waits for gpucap to load a scenario that replays a
2-million-row trace, against pandas.read_csv on the same file, and proof that a sweep parses the
trace once.

    .venv/bin/python bench/parse_bench.py [--rows 2000000] [--repeat 5]
        [--gpucap build/cpu-release/gpucap] [--old-gpucap /path/to/gpucap-before]
        [--old-python /path/to/venv-with-the-build-before/bin/python]

Prints, best of --repeat (each in a fresh process, so nothing is cached):
  pandas      pandas.read_csv of the trace
  python      gpucap.Scenario.load of a scenario replaying it (trace read, hashed, parsed, checked)
  cli         `gpucap validate` of that scenario, the whole command (with --gpucap)
  cli before  the same with another build (with --old-gpucap), for before/after figures
then a 4-point sweep's loads in one process: the CSV parse count (1) and the time of the
points after the first. The trace (submit_s,gpus,duration_s) is generated with a fixed seed.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

SCENARIO = """name: replay of a {rows}-row trace
horizon: 1h
pools:
  cloud: {{gpu: H100, purchase: on_demand, quota: 64, price_usd_per_gpu_hour: 3}}
workloads:
  - name: logged
    arrivals: {{process: trace, file: trace.csv}}
    placement: [cloud]
"""


def make_trace(path, rows):
    import numpy as np

    rng = np.random.default_rng(13)
    submit = np.sort(rng.uniform(0, 30 * 86400, rows))
    gpus = rng.choice([1, 2, 4, 8, 16], rows)
    duration = rng.lognormal(8, 1, rows)
    with open(path, "w") as f:
        f.write("submit_s,gpus,duration_s\n")
        for start in range(0, rows, 100000):
            stop = min(rows, start + 100000)
            f.write("".join(f"{s:.3f},{g},{d:.3f}\n" for s, g, d in
                            zip(submit[start:stop], gpus[start:stop], duration[start:stop])))


def best_of(repeat, code, cwd, python=sys.executable):
    """Best time (s) that `code` prints as its last line, each run in a fresh interpreter."""
    times = []
    for _ in range(repeat):
        out = subprocess.run([python, "-c", code], cwd=cwd, check=True,
                             capture_output=True, text=True).stdout
        times.append(float(out.strip().splitlines()[-1]))
    return min(times)


def best_command(repeat, command, cwd):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gpucap", help="a gpucap binary: time `gpucap validate` too")
    ap.add_argument("--old-gpucap", help="another build's binary, for before/after figures")
    ap.add_argument("--old-python", help="a Python with another build of gpucap installed, for before/after")
    ap.add_argument("--dir", help="where to write the trace (default: a temporary folder)")
    args = ap.parse_args()
    folder = args.dir or tempfile.mkdtemp(prefix="gpucap_parse_bench_")
    os.makedirs(folder, exist_ok=True)
    trace = os.path.join(folder, "trace.csv")
    if not os.path.exists(trace) or sum(1 for _ in open(trace)) != args.rows + 1:
        make_trace(trace, args.rows)
    with open(os.path.join(folder, "replay.yaml"), "w") as f:
        f.write(SCENARIO.format(rows=args.rows))
    size_mb = os.path.getsize(trace) / 1e6
    print(f"trace: {args.rows} rows, {size_mb:.1f} MB, in {folder}")

    rows = []
    pandas_s = best_of(args.repeat, "import time, pandas as pd\nt = time.perf_counter()\n"
                       "pd.read_csv('trace.csv')\nprint(time.perf_counter() - t)", folder)
    rows.append(("pandas.read_csv", pandas_s))
    load_s = best_of(args.repeat, "import time, gpucap\nt = time.perf_counter()\n"
                     "gpucap.Scenario.load('replay.yaml')\nprint(time.perf_counter() - t)", folder)
    rows.append(("gpucap.Scenario.load", load_s))
    if args.old_python:
        rows.append(("gpucap.Scenario.load, before",
                     best_of(args.repeat, "import time, gpucap\nt = time.perf_counter()\n"
                             "gpucap.Scenario.load('replay.yaml')\nprint(time.perf_counter() - t)",
                             folder, args.old_python)))
    if args.gpucap:
        rows.append(("gpucap validate (CLI)",
                     best_command(args.repeat, [os.path.abspath(args.gpucap), "validate", "replay.yaml"], folder)))
    if args.old_gpucap:
        rows.append(("gpucap validate, before",
                     best_command(args.repeat, [os.path.abspath(args.old_gpucap), "validate", "replay.yaml"], folder)))
    print(f"\n{'':26s} {'seconds':>8s} {'rows/s':>12s} {'vs pandas':>10s}")
    for name, seconds in rows:
        print(f"{name:26s} {seconds:8.3f} {args.rows / seconds:12.3g} {seconds / pandas_s:9.2f}x")

    # A sweep: its points load the scenario again with overrides; the trace is parsed once.
    code = (
        "import time, gpucap\nfrom gpucap import _core\n"
        "t = time.perf_counter()\ns = gpucap.Scenario.load('replay.yaml')\nfirst = time.perf_counter() - t\n"
        "before = _core.data_cache_stats()['csv_parses']\nt = time.perf_counter()\n"
        "points = [s.with_overrides([f'pools.cloud.quota={q}']) for q in (16, 32, 48, 64)]\n"
        "rest = time.perf_counter() - t\nst = _core.data_cache_stats()\n"
        "print(st['csv_parses'] - before, st['reads'], st['hits'], first, rest / 4)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=folder, check=True, capture_output=True,
                         text=True).stdout.split()
    parses, reads, hits, first, per_point = int(out[0]), int(out[1]), int(out[2]), float(out[3]), float(out[4])
    print(f"\n4-point sweep in one process: base load {first:.3f} s, then {per_point:.3f} s per point; "
          f"CSV parses after the base load: {parses}, file reads in all: {reads}, cache hits: {hits}")


if __name__ == "__main__":
    main()
