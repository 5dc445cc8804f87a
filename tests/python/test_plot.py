"""gpucap.plot draws what it says (matplotlib, Agg backend)."""

import matplotlib
import numpy as np

matplotlib.use("Agg")

import gpucap  # noqa: E402
import gpucap.plot  # noqa: E402


def test_frontier_marks_the_pareto_points(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5, 6]}, replications=60, progress=False)
    ax = gpucap.plot.frontier(r, x="wait_mean", y="cost")
    assert ax.get_xlabel() == "wait_mean [s]"
    assert ax.get_ylabel() == "cost [USD]"
    assert len(ax.texts) == 3  # one label per point
    front = gpucap.plot.pareto_points(np.array([1.0, 2.0, 3.0, 2.5]), np.array([3.0, 2.0, 1.0, 2.5]))
    assert list(front) == [0, 1, 2]


def test_distribution_and_sweep_metric(mmc):
    r = gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5]}, replications=60, progress=False)
    ax = gpucap.plot.distribution(r, "cost")
    assert ax.get_ylabel() == "replications"
    assert len(ax.lines) == 2  # the two means
    ax = gpucap.plot.sweep_metric(r, "wait_mean")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4", "5"]


def test_utilization_over_time_needs_and_draws_a_time_series(mmc):
    import pytest

    with pytest.raises(ValueError, match="no time series"):
        gpucap.plot.utilization(gpucap.run(mmc, replications=4, progress=False))
    r = gpucap.run(mmc.with_overrides({"timeseries.step": "10h"}), replications=40, progress=False)
    ax = gpucap.plot.utilization(r, quotas={"gpus": 4})
    assert ax.get_xlabel() == "time [h]"
    line = ax.lines[0]
    assert len(line.get_xdata()) == 30  # 300 h in 10 h bins
    assert np.allclose(line.get_ydata(), r.timeseries[0, :, 0, :].mean(axis=0) / 4)
