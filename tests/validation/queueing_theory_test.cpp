// Validation against queueing theory: the simulated figures must match closed forms.
//
// Each check asserts that the analytic value lies inside the simulated 99% confidence interval
// of the mean over replications, and that the interval is narrower than 2% of the value, so a
// check cannot pass by being vague. Seeds are fixed: the outcome is deterministic.
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/run_scenario.hpp"
#include "support/theory_checks.hpp"

#if GPUCAP_HAVE_EIGEN
#include <Eigen/Dense>
#endif

namespace {

using gpucap::testing_support::simulate_shipped;

using gpucap::testing_support::erlang_b;
using gpucap::testing_support::erlang_c;
using gpucap::testing_support::expect_matches;

struct MmcCase {
  double rho;
  uint64_t replications;
  const char* horizon;
};

class MmcErlangC : public testing::TestWithParam<MmcCase> {};

TEST_P(MmcErlangC, MeanWaitAndWaitProbabilityMatchErlangC) {
  const MmcCase p = GetParam();
  const int c = 8;
  const double mu_per_h = 1.0, lambda_per_h = p.rho * c * mu_per_h;
  const gpucap::RunResults r =
      simulate_shipped("mmc_validation.yaml",
                       {"workloads.jobs.arrivals.rate_per_hour=" + std::to_string(lambda_per_h),
                        std::string("horizon=") + p.horizon, "warmup=200h"},
                       p.replications);
  const double pw = erlang_c(c, lambda_per_h / mu_per_h);
  const double wq_s = pw / (c * mu_per_h - lambda_per_h) * 3600.0;
  const std::string tag = "M/M/8 rho=" + std::to_string(p.rho).substr(0, 4);
  expect_matches(r, gpucap::kWaitProbability, pw, tag + " P(wait)");
  expect_matches(r, gpucap::kWaitMeanS, wq_s, tag + " mean wait [s]");
  // Little's law on the queue: Lq = lambda Wq.
  expect_matches(r, gpucap::kQueueLengthMean, lambda_per_h * wq_s / 3600.0, tag + " Lq [jobs]");
}

INSTANTIATE_TEST_SUITE_P(Utilizations, MmcErlangC,
                         testing::Values(MmcCase{0.5, 400, "20000h"}, MmcCase{0.8, 240, "20000h"},
                                         MmcCase{0.95, 1100, "20000h"}),
                         [](const testing::TestParamInfo<MmcCase>& info) {
                           return "rho_" + std::to_string(static_cast<int>(info.param.rho * 100));
                         });

/// 20 job classes (more than the engine keeps in arrival slots, so their arrivals go through the
/// heap) of Poisson rate 0.32/h each: their superposition is Poisson at 6.4/h, an M/M/8 at 0.8.
TEST(MmcManyClasses, SuperposedPoissonClassesMatchErlangC) {
  std::string yaml =
      "name: M/M/8 from 20 classes\nhorizon: 20000h\nwarmup: 200h\nseed: 17\n"
      "pools:\n  gpus: {gpu: A100, price_usd_per_gpu_hour: 2, quota: 8}\n"
      "policy: {queue_capacity: 100000}\nworkloads:\n";
  for (int k = 0; k < 20; ++k)
    yaml += "  - {name: c" + std::to_string(k) +
            ", arrivals: {process: poisson, rate_per_hour: 0.32}, work: {dist: exponential, "
            "mean: 1h}}\n";
  gpucap::RunOptions options;
  options.replications = 240;
  const gpucap::RunResults r =
      gpucap::run(gpucap::parse_scenario(yaml, "many_classes.yaml", "."), options);
  const double pw = erlang_c(8, 6.4);
  expect_matches(r, gpucap::kWaitProbability, pw, "M/M/8 from 20 classes P(wait)");
  expect_matches(r, gpucap::kWaitMeanS, pw / (8 - 6.4) * 3600.0, "M/M/8 from 20 classes Wq [s]");
}

TEST(ErlangB, DropFractionOfLossSystemMatchesErlangB) {
  const gpucap::RunResults r = simulate_shipped("erlang_b_validation.yaml", {}, 200);
  expect_matches(r, gpucap::kDropFraction, erlang_b(8, 6.4), "M/M/8/8 blocking");
}

TEST(PollaczekKhinchine, MD1MeanWait) {
  const gpucap::RunResults r =
      simulate_shipped("mg1_validation.yaml", {"workloads.jobs.work=1h"}, 400);
  const double rho = 0.7, service_s = 3600;
  expect_matches(r, gpucap::kWaitMeanS, rho * service_s / (2 * (1 - rho)), "M/D/1 mean wait [s]");
  expect_matches(r, gpucap::kWaitProbability, rho, "M/D/1 P(wait) = rho");
}

TEST(PollaczekKhinchine, MG1LognormalMeanWait) {
  const gpucap::RunResults r = simulate_shipped("mg1_validation.yaml", {}, 400);
  const double rho = 0.7, service_s = 3600, cv = 0.5;
  expect_matches(r, gpucap::kWaitMeanS, rho * service_s * (1 + cv * cv) / (2 * (1 - rho)),
                 "M/G/1 lognormal mean wait [s]");
  expect_matches(r, gpucap::kWaitProbability, rho, "M/G/1 P(wait) = rho");
}

#if GPUCAP_HAVE_EIGEN
/// M/M/c/K: birth-death chain solved numerically with Eigen; K - c waiting places.
TEST(MmcK, DropFractionAndQueueLengthMatchTheCtmcSolution) {
  const int c = 4, waiting_room = 6, k = c + waiting_room;
  const double lambda_per_h = 3.6, mu_per_h = 1.0;
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(k + 1, k + 1);  // generator
  for (int n = 0; n <= k; ++n) {
    if (n < k) q(n, n + 1) = lambda_per_h;
    if (n > 0) q(n, n - 1) = std::min(n, c) * mu_per_h;
    q(n, n) = -q.row(n).sum();
  }
  // pi Q = 0 with sum(pi) = 1: replace one balance equation by the normalization.
  Eigen::MatrixXd a = q.transpose();
  a.row(k).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(k + 1);
  b(k) = 1;
  const Eigen::VectorXd pi = a.colPivHouseholderQr().solve(b);
  double lq = 0;
  for (int n = c + 1; n <= k; ++n) lq += (n - c) * pi(n);

  const gpucap::RunResults r = simulate_shipped(
      "mmc_validation.yaml",
      {"pools.gpus.quota=4", "policy.queue_capacity=" + std::to_string(waiting_room),
       "workloads.jobs.arrivals.rate_per_hour=3.6", "horizon=20000h", "warmup=100h"},
      200);
  expect_matches(r, gpucap::kDropFraction, pi(k), "M/M/4/10 drop fraction (CTMC)");
  expect_matches(r, gpucap::kQueueLengthMean, lq, "M/M/4/10 Lq [jobs] (CTMC)");
}
#endif

}  // namespace
