// gpucap CLI: scenarios composed from a user's pools file and fitted workloads, shared by
// `gpucap fit --check` (fit_check.cpp) and `gpucap backtest` (backtest.cpp): the pools file
// read and checked, fitted workloads' side files made absolute, the composed text, and the
// values of a metric over a run's replications.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "gpucap/fit/job_trace.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/results.hpp"

namespace gpucap::cli {

/// The scenario file at `path` (option `option`: "--pools", "--check-scenario") as YAML, which
/// must be a map with `pools`; std::invalid_argument otherwise ("OPTION PATH: not YAML: ...",
/// "OPTION PATH must be `must_be`").
YAML::Node read_pools_scenario(const std::string& path, const InputLimits& limits,
                               const std::string& option, const std::string& must_be);

/// Side files of a fitted workload (empirical samples, the state at t = 0) named relative to
/// the section's folder: made absolute, as the composed scenario lives elsewhere.
void absolute_side_files(YAML::Node workload, const std::filesystem::path& folder);

/// The text of `base` with `workloads` in place of its own; with horizon_s > 0, that horizon
/// and no warm-up.
std::string composed_text(const YAML::Node& base, const YAML::Node& workloads,
                          double horizon_s = 0);

/// The values of metric m over the rows of point p that define it (not NaN), in row order.
std::vector<double> defined_values(const RunResults& r, std::size_t p, ScalarMetric m);

/// The most GPUs of any class of the trace (at least 1): a replay workload's `gpus`, so that
/// the quota check admits every row.
uint32_t largest_class_gpus(const fit::JobTrace& trace);

}  // namespace gpucap::cli
