#!/usr/bin/env python3
"""Writes data/sample_spot_availability.json: a synthetic spot availability trace in the format of
the public spot traces ({"metadata": {"gap_seconds": N}, "data": [0/1 per step]}).

A two-state Markov chain sampled every 300 s for 30 days: available spells last 8 h on average,
unavailable spells 2 h (so the instance is available 80% of the time). Deterministic (fixed seed).
  python3 scripts/make_sample_availability.py [output.json]
"""
import json
import random
import sys


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "data/sample_spot_availability.json"
    rng = random.Random(20261129)
    gap_s, steps = 300, 30 * 86400 // 300
    p_lose, p_regain = gap_s / (8 * 3600), gap_s / (2 * 3600)  # per-step transition probabilities
    state, data = 1, []
    for _ in range(steps):
        data.append(state)
        if rng.random() < (p_lose if state else p_regain):
            state = 1 - state
    with open(out, "w") as f:
        json.dump({"metadata": {"gap_seconds": gap_s}, "data": data}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
