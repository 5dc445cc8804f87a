// gpucap: the command-line front end.
//
//   gpucap run SCENARIO.yaml [-r N] [--seed S] [-o results.h5] [--backend cpu|cuda|auto]
//              [--threads T] [--set k=v]... [-q]
//   gpucap sweep SCENARIO.yaml --grid k=v1,v2,... [--grid ...] [run options] [--metrics m1,m2]
//   gpucap sweep ... [--objective M] [--constraint 'M<=V']... [--chance 'GOAL>=P']...
//                [--conservative] [--precision F --max-replications N] (decision_report.cpp)
//   gpucap sweep ... --select-best --objective M --delta D (select_best_command.cpp)
//   gpucap sweep ... [--variant 'NAME: k=v, k=v']... [--variants V.yaml] (robust_plan_command.cpp)
//   gpucap validate SCENARIO.yaml [--set k=v]... (validate_command.cpp)
//   gpucap fit TRACE.csv -o WORKLOAD.yaml [--class-by COLUMN] (fit_command.cpp)
//   gpucap report RESULTS.h5 -o report.html [--objective M] [--versus M] (report_command.cpp)
//   gpucap explain KEY_PATH | schema | info (info_commands.cpp)
//
// Every command parses its options with one parser (command_line.hpp: --help first, one
// positional argument); options that several commands take are declared once there or in
// run_options.hpp (scenario and run options, and their readers).
//
// Exit codes: 0 success; 1 a file cannot be read or written, a run failed, or its backend cannot
// run here; 2 bad usage (an option out of range, a run that would not fit in memory) or an
// invalid scenario; 128 + N when stopped by signal N (130 for Ctrl-C, 143 for SIGTERM).
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <unistd.h>
#include <vector>

#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/default_metrics.hpp"
#include "gpucap/interrupt.hpp"
#include "gpucap/metric_explain.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/result_warnings.hpp"
#include "gpucap/run.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/sweep.hpp"
#include "gpucap/variant_sweep.hpp"
#include "gpucap/version.hpp"

#include "command_line.hpp"
#include "commands.hpp"
#include "decision_report.hpp"
#include "fit_command.hpp"
#include "report_command.hpp"
#include "robust_plan_command.hpp"
#include "run_options.hpp"
#include "select_best_command.hpp"

namespace po = boost::program_options;

