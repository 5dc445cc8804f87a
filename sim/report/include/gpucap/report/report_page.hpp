// gpucap report: one self-contained HTML page describing a run's results (`gpucap report`,
// Results.report in Python).
//
// The page has no script and loads nothing: its style sheet is inline and its figures are
// inline SVG (svg_chart.hpp). It shows
//   - the scenario: name, seed, replications, points, backend, device, version, the overrides,
//     the data files read (path, size, SHA-256) and the scenario YAML (collapsible);
//   - the summary table of the point shown (the chosen point of a sweep, else the only one):
//     mean, 95% interval of the mean, p5, p50, p95, each with its unit, only for the metric
//     groups the scenario has (as `gpucap run` prints it); durations in min, h or d when large;
//   - per-pool means (cost, GPU-hours, utilization, jobs started);
//   - the goals, if any: met in how many replications, the probability with its exact and
//     Wilson 95% intervals, the verdict against the target;
//   - histograms of key metrics across replications (cost, utilization, then waits and
//     completion times for jobs, latency and SLO violations for inference services);
//   - utilization over time: mean GPUs in use per pool with the band from the 5th to the 95th
//     percentile across replications, when the results have /timeseries; otherwise each
//     pool's mean utilization with its 95% interval;
//   - for a sweep: the frontier (the objective's mean against a second metric's mean at every
//     point, Pareto points highlighted: lower is better for both), the chosen point (lowest
//     mean objective; with constraints, among the points that meet them, as `gpucap sweep
//     --constraint/--chance` decides: no point is chosen when none does) and the sweep table
//     with each point's standing against the constraints.
// Every string from the results (names, YAML, paths) is HTML-escaped.
#pragma once
#include <string>
#include <vector>

#include "gpucap/output_file.hpp"
#include "gpucap/results.hpp"

namespace gpucap::report {

struct ReportOptions {
  /// Metric minimized to choose a sweep's point (a scalar metric name).
  std::string objective = "cost";
  /// Second metric of the frontier; empty: wait_p95 when the scenario has jobs, latency_p95
  /// when it has only inference services.
  std::string versus;
  /// Where the results came from (shown on the page; empty: not shown).
  std::string source;
  /// The question's constraints, as `gpucap sweep` takes them: bounds on means
  /// ("wait_p95<=1h") and on goals' probabilities ("on_time>=0.95", or a goal's name for its
  /// target); `conservative`: met only when the whole 95% interval is (cheapest.hpp).
  std::vector<std::string> constraints, chance;
  bool conservative = false;
  /// The points that may be chosen, "0,2,5-7" (part of a grid); empty: every point.
  std::string points;
};

/// The page. Throws std::invalid_argument for an objective or versus that is not a scalar
/// metric name (the message lists the valid names), a constraint that does not parse or names
/// no goal of the results, or results without points or replications.
std::string render_report(const RunResults& results, const ReportOptions& options = {});

/// Writes render_report(results, options) to `path` atomically with the rules of
/// output_file.hpp (never through a link unless `output.force`, never onto a special file, an
/// input of the run (`results.input_files`) or `output.inputs`). Throws OutputError or
/// std::invalid_argument.
OutputReport write_report(const RunResults& results, const std::string& path,
                          const ReportOptions& options = {}, const OutputOptions& output = {});

}  // namespace gpucap::report
