// Procedure KN (select_best.hpp): a hand-worked race, exact eliminations, ties, the cap, batch
// independence, the replications it asks for, and the option checks.
#include "gpucap/select_best.hpp"

#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <vector>

#include "support/normal_systems.hpp"

namespace {

using gpucap::SelectionOptions;
using gpucap::SelectionResult;
using gpucap::SelectionSampler;
using gpucap::SelectionStatus;
using gpucap::testing_support::NormalSystems;

/// A sampler over a table of values per point, replications past the table repeating its
/// last value.
SelectionSampler table_sampler(const std::vector<std::vector<double>>& table) {
  return [table](const std::vector<std::size_t>& points, uint64_t first, uint64_t count) {
    std::vector<double> out;
    for (std::size_t p : points)
      for (uint64_t r = first; r < first + count; ++r)
        out.push_back(table[p][std::min<std::size_t>(r, table[p].size() - 1)]);
    return out;
  };
}

// k = 2, alpha = 0.05, n0 = 3: eta = ((2 0.05 / 1)^(-2/2) - 1) / 2 = 4.5, h2 = 2 4.5 2 = 18.
// Minimizing with delta = 1. Stage 0: x0 = 1, 0, -1 and x1 = 1, 1, 1; the differences
// x1 - x0 = 0, 1, 2 have S2 = 1. Later x0 = 0 and x1 = 1, so sum(x1) - sum(x0) = r and
// r W(r) = max(0, h2 S2 / (2 delta) - delta r / 2) = max(0, 9 - r / 2): point 1 leaves at the
// first r with r > 9 - r / 2, r = 7.
TEST(SelectBest, HandWorkedRace) {
  SelectionOptions o;
  o.delta = 1;
  o.alpha = 0.05;
  o.initial = 3;
  const SelectionResult s = gpucap::select_best(2, table_sampler({{1, 0, -1, 0}, {1, 1, 1, 1}}), o);
  EXPECT_DOUBLE_EQ(s.eta, 4.5);
  EXPECT_DOUBLE_EQ(s.h2, 18.0);
  EXPECT_EQ(s.bound, 18u);  // ceil(h2 S2 / delta^2)
  EXPECT_EQ(s.best, 0u);
  EXPECT_TRUE(s.guaranteed);
  EXPECT_EQ(s.replications, 7u);
  EXPECT_EQ(s.points[0].status, SelectionStatus::best);
  EXPECT_EQ(s.points[1].status, SelectionStatus::eliminated);
  EXPECT_EQ(s.points[1].replications, 7u);
  EXPECT_EQ(s.points[1].eliminated_by, 0u);
  EXPECT_DOUBLE_EQ(s.points[1].mean, 1.0);
  EXPECT_DOUBLE_EQ(s.points[0].mean, 0.0);  // (1 + 0 - 1 + 0 + 0 + 0 + 0) / 7
  EXPECT_EQ(s.used, 14u);
  // Maximizing turns the race around: point 1 is the best, point 0 leaves at the same r.
  o.maximize = true;
  const SelectionResult m = gpucap::select_best(2, table_sampler({{1, 0, -1, 0}, {1, 1, 1, 1}}), o);
  EXPECT_EQ(m.best, 1u);
  EXPECT_EQ(m.points[0].eliminated_by, 1u);
  EXPECT_EQ(m.points[0].replications, 7u);
}

// Constant differences (S2 = 0) give W = 0: every worse point leaves at r = n0.
TEST(SelectBest, ConstantDifferencesEndAtTheFirstScreening) {
  NormalSystems base{{0}, {1}, 0, 3};
  std::vector<std::vector<double>> table(3);
  const double offset[3] = {10, 12, 10.5};
  for (int i = 0; i < 3; ++i)
    for (uint64_t r = 0; r < 30; ++r) table[i].push_back(offset[i] + base.value(0, r));
  SelectionOptions o;
  o.delta = 1;
  o.initial = 20;
  const SelectionResult s = gpucap::select_best(3, table_sampler(table), o);
  EXPECT_EQ(s.best, 0u);
  EXPECT_EQ(s.replications, 20u);
  EXPECT_EQ(s.points[1].replications, 20u);
  EXPECT_EQ(s.points[2].replications, 20u);
  EXPECT_EQ(s.points[1].eliminated_by, 0u);
  EXPECT_EQ(s.points[2].eliminated_by, 0u);
  EXPECT_EQ(s.simulated, 60u);
}

// Points identical in every replication cannot be separated: the race stops, the first in grid
// order is named, the other is "tied" with it.
TEST(SelectBest, IdenticalPointsAreTied) {
  const NormalSystems sys{{0, 0, 5}, {1, 1, 1}, 0, 11};
  const SelectionSampler identical = [&sys](const std::vector<std::size_t>& points, uint64_t first,
                                            uint64_t count) {
    std::vector<double> out;
    for (std::size_t p : points)
      for (uint64_t r = first; r < first + count; ++r) out.push_back(sys.value(p == 1 ? 0 : p, r));
    return out;
  };
  SelectionOptions o;
  o.delta = 0.5;
  const SelectionResult s = gpucap::select_best(3, identical, o);
  EXPECT_TRUE(s.guaranteed);
  EXPECT_EQ(s.best, 0u);
  EXPECT_EQ(s.points[1].status, SelectionStatus::tied);
  EXPECT_EQ(s.points[1].eliminated_by, 0u);
  EXPECT_EQ(s.points[2].status, SelectionStatus::eliminated);
}

// Two points closer than delta with a tiny delta run into the cap: no guarantee, the best mean
// is named and the other is still in the race.
TEST(SelectBest, CapStopsWithoutGuarantee) {
  const NormalSystems sys{{0, 0.001}, {1, 1}, 0, 5};
  SelectionOptions o;
  o.delta = 0.01;
  o.max_replications = 60;
  const SelectionResult s = gpucap::select_best(2, sys.sampler(), o);
  EXPECT_FALSE(s.guaranteed);
  EXPECT_EQ(s.replications, 60u);
  const std::size_t other = 1 - s.best;
  EXPECT_EQ(s.points[s.best].status, SelectionStatus::best);
  EXPECT_EQ(s.points[other].status, SelectionStatus::at_cap);
  EXPECT_LE(s.points[s.best].mean, s.points[other].mean);
  EXPECT_EQ(s.points[0].replications, 60u);
  EXPECT_EQ(s.simulated, 120u);
}

// The outcome and the replications used do not depend on the batch sizes; only `simulated`
// does. The sampler is asked for each point's replications in order, without gaps or repeats.
TEST(SelectBest, BatchSizesChangeNothingButTheSimulatedCount) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    NormalSystems sys;
    sys.seed = seed;
    sys.common_sd = 2;
    for (int i = 0; i < 7; ++i) {
      sys.means.push_back(i == 0 ? 0.0 : 0.4 + 0.3 * i);
      sys.sds.push_back(1.0 + 0.3 * i);
    }
    SelectionOptions o;
    o.delta = 0.5;
    o.initial = 10;
    const auto run = [&](uint64_t first, uint64_t max) {
      SelectionOptions b = o;
      b.batch_first = first;
      b.batch_max = max;
      std::map<std::size_t, uint64_t> next;  // the next replication each point is asked for
      const SelectionSampler inner = sys.sampler();
      const SelectionSampler checked = [&](const std::vector<std::size_t>& points, uint64_t from,
                                           uint64_t count) {
        for (std::size_t p : points) {
          EXPECT_EQ(next[p], from) << "point " << p;
          next[p] = from + count;
        }
        return inner(points, from, count);
      };
      return gpucap::select_best(sys.means.size(), checked, b);
    };
    const SelectionResult one = run(1, 1), wide = run(64, 64), automatic = run(0, 1024);
    for (const SelectionResult* other : {&wide, &automatic}) {
      EXPECT_EQ(one.best, other->best) << "seed " << seed;
      EXPECT_EQ(one.replications, other->replications) << "seed " << seed;
      EXPECT_EQ(one.used, other->used) << "seed " << seed;
      for (std::size_t i = 0; i < one.points.size(); ++i) {
        EXPECT_EQ(one.points[i].status, other->points[i].status);
        EXPECT_EQ(one.points[i].replications, other->points[i].replications);
        EXPECT_EQ(one.points[i].eliminated_by, other->points[i].eliminated_by);
        EXPECT_EQ(one.points[i].mean, other->points[i].mean);  // same bits
        EXPECT_EQ(one.points[i].ci95_high, other->points[i].ci95_high);
        EXPECT_GE(other->points[i].simulated, other->points[i].replications);
      }
    }
    EXPECT_EQ(one.simulated, one.used);  // batch 1 never simulates past an elimination
  }
}

