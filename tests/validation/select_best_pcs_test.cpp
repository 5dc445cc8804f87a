// Procedure KN's guarantee, measured: over many independent macro-replications of a slippage
// configuration (the best exactly delta better than every other point, the least favourable
// case for the indifference zone), the probability of correct selection must be at least
// 1 - alpha. With n macro-replications and x correct selections, the test asserts that the
// one-sided 99% Clopper-Pearson upper bound of the PCS is at least 1 - alpha, i.e.
// P(Bin(n, 1 - alpha) <= x) >= 0.01: a procedure that met its guarantee fails this 1% of the
// time at most, and the seeds are fixed. Noise: unequal variances and a common shock shared by
// every point (common random numbers).
#include <cmath>
#include <gtest/gtest.h>

#include "gpucap/select_best.hpp"

#include "support/normal_systems.hpp"

namespace {

using gpucap::SelectionOptions;
using gpucap::SelectionResult;
using gpucap::testing_support::NormalSystems;

/// P(Bin(n, p) <= x), summed in logs.
double binomial_cdf(int x, int n, double p) {
  double total = 0;
  for (int j = 0; j <= x; ++j)
    total += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) +
                      j * std::log(p) + (n - j) * std::log1p(-p));
  return total;
}

struct Measured {
  int correct = 0, runs = 0;
  double used = 0, bound = 0;  ///< mean replications used (all points) and mean bound
  double far_at_n0 = 0;        ///< share of far-off points screened out at r = n0
};

/// `runs` macro-replications of a k-point configuration: point 0 best by exactly delta over
/// `close` points, the rest `far` deltas worse.
Measured measure(std::size_t k, std::size_t close, double far, bool maximize, double alpha,
                 int runs) {
  Measured m;
  const double delta = 1.0;
  for (int run = 0; run < runs; ++run) {
    NormalSystems sys;
    sys.seed = 1000003ULL * static_cast<uint64_t>(run) + k;
    sys.common_sd = 3.0;
    for (std::size_t i = 0; i < k; ++i) {
      const double gap = i == 0 ? 0.0 : i <= close ? delta : far * delta;
      sys.means.push_back(maximize ? -gap : gap);
      sys.sds.push_back(1.0 + 0.25 * static_cast<double>(i % 5));  // unequal: 1 to 2
    }
    SelectionOptions o;
    o.delta = delta;
    o.alpha = alpha;
    o.initial = 20;
    o.maximize = maximize;
    const SelectionResult s = gpucap::select_best(k, sys.sampler(), o);
    EXPECT_TRUE(s.guaranteed);
    m.correct += s.best == 0;
    ++m.runs;
    m.used += static_cast<double>(s.used) / runs;
    m.bound += static_cast<double>(s.bound) / runs;
    for (std::size_t i = close + 1; i < k; ++i)
      m.far_at_n0 += (s.points[i].replications == o.initial) / double(runs * (k - close - 1));
  }
  return m;
}

void expect_guarantee(const Measured& m, double alpha) {
  const double pcs = static_cast<double>(m.correct) / m.runs;
  EXPECT_GE(binomial_cdf(m.correct, m.runs, 1 - alpha), 0.01)
      << "PCS " << pcs << " (" << m.correct << " of " << m.runs
      << ") below 1 - alpha = " << 1 - alpha;
  std::printf("PCS %.4f (%d of %d), mean replications used %.0f, bound %.0f\n", pcs, m.correct,
              m.runs, m.used, m.bound);
}

// Slippage, k = 5 and k = 10, minimizing and maximizing.
TEST(SelectBestPcs, SlippageFivePointsMinimizing) {
  const Measured m = measure(5, 4, 0, false, 0.05, 2000);
  expect_guarantee(m, 0.05);
}

TEST(SelectBestPcs, SlippageTenPointsMaximizing) {
  const Measured m = measure(10, 9, 0, true, 0.05, 1000);
  expect_guarantee(m, 0.05);
}

TEST(SelectBestPcs, SlippageSevenPointsAlphaTenPercent) {
  const Measured m = measure(7, 6, 0, false, 0.10, 1000);
  expect_guarantee(m, 0.10);
}

// Clearly inferior points (10 delta worse) leave at the first screening, so the race costs far
// less than running every point to the procedure's bound (the replications a procedure without
// elimination would need): here under a third of it.
TEST(SelectBestPcs, ClearlyInferiorPointsLeaveEarly) {
  const std::size_t k = 10;
  const Measured m = measure(k, 2, 10, false, 0.05, 400);
  expect_guarantee(m, 0.05);
  EXPECT_GE(m.far_at_n0, 0.99);
  EXPECT_LT(m.used, k * m.bound / 3) << "used " << m.used << ", k x bound " << k * m.bound;
}

}  // namespace
