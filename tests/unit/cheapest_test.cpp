// The cheapest point under mean and chance constraints, on results whose values are set by hand,
// and through the CLI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpucap/cheapest.hpp"
#include "support/cli.hpp"

using namespace gpucap;

namespace {

/// Three points of 100 replications: cost means 300, 200, 100 (point p's costs are
/// 100 (3 - p) + i % 5 - 2, so the means are exact and the spread small); one goal met in
/// `met[p]` replications of point p; wait_mean 10 s everywhere.
RunResults three_points(const std::vector<uint64_t>& met, double target = -1) {
  RunResults r;
  r.points = 3;
  r.replications = 100;
  r.pool_names = {"gpus"};
  r.scalars.assign(r.points * r.replications * kScalarMetricCount, 0.0);
  r.pool_values.assign(r.points * r.replications * kPoolMetricCount, 0.0);
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < 100; ++i) {
      double* row = r.scalars.data() + (p * 100 + i) * kScalarMetricCount;
      row[kCostUsd] = 100.0 * (3 - p) + static_cast<double>(i % 5) - 2;
      row[kWaitMeanS] = 10;
      // The goal's condition reads this column: met in the first met[p] replications.
      row[kJobsLate] = i < met[p] ? 0 : 1;
    }
  GoalSpec g;
  g.name = "on_time";
  g.target = target;
  g.conditions.push_back(parse_goal_condition("jobs_late <= 0", r.pool_names));
  r.goals.push_back(g);
  r.summarize_all();
  return r;
}

CheapestQuery chance(double level, bool conservative = false) {
  CheapestQuery q;
  q.chance.push_back({0, level});
  q.conservative = conservative;
  return q;
}

}  // namespace

TEST(Cheapest, ChanceConstraintPicksTheCheapestPointLikelyEnough) {
  // P(on_time): 1.00, 0.97, 0.50. At 0.95 point 1 meets it by its estimate, but its exact interval
  // [0.9148, 0.9938] holds 0.95: chosen, and not certain.
  const RunResults r = three_points({100, 97, 50});
  CheapestAnswer a = choose_cheapest(r, chance(0.95));
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.best, 1u);
  EXPECT_FALSE(a.certain);
  EXPECT_TRUE(a.points[1].undecided);
  EXPECT_EQ(a.points[1].chance[0], ChanceVerdict::cannot_tell);
  EXPECT_EQ(a.points[2].chance[0], ChanceVerdict::fails);
  EXPECT_EQ(a.points[0].chance[0], ChanceVerdict::meets);  // [0.9638, 1]
  EXPECT_NE(a.explanation.find("the data cannot tell whether it meets every constraint"),
            std::string::npos);
  EXPECT_GT(a.replications_to_decide, 100u);
  // The count is per point: a sweep's -r (every point runs that many).
  EXPECT_NE(a.explanation.find("about " + std::to_string(a.replications_to_decide) +
                               " replications per point would decide them, if the estimates "
                               "hold (a sweep's -r " +
                               std::to_string(a.replications_to_decide) + ": every point runs "
                               "that many, " +
                               std::to_string(3 * a.replications_to_decide) + " in all)"),
            std::string::npos)
      << a.explanation;
  // The paired difference from the choice: exactly 100 USD dearer, every replication.
  EXPECT_EQ(a.points[0].minus_best.mean, 100.0);
  EXPECT_EQ(a.points[0].minus_best.std, 0.0);

  // Conservative: only point 0's interval lies above 0.95; the cheaper undecided point 1 is named.
  a = choose_cheapest(r, chance(0.95, true));
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.best, 0u);
  EXPECT_FALSE(a.certain);
  EXPECT_EQ(a.undecided_cheaper, std::vector<std::size_t>{1});
  EXPECT_NE(a.explanation.find("point 1: P(on_time) = 0.9700 [0.9148, 0.9938] around 0.95"),
            std::string::npos);

  // At 0.9 every decision is clear: point 1's interval lies above, point 2's below.
  a = choose_cheapest(r, chance(0.9));
  EXPECT_EQ(a.best, 1u);
  EXPECT_TRUE(a.certain);
  EXPECT_EQ(a.replications_to_decide, 0u);
}