namespace {

using gpucap::cli::output_options;
using gpucap::cli::overrides_of;
using gpucap::cli::read_execution_options;
using gpucap::cli::read_input_limits;

constexpr int kExitOk = 0, kExitRunFailed = 1, kExitUsage = 2;

/// The run was stopped by a signal (SIGINT, SIGTERM, SIGHUP): the CLI exits 128 + signal.
struct Interrupted {
  int signal;
  std::string journal;        ///< the run's journal, when it keeps one ("" otherwise)
  uint64_t replications = 0;  ///< replications per point the run was asked for
};

const char* kUsage =
    "gpucap: Monte Carlo simulation of GPU cloud capacity\n"
    "\n"
    "usage: gpucap <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.yaml       simulate replications, print a summary, write HDF5 with -o\n"
    "  sweep SCENARIO.yaml     run a parameter grid with common random numbers (--grid k=v1,v2)\n"
    "  validate SCENARIO.yaml  check a scenario without running it\n"
    "  fit TRACE.csv -o W.yaml fit a job trace into a workloads: section (arrivals, run times)\n"
    "  backtest LOG.csv        fit at rolling origins, forecast, replay what happened, score\n"
    "                          the intervals and the plan (--pools P.yaml --placement POOL)\n"
    "  recommend LOG.csv       the look-back commitment of a window of usage (--lookback 14d)\n"
    "  explain KEY_PATH        type, unit, range, default and meaning of a scenario key\n"
    "                          (e.g. pools.quota, workloads.checkpoint.interval)\n"
    "  schema                  print the JSON Schema (draft 2020-12) of scenario files\n"
    "  import --format F LOG   turn a job log (slurm, kubernetes, philly, helios, csv) into a\n"
    "                          trace CSV for `process: trace` (-o trace.csv)\n"
    "  catalog import|list     import a SkyPilot price catalog; list rows by USD/GPU-h\n"
    "  report RESULTS.h5       a self-contained HTML report of a results file (-o R.html)\n"
    "  info                    version, build options and backends\n"
    "\n"
    "'gpucap <command> --help' describes a command's options.\n";

std::string format_value(double v) { return gpucap::text::format_table_value(v); }

void print_summary(const gpucap::RunResults& r, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %-9s %11s  %-25s %11s %11s %11s\n", "metric", "unit",
                "mean", "95% CI of mean", "p5", "p50", "p95");
  out << line;
  // Rows of jobs or inference metrics only when the scenario has such workloads.
  const bool has_jobs = r.summary_of(0, gpucap::kJobsArrived).mean > 0;
  const bool has_services = r.summary_of(0, gpucap::kRequestsArrived).mean > 0;
  const bool has_deployments = r.summary_of(0, gpucap::kInstanceHoursDemanded).mean > 0;
  bool clipped = false;
  for (uint32_t m = 0; m < gpucap::kScalarMetricCount; ++m) {
    const gpucap::MetricGroup group = gpucap::kScalarMetricInfo[m].group;
    if (!gpucap::metric_group_shown(group, has_jobs, has_services, has_deployments)) continue;
    const gpucap::MetricSummary& s = r.summary_of(0, static_cast<gpucap::ScalarMetric>(m));
    if (!gpucap::metric_row_shown(group, s.mean)) continue;
    // One replication has no interval (NaN bounds): "n/a", not "[x, x]". A bound cut to the
    // metric's range (a share's [0, 1], a time's 0) is starred.
    const std::string ci = std::isnan(s.ci95_low)
                               ? "n/a"
                               : "[" + format_value(s.ci95_low) + (s.clipped_low ? "*" : "") +
                                     ", " + format_value(s.ci95_high) +
                                     (s.clipped_high ? "*" : "") + "]";
    clipped |= s.clipped_low || s.clipped_high;
    std::snprintf(line, sizeof line, "%-24s %-9s %11s  %-25s %11s %11s %11s",
                  gpucap::kScalarMetricInfo[m].name, gpucap::kScalarMetricInfo[m].unit,
                  format_value(s.mean).c_str(), ci.c_str(), format_value(s.p5).c_str(),
                  format_value(s.p50).c_str(), format_value(s.p95).c_str());
    out << line;
    // A metric with no observation in a replication (no job completed: no completion time) is
    // not defined there; say over how many replications the statistics are.
    if (s.n < r.replications)
      out << "  (defined in " << s.n << " of " << r.replications << " replications)";
    out << "\n";
  }
  if (clipped)
    out << "* the t interval went past the metric's range (below 0, or a share above 1): cut "
           "there\n";
  for (const std::string& w : gpucap::result_warnings(r)) out << "warning: " << w << "\n";
  out << "\nper pool (mean over replications)\n";
  std::snprintf(line, sizeof line, "%-20s %12s %15s %17s %14s %14s\n", "pool", "cost USD",
                "used GPU-h", "billed GPU-h", "utilization", "jobs started");
  out << line;
  for (std::size_t p = 0; p < r.pool_count(); ++p) {
    auto mean = [&](gpucap::PoolMetric m) {
      return format_value(r.pool_summary[p * gpucap::kPoolMetricCount + m].mean);
    };
    std::snprintf(line, sizeof line, "%-20s %12s %15s %17s %14s %14s\n", r.pool_names[p].c_str(),
                  mean(gpucap::kPoolCostUsd).c_str(), mean(gpucap::kPoolGpuHoursUsed).c_str(),
                  mean(gpucap::kPoolGpuHoursBilled).c_str(), mean(gpucap::kPoolUtilization).c_str(),
                  mean(gpucap::kPoolJobsStarted).c_str());
    out << line;
  }
}

