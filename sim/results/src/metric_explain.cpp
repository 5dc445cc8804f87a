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
    case MetricGroup::llm:
      return "LLM services (kind: inference with an llm: block)";
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
  out += "  asked for:  goals (goals: {NAME: {require: [\"" + name +
         " <= X\"]}}), --constraint '" + name + " <= X' (a bound on its mean), --objective " +
         name + ", fit --check " + name + "\n";
  return out;
}

/// The pool metrics' names, comma-separated.
std::string pool_metric_list() {
  std::string out;
  for (const MetricInfo& m : kPoolMetricInfo) out += std::string(out.empty() ? "" : ", ") + m.name;
  return out;
}

/// `pools.POOL.METRIC`, the form that names one pool's metric in a goal's condition.
std::string pool_reference_entry() {
  return "pools.POOL.METRIC (a pool's metric in a goal's condition)\n"
         "  form:       pools.<the pool's name>.<a pool metric>, e.g. pools.spot.preemptions; a "
         "pool name may hold dots (the longest pool name that matches is read)\n"
         "  metrics:    " +
         pool_metric_list() +
         "\n"
         "  asked for:  goals' conditions (goals: {NAME: {require: [\"pools.spot.preemptions < "
         "0.1 * jobs_started\"]}}), and --chance through such a goal; --constraint, --objective "
         "and fit --check take scalar metrics only ('gpucap explain metrics')\n"
         "  per metric: 'gpucap explain METRIC' (e.g. gpucap explain preemptions)\n";
}

std::string pool_entry(const MetricInfo& m) {
  const std::string name = m.name;
  std::string out = name + " (pool metric, one value per pool and replication)\n";
  out += "  unit:       " + std::string(m.unit) + "\n";
  out += "  meaning:    " + std::string(m.description) + "\n";
  out += "  window:     the statistics window [warmup, horizon]\n";
  out += "  stored:     HDF5 /pools/" + name + " [point][replication][pool]; Python r.pool(\"" +
         name + "\"), r.pool_summary()\n";
  out += "  asked for:  goals' conditions as pools.POOL." + name +
         " (gpucap explain pools.POOL.METRIC)\n";
  return out;
}

}  // namespace

std::string explain_metric(const std::string& name) {
  // The general form, and one pool's metric written as a condition names it.
  if (name == "pools.POOL.METRIC" || name == "pools.NAME.METRIC") return pool_reference_entry();
  if (name.rfind("pools.", 0) == 0) {
    const std::size_t dot = name.rfind('.');
    const std::string metric = name.substr(dot + 1);
    if (dot > 6)
      for (const MetricInfo& m : kPoolMetricInfo)
        if (metric == m.name)
          return "pool \"" + name.substr(6, dot - 6) + "\", " + pool_entry(m);
    return "";
  }
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
