// gpucap: what `gpucap explain METRIC` and gpucap.explain print for an output metric: its unit,
// meaning, the workloads that produce it, when it is not defined (NaN), where it is stored and
// how to ask for it, from the metric tables of metrics.hpp.
//
//   std::string text = gpucap::explain_metric("latency_p99");  // "" when no metric has the name
#pragma once
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"

namespace gpucap {

/// The explanation of every metric named `name`: a scalar metric, a pool metric, or both (cost,
/// utilization, ...: both entries). Empty when no metric has that name.
std::string explain_metric(const std::string& name);

/// Every metric name, scalar then pool (for suggestions).
std::vector<std::string> metric_names();

/// The scalar metric called `name`; throws std::invalid_argument "<option>: unknown metric
/// '<name>'; valid: cost, ..." (the name escaped and cut) for any other text.
ScalarMetric scalar_metric_named(const std::string& option, const std::string& name);

}  // namespace gpucap
