#!/usr/bin/env python3
"""The backtest validation (docs/validation.md, "Backtests"): `gpucap backtest` over logs of
known growth, decay, level shift and burstiness (scripts/make_backtest_logs.py) and over the
observed window of Alibaba's openb pod list (../shared/data; left out when absent), each at
10 or more origins, with the plan a reservation's GPU count, against the look-back recommender.
Then Alibaba's GenAI request log (../shared/data; left out when absent) as an inference
service on dedicated H100 replicas: at each of several replica counts, how often the forecast's
intervals of the week's p99 latency held what the replayed week gave, over 8 origins.

Prints the table as Markdown; --update-docs writes it into docs/validation.md between its
markers. Standard library only; needs a built CLI:

    python3 scripts/backtest_validation.py [--gpucap build/cpu-release/gpucap] [--data ../shared/data]
        [--workdir DIR] [--json FILE] [--update-docs]

Takes about a minute and a half on 2 cores.
"""

import argparse
import csv
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_backtest_logs  # noqa: E402

POOLS = """name: backtest pools
seed: 11
pools:
  committed: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 4000}
  ondemand: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 4000}
commitments:
  plan: {covers: [committed, ondemand], gpus: 0, price_usd_per_gpu_hour: 1.90}
"""
METRICS = ["cost", "instance_hours_demanded", "instances_served_mean"]
BEGIN = "<!-- BEGIN GENERATED: backtest-table -->"
END = "<!-- END GENERATED: backtest-table -->"
REQUESTS_BEGIN = "<!-- BEGIN GENERATED: backtest-requests-table -->"
REQUESTS_END = "<!-- END GENERATED: backtest-requests-table -->"
SERVICE_POOLS = """name: request-log backtest pools
seed: 7
pools:
  h100: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 64}
"""
REPLICAS = [6, 7, 8, 9, 10, 12]


def openb_instances(gpucap: str, data: pathlib.Path, work: pathlib.Path):
    """The openb pod list as an instance log over its observed window: t = 0 at its first
    deletion (day 115.34; the pods created earlier are those alive then, with negative starts)."""
    pods = data / "workload" / "alibaba_openb_pod_list_default.csv"
    if not pods.exists():
        return None
    raw = work / "openb_instances_raw.csv"
    subprocess.run([gpucap, "import", "--format", "kubernetes", "--instances", "--time-format",
                    "seconds", str(pods), "-o", str(raw), "--force"], check=True,
                   capture_output=True)
    rows = list(csv.DictReader(open(raw)))
    origin = min(float(r["end_s"]) for r in rows if r["end_s"])
    out = work / "openb_instances.csv"
    with open(out, "w") as f:
        f.write("start_s,end_s,gpus\n")
        for r in rows:
            end = float(r["end_s"]) - origin if r["end_s"] else None
            if end is not None and end <= 0:
                continue
            f.write(f"{float(r['start_s']) - origin:.3f},{'' if end is None else f'{end:.3f}'},{r['gpus']}\n")
    return out, origin


def genai_requests(gpucap: str, data: pathlib.Path, work: pathlib.Path):
    """Alibaba's GenAI request log (23 days of image-generation requests) as a request trace."""
    log = data / "workload" / "alibaba_genai_lora_request_trace.csv"
    if not log.exists():
        return None
    out = work / "genai_requests.csv"
    subprocess.run([gpucap, "import", "--format", "csv", str(log), "-o", str(out), "--map",
                    "submit=gmt_create,duration=exec_time_seconds,state=predict_status",
                    "--set-column", "gpus=1", "--force"], check=True, capture_output=True)
    return out


