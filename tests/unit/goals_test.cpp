// Goals: parsing conditions, the loader's messages, evaluation on rows, and their probability
// in a run against the rows themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/goal.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

using namespace gpucap;

namespace {

const std::vector<std::string> kPools = {"spot", "spot.eu", "od"};

std::string error_of(const std::string& condition) {
  try {
    parse_goal_condition(condition, kPools);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const char* kScenario = R"(name: goals
horizon: 100h
seed: 3
replications: 50
pools:
  gpus: {gpu: A100-80GB, price_usd_per_gpu_hour: 2.0, quota: 4}
workloads:
  - name: jobs
    gpus: 1
    arrivals: {process: poisson, rate_per_hour: 3}
    work: {dist: exponential, mean: 1h}
)";

std::string load_error(const std::string& goals) {
  try {
    parse_scenario(std::string(kScenario) + goals, "test.yaml", ".");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(GoalCondition, ParsesEveryForm) {
  GoalCondition c = parse_goal_condition("  completion_p99<=25d ", kPools);
  EXPECT_EQ(c.text, "completion_p99<=25d");
  EXPECT_FALSE(c.lhs.is_pool);
  EXPECT_EQ(c.lhs.metric, kCompletionP99S);
  EXPECT_EQ(c.op, GoalOp::le);
  EXPECT_EQ(c.constant, 25 * 86400.0);
  c = parse_goal_condition("cost > 1.5e5", kPools);
  EXPECT_EQ(c.op, GoalOp::gt);
  EXPECT_EQ(c.constant, 150000.0);
  c = parse_goal_condition("jobs_completed >= jobs_arrived", kPools);
  EXPECT_TRUE(c.has_rhs_metric);
  EXPECT_EQ(c.rhs_metric.metric, kJobsArrived);
  EXPECT_EQ(c.factor, 1.0);
  c = parse_goal_condition("pools.spot.eu.preemptions < 0.25 * jobs_started", kPools);
  EXPECT_TRUE(c.lhs.is_pool);
  EXPECT_EQ(c.lhs.pool, 1u);  // the longest pool name that fits: "spot.eu", not "spot"
  EXPECT_EQ(c.lhs.metric, kPoolPreemptions);
  EXPECT_EQ(c.op, GoalOp::lt);
  EXPECT_EQ(c.factor, 0.25);
  c = parse_goal_condition("wait_mean < 90", kPools);  // seconds without a unit
  EXPECT_EQ(c.constant, 90.0);
}

TEST(GoalCondition, RefusesWithWhatIsValid) {
  EXPECT_NE(error_of("cots <= 5").find("unknown metric 'cots' (did you mean 'cost'?)"),
            std::string::npos);
  EXPECT_NE(error_of("cost <= 5d").find("only metrics in s take a time unit"), std::string::npos);
  EXPECT_NE(error_of("cost <= wait_mean").find("compares USD with s"), std::string::npos);
  EXPECT_NE(error_of("cost =< 5").find("write <= or >="), std::string::npos);
  EXPECT_NE(error_of("cost == 5").find("has no comparison"), std::string::npos);
  EXPECT_NE(error_of("cost <= 5 <= 6").find("more than one comparison"), std::string::npos);
  EXPECT_NE(error_of("cost").find("has no comparison"), std::string::npos);
  EXPECT_NE(error_of("cost <=").find("needs a metric on the left and a value"), std::string::npos);
  EXPECT_NE(error_of("5 <= cost").find("the left side must be a metric"), std::string::npos);
  EXPECT_NE(error_of("cost <= x * cost").find("is not a number"), std::string::npos);
  EXPECT_NE(error_of("cost <= 2 * 3").find("must multiply a metric"), std::string::npos);
  EXPECT_NE(error_of("pools.gpu.cost <= 1").find("names no declared pool"), std::string::npos);
  EXPECT_NE(error_of("pools.od.price <= 1").find("unknown pool metric 'price'"),
            std::string::npos);
  EXPECT_NE(error_of("wait_mean <= 3 fortnights").find("unknown unit"), std::string::npos);
  EXPECT_NE(error_of("").find("an empty condition"), std::string::npos);
}

TEST(GoalCondition, UndefinedMetricsDoNotHold) {
  GoalSpec g;
  g.name = "done";
  g.conditions.push_back(parse_goal_condition("completion_p99 <= 1d", kPools));
  g.conditions.push_back(parse_goal_condition("pools.od.cost <= 0.5 * cost", kPools));
  double scalars[kScalarMetricCount] = {};
  double pools[3 * kPoolMetricCount] = {};
  scalars[kCostUsd] = 100;
  pools[2 * kPoolMetricCount + kPoolCostUsd] = 50;
  scalars[kCompletionP99S] = 86400;
  EXPECT_TRUE(goal_met_in(g, scalars, pools));  // both bounds hold with equality
  pools[2 * kPoolMetricCount + kPoolCostUsd] = 50.0001;
  EXPECT_FALSE(goal_met_in(g, scalars, pools));
  pools[2 * kPoolMetricCount + kPoolCostUsd] = 10;
  scalars[kCompletionP99S] = std::numeric_limits<double>::quiet_NaN();  // no job completed
  EXPECT_FALSE(goal_met_in(g, scalars, pools));
  EXPECT_EQ(g.definition(), "completion_p99 <= 1d and pools.od.cost <= 0.5 * cost");
}

TEST(GoalLoader, ReadsGoalsAndLocatesMistakes) {
  const Scenario s = parse_scenario(std::string(kScenario) +
                                        "goals:\n"
                                        "  fast: {require: [wait_p95 <= 30min], target: 0.9}\n"
                                        "  cheap:\n"
                                        "    description: under budget\n"
                                        "    require: [\"cost <= 900\", jobs_dropped <= 0]\n",
                                    "test.yaml", ".");
  ASSERT_EQ(s.goals.size(), 2u);
  EXPECT_EQ(s.goals[0].name, "fast");
  EXPECT_EQ(s.goals[0].target, 0.9);
  EXPECT_EQ(s.goals[0].conditions[0].constant, 1800.0);
  EXPECT_EQ(s.goals[1].description, "under budget");
  EXPECT_EQ(s.goals[1].conditions.size(), 2u);
  EXPECT_LT(s.goals[1].target, 0);  // none

  EXPECT_EQ(load_error("goals:\n  fast: {require: [wiat_p95 <= 1h]}\n").rfind(
                "test.yaml:13:20: ", 0),
            0u);
  EXPECT_NE(load_error("goals:\n  fast: {require: [wiat_p95 <= 1h]}\n")
                .find("goals.fast.require[0]: \"wiat_p95 <= 1h\": unknown metric 'wiat_p95' (did "
                      "you mean 'wait_p95'?)"),
            std::string::npos);
  EXPECT_NE(load_error("goals:\n  fast: {require: []}\n").find("goals.fast.require"),
            std::string::npos);
  EXPECT_NE(load_error("goals:\n  fast: {target: 0.9}\n").find("goals.fast.require: is required"),
            std::string::npos);
  EXPECT_NE(load_error("goals:\n  fast: {require: [cost <= 1], target: 1}\n")
                .find("goals.fast.target"),
            std::string::npos);
  EXPECT_NE(load_error("goals:\n  fast: {require: [cost <= 1], target: 0}\n")
                .find("goals.fast.target"),
            std::string::npos);
  EXPECT_NE(load_error("goals:\n  fast: {require: [cost <= 1], targt: 0.5}\n")
                .find("unknown key 'targt' (did you mean 'target'?)"),
            std::string::npos);
  EXPECT_NE(load_error("goals:\n  on-time: {require: [cost <= 1]}\n")
                .find("a goal's name must start with a letter"),
            std::string::npos);
  EXPECT_NE(load_error("goals: []\n").find("goals"), std::string::npos);
  EXPECT_NE(load_error("goals:\n  a: {require: [pools.cpu.cost <= 1]}\n")
                .find("names no declared pool; pools: gpus"),
            std::string::npos);
}

// A goal's probability in a run is the share of rows that meet it, and a sweep point's goals
// must be the base's.
TEST(GoalRun, ProbabilityIsTheShareOfReplicationsThatMeetTheGoal) {
  const Scenario s = parse_scenario(std::string(kScenario) +
                                        "goals:\n"
                                        "  short_waits: {require: [wait_mean <= 15min]}\n"
                                        "  busy: {require: [utilization >= 0.74, cost > 550]}\n",
                                    "test.yaml", ".");
  RunOptions options;
  options.replications = 300;
  const RunResults r = run(s, options);
  ASSERT_EQ(r.goals.size(), 2u);
  uint64_t short_waits = 0, busy = 0;
  for (std::size_t i = 0; i < r.replications; ++i) {
    short_waits += r.scalar(0, i, kWaitMeanS) <= 900;
    busy += r.scalar(0, i, kUtilization) >= 0.74 && r.scalar(0, i, kCostUsd) > 550;
  }
  EXPECT_EQ(r.goal_summary_of(0, 0).met, short_waits);
  EXPECT_EQ(r.goal_summary_of(0, 1).met, busy);
  EXPECT_EQ(r.goal_summary_of(0, 0).n, 300u);
  // Neither goal is certain nor impossible here, so the test says something.
  EXPECT_GT(short_waits, 0u);
  EXPECT_LT(short_waits, 300u);
  EXPECT_GT(busy, 0u);
  EXPECT_LT(busy, 300u);

  Scenario other = s;
  other.goals[1].target = 0.5;
  EXPECT_THROW(run_points({s, other}, {{"x", {"a", "b"}}}, s, options), std::invalid_argument);
}
