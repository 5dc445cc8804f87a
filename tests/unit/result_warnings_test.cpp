// Warnings on results that cannot be trusted as they look: every replication identical is
// found bit for bit from the rows (or from the summaries when no row is kept), says what to
// do, and reaches the CLI's table and the report; runs with any randomness get none.
#include "gpucap/result_warnings.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <string>

#include "gpucap/metrics.hpp"
#include "gpucap/results.hpp"

#include "support/cli.hpp"
#include "support/scratch_dir.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;

/// `points` x 3 replications, every metric 7 (NaN for wait_mean) but `vary` at point `where`.
RunResults results(std::size_t points, double vary, std::size_t where) {
  RunResults r;
  r.scenario_name = "s";
  r.points = points;
  r.replications = 3;
  r.scalars.assign(points * 3 * kScalarMetricCount, 7.0);
  for (std::size_t i = 0; i < points * 3; ++i)
    r.scalars[i * kScalarMetricCount + kWaitMeanS] = std::nan("");
  r.scalars[(where * 3 + 2) * kScalarMetricCount + kCostUsd] += vary;
  r.summarize_all();
  return r;
}

TEST(ResultWarnings, IdenticalReplicationsBitForBit) {
  EXPECT_TRUE(replications_identical(results(1, 0.0, 0), 0));
  EXPECT_FALSE(replications_identical(results(1, 1e-9, 0), 0));  // any difference counts
  const std::vector<std::string> w = result_warnings(results(1, 0.0, 0));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("all 3 replications gave the same values", 0), 0u);
  EXPECT_NE(w[0].find("workloads[].arrivals.resample"), std::string::npos);
  EXPECT_TRUE(result_warnings(results(1, 1.0, 0)).empty());
  // A sweep: the points where it holds are counted.
  const std::vector<std::string> sweep = result_warnings(results(3, 1.0, 1));
  ASSERT_EQ(sweep.size(), 1u);
  EXPECT_EQ(sweep[0].rfind("at 2 of 3 points, all replications gave the same values", 0), 0u);
  // One replication has no spread to speak of: no warning.
  RunResults one = results(1, 0.0, 0);
  one.replications = 1;
  one.scalars.resize(kScalarMetricCount);
  one.summarize_all();
  EXPECT_TRUE(result_warnings(one).empty());
}

TEST(ResultWarnings, FromSummariesWhenNoRowIsKept) {
  RunResults same = results(1, 0.0, 0);
  same.kept_rows = 0;
  same.scalars.clear();
  EXPECT_TRUE(replications_identical(same, 0));
  RunResults differ = results(1, 1.0, 0);
  differ.kept_rows = 0;
  differ.scalars.clear();
  EXPECT_FALSE(replications_identical(differ, 0));
}

// End to end: a trace replayed as it is on a pool with no random part gives identical
// replications; the CLI prints the warning under its table, the report shows it, and the same
// run with a random provisioning delay has none.
class ResultWarningsCli : public testing_support::ScratchDirTest {};

TEST_F(ResultWarningsCli, TheCliAndTheReportSayIt) {
  const fs::path dir = dir_;
  std::ofstream(dir / "trace.csv") << "submit_s,gpus,duration_s\n0,1,3600\n100,2,7200\n";
  const std::string scenario =
      "name: fixed\nhorizon: 2d\nseed: 1\n"
      "pools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
      "workloads:\n  - name: jobs\n    placement: [p]\n"
      "    arrivals: {process: trace, file: trace.csv, submit_column: submit_s, gpus_column: gpus,"
      " duration_column: duration_s}\n";
  std::ofstream(dir / "fixed.yaml") << scenario;
  const auto fixed = testing_support::gpucap_cli("run " + (dir / "fixed.yaml").string() +
                                                 " -r 4 -o " + (dir / "fixed.h5").string());
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_NE(fixed.output.find("warning: all 4 replications gave the same values"),
            std::string::npos)
      << fixed.output;
  const auto report = testing_support::gpucap_cli("report " + (dir / "fixed.h5").string() + " -o " +
                                                  (dir / "fixed.html").string());
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string html = testing_support::read_all(dir / "fixed.html");
  EXPECT_NE(html.find("<p class=\"warning\"><strong>Warning:</strong> all 4 replications"),
            std::string::npos);
  std::ofstream(dir / "random.yaml") << std::string(scenario).replace(
      scenario.find("quota: 8}"), 9,
      "quota: 8, provisioning_delay: {dist: exponential, mean: 2min}}");
  const auto random =
      testing_support::gpucap_cli("run " + (dir / "random.yaml").string() + " -r 4");
  ASSERT_EQ(random.exit_code, 0) << random.output;
  EXPECT_EQ(random.output.find("warning:"), std::string::npos) << random.output;
}

}  // namespace
}  // namespace gpucap

