// gpucap: the command-line front end.
//
//   gpucap run SCENARIO.yaml [-r N] [--seed S] [-o results.h5] [--backend cpu|cuda|auto]
//              [--threads T] [--set k=v]... [-q]
//   gpucap sweep SCENARIO.yaml --grid k=v1,v2,... [--grid ...] [run options] [--metrics m1,m2]
//   gpucap sweep ... [--objective M] [--constraint 'M<=V']... [--chance 'GOAL>=P']...
//                [--conservative] [--precision F --max-replications N] (decision_report.cpp)
//   gpucap sweep ... --select-best --objective M --delta D (select_best_command.cpp)
//   gpucap sweep ... [--variant 'NAME: k=v, k=v']... [--variants V.yaml] (robust_plan_command.cpp)
//   gpucap validate SCENARIO.yaml [--set k=v]...
//   gpucap fit TRACE.csv -o WORKLOAD.yaml [--class-by COLUMN] (fit_command.cpp)
//   gpucap report RESULTS.h5 -o report.html [--objective M] [--versus M] (report_command.cpp)
//   gpucap info
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
#include <unistd.h>
#include <vector>

#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/interrupt.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/sweep.hpp"
#include "gpucap/variant_sweep.hpp"
#include "gpucap/version.hpp"

#include "commands.hpp"
#include "decision_report.hpp"
#include "fit_command.hpp"
#include "report_command.hpp"
#include "robust_plan_command.hpp"
#include "select_best_command.hpp"

namespace po = boost::program_options;