/// " (rows kept: first N)" or " (rows kept: none)" when a run kept fewer rows than it ran.
std::string rows_kept_note(const gpucap::RunResults& r) {
  if (r.all_rows()) return "";
  return r.rows_per_point() == 0
             ? " (rows kept: none; summaries of all)"
             : " (rows kept: first " + std::to_string(r.rows_per_point()) + "; summaries of all)";
}

/// The lock of -o (run_journal.hpp): one run at a time writes an output and its journal. Held
/// from before the run until its results are written and its journal removed (or, when it is
/// interrupted, until its journal is dealt with); the system releases it if the process dies.
/// While held, the lock file is registered with the signal handler, which removes it when a
/// signal ends the process (interrupt.hpp); the registration is cleared and the file removed
/// with the stopping signals deferred (a signal between the two would leave the file).
struct ReleaseOutputLock {
  void operator()(gpucap::OutputLock* lock) const {
    const gpucap::interrupt::Deferred deferred;
    gpucap::interrupt::set_lock_file(nullptr);
    delete lock;
  }
};
std::unique_ptr<gpucap::OutputLock, ReleaseOutputLock> output_lock;

/// Checks -o before a run, so that a refused output costs no simulation time, and takes its
/// lock (a lock taken over from a run that was killed is said).
void check_output(const po::variables_map& vm, const gpucap::OutputOptions& output) {
  if (vm.count("force") && !vm.count("output")) throw po::error("--force only applies with -o");
  if (!vm.count("output")) return;
  const std::string path = vm["output"].as<std::string>();
  gpucap::check_output_path(path, output);
  {
    // A signal between taking the lock and registering it would leave the lock file behind.
    const gpucap::interrupt::Deferred deferred;
    output_lock.reset(gpucap::OutputLock::acquire(path).release());
    gpucap::interrupt::set_lock_file(output_lock->path().c_str());
  }
  if (!output_lock->note().empty()) std::cerr << "gpucap: note: " << output_lock->note() << "\n";
}

/// Runs the points with SIGINT, SIGTERM and SIGHUP cancelling the run; throws Interrupted.
gpucap::RunResults run_interruptible(const std::vector<gpucap::Scenario>& points,
                                     const std::vector<gpucap::SweepParameter>& grid,
                                     const gpucap::Scenario& base, gpucap::RunOptions options) {
  gpucap::RunMonitor monitor;
  options.monitor = &monitor;
  gpucap::interrupt::set_cancel_flag(&monitor.cancel);
  try {
    gpucap::RunResults results = gpucap::run_points(points, grid, base, options);
    gpucap::interrupt::set_cancel_flag(nullptr);
    if (gpucap::interrupt::received() != 0)
      throw Interrupted{gpucap::interrupt::received(), options.journal_path, results.replications};
    return results;
  } catch (const gpucap::RunCancelled&) {
    gpucap::interrupt::set_cancel_flag(nullptr);
    throw Interrupted{gpucap::interrupt::received(), options.journal_path,
                      options.replications > 0 ? options.replications : points[0].replications};
  } catch (...) {
    gpucap::interrupt::set_cancel_flag(nullptr);
    throw;
  }
}

/// -v: which backend ran and why, one line on stderr.
void print_backend_choice(const po::variables_map& vm, const gpucap::RunResults& results) {
  if (!vm.count("verbose")) return;
  std::cerr << "gpucap: backend " << results.backend << " (" << results.device << "): "
            << (results.backend_choice.empty() ? std::string("named by --backend")
                                               : "--backend auto chose " + results.backend_choice)
            << "\n";
}