namespace gpucap {
namespace {

/// One point, `reps` replications, one pool, `bins` bins of 1 h whose GPUs in use follow
/// `level(bin)` plus a replication's small offset; `warmup` in the scenario's text.
RunResults with_series(std::size_t bins, const std::function<double(std::size_t)>& level,
                       const std::string& warmup) {
  RunResults r;
  r.scenario_name = "s";
  r.scenario_text = "name: s\nhorizon: " + std::to_string(bins) + "h\nwarmup: " + warmup + "\n";
  r.points = 1;
  r.replications = 4;
  r.pool_names = {"p"};
  r.scalars.assign(4 * kScalarMetricCount, 0.0);
  for (std::size_t k = 0; k < 4; ++k) r.scalars[k * kScalarMetricCount + kCostUsd] = 1.0 + k;
  r.pool_values.assign(4 * kPoolMetricCount, 0.0);
  r.timeseries_step_s = 3600;
  r.timeseries_bins = bins;
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t b = 0; b < bins; ++b)
      r.timeseries.push_back(level(b) + 0.01 * static_cast<double>((b * 7 + k * 3) % 5));
  r.summarize_all();
  return r;
}

// MSER-5 finds where a ramp ends: GPUs in use rise over the first 30 h of 200 h, then hold; the
// truncation lands within a batch (5 h) of 30 h. It warns past the warm-up (or with none), not
// when the warm-up covers it, not on a flat series, and says "do not settle" for a trend.
TEST(ResultWarnings, AStartUpTransientPastTheWarmUp) {
  const auto ramp = [](std::size_t b) {
    return b < 30 ? 10.0 * static_cast<double>(b) / 30 : 10.0;
  };
  const RunResults none = with_series(200, ramp, "0s");
  const double end = transient_end_s(none, 0);
  EXPECT_GE(end, 25 * 3600.0);
  EXPECT_LE(end, 35 * 3600.0);
  const std::vector<std::string> w = result_warnings(none);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("settle only after about"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("past the start (no warm-up)"), std::string::npos) << w[0];
  EXPECT_TRUE(result_warnings(with_series(200, ramp, "40h")).empty());
  EXPECT_TRUE(result_warnings(with_series(
                                  200, [](std::size_t) { return 10.0; }, "0s"))
                  .empty());
  const std::vector<std::string> trend = result_warnings(with_series(
      200, [](std::size_t b) { return 0.1 * static_cast<double>(b); }, "0s"));
  ASSERT_EQ(trend.size(), 1u);
  EXPECT_NE(trend[0].find("do not settle within the first half of the horizon"), std::string::npos);
  // No series, or too short a one: nothing to say.
  EXPECT_LT(transient_end_s(with_series(40, ramp, "0s"), 0), 0.0);
}

}  // namespace
}  // namespace gpucap

#include <atomic>
#include <unistd.h>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/settling_probe.hpp"

