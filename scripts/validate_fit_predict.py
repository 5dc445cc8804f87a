#!/usr/bin/env python3
"""Fit then predict on a real trace: Alibaba's openb pod list (docs/validation.md,
"Fit then predict (Alibaba openb)").

Pipeline, from ../shared/data/workload (skipped, exit 0, when the data is absent):

1. `gpucap import --format kubernetes` the pod list into a trace CSV;
2. cut the observed window in two halves; write the imported first half as a trace CSV (jobs
   still running at the cut, or censored by the import, are right-censored there) and `gpucap fit`
   it;
3. `gpucap run` the fitted workloads over the second half (the first half simulated as warm-up,
   so the second starts with a loaded cluster), several replications;
4. `gpucap run` the imported trace itself over the same window (process: trace, warm-up up to
   the cut), which separates the error of the fit from that of the queueing model;
5. compare both with the trace's own second half: utilization, mean and p95 wait (the pod list's
   scheduled_time - creation_time), and the run-time distribution (two-sample KS).

Run with the project's virtual environment (numpy, h5py and PyYAML; `bash scripts/python_setup.sh
test`) and a built CLI:

    .venv/bin/python scripts/validate_fit_predict.py [--gpucap build/release/gpucap]
        [--data ../shared/data] [--replications 20] [--workdir DIR] [--json FILE]

The table goes to stdout; --json also writes the figures as JSON (used by
tests/python/test_validate_fit_predict.py). Runs in about 2 s on 2 cores.
"""

import argparse
import csv
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
POD_LIST = "workload/alibaba_openb_pod_list_default.csv"
NODE_LIST = "workload/alibaba_openb_node_list_gpu_node.csv"
HOUR = 3600.0
DAY = 86400.0


def find_cli(given):
    candidates = [given] if given else []
    if os.environ.get("GPUCAP_CLI"):
        candidates.append(os.environ["GPUCAP_CLI"])
    candidates += [ROOT / "build" / "release" / "gpucap", ROOT / "build" / "cpu-release" / "gpucap"]
    for c in candidates:
        if c and pathlib.Path(c).is_file():
            return pathlib.Path(c)
    sys.exit(f"validate_fit_predict: no gpucap CLI (tried {', '.join(map(str, candidates))}); "
             "build it or pass --gpucap")


def sh(args, **kw):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"validate_fit_predict: {' '.join(map(str, args))} failed ({r.returncode}):\n"
                 f"{r.stdout}\n{r.stderr}")
    return r


def read_pods(path, np):
    """The pods the kubernetes importer keeps (docs/importing.md): num_gpu > 0 and gpu_milli > 0,
    scheduled (a scheduled_time, not Pending). Times in seconds as in the file."""
    cols = {k: [] for k in ("creation", "scheduled", "deletion", "gpus", "milli")}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            gpus = int(row["num_gpu"] or 0)
            milli = int(row["gpu_milli"] or 0)
            if gpus == 0 or milli == 0:
                continue
            if not row["scheduled_time"] or row["pod_phase"] == "Pending":
                continue
            cols["creation"].append(float(row["creation_time"]))
            cols["scheduled"].append(float(row["scheduled_time"]))
            cols["deletion"].append(float(row["deletion_time"]))
            cols["gpus"].append(gpus)
            cols["milli"].append(min(milli, 1000))
    return {k: np.array(v) for k, v in cols.items()}


def cluster_gpus(path):
    with open(path, newline="") as f:
        return sum(int(r["gpu"]) for r in csv.DictReader(f))


def peak_concurrent(np, start, end, weight):
    t = np.concatenate([start, end])
    d = np.concatenate([weight, -weight])
    order = np.lexsort((d, t))  # at one instant, ends (negative) before starts
    return float(np.cumsum(d[order]).max())


def overlap(np, start, end, lo, hi):
    return np.clip(np.minimum(end, hi) - np.maximum(start, lo), 0.0, None)


def ks_2samp(np, a, b):
    a = np.sort(a)
    b = np.sort(b)
    x = np.concatenate([a, b])
    return float(np.max(np.abs(np.searchsorted(a, x, side="right") / a.size
                               - np.searchsorted(b, x, side="right") / b.size)))