/// Writes -o if asked; returns the exit code.
int write_output(const po::variables_map& vm, const gpucap::RunResults& results,
                 const gpucap::OutputOptions& output) {
  if (!vm.count("output")) return kExitOk;
  const std::string path = vm["output"].as<std::string>();
  gpucap::OutputReport report;
  try {
    report = gpucap::write_results_hdf5(results, path, output);
  } catch (const std::exception& e) {
    std::cerr << "gpucap: error: " << e.what() << "\n";
    return kExitRunFailed;
  }
  for (const std::string& stale : report.removed_stale)
    std::cerr << "gpucap: removed '" << gpucap::text::excerpt(stale, 300)
              << "', a temporary file left by an earlier run that was killed while writing\n";
  // The results are safe: the journal that would have continued the run is not needed (and
  // is this run's: no other holds the output's lock).
  gpucap::RunJournal::remove(gpucap::RunJournal::path_for(path));
  // A signal from here on ends the process, the results already safe: it says so.
  gpucap::interrupt::set_stop_note(
      ("stopped after the results were written to '" + gpucap::text::excerpt(path, 300) + "'")
          .c_str());
  output_lock.reset();
  if (!vm.count("quiet")) std::cout << "results written to " << path << "\n";
  return kExitOk;
}

void print_events_rate(const gpucap::RunResults& results) {
  double events = 0;
  for (std::size_t point = 0; point < results.points; ++point)
    events += results.summary_of(point, gpucap::kEvents).mean * results.replications;
  char rate[96];
  std::snprintf(rate, sizeof rate, "\n%.2f M events/s (%.4g events in %.3g s)\n",
                events / results.wall_time_s / 1e6, events, results.wall_time_s);
  std::cout << rate;
}


/// Warns, on stderr, of the jobs and deployment instances dropped because the waiting room was
/// full where the scenario left policy.queue_capacity at its default: a limit the user did not
/// choose (instances alive at t = 0 beyond the quotas wait there too).
void warn_default_waiting_room(const gpucap::RunResults& results, const gpucap::Scenario* points,
                               std::size_t count) {
  for (const auto& [metric, noun] : {std::pair{gpucap::kJobsDropped, "jobs"},
                                     std::pair{gpucap::kInstancesDropped, "deployment instances"}})
    for (std::size_t p = 0; p < results.points && p < count; ++p) {
      const double dropped = results.summary_of(p, metric).mean;
      if (!(dropped > 0) || points[p].policy.queue_capacity_set) continue;
      std::cerr << "warning: on average " << format_value(dropped) << " " << noun
                << " per replication" << (results.points > 1 ? " at point " + std::to_string(p) : "")
                << " were dropped because the waiting room was full (default "
                   "policy.queue_capacity = "
                << points[p].policy.queue_capacity
                << " waiting at once); raise it if that is not intended\n";
      break;  // one line per kind: the first point that drops
    }
}