TEST(Cheapest, NoFeasiblePointAndMeanConstraints) {
  const RunResults r = three_points({10, 20, 30});
  CheapestAnswer a = choose_cheapest(r, chance(0.99));
  EXPECT_FALSE(a.found);
  EXPECT_TRUE(a.undecided_cheaper.empty());  // every interval lies below 0.99
  EXPECT_EQ(a.explanation, "no point meets the constraints");

  CheapestQuery q;  // mean constraints only: cost <= 250 leaves points 1 and 2; then cheapest
  q.constraints.push_back(parse_mean_constraint("cost <= 250"));
  q.constraints.push_back(parse_mean_constraint("wait_mean < 10"));
  a = choose_cheapest(r, q);
  EXPECT_FALSE(a.found);  // wait_mean is exactly 10
  q.constraints.pop_back();
  q.constraints.push_back(parse_mean_constraint("wait_mean <= 10s"));
  a = choose_cheapest(r, q);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.best, 2u);
  EXPECT_TRUE(a.points[1].feasible);
  EXPECT_FALSE(a.points[0].feasible);
  // The mean 10 with zero spread: the interval [10, 10] holds the bound, undecided.
  EXPECT_TRUE(a.points[2].undecided);
}

TEST(Cheapest, ParsesConstraintsAndNamesWhatIsValid) {
  const RunResults r = three_points({1, 2, 3}, 0.8);
  EXPECT_EQ(parse_chance_constraint("on_time>=0.9", r).level, 0.9);
  EXPECT_EQ(parse_chance_constraint(" on_time ", r).level, 0.8);  // the target
  const auto error = [&](const std::string& text) {
    try {
      parse_chance_constraint(text, r);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("ontime>=0.9").find("no goal named 'ontime' (did you mean 'on_time'?); goals: "
                                      "on_time"),
            std::string::npos);
  EXPECT_NE(error("on_time>=1").find("between 0 and 1"), std::string::npos);
  EXPECT_NE(error("on_time>=x").find("between 0 and 1"), std::string::npos);
  EXPECT_NE(error("on_time<=0.5").find("write GOAL>=LEVEL"), std::string::npos);
  RunResults no_target = three_points({1, 2, 3});
  try {
    parse_chance_constraint("on_time", no_target);
    FAIL() << "a goal without a target needs a level";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("has no target; give the level: on_time>=0.95"),
              std::string::npos);
  }
  EXPECT_THROW(parse_mean_constraint("pools.gpus.cost <= 3"), std::invalid_argument);
  EXPECT_THROW(parse_mean_constraint("cost <= wait_mean"), std::invalid_argument);
}

