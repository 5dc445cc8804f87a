// gpucap: choosing the cheapest sweep point that meets constraints on means and on the
// probabilities of goals (chance constraints), and saying when the data cannot tell.
//
//   gpucap::CheapestQuery q;
//   q.objective = gpucap::kCostUsd;
//   q.constraints.push_back(gpucap::parse_mean_constraint("wait_p95<=3600"));
//   q.chance.push_back(gpucap::parse_chance_constraint("on_time>=0.95", results));
//   gpucap::CheapestAnswer a = gpucap::choose_cheapest(results, q);
//
// A point meets a mean constraint when the metric's mean does (conservative: when the whole 95%
// interval of the mean does), and a chance constraint when the goal's estimated probability is
// at least the level (conservative: when the exact 95% interval's lower bound is). A constraint
// whose interval contains its bound is undecided at that point: more replications could change
// the answer. The answer is certain when the chosen point has no undecided constraint and no
// point with a lower mean objective is undecided.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/goal_summary.hpp"
#include "gpucap/results.hpp"

namespace gpucap {

/// mean(metric) op bound.
struct MeanConstraint {
  ScalarMetric metric = kCostUsd;
  GoalOp op = GoalOp::le;
  double bound = 0;
  std::string text;  ///< as written
};

/// P(goal met) >= level.
struct ChanceConstraint {
  std::size_t goal = 0;  ///< index in RunResults::goals
  double level = 0;      ///< 0 < level < 1
};

struct CheapestQuery {
  ScalarMetric objective = kCostUsd;
  std::vector<MeanConstraint> constraints;
  std::vector<ChanceConstraint> chance;
  bool conservative = false;
  /// The points that may be chosen (part of a grid): empty, every point; else one flag per
  /// point. The others are still judged (their standing is reported) but never chosen, and
  /// never named as undecided cheaper points.
  std::vector<bool> candidates;
};

/// "0,2,5-7": point indices (ranges inclusive) as CheapestQuery::candidates for `points`
/// points. Throws std::invalid_argument naming what is valid.
std::vector<bool> parse_point_list(const std::string& text, std::size_t points);

/// How one point stands against the query.
struct PointStanding {
  bool feasible = false;   ///< meets every constraint (by the query's rule)
  bool undecided = false;  ///< some constraint's interval contains its bound
  std::vector<bool> meets_constraint;       ///< per MeanConstraint
  std::vector<ChanceVerdict> chance;        ///< per ChanceConstraint: by the exact interval
  std::vector<bool> meets_chance;           ///< per ChanceConstraint, by the query's rule
  MetricSummary objective;                  ///< the objective's summary at the point
  MetricSummary minus_best;                 ///< paired difference from the chosen point
};

struct CheapestAnswer {
  bool found = false;  ///< some point is feasible
  std::size_t best = 0;
  bool certain = false;
  std::vector<PointStanding> points;
  /// Points with a lower mean objective than the chosen one (or any point, when none is
  /// feasible) whose feasibility is undecided.
  std::vector<std::size_t> undecided_cheaper;
  /// About how many replications would decide every undecided chance constraint that matters
  /// (the chosen point's and the cheaper points'); 0 when none; UINT64_MAX when one sits
  /// exactly on its level.
  uint64_t replications_to_decide = 0;
  /// One paragraph for people: the choice, or why there is none, and what the data cannot tell.
  std::string explanation;
};

/// "wait_p95<=3600", "completion_share >= 0.99": a mean constraint (the bound in the metric's
/// unit; durations accept time units). Throws std::invalid_argument naming what is valid.
MeanConstraint parse_mean_constraint(const std::string& text);

/// "on_time>=0.95", or "on_time" (the goal's own target). Throws std::invalid_argument naming
/// the goals `r` has.
ChanceConstraint parse_chance_constraint(const std::string& text, const RunResults& r);

/// The cheapest point for `query`; throws std::invalid_argument for indices out of range.
CheapestAnswer choose_cheapest(const RunResults& r, const CheapestQuery& query);

/// For a chosen `point`: a line (starting with a line break) per swept numeric parameter (a
/// number or a duration, at least 3 distinct values) whose value there is the grid's smallest
/// or largest while the point one step inside (the other parameters as at `point`) is
/// `feasible` and has a higher mean `objective`, saying that a better point may lie beyond;
/// "" when none (a constraint that binds at the edge puts better points inside, not beyond).
/// choose_cheapest adds it to its explanation.
std::string grid_edge_note(const RunResults& r, std::size_t point,
                           const std::vector<bool>& feasible, ScalarMetric objective);

}  // namespace gpucap
