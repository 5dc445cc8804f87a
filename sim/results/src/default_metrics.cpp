// gpucap: default metrics by what the results measured (see default_metrics.hpp).
#include "gpucap/default_metrics.hpp"

namespace gpucap {

MeasuredKinds measured_kinds(const RunResults& r) {
  MeasuredKinds k;
  for (std::size_t p = 0; p < r.points; ++p) {
    k.jobs |= r.summary_of(p, kJobsArrived).mean > 0;
    k.services |= r.summary_of(p, kRequestsArrived).mean > 0;
    k.deployments |= r.summary_of(p, kInstanceHoursDemanded).mean > 0;
  }
  return k;
}

ScalarMetric default_service_level_metric(const MeasuredKinds& kinds) {
  if (kinds.services && !kinds.jobs) return kLatencyP95S;
  if (kinds.deployments && !kinds.jobs && !kinds.services) return kUnservedFraction;
  return kWaitP95S;
}

std::vector<ScalarMetric> default_sweep_metrics(const RunResults& r) {
  const MeasuredKinds kinds = measured_kinds(r);
  if (kinds.services) return {kCostUsd, kLatencyP95S, kSloViolationShare};
  if (kinds.deployments && !kinds.jobs) return {kCostUsd, kUnservedFraction, kInstancesServedMean};
  return {kCostUsd, kWaitMeanS, kWaitP95S};
}

}  // namespace gpucap
