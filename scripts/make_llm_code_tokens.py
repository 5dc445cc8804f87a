#!/usr/bin/env python3
"""Writes data/llm_code_tokens.csv: 20,000 LLM requests' (context, output) token counts shaped like
Azure's 2023 code-completion trace (../shared/data/llm/azure_llm_inference_2023_code.csv, which
the project does not ship).

Each count is drawn from its own marginal by inverting the trace's percentiles (0, 1, ..., 99,
99.5, 99.9, 100; log-linear between knots), independently: the trace's correlation of log
context and log output is -0.0045. Only these summary statistics come from the trace. With the
trace at hand (`--percentiles TRACE`), the script prints them again.

  python3 scripts/make_llm_code_tokens.py [output.csv]
  python3 scripts/make_llm_code_tokens.py --percentiles ../shared/data/llm/azure_llm_inference_2023_code.csv

Deterministic (fixed seed), standard library only.
"""
import csv
import math
import random
import sys

LEVELS = list(range(0, 100)) + [99.5, 99.9, 100]
# Percentiles of the trace's 8,819 requests at LEVELS (linear between order statistics).
CONTEXT = [3.0, 17.0, 35.0, 50.0, 62.0, 75.0, 88.0, 97.0, 109.0, 130.0, 147.0, 162.0, 179.0,
           193.0, 209.0, 232.0, 253.0, 283.0, 319.0, 352.0, 385.6, 423.0, 469.0, 501.4, 539.0,
           578.0, 604.0, 651.0, 698.0, 745.2, 770.0, 816.0, 848.0, 880.0, 908.1, 938.6, 969.5,
           997.0, 1027.0, 1049.0, 1075.0, 1105.4, 1133.0, 1174.0, 1204.9, 1261.1, 1296.3, 1346.5,
           1377.0, 1417.0, 1469.0, 1500.2, 1555.0, 1600.0, 1641.7, 1690.0, 1724.0, 1774.0, 1823.0,
           1873.2, 1909.0, 1964.0, 2024.2, 2077.0, 2128.0, 2163.7, 2226.0, 2284.1, 2329.2, 2386.4,
           2433.0, 2479.6, 2546.0, 2615.1, 2670.6, 2744.5, 2804.0, 2895.6, 2975.0, 3066.0, 3192.4,
           3294.2, 3450.6, 3598.9, 3714.1, 3920.2, 4107.0, 4319.7, 4559.0, 4759.0, 5187.6, 5632.9,
           5959.2, 6193.7, 6584.8, 7303.3, 7430.3, 7435.0, 7436.0, 7436.0, 7436.0, 7437.0, 7437.0]
OUTPUT = [6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 8.0, 8.0,
          8.0, 8.0, 8.0, 8.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 10.0, 10.0, 10.0, 10.0,
          10.0, 10.0, 11.0, 11.0, 11.0, 11.0, 11.0, 12.0, 12.0, 12.0, 12.0, 12.0, 13.0, 13.0, 13.0,
          13.0, 13.0, 13.0, 14.0, 14.0, 14.0, 14.0, 15.0, 15.0, 15.0, 16.0, 16.0, 16.0, 17.0, 17.0,
          18.0, 18.0, 19.0, 19.0, 19.0, 20.0, 21.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0,
          29.0, 31.0, 32.0, 34.0, 37.0, 39.0, 42.0, 45.0, 48.0, 52.0, 55.0, 59.4, 65.0, 72.0, 79.0,
          90.0, 105.0, 128.0, 170.9, 251.5, 359.4, 825.3, 1899.0]


def percentile(values, level):
    n = len(values)
    x = level / 100 * (n - 1)
    i = int(x)
    return round(values[i] + (values[min(i + 1, n - 1)] - values[i]) * (x - i), 1)


def inverse(knots, u):
    """The count at probability u: log-linear between the knots at LEVELS, rounded, >= 1."""
    p = 100 * u
    for k in range(1, len(LEVELS)):
        if p <= LEVELS[k]:
            a, b = knots[k - 1], knots[k]
            f = (p - LEVELS[k - 1]) / (LEVELS[k] - LEVELS[k - 1])
            return max(1, round(math.exp(math.log(a) + f * (math.log(b) - math.log(a)))))
    return round(knots[-1])


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--percentiles":
        rows = list(csv.DictReader(open(sys.argv[2])))
        for column in ("ContextTokens", "GeneratedTokens"):
            values = sorted(int(r[column]) for r in rows)
            print(column, [percentile(values, level) for level in LEVELS])
        return
    out = sys.argv[1] if len(sys.argv) > 1 else "data/llm_code_tokens.csv"
    rng = random.Random(20231116)
    with open(out, "w", newline="") as f:
        f.write("context_tokens,output_tokens\n")
        for _ in range(20000):
            f.write(f"{inverse(CONTEXT, rng.random())},{inverse(OUTPUT, rng.random())}\n")


if __name__ == "__main__":
    main()
