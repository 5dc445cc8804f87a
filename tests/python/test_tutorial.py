"""docs/tutorial.md runs as written: its ```sh blocks, in order, in one shell, in a folder with
the project's data/, with `gpucap` the CLI under test; its answers are the ones the page gives."""

import os
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


def test_the_tutorial_runs_and_gives_its_answers(cli, tmp_path):
    text = (ROOT / "docs" / "tutorial.md").read_text()
    script = "\n".join(m.group(1) for m in FENCE.finditer(text))
    assert script.count("gpucap ") >= 8
    (tmp_path / "data").symlink_to(ROOT / "data")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gpucap").symlink_to(cli)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    # The import names the origin the fit is given, and the fit sees the trend.
    assert "--origin 2025-03-07T17:12:21+08:00" in out
    assert "never started (pending, or no start time)" in out
    assert "the arrival rate rises 34.1% a week" in out
    # The service: 3 replicas (point 2) is the cheapest that meets the goal.
    assert "cheapest feasible point: 2, cost 357.84 USD" in out
    # The fitted fleet reproduces its log: the log's value inside the model's 95% of futures.
    assert re.search(r"\ninstance_hours_demanded +instance-h +95460 .*  agree\n", out), out
    assert re.search(r"\ninstances_peak +instances +300 .*  agree\n", out), out
    assert "does not reproduce" not in out
    # The fleet: undecided at 100 replications, decided at 700: commit 300 (point 3).
    assert "about 688 replications per point would decide them" in out
    assert out.count("cheapest feasible point: 3, cost") == 2
    assert "every constraint is decided by its 95% interval" in out
    # The backtest: the plan's regret against the look-back recommender's, over 6 origins.
    assert "mean regret over 6 origins: 6.8% (gpucap's plan), 23.5% (the look-back recommender)" in out
    assert "<svg" in (tmp_path / "fleet_backtest.html").read_text(encoding="utf-8")
    for page in ("service_report.html", "fleet_report.html"):
        html = (tmp_path / page).read_text(encoding="utf-8")
        assert "the lowest mean cost among the points that meet P(" in html
    assert "Chosen point: 3</strong> (commitments.plan.gpus=300)" in (tmp_path / "fleet_report.html").read_text()
