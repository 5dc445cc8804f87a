// gpucap recommend --lookback: the look-back commitment of a log's window of usage (the
// computation is lookback.cpp's).
#include <algorithm>
#include <iostream>

#include "backtest_log.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "lookback.hpp"
#include "run_options.hpp"

namespace gpucap::cli {

int recommend_command(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  CommandLine line("gpucap recommend --lookback WINDOW LOG.csv --ratio R [options]", "log");
  line.options().add_options()(
      "lookback", po::value<std::string>(), "the window of usage to read, ending at --at (e.g. 14d)")(
      "ratio", po::value<double>(),
      "committed price over on-demand price per GPU-hour, in (0, 1) (e.g. 1.90 / 3.50 = 0.543)")(
      "at", po::value<std::string>(), "the end of the window, from the log's t = 0 (default: the "
      "log's end)")(
      "kind", po::value<std::string>()->default_value("deployment"),
      "deployment (an instance log: start_s, end_s, gpus) or job (submit_s, duration_s, gpus)")(
      "window", po::value<std::string>(), "the log's end (default: its last time)");
  add_max_data_size_option(line.options(), "largest log read (default 256MiB)");
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << "Recommends a commitment (a GPU count) from a window of a log's usage, as the "
                 "clouds'\nreservation recommenders do: the (1 - ratio) quantile of the "
                 "window's hourly GPUs in use.\nSee docs/backtest.md.\n\n"
              << line.options();
    return 0;
  }
  if (!vm.count("log")) throw po::error("recommend needs a LOG.csv argument");
  if (!vm.count("lookback")) throw po::error("recommend needs --lookback WINDOW (e.g. 14d)");
  if (!vm.count("ratio")) throw po::error("recommend needs --ratio R (committed / on-demand)");
  const double ratio = vm["ratio"].as<double>();
  if (!(ratio > 0 && ratio < 1))
    throw po::error("--ratio must lie between 0 and 1 (committed price below on-demand)");
  const auto duration = [&](const char* name) {
    return parse_duration_option(std::string("--") + name, vm[name].as<std::string>());
  };
  const double lookback = duration("lookback");
  const std::string kind = vm["kind"].as<std::string>();
  if (kind != "deployment" && kind != "job")
    throw po::error("--kind must be deployment or job, got \"" + text::excerpt(kind) + "\"");
  fit::TraceColumns columns;
  if (kind == "deployment") {
    columns.submit = "start_s";
    columns.end = "end_s";
  }
  const std::string path = vm["log"].as<std::string>();
  const std::string text = read_input_file(path, read_input_limits(vm).data_bytes, "log file", "--max-data-size");
  const BacktestLog log =
      BacktestLog::read(text, path, kind == "deployment" ? LogKind::instances : LogKind::jobs,
                        columns, vm.count("window") ? duration("window") : 0);
  const double at = vm.count("at") ? duration("at") : log.window_s();
  const double from = std::max(0.0, at - lookback);
  const std::vector<double> usage = log.hourly_usage(from, at);
  if (usage.empty())
    throw po::error("the window [" + text::format_duration(from) + ", " +
                    text::format_duration(at) + "] holds no whole hour of the log");
  const double c = lookback_commitment(usage, ratio);
  std::cout << "look-back recommendation: commit " << text::format_number(c) << " GPUs\n"
            << "  the " << text::format_number((1 - ratio) * 100)
            << "% quantile of the GPUs in use over " << usage.size() << " hours ("
            << text::format_duration(from) << " to " << text::format_duration(at)
            << " of the log): P(usage > " << text::format_number(c) << " GPUs) = "
            << text::format_number(ratio) << ", where one more committed GPU stops paying\n";
  return 0;
}

}  // namespace gpucap::cli
