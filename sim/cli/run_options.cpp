// gpucap CLI: the options of the commands that load and run a scenario (see run_options.hpp).
#include "run_options.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "gpucap/backend.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/moments.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/quantities.hpp"
#include "gpucap/run_journal.hpp"
#include "gpucap/scenario_loader.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

/// --backend's help: each name of the backend table and what it runs on.
std::string backend_help() {
  std::string help = std::string("where replications run: ") + kAutoBackendName + " (" +
                     kAutoBackendDescription + ")";
  for (const Backend& b : backends())
    help += std::string(", ") + b.name + " (" + b.description + ")";
  return help;
}

/// --rows: "all", "none", "first N" (or "first=N", "first:N").
uint64_t parse_rows(const std::string& text) {
  const std::string t = text::trim(text);
  if (t == "all") return RunOptions::kKeepAllRows;
  if (t == "none") return 0;
  if (t.compare(0, 5, "first") == 0 && t.size() > 6 && (t[5] == ' ' || t[5] == '=' || t[5] == ':'))
    return parse_count("--rows first", text::trim(t.substr(6)), 1,
                       kMaxReplications);
  throw po::error("--rows: expected all, none or 'first N' (N from 1 to " +
                  std::to_string(kMaxReplications) + "), got '" +
                  text::excerpt(text) + "'");
}

/// --resume, --journal and, with -o, the journal's path, timing and size.
void read_journal_options(const po::variables_map& vm, RunOptions& options) {
  if (vm.count("resume") && !vm.count("output"))
    throw po::error("--resume continues a run that writes a file: give the same -o");
  if (vm.count("journal") && !vm.count("output"))
    throw po::error("--journal applies with -o (it is OUTPUT.resume)");
  if (vm.count("output")) {
    options.journal_path = RunJournal::path_for(vm["output"].as<std::string>());
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
                        text::excerpt(text) + "'");
    };
    seconds("GPUCAP_JOURNAL_AFTER_SECONDS", options.journal_after_seconds);
    seconds("GPUCAP_JOURNAL_STATE_SECONDS", options.journal_state_every_seconds);
    if (const char* bytes = std::getenv("GPUCAP_JOURNAL_COMPACT_BYTES"))
      options.journal_compact_bytes =
          parse_count("GPUCAP_JOURNAL_COMPACT_BYTES", bytes, 0, uint64_t{1} << 50);
  }
}

}  // namespace

po::options_description scenario_options() {
  po::options_description o("scenario options");
  o.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                  "override a scenario value: dotted.path=value (repeatable), e.g. "
                  "--set pools.aws-od.quota=16 --set workloads.0.gpus=4; the value null deletes "
                  "the key")("unset", po::value<std::vector<std::string>>()->composing(),
                             "delete a scenario key or list item before the --set values apply: "
                             "dotted.path (repeatable), e.g. --unset workloads.chat.replicas")(
      "max-scenario-size", po::value<std::string>(),
      "largest scenario file read (default 1MiB); sizes take KiB, MiB, GiB");
  add_max_data_size_option(o, "largest data file (trace, catalog, samples) read (default 256MiB)");
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
            text::excerpt(path) + "\"");
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
  const std::string t = text::trim(text);
  if (t.empty() || t.size() > 19 || t.find_first_not_of("0123456789") != std::string::npos)
    throw po::error(name + " must be " + valid + ", got \"" + text::excerpt(text) + "\"");
  const uint64_t v = std::stoull(t);
  if (v < lo || v > hi) throw po::error(name + " must be " + valid + ", got " + std::to_string(v));
  return v;
}

double parse_duration_option(const std::string& name, const std::string& text) {
  double s = 0;
  try {
    s = parse_duration_s(text);
  } catch (const std::invalid_argument& e) {
    throw po::error(name + ": " + e.what());
  }
  if (!(s > 0) || s > 1e4 * 365.25 * 86400)
    throw po::error(name + " must be a duration from 1 us to 10000 years, got \"" +
                    text::excerpt(text) + "\"");
  return s;
}

fit::TrendChoice parse_trend(const std::string& text) {
  if (text == "average") return fit::TrendChoice::average;
  if (text == "extrapolate") return fit::TrendChoice::extrapolate;
  if (text == "last-week") return fit::TrendChoice::last_week;
  throw po::error("--trend must be average, extrapolate or last-week, got \"" +
                  text::excerpt(text) + "\"");
}