// From the command line: goals of a scenario, a sweep, the chance constraint and its errors.
// A chosen point at the edge of a numeric grid (a number or a duration, 3 values or more) may
// have a better one beyond it when the objective still falls toward the edge: said, with the
// direction. Inside the grid, when the point inside is infeasible (a constraint binds at the
// edge), with two values (a comparison of options) or values that are not numbers: nothing.
TEST(Cheapest, AChoiceAtTheEdgeOfTheGridSaysABetterOneMayLieBeyond) {
  RunResults r = three_points({100, 100, 100});
  r.sweep = {{"pools.gpus.quota", {"8", "12", "16"}}};
  CheapestAnswer a = choose_cheapest(r, chance(0.5));  // point 2, the cheapest
  ASSERT_EQ(a.best, 2u);
  EXPECT_NE(a.explanation.find("the chosen point lies at the edge of the grid: pools.gpus.quota = "
                               "16 is the largest value swept and the objective still falls "
                               "toward it, so a better point may lie beyond it; extend the grid "
                               "above it to know"),
            std::string::npos)
      << a.explanation;
  const std::vector<bool> all(3, true);
  // A duration as well; but with a second parameter that varies along with it no point differs
  // from point 2 in one parameter alone: nothing to compare.
  r.sweep = {{"warmup", {"1h", "2h", "3h"}}};
  EXPECT_NE(grid_edge_note(r, 2, all, kCostUsd).find("warmup = 3h is the largest"),
            std::string::npos);
  r.sweep = {{"pools.gpus.quota", {"8", "12", "16"}}, {"warmup", {"1h", "2h", "30min"}}};
  EXPECT_EQ(grid_edge_note(r, 2, all, kCostUsd), "");
  r.sweep = {{"pools.gpus.quota", {"8", "12", "16"}}};
  EXPECT_EQ(grid_edge_note(r, 0, all, kCostUsd), "");  // cost rises toward 8: nothing beyond
  EXPECT_EQ(grid_edge_note(r, 1, all, kCostUsd), "");  // 12: inside
  EXPECT_EQ(grid_edge_note(r, 2, {true, false, true}, kCostUsd), "");  // binds at the edge
  r.sweep = {{"pools.gpus.quota", {"8", "12", "8"}}};  // two distinct values
  EXPECT_EQ(grid_edge_note(r, 1, all, kCostUsd), "");
  r.sweep = {{"policy.queue", {"fifo", "priority", "sjf"}}};
  EXPECT_EQ(grid_edge_note(r, 2, all, kCostUsd), "");
}

// The decision table shows each point's parameter values beside its index.
TEST(Cheapest, TheDecisionTableShowsParameterValues) {
  const std::string scenario = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml";
  const auto out = testing_support::gpucap_cli(
      "sweep " + scenario + " -r 64 --set horizon=100h --grid pools.gpus.quota=8,9,12 "
      "--objective cost --constraint 'wait_mean<=1h'");
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const std::size_t header = out.output.find("point  pools.gpus.quota  feasible");
  ASSERT_NE(header, std::string::npos) << out.output;
  EXPECT_NE(out.output.find("\n    2  12                ", header), std::string::npos)
      << out.output;
}

TEST(Cheapest, SweepChanceFromTheCommandLine) {
  const std::string scenario = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml";
  const std::string goals =
      "--set 'goals={short_waits: {require: [wait_mean <= 30min], target: 0.9}}'";
  const auto out = testing_support::gpucap_cli(
      "sweep " + scenario + " -r 256 --set horizon=200h " + goals +
      " --grid pools.gpus.quota=8,9,12 --chance 'short_waits>=0.9'");
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("decision: minimize the mean cost (USD), P(short_waits) >= 0.9"),
            std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("cheapest feasible point: "), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("P(short_waits) [exact 95%]"), std::string::npos);
  // -q leaves out the run's line and the sweep table, not the answer: the same decision lines.
  const auto quiet = testing_support::gpucap_cli(
      "sweep " + scenario + " -r 256 --set horizon=200h " + goals +
      " --grid pools.gpus.quota=8,9,12 --chance 'short_waits>=0.9' -q");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("sweep of"), std::string::npos) << quiet.output;
  const std::size_t from = out.output.find("decision: ");
  const std::size_t to = out.output.find("\n", out.output.find("cheapest feasible point: "));
  ASSERT_NE(to, std::string::npos);
  EXPECT_NE(quiet.output.find(out.output.substr(from, to - from)), std::string::npos)
      << quiet.output;
  const auto bad = testing_support::gpucap_cli("sweep " + scenario + " -r 16 " + goals +
                                               " --grid pools.gpus.quota=8,9 --chance 'short>=0.9'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("no goal named 'short'"), std::string::npos) << bad.output;
  const auto lonely = testing_support::gpucap_cli(
      "sweep " + scenario + " -r 16 --grid pools.gpus.quota=8,9 --conservative");
  EXPECT_EQ(lonely.exit_code, 2);
  EXPECT_NE(lonely.output.find("--conservative only applies with"), std::string::npos);
}

