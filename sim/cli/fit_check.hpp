// gpucap fit --check: the fitted model against the log it was fitted to. Both run on the pools
// of a scenario the user gives (--check-scenario: name, horizon, pools; its workloads are
// replaced): the log replayed as it was (one future: the one that happened), and the fitted
// section as written (many). The log is one draw; if the model is right, its value of a metric
// is a draw from the model's distribution of that metric over replications. So for each metric
// named: the replay's value (its mean over replications, which differ only by the pools' own
// randomness), the model's mean and its central 95% range of replications, the replay's rank
// in them, and a warning when the replay lies outside that range (a 5% chance per metric when
// the model is right). See docs/fitting.md, "Checking a fit against its log".
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/workload_yaml.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap::cli {

struct FitCheckOptions {
  std::vector<ScalarMetric> metrics;  ///< --check, in the order given
  std::string scenario;               ///< --check-scenario: the pools (and horizon) to run on
  uint64_t replications = 100;        ///< --check-replications, for each of the two runs
  InputLimits limits;                 ///< of the scenario and its data files
};

/// What was fitted, and from what.
struct FittedLog {
  std::string trace_path;  ///< the log
  fit::TraceColumns columns;
  fit::FitKind kind = fit::FitKind::job;
  const fit::JobTrace* trace = nullptr;
  std::string yaml;         ///< the section written
  std::string output_path;  ///< where it was written (its side files are beside it)
};

/// One metric of the check.
struct MetricCheck {
  ScalarMetric metric = ScalarMetric{};
  double replay = 0;       ///< the replay's mean over its replications
  double fitted_mean = 0;  ///< the model's mean over its replications
  /// The model's replications' 2.5% and 97.5% quantiles (type 7): where 95% of its futures lie.
  double fitted_low = 0, fitted_high = 0;
  /// The share of the model's replications at or below the replay's value (0.5: the middle).
  double rank = 0;
  bool defined = true;  ///< both runs give the metric a value (not NaN) in some replication
  bool agree = true;    ///< the replay lies within [fitted_low, fitted_high]
};

/// The metric called `name`; throws std::invalid_argument naming the valid ones.
ScalarMetric metric_for_check(const std::string& name);

/// Runs the replay and the fitted model and compares them. Throws ScenarioError (the scenario
/// or the composed workloads do not load), std::invalid_argument (a check this log cannot
/// have, e.g. a service log of several classes), or a run's errors.
std::vector<MetricCheck> check_fit(const FitCheckOptions& options, const FittedLog& fitted);

/// The table of the check (and a note of the horizon and replications), for stdout.
void print_fit_check(const std::vector<MetricCheck>& checks, const FitCheckOptions& options,
                     std::ostream& out);

}  // namespace gpucap::cli
