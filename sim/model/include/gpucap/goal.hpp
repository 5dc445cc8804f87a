// gpucap: goals, indicator metrics evaluated on each replication.
//
// A scenario's `goals:` section names conditions on a replication's metrics, e.g.
//
//   goals:
//     on_time:  {require: [jobs_completed >= jobs_arrived, completion_p99 <= 25d], target: 0.95}
//     budget:   {require: [cost <= 500000]}
//
// A goal is met in a replication when every condition holds there; its probability across
// replications is reported with exact (Clopper-Pearson) and Wilson intervals, and decisions can
// require it (chance constraints: gpucap sweep --chance on_time>=0.95). Conditions read the
// replication's row only, so every backend gives the same indicators.
//
// Grammar of a condition (spaces optional around operators):
//   condition := metric op value
//   metric    := SCALAR_METRIC | pools.POOL.POOL_METRIC
//   op        := <= | < | >= | >
//   value     := NUMBER [UNIT] | [NUMBER *] metric
// A number compared with a metric in seconds may carry a time unit (25d, 12h, 90min); with
// another metric it is a plain number in that metric's unit. A condition on a metric that is
// undefined in a replication (NaN: no job completed, no request served) does not hold.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/portable.hpp"

namespace gpucap {

/// One metric of a replication's row: a scalar metric, or a pool metric of one pool.
struct MetricRef {
  bool is_pool = false;
  uint32_t metric = 0;  ///< ScalarMetric, or PoolMetric when is_pool
  uint32_t pool = 0;    ///< pool index when is_pool
};

enum class GoalOp : uint8_t { le, lt, ge, gt };

/// lhs op rhs, where rhs = constant, or factor * rhs_metric when has_rhs_metric. Plain data
/// (no text), so that a device evaluates it with the host's code (condition_holds below): a
/// device run that keeps no rows counts the replications that meet each goal itself.
struct ConditionTest {
  MetricRef lhs;
  GoalOp op = GoalOp::le;
  bool has_rhs_metric = false;
  MetricRef rhs_metric;
  double factor = 1;    ///< multiplies rhs_metric
  double constant = 0;  ///< the bound when !has_rhs_metric (in the lhs metric's unit; s for durations)
};

/// A condition of a goal, and its text.
struct GoalCondition : ConditionTest {
  std::string text;  ///< as written (trimmed)
};

struct GoalSpec {
  std::string name;
  std::string description;
  std::vector<GoalCondition> conditions;  ///< all must hold; at least one
  double target = -1;  ///< the probability wanted (0 < target < 1), or < 0 when not given

  /// The conditions joined with " and ", as reports print the goal.
  std::string definition() const;
};

/// Limits that keep goals cheap to evaluate and to print.
inline constexpr std::size_t kMaxGoals = 64;
inline constexpr std::size_t kMaxGoalConditions = 16;

/// A goal's name: a letter, then letters, digits and _ (at most 64 bytes), so that it reads
/// unquoted in --chance NAME>=LEVEL and as a column name.
bool valid_goal_name(const std::string& name);

/// Parses one condition against the scenario's pool names. Throws std::invalid_argument with a
/// message that says what is wrong and what is valid (the loader adds file, line and key path).
GoalCondition parse_goal_condition(const std::string& text,
                                   const std::vector<std::string>& pool_names);

/// The value of `ref` in a replication's rows (scalars, then [pool][kPoolMetricCount]).
GPUCAP_HD inline double metric_in_row(const MetricRef& ref, const double* scalars,
                                      const double* pool_values) {
  return ref.is_pool ? pool_values[ref.pool * kPoolMetricCount + ref.metric] : scalars[ref.metric];
}

/// Whether the condition holds in a replication's rows (NaN on either side: it does not).
GPUCAP_HD inline bool condition_holds(const ConditionTest& c, const double* scalars,
                                      const double* pool_values) {
  const double a = metric_in_row(c.lhs, scalars, pool_values);
  const double b =
      c.has_rhs_metric ? c.factor * metric_in_row(c.rhs_metric, scalars, pool_values) : c.constant;
  switch (c.op) {
    case GoalOp::le: return a <= b;
    case GoalOp::lt: return a < b;
    case GoalOp::ge: return a >= b;
    case GoalOp::gt: return a > b;
  }
  return false;
}

/// Whether every condition of `goal` holds for a replication whose scalar row is `scalars`
/// (kScalarMetricCount values) and pool rows `pool_values` ([pool][kPoolMetricCount]).
bool goal_met_in(const GoalSpec& goal, const double* scalars, const double* pool_values);

/// Whether two goal lists define the same goals (names, conditions, targets).
bool same_goals(const std::vector<GoalSpec>& a, const std::vector<GoalSpec>& b);

}  // namespace gpucap
