#!/usr/bin/env python3
"""Writes the instance logs of the backtest validation (docs/validation.md, "Backtests"):
60 days of a fleet of long-running 1-GPU instances whose creations follow a known rate path,
one CSV per path (start_s, end_s, gpus; the import --instances format):

  steady       100 creations a day
  growth       100 a day rising to 200 (exponentially)
  decay        150 a day falling to 75 (exponentially)
  level_shift  100 a day, 160 from day 30 on (a step nothing before it announces)
  bursty       100 a day on average, each day's rate a gamma draw of cv 0.3

Lifetimes are lognormal (median 2 d, sigma 1.0). The fleet ran for 60 days before the log:
those still alive at its start have their (negative) start; every end after day 60 is blank
(still running at the log's end). A non-homogeneous Poisson process by thinning; deterministic
(fixed seeds), standard library only:
  python3 scripts/make_backtest_logs.py OUTPUT_FOLDER
"""
import math
import os
import random
import sys

DAY = 86400.0
LOG_DAYS = 60.0
BEFORE_DAYS = 60.0


def rate_per_day(path: str, day: float, daily: dict) -> float:
    if path == "steady":
        return 100.0
    if path == "growth":
        return 100.0 * 2.0 ** (max(day, 0.0) / LOG_DAYS)
    if path == "decay":
        return 150.0 * 0.5 ** (max(day, 0.0) / LOG_DAYS)
    if path == "level_shift":
        return 160.0 if day >= 30.0 else 100.0
    if path == "bursty":
        return 100.0 * daily[math.floor(day)]
    raise ValueError(path)


def write_log(path: str, folder: str, seed: int) -> str:
    rng = random.Random(seed)
    daily = {d: rng.gammavariate(1 / 0.09, 0.09) for d in range(-int(BEFORE_DAYS), int(LOG_DAYS) + 1)}
    peak = max(rate_per_day(path, d, daily) for d in range(-int(BEFORE_DAYS), int(LOG_DAYS) + 1))
    rows = []
    t = -BEFORE_DAYS * DAY
    while True:
        t += rng.expovariate(peak / DAY)
        if t >= LOG_DAYS * DAY:
            break
        if rng.random() > rate_per_day(path, t / DAY, daily) / peak:
            continue
        end = t + rng.lognormvariate(math.log(2 * DAY), 1.0)
        if end <= 0:
            continue  # ended before the log: not in it
        rows.append((t, end))
    out = os.path.join(folder, f"backtest_{path}.csv")
    with open(out, "w") as f:
        f.write("start_s,end_s,gpus\n")
        for start, end in rows:
            f.write(f"{start:.3f},{'' if end > LOG_DAYS * DAY else f'{end:.3f}'},1\n")
    return out


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(folder, exist_ok=True)
    for seed, path in enumerate(["steady", "growth", "decay", "level_shift", "bursty"]):
        print(write_log(path, folder, 20261206 + seed))


if __name__ == "__main__":
    main()
