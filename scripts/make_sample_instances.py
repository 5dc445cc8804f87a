#!/usr/bin/env python3
"""Writes data/sample_instance_log.csv: a synthetic 30-day log of long-running GPU instances
(inference deployments) in the shape real instance logs have, for `kind: deployment`.

Columns: start_h, end_h (hours since the log's start), gpus (1 each). Blank start: the instance
was created before the log began; blank end: it was still running when the log ended.
- 200 instances run through the whole month (blank start and end);
- 90 more were running at the start and end during it (remaining life exponential, mean 10 d);
- new instances arrive at a rate rising from 0.8 to 1.3 an hour over the month, with lognormal
  lifetimes (median 2 d, sigma 1.5); those still alive at 720 h have a blank end.
So the fleet rises from 290 to about 400 instances. Deterministic (fixed seed), standard library
only:
  python3 scripts/make_sample_instances.py [output.csv]
"""
import csv
import math
import random
import sys

HOURS = 720.0


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "data/sample_instance_log.csv"
    rng = random.Random(20261205)
    rows = [("", "", 1) for _ in range(200)]
    for _ in range(90):
        age = rng.uniform(1, 400)
        end = rng.expovariate(1 / 240.0)
        rows.append((round(-age, 2), round(end, 2) if end < HOURS else "", 1))
    t = 0.0
    peak = 1.3  # arrivals per hour at the end: thinning of a rate-1.3 Poisson process
    while True:
        t += rng.expovariate(peak)
        if t >= HOURS:
            break
        if rng.random() > (0.8 + 0.5 * t / HOURS) / peak:
            continue
        life = 48.0 * math.exp(1.5 * rng.gauss(0, 1))
        end = t + max(life, 0.1)
        rows.append((round(t, 2), round(end, 2) if end < HOURS else "", 1))
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["start_h", "end_h", "gpus"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