namespace {

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
  bool clipped = false;
  for (uint32_t m = 0; m < gpucap::kScalarMetricCount; ++m) {
    const gpucap::MetricGroup group = gpucap::kScalarMetricInfo[m].group;
    if ((group == gpucap::MetricGroup::jobs && !has_jobs && has_services) ||
        (group == gpucap::MetricGroup::inference && !has_services))
      continue;
    const gpucap::MetricSummary& s = r.summary_of(0, static_cast<gpucap::ScalarMetric>(m));
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

po::options_description scenario_options() {
  po::options_description o("scenario options");
  o.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                  "override a scenario value: dotted.path=value (repeatable), e.g. "
                  "--set pools.aws-od.quota=16 --set workloads.0.gpus=4; the value null deletes "
                  "the key")("unset", po::value<std::vector<std::string>>()->composing(),
                             "delete a scenario key or list item before the --set values apply: "
                             "dotted.path (repeatable), e.g. --unset workloads.chat.replicas")(
      "max-scenario-size", po::value<std::string>(),
      "largest scenario file read (default 1MiB); sizes take KiB, MiB, GiB")(
      "max-data-size", po::value<std::string>(),
      "largest data file (trace, catalog, samples) read (default 256MiB)");
  return o;
}

/// The overrides of --unset and --set: every --unset first (as "path=null", which deletes the
/// key or item), then every --set, each in the order given.
std::vector<std::string> overrides_of(const po::variables_map& vm) {
  std::vector<std::string> out;
  if (vm.count("unset"))
    for (const std::string& path : vm["unset"].as<std::vector<std::string>>()) {
      if (path.empty() || path.find('=') != std::string::npos)
        throw po::error(
            "--unset takes a dotted path without a value, e.g. "
            "--unset workloads.chat.replicas; got \"" +
            gpucap::text::excerpt(path) + "\"");
      out.push_back(path + "=null");
    }
  if (vm.count("set"))
    for (const std::string& assignment : vm["set"].as<std::vector<std::string>>())
      out.push_back(assignment);
  return out;
}

/// A whole number for option `name` in [lo, hi]; anything else (a sign, a fraction, digits
/// beyond 64 bits) is a usage error that says what is valid.
uint64_t parse_count(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string valid =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  const std::string t = gpucap::text::trim(text);
  if (t.empty() || t.size() > 19 || t.find_first_not_of("0123456789") != std::string::npos)
    throw po::error(name + " must be " + valid + ", got \"" + gpucap::text::excerpt(text) + "\"");
  const uint64_t v = std::stoull(t);
  if (v < lo || v > hi) throw po::error(name + " must be " + valid + ", got " + std::to_string(v));
  return v;
}

/// The byte budgets of the files a scenario reads (--max-scenario-size, --max-data-size).
gpucap::InputLimits read_input_limits(const po::variables_map& vm) {
  gpucap::InputLimits limits;
  const auto size = [&](const char* name, uint64_t& out) {
    if (!vm.count(name)) return;
    try {
      out = gpucap::parse_byte_size(vm[name].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--") + name + ": " + e.what());
    }
  };
  size("max-scenario-size", limits.scenario_bytes);
  size("max-data-size", limits.data_bytes);
  return limits;
}

int cmd_validate(const std::vector<std::string>& args) {
  po::options_description visible("gpucap validate SCENARIO.yaml [options]");
  visible.add_options()("help,h", "show this help");
  visible.add(scenario_options());
  po::options_description all = visible;
  all.add_options()("scenario", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "Checks a scenario file without running it.\n\n" << visible;
    return kExitOk;
  }
  if (!vm.count("scenario")) throw po::error("validate needs a SCENARIO.yaml argument");
  const auto overrides = overrides_of(vm);
  const gpucap::Scenario s =
      gpucap::load_scenario(vm["scenario"].as<std::string>(), overrides, read_input_limits(vm));
  uint64_t quota = 0;
  for (const auto& p : s.pools) quota += p.quota_gpus;
  std::size_t services = 0;
  for (const auto& w : s.workloads) services += w.kind == gpucap::WorkloadKind::inference;
  std::cout << gpucap::text::excerpt(vm["scenario"].as<std::string>(), 300) << ": valid: \""
            << gpucap::text::excerpt(s.name, 200) << "\", " << s.pools.size() << " pools (" << quota
            << " GPUs of quota), " << s.workloads.size() << " workloads (" << services
            << " inference services), horizon " << gpucap::text::format_duration(s.horizon_s)
            << ", warm-up " << gpucap::text::format_duration(s.warmup_s) << ", "
            << format_value(static_cast<double>(gpucap::replication_arena_bytes(
                                gpucap::compile_without_trace_rows(s).model())) /
                            1024.0)
            << " KiB of state per replication\n";
  // The memory a run of the scenario's replications would take on all cores (the guard that
  // refuses oversized runs applies the same estimate before allocating).
  const int threads = gpucap::resolve_thread_count(0);
  const auto estimate = [&](bool writes_file) {
    return gpucap::estimate_run_memory(
        1, s.replications, s.pools.size(), static_cast<uint64_t>(s.timeseries_bins()),
        gpucap::replication_arena_bytes(gpucap::compile_without_trace_rows(s).model()),
        static_cast<uint64_t>(threads), writes_file);
  };
  const uint64_t available = gpucap::available_host_memory_bytes();
  std::cout << "memory for a run of " << s.replications << " replications on " << threads
            << " threads: about " << estimate(false).describe() << "; with -o about "
            << gpucap::format_bytes(estimate(true).total_bytes()) << "; available "
            << (available == UINT64_MAX ? std::string("unknown") : gpucap::format_bytes(available))
            << (estimate(false).total_bytes() > available
                    ? " (more than available: such a run is refused; give fewer replications "
                      "with -r, or keep fewer rows with --rows)"
                    : "")
            << "\n";
  // Keeping no rows: one chunk's rows and the summaries, whatever the replication count.
  const uint64_t row_bytes =
      8 *
      (gpucap::kScalarMetricCount +
       s.pools.size() * (gpucap::kPoolMetricCount + static_cast<uint64_t>(s.timeseries_bins())));
  std::cout << "with --rows none: about "
            << gpucap::estimate_streaming_run_memory(
                   1, 0, gpucap::default_chunk_replications(row_bytes, false), s.pools.size(),
                   static_cast<uint64_t>(s.timeseries_bins()),
                   gpucap::replication_arena_bytes(gpucap::compile_without_trace_rows(s).model()),
                   static_cast<uint64_t>(threads), true)
                   .describe()
            << " at any replication count\n";
  return kExitOk;
}

/// --backend's help: each name of the backend table and what it runs on.
std::string backend_help() {
  std::string help = std::string("where replications run: ") + gpucap::kAutoBackendName + " (" +
                     gpucap::kAutoBackendDescription + ")";
  for (const gpucap::Backend& b : gpucap::backends())
    help += std::string(", ") + b.name + " (" + b.description + ")";
  return help;
}

/// Options shared by run and sweep: how many replications, where, and what to write.
po::options_description execution_options() {
  po::options_description o("run options");
  o.add_options()("replications,r", po::value<std::string>(),
                  "replications per point, 1 to 1000000000 (default: the scenario's "
                  "`replications`)")("seed", po::value<std::string>(),
                                     "random seed, 0 to 2^64 - 1 (default: the scenario's `seed`)")(
      "output,o", po::value<std::string>(),
      "write results to this HDF5 file (atomically; never onto an input, a link or a special "
      "file)")("force",
               "with -o: replace a symbolic link at the output path (the link itself, "
               "never the file it points to)")(
      "backend,b", po::value<std::string>()->default_value(gpucap::kAutoBackendName),
      backend_help().c_str())("threads,t", po::value<std::string>(),
                              "CPU threads, 0 (all cores, the default) to 1024")(
      "quiet,q", "no progress bar and no summary table")(
      "precision", po::value<std::string>(),
      "run until the 95% interval of the mean of each --metrics metric (default cost), at every "
      "point, is within this fraction of the mean (e.g. 0.01); -r is then the first batch; stops "
      "at a multiple of 256 replications, with the same results as a run of that many")(
      "max-replications", po::value<std::string>(),
      "with --precision: the most replications per point (default 1000000); with "
      "--select-best: the most replications of one point (default 10000), a race still open "
      "there ends without the guarantee")(
      "devices", po::value<std::string>(),
      "device backends: the devices to use, by index, e.g. 0,1 (default: every device the "
      "backend sees; `gpucap info` lists them); results are the same bits on any")(
      "resume",
      "with -o: continue the run that was stopped (kill, crash, Ctrl-C) from the journal it "
      "left beside the output (OUTPUT.resume), after checking it is the same run; the results "
      "are the same bits as an uninterrupted run's")(
      "journal",
      "with -o: keep the journal that --resume continues from the first chunk on (by default "
      "a run keeps one once it is expected to take more than a minute)")(
      "chunk", po::value<std::string>(),
      "replications per chunk of runs that keep fewer rows or keep a journal (whole blocks of "
      "256; default: about 32 MiB of rows); the results do not depend on it")(
      "rows", po::value<std::string>(),
      "per-replication rows to keep: all (the default, within the memory available), none, or "
      "'first N'; with fewer, the summaries still cover every replication, in memory that does "
      "not grow with them (means and intervals the same bits, percentiles within 0.1%)");
  return o;
}

/// --rows: "all", "none", "first N" (or "first=N", "first:N").
uint64_t parse_rows(const std::string& text) {
  const std::string t = gpucap::text::trim(text);
  if (t == "all") return gpucap::RunOptions::kKeepAllRows;
  if (t == "none") return 0;
  if (t.compare(0, 5, "first") == 0 && t.size() > 6 && (t[5] == ' ' || t[5] == '=' || t[5] == ':'))
    return parse_count("--rows first", gpucap::text::trim(t.substr(6)), 1,
                       gpucap::kMaxReplications);
  throw po::error("--rows: expected all, none or 'first N' (N from 1 to " +
                  std::to_string(gpucap::kMaxReplications) + "), got '" +
                  gpucap::text::excerpt(text) + "'");
}

/// " (rows kept: first N)" or " (rows kept: none)" when a run kept fewer rows than it ran.
std::string rows_kept_note(const gpucap::RunResults& r) {
  if (r.all_rows()) return "";
  return r.rows_per_point() == 0
             ? " (rows kept: none; summaries of all)"
             : " (rows kept: first " + std::to_string(r.rows_per_point()) + "; summaries of all)";
}

gpucap::RunOptions read_execution_options(const po::variables_map& vm) {
  gpucap::RunOptions options;
  if (vm.count("replications"))
    options.replications = parse_count("--replications", vm["replications"].as<std::string>(), 1,
                                       gpucap::kMaxReplications);
  if (vm.count("seed")) {
    try {
      options.seed = gpucap::parse_seed(vm["seed"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--seed: ") + e.what());
    }
    options.has_seed = true;
  }
  try {
    options.backend = gpucap::parse_backend(vm["backend"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw po::error(std::string("--backend: ") + e.what());
  }
  if (vm.count("threads"))
    options.threads = static_cast<int>(
        parse_count("--threads", vm["threads"].as<std::string>(), 0, gpucap::kMaxThreads));
  if (vm.count("precision")) {
    const std::string text = vm["precision"].as<std::string>();
    char* end = nullptr;
    options.precision = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(options.precision > 0 && options.precision <= 1))
      throw po::error(
          "--precision: expected a fraction of the mean above 0 and at most 1 (e.g. "
          "0.01 for 1%), got '" +
          gpucap::text::excerpt(text) + "'");
  }
  if (vm.count("max-replications")) {
    if (!vm.count("precision") && !vm.count("select-best"))
      throw po::error("--max-replications only applies with --precision or --select-best");
    options.max_replications =
        parse_count("--max-replications", vm["max-replications"].as<std::string>(), 2,
                    gpucap::kMaxReplications);
  }
  if (vm.count("rows")) options.keep_rows = parse_rows(vm["rows"].as<std::string>());
  if (vm.count("chunk")) {
    options.chunk_replications = parse_count("--chunk", vm["chunk"].as<std::string>(),
                                             gpucap::kMomentBlock, gpucap::kMaxReplications);
    if (options.chunk_replications % gpucap::kMomentBlock != 0)
      throw po::error("--chunk: must be a multiple of " + std::to_string(gpucap::kMomentBlock) +
                      " replications, got " + std::to_string(options.chunk_replications));
  }
  if (vm.count("resume") && !vm.count("output"))
    throw po::error("--resume continues a run that writes a file: give the same -o");
  if (vm.count("journal") && !vm.count("output"))
    throw po::error("--journal applies with -o (it is OUTPUT.resume)");
  if (vm.count("output")) {
    options.journal_path = gpucap::RunJournal::path_for(vm["output"].as<std::string>());
    options.resume = vm.count("resume") > 0;
    options.journal_always = vm.count("journal") > 0;
    // The journal's timing and size (docs/scale.md); tests shorten them.
    const auto seconds = [](const char* name, double& out) {
      const char* text = std::getenv(name);
      if (text == nullptr) return;
      char* end = nullptr;
      out = std::strtod(text, &end);
      if (*text == '\0' || *end != '\0' || !(out >= 0))
        throw po::error(std::string(name) + ": expected seconds, got '" +
                        gpucap::text::excerpt(text) + "'");
    };
    seconds("GPUCAP_JOURNAL_AFTER_SECONDS", options.journal_after_seconds);
    seconds("GPUCAP_JOURNAL_STATE_SECONDS", options.journal_state_every_seconds);
    if (const char* bytes = std::getenv("GPUCAP_JOURNAL_COMPACT_BYTES"))
      options.journal_compact_bytes =
          parse_count("GPUCAP_JOURNAL_COMPACT_BYTES", bytes, 0, uint64_t{1} << 50);
  }
  if (vm.count("devices"))
    for (const std::string& item : gpucap::text::split(vm["devices"].as<std::string>(), ','))
      options.device_limits.devices.push_back(
          static_cast<int>(parse_count("--devices", gpucap::text::trim(item), 0, 1023)));
  options.progress = !vm.count("quiet") && gpucap::ProgressBar::stderr_is_terminal();
  options.writes_file = vm.count("output") > 0;
  return options;
}

/// Where and how -o writes: --force, and the run's inputs (never replaced).
gpucap::OutputOptions output_options(const po::variables_map& vm,
                                     const std::vector<std::string>& inputs) {
  gpucap::OutputOptions output;
  output.force = vm.count("force") > 0;
  output.inputs = inputs;
  // The file's chunks are compressed on the run's threads (--threads; 0: every core).
  if (vm.count("threads"))
    output.threads = static_cast<unsigned>(
        parse_count("--threads", vm["threads"].as<std::string>(), 0, gpucap::kMaxThreads));
  return output;
}

/// The lock of -o (run_journal.hpp): one run at a time writes an output and its journal. Held
/// from before the run until its results are written and its journal removed (or, when it is
/// interrupted, until its journal is dealt with); the system releases it if the process dies.
std::unique_ptr<gpucap::OutputLock> output_lock;

/// Checks -o before a run, so that a refused output costs no simulation time, and takes its
/// lock (a lock taken over from a run that was killed is said).
void check_output(const po::variables_map& vm, const gpucap::OutputOptions& output) {
  if (vm.count("force") && !vm.count("output")) throw po::error("--force only applies with -o");
  if (!vm.count("output")) return;
  const std::string path = vm["output"].as<std::string>();
  gpucap::check_output_path(path, output);
  output_lock = gpucap::OutputLock::acquire(path);
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

/// Parses a command's arguments: its options plus one positional SCENARIO.yaml.
po::variables_map parse_command(const std::vector<std::string>& args,
                                const po::options_description& visible) {
  po::options_description all = visible;
  all.add_options()("scenario", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
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

/// Index of the scalar metric called `name`, or a usage error listing the valid names.
gpucap::ScalarMetric metric_named(const std::string& name) {
  for (uint32_t m = 0; m < gpucap::kScalarMetricCount; ++m)
    if (name == gpucap::kScalarMetricInfo[m].name) return static_cast<gpucap::ScalarMetric>(m);
  std::string valid;
  for (uint32_t m = 0; m < gpucap::kScalarMetricCount; ++m)
    valid += std::string(m ? ", " : "") + gpucap::kScalarMetricInfo[m].name;
  throw po::error("--metrics: unknown metric '" + name + "'; valid: " + valid);
}

int cmd_run(const std::vector<std::string>& args) {
  po::options_description visible("gpucap run SCENARIO.yaml [options]");
  visible.add_options()("help,h", "show this help")(
      "metrics,m", po::value<std::string>(),
      "with --precision: comma-separated metrics whose means must reach it (default cost)");
  visible.add(execution_options());
  visible.add(scenario_options());
  const po::variables_map vm = parse_command(args, visible);
  if (vm.count("help")) {
    std::cout << "Simulates independent replications of a scenario and prints a summary.\n\n"
              << visible;
    return kExitOk;
  }
  if (!vm.count("scenario")) throw po::error("run needs a SCENARIO.yaml argument");
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
  const double dropped = results.summary_of(0, gpucap::kJobsDropped).mean;
  if (dropped > 0 && !scenario.policy.queue_capacity_set)
    std::cerr << "warning: on average " << format_value(dropped)
              << " jobs per replication were dropped because the waiting room was full "
                 "(default policy.queue_capacity = "
              << scenario.policy.queue_capacity << " jobs); raise it if that is not intended\n";
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

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description visible("gpucap sweep SCENARIO.yaml --grid path=v1,v2,... [options]");
  visible.add_options()("help,h", "show this help")(
      "grid,g", po::value<std::vector<std::string>>()->composing(),
      "a swept parameter: dotted.path=value1,value2,... (repeatable; the points are the "
      "cartesian product, the first --grid slowest)")(
      "skip-invalid",
      "run the valid points when some are invalid (each skipped one is named on stderr); "
      "without it, every invalid point is listed and nothing runs")(
      "metrics,m", po::value<std::string>(),
      "comma-separated metrics for the table (default: cost, then wait_mean and wait_p95 for "
      "jobs or latency_p95 and slo_violation_share for inference)");
  visible.add(execution_options());
  visible.add(gpucap::cli::decision_options());
  visible.add(scenario_options());
  visible.add(gpucap::cli::select_best_options());
  gpucap::cli::add_robust_plan_options(visible);
  const po::variables_map vm = parse_command(args, visible);
  if (vm.count("help")) {
    std::cout << "Runs every point of a parameter grid with common random numbers: replication r "
                 "of every point\ndraws the same random numbers, so differences between points "
                 "are paired.\n\n"
              << visible;
    return kExitOk;
  }
  if (!vm.count("scenario")) throw po::error("sweep needs a SCENARIO.yaml argument");
  if (!vm.count("grid")) throw po::error("sweep needs at least one --grid path=v1,v2,...");
  gpucap::cli::check_select_best_usage(vm);
  const std::string path = vm["scenario"].as<std::string>();
  const bool quiet = vm.count("quiet") > 0;

  std::vector<gpucap::SweepAxis> axes;
  for (const std::string& g : vm["grid"].as<std::vector<std::string>>())
    axes.push_back(gpucap::parse_grid_axis(g));
  const std::vector<gpucap::SweepParameter> full_grid = gpucap::expand_grid(axes);
  const gpucap::InputLimits limits = read_input_limits(vm);
  const gpucap::Scenario base = gpucap::load_scenario(path, overrides_of(vm), limits);
  // The points vary the text that was read once (no second read that could see another file).
  const std::string dir = path.find('/') == std::string::npos
                              ? "."
                              : (path.rfind('/') == 0 ? "/" : path.substr(0, path.rfind('/')));
  const gpucap::cli::RobustPlanRequest robust =
      gpucap::cli::read_robust_plan_request(vm, limits.scenario_bytes);
  const gpucap::SweepPoints checked =
      robust.active() ? gpucap::check_robust_points(base.original_text, path, dir, overrides_of(vm),
                                                    full_grid, robust.variants, limits)
                      : gpucap::check_sweep_points(base.original_text, path, dir, overrides_of(vm),
                                                   full_grid, limits, vm.count("skip-invalid") > 0);
  for (const std::string& skipped : checked.invalid)
    std::cerr << "gpucap sweep: skipped " << skipped << "\n";
  const std::vector<gpucap::Scenario>& points = checked.points;
  const std::vector<gpucap::SweepParameter>& grid = checked.grid;
  std::vector<std::string> inputs = base.input_files;
  inputs.insert(inputs.end(), robust.input_files.begin(), robust.input_files.end());
  for (const gpucap::Scenario& point : points)
    inputs.insert(inputs.end(), point.input_files.begin(), point.input_files.end());
  const gpucap::OutputOptions output = output_options(vm, inputs);
  gpucap::RunOptions options = read_execution_options(vm);
  if (options.keep_rows != gpucap::RunOptions::kKeepAllRows) {
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
  if (vm.count("select-best")) {
    if (vm.count("resume")) throw po::error("--resume does not apply to --select-best");
    options.journal_path.clear();  // its races run many small batches
    return gpucap::cli::select_best_command(vm, points, grid, base, options);
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
    goals_only.goals = base.goals;
    gpucap::cli::check_decision_options(vm, goals_only);
  }
  const gpucap::RunResults results = run_interruptible(points, grid, base, options);
  if (metrics.empty()) {
    metrics.push_back(gpucap::kCostUsd);
    if (results.summary_of(0, gpucap::kRequestsArrived).mean > 0) {
      metrics.push_back(gpucap::kLatencyP95S);
      metrics.push_back(gpucap::kSloViolationShare);
    } else {
      metrics.push_back(gpucap::kWaitMeanS);
      metrics.push_back(gpucap::kWaitP95S);
    }
  }
  if (!quiet) {
    std::cout << "sweep of \"" << gpucap::text::excerpt(results.scenario_name, 200)
              << "\": " << results.points << " points x " << results.replications
              << " replications (common random numbers)" << rows_kept_note(results) << ", seed "
              << results.seed << ", backend " << results.backend << " (" << results.device << "), "
              << format_value(results.wall_time_s) << " s\n\n";
    if (!results.stopping_rule.empty())
      std::cout << "stopping rule: " << results.stopping_rule << "\n\n";
    if (robust.active()) {
      gpucap::cli::print_robust_plan(robust, results, std::cout);
    } else {
      print_sweep_table(results, metrics);
      if (gpucap::cli::wants_decision(vm)) gpucap::cli::print_decision(vm, results, std::cout);
    }
    print_events_rate(results);
  }
  return write_output(vm, results, output);
}

std::string gibibytes(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

/// One backend's lines of `gpucap info`: what it was built for and whether it can run here,
/// then the devices it sees.
void print_backend(const gpucap::Backend& backend) {
  std::cout << "  " << backend.name;
  if (backend.built() && std::string(backend.label) != backend.name)
    std::cout << " (" << backend.label << ")";
  std::cout << ": ";
  if (!backend.built()) {
    std::cout << "not built (" << backend.not_built << ")\n";
    return;
  }
  const gpucap::DeviceProbe probe = backend.probe();
  std::cout << "built for " << backend.targets << "; "
            << (probe.usable() ? "available" : "unavailable: " + probe.why_none) << "\n";
  for (const gpucap::DeviceInfo& d : probe.devices) {
    std::cout << "    device " << d.index << ": " << d.name << ", "
              << gibibytes(d.total_memory_bytes) << " (" << gibibytes(d.free_memory_bytes)
              << " free)";
    if (d.compute_major > 0)
      std::cout << ", compute capability " << d.compute_major << "." << d.compute_minor << ", "
                << d.multiprocessors << " SMs";
    else
      std::cout << ", " << d.multiprocessors << " threads";
    std::cout << "\n";
  }
}

/// `gpucap explain KEY_PATH...`: what the key table says of each key; exit 2 for an unknown key.
int cmd_explain(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: gpucap explain KEY_PATH...\n\n"
                 "Prints the type, unit, range, default, where it applies and the meaning of each\n"
                 "scenario key, from the table the loader itself reads. KEY_PATH is a pattern\n"
                 "(pools.NAME.quota, workloads[].work) or a path as messages write it\n"
                 "(pools.a100.quota, workloads[0].work.sigma); pools.quota is short for\n"
                 "pools.NAME.quota. 'gpucap explain .' lists the top-level keys.\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  int status = kExitOk;
  for (const std::string& path : args) {
    if (path == ".") {
      std::cout << "top-level keys: " << gpucap::text::join(gpucap::scenario_child_keys(""), ", ")
                << "\n";
      continue;
    }
    const std::string text = gpucap::explain_scenario_key(path);
    if (!text.empty()) {
      std::cout << text;
      continue;
    }
    // Suggest the key whose last part is nearest to the last part given.
    const auto last_part = [](const std::string& p) { return p.substr(p.find_last_of(".]") + 1); };
    std::vector<std::string> names;
    for (const gpucap::ScenarioKey& k : gpucap::scenario_keys()) names.push_back(last_part(k.path));
    const std::string near = gpucap::text::closest(last_part(path), names);
    std::string suggestion;
    for (const gpucap::ScenarioKey& k : gpucap::scenario_keys())
      if (!near.empty() && last_part(k.path) == near) {
        suggestion = k.path;
        break;
      }
    std::cerr << "gpucap explain: no scenario key '" << gpucap::text::excerpt(path) << "'"
              << (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)")
              << "; 'gpucap explain .' lists the top-level keys\n";
    status = kExitUsage;
  }
  return status;
}

/// `gpucap schema`: the JSON Schema of scenario files, for editors' YAML language servers.
int cmd_schema(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cout << "usage: gpucap schema > gpucap-scenario.schema.json\n\n"
                 "Prints a JSON Schema (draft 2020-12) of the scenario format, generated from\n"
                 "the loader's key table. See the README for editor set-up.\n";
    return args[0] == "--help" || args[0] == "-h" ? kExitOk : kExitUsage;
  }
  std::cout << gpucap::scenario_json_schema();
  return kExitOk;
}

int cmd_info() {
  std::cout << "gpucap " << gpucap::kVersion << "\n"
            << "build: " << gpucap::kBuildType << ", " << gpucap::kCompiler << ", OpenMP "
            << (gpucap::kOpenMP ? "on" : "off") << ", HDF5 " << gpucap::kHdf5Version << "\n"
            << "backends:\n";
  for (const gpucap::Backend& backend : gpucap::backends()) print_backend(backend);
  std::cout << "--backend " << gpucap::kAutoBackendName
            << " runs on: " << gpucap::resolve_backend(gpucap::BackendChoice::automatic).name
            << "\n";
  return kExitOk;
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
    if (command == "validate") return cmd_validate(args);
    if (command == "fit") return gpucap::cli::fit_command(args);
    if (command == "info") return cmd_info();
    if (command == "explain") return cmd_explain(args);
    if (command == "schema") return cmd_schema(args);
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
