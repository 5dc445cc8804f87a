#!/usr/bin/env python3
"""The CUDA kernels' resources against their recorded budget, with no GPU needed.

    check_kernel_resources.py PTXAS_REPORT BUDGET

PTXAS_REPORT is what ptxas -v said while the build compiled kernels/device_backend.cu
(cmake/record_ptxas_report.sh keeps it). BUDGET (tests/device/kernel_resource_budget.txt) has one
row per kernel or device function:

    NAME_PART  ARCH  REGISTERS  STACK_BYTES  SPILL_STORE_BYTES  SPILL_LOAD_BYTES

NAME_PART is a part of the mangled name. Fails (exit 1), naming the function and the figure,
when a function over its budget, a kernel without a budget row, a function that spills without
one, or a row that matches nothing; prints every figure either way. A kinder figure than the
budget is reported too, so that the budget can be lowered in the same deliberate way.
"""
import re
import sys

ENTRY = re.compile(r"^ptxas info\s*: Compiling entry function '([^']+)' for '(sm_\w+)'")
PROPERTIES = re.compile(r"^ptxas info\s*: Function properties for (\S+)")
FRAME = re.compile(
    r"^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"^ptxas info\s*: Used (\d+) registers")


def parse_report(text):
    """{(name, arch): {registers, stack, spill_stores, spill_loads, entry}} from ptxas -v."""
    functions = {}
    entry, arch, pending = None, None, None
    for line in text.splitlines():
        m = ENTRY.match(line)
        if m:
            entry, arch = m.group(1), m.group(2)
            functions.setdefault((entry, arch), {"entry": True, "registers": 0, "stack": 0,
                                                 "spill_stores": 0, "spill_loads": 0})
            continue
        m = PROPERTIES.match(line)
        if m:
            pending = m.group(1)
            continue
        m = FRAME.match(line)
        if m and pending is not None:
            key = (pending, arch or "?")
            f = functions.setdefault(key, {"entry": False, "registers": 0, "stack": 0,
                                           "spill_stores": 0, "spill_loads": 0})
            f["stack"], f["spill_stores"], f["spill_loads"] = (int(g) for g in m.groups())
            pending = None
            continue
        m = USED.match(line)
        if m and entry is not None:
            functions[(entry, arch)]["registers"] = int(m.group(1))
    return functions


def parse_budget(text, path):
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 6 or not all(f.isdigit() for f in fields[2:]):
            sys.exit(f"{path}:{number}: expected NAME_PART ARCH REGISTERS STACK SPILL_STORES "
                     f"SPILL_LOADS (whole numbers), got: {line}")
        rows.append({"part": fields[0], "arch": fields[1], "registers": int(fields[2]),
                     "stack": int(fields[3]), "spill_stores": int(fields[4]),
                     "spill_loads": int(fields[5]), "line": number, "used": False})
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    report_path, budget_path = sys.argv[1], sys.argv[2]
    try:
        report = open(report_path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        sys.exit(f"{report_path}: {e.strerror}; build the CUDA backend first (its launcher, "
                 f"cmake/record_ptxas_report.sh, writes it)")
    functions = parse_report(report)
    budget = parse_budget(open(budget_path, encoding="utf-8").read(), budget_path)
    if not any(f["entry"] for f in functions.values()):
        sys.exit(f"{report_path}: no kernel in the report (was it built with -Xptxas=-v?)")
    problems, notes = [], []
    figures = ("registers", "stack", "spill_stores", "spill_loads")
    for (name, arch), f in sorted(functions.items(), key=lambda kv: (not kv[1]["entry"], kv[0])):
        rows = [r for r in budget if r["part"] in name and r["arch"] == arch]
        short = name if len(name) <= 90 else name[:60] + "..." + name[-27:]
        print(f"{'kernel' if f['entry'] else 'function':8} {arch} {short}: "
              + ", ".join(f"{k} {f[k]}" for k in figures))
        if not rows:
            if f["entry"]:
                problems.append(f"kernel {short} ({arch}) has no budget row in {budget_path}")
            elif f["spill_stores"] or f["spill_loads"]:
                problems.append(f"function {short} ({arch}) spills without a budget row")
            continue
        for row in rows:
            row["used"] = True
            for k in figures:
                if k == "registers" and not f["entry"]:
                    continue
                if f[k] > row[k]:
                    problems.append(f"{short} ({arch}): {k} {f[k]} over its budget of {row[k]} "
                                    f"({budget_path}:{row['line']})")
                elif f[k] < row[k]:
                    notes.append(f"{short} ({arch}): {k} {f[k]} under its budget of {row[k]}")
    for row in budget:
        if not row["used"]:
            problems.append(f"{budget_path}:{row['line']}: '{row['part']}' ({row['arch']}) "
                            f"matches no function of the report")
    for n in notes:
        print("note: " + n + " (the budget may be lowered)")
    for p in problems:
        print("FAILED: " + p)
    if problems:
        print("A budget changes only in a deliberate commit that says why "
              "(tests/device/kernel_resource_budget.txt, docs/backends.md's table).")
        return 1
    print(f"{sum(f['entry'] for f in functions.values())} kernels within their budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