/// Index of the scalar metric called `name`, or a usage error listing the valid names.
gpucap::ScalarMetric metric_named(const std::string& name) {
  try {
    return gpucap::scalar_metric_named("--metrics", name);
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
}

int cmd_run(const std::vector<std::string>& args) {
  gpucap::cli::CommandLine line("gpucap run SCENARIO.yaml [options]", "scenario");
  gpucap::cli::add_metrics_option(
      line.options(),
      "with --precision: comma-separated metrics whose means must reach it (default cost)");
  line.options().add(gpucap::cli::execution_options());
  line.options().add(gpucap::cli::scenario_options());
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Simulates independent replications of a scenario and prints a summary.\n\n"
              << line.options();
    return kExitOk;
  }
  if (!vm.count("scenario")) throw po::error("run needs a SCENARIO.yaml argument");
  gpucap::cli::warm_up_devices_for(vm);  // the GPU's start overlaps reading the scenario
  const bool quiet = vm.count("quiet") > 0;
  const gpucap::Scenario scenario = gpucap::load_scenario(vm["scenario"].as<std::string>(),
                                                          overrides_of(vm), read_input_limits(vm));
  gpucap::RunOptions options = read_execution_options(vm);
  if (vm.count("metrics")) {
    if (!vm.count("precision")) throw po::error("--metrics only applies with --precision");
    for (const std::string& name : gpucap::text::split(vm["metrics"].as<std::string>(), ','))
      options.precision_metrics.push_back(metric_named(gpucap::text::trim(name)));
  }
  const gpucap::OutputOptions output = output_options(vm, scenario.input_files);
  check_output(vm, output);

  const gpucap::RunResults results = run_interruptible({scenario}, {}, scenario, options);
  print_backend_choice(vm, results);
  if (!quiet) {
    std::cout << "scenario \"" << gpucap::text::excerpt(results.scenario_name, 200)
              << "\": " << results.replications << " replications" << rows_kept_note(results)
              << ", seed " << results.seed << ", backend " << results.backend << " ("
              << results.device << "), " << format_value(results.wall_time_s) << " s\n\n";
    if (!results.stopping_rule.empty())
      std::cout << "stopping rule: " << results.stopping_rule << "\n\n";
    print_summary(results, std::cout);
    gpucap::cli::print_goals(results, 0, std::cout);
    print_events_rate(results);
  }
  warn_default_waiting_room(results, &scenario, 1);
  return write_output(vm, results, output);
}

/// The sweep table: one row per point, its parameter values, then for each metric the mean and
/// the paired difference from point 0 with its 95% interval.
void print_sweep_table(const gpucap::RunResults& r,
                       const std::vector<gpucap::ScalarMetric>& metrics) {
  // Paths and values as the table shows them: escaped (a value may hold a line break or an
  // escape sequence) and cut to a column's width.
  std::vector<gpucap::SweepParameter> sweep = r.sweep;
  for (gpucap::SweepParameter& p : sweep) {
    p.path = gpucap::text::excerpt(p.path, 60);
    for (std::string& v : p.values) v = gpucap::text::excerpt(v, 40);
  }
  std::vector<std::size_t> widths;
  std::string header = "point";
  for (const gpucap::SweepParameter& p : sweep) {
    std::size_t w = p.path.size();
    for (const std::string& v : p.values) w = std::max(w, v.size());
    widths.push_back(w);
  }
  char cell[160];
  std::snprintf(cell, sizeof cell, "%5s", "point");
  std::string line = cell;
  for (std::size_t k = 0; k < sweep.size(); ++k) {
    std::snprintf(cell, sizeof cell, "  %-*s", static_cast<int>(widths[k]), sweep[k].path.c_str());
    line += cell;
  }
  for (gpucap::ScalarMetric m : metrics) {
    const std::string name = std::string(gpucap::kScalarMetricInfo[m].name) + " [" +
                             gpucap::kScalarMetricInfo[m].unit + "]";
    std::snprintf(cell, sizeof cell, "  %14s  %-28s", name.c_str(), "minus point 0 (95% CI)");
    line += cell;
  }
  for (const gpucap::GoalSpec& goal : r.goals) {
    std::snprintf(cell, sizeof cell, "  %-28s", ("P(" + goal.name + ") [exact 95%]").c_str());
    line += cell;
  }
  const auto print_line = [](std::string text) {
    text.erase(text.find_last_not_of(' ') + 1);
    std::cout << text << "\n";
  };
  print_line(line);
  for (std::size_t point = 0; point < r.points; ++point) {
    std::snprintf(cell, sizeof cell, "%5zu", point);
    line = cell;
    for (std::size_t k = 0; k < sweep.size(); ++k) {
      std::snprintf(cell, sizeof cell, "  %-*s", static_cast<int>(widths[k]),
                    sweep[k].values[point].c_str());
      line += cell;
    }
    for (gpucap::ScalarMetric m : metrics) {
      const gpucap::MetricSummary d = gpucap::paired_difference(r, m, point, 0);
      const std::string diff = point == 0 ? ""
                               : std::isnan(d.ci95_low)
                                   ? format_value(d.mean) + " (n/a)"
                                   : format_value(d.mean) + " [" + format_value(d.ci95_low) + ", " +
                                         format_value(d.ci95_high) + "]";
      std::snprintf(cell, sizeof cell, "  %14s  %-28s",
                    format_value(r.summary_of(point, m).mean).c_str(), diff.c_str());
      line += cell;
    }
    for (std::size_t g = 0; g < r.goals.size(); ++g) {
      const gpucap::GoalSummary& s = r.goal_summary_of(point, g);
      char goal_cell[96];
      std::snprintf(goal_cell, sizeof goal_cell, "%.4f [%.4f, %.4f]", s.probability, s.exact.low,
                    s.exact.high);
      std::snprintf(cell, sizeof cell, "  %-28s", goal_cell);
      line += cell;
    }
    print_line(line);
  }
}

