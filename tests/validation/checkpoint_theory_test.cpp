// Validation of checkpoint/restart under exponential preemptions (docs/validation.md).
//
// A job of W seconds of computing checkpoints every tau seconds (C to write, none after the last
// piece), and after each preemption restores for R before resuming from its last checkpoint.
// Instances are reclaimed at rate lambda, during restoring too. A segment of s seconds (tau + C,
// or the remainder for the last) that starts right after a checkpoint takes, in expectation,
//   E_s = e^(lambda R) (e^(lambda s) - 1) / lambda,
// so E[T] = sum of E_s over the segments.
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/run_scenario.hpp"

namespace {

const std::string kScenario =
    std::string(GPUCAP_SOURCE_DIR) + "/scenarios/checkpoint_validation.yaml";
constexpr double kLambdaPerS = 1.0 / (5 * 3600.0);
constexpr double kWriteS = 360, kRestartS = 600, kWorkS = 36000;

/// Expected completion time (s) for checkpoint interval tau (s).
double expected_completion_s(double tau_s) {
  const double segments = std::ceil(kWorkS / tau_s);
  const double last_s = kWorkS - (segments - 1) * tau_s;
  const double scale = std::exp(kLambdaPerS * kRestartS) / kLambdaPerS;
  return scale * ((segments - 1) * std::expm1(kLambdaPerS * (tau_s + kWriteS)) +
                  std::expm1(kLambdaPerS * last_s));
}

gpucap::RunResults simulate(double tau_s, uint64_t replications) {
  return gpucap::testing_support::run_scenario(
      kScenario, {"workloads.training.checkpoint.interval=" + std::to_string(tau_s)}, replications);
}

TEST(CheckpointTheory, MeanCompletionTimeMatchesTheClosedForm) {
  const gpucap::RunResults r = simulate(3600, 12000);
  const gpucap::MetricSummary& s = r.summary_of(0, gpucap::kCompletionMeanS);
  const double analytic = expected_completion_s(3600);
  const double half = gpucap::ci_half_width(s, 0.99);
  std::printf(
      "  checkpointed job: E[T] analytic %.1f s, simulated %.1f +- %.1f s (99%%), error "
      "%+.3f%%, CI width %.3f%%\n",
      analytic, s.mean, half, 100 * (s.mean - analytic) / analytic, 100 * 2 * half / analytic);
  EXPECT_NEAR(s.mean, analytic, half);
  EXPECT_LT(2 * half, 0.02 * analytic);
  // Accounting: the GPUs are held exactly for the completion time (restarts are immediate), and
  // the held time splits into saved work W plus checkpointing, restoring and lost time.
  for (size_t i = 0; i < r.replications; ++i) {
    const double held_gpu_h = r.scalar(0, i, gpucap::kCompletionMeanS) * 8 / 3600.0;
    EXPECT_NEAR(r.scalar(0, i, gpucap::kGpuHoursUsed), held_gpu_h, 1e-9 * held_gpu_h);
    const double parts = kWorkS * 8 / 3600.0 + r.scalar(0, i, gpucap::kGpuHoursCheckpointing) +
                         r.scalar(0, i, gpucap::kGpuHoursRestarting) +
                         r.scalar(0, i, gpucap::kGpuHoursLost);
    EXPECT_NEAR(parts, held_gpu_h, 1e-9 * held_gpu_h) << "replication " << i;
  }
}

/// Cost is proportional to the time the GPUs are held, so the cheapest interval of a sweep must
/// sit where theory puts the optimum: near Young's sqrt(2 C / lambda) and Daly's refinement.
TEST(CheckpointTheory, CheapestIntervalOfASweepIsNearYoungAndDaly) {
  const double young_s = std::sqrt(2 * kWriteS / kLambdaPerS);
  const double m = 1 / kLambdaPerS;
  const double daly_s =
      std::sqrt(2 * kWriteS * m) * (1 + std::sqrt(kWriteS / (2 * m)) / 3 + kWriteS / (18 * m)) -
      kWriteS;
  const std::vector<double> grid_min = {15, 20, 30, 40, 50, 60, 75, 90, 120, 150, 180};
  double best_tau = 0, best_cost = 1e300, best_analytic_tau = 0, best_analytic = 1e300;
  for (double minutes : grid_min) {
    const double tau = minutes * 60;
    const double cost = simulate(tau, 6000).summary_of(0, gpucap::kCostUsd).mean;
    const double analytic = expected_completion_s(tau);
    std::printf("  tau %5.0f min: mean cost %.2f USD, analytic E[T] %.0f s\n", minutes, cost,
                analytic);
    if (cost < best_cost) best_cost = cost, best_tau = tau;
    if (analytic < best_analytic) best_analytic = analytic, best_analytic_tau = tau;
  }
  std::printf(
      "  cheapest simulated tau %.0f min; analytic %.0f min; Young %.1f min; Daly %.1f "
      "min\n",
      best_tau / 60, best_analytic_tau / 60, young_s / 60, daly_s / 60);
  EXPECT_NEAR(best_tau, young_s, 0.25 * young_s);
  EXPECT_NEAR(best_tau, daly_s, 0.25 * daly_s);
  EXPECT_NEAR(best_tau, best_analytic_tau, 15 * 60.0);  // within a grid step of the exact optimum
}

}  // namespace
