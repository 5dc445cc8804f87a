// gpucap: robust plans: which decision to take when the scenario itself is uncertain.
//
// Each decision (a point of the sweep grid) ran under each variant (a what-if: demand x0.75,
// x1.5, ...) with common random numbers. For an objective to minimize (default cost):
//   regret(d, v)     = mean(d, v) - min over d' of mean(d', v)   (0 for the variant's best)
//   max regret(d)    = max over v of regret(d, v)
//   expected(d)      = sum over v of p_v mean(d, v)               (p: normalized weights)
// The minimax-regret choice has the smallest max regret, the expected choice the smallest
// expected objective (ties: the first decision in grid order). Every interval is a Student t 95%
// interval over replications of the per-replication version of the same combination of points
// (replication r of every point drew the same random numbers, so the differences are paired);
// the argmin and argmax that pick the points are taken as given (the interval does not account
// for that selection).
//
//   gpucap::RobustPlan plan = gpucap::robust_plan(results, gpucap::kCostUsd);
//   std::cout << gpucap::format_robust_plan(plan);
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gpucap/results.hpp"

namespace gpucap {

/// How a choice compares with the runner-up (the next best decision by the same criterion).
struct RobustComparison {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t runner_up = kNone;  ///< kNone when there is one decision
  /// Runner-up's criterion minus the choice's (>= 0), in the objective's unit.
  double difference = 0;
  /// Interval of that difference over replications (see the header comment).
  MetricSummary interval;
  /// True when the 95% interval of the difference excludes 0: the data tell them apart.
  bool distinguishable = false;
};

/// The regret table and the two choices. Arrays over (decision, variant) are [d * V + v].
struct RobustPlan {
  ScalarMetric objective = kCostUsd;
  std::vector<std::string> decision_paths;
  std::vector<std::vector<std::string>> decisions;  ///< [d][k]: decision d's value of path k
  std::vector<std::string> variants;                ///< names, in order of first appearance
  std::vector<double> probabilities;                ///< [v], normalized weights (sum 1)
  std::vector<std::size_t> points;                  ///< [d * V + v]: the point in the results
  std::vector<MetricSummary> objective_summary;     ///< [d * V + v]: the point's summary
  std::vector<std::size_t> best;                    ///< [v]: the decision of lowest mean
  std::vector<double> regret;                       ///< [d * V + v], objective's unit
  std::vector<MetricSummary> regret_interval;       ///< [d * V + v]: paired with best[v]
  std::vector<double> max_regret;                   ///< [d]
  std::vector<std::size_t> worst_variant;           ///< [d]: where max_regret is reached
  std::vector<double> expected;                     ///< [d]: sum_v p_v mean(d, v)
  std::vector<MetricSummary> expected_interval;     ///< [d]
  std::size_t minimax_choice = 0, expected_choice = 0;
  RobustComparison minimax_runner_up, expected_runner_up;

  std::size_t decision_count() const { return decisions.size(); }
  std::size_t variant_count() const { return variants.size(); }
  /// "path=value, path=value" of decision d.
  std::string decision_label(std::size_t d) const;
};

/// The robust plan of `results` for `objective` (minimized).
///
/// `variant_parameter` names the sweep parameter that holds the variants. For "variant" (the
/// layout gpucap/variant_sweep.hpp writes) the decisions are the parameters before it and the
/// weights come from "variant_weight"; for any other parameter of a plain sweep (e.g. a swept
/// arrival rate) the decisions are every other parameter and the weights are equal.
/// `weights` (name, weight > 0), when not empty, replaces them and must weigh every variant once.
/// Throws std::invalid_argument when the results have no such parameter, a decision lacks a
/// variant or has it twice, the objective is undefined (NaN) at a point, or a weight is bad.
RobustPlan robust_plan(const RunResults& results, ScalarMetric objective,
                       const std::string& variant_parameter = "variant",
                       const std::vector<std::pair<std::string, double>>& weights = {});

/// The plan as text: the objective's means per decision and variant, the regret table with its
/// intervals, max regret and expected objective, then the two choices (whether they differ, and
/// whether the data tell each choice from its runner-up). Units on every number.
std::string format_robust_plan(const RobustPlan& plan);

}  // namespace gpucap