/// gpucap sweep's options: its own, then the groups it shares (run, decision, scenario,
/// selecting the best, robust plans).
gpucap::cli::CommandLine sweep_command_line() {
  gpucap::cli::CommandLine line("gpucap sweep SCENARIO.yaml --grid path=v1,v2,... [options]",
                                "scenario");
  po::options_description& visible = line.options();
  visible.add_options()(
      "grid,g", po::value<std::vector<std::string>>()->composing(),
      "a swept parameter: dotted.path=value1,value2,... (repeatable; the points are the "
      "cartesian product, the first --grid slowest)")(
      "skip-invalid",
      "run the valid points when some are invalid (each skipped one is named on stderr); "
      "without it, every invalid point is listed and nothing runs");
  gpucap::cli::add_metrics_option(
      visible,
      "comma-separated metrics for the table (default: cost, then latency_p95 and "
      "slo_violation_share for inference, unserved_fraction and instances_served_mean for "
      "deployments alone, else wait_mean and wait_p95)");
  visible.add(gpucap::cli::execution_options());
  visible.add(gpucap::cli::decision_options());
  visible.add(gpucap::cli::scenario_options());
  visible.add(gpucap::cli::select_best_options());
  gpucap::cli::add_robust_plan_options(visible);
  return line;
}

/// What a sweep runs: the scenario, the robust plan's variants (if any), the grid's points
/// checked, and every file they read (never replaced by -o).
struct SweepInput {
  gpucap::Scenario base;
  gpucap::cli::RobustPlanRequest robust;
  gpucap::SweepPoints checked;
  std::vector<std::string> inputs;
};

/// Loads the scenario and checks every point of the grid (the points vary the text that was
/// read once: no second read could see another file); names the points skipped on stderr.
SweepInput load_sweep(const po::variables_map& vm) {
  const std::string path = vm["scenario"].as<std::string>();
  std::vector<gpucap::SweepAxis> axes;
  for (const std::string& g : vm["grid"].as<std::vector<std::string>>())
    axes.push_back(gpucap::parse_grid_axis(g));
  const std::vector<gpucap::SweepParameter> full_grid = gpucap::expand_grid(axes);
  const gpucap::InputLimits limits = read_input_limits(vm);
  SweepInput in;
  in.base = gpucap::load_scenario(path, overrides_of(vm), limits);
  const std::string dir = path.find('/') == std::string::npos
                              ? "."
                              : (path.rfind('/') == 0 ? "/" : path.substr(0, path.rfind('/')));
  in.robust = gpucap::cli::read_robust_plan_request(vm, limits.scenario_bytes);
  in.checked = in.robust.active()
                   ? gpucap::check_robust_points(in.base.original_text, path, dir, overrides_of(vm),
                                                 full_grid, in.robust.variants, limits)
                   : gpucap::check_sweep_points(in.base.original_text, path, dir, overrides_of(vm),
                                                full_grid, limits, vm.count("skip-invalid") > 0);
  for (const std::string& skipped : in.checked.invalid)
    std::cerr << "gpucap sweep: skipped " << skipped << "\n";
  in.inputs = in.base.input_files;
  in.inputs.insert(in.inputs.end(), in.robust.input_files.begin(), in.robust.input_files.end());
  for (const gpucap::Scenario& point : in.checked.points)
    in.inputs.insert(in.inputs.end(), point.input_files.begin(), point.input_files.end());
  return in;
}

