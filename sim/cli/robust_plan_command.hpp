// gpucap sweep --variant: robust plans, the sweep's options and report for them
// (docs/decisions.md).
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/results.hpp"
#include "gpucap/variants.hpp"

namespace gpucap::cli {

/// What --variant, --variants, --weights and --objective asked for; no variants: a plain sweep.
struct RobustPlanRequest {
  std::vector<Variant> variants;
  ScalarMetric objective = kCostUsd;
  std::vector<std::string> input_files;  ///< the variants file, which -o must never replace
  bool active() const { return !variants.empty(); }
};

/// Adds the robust-plan options to `sweep_options` (--objective only when no other part of the
/// sweep command declared it: one --objective, a metric name, serves every use).
void add_robust_plan_options(boost::program_options::options_description& sweep_options);

/// Reads the options. Throws boost::program_options::error for bad usage (weights without
/// variants, --skip-invalid, --constraint, --chance or --conservative with variants, an unknown
/// objective), ScenarioError for a bad variant (file:line:column and key path for a variants
/// file), InputFileError when the file cannot be read (`max_bytes`: its size limit).
RobustPlanRequest read_robust_plan_request(const boost::program_options::variables_map& vm,
                                           uint64_t max_bytes);

/// Prints the robust plan of a sweep that ran the request's points (see gpucap/robust_plan.hpp).
void print_robust_plan(const RobustPlanRequest& request, const RunResults& results,
                       std::ostream& out);

}  // namespace gpucap::cli
