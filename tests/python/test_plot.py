"""gpucap.plot draws what it says (matplotlib, Agg backend)."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import gpucap  # noqa: E402
import gpucap.plot  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_frontier_marks_the_pareto_points(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5, 6]}, replications=60, progress=False)
    ax = gpucap.plot.frontier(r, x="wait_mean", y="cost", annotate=True)
    # wait_mean is about half an hour to a few hours: drawn in min or h, not s.
    unit, seconds = gpucap.plot.duration_unit(r.summary(["wait_mean"])["ci95_high"])
    assert unit in ("min", "h") and ax.get_xlabel() == f"wait_mean [{unit}]"
    assert np.allclose(ax.containers[0].lines[0].get_xdata(), r.summary(["wait_mean"])["mean"] / seconds)
    assert ax.get_ylabel() == "cost [USD]"
    assert len(ax.texts) == 3  # one label per point, where they do not overlap
    front = gpucap.plot.pareto_points(np.array([1.0, 2.0, 3.0, 2.5]), np.array([3.0, 2.0, 1.0, 2.5]))
    assert list(front) == [0, 1, 2]


def test_duration_units_follow_the_range():
    assert gpucap.plot.duration_unit([30.0, 90.0]) == ("s", 1.0)
    assert gpucap.plot.duration_unit([100.0, 600.0]) == ("min", 60.0)
    assert gpucap.plot.duration_unit([3600.0, 8 * 3600.0]) == ("h", 3600.0)
    assert gpucap.plot.duration_unit([80_000.0, 250_000.0]) == ("d", 86400.0)
    assert gpucap.plot.duration_unit([np.nan, 7200.0]) == ("h", 3600.0)


def _boxes(ax):
    renderer = ax.figure.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in ax.texts]


def test_frontier_labels_never_overlap(mmc):
    # Nine points, several of them close together: the labels must still not overlap.
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5, 6], "policy.queue_capacity": [1000, 1001, 1002]},
                     replications=8, progress=False)
    for annotate in (True, "frontier"):
        ax = gpucap.plot.frontier(r, x="wait_mean", y="cost", annotate=annotate, chosen=0)
        ax.figure.canvas.draw()
        boxes = _boxes(ax)
        assert len(boxes) >= 1
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                assert not boxes[i].overlaps(boxes[j]), (ax.texts[i].get_text(), ax.texts[j].get_text())
    # "frontier" labels only the frontier and the chosen point.
    ax = gpucap.plot.frontier(r, x="wait_mean", y="cost", chosen=0)
    mx = r.summary(["wait_mean"])["mean"].to_numpy()
    my = r.summary(["cost"])["mean"].to_numpy()
    allowed = {gpucap.plot._label(r, p) for p in set(gpucap.plot.pareto_points(mx, my)) | {0}}
    assert {t.get_text() for t in ax.texts} <= allowed
    assert "chosen point" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_distribution_and_sweep_metric(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5]}, replications=60, progress=False)
    ax = gpucap.plot.distribution(r, "cost")
    assert ax.get_ylabel() == "replications"
    assert len(ax.lines) == 2  # the two means
    ax = gpucap.plot.sweep_metric(r, "wait_mean")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4", "5"]
    assert len(ax.containers) == 1 and ax.get_legend() is None


def test_sweep_metric_draws_one_line_per_value_of_the_other_parameter(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5, 6], "warmup": ["5h", "10h"]}, replications=8,
                     progress=False)
    ax = gpucap.plot.sweep_metric(r, "completion_mean", parameter="pools.gpus.quota")
    lines = [c.lines[0] for c in ax.containers]  # each errorbar's data line
    assert len(lines) == 2  # warmup 5h and 10h, no zig-zag between them
    for line in lines:
        assert list(line.get_xdata()) == [4.0, 5.0, 6.0]  # each along the quota, in order
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["warmup=5h", "warmup=10h"]
    unit, seconds = gpucap.plot.duration_unit(r.summary(["completion_mean"])["ci95_high"])
    assert unit in ("min", "h") and ax.get_ylabel() == f"completion_mean [{unit}]"  # not s
    means = r.summary(["completion_mean"])["mean"].to_numpy()
    assert np.allclose(lines[0].get_ydata(), means[[0, 2, 4]] / seconds)
    # Against the other parameter: one line per quota, text values in grid order.
    ax = gpucap.plot.sweep_metric(r, "cost", parameter="warmup")
    assert len(ax.containers) == 3
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5h", "10h"]
    with pytest.raises(ValueError, match="not a swept parameter"):
        gpucap.plot.sweep_metric(r, "cost", parameter="horizon")


def test_utilization_over_time_needs_and_draws_a_time_series(mmc):
    with pytest.raises(ValueError, match="no time series"):
        gpucap.plot.utilization(gpucap.run(mmc, replications=4, progress=False))
    r = gpucap.run(mmc.with_overrides({"timeseries.step": "10h"}), replications=40, progress=False)
    ax = gpucap.plot.utilization(r, quotas={"gpus": 4})  # the pools with a quota
    assert ax.get_xlabel() == "time [d]"  # 300 h: longer than four days
    line = ax.lines[0]
    assert len(line.get_xdata()) == 30  # 300 h in 10 h bins
    assert np.allclose(line.get_xdata(), (np.arange(30) + 0.5) * 10 / 24)
    assert np.allclose(line.get_ydata(), r.timeseries[0, :, 0, :].mean(axis=0) / 4)
    with pytest.raises(ValueError, match="no pool 'spot'; the pools are gpus"):
        gpucap.plot.utilization(r, quotas={"spot": 4})
