// Validation of the trace bootstrap (`resample`): are its intervals honest?
//
// 40 job logs are drawn from an M/M/8 queue at utilization 0.7 (Poisson arrivals of 5.6 per
// hour, exponential run times of mean 1 h; 28 days each, about 3,760 jobs). Each log is replayed
// as logged (one value of the mean wait: the log's own) and resampled in blocks of one day
// (200 replications; the 95% percentile interval of their mean waits). A bootstrap interval is
// honest when it covers
//  - the log's own value: the log is the centre of what its resamples vary around; and
//  - the queue's true mean wait (Erlang C) at about the stated rate, 95%: a log is one sample
//    of 28 days, and the interval says how far its mean wait may be from the truth.
// Seeds are fixed, so the outcome is deterministic; the bands come from the binomial
// distribution of 40 coverages.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/distribution.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/scenario_fixture.hpp"
#include "support/theory_checks.hpp"

namespace gpucap {
namespace {

constexpr int kServers = 8;
constexpr double kArrivalsPerHour = 5.6, kMeanRunH = 1.0, kDays = 28;

/// A log of kDays days of Poisson arrivals with exponential run times (seed `log`).
std::string mm8_log(uint64_t log) {
  RandomStream rng = RandomStream::make(20261201, log, 0);
  std::string csv = "submit_s,gpus,duration_s\n";
  char line[96];
  for (double t = 0;;) {
    t += sample_standard_exponential(rng) * 3600.0 / kArrivalsPerHour;
    if (t >= kDays * 86400) break;
    const double run_s = sample_standard_exponential(rng) * kMeanRunH * 3600.0;
    std::snprintf(line, sizeof line, "%.17g,1,%.17g\n", t, std::max(run_s, 1e-3));
    csv += line;
  }
  return csv;
}

/// Type-7 quantile of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  const double h = (sorted.size() - 1) * q;
  const std::size_t lo = static_cast<std::size_t>(h);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

class TraceBootstrap : public testing_support::ScenarioFixture {};

TEST_F(TraceBootstrap, IntervalsOfMeanWaitCoverTheLogsValueAndTheTruthAtTheStatedRate) {
  const double erlang_c = testing_support::erlang_c(kServers, kArrivalsPerHour * kMeanRunH);
  const double true_wait_s = erlang_c / (kServers / kMeanRunH - kArrivalsPerHour) * 3600.0;
  const std::string head =
      "name: bootstrap\nhorizon: 28d\nseed: 5\npools:\n"
      "  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 8}\npolicy: {queue_capacity: 100000}\n"
      "workloads:\n  - name: w\n    placement: [p]\n"
      "    arrivals: {process: trace, file: log.csv";
  const int logs = 40;
  int covers_log = 0, covers_truth = 0;
  double width_sum = 0, own_sum = 0, own_sq = 0;
  for (int log = 0; log < logs; ++log) {
    write("log.csv", mm8_log(log));
    RunOptions once;
    once.replications = 1;
    const double own = run(parse(head + "}\n"), once).scalars[kWaitMeanS];
    RunOptions boot;
    boot.replications = 200;
    const RunResults r = run(parse(head + ", resample: {block: 1d}}\n"), boot);
    std::vector<double> waits;
    for (std::size_t i = 0; i < r.replications; ++i)
      waits.push_back(r.scalars[i * kScalarMetricCount + kWaitMeanS]);
    std::sort(waits.begin(), waits.end());
    const double lo = quantile(waits, 0.025), hi = quantile(waits, 0.975);
    covers_log += lo <= own && own <= hi;
    covers_truth += lo <= true_wait_s && true_wait_s <= hi;
    width_sum += hi - lo;
    own_sum += own;
    own_sq += own * own;
  }
  const double own_mean = own_sum / logs;
  const double own_sd = std::sqrt((own_sq - logs * own_mean * own_mean) / (logs - 1));
  std::printf("trace bootstrap: true mean wait %.1f s; logs' own mean %.1f s (sd %.1f s); "
              "interval covers the log's value %d/%d, the truth %d/%d; mean width %.1f s = "
              "%.2f x (2 x 1.96 sd of the logs' values)\n",
              true_wait_s, own_mean, own_sd, covers_log, logs, covers_truth, logs,
              width_sum / logs, width_sum / logs / (2 * 1.96 * own_sd));
  // The logs' values scatter around the truth: their mean within 3 standard errors.
  EXPECT_NEAR(own_mean, true_wait_s, 3 * own_sd / std::sqrt(logs));
  // The log's own value: a miss needs it in a 2.5% tail of its own resamples.
  EXPECT_GE(covers_log, 38);
  // The truth: Binomial(40, 0.95) is at most 32 with probability 0.3%.
  EXPECT_GE(covers_truth, 33);
  // Width: the interval is as wide as the real spread of 28-day mean waits (2 x 1.96 sd),
  // within what 40 logs can tell (the sd's relative standard error is 1/sqrt(78) = 11%).
  EXPECT_NEAR(width_sum / logs / (2 * 1.96 * own_sd), 1.0, 0.35);
}

}  // namespace
}  // namespace gpucap
