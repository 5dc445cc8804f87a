// gpucap backtest: the command (options, progress, outputs); the work is backtest.cpp's.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "backtest.hpp"
#include "backtest_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "fit_check.hpp"
#include "run_options.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/sweep.hpp"

namespace gpucap::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace {

double duration_option(const po::variables_map& vm, const char* name, double fallback) {
  return vm.count(name) ? parse_duration_option(std::string("--") + name, vm[name].as<std::string>())
                        : fallback;
}

uint64_t count_option(const po::variables_map& vm, const char* name, uint64_t low, uint64_t high) {
  return parse_count(std::string("--") + name, vm[name].as<std::string>(), low, high);
}

}  // namespace

int backtest_command(const std::vector<std::string>& args) {
  CommandLine line("gpucap backtest LOG.csv --pools POOLS.yaml --placement POOL [options]", "log");
  po::options_description& v = line.options();
  add_output_option(v, "write the results as JSON here (atomically)");
  v.add_options()(
      "kind", po::value<std::string>()->default_value("deployment"),
      "deployment (an instance log: start_s, end_s, gpus), job (a job trace: submit_s, "
      "duration_s, gpus) or service (a request log)")(
      "pools", po::value<std::string>(),
      "a scenario with name, seed and pools (and commitments): what the forecast and the replay "
      "run on; its horizon and workloads are replaced")(
      "placement", po::value<std::string>(), "the fitted workloads' pools, comma-separated "
      "(a service: its pool)")(
      "first", po::value<std::string>()->default_value("7d"), "the first origin T")(
      "every", po::value<std::string>()->default_value("2d"), "origins every this long")(
      "horizon", po::value<std::string>()->default_value("7d"), "how far each forecast looks")(
      "max-origins", po::value<std::string>()->default_value("1000"), "at most this many origins")(
      "metrics", po::value<std::string>(),
      "metrics scored at each origin (default: cost and the kind's demand and service metrics)")(
      "plan", po::value<std::string>(),
      "PATH=v1,v2,...: the plan swept at each origin (e.g. commitments.plan.gpus=0,100,200); "
      "the forecast chooses the value of the lowest mean objective")(
      "objective", po::value<std::string>()->default_value("cost"), "what the plan minimizes")(
      "lookback", po::value<std::string>()->default_value("14d"),
      "the look-back recommender's window of usage before each origin")(
      "lookback-ratio", po::value<double>(),
      "committed over on-demand price for the recommender (default: from the plan's commitment)")(
      "replications,r", po::value<std::string>()->default_value("200"), "futures per forecast")(
      "truth-replications", po::value<std::string>()->default_value("5"),
      "replications of the replay (its pools' own randomness)")(
      "trend", po::value<std::string>()->default_value("extrapolate"),
      "the fit's --trend: average, extrapolate or last-week")(
      "window", po::value<std::string>(), "the log's end (default: its last time)")(
      "class-by", po::value<std::string>()->default_value("gpus"), "the fit's classes")(
      "html", po::value<std::string>(), "write an HTML page with charts here (atomically)");
  add_force_option(v, "replace a symbolic link at an output path");
  add_max_data_size_option(v, "largest log or data file read (default 256MiB)");
  add_quiet_option(v, "no progress and no table");
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Rolling-origin backtest of a log: at each origin T, fit the log as known at "
                 "T, forecast\n[T, T + horizon], replay what happened, and score the forecast's "
                 "intervals and plan.\nSee docs/backtest.md.\n\n"
              << v;
    return 0;
  }
  if (!vm.count("log")) throw po::error("backtest needs a LOG.csv argument");
  if (!vm.count("pools")) throw po::error("backtest needs --pools POOLS.yaml (name, seed, pools)");
  if (!vm.count("placement")) throw po::error("backtest needs --placement POOL,...");
  BacktestOptions o;
  o.log_path = vm["log"].as<std::string>();
  o.pools_path = vm["pools"].as<std::string>();
  for (const std::string& p : text::split(vm["placement"].as<std::string>(), ','))
    if (!text::trim(p).empty()) o.placement.push_back(text::trim(p));
  const std::string kind = vm["kind"].as<std::string>();
  if (kind == "deployment") {
    o.kind = LogKind::instances;
    o.columns.submit = "start_s";
    o.columns.end = "end_s";
  } else if (kind == "job") {
    o.kind = LogKind::jobs;
  } else if (kind == "service") {
    o.kind = LogKind::requests;
  } else {
    throw po::error("--kind must be deployment, job or service, got \"" + text::excerpt(kind) + "\"");
  }
  o.columns.class_by = vm["class-by"].as<std::string>();
  o.first_s = duration_option(vm, "first", o.first_s);
  o.every_s = duration_option(vm, "every", o.every_s);
  o.horizon_s = duration_option(vm, "horizon", o.horizon_s);
  o.lookback_s = duration_option(vm, "lookback", o.lookback_s);
  o.window_s = duration_option(vm, "window", 0);
  o.max_origins = count_option(vm, "max-origins", 1, 100000);
  o.replications = count_option(vm, "replications", 2, 1000000);
  o.truth_replications = count_option(vm, "truth-replications", 1, 100000);
  o.trend = parse_trend(vm["trend"].as<std::string>());
  try {
    o.objective = metric_for_check(vm["objective"].as<std::string>());
    if (vm.count("metrics")) {
      for (const std::string& m : text::split(vm["metrics"].as<std::string>(), ','))
        o.metrics.push_back(metric_for_check(text::trim(m)));
    } else {
      o.metrics.push_back(kCostUsd);
      const char* defaults[3][2] = {{"instance_hours_demanded", "instances_served_mean"},
                                    {"gpu_hours_used", "wait_mean"},
                                    {"requests_arrived", "latency_p99"}};
      for (const char* m : defaults[static_cast<int>(o.kind)]) o.metrics.push_back(metric_for_check(m));
    }
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
  if (vm.count("plan")) {
    const SweepAxis axis = parse_grid_axis(vm["plan"].as<std::string>());
    o.plan_path = axis.path;
    o.plan_values = axis.values;
  }
  if (vm.count("lookback-ratio")) {
    o.lookback_ratio = vm["lookback-ratio"].as<double>();
    if (!(o.lookback_ratio > 0 && o.lookback_ratio < 1))
      throw po::error("--lookback-ratio must lie between 0 and 1 (committed below on-demand)");
  }
  o.limits = read_input_limits(vm);
  const bool quiet = vm.count("quiet") > 0;
  OutputOptions output_options;
  output_options.force = vm.count("force") > 0;
  output_options.inputs = {o.log_path, o.pools_path};
  for (const char* out : {"output", "html"})
    if (vm.count(out)) check_output_path(vm[out].as<std::string>(), output_options);

  const std::string text = read_input_file(o.log_path, o.limits.data_bytes, "log file", "--max-data-size");
  // A folder of its own (mkdtemp: new, private, not a name another process could have made).
  std::string folder = (fs::temp_directory_path() / "gpucap-backtest-XXXXXX").string();
  if (::mkdtemp(folder.data()) == nullptr)
    throw std::runtime_error("cannot make a work folder " + text::excerpt(folder) + ": " +
                             std::strerror(errno));
  const fs::path work = folder;
  o.work_dir = work.string();
  const bool terminal = ::isatty(2) && !quiet;
  BacktestResult result;
  try {
    result = run_backtest(o, text, [&](std::size_t i, std::size_t n, double t) {
      if (terminal)
        std::cerr << "\rgpucap backtest: origin " << i + 1 << "/" << n << " (day "
                  << text::format_table_value(t / 86400) << ")   " << std::flush;
    });
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(work, ignored);
    throw;
  }
  std::error_code ignored;
  fs::remove_all(work, ignored);
  if (terminal) std::cerr << "\n";
  if (!quiet) print_backtest(result, o, std::cout);
  if (vm.count("output")) {
    const std::string json = backtest_json(result, o);
    write_output_atomically(vm["output"].as<std::string>(), json.data(), json.size(), output_options);
    if (!quiet) std::cout << "results written to " << vm["output"].as<std::string>() << "\n";
  }
  if (vm.count("html")) {
    const std::string html = backtest_html(result, o);
    write_output_atomically(vm["html"].as<std::string>(), html.data(), html.size(), output_options);
    if (!quiet) std::cout << "report written to " << vm["html"].as<std::string>() << "\n";
  }
  return 0;
}

}  // namespace gpucap::cli
