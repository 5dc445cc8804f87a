#!/usr/bin/env python3
"""Checks engine_bench --json (a ctest, EngineBench.JsonOutput): its structure, not its timings.

    python3 bench/check_bench_json.py build/cpu-release/bench/engine_bench

Runs the benchmark briefly (--min-seconds 0.002) on a few scenarios and asserts: one JSON object
whose first keys are reference_events_per_s and scenarios; one entry per scenario asked for, in
order, whose first keys are name, events_per_s, ratio_to_reference, cpu_ns_per_event,
cpu_ns_per_replication; every figure positive and finite; ratio_to_reference equal to
events_per_s / reference_events_per_s; the quartiles around the ratio; CPU time per replication
equal to CPU time per event x events per replication within the spread of medians; the
reference's events per replication those of mmc's model (M/M/8 at utilization 0.9 over 2000 h:
lambda T + completions, about 2 x 7.2 x 2000 = 28,800); --verify-reference (the reference loop and
the engine process the same events in each of mmc's replications 0-15); and a usage error (exit 2)
for an unknown scenario.
"""
import json
import math
import subprocess
import sys

SCENARIOS = ["mmc", "checkpoint_validation", "classes_1", "classes_16"]
REQUIRED = ["name", "events_per_s", "ratio_to_reference", "cpu_ns_per_event", "cpu_ns_per_replication"]


def positive_number(x):
    """A JSON number (%.17g prints integral values without a point), finite and above 0."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def check(condition, what):
    if not condition:
        print("FAILED:", what)
        sys.exit(1)


def main():
    bench = sys.argv[1]
    out = subprocess.run([bench, "--json", "--min-seconds", "0.002", "--device", "none",
                          "--scenarios", ",".join(SCENARIOS)],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)  # exactly one JSON document, nothing else on stdout
    check(list(doc)[:2] == ["reference_events_per_s", "scenarios"], f"top-level keys {list(doc)}")
    reference = doc["reference_events_per_s"]
    check(positive_number(reference), f"reference_events_per_s {reference}")
    check([s["name"] for s in doc["scenarios"]] == SCENARIOS, "one entry per scenario, in order")
    for s in doc["scenarios"]:
        name = s["name"]
        check(list(s)[:5] == REQUIRED, f"{name}: first keys {list(s)[:5]}")
        for key in REQUIRED[1:]:
            check(positive_number(s[key]), f"{name}: {key} = {s[key]}")
        check(math.isclose(s["ratio_to_reference"], s["events_per_s"] / reference, rel_tol=1e-12),
              f"{name}: ratio {s['ratio_to_reference']} != {s['events_per_s']} / {reference}")
        check(s["ratio_p25"] <= s["ratio_to_reference"] <= s["ratio_p75"], f"{name}: quartiles")
        check(s["pairs"] >= 5, f"{name}: {s['pairs']} pairs, at least 5")
        # Medians of per-batch ratios: equal when every batch has the same events per replication.
        product = s["cpu_ns_per_event"] * s["events_per_replication"]
        check(0.5 < product / s["cpu_ns_per_replication"] < 2.0,
              f"{name}: ns/event x events/replication {product} against ns/replication "
              f"{s['cpu_ns_per_replication']}")
    by_name = {s["name"]: s for s in doc["scenarios"]}
    # One checkpointed 10 h job, preempted at rate 0.2/h: arrival + completion + about 2.5
    # preemptions and restarts; a handful of events, far from mmc's thousands.
    check(3 <= by_name["checkpoint_validation"]["events_per_replication"] <= 20,
          "checkpoint_validation: events per replication")
    # mmc's model: lambda T = 14,400 arrivals and as many completions, less those in the system at
    # the end; each replication within +-5% (sd about 0.9%), the mean of a batch too.
    for figure in (by_name["mmc"]["events_per_replication"], doc["reference_events_per_replication"],
                   by_name["classes_16"]["events_per_replication"]):
        check(abs(figure / 28800 - 1) < 0.05, f"events per replication {figure}, about 28,800")

    # The reference loop simulates mmc's futures: the same events, replication by replication.
    same = subprocess.run([bench, "--verify-reference"], capture_output=True, text=True)
    check(same.returncode == 0 and same.stdout.count("replication") == 16
          and "DIFFERENT" not in same.stdout, f"--verify-reference: {same.stdout}{same.stderr}")

    bad = subprocess.run([bench, "--scenarios", "nonesuch"], capture_output=True, text=True)
    check(bad.returncode == 2 and "nonesuch" in bad.stderr and "mmc" in bad.stderr,
          f"unknown scenario: exit {bad.returncode}, {bad.stderr!r}")
    print("engine_bench --json: structure ok,", len(doc["scenarios"]), "scenarios")


if __name__ == "__main__":
    main()
