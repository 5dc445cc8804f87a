// Sweeps: grid parsing, the cartesian product, loading the points, common random numbers across
// points, and the CLI's sweep command.
#include "gpucap/sweep.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;

const char* kMmc = R"(
name: sweep test
horizon: 400h
warmup: 20h
replications: 300
seed: 9
pools:
  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 4}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 3.0}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 1000}
)";

TEST(Sweep, GridAxisSplitsOnTopLevelCommasOnly) {
  const gpucap::SweepAxis a = gpucap::parse_grid_axis("pools.gpus.quota=4,5,8");
  EXPECT_EQ(a.path, "pools.gpus.quota");
  EXPECT_EQ(a.values, (std::vector<std::string>{"4", "5", "8"}));
  const gpucap::SweepAxis b = gpucap::parse_grid_axis("workloads.0.placement=[a,b],[b,a],'x,y'");
  EXPECT_EQ(b.values, (std::vector<std::string>{"[a,b]", "[b,a]", "'x,y'"}));
  EXPECT_THROW(gpucap::parse_grid_axis("pools.gpus.quota"), gpucap::ScenarioError);
  EXPECT_THROW(gpucap::parse_grid_axis("pools.gpus.quota=4,,5"), gpucap::ScenarioError);
  EXPECT_THROW(gpucap::parse_grid_axis("x=[1,2"), gpucap::ScenarioError);
}

TEST(Sweep, GridIsTheCartesianProductFirstAxisSlowest) {
  const auto grid = gpucap::expand_grid({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(gpucap::grid_points(grid), 6u);
  EXPECT_EQ(grid[0].values, (std::vector<std::string>{"1", "1", "1", "2", "2", "2"}));
  EXPECT_EQ(grid[1].values, (std::vector<std::string>{"x", "y", "z", "x", "y", "z"}));
  EXPECT_EQ(gpucap::grid_points(gpucap::expand_grid({})), 1u);
}

TEST(Sweep, GridErrorsNameTheGridAsTheCallerCallsIt) {
  const auto message = [](const std::vector<gpucap::SweepAxis>& axes, const std::string& name) {
    try {
      name.empty() ? gpucap::expand_grid(axes) : gpucap::expand_grid(axes, name);
    } catch (const gpucap::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message({{"a", {}}}, ""), "--grid entry 'a' has no values");
  EXPECT_EQ(message({{"a", {}}}, "sweep: the grid"), "sweep: the grid entry 'a' has no values");
  EXPECT_EQ(message({{"a", {"1"}}, {"a", {"2"}}}, ""),
            "--grid names 'a' twice; give each path once, with all its values");
  const gpucap::SweepAxis thousand{"a", std::vector<std::string>(1000, "1")};
  const gpucap::SweepAxis two_hundred{"b", std::vector<std::string>(200, "2")};
  EXPECT_EQ(message({thousand, two_hundred}, ""),
            "--grid has 200000 points, more than the 100000 a sweep may have; sweep fewer values "
            "at once");
  // A product past what a size_t counts is still refused, not wrapped around.
  const gpucap::SweepAxis big{"c", std::vector<std::string>(1u << 16, "3")};
  EXPECT_EQ(
      message({big, {"d", big.values}, {"e", big.values}, {"f", big.values}, {"g", {"1", "2"}}},
              "sweep: the grid")
          .rfind("sweep: the grid has over 18446744073709551615 points, more than the 100000", 0),
      0u);
  EXPECT_EQ(gpucap::grid_points(gpucap::expand_grid({thousand, {"b", {"x", "y"}}}, "g")), 2000u);
}

TEST(Sweep, PointsAreTheScenarioWithTheirValues) {
  const auto grid = gpucap::expand_grid({{"pools.gpus.quota", {"4", "6"}}});
  const auto points = gpucap::load_sweep_points(kMmc, "sweep-test", ".", {"horizon=300h"}, grid);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].pools[0].quota_gpus, 4u);
  EXPECT_EQ(points[1].pools[0].quota_gpus, 6u);
  EXPECT_DOUBLE_EQ(points[1].horizon_s, 300 * 3600.0);
  try {
    gpucap::load_sweep_points(kMmc, "sweep-test", ".", {},
                              gpucap::expand_grid({{"pools.gpus.quota", {"4", "-1", "0", "8"}}}));
    FAIL() << "a negative quota must be rejected";
  } catch (const gpucap::ScenarioError& e) {
    // Every invalid point is listed, with its values.
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("2 of 4 sweep points are invalid (--skip-invalid runs the others):\n"
                            "  sweep point 1 (pools.gpus.quota = -1): sweep-test: (from --set "
                            "pools.gpus.quota=-1): pools.gpus.quota: must be",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find("\n  sweep point 2 (pools.gpus.quota = 0): "), std::string::npos)
        << message;
  }
}

TEST(Sweep, SkippingInvalidPointsKeepsTheValidOnesAndTheirValues) {
  const auto grid =
      gpucap::expand_grid({{"pools.gpus.quota", {"4", "-1", "8"}}, {"horizon", {"100h", "0s"}}});
  const gpucap::SweepPoints checked =
      gpucap::check_sweep_points(kMmc, "sweep-test", ".", {}, grid, {}, true);
  ASSERT_EQ(checked.points.size(), 2u);  // (4, 100h) and (8, 100h)
  EXPECT_EQ(checked.valid_indices, (std::vector<std::size_t>{0, 4}));
  EXPECT_EQ(checked.grid[0].values, (std::vector<std::string>{"4", "8"}));
  EXPECT_EQ(checked.grid[1].values, (std::vector<std::string>{"100h", "100h"}));
  EXPECT_EQ(checked.invalid.size(), 4u);
  EXPECT_EQ(checked.points[1].pools[0].quota_gpus, 8u);
  // When no point is valid there is nothing to run.
  EXPECT_THROW(
      gpucap::check_sweep_points(kMmc, "sweep-test", ".", {},
                                 gpucap::expand_grid({{"horizon", {"0s", "-1h"}}}), {}, true),
      gpucap::ScenarioError);
}

TEST(Sweep, PointsShareTheirRandomNumbers) {
  // Points 0 and 2 are the same scenario: common random numbers make their rows identical.
  const auto grid = gpucap::expand_grid({{"pools.gpus.quota", {"4", "5", "4"}}});
  const auto points = gpucap::load_sweep_points(kMmc, "sweep-test", ".", {}, grid);
  gpucap::RunOptions options;
  options.backend = gpucap::BackendChoice::cpu;
  const gpucap::RunResults r = gpucap::run_points(points, grid, points[0], options);
  ASSERT_EQ(r.points, 3u);
  ASSERT_EQ(r.replications, 300u);
  for (std::size_t i = 0; i < r.replications; ++i) {
    EXPECT_EQ(r.scalar(0, i, gpucap::kWaitMeanS), r.scalar(2, i, gpucap::kWaitMeanS));
    // The same arrivals and sizes: every point sees the same jobs.
    EXPECT_EQ(r.scalar(0, i, gpucap::kJobsArrived), r.scalar(1, i, gpucap::kJobsArrived));
  }
  // A fifth GPU shortens waits in every replication; the paired interval is narrower than
  // either point's own.
  const gpucap::MetricSummary d = gpucap::paired_difference(r, gpucap::kWaitMeanS, 1, 0);
  EXPECT_LT(d.ci95_high, 0.0);
  const double paired = d.ci95_high - d.ci95_low;
  const gpucap::MetricSummary& own = r.summary_of(0, gpucap::kWaitMeanS);
  EXPECT_LT(paired, own.ci95_high - own.ci95_low);
  // The point alone, run by itself, gives the same bits as inside the sweep.
  const gpucap::RunResults alone = gpucap::run(points[1], options);
  for (std::size_t i = 0; i < r.replications; ++i)
    EXPECT_EQ(alone.scalar(0, i, gpucap::kCostUsd), r.scalar(1, i, gpucap::kCostUsd));
}

TEST(Sweep, SeedAndReplicationsAreNotSweepParameters) {
  const auto grid = gpucap::expand_grid({{"seed", {"1", "2"}}});
  const auto points = gpucap::load_sweep_points(kMmc, "sweep-test", ".", {}, grid);
  try {
    gpucap::run_points(points, grid, points[0], gpucap::RunOptions{});
    FAIL() << "sweeping the seed must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a sweep cannot vary 'seed'"), std::string::npos);
  }
  // Points that differ in seed through other overrides are refused too.
  EXPECT_THROW(gpucap::run_points(points, {}, points[0], gpucap::RunOptions{}),
               std::invalid_argument);
}

