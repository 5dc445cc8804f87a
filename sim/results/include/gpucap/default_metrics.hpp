// gpucap: the metrics a table, a frontier or a sweep shows when the user names none, chosen by
// what the results measure: the jobs' waits, the services' latencies, or the deployments'
// unserved instance-hours. One source for `gpucap sweep`, `gpucap report` and Python.
//
//   for (gpucap::ScalarMetric m : gpucap::default_sweep_metrics(results)) ...
#pragma once
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/results.hpp"

namespace gpucap {

/// Which kinds of work the results measured at any point (as `gpucap run` chooses its rows).
struct MeasuredKinds {
  bool jobs = false, services = false, deployments = false;
  /// Whether metric m's group is shown for these kinds (metric_group_shown).
  bool shows(ScalarMetric m) const {
    return metric_group_shown(kScalarMetricInfo[m].group, jobs, services, deployments);
  }
};
MeasuredKinds measured_kinds(const RunResults& r);

/// The service level a frontier plots against cost: latency_p95 where only services ran,
/// unserved_fraction where only deployments ran, else wait_p95.
ScalarMetric default_service_level_metric(const MeasuredKinds& kinds);

/// The sweep table's metrics: cost, then the services' latency_p95 and slo_violation_share,
/// or the deployments' unserved_fraction and instances_served_mean, or the jobs' wait_mean and
/// wait_p95 (in that order of precedence, by what the results measured).
std::vector<ScalarMetric> default_sweep_metrics(const RunResults& r);

}  // namespace gpucap
