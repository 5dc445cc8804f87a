#include "fit_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/metric_explain.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/summary.hpp"
#include "composed_scenario.hpp"

namespace gpucap::cli {
namespace {

namespace fs = std::filesystem;

/// An absolute, normal form of `path` (relative to the current folder).
std::string absolute(const std::string& path) {
  return fs::absolute(fs::path(path)).lexically_normal().string();
}

/// The replay of the whole log as one workload like the fitted first class: its arrivals the
/// log's rows, with their own GPUs and run times, lifetimes or service times. Not resampled:
/// a block bootstrap moves an instance still running at the log's end (its lifetime unknown)
/// to an earlier day, where it runs to the horizon (on a 10-day log of 48 h lifetimes, 27% more
/// instance-hours than the log held).
YAML::Node replay_workload(const FittedLog& f, const YAML::Node& first, uint32_t max_gpus) {
  YAML::Node w = YAML::Clone(first);
  w["name"] = "replay of the log";
  for (const char* key : {"work", "service", "lifetime", "initial_state", "uncertainty"})
    w.remove(key);
  if (f.kind != fit::FitKind::service) w["gpus"] = max_gpus;  // the quota check's largest
  YAML::Node a;
  a["process"] = "trace";
  a["file"] = absolute(f.trace_path);
  a["submit_column"] = f.columns.submit;
  if (f.kind == fit::FitKind::deployment) {
    a["end_column"] = f.columns.end;
    a["blank_end"] = "still_running";
  } else {
    a["duration_column"] = f.columns.duration;
  }
  if (f.kind != fit::FitKind::service) a["gpus_column"] = f.columns.gpus;
  w["arrivals"] = a;
  return w;
}

/// A service's check runs on the replicas or autoscaler the user gives: the check scenario's
/// one `kind: inference` workload lends every key but its name, arrivals, service and
/// uncertainty to the fitted service (whose `replicas` it drops for an `autoscaling` without
/// one). Without workloads the fitted service's own replicas stay (about 70% busy).
void apply_service_template(const YAML::Node& base, YAML::Node& service,
                            const std::string& scenario) {
  const YAML::Node given = base["workloads"];
  if (!given) return;
  if (!given.IsSequence() || given.size() != 1 || !given[0].IsMap() ||
      !given[0]["kind"] || given[0]["kind"].as<std::string>("") != "inference")
    throw std::invalid_argument(
        "--check-scenario " + text::excerpt(scenario) +
        ": a request log's check runs the service on the replicas or autoscaler of the "
        "scenario's one workload of kind: inference (e.g. workloads: [{name: s, kind: "
        "inference, pool: h100, replicas: 8}]); this one's workloads are not that; leave them "
        "out to check with the fitted replicas");
  const YAML::Node t = given[0];
  if (t["autoscaling"] && !t["replicas"]) service.remove("replicas");
  for (const auto& kv : t) {
    const std::string key = kv.first.as<std::string>("");
    if (key == "name" || key == "arrivals" || key == "service" || key == "uncertainty") continue;
    service[key] = YAML::Clone(kv.second);
  }
}

/// Loads the scenario with `workloads` in place of its own.
Scenario compose(const YAML::Node& base, const YAML::Node& workloads, const std::string& origin,
                 const std::string& base_dir, const InputLimits& limits) {
  return parse_scenario(composed_text(base, workloads), origin, base_dir, {}, limits);
}

/// The values of metric m over the replications of point 0 that define it, sorted.
std::vector<double> sorted_values(const RunResults& r, ScalarMetric m) {
  std::vector<double> v = defined_values(r, 0, m);
  std::sort(v.begin(), v.end());
  return v;
}

RunResults run_checked(const Scenario& s, uint64_t replications) {
  RunOptions options;
  options.replications = replications;
  options.backend = BackendChoice::cpu;
  return run(s, options);
}

}  // namespace

ScalarMetric metric_for_check(const std::string& name) {
  return scalar_metric_named("--check", name);
}

std::vector<MetricCheck> check_fit(const FitCheckOptions& options, const FittedLog& f) {
  const YAML::Node base = read_pools_scenario(
      options.scenario, options.limits, "--check-scenario",
      "a scenario with name, horizon and pools (its workloads, if any, are replaced)");
  const YAML::Node fitted = YAML::Load(f.yaml)["workloads"];
  if (f.kind == fit::FitKind::service && fitted.size() != 1)
    throw std::invalid_argument(
        "--check of a request log needs one class (this one has " + std::to_string(fitted.size()) +
        "): the log is replayed as one service; fit the classes' logs one at a time");
  const fs::path folder = fs::absolute(fs::path(f.output_path)).parent_path();
  YAML::Node fitted_workloads(YAML::NodeType::Sequence);
  for (YAML::Node w : fitted) {
    YAML::Node copy = YAML::Clone(w);
    absolute_side_files(copy, folder);
    if (f.kind == fit::FitKind::service) apply_service_template(base, copy, options.scenario);
    fitted_workloads.push_back(copy);
  }
  YAML::Node replay(YAML::NodeType::Sequence);
  replay.push_back(replay_workload(f, fitted_workloads[0], largest_class_gpus(*f.trace)));

  const std::string base_dir = fs::absolute(fs::path(options.scenario)).parent_path().string();
  const std::string origin = text::excerpt(options.scenario, 200);
  const Scenario replay_scenario =
      compose(base, replay, origin + " (with the log replayed)", base_dir, options.limits);
  const Scenario fitted_scenario = compose(
      base, fitted_workloads, origin + " (with the fitted section)", base_dir, options.limits);
  const RunResults a = run_checked(replay_scenario, options.replications);
  const RunResults b = run_checked(fitted_scenario, options.replications);

  std::vector<MetricCheck> checks;
  for (ScalarMetric m : options.metrics) {
    MetricCheck c;
    c.metric = m;
    c.replay = a.summary_of(0, m).mean;
    c.fitted_mean = b.summary_of(0, m).mean;
    const std::vector<double> futures = sorted_values(b, m);
    c.defined = !std::isnan(c.replay) && !futures.empty();
    if (c.defined) {
      c.fitted_low = type7_quantile(futures, 0.025);
      c.fitted_high = type7_quantile(futures, 0.975);
      c.rank = static_cast<double>(std::upper_bound(futures.begin(), futures.end(), c.replay) -
                                   futures.begin()) /
               static_cast<double>(futures.size());
      c.agree = c.replay >= c.fitted_low && c.replay <= c.fitted_high;
    }
    checks.push_back(c);
  }
  return checks;
}

void print_fit_check(const std::vector<MetricCheck>& checks, const FitCheckOptions& options,
                     std::ostream& out) {
  auto value = [](double v) { return text::format_table_value(v); };
  out << "\ncheck of the fit against its log on " << text::excerpt(options.scenario, 200) << ": "
      << "the log replayed (the future that happened) and the fitted model, "
      << options.replications
      << " replications each; agree: the log's value lies in the central 95% of the model's "
         "replications\n";
  char line[400];
  std::snprintf(line, sizeof line, "%-24s %-10s %11s %11s  %-25s %8s  %s\n", "metric", "unit",
                "log", "model mean", "model 95% of futures", "log rank", "");
  out << line;
  for (const MetricCheck& c : checks) {
    const MetricInfo& info = kScalarMetricInfo[c.metric];
    const std::string range =
        c.defined ? "[" + value(c.fitted_low) + ", " + value(c.fitted_high) + "]" : "n/a";
    char rank[32] = "n/a";
    if (c.defined) std::snprintf(rank, sizeof rank, "%.1f%%", c.rank * 100);
    std::snprintf(line, sizeof line, "%-24s %-10s %11s %11s  %-25s %8s  %s\n", info.name, info.unit,
                  value(c.replay).c_str(), value(c.fitted_mean).c_str(), range.c_str(), rank,
                  !c.defined ? "undefined"
                  : c.agree  ? "agree"
                             : "DISAGREE");
    out << line;
  }
}

}  // namespace gpucap::cli