/// Refuses --rows with what compares points replication by replication.
void check_sweep_rows(const po::variables_map& vm, const gpucap::RunOptions& options,
                      const gpucap::cli::RobustPlanRequest& robust) {
  if (options.keep_rows == gpucap::RunOptions::kKeepAllRows) return;
  const char* needs_rows = vm.count("select-best") ? "--select-best"
                           : robust.active()       ? "a robust plan (--variants)"
                           : gpucap::cli::wants_decision(vm)
                               ? "a decision (--objective, --constraint, --chance)"
                               : nullptr;
  if (needs_rows)
    throw po::error(std::string("--rows: ") + needs_rows +
                    " compares points replication by replication and needs every row; "
                    "drop --rows (the sweep table needs only the differences from point 0, "
                    "which --rows keeps)");
}

int cmd_sweep(const std::vector<std::string>& args) {
  const gpucap::cli::CommandLine line = sweep_command_line();
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Runs every point of a parameter grid with common random numbers: replication r "
                 "of every point\ndraws the same random numbers, so differences between points "
                 "are paired.\n\n"
              << line.options();
    return kExitOk;
  }
  if (!vm.count("scenario")) throw po::error("sweep needs a SCENARIO.yaml argument");
  if (!vm.count("grid")) throw po::error("sweep needs at least one --grid path=v1,v2,...");
  gpucap::cli::check_select_best_usage(vm);
  gpucap::cli::warm_up_devices_for(vm);  // the GPU's start overlaps reading the points
  const bool quiet = vm.count("quiet") > 0;
  const SweepInput in = load_sweep(vm);
  const std::vector<gpucap::Scenario>& points = in.checked.points;
  const std::vector<gpucap::SweepParameter>& grid = in.checked.grid;
  const gpucap::OutputOptions output = output_options(vm, in.inputs);
  gpucap::RunOptions options = read_execution_options(vm);
  check_sweep_rows(vm, options, in.robust);
  if (vm.count("points") && in.robust.active())
    throw po::error(
        "--points limits the cheapest-point decision (--objective, --constraint, "
        "--chance) and the race of --select-best; --variant chooses among every point of the "
        "grid (give a smaller --grid instead)");
  if (vm.count("select-best")) {
    if (vm.count("resume")) throw po::error("--resume does not apply to --select-best");
    options.journal_path.clear();  // its races run many small batches
    return gpucap::cli::select_best_command(vm, points, grid, in.base, options);
  }
  check_output(vm, output);

  std::vector<gpucap::ScalarMetric> metrics;
  if (vm.count("metrics")) {
    for (const std::string& name : gpucap::text::split(vm["metrics"].as<std::string>(), ','))
      metrics.push_back(metric_named(gpucap::text::trim(name)));
  }
  if (vm.count("precision")) options.precision_metrics = metrics;
  {
    // Goal names, levels and metrics of the decision are checked before anything runs.
    gpucap::RunResults goals_only;
    goals_only.goals = in.base.goals;
    goals_only.points = points.size();  // --points is checked against the grid
    gpucap::cli::check_decision_options(vm, goals_only);
  }
  const gpucap::RunResults results = run_interruptible(points, grid, in.base, options);
  print_backend_choice(vm, results);
  if (metrics.empty()) metrics = default_sweep_metrics(results);
  if (!quiet) {
    std::cout << "sweep of \"" << gpucap::text::excerpt(results.scenario_name, 200)
              << "\": " << results.points << " points x " << results.replications
              << " replications (common random numbers)" << rows_kept_note(results) << ", seed "
              << results.seed << ", backend " << results.backend << " (" << results.device << "), "
              << format_value(results.wall_time_s) << " s\n\n";
    if (!results.stopping_rule.empty())
      std::cout << "stopping rule: " << results.stopping_rule << "\n\n";
    if (in.robust.active()) {
      gpucap::cli::print_robust_plan(in.robust, results, std::cout);
    } else {
      print_sweep_table(results, metrics);
      for (const std::string& w : gpucap::result_warnings(results))
        std::cout << "warning: " << w << "\n";
      if (gpucap::cli::wants_decision(vm)) gpucap::cli::print_decision(vm, results, std::cout);
    }
    print_events_rate(results);
  } else if (!in.robust.active() && gpucap::cli::wants_decision(vm)) {
    // -q leaves out the run's line and the table, never the answer to the question asked.
    gpucap::cli::print_decision(vm, results, std::cout);
  }
  warn_default_waiting_room(results, points.data(), points.size());
  return write_output(vm, results, output);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "gpucap " << gpucap::kVersion << "\n";
    return kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  gpucap::interrupt::install();
  try {
    if (command == "run") return cmd_run(args);
    if (command == "sweep") return cmd_sweep(args);
    if (command == "validate") return gpucap::cli::validate_command(args);
    if (command == "fit") return gpucap::cli::fit_command(args);
    if (command == "backtest") return gpucap::cli::backtest_command(args);
    if (command == "recommend") return gpucap::cli::recommend_command(args);
    if (command == "info") return gpucap::cli::info_command();
    if (command == "explain") return gpucap::cli::explain_command(args);
    if (command == "schema") return gpucap::cli::schema_command(args);
    if (command == "import") return gpucap::cli::import_command(args);
    if (command == "catalog") return gpucap::cli::catalog_command(args);
    if (command == "report") return gpucap::cli::report_command(args);
    std::cerr << "gpucap: unknown command '" << gpucap::text::excerpt(command, 40) << "'\n\n"
              << kUsage;
    return kExitUsage;
  } catch (const Interrupted& stop) {
    const uint64_t saved =
        stop.journal.empty() ? 0 : gpucap::RunJournal::replications_in(stop.journal);
    std::cerr << "gpucap: interrupted by " << gpucap::interrupt::signal_name(stop.signal);
    if (saved > 0)
      std::cerr << "; the run stopped, nothing was written; its first " << saved << " of "
                << stop.replications << " replications per point are in its journal '"
                << gpucap::text::excerpt(stop.journal, 300)
                << "': the same command with --resume continues from there\n";
    else
      std::cerr << "; the run stopped, nothing was written\n";
    // A journal without a finished chunk would continue nothing.
    if (saved == 0 && !stop.journal.empty()) gpucap::RunJournal::remove(stop.journal);
    output_lock.reset();
    return gpucap::interrupt::exit_status_for(stop.signal);
  } catch (const gpucap::InputFileError& e) {
    std::cerr << "gpucap: error: " << e.what() << "\n";
    return kExitRunFailed;
  } catch (const gpucap::ScenarioError& e) {
    std::cerr << "gpucap: invalid scenario: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::invalid_argument& e) {
    // Arguments that parse but cannot go together (e.g. a sweep over the seed).
    std::cerr << "gpucap " << command << ": " << e.what() << "\n";
    return kExitUsage;
  } catch (const gpucap::BackendUnavailable& e) {
    std::cerr << "gpucap: error: " << e.what() << "\n";
    return kExitRunFailed;
  } catch (const po::error& e) {
    // boost quotes arguments as given: an escape sequence in one would reach the terminal.
    std::cerr << "gpucap " << gpucap::text::excerpt(command, 40) << ": "
              << gpucap::text::excerpt(e.what(), 2000) << "\n(see 'gpucap "
              << gpucap::text::excerpt(command, 40) << " --help')\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "gpucap: error: " << e.what() << "\n";
    return kExitRunFailed;
  }
}