def seconds(value):
    """A duration as the fit writes it ('2668.65s', or a number of seconds)."""
    if isinstance(value, (int, float)):
        return float(value)
    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": HOUR, "d": DAY}
    for u in sorted(units, key=len, reverse=True):
        if value.endswith(u):
            return float(value[: -len(u)]) * units[u]
    return float(value)


def rate_per_s(arrivals):
    for key, div in (("rate_per_s", 1.0), ("rate_per_min", 60.0), ("rate_per_hour", HOUR),
                     ("rate_per_day", DAY)):
        if key in arrivals:
            rate = float(arrivals[key]) / div
            prof = arrivals.get("weekly_profile") or arrivals.get("hourly_profile")
            return rate * (sum(prof) / len(prof) if prof else 1.0)
    raise ValueError(f"no rate in {arrivals}")


def sample_work(np, rng, work, base, n):
    dist = work["dist"]
    if dist == "exponential":
        return rng.exponential(seconds(work["mean"]), n)
    if dist == "lognormal":
        return seconds(work["median"]) * np.exp(float(work["sigma"]) * rng.standard_normal(n))
    if dist == "gamma":
        return rng.gamma(float(work["shape"]), seconds(work["scale"]), n)
    if dist == "weibull":
        return seconds(work["scale"]) * rng.weibull(float(work["shape"]), n)
    if dist == "empirical":
        if "values" in work:
            values = np.array([seconds(v) for v in work["values"]])
        else:
            with open(base / work["file"], newline="") as f:
                values = np.array([float(r["duration_s"]) for r in csv.DictReader(f)])
        return rng.choice(values, n)
    if dist == "deterministic":
        return np.full(n, seconds(work["value"]))
    raise ValueError(f"run-time distribution {dist} not handled here")


def rotate_profiles(workloads, shift_h):
    """The fit counts hours of the week from the first half's t = 0; the simulation's t = 0 is
    shift_h hours later, so hour k of the simulation is hour k + shift_h of the fitted profile."""
    for w in workloads:
        a = w["arrivals"]
        for key, n in (("weekly_profile", 168), ("hourly_profile", 24)):
            if key in a:
                s = shift_h % n
                a[key] = a[key][s:] + a[key][:s]


