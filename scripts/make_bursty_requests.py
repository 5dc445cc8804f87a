#!/usr/bin/env python3
"""Writes data/bursty_requests.csv: 30 minutes of a bursty inference service's requests.

Columns: submit_s (seconds from the start), duration_s (service time on the reference GPU).
A Poisson background of 1 request/s, and 6 bursts (one in each 5-minute slot, at a uniform
time in its first 4 minutes) of 20 s at 20 requests/s; service times gamma with mean 0.8 s and
cv 0.5, rounded to 1 ms. Deterministic (fixed seed), standard library only:
  python3 scripts/make_bursty_requests.py [output.csv]
"""
import csv
import random
import sys


def poisson_times(rng: random.Random, rate_per_s: float, start_s: float, end_s: float):
    t = start_s
    while True:
        t += rng.expovariate(rate_per_s)
        if t >= end_s:
            return
        yield t


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "data/bursty_requests.csv"
    rng = random.Random(20261201)
    times = list(poisson_times(rng, 1.0, 0.0, 1800.0))
    for slot in range(6):
        begin = slot * 300 + rng.uniform(0, 240)
        times += poisson_times(rng, 20.0, begin, begin + 20)
    times.sort()
    shape = 1 / 0.5**2  # gamma with cv 0.5: shape 4, scale mean / 4
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["submit_s", "duration_s"])
        for t in times:
            w.writerow([f"{t:.3f}", f"{max(rng.gammavariate(shape, 0.8 / shape), 0.001):.3f}"])


if __name__ == "__main__":
    main()
