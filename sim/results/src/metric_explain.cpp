#include "gpucap/metric_explain.hpp"

#include <cstring>
#include <stdexcept>

#include "gpucap/detail/text.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {
namespace {

const char* workloads_of(MetricGroup g) {
  switch (g) {
    case MetricGroup::jobs:
      return "jobs (kind: training, batch; the queue and run figures also count deployment "
             "instances where the metric says so)";
    case MetricGroup::inference:
      return "inference services (kind: inference)";
    case MetricGroup::deployments:
      return "deployments (kind: deployment)";
    case MetricGroup::cost_by_option:
      return "every kind, in the pools of that purchase option";
    default:
      return "every kind of workload";
  }
}

bool ends_with(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

std::string scalar_entry(const MetricInfo& m) {
  const std::string name = m.name;
  std::string out = name + " (metric, one value per replication)\n";
  out += "  unit:       " + std::string(m.unit) + "\n";
  out += "  meaning:    " + std::string(m.description) + "\n";
  out += "  workloads:  " + std::string(workloads_of(m.group)) + "\n";
  out += "  window:     " +
         std::string(name == "events" ? "the whole run, warm-up included"
                                      : "the statistics window [warmup, horizon]") +
         "\n";
  if (ends_with(name, "_p50") || ends_with(name, "_p95") || ends_with(name, "_p99"))
    out +=
        "  percentile: of the replication's own observations (exact up to 64, else within 0.39% "
        "relative), never outside their smallest and largest\n";
  out += "  NaN when:   " +
         (m.defined_when
              ? "no observation in the replication: defined only when " +
                    std::string(m.defined_when) + " (summaries say over how many replications)"
              : std::string("never (0 when nothing happened)")) +
         "\n";
  out += "  stored:     HDF5 /replications/" + name + " [point][replication]; /summary row '" +
         name + "'; Python r[\"" + name + "\"]\n";
  out += "  asked for:  goals (goals: [{metric: " + name + ", ...}]), --constraint '" + name +
         " <= X', --chance, --objective " + name + "\n";
  return out;
}

std::string pool_entry(const MetricInfo& m) {
  const std::string name = m.name;
  std::string out = name + " (pool metric, one value per pool and replication)\n";
  out += "  unit:       " + std::string(m.unit) + "\n";
  out += "  meaning:    " + std::string(m.description) + "\n";
  out += "  window:     the statistics window [warmup, horizon]\n";
  out += "  stored:     HDF5 /pools/" + name + " [point][replication][pool]; Python r.pool(\"" +
         name + "\"), r.pool_summary()\n";
  return out;
}

}  // namespace

std::string explain_metric(const std::string& name) {
  std::string out;
  for (const MetricInfo& m : kScalarMetricInfo)
    if (name == m.name) out += scalar_entry(m);
  for (const MetricInfo& m : kPoolMetricInfo)
    if (name == m.name) out += (out.empty() ? "" : "\n") + pool_entry(m);
  return out;
}

std::vector<std::string> metric_names() {
  std::vector<std::string> out;
  for (const MetricInfo& m : kScalarMetricInfo) out.emplace_back(m.name);
  for (const MetricInfo& m : kPoolMetricInfo) out.emplace_back(m.name);
  return out;
}

ScalarMetric scalar_metric_named(const std::string& option, const std::string& name) {
  std::string valid;
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
    if (name == kScalarMetricInfo[m].name) return static_cast<ScalarMetric>(m);
    valid += std::string(m ? ", " : "") + kScalarMetricInfo[m].name;
  }
  throw std::invalid_argument(option + ": unknown metric '" + text::excerpt(name) +
                              "'; valid: " + valid);
}

}  // namespace gpucap