def summary(h5py, path):
    with h5py.File(path, "r") as f:
        rows = f["summary"][...]
    out = {}
    for r in rows:
        name = r["metric"].decode() if isinstance(r["metric"], bytes) else str(r["metric"])
        out[name] = {"mean": float(r["mean"]), "lo": float(r["ci95_low"]),
                     "hi": float(r["ci95_high"]), "n": int(r["n"])}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpucap", help="the gpucap CLI (default $GPUCAP_CLI, build/release/gpucap, "
                    "build/cpu-release/gpucap)")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"),
                    help="the shared data folder (default ../shared/data)")
    ap.add_argument("--replications", type=int, default=20)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--workdir", help="keep the intermediate files here (default: a temporary folder)")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args()

    data = pathlib.Path(args.data)
    if not (data / POD_LIST).is_file() or not (data / NODE_LIST).is_file():
        print(f"validate_fit_predict: skipped: {data / POD_LIST} (and the node list) not found; "
              "the shared data is not part of the repository (see docs/validation.md)")
        return 0
    import h5py
    import numpy as np
    import yaml

    cli = find_cli(args.gpucap)
    tmp = None
    if args.workdir:
        work = pathlib.Path(args.workdir)
        work.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="gpucap-fit-predict-")
        work = pathlib.Path(tmp)
    try:
        return run(args, data, cli, work, np, h5py, yaml)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args, data, cli, work, np, h5py, yaml):
    fig = {}
    # 1. Import.
    trace = work / "openb_trace.csv"
    sh([cli, "import", "--format", "kubernetes", data / POD_LIST, "-o", trace,
        "--report", work / "import.json"])
    report = json.loads((work / "import.json").read_text())
    imp = np.genfromtxt(trace, delimiter=",", names=True, usecols=(0, 1, 2, 3))
    pods = read_pods(data / POD_LIST, np)
    run_s = pods["deletion"] - pods["scheduled"]
    # The importer's rows are these pods (submit = creation, duration = deletion - scheduled).
    # Matched row by row (sorted by submit, run time and GPUs alike on both sides), so that the
    # importer's censoring flag can be carried to the pods.
    order_imp = np.lexsort((imp["gpus"], imp["duration_s"], imp["submit_s"]))
    order_pod = np.lexsort((pods["gpus"], run_s, pods["creation"]))
    assert imp.size == pods["gpus"].size, "the pods read here are not the importer's"
    assert (np.array_equal(imp["submit_s"][order_imp], pods["creation"][order_pod])
            and np.array_equal(imp["duration_s"][order_imp], run_s[order_pod])
            and np.array_equal(imp["gpus"][order_imp], pods["gpus"][order_pod])), \
        "the pods read here are not the importer's"
    censored_by_import = np.zeros(imp.size, dtype=bool)
    censored_by_import[order_pod] = imp["censored"][order_imp] != 0
    fig["pods_kept"] = int(imp.size)
    fig["pods_censored_by_import"] = int(imp["censored"].sum())

    # 2. The window and the cut.
    log_end = float(pods["deletion"].max())
    # No kept pod ended before t0: the list holds the pods alive in [t0, log_end] (earlier
    # pods appear only when they outlived t0), so the trace really observes [t0, log_end].
    t0 = float(pods["deletion"].min())
    nominal_mid = (0.0 + log_end) / 2
    fig["span_days"] = log_end / DAY
    fig["observed_from_day"] = t0 / DAY
    fig["nominal_first_half_pods"] = int((pods["creation"] < nominal_mid).sum())
    fig["nominal_second_half_pods"] = int((pods["creation"] >= nominal_mid).sum())
    half_h = round((log_end - t0) / 2 / HOUR)
    mid = t0 + half_h * HOUR  # within half an hour of the middle; a whole number of hours
    half = mid - t0
    second = log_end - mid
    fig.update(t0=t0, mid=mid, log_end=log_end, first_half_days=half / DAY,
               second_half_days=second / DAY,
               pods_before_t0=int((pods["creation"] < t0).sum()))

    c, s, e, g = pods["creation"], pods["scheduled"], pods["deletion"], pods["gpus"]
    first = (c >= t0) & (c < mid)
    sec = (c >= mid) & (c < log_end + 1)
    fig["first_half_pods"] = int(first.sum())
    fig["second_half_pods"] = int(sec.sum())

    # Quota: the peak of GPUs in use at once (whole GPUs, as the importer counts), over the
    # whole list; and the cluster's GPU count from the node list.
    peak = peak_concurrent(np, s, e, g.astype(float))
    peak_frac = peak_concurrent(np, s, e, g * pods["milli"] / 1000.0)
    cluster = cluster_gpus(data / NODE_LIST)
    fig.update(peak_gpus=peak, peak_gpus_fractional=peak_frac, cluster_gpus=cluster)

    # The trace's own second half.
    used_whole = float((g * overlap(np, s, e, mid, log_end)).sum()) / HOUR
    used_frac = float((g * pods["milli"] / 1000.0 * overlap(np, s, e, mid, log_end)).sum()) / HOUR
    wait = (s - c)[sec]
    fig["trace"] = {"gpu_hours_whole": used_whole, "gpu_hours_fractional": used_frac,
                    "wait_mean": float(wait.mean()), "wait_p95": float(np.percentile(wait, 95)),
                    "wait_p50": float(np.percentile(wait, 50)),
                    "pods_before_t0_gpu_hours": float((g * overlap(np, s, e, mid, log_end))[c < t0].sum()) / HOUR}
    # What the replay uses GPUs for in the window: each job from its submission (no queue)
    # for its logged run time (the replay has no scheduling delay of its own when GPUs are free).
    fig["trace"]["replay_expected_gpu_hours"] = float(
        (imp["gpus"] * overlap(np, imp["submit_s"], imp["submit_s"] + imp["duration_s"], mid,
                               log_end)).sum()) / HOUR

    # First half as a trace CSV: submit from t0; jobs still running at the cut are censored there,
    # and so are those the importer censored (none in openb: a Running pod ends at its
    # deletion_time, docs/importing.md).
    obs_rt = run_s[sec]
    fig["ks_first_vs_second_logged"] = ks_2samp(np, run_s[first], obs_rt)
    fig["run_time"] = {"second_half_median": float(np.median(obs_rt)),
                       "second_half_mean": float(obs_rt.mean()),
                       "first_half_logged_median": float(np.median(run_s[first])),
                       "first_half_logged_mean": float(run_s[first].mean())}
    fig["arrivals"] = {"first_half_per_day": first.sum() / (half / DAY),
                       "second_half_per_day": sec.sum() / (second / DAY)}
    first_csv = work / "first_half.csv"
    ncens = 0
    with open(first_csv, "w") as f:
        f.write("submit_s,gpus,duration_s,censored\n")
        for i in np.flatnonzero(first):
            dur = max(min(e[i], mid) - s[i], 0.0)
            cens = 1 if (e[i] > mid or censored_by_import[i]) else 0
            ncens += cens
            f.write(f"{c[i] - t0:.0f},{g[i]},{dur:.0f},{cens}\n")
    fit_yaml = work / "fit.yaml"
    sh([cli, "fit", first_csv, "-o", fit_yaml, "--window", f"{half:.0f}s",
        "--placement", "cluster", "--force", "-q"])
    fitted = yaml.safe_load(fit_yaml.read_text())["workloads"]
    rotate_profiles(fitted, int(round(half / HOUR)))
    # Run times: a sample of the fitted model (classes mixed by their rates) against the
    # second half's logged run times (deletion - scheduled).
    rng = np.random.default_rng(args.seed)
    rates = np.array([rate_per_s(w["arrivals"]) for w in fitted])
    counts = rng.multinomial(200000, rates / rates.sum())
    model_rt = np.concatenate([sample_work(np, rng, w["work"], work, k)
                               for w, k in zip(fitted, counts)])
    fig["fit"] = {
        "censored": ncens,
        "censored_at_the_cut": int((e[first] > mid).sum()),
        "classes": [{"name": w["name"], "gpus": w["gpus"],
                     "jobs_per_day": rate_per_s(w["arrivals"]) * DAY,
                     "arrivals": w["arrivals"]["process"], "work": w["work"]["dist"]}
                    for w in fitted],
        "jobs_per_day": float(rates.sum() * DAY),
        "ks": ks_2samp(np, model_rt, obs_rt),
        "run_time_median": float(np.median(model_rt)),
        "run_time_mean": float(model_rt.mean())}

    # 3-4. Simulations at two quotas.
    fig["runs"] = {}
    for label, quota in (("peak", int(round(peak))), ("cluster", cluster)):
        pool = {"cluster": {"gpu": "GPU", "price_usd_per_gpu_hour": 1.0, "quota": quota}}
        scenarios = {"fit": {
            "name": f"openb fit-then-predict, quota {quota}",
            "horizon": f"{2 * half:.0f}s", "warmup": f"{half:.0f}s",
            "replications": args.replications, "seed": args.seed, "pools": pool,
            "workloads": fitted, "policy": {"queue": "fifo"}}}
        scenarios["replay"] = {
            "name": f"openb trace replay, quota {quota}", "horizon": f"{log_end:.0f}s",
            "warmup": f"{mid:.0f}s", "replications": 1, "seed": args.seed, "pools": pool,
            "workloads": [{"name": "openb", "kind": "batch", "gpus": 1,
                           "arrivals": {"process": "trace", "file": trace.name},
                           "placement": ["cluster"]}],
            "policy": {"queue": "fifo"}}
        out = {}
        for kind, sc in scenarios.items():
            path = work / f"{kind}_{label}.yaml"
            path.write_text(yaml.safe_dump(sc, sort_keys=False, width=1000))
            h5 = work / f"{kind}_{label}.h5"
            sh([cli, "run", path, "-o", h5, "-q", "-b", "cpu"])
            m = summary(h5py, h5)
            out[kind] = {k: m[k] for k in ("utilization", "gpu_hours_used", "wait_mean", "wait_p95",
                                           "jobs_arrived", "jobs_started")}
        out["quota"] = quota
        out["trace_utilization"] = used_whole * HOUR / (quota * second)
        out["trace_utilization_fractional"] = used_frac * HOUR / (quota * second)
        fig["runs"][label] = out

    print_table(fig)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(fig, indent=1, default=float))
    return 0


