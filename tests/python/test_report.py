"""Results.report: the HTML report from Python, the same page as `gpucap report`, and the page
rendered by a real browser (headless Chromium, skipped visibly where it is not installed)."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import gpucap

# The histograms' bar colour (svg_chart.cpp's first palette entry, #4c72b0).
BAR_RGB = (0x4C, 0x72, 0xB0)


@pytest.fixture(scope="module")
def sweep_results():
    from conftest import MMC

    scenario = gpucap.Scenario.from_yaml(MMC).with_overrides({"timeseries.step": "10h"})
    return gpucap.sweep(scenario, {"pools.gpus.quota": [4, 5, 6]}, replications=40, progress=False)


def test_report_text_and_file_are_the_same_page(sweep_results, tmp_path):
    page = sweep_results.report()
    assert page.startswith("<!DOCTYPE html>")
    assert "gpucap report: python test M/M/4" in page
    best = int(np.argmin(sweep_results["cost"].mean(axis=1)))  # the lowest mean cost
    assert f"<strong>Chosen point: {best}</strong> (pools.gpus.quota={4 + best})" in page
    assert "frontier: cost vs wait_p95" in page
    assert "Utilization over time" in page
    assert "http" not in page and "<script" not in page
    out = tmp_path / "report.html"
    assert sweep_results.report(out) is None
    assert out.read_text(encoding="utf-8") == page
    other = sweep_results.report(objective="wait_mean", versus="cost")
    assert "<strong>Chosen point: 2</strong>" in other  # most GPUs, least waiting


def test_report_refuses_unknown_metrics_and_links(sweep_results, tmp_path):
    with pytest.raises(ValueError, match="--objective: unknown metric 'price'"):
        sweep_results.report(objective="price")
    target = tmp_path / "target.txt"
    target.write_text("keep")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    with pytest.raises(gpucap.OutputError):
        sweep_results.report(link)
    assert target.read_text() == "keep"
    sweep_results.report(link, force=True)
    assert not link.is_symlink() and target.read_text() == "keep"


def test_report_of_a_loaded_file_matches_the_cli(sweep_results, tmp_path, cli):
    sweep_results.save(tmp_path / "r.h5")
    subprocess.run([str(cli), "report", str(tmp_path / "r.h5"), "-o", str(tmp_path / "cli.html")],
                   check=True, capture_output=True)
    from_file = gpucap.load_results(tmp_path / "r.h5").report()
    cli_page = (tmp_path / "cli.html").read_text(encoding="utf-8")
    # The CLI also names the results file it read; the rest is the same page.
    assert cli_page.replace(f"<tr><th class=\"text\">results file</th><td class=\"text\">{tmp_path / 'r.h5'}"
                            "</td></tr>\n", "") == from_file


def test_report_renders_in_headless_chromium(sweep_results, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it): the page was not "
                    "rendered in a browser")
    image_module = pytest.importorskip("PIL.Image")
    page = tmp_path / "report.html"
    sweep_results.report(page)
    shot = tmp_path / "shot.png"
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
         "--window-size=1280,4000", page.as_uri()],
        check=True, capture_output=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    with image_module.open(shot) as image:
        assert image.format == "PNG"
        assert image.size == (1280, 4000)
        pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    bars = int((np.abs(pixels - np.array(BAR_RGB)).max(axis=2) <= 3).sum())
    inked = int((pixels != 255).any(axis=2).sum())
    total = pixels.shape[0] * pixels.shape[1]
    # Six histograms of about 300 x 180 px of plot area each: their bars alone cover tens of
    # thousands of pixels, which only happens when the inline SVG was drawn.
    assert bars > 20000, f"{bars} pixels of the bar colour: the SVG figures did not render"
    assert inked > total // 20, f"only {inked} of {total} pixels are not white"


def test_report_answers_the_question_asked_as_a_browser_shows_it(sweep_results, tmp_path):
    # A bound on the mean wait that the cheapest point (fewest GPUs) misses: the page chooses
    # what cheapest() chooses, marks the points that miss it, and recommends nothing when no
    # point meets it; Chromium's DOM shows the same text.
    waits = sweep_results["wait_mean"].mean(axis=1)
    bound = float((waits[0] + waits[1]) / 2)
    best = sweep_results.cheapest("cost", constraints={"wait_mean": bound}).point
    assert best != 0
    page = tmp_path / "question.html"
    sweep_results.report(page, constraints={"wait_mean": bound})
    text = page.read_text(encoding="utf-8")
    assert f"<strong>Chosen point: {best}</strong>" in text
    assert "among the points that meet mean wait_mean" in text
    assert "<th class=\"text\">meets the constraints</th>" in text
    assert "<tr><td>0</td>" in text and "(chosen)" not in text.split("<tr><td>0</td>")[1].split("</tr>")[0]
    nothing = sweep_results.report(constraints={"wait_mean": 1e-9})
    assert "<strong>No point meets the constraints</strong>" in nothing and "Chosen point" not in nothing
    with pytest.raises(ValueError, match="on_time"):
        sweep_results.report(chance={"on_time": 0.9})
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it): the page was not "
                    "rendered in a browser")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'p'}",
         "--dump-dom", page.as_uri()],
        check=True, capture_output=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)},
    ).stdout.decode("utf-8")
    assert f"Chosen point: {best}" in dom and "meets the constraints" in dom
