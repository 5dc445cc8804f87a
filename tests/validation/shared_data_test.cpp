// Real data from ../shared/data (not part of the repository): skipped cleanly when absent.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>

#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

const std::string kPhilly =
    std::string(GPUCAP_SOURCE_DIR) + "/../shared/data/workload/philly_job_runtime_seconds.csv";

/// The empirical run-time distribution of Microsoft's Philly cluster (83,154 jobs), used in an
/// M/G/infinity system (quota far above demand, so no job waits). Little's law: the time-average
/// number of running jobs is lambda times the mean run time of the file, whatever its shape.
TEST(PhillyTrace, EmpiricalRunTimesGiveLittlesLawInAnInfiniteServerPool) {
  if (!std::filesystem::exists(kPhilly)) GTEST_SKIP() << "absent: " << kPhilly;
  // The file's mean, computed here independently of the loader.
  std::ifstream in(kPhilly);
  std::string line;
  std::getline(in, line);
  double sum = 0, n = 0;
  while (std::getline(in, line))
    if (!line.empty()) {
      sum += std::stod(line);
      n += 1;
    }
  ASSERT_EQ(n, 83154);
  const double mean_s = sum / n;

  const double rate_per_s = 0.001;
  const std::string yaml =
      "name: philly M/G/inf\nhorizon: 400d\nwarmup: 60d\n"  // warm-up beyond the longest job (54 d)
      "pools:\n  big: {gpu: V100, price_usd_per_gpu_hour: 1, quota: 2000}\n"
      "workloads:\n  - name: philly\n    arrivals: {process: poisson, rate_per_s: 0.001}\n"
      "    work: {dist: empirical, file: " +
      kPhilly + ", column: runtime}\n";
  const gpucap::Scenario s = gpucap::parse_scenario(yaml, "philly.yaml", ".");
  EXPECT_NEAR(s.workloads[0].work_s.mean(), mean_s, 1e-9 * mean_s);
  gpucap::RunOptions options;
  options.replications = 64;
  const gpucap::RunResults r = gpucap::run(s, options);
  EXPECT_EQ(r.summary_of(0, gpucap::kWaitMeanS).mean, 0.0);
  const gpucap::MetricSummary& running = r.summary_of(0, gpucap::kJobsRunningMean);
  const double half = gpucap::ci_half_width(running, 0.99);
  const double analytic = rate_per_s * mean_s;
  std::printf("  Philly M/G/inf: L analytic %.4f simulated %.4f +- %.4f (99%%), error %+.3f%%\n",
              analytic, running.mean, half, 100 * (running.mean - analytic) / analytic);
  EXPECT_NEAR(running.mean, analytic, half);
  EXPECT_LT(2 * half, 0.05 * analytic);
}

const std::string kSpotTrace =
    std::string(GPUCAP_SOURCE_DIR) +
    "/../shared/data/spot/aws-2023-02-15_us-west-2b_v100_1node_availability.json";

/// A V100 spot instance whose availability follows a real 45-day trace (SkyPilot's spot-traces),
/// kept busy by a long queue: it works exactly when it is available. With the trace's start
/// drawn uniformly per replication, the expected utilization is the trace's mean availability.
TEST(SpotAvailabilityTrace, UtilizationEqualsTheTracesMeanAvailability) {
  if (!std::filesystem::exists(kSpotTrace)) GTEST_SKIP() << "absent: " << kSpotTrace;
  // The trace's mean, computed here without the loader: count the 0s and 1s of "data".
  std::ifstream in(kSpotTrace);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string data = text.substr(text.find("\"data\""));
  double ones = 0, zeros = 0;
  for (char ch : data.substr(data.find('['))) {
    if (ch == '1') ones += 1;
    if (ch == '0') zeros += 1;
  }
  const double mean_available = ones / (ones + zeros);

  const std::string yaml =
      "name: spot trace\nhorizon: 7d\n"
      "pools:\n  spot-v100:\n    gpu: V100\n    purchase: spot\n"
      "    price_usd_per_gpu_hour: 0.92\n    quota: 1\n"
      "    availability: {file: " +
      kSpotTrace +
      ", start: random}\n"
      "workloads:\n  - name: jobs\n    arrivals: {process: poisson, rate_per_hour: 12}\n"
      "    work: {dist: exponential, mean: 20min}\n"
      "    checkpoint: {interval: 5min, write: 10s, restart: 1min}\n"
      "policy: {queue_capacity: 1000000}\n";
  gpucap::RunOptions options;
  options.replications = 400;
  const gpucap::RunResults r =
      gpucap::run(gpucap::parse_scenario(yaml, "spot_trace.yaml", "."), options);
  const gpucap::MetricSummary& u = r.summary_of(0, gpucap::kUtilization);
  const double half = gpucap::ci_half_width(u, 0.99);
  std::printf(
      "  spot trace: mean availability %.4f, simulated utilization %.4f +- %.4f (99%%), "
      "error %+.2f%%; %.1f preemptions per replication\n",
      mean_available, u.mean, half, 100 * (u.mean - mean_available) / mean_available,
      r.summary_of(0, gpucap::kPreemptions).mean);
  EXPECT_NEAR(u.mean, mean_available, half);
  EXPECT_LT(2 * half, 0.15 * mean_available);
  EXPECT_GT(r.summary_of(0, gpucap::kPreemptions).mean, 1.0);
}

}  // namespace