def requests_table(gpucap: str, log: pathlib.Path, work: pathlib.Path):
    """The request log's backtest at each replica count: origins every day from day 9 to 16,
    a week ahead each; the 90% and 50% intervals' coverage of the week's p99 latency and of its
    requests, and at the last origin (day 16: the log's last week) the forecast against the
    replay."""
    pools = work / "service_pools.yaml"
    pools.write_text(SERVICE_POOLS)
    head = ["dedicated H100 replicas", "origins", "90% covers p99 latency", "50% covers it",
            "mean PIT", "day 16: forecast p99 latency p50 [p5, p95]", "day 16: replayed p99",
            "90% covers requests"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    results = {}
    for n in REPLICAS:
        path = work / f"genai_{n}.json"
        subprocess.run([gpucap, "backtest", str(log), "--kind", "service", "--pools", str(pools),
                        "--placement", "h100", "--plan", f"workloads.0.replicas={n}",
                        "--metrics", "latency_p99,requests_arrived", "-r", "200",
                        "--truth-replications", "1", "--first", "9d", "--every", "1d",
                        "--horizon", "7d", "-o", str(path), "-q"], check=True)
        r = json.load(open(path))
        results[n] = r
        c, q = r["coverage"]["latency_p99"], r["coverage"]["requests_arrived"]
        last = r["origins"][-1]["metrics"]["latency_p99"]
        lines.append(f"| {n} | {c['origins']} | {100 * c['in90'] / c['origins']:.0f}% ({c['in90']}/{c['origins']}) "
                     f"| {100 * c['in50'] / c['origins']:.0f}% | {c['mean_pit']:.2f} "
                     f"| {last['p50']:.1f} s [{last['p5']:.1f}, {last['p95']:.1f}] | {last['truth']:.1f} s "
                     f"| {100 * q['in90'] / q['origins']:.0f}% ({q['in90']}/{q['origins']}) |")
    return "\n".join(lines), results


def replace_between(text: str, begin: str, end: str, table: str) -> str:
    a, b = text.index(begin) + len(begin), text.index(end)
    return text[:a] + "\n" + table + "\n" + text[b:]


def backtest(gpucap, log, pools, grid, first, every, json_path):
    subprocess.run([gpucap, "backtest", str(log), "--pools", str(pools), "--placement",
                    "committed,ondemand", "--plan", "commitments.plan.gpus=" + grid,
                    "--metrics", ",".join(METRICS), "-r", "200", "--first", first, "--every", every,
                    "--horizon", "7d", "-o", str(json_path), "-q"], check=True)
    return json.load(open(json_path))


def row(name, r):
    cells = [name, str(len([o for o in r["origins"] if "error" not in o]))]
    for m in METRICS[:2]:
        c = r["coverage"][m]
        cells.append(f"{100 * c['in90'] / c['origins']:.0f}% ({c['in90']}/{c['origins']})")
    c = r["coverage"]["cost"]
    cells.append(f"{100 * c['in50'] / c['origins']:.0f}%")
    cells.append(f"{100 * r['mean_regret']:.1f}%")
    cells.append(f"{100 * r['mean_lookback_regret']:.1f}%")
    return cells


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpucap", default=str(ROOT / "build" / "cpu-release" / "gpucap"))
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--workdir")
    ap.add_argument("--json")
    ap.add_argument("--update-docs", action="store_true")
    args = ap.parse_args()
    work = pathlib.Path(args.workdir or tempfile.mkdtemp(prefix="gpucap-backtest-validation-"))
    work.mkdir(parents=True, exist_ok=True)
    pools = work / "pools.yaml"
    pools.write_text(POOLS)
    results = {}
    grid = ",".join(str(x) for x in range(0, 801, 25))
    for seed, path in enumerate(["steady", "growth", "decay", "level_shift", "bursty"]):
        log = make_backtest_logs.write_log(path, str(work), 20261206 + seed)
        results[path] = backtest(args.gpucap, log, pools, grid, "14d", "4d", work / f"{path}.json")
    openb = openb_instances(args.gpucap, pathlib.Path(args.data), work)
    if openb:
        results["openb"] = backtest(args.gpucap, openb[0], pools,
                                    ",".join(str(x) for x in range(0, 101, 5)), "7d", "2d",
                                    work / "openb.json")
    head = ["log", "origins", "90% interval covers cost", "90% covers instance-hours",
            "50% covers cost", "mean regret (gpucap)", "mean regret (look-back)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    total = {"o": 0, "c": 0, "h": 0, "n": 0, "g": 0.0, "l": 0.0}
    for name, r in results.items():
        lines.append("| " + " | ".join(row(name, r)) + " |")
        total["c"] += r["coverage"]["cost"]["in90"]
        total["h"] += r["coverage"]["instance_hours_demanded"]["in90"]
        total["o"] += r["coverage"]["cost"]["origins"]
        total["n"] += 1
        total["g"] += r["mean_regret"]
        total["l"] += r["mean_lookback_regret"]
    lines.append(f"| all | {total['o']} | {100 * total['c'] / total['o']:.0f}% ({total['c']}/{total['o']}) "
                 f"| {100 * total['h'] / total['o']:.0f}% ({total['h']}/{total['o']}) | | "
                 f"{100 * total['g'] / total['n']:.1f}% | {100 * total['l'] / total['n']:.1f}% |")
    table = "\n".join(lines)
    print(table)
    requests = genai_requests(args.gpucap, pathlib.Path(args.data), work)
    requests_table_text = None
    if requests:
        requests_table_text, results["genai_requests"] = requests_table(args.gpucap, requests, work)
        print()
        print(requests_table_text)
    if args.json:
        json.dump(results, open(args.json, "w"), indent=1)
    if args.update_docs:
        doc = ROOT / "docs" / "validation.md"
        text = replace_between(doc.read_text(), BEGIN, END, table)
        if requests_table_text:
            text = replace_between(text, REQUESTS_BEGIN, REQUESTS_END, requests_table_text)
        doc.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