namespace gpucap {
namespace {

/// An M/M/16 queue at load 0.9 (14.4 jobs an hour of 1 h on 16 GPUs) that starts empty.
const char* kMm16 =
    "name: M/M/16 at load 0.9, starting empty\n"
    "horizon: 100h\nseed: 3\n"
    "pools:\n  gpus: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2, quota: 16}\n"
    "workloads:\n  - name: jobs\n    gpus: 1\n"
    "    arrivals: {process: poisson, rate_per_hour: 14.4}\n"
    "    work: {dist: exponential, mean: 1h}\n";

// Without a time series of its own, a run simulates its first 32 replications again with one
// (settling_probe.hpp). The probe's series is exactly the mean of those replications' series in
// a run that records them at the probe's step: the same futures.
TEST(SettlingProbe, IsTheMeanOfTheRunsOwnFirstReplications) {
  const Scenario plain = parse_scenario(kMm16, "mm16.yaml", ".");
  RunOptions options;
  options.replications = 3200;  // one in 100 probed: 32
  options.backend = BackendChoice::cpu;
  const RunResults r = run(plain, options);
  ASSERT_EQ(r.settling.replications, kSettlingReplications);
  ASSERT_EQ(r.settling.bins, kSettlingBins);
  EXPECT_EQ(r.settling.step_s, 100 * 3600.0 / kSettlingBins);
  const Scenario recorded = parse_scenario(std::string(kMm16) + "timeseries: {step: " +
                                               std::to_string(100 * 3600 / kSettlingBins) + "s}\n",
                                           "mm16.yaml", ".");
  const RunResults t = run(recorded, options);
  ASSERT_EQ(t.timeseries_bins, kSettlingBins);
  EXPECT_EQ(t.settling.bins, 0u);  // its own series is used
  for (std::size_t b = 0; b < kSettlingBins; ++b) {
    double mean = 0;
    for (std::size_t k = 0; k < kSettlingReplications; ++k)
      mean += t.timeseries[k * kSettlingBins + b] / static_cast<double>(kSettlingReplications);
    ASSERT_EQ(r.settling.mean_in_use[b], mean) << "bin " << b;
  }
  // The probe changes no result of the run (bit for bit, NaN included).
  ASSERT_EQ(r.scalars.size(), t.scalars.size());
  EXPECT_EQ(std::memcmp(r.scalars.data(), t.scalars.data(), r.scalars.size() * sizeof(double)), 0);
  // A results file keeps it (/settling), and a file with a time series does not have one.
  const fs::path file =
      fs::path(testing::TempDir()) / ("settling_" + std::to_string(::getpid()) + ".h5");
  write_results_hdf5(r, file.string());
  const RunResults back = read_results_hdf5(file.string());
  EXPECT_EQ(back.settling.replications, r.settling.replications);
  EXPECT_EQ(back.settling.step_s, r.settling.step_s);
  EXPECT_EQ(back.settling.bins, r.settling.bins);
  EXPECT_EQ(back.settling.mean_in_use, r.settling.mean_in_use);
  EXPECT_EQ(result_warnings(back), result_warnings(r));
  write_results_hdf5(t, file.string());
  EXPECT_EQ(read_results_hdf5(file.string()).settling.bins, 0u);
  fs::remove(file);
  // One in 100 of the run's (the probe's cost under 2% of the run's), none below 100.
  options.replications = 250;
  EXPECT_EQ(run(plain, options).settling.replications, 2u);
  options.replications = 99;
  EXPECT_EQ(run(plain, options).settling.bins, 0u);
  EXPECT_EQ(settling_probe_replications(99), 0u);
  EXPECT_EQ(settling_probe_replications(100), 1u);
  EXPECT_EQ(settling_probe_replications(1000000), kSettlingReplications);
}

// The M/M/16 warns that it settles only after about 14 h (no warm-up; over 100 h its start-up
// deficit moves the mean GPUs in use by over 1%), and not with a warm-up of 30 h. A trace
// replayed asks about a given period: no probe.
TEST_F(ResultWarningsCli, AStartUpTransientWithoutATimeSeries) {
  const fs::path dir = dir_;
  std::ofstream(dir / "mm16.yaml") << kMm16;
  const auto cold = testing_support::gpucap_cli("run " + (dir / "mm16.yaml").string() + " -r 3200");
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_NE(cold.output.find("warning: the GPUs in use settle only after about 13.75 h, past the "
                             "start (no warm-up) (MSER-5 on the GPUs in use of the first 32 "
                             "replications, simulated again)"),
            std::string::npos)
      << cold.output;
  const auto warm = testing_support::gpucap_cli("run " + (dir / "mm16.yaml").string() +
                                                " -r 3200 --set warmup=30h");
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_EQ(warm.output.find("warning:"), std::string::npos) << warm.output;
  std::ofstream(dir / "trace.csv") << "submit_s,gpus,duration_s\n0,1,3600\n100,2,7200\n";
  const Scenario replay = parse_scenario(
      "name: replay\nhorizon: 2d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
      "workloads:\n  - name: jobs\n    arrivals: {process: trace, file: trace.csv}\n",
      "replay.yaml", dir.string());
  RunOptions options;
  options.replications = 4;
  options.backend = BackendChoice::cpu;
  EXPECT_EQ(run(replay, options).settling.bins, 0u);
}

// At load 0.9 the M/M/16 that starts empty fills its 16 GPUs in minutes, but its queue takes a
// day to reach its level: over 60 h with a warm-up of 1 h its wait_mean is 16% below Erlang C's
// 1,330.5 s. The waits' transient is seen at every seed: by the probe's series of jobs waiting,
// or by queue_length_drift (the second half of the window against the first, over every
// replication; about 1.4 jobs here, over 4 standard errors). A steady M/M/8 says nothing.
TEST_F(ResultWarningsCli, TheQueuesTransientIsSeenAtEverySeed) {
  std::ofstream(dir_ / "mm16.yaml")
      << "name: M/M/16 at load 0.9 from empty\nhorizon: 60h\nwarmup: 1h\nseed: 3\n"
         "pools:\n  gpus: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 16}\n"
         "workloads:\n  - name: jobs\n    gpus: 1\n"
         "    arrivals: {process: poisson, rate_per_hour: 14.4}\n"
         "    work: {dist: exponential, mean: 1h}\npolicy: {queue_capacity: 100000}\n";
  for (int seed : {1, 8, 10, 3}) {
    const auto o = testing_support::gpucap_cli("run " + (dir_ / "mm16.yaml").string() +
                                               " -r 2000 --seed " + std::to_string(seed));
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_TRUE(o.output.find("warning: the jobs waiting (and so the waits) settle only after") !=
                    std::string::npos ||
                o.output.find("warning: the jobs waiting (and so the waits) do not settle") !=
                    std::string::npos ||
                o.output.find("warning: the queue still grows over the window") !=
                    std::string::npos)
        << "seed " << seed << "\n" << o.output;
  }
  const auto steady = testing_support::gpucap_cli(
      "run " + std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml -r 400");
  ASSERT_EQ(steady.exit_code, 0) << steady.output;
  EXPECT_EQ(steady.output.find("warning:"), std::string::npos) << steady.output;
}

// queue_length_drift by hand: one GPU, a job from 0 to 10 h, another arriving at 6 h that waits
// until 10 h; window [0, 12 h], its middle 6 h: 4 job-hours waiting, all in the second half, so
// the drift is 4 / 6 - 0 = 0.667 jobs, and queue_length_mean 4 / 12.
TEST_F(ResultWarningsCli, QueueLengthDriftByHand) {
  std::ofstream(dir_ / "t.csv") << "submit_s,gpus,duration_s\n0,1,36000\n21600,1,3600\n";
  const Scenario s = parse_scenario(
      "name: drift\nhorizon: 12h\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 1}\n"
      "workloads:\n  - name: jobs\n    arrivals: {process: trace, file: t.csv}\n",
      "drift.yaml", dir_.string());
  RunOptions options;
  options.replications = 2;
  const RunResults r = run(s, options);
  EXPECT_NEAR(r.scalar(0, 0, kQueueLengthDrift), 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(r.scalar(0, 0, kQueueLengthMean), 4.0 / 12.0, 1e-12);
}

// The probe's series of jobs waiting is the run's own: over the horizon (no warm-up) its mean is
// the mean queue_length_mean of the replications it simulated again; results files keep it.
TEST(SettlingProbe, RecordsTheJobsWaiting) {
  const Scenario plain = parse_scenario(kMm16, "mm16.yaml", ".");
  RunOptions options;
  options.replications = 3200;
  options.backend = BackendChoice::cpu;
  const RunResults r = run(plain, options);
  ASSERT_EQ(r.settling.mean_waiting.size(), kSettlingBins);
  double series = 0, metric = 0;
  for (double v : r.settling.mean_waiting) series += v / kSettlingBins;
  for (std::size_t k = 0; k < kSettlingReplications; ++k)
    metric += r.scalar(0, k, kQueueLengthMean) / kSettlingReplications;
  EXPECT_NEAR(series, metric, 1e-9 * metric);
  EXPECT_GT(metric, 0.5);
  const fs::path file =
      fs::path(testing::TempDir()) / ("waiting_" + std::to_string(::getpid()) + ".h5");
  write_results_hdf5(r, file.string());
  EXPECT_EQ(read_results_hdf5(file.string()).settling.mean_waiting, r.settling.mean_waiting);
  fs::remove(file);
}

// A cancel (Ctrl-C in the CLI, CancelToken in Python) stops the probe as it stops the run's own
// replications: within milliseconds (it went on for 5 to 10 s), with RunCancelled and no series.
TEST(SettlingProbe, ACancelStopsIt) {
  const Scenario plain = parse_scenario(kMm16, "mm16.yaml", ".");
  RunOptions options;
  options.replications = 800;  // 8 probed
  options.backend = BackendChoice::cpu;
  options.settling_probe = false;
  RunResults r = run(plain, options);
  std::atomic<bool> cancel{true};
  EXPECT_THROW(add_settling_probe(r, {plain}, &cancel), RunCancelled);
  EXPECT_EQ(r.settling.bins, 0u);
  cancel = false;
  add_settling_probe(r, {plain}, &cancel);
  EXPECT_EQ(r.settling.replications, 8u);
}

// Each sweep point's own warm-up decides whether its transient outlasts it: a sweep of warmup
// = 30h, 40h on the M/M/16 (which settles at about 14 h) warns at neither point, though the base
// has no warm-up (it read the base's and warned "past the start").
TEST_F(ResultWarningsCli, EachSweepPointsOwnWarmUp) {
  std::ofstream(dir_ / "mm16.yaml") << kMm16;
  const auto swept = testing_support::gpucap_cli("sweep " + (dir_ / "mm16.yaml").string() +
                                                 " -r 3200 -g warmup=30h,40h");
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_EQ(swept.output.find("warning:"), std::string::npos) << swept.output;
  const auto mixed = testing_support::gpucap_cli("sweep " + (dir_ / "mm16.yaml").string() +
                                                 " -r 3200 -g warmup=0s,40h");
  ASSERT_EQ(mixed.exit_code, 0) << mixed.output;
  EXPECT_NE(mixed.output.find("warning: the GPUs in use settle only after about 13.75 h (point 0), "
                              "past the start (no warm-up)"),
            std::string::npos)
      << mixed.output;
}

}  // namespace
}  // namespace gpucap