/// The byte budgets of the files a scenario reads (--max-scenario-size, --max-data-size).
InputLimits read_input_limits(const po::variables_map& vm) {
  InputLimits limits;
  const auto size = [&](const char* name, uint64_t& out) {
    if (!vm.count(name)) return;
    try {
      out = parse_byte_size(vm[name].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--") + name + ": " + e.what());
    }
  };
  size("max-scenario-size", limits.scenario_bytes);
  size("max-data-size", limits.data_bytes);
  return limits;
}

po::options_description execution_options() {
  po::options_description o("run options");
  o.add_options()("replications,r", po::value<std::string>(),
                  "replications per point, 1 to 1000000000 (default: the scenario's "
                  "`replications`)")("seed", po::value<std::string>(),
                                     "random seed, 0 to 2^64 - 1 (default: the scenario's `seed`)");
  add_output_option(o,
                    "write results to this HDF5 file (atomically; never onto an input, a link or "
                    "a special file)");
  add_force_option(o,
                   "with -o: replace a symbolic link at the output path (the link itself, never "
                   "the file it points to)");
  o.add_options()(
      "backend,b", po::value<std::string>()->default_value(kAutoBackendName),
      backend_help().c_str())("threads,t", po::value<std::string>(),
                              "CPU threads, 0 (all cores, the default) to 1024");
  add_quiet_option(o, "no progress bar and no summary table (sweep still prints the decision asked "
                      "for with --objective, --constraint or --chance)");
  o.add_options()("verbose,v",
                  "say on stderr which backend ran and why (with --backend auto: the cost "
                  "model's expected seconds on the CPU and on the GPU)");
  o.add_options()(
      "precision", po::value<std::string>(),
      "run until the 95% interval of the mean of each --metrics metric (default cost), at every "
      "point, is within this fraction of the mean (e.g. 0.01); -r is then the first batch; stops "
      "at a multiple of 256 replications, with the same results as a run of that many")(
      "max-replications", po::value<std::string>(),
      "with --precision: the most replications per point (default 1000000); with "
      "--select-best: the most replications of one point (default 10000), a race still open "
      "there ends without the guarantee")(
      "host-threads", po::value<std::string>(),
      "device backends: CPU threads that join the devices, taking batches of replications from "
      "the same queue (0 to 1024; default 0, or auto's choice where its cost model expects the "
      "GPU and the CPU together to finish first); the results are the same bits")(
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

void warm_up_devices_for(const po::variables_map& vm) {
  const std::string backend =
      vm.count("backend") ? vm["backend"].as<std::string>() : std::string(kAutoBackendName);
  if (backend == kAutoBackendName || backend == "cuda") warm_up_devices();
}

RunOptions read_execution_options(const po::variables_map& vm) {
  RunOptions options;
  if (vm.count("replications"))
    options.replications = parse_count("--replications", vm["replications"].as<std::string>(), 1,
                                       kMaxReplications);
  if (vm.count("seed")) {
    try {
      options.seed = parse_seed(vm["seed"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--seed: ") + e.what());
    }
    options.has_seed = true;
  }
  try {
    options.backend = parse_backend(vm["backend"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw po::error(std::string("--backend: ") + e.what());
  }
  if (vm.count("threads"))
    options.threads = static_cast<int>(
        parse_count("--threads", vm["threads"].as<std::string>(), 0, kMaxThreads));
  if (vm.count("host-threads"))
    options.device_limits.host_threads = static_cast<int>(
        parse_count("--host-threads", vm["host-threads"].as<std::string>(), 0, kMaxThreads));
  if (vm.count("precision")) {
    const std::string text = vm["precision"].as<std::string>();
    char* end = nullptr;
    options.precision = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(options.precision > 0 && options.precision <= 1))
      throw po::error(
          "--precision: expected a fraction of the mean above 0 and at most 1 (e.g. "
          "0.01 for 1%), got '" +
          text::excerpt(text) + "'");
  }
  if (vm.count("max-replications")) {
    if (!vm.count("precision") && !vm.count("select-best"))
      throw po::error("--max-replications only applies with --precision or --select-best");
    options.max_replications =
        parse_count("--max-replications", vm["max-replications"].as<std::string>(), 2,
                    kMaxReplications);
  }
  if (vm.count("rows")) options.keep_rows = parse_rows(vm["rows"].as<std::string>());
  if (vm.count("chunk")) {
    options.chunk_replications = parse_count("--chunk", vm["chunk"].as<std::string>(),
                                             kMomentBlock, kMaxReplications);
    if (options.chunk_replications % kMomentBlock != 0)
      throw po::error("--chunk: must be a multiple of " + std::to_string(kMomentBlock) +
                      " replications, got " + std::to_string(options.chunk_replications));
  }
  read_journal_options(vm, options);
  if (vm.count("devices"))
    for (const std::string& item : text::split(vm["devices"].as<std::string>(), ','))
      options.device_limits.devices.push_back(
          static_cast<int>(parse_count("--devices", text::trim(item), 0, 1023)));
  options.progress = !vm.count("quiet") && ProgressBar::stderr_is_terminal();
  options.writes_file = vm.count("output") > 0;
  return options;
}

OutputOptions output_options(const po::variables_map& vm, const std::vector<std::string>& inputs) {
  OutputOptions output;
  output.force = vm.count("force") > 0;
  output.inputs = inputs;
  // The file's chunks are compressed on the run's threads (--threads; 0: every core).
  if (vm.count("threads"))
    output.threads = static_cast<unsigned>(
        parse_count("--threads", vm["threads"].as<std::string>(), 0, kMaxThreads));
  return output;
}

}  // namespace gpucap::cli