def fmt(m, spec=".3g"):
    """mean [95% CI] of a summary row (just the mean for one replication)."""
    v = m["mean"]
    if not math.isfinite(v):
        return "nan"
    if m["n"] > 1 and math.isfinite(m["lo"]) and m["hi"] > m["lo"]:
        return f"{v:{spec}} [{m['lo']:{spec}}, {m['hi']:{spec}}]"
    return f"{v:{spec}}"


def err(model, trace):
    if trace == 0 or not math.isfinite(model):
        return ""
    return f" ({(model - trace) / trace * 100:+.0f}%)"


VARIANTS = (("fit", "fit of the 1st half"), ("replay", "trace replay"))


def print_table(f):
    t = f["trace"]
    print("Fit then predict: Alibaba openb pod list (default)")
    print(f"  pods kept by the import: {f['pods_kept']} ({f['pods_censored_by_import']} censored by the import)")
    print(f"  nominal split at the middle of [0, {f['span_days']:.1f} d]: {f['nominal_first_half_pods']} pods "
          f"in the first half, {f['nominal_second_half_pods']} in the second: nothing to fit")
    print(f"  observed window: day {f['observed_from_day']:.2f} (the earliest deletion) to day "
          f"{f['log_end'] / DAY:.2f}; {f['pods_before_t0']} pods submitted before it (they outlived it)")
    print(f"  cut at day {f['mid'] / DAY:.2f}: first half {f['first_half_days']:.2f} d, {f['first_half_pods']} pods; "
          f"second half {f['second_half_days']:.2f} d, {f['second_half_pods']} pods")
    print(f"  arrivals/day: first half {f['arrivals']['first_half_per_day']:.1f}, "
          f"second half {f['arrivals']['second_half_per_day']:.1f}")
    fit = f["fit"]
    classes = ", ".join(f"{c['name']} {c['jobs_per_day']:.2f}/d {c['arrivals']} {c['work']}" for c in fit["classes"])
    print(f"  {VARIANTS[0][1]} ({fit['censored']} of its pods censored, {fit['censored_at_the_cut']} alive at the cut): "
          f"{fit['jobs_per_day']:.1f} jobs/day; {classes}")
    print(f"  peak GPUs in use at once: {f['peak_gpus']:.0f} whole ({f['peak_gpus_fractional']:.1f} counting gpu_milli); "
          f"cluster: {f['cluster_gpus']} GPUs")
    print(f"  second half GPU-hours: {t['gpu_hours_whole']:.0f} whole, {t['gpu_hours_fractional']:.0f} counting gpu_milli "
          f"(x{t['gpu_hours_whole'] / t['gpu_hours_fractional']:.3f}); {t['pods_before_t0_gpu_hours']:.0f} of them "
          "by pods submitted before the window")
    print()
    w = 34
    for label, r in f["runs"].items():
        q = r["quota"]
        n = r["fit"]["utilization"]["n"]
        print(f"quota {q} GPUs ({'the peak of GPUs in use at once in the trace' if label == 'peak' else 'the cluster'}); "
              f"fit: mean [95% CI] of {n} replications (error against the trace)")
        print(f"  {'figure':<16}{'trace, 2nd half':>17}" + "".join(f" {lab:>{w}}" for _, lab in VARIANTS))
        rows = [("utilization", r["trace_utilization"], "utilization", ".3g"),
                ("wait mean (s)", t["wait_mean"], "wait_mean", ".3g"),
                ("wait p95 (s)", t["wait_p95"], "wait_p95", ".3g"),
                ("GPU-hours used", t["gpu_hours_whole"], "gpu_hours_used", ".0f"),
                ("jobs arrived", f["second_half_pods"], "jobs_arrived", ".0f"),
                ("jobs started", f["second_half_pods"], "jobs_started", ".0f")]
        for name, tv, key, spec in rows:
            cells = "".join(f" {fmt(r[v][key], spec) + err(r[v][key]['mean'], tv):>{w}}" for v, _ in VARIANTS)
            print(f"  {name:<16}{tv:>17{spec}}{cells}")
        print(f"  {'(utilization counting gpu_milli: ' + format(r['trace_utilization_fractional'], '.3g') + ')'}")
        print()
    rt = f["run_time"]
    print(f"run times (s): second half median {rt['second_half_median']:.0f}, mean {rt['second_half_mean']:.0f}; "
          f"first half (as logged) median {rt['first_half_logged_median']:.0f}, mean {rt['first_half_logged_mean']:.0f}")
    print(f"  {VARIANTS[0][1]}: median {fit['run_time_median']:.0f}, mean {fit['run_time_mean']:.0f}; "
          f"KS D against the second half {fit['ks']:.3f}")
    print(f"  first half's logged run times against the second half's: KS D {f['ks_first_vs_second_logged']:.3f}; "
          "trace replay: 0 (the same jobs)")


if __name__ == "__main__":
    sys.exit(main())
