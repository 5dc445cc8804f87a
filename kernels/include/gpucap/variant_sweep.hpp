// gpucap: the points of a robust plan: every decision of a sweep grid under every variant, in one
// sweep with common random numbers.
//
// The results are an ordinary sweep (RunResults::sweep) whose parameters are, in order:
//   - the decision paths of the grid, each with its value at every point;
//   - "variant": the variant's name at every point;
//   - "variant_weight": its weight as written ("" when the variants have none: equal weights);
//   - one parameter per path any variant overrides (in order of first appearance), holding the
//     value that point's variant gives it, or "" when that variant leaves it alone.
// Point d * V + v is decision d under variant v (V variants): the decisions slowest, as the
// first --grid axis is. A results file of a robust plan thus names every point's scenario:
// the scenario text, then --set, then the variant's non-empty values, then the decision's.
//
//   std::vector<gpucap::SweepParameter> decisions = gpucap::expand_grid(axes);
//   gpucap::SweepPoints p =
//       gpucap::check_robust_points(text, origin, dir, {}, decisions, variants);
//   gpucap::RunResults r = gpucap::run_points(p.points, p.grid, base, options);
#pragma once
#include <string>
#include <vector>

#include "gpucap/sweep.hpp"
#include "gpucap/variants.hpp"

namespace gpucap {

/// The grid of a robust plan (see above) for an expanded decision grid and checked variants.
std::vector<SweepParameter> robust_plan_grid(const std::vector<SweepParameter>& decisions,
                                             const std::vector<Variant>& variants);

/// Checks the variants (check_variants), then loads every point: the YAML text with
/// `overrides`, then the variant's overrides, then the decision's values. A variant that makes
/// the scenario invalid, or that adds, removes or reorders pools (the results share one pool
/// table), throws a ScenarioError naming the variant; invalid points throw one ScenarioError
/// listing them per variant (no point is skipped: every decision needs every variant). The
/// grid returned is robust_plan_grid's.
SweepPoints check_robust_points(const std::string& yaml_text, const std::string& origin,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides,
                                const std::vector<SweepParameter>& decisions,
                                const std::vector<Variant>& variants,
                                const InputLimits& limits = {});

}  // namespace gpucap
