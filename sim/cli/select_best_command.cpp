// gpucap sweep --select-best: procedure KN over a sweep's points, with its table.
#include "select_best_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "gpucap/backend.hpp"
#include "gpucap/cheapest.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/interrupt.hpp"
#include "gpucap/metric_explain.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/select_best.hpp"

#include "run_options.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

// --objective (the decision options') and --max-replications (the run options') are shared
// with the other modes of sweep; these belong to --select-best alone.
const char* const kModeOptions[] = {"maximize", "delta", "alpha", "initial"};

/// Numbers as the tables print them: 4 significant digits, whole above 10^4, "n/a" for NaN.
std::string number(double v) { return text::format_table_value(v); }

/// A finite number for option `name`; a usage error saying what is valid otherwise.
double parse_number(const std::string& name, const std::string& text, const std::string& valid) {
  const std::string t = text::trim(text);
  char* end = nullptr;
  const double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v))
    throw po::error(name + " must be " + valid + ", got \"" + text::excerpt(text) + "\"");
  return v;
}

ScalarMetric objective_named(const std::string& name) {
  try {
    return scalar_metric_named("--objective", name);
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
}

/// Left-aligned cell of `width`, two spaces before it.
std::string cell(const std::string& text, std::size_t width, bool right = false) {
  std::string padding(text.size() < width ? width - text.size() : 0, ' ');
  return "  " + (right ? padding + text : text + padding);
}

/// `ids[i]`: the grid's index of raced point i (--points races part of the grid).
void print_table(const SelectionResult& s, const std::vector<SweepParameter>& grid,
                 const std::vector<std::size_t>& ids, const MetricInfo& metric) {
  const std::string unit = metric.unit;
  std::vector<std::string> header = {"point"}, ci(s.points.size());
  for (const SweepParameter& p : grid) header.push_back(text::excerpt(p.path, 60));
  header.push_back("replications");
  header.push_back(std::string(metric.name) + " [" + unit + "]");
  header.push_back("95% CI of mean [" + unit + "]");
  header.push_back("status");
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const SelectionPoint& p = s.points[i];
    std::vector<std::string> row = {std::to_string(ids[i])};
    for (const SweepParameter& g : grid) row.push_back(text::excerpt(g.values[ids[i]], 40));
    row.push_back(std::to_string(p.replications));
    row.push_back(number(p.mean));
    row.push_back(std::isnan(p.ci95_low)
                      ? "n/a"
                      : "[" + number(p.ci95_low) + ", " + number(p.ci95_high) + "]");
    row.push_back(selection_status_text(s, i));
    rows.push_back(row);
  }
  std::vector<std::size_t> widths(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    widths[c] = header[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  // Numbers right-aligned: the point, the replications and the mean.
  const auto right = [&](std::size_t c) {
    return c == 0 || c == grid.size() + 1 || c == grid.size() + 2;
  };
  const auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) line += cell(row[c], widths[c], right(c));
    line.erase(line.find_last_not_of(' ') + 1);
    std::cout << line.substr(2) << "\n";
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

}  // namespace

po::options_description select_best_options() {
  po::options_description o("selecting the best (procedure KN; docs/decisions.md)");
  o.add_options()("select-best",
                  "select the best point with probability >= 1 - alpha when it is at least "
                  "--delta better than the rest: every point runs --initial replications, then "
                  "clearly worse points are screened out and the others run on, one replication "
                  "at a time, until one is left (common random numbers)")(
      "maximize", "with --select-best: the best has the largest mean (default: the smallest)")(
      "delta", po::value<std::string>(),
      "with --select-best: the indifference zone, in the objective's unit (e.g. 100 for USD): "
      "the smallest difference worth detecting; required, > 0")(
      "alpha", po::value<std::string>(),
      "with --select-best: 1 - the probability of correct selection, above 0 and below "
      "1 - 1/points (default 0.05)")(
      "initial", po::value<std::string>(),
      "with --select-best: first-stage replications of every point, 2 or more (default 20)");
  return o;
}

void check_select_best_usage(const po::variables_map& vm) {
  if (!vm.count("select-best")) {
    for (const char* name : kModeOptions)
      if (vm.count(name))
        throw po::error(std::string("--") + name + " only applies with --select-best");
    return;
  }
  for (const char* name :
       {"replications", "output", "metrics", "precision", "constraint", "chance", "conservative"})
    if (vm.count(name))
      throw po::error(std::string("--") + name +
                      " does not apply with --select-best (it runs as many replications of "
                      "each point as the procedure needs: set --initial and --max-replications, "
                      "and the metric with --objective)");
  if (!vm.count("objective"))
    throw po::error("--select-best needs --objective METRIC (e.g. --objective cost)");
  if (!vm.count("delta"))
    throw po::error(
        "--select-best needs --delta, the smallest difference in the objective worth "
        "detecting, in its unit (e.g. --delta 100 for 100 USD)");
}

int select_best_command(const po::variables_map& vm, const std::vector<Scenario>& grid_points,
                        const std::vector<SweepParameter>& grid, const Scenario& base,
                        const RunOptions& options) {
  // --points: race only those points of the grid (with their grid indices in the table).
  std::vector<std::size_t> ids;
  std::vector<Scenario> chosen;
  if (vm.count("points")) {
    std::vector<bool> in;
    try {
      in = parse_point_list(vm["points"].as<std::string>(), grid_points.size());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--points: ") + e.what());
    }
    for (std::size_t i = 0; i < grid_points.size(); ++i)
      if (in[i]) {
        ids.push_back(i);
        chosen.push_back(grid_points[i]);
      }
  } else {
    for (std::size_t i = 0; i < grid_points.size(); ++i) ids.push_back(i);
  }
  const std::vector<Scenario>& points = vm.count("points") ? chosen : grid_points;
  const ScalarMetric objective = objective_named(text::trim(vm["objective"].as<std::string>()));
  const MetricInfo& metric = kScalarMetricInfo[objective];
  SelectionOptions o;
  o.maximize = vm.count("maximize") > 0;
  o.delta = parse_number("--delta", vm["delta"].as<std::string>(),
                         std::string("a number above 0 in ") + metric.unit);
  if (!(o.delta > 0))
    throw po::error("--delta must be above 0 (in " + std::string(metric.unit) + "), got " +
                    number(o.delta));
  if (vm.count("alpha"))
    o.alpha = parse_number("--alpha", vm["alpha"].as<std::string>(),
                           "a number above 0 and below 1 - 1/points");
  if (vm.count("initial"))
    o.initial = parse_count("--initial", vm["initial"].as<std::string>(), 2, kMaxReplications);
  if (vm.count("max-replications"))
    o.max_replications = parse_count("--max-replications", vm["max-replications"].as<std::string>(),
                                     o.initial, kMaxReplications);
  else
    o.max_replications = std::max(o.max_replications, o.initial);
  if (points.size() < 2)
    throw po::error("--select-best needs at least 2 sweep points, " +
                    (vm.count("points") ? "--points gives " : std::string("the grid gives ")) +
                    std::to_string(points.size()) + "; give " +
                    (vm.count("points") ? "more --points" : std::string("--grid more values")));
  try {
    check_selection_options(points.size(), o);
  } catch (const std::invalid_argument& e) {
    throw po::error(std::string("--select-best: ") + e.what());
  }

  RunOptions run = options;
  run.max_replications = 0;  // the race's cap is o.max_replications; each batch is a fixed run
  RunMonitor monitor;
  run.monitor = &monitor;
  const auto start = std::chrono::steady_clock::now();
  SelectionResult s;
  interrupt::set_cancel_flag(&monitor.cancel);
  try {
    s = select_best_points(points, base, objective, o, run);
    interrupt::set_cancel_flag(nullptr);
  } catch (const RunCancelled&) {
    interrupt::set_cancel_flag(nullptr);
    if (interrupt::received() == 0) throw;
  } catch (...) {
    interrupt::set_cancel_flag(nullptr);
    throw;
  }
  if (interrupt::received() != 0) {
    std::cerr << "gpucap: interrupted by " << interrupt::signal_name(interrupt::received())
              << "; the selection stopped\n";
    return interrupt::exit_status_for(interrupt::received());
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The points the race names (who eliminated whom) by their grid indices.
  for (SelectionPoint& p : s.points)
    if (p.status == SelectionStatus::eliminated || p.status == SelectionStatus::tied)
      p.eliminated_by = ids[p.eliminated_by];
  const std::string unit = metric.unit;
  std::string label;
  for (std::size_t k = 0; k < grid.size(); ++k)
    label += (k ? ", " : "") + text::excerpt(grid[k].path, 60) + " = " +
             text::excerpt(grid[k].values[ids[s.best]], 40);
  const std::string best_line =
      "best: point " + std::to_string(ids[s.best]) + (label.empty() ? "" : " (" + label + ")") +
      ", " + metric.name + " " + number(s.points[s.best].mean) + " " + unit +
      (s.guaranteed ? ""
                    : "; NO GUARANTEE: several points were still in the race at "
                      "--max-replications " +
                          std::to_string(o.max_replications) + "; raise it or widen --delta");
  if (vm.count("quiet")) {
    std::cout << best_line << "\n";
    return 0;
  }
  const uint64_t seed = options.has_seed ? options.seed : points.front().seed;
  std::cout << "select the best of " << points.size() << " points"
            << (vm.count("points")
                    ? " (--points " + text::excerpt(vm["points"].as<std::string>(), 80) +
                          " of the grid's " + std::to_string(grid_points.size()) + ")"
                    : std::string())
            << " of \"" << text::excerpt(base.name, 200)
            << "\": " << (o.maximize ? "maximize " : "minimize ") << metric.name << " [" << unit
            << "], delta " << number(o.delta) << " " << unit << ", alpha " << number(o.alpha)
            << ", initial " << o.initial << " replications, seed " << seed << ", backend "
            << s.backend << ", " << number(wall_s) << " s\n"
            << "P(correct selection) >= " << number(100 * (1 - o.alpha))
            << "% when the best mean is at least delta better than every other\n\n";
  print_table(s, grid, ids, metric);
  std::cout << "\n"
            << best_line << "\n"
            << "replications: " << s.used << " used by the procedure, " << s.simulated
            << " simulated (a batch runs on past an elimination; those are not used); the race "
            << "ends by replication " << s.bound << " at the latest (ties aside)\n";
  return 0;
}

}  // namespace gpucap::cli
