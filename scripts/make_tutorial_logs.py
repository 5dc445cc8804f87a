#!/usr/bin/env python3
"""Writes the two logs of docs/tutorial.md into data/tutorial/ (seeded: the same files every
time). They are synthetic, in the shapes real exports have:

- requests.csv: one row per inference request of an image service over 21 days, from Friday
  2025-03-07 16:57 (+08:00): ISO times with an offset, a status (SUCCEED, FAILED, PENDING never
  started, PROCESSING at the log's end), the execution time in seconds (median 4 min; blank when it never
  ran or still runs), a model column that is sometimes blank. Demand has a day-night cycle and
  grows 2.5x over the three weeks.
- instances.csv: one row per GPU instance of a serving fleet over 31 days, times in seconds
  since the log's start: a blank creation time for the 300 instances already running when the
  log starts, a blank deletion time for those still running at its end; lifetimes lognormal
  (median 2 days), new instances about one an hour.
"""
import datetime
import math
import pathlib
import random

OUT = pathlib.Path(__file__).resolve().parents[1] / "data" / "tutorial"


def requests(rng: random.Random) -> str:
    start = datetime.datetime(2025, 3, 7, 16, 57, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=8)))
    days = 21
    window = days * 86400.0
    growth = math.log(2.5) / window
    peak = 4.0 / 3600 * 1.7 * 2.5  # rate bound for thinning, per s
    rows = ["request_id,created_at,status,exec_s,model"]
    t, n = 0.0, 0
    while True:
        t += rng.expovariate(peak)
        if t >= window:
            break
        local_hour = (start + datetime.timedelta(seconds=t)).hour
        rate = 4.0 / 3600 * (1 + 0.7 * math.sin(2 * math.pi * (local_hour - 8) / 24)) * math.exp(growth * t)
        if rng.random() * peak >= rate:
            continue
        n += 1
        when = (start + datetime.timedelta(seconds=round(t))).strftime("%Y-%m-%d %H:%M:%S+08:00")
        u = rng.random()
        status, exec_s = "SUCCEED", f"{rng.lognormvariate(math.log(240), 0.6):.1f}"
        if window - t < 1800:
            status, exec_s = "PROCESSING", ""
        elif u < 0.005:
            status, exec_s = "PENDING", ""
        elif u < 0.025:
            status = "FAILED"
        model = "" if rng.random() < 0.03 else rng.choice(["sdxl", "sdxl", "flux", "sd15"])
        rows.append(f"r{n:06d},{when},{status},{exec_s},{model}")
    return "\n".join(rows) + "\n"


def instances(rng: random.Random) -> str:
    window = 31 * 86400.0
    rows = ["instance,created_s,deleted_s,gpus"]
    n = 0
    for _ in range(300):  # running when the log starts: no creation time
        n += 1
        end = rng.expovariate(1 / (6 * 86400.0))  # memoryless remaining lifetimes
        rows.append(f"i{n:05d},,{'' if end >= window else f'{end:.0f}'},1")
    t = 0.0
    while True:
        t += rng.expovariate(1 / 3600.0)
        if t >= window:
            break
        n += 1
        end = t + rng.lognormvariate(math.log(2 * 86400.0), 1.0)
        rows.append(f"i{n:05d},{t:.0f},{'' if end >= window else f'{end:.0f}'},{rng.choice([1, 1, 1, 2])}")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "requests.csv").write_text(requests(random.Random(20250307)))
    (OUT / "instances.csv").write_text(instances(random.Random(20250308)))
    print(f"wrote {OUT / 'requests.csv'} and {OUT / 'instances.csv'}")
