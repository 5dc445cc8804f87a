"""Cancelling runs: a CancelToken from another thread, gpucap.cancel_runs, and the interpreter's
exit with a run in a daemon thread or after Ctrl-C (gpucap/cancel.py)."""

import os
import signal
import subprocess
import sys
import threading

import pytest

import gpucap

# About 10^9 replications of a 20000 h horizon: hours on any machine, unless cancelled.
LONG = {"replications": 10**9, "rows": "none", "progress": False}


def long_scenario(mmc):
    return mmc.with_overrides({"horizon": "20000h"})


def run_in_thread(target, daemon=False):
    """Starts `target` in a thread; returns the thread and a dict that gets its outcome."""
    outcome = {}

    def body():
        try:
            outcome["value"] = target()
        except BaseException as e:  # noqa: B036 - the test inspects whatever was raised
            outcome["error"] = e

    thread = threading.Thread(target=body, daemon=daemon)
    thread.start()
    return thread, outcome


def wait_until_running(count=1):
    """Waits (up to a minute) until `count` runs are in progress."""
    done = threading.Event()
    for _ in range(6000):
        if gpucap.runs_in_progress() >= count:
            return
        done.wait(0.01)
    raise AssertionError("the run did not start")


def test_a_token_cancels_a_run_in_another_thread_which_raises_and_writes_nothing(mmc, tmp_path):
    token = gpucap.CancelToken()
    out = tmp_path / "never.h5"

    def work():
        gpucap.run(long_scenario(mmc), cancel=token, **LONG).save(out)

    thread, outcome = run_in_thread(work)
    wait_until_running()
    assert not token.cancelled
    token.cancel()
    thread.join(timeout=60)  # the run stops at its next replication: milliseconds
    assert not thread.is_alive()
    assert isinstance(outcome["error"], gpucap.RunCancelled)
    assert isinstance(outcome["error"], gpucap.RunError)  # a RuntimeError
    assert "the run was cancelled by its CancelToken after" in str(outcome["error"])
    assert list(tmp_path.iterdir()) == []
    assert gpucap.runs_in_progress() == 0
    assert repr(token) == "CancelToken(cancelled=True)"
    # The engine is usable afterwards; a cancelled token stops runs before they start.
    assert gpucap.run(mmc, replications=4, progress=False).replications == 4
    with pytest.raises(gpucap.RunCancelled, match="not started: its CancelToken was cancelled already"):
        gpucap.run(mmc, replications=4, progress=False, cancel=token)


def test_a_token_cancels_sweeps_selections_and_robust_plans(mmc):
    scenario = long_scenario(mmc)
    grid = {"pools.gpus.quota": [4, 5]}
    calls = [
        lambda token: gpucap.sweep(scenario, grid, cancel=token, **LONG),
        lambda token: gpucap.select_best(scenario, grid, delta=1e-9, initial=2,
                                         max_replications=10**9, cancel=token),
        lambda token: gpucap.robust_plan(scenario, grid, {"base": {}}, replications=10**5,
                                         progress=False, cancel=token),
    ]
    for call in calls:
        token = gpucap.CancelToken()
        thread, outcome = run_in_thread(lambda: call(token))
        wait_until_running()
        token.cancel()
        thread.join(timeout=60)
        assert not thread.is_alive()
        assert isinstance(outcome.get("error"), gpucap.RunCancelled), outcome


def test_cancel_runs_cancels_every_run_in_progress(mmc):
    threads = [run_in_thread(lambda: gpucap.run(long_scenario(mmc), threads=1, **LONG))
               for _ in range(2)]
    wait_until_running(2)
    assert gpucap.cancel_runs() == 2
    for thread, outcome in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
        assert "cancelled by gpucap.cancel_runs() after" in str(outcome["error"])
    assert gpucap.cancel_runs() == 0


def test_cancel_must_be_a_token(mmc):
    with pytest.raises(TypeError, match=r"run: cancel must be a gpucap.CancelToken or None, got True"):
        gpucap.run(mmc, replications=2, progress=False, cancel=True)


EXIT_SCRIPT = """
import os, sys, threading
sys.path.insert(0, {tests!r})
import gpucap
from conftest import MMC

mode = sys.argv[1]
scenario = gpucap.Scenario.from_yaml(MMC).with_overrides({{"horizon": "20000h"}})

def work():
    try:
        gpucap.run(scenario, replications=10**9, rows="none", progress=False)
        print("the run finished", flush=True)
    except gpucap.RunCancelled as e:
        print(f"thread: {{e}}", flush=True)

thread = threading.Thread(target=work, daemon=mode == "daemon")
thread.start()
while gpucap.runs_in_progress() == 0:
    threading.Event().wait(0.01)
if mode == "interrupt":
    raise KeyboardInterrupt  # what Ctrl-C raises in the main thread
print("main thread done", flush=True)
"""


@pytest.mark.parametrize("mode, code, said", [
    # A daemon thread's run is cancelled at exit (the interpreter would stop the thread inside
    # the engine); Python does not wait for the thread.
    ("daemon", 0, "main thread done"),
    # Ctrl-C in the main thread while a run is in another: the run is cancelled at exit.
    # (Python ends itself with SIGINT after an uncaught KeyboardInterrupt.)
    ("interrupt", -signal.SIGINT, "thread: the run was cancelled by the interpreter's exit after"),
])
def test_the_interpreters_exit_cancels_runs_instead_of_waiting_hours(tmp_path, mode, code, said):
    script = tmp_path / "exit.py"
    script.write_text(EXIT_SCRIPT.format(tests=os.path.dirname(__file__)))
    done = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == code, done.stderr
    assert said in done.stdout
    assert "the run finished" not in done.stdout
    assert "terminate" not in done.stderr and "Fatal" not in done.stderr