TEST(Sweep, PointsMustKeepTheirPools) {
  const auto grid =
      gpucap::expand_grid({{"pools.more", {"{gpu: H100, price_usd_per_gpu_hour: 1.0, quota: 2}"}}});
  const auto extra = gpucap::load_sweep_points(kMmc, "sweep-test", ".", {}, grid);
  const auto plain = gpucap::load_sweep_points(kMmc, "sweep-test", ".", {}, {});
  EXPECT_THROW(gpucap::run_points({plain[0], extra[0]}, {}, plain[0], gpucap::RunOptions{}),
               std::invalid_argument);
}

using Outcome = gpucap::testing_support::CliOutcome;
using gpucap::testing_support::gpucap_cli;

TEST(Sweep, CliWritesEveryPointAndAPairedTable) {
  const fs::path out = fs::path(testing::TempDir()) / ("sweep_" + std::to_string(getpid()) + ".h5");
  const std::string scenario = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml";
  const Outcome o = gpucap_cli("sweep " + scenario +
                               " --grid pools.gpus.quota=8,9 --grid horizon=100h,120h -r 20 "
                               "--set warmup=0s --backend cpu -o " +
                               out.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("4 points x 20 replications (common random numbers)"), std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("minus point 0 (95% CI)"), std::string::npos);
  const gpucap::RunResults r = gpucap::read_results_hdf5(out.string());
  EXPECT_EQ(r.points, 4u);
  ASSERT_EQ(r.sweep.size(), 2u);
  EXPECT_EQ(r.sweep[0].path, "pools.gpus.quota");
  EXPECT_EQ(r.sweep[0].values, (std::vector<std::string>{"8", "8", "9", "9"}));
  EXPECT_EQ(r.sweep[1].values, (std::vector<std::string>{"100h", "120h", "100h", "120h"}));
  fs::remove(out);

  const Outcome missing = gpucap_cli("sweep " + scenario + " -r 2");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("at least one --grid"), std::string::npos) << missing.output;
  const Outcome seed = gpucap_cli("sweep " + scenario + " --grid seed=1,2 --set warmup=0s -r 2");
  EXPECT_EQ(seed.exit_code, 2);
  EXPECT_NE(seed.output.find("a sweep cannot vary 'seed'"), std::string::npos) << seed.output;
  const Outcome bad_metric =
      gpucap_cli("sweep " + scenario + " --grid horizon=50h --set warmup=0s -r 2 --metrics cots");
  EXPECT_EQ(bad_metric.exit_code, 2);
  EXPECT_NE(bad_metric.output.find("unknown metric 'cots'"), std::string::npos)
      << bad_metric.output;
}

}  // namespace
