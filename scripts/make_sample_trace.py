#!/usr/bin/env python3
"""Writes data/sample_week_trace.csv: a synthetic one-week job log in gpucap's trace format.

Columns: submit_s (seconds from the start of the week), gpus, duration_s (run time on the
reference GPU). 600 jobs, arrivals heavier on weekdays 08:00-20:00 UTC, GPU counts 1/2/4/8,
lognormal run times (median 40 min, sigma 1.2). Deterministic (fixed seed), standard library only:
  python3 scripts/make_sample_trace.py [output.csv]
"""
import csv
import math
import random
import sys


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "data/sample_week_trace.csv"
    rng = random.Random(20261129)
    rows = []
    while len(rows) < 600:
        t = rng.uniform(0, 7 * 86400)
        day, hour = int(t // 86400), (t % 86400) / 3600
        weight = (1.0 if day < 5 else 0.35) * (1.0 if 8 <= hour < 20 else 0.3)
        if rng.random() > weight:
            continue  # thinning: fewer jobs at night and at the weekend
        gpus = rng.choices([1, 2, 4, 8], weights=[55, 20, 15, 10])[0]
        duration = 2400 * math.exp(1.2 * rng.gauss(0, 1))
        rows.append((round(t, 1), gpus, round(max(duration, 30.0), 1)))
    rows.sort()
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submit_s", "gpus", "duration_s"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
