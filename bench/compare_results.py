#!/usr/bin/env python3
"""Compare two gpucap results files bit for bit: /replications, /pools, /summary, /pool_summary
and /timeseries.

    bench/compare_results.py [--allow-added] old.h5 new.h5

Exit 0 when every array holds the same bits in both files (NaNs included), 1 otherwise (the first
differing element of each array is printed), 2 on bad usage. With --allow-added, arrays only the
second file has (metrics added by the change) are listed and do not fail the comparison; arrays
the second file lacks always do. Needs numpy and h5py.
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


def common_rows(x, y):
    """The rows of summary tables x and y keyed by their point, pool and metric, in x's order,
    and the metrics of the rows only y has (None when x has a row y lacks)."""
    keys = [k for k in ("point", "pool", "metric") if k in x.dtype.names]

    def key(row):
        return tuple(row[k] for k in keys)

    in_y = {key(row): i for i, row in enumerate(y)}
    if any(key(row) not in in_y for row in x):
        return x, y, None
    in_x = {key(row) for row in x}
    extra = sorted({row["metric"].decode() if isinstance(row["metric"], bytes) else str(row["metric"])
                    for row in y if key(row) not in in_x})
    return x, y[[in_y[key(row)] for row in x]], extra


def main(argv):
    allow_added = "--allow-added" in argv[1:]
    files = [a for a in argv[1:] if a != "--allow-added"]
    if len(files) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with h5py.File(files[0], "r") as a, h5py.File(files[1], "r") as b:
        paths_a, paths_b = arrays(a), arrays(b)
        removed = sorted(set(paths_a) - set(paths_b))
        added = sorted(set(paths_b) - set(paths_a))
        if removed or (added and not allow_added):
            print(f"different datasets: {sorted(set(paths_a) ^ set(paths_b))}")
            return 1
        if added:
            print(f"added datasets: {added}")
        differing = 0
        for path in paths_a:
            x, y = a[path][()], b[path][()]
            if allow_added and x.dtype.names and "metric" in x.dtype.names and x.shape != y.shape:
                # A summary table: one row per (point, pool, metric); the new file's rows of
                # added metrics are listed, the rows both hold must be identical.
                x, y, extra = common_rows(x, y)
                if extra:
                    print(f"{path}: added rows for {extra}")
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
        print(f"{len(paths_a) - differing} of {len(paths_a)} arrays identical"
              + (f", {len(added)} added" if added else ""))
        return 0 if differing == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
