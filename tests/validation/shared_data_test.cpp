// Real data from ../shared/data (not part of the repository): skipped cleanly when absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
      "    work: {dist: empirical, file: " + kPhilly + ", column: runtime}\n";
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

}  // namespace