TEST(SelectBest, OptionsOutOfRangeAreRefusedWithWhatIsValid) {
  const NormalSystems sys{{0, 1, 2}, {1, 1, 1}, 0, 1};
  const auto message = [&](std::size_t k, SelectionOptions o) -> std::string {
    try {
      gpucap::select_best(k, sys.sampler(), o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  SelectionOptions ok;
  ok.delta = 1;
  SelectionOptions o = ok;
  o.delta = 0;
  EXPECT_NE(message(3, o).find("delta"), std::string::npos);
  o = ok;
  o.delta = std::nan("");
  EXPECT_NE(message(3, o).find("finite number above 0"), std::string::npos);
  o = ok;
  o.alpha = 0.7;  // 1 - 1/3 = 0.667
  EXPECT_NE(message(3, o).find("below 1 - 1/k = 0.666667"), std::string::npos);
  o = ok;
  o.alpha = 0;
  EXPECT_NE(message(3, o).find("alpha"), std::string::npos);
  o = ok;
  o.initial = 1;
  EXPECT_NE(message(3, o).find("at least 2"), std::string::npos);
  o = ok;
  o.max_replications = 5;
  EXPECT_NE(message(3, o).find("max_replications must be from initial (20)"), std::string::npos);
  EXPECT_NE(message(1, ok).find("at least 2 points"), std::string::npos);
  // A value that is not finite names the point and the replication.
  const SelectionSampler nan_at_3 = [](const std::vector<std::size_t>& points, uint64_t first,
                                       uint64_t count) {
    std::vector<double> out;
    for (std::size_t p : points)
      for (uint64_t r = first; r < first + count; ++r)
        out.push_back(p == 1 && r == 3 ? std::nan("") : static_cast<double>(p));
    return out;
  };
  try {
    gpucap::select_best(2, nan_at_3, ok);
    ADD_FAILURE() << "no error";
  } catch (const std::domain_error& e) {
    EXPECT_NE(std::string(e.what()).find("point 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("replication 3"), std::string::npos) << e.what();
  }
}

}  // namespace
