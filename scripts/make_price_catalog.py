#!/usr/bin/env python3
"""Writes data/gpu_prices.csv, gpucap's GPU price catalog, from the reference price table
../shared/data/prices/gpu_instance_prices.csv (SkyPilot's public catalog; see its README).

Keeps one row per (provider, instance type, region) for the GPU models gpucap's scenarios use,
adds the GPU memory of each model, and leaves out rows the reference README flags as placeholders
or wrong (Azure H100 v5 spot equal to on-demand; ND96isr_H100_v5's GPU count). Prices are per
GPU-hour (the instance price divided by its GPU count, host CPU and memory included).
  python3 scripts/make_price_catalog.py [reference.csv] [output.csv]
"""
import csv
import sys

GPU_MEMORY_GB = {"H100": 80, "H200": 141, "B200": 180, "A100": 40, "A100-80GB": 80, "L4": 24,
                 "L40S": 48, "A10G": 24, "V100": 16, "T4": 16}
SUSPECT = {("azure", "Standard_NC40ads_H100_v5"), ("azure", "Standard_NC80adis_H100_v5"),
           ("azure", "Standard_ND96isr_H100_v5")}
RETRIEVED = "2026-11-29 (catalog snapshot of 2025 or later; exact date unknown)"


def main() -> None:
    src = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/prices/gpu_instance_prices.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else "data/gpu_prices.csv"
    rows = []
    with open(src, newline="") as f:
        for r in csv.DictReader(f):
            if r["gpu_model"] not in GPU_MEMORY_GB or (r["provider"], r["instance_type"]) in SUSPECT:
                continue
            rows.append({
                "key": f'{r["provider"]}/{r["instance_type"]}/{r["region"]}',
                "provider": r["provider"],
                "instance_type": r["instance_type"],
                "region": r["region"],
                "gpu_model": r["gpu_model"],
                "gpu_count": r["gpu_count"],
                "gpu_memory_gb": GPU_MEMORY_GB[r["gpu_model"]],
                "on_demand_usd_per_gpu_hour": r["on_demand_usd_per_gpu_hour"],
                "spot_usd_per_gpu_hour": r["spot_usd_per_gpu_hour"],
                "source": "skypilot-org/skypilot-catalog " + r["source_file"],
                "retrieved": RETRIEVED,
            })
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