// Part of a grid: costs fall with the point (300, 200, 100 USD); every point meets the goal at
// 0.5; limited to points 0 and 1, point 1 is chosen, point 2 is still judged but never chosen;
// a point list is read as indices and inclusive ranges, and refused with the reason.
TEST(Cheapest, CandidatesLimitTheChoiceToPartOfTheGrid) {
  const RunResults r = three_points({100, 100, 100});
  CheapestQuery q = chance(0.5);
  EXPECT_EQ(choose_cheapest(r, q).best, 2u);
  q.candidates = parse_point_list("0-1", 3);
  const CheapestAnswer a = choose_cheapest(r, q);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.best, 1u);
  EXPECT_TRUE(a.points[2].feasible);  // judged, not chosen
  q.candidates = parse_point_list("0", 3);
  EXPECT_EQ(choose_cheapest(r, q).best, 0u);
  // Point 2 undecided (met 55 of 100 around 0.55) and cheaper, but not a candidate: not named.
  const RunResults u = three_points({100, 100, 55});
  CheapestQuery qu = chance(0.55);
  qu.candidates = parse_point_list("0,1", 3);
  const CheapestAnswer au = choose_cheapest(u, qu);
  EXPECT_EQ(au.best, 1u);
  EXPECT_TRUE(au.undecided_cheaper.empty());
  EXPECT_EQ(parse_point_list("0,2", 3), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(parse_point_list(" 1 - 2 ", 3), (std::vector<bool>{false, true, true}));
  for (const char* bad : {"", "3", "2-1", "a", "-1", "0,,1", "1.5"})
    EXPECT_THROW(parse_point_list(bad, 3), std::invalid_argument) << bad;
  q.candidates = {true};  // not one flag per point
  EXPECT_THROW(choose_cheapest(r, q), std::invalid_argument);
}

TEST(Cheapest, PointsFromTheCommandLine) {
  const std::string scenario = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/default.yaml";
  const std::string sweep = "sweep " + scenario + " --grid pools.lambda-h100.quota=8,16,32 -r 4 ";
  const auto part = testing_support::gpucap_cli(sweep + "--points 0-1");
  ASSERT_EQ(part.exit_code, 0) << part.output;
  EXPECT_NE(part.output.find("cheapest feasible point: 1,"), std::string::npos) << part.output;
  const auto beyond = testing_support::gpucap_cli(sweep + "--points 0-5");
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_NE(beyond.output.find("5 is beyond the last point, 2"), std::string::npos) << beyond.output;
  const auto one = testing_support::gpucap_cli(
      "sweep " + scenario +
      " --grid pools.lambda-h100.quota=8,16,32 --points 0 --select-best --objective cost "
      "--delta 100");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.output.find("--select-best needs at least 2 sweep points, --points gives 1"),
            std::string::npos)
      << one.output;
}

// --select-best --points races part of the grid: the table and the verdicts name the grid's
// indices. docs/decisions.md's race without point 2 (quota 12): quota 14 still wins, and the
// two others are eliminated by it (point 3), not by the race's third point (2).
TEST(Cheapest, SelectBestRacesPartOfTheGrid) {
  const std::string scenario = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml";
  const auto race = testing_support::gpucap_cli(
      "sweep " + scenario +
      " --grid pools.gpus.quota=10,11,12,14 --set horizon=200h --set warmup=10h --select-best "
      "--objective wait_mean --delta 5 --points 0-1,3");
  ASSERT_EQ(race.exit_code, 0) << race.output;
  EXPECT_NE(race.output.find("select the best of 3 points (--points 0-1,3 of the grid's 4)"),
            std::string::npos)
      << race.output;
  EXPECT_NE(race.output.find("best: point 3 (pools.gpus.quota = 14)"), std::string::npos)
      << race.output;
  EXPECT_EQ(race.output.find("\n    2  12"), std::string::npos) << race.output;
  EXPECT_EQ(race.output.find("by point 2"), std::string::npos) << race.output;
  EXPECT_NE(race.output.find("\n    1  11                          20"), std::string::npos)
      << race.output;
  EXPECT_NE(race.output.find("eliminated at replication 20 by point 3"), std::string::npos)
      << race.output;
}
