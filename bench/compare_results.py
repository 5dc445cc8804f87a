#!/usr/bin/env python3
"""Compare two gpucap results files bit for bit: /replications, /pools, /summary, /pool_summary
and /timeseries.

    bench/compare_results.py cpu.h5 cuda.h5

Exit 0 when every array holds the same bits in both files (NaNs included), 1 otherwise (the first
differing element of each array is printed), 2 on bad usage. Needs numpy and h5py.
"""
import sys

import h5py
import numpy as np


def arrays(f):
    """Paths of the datasets under /replications, /pools, /summary and /pool_summary."""
    found = []
    for group in ("replications", "pools", "summary", "pool_summary", "timeseries"):
        if group not in f:
            continue
        if isinstance(f[group], h5py.Dataset):
            found.append(group)
            continue

        def visit(name, obj, group=group):
            if isinstance(obj, h5py.Dataset):
                found.append(f"{group}/{name}")

        f[group].visititems(visit)
    return sorted(found)


def first_difference(x, y):
    """Index and values of the first element whose bits differ."""
    flat_x, flat_y = x.reshape(-1), y.reshape(-1)
    for i in range(flat_x.size):
        if x.dtype == object:
            if flat_x[i] != flat_y[i]:
                return np.unravel_index(i, x.shape), flat_x[i], flat_y[i]
        elif flat_x[i : i + 1].tobytes() != flat_y[i : i + 1].tobytes():
            return np.unravel_index(i, x.shape), flat_x[i], flat_y[i]
    return None


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with h5py.File(argv[1], "r") as a, h5py.File(argv[2], "r") as b:
        paths_a, paths_b = arrays(a), arrays(b)
        if paths_a != paths_b:
            print(f"different datasets: {sorted(set(paths_a) ^ set(paths_b))}")
            return 1
        differing = 0
        for path in paths_a:
            x, y = a[path][()], b[path][()]
            if x.shape != y.shape:
                print(f"{path}: shapes {x.shape} and {y.shape}")
                differing += 1
                continue
            if x.dtype == object:  # variable-length strings: compare the values
                same = x.tolist() == y.tolist()
            else:
                same = np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()
            if not same:
                where = first_difference(x, y)
                print(f"{path}: differs at {where[0]}: {where[1]} vs {where[2]}")
                differing += 1
        print(f"{len(paths_a) - differing} of {len(paths_a)} arrays identical")
        return 0 if differing == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
