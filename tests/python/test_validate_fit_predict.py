"""Fit then predict on Alibaba's openb pod list (scripts/validate_fit_predict.py,
docs/validation.md "Fit then predict (Alibaba openb)"). Runs on ../shared/data when it is there
and skips otherwise; asserts what the data fixes, not timings. The bounds are the measured
values with a margin (measured: KS 0.067 and 0.379; pods 6203, 2932 and 3240)."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
POD_LIST = DATA / "workload" / "alibaba_openb_pod_list_default.csv"
NODE_LIST = DATA / "workload" / "alibaba_openb_node_list_gpu_node.csv"
SCRIPT = ROOT / "scripts" / "validate_fit_predict.py"


def test_skips_cleanly_without_the_data(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--data", str(tmp_path / "absent")],
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert "skipped" in r.stdout


@pytest.fixture(scope="module")
def figures(cli, tmp_path_factory):
    if not (POD_LIST.is_file() and NODE_LIST.is_file()):
        pytest.skip(f"{POD_LIST} not found (the shared data is not part of the repository)")
    pytest.importorskip("h5py")
    pytest.importorskip("yaml")
    work = tmp_path_factory.mktemp("fit_predict")
    r = subprocess.run([sys.executable, str(SCRIPT), "--gpucap", str(cli), "--workdir", str(work),
                        "--json", str(work / "figures.json"), "--replications", "10"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "fit, deletion=end" in r.stdout and "trace replay" in r.stdout
    return json.loads((work / "figures.json").read_text()), work


def test_the_split(figures):
    f, _ = figures
    assert f["pods_kept"] == 6203 and f["pods_censored_by_import"] == 4149
    # The list observes only its last 34 days: the middle of its 149-day span leaves almost
    # nothing to fit, hence the cut in the middle of the observed window.
    assert f["nominal_first_half_pods"] < 20
    assert abs(f["first_half_days"] - f["second_half_days"]) < 0.05
    assert f["first_half_pods"] + f["second_half_pods"] + f["pods_before_t0"] == f["pods_kept"]
    assert f["peak_gpus"] == 71 and f["cluster_gpus"] == 6212


def test_the_replay_uses_what_the_trace_used(figures):
    """The replay's used GPU-hours are the trace's jobs' GPU-seconds inside the second half, each
    job running from its submission for its logged run time (computed here from the imported
    trace), to 1e-6; they differ from the trace's own schedule (from scheduled_time) only by the
    scheduling delays, under 0.001% here."""
    f, work = figures
    t = np.genfromtxt(work / "openb_trace.csv", delimiter=",", names=True, usecols=(0, 1, 2))
    lo, hi = f["mid"], f["log_end"]
    start, end = t["submit_s"], t["submit_s"] + t["duration_s"]
    expected = float((t["gpus"] * np.clip(np.minimum(end, hi) - np.maximum(start, lo), 0, None)).sum()) / 3600
    for label, run in f["runs"].items():
        replay = run["replay"]
        assert replay["gpu_hours_used"]["mean"] == pytest.approx(expected, rel=1e-6), label
        assert replay["utilization"]["mean"] == pytest.approx(run["trace_utilization"], rel=1e-3), label
        assert replay["jobs_arrived"]["mean"] == f["second_half_pods"]
        # The trace's peak never exceeds either quota: the replay never queues, while the
        # trace's pods waited (scheduling delays gpucap does not model).
        assert replay["wait_mean"]["mean"] == 0
    assert f["trace"]["wait_mean"] > 30 and f["trace"]["wait_p95"] > 100


def test_the_fitted_run_times(figures):
    f, _ = figures
    # Taking each pod's deletion as its end, the fitted run times match the second half's about
    # as well as the first half's own run times do (0.065); the importer's censoring of every
    # Running pod makes the fit's tail far too long.
    assert f["fits"]["deleted"]["ks"] < 0.10
    assert f["fits"]["imported"]["ks"] > 0.25
    assert f["fits"]["deleted"]["ks"] < f["ks_first_vs_second_logged"] + 0.03


def test_the_fitted_arrivals_and_model_runs(figures):
    f, _ = figures
    first_rate = f["arrivals"]["first_half_per_day"]
    for variant in ("imported", "deleted"):
        assert f["fits"][variant]["jobs_per_day"] == pytest.approx(first_rate, rel=0.05)
    run = f["runs"]["cluster"]
    days = f["second_half_days"]
    # The model's arrivals in the second half are its fitted rate times the span.
    arrived = run["deleted"]["jobs_arrived"]
    assert arrived["lo"] <= f["fits"]["deleted"]["jobs_per_day"] * days * 1.02
    assert arrived["hi"] >= f["fits"]["deleted"]["jobs_per_day"] * days * 0.98
    # Both fitted models produce intervals; the deletion=end fit under-predicts utilization
    # (the pods from before the window are missing from it), the as-imported one over-predicts.
    for variant in ("imported", "deleted"):
        u = run[variant]["utilization"]
        assert u["n"] == 10 and u["hi"] > u["lo"]
    assert run["deleted"]["utilization"]["hi"] < run["trace_utilization"]
    assert run["imported"]["utilization"]["lo"] > run["trace_utilization"]
