// gpucap fit TRACE.csv -o WORKLOAD.yaml: per job class, the arrival process (constant or
// hour-of-week rate) and the run-time distribution (maximum likelihood over four families, or
// the empirical one), written as a scenario's `workloads:` section; with --kind llm, an LLM
// service's arrivals and its requests' joint token sample. See docs/fitting.md.
#include "fit_command.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "gpucap/data/delimited.hpp"
#include "gpucap/data/timestamp.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/fit/arrival_fit.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/run_time_model.hpp"
#include "gpucap/fit/workload_yaml.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/llm_catalog.hpp"
#include "gpucap/interrupt.hpp"
#include "gpucap/output_file.hpp"
#include "gpucap/scenario_error.hpp"

#include "command_line.hpp"
#include "fit_check.hpp"
#include "run_options.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

constexpr int kExitOk = 0, kExitIo = 1, kExitUsage = 2;

struct FitOptions {
  std::string trace, output;
  fit::TraceColumns columns;
  std::vector<std::string> placement;
  double window_s = 0;
  double alpha = 0.01;
  fit::RunTimeChoice family = fit::RunTimeChoice::automatic;
  fit::TrendChoice trend = fit::TrendChoice::average;
  fit::FitKind kind = fit::FitKind::job;
  fit::StateChoice state = fit::StateChoice::start;
  std::string model;           ///< --kind llm: the model served (--model)
  uint32_t tensor_parallel = 1;  ///< --kind llm: GPUs per replica
  std::string origin;          ///< --origin as given ("" when absent)
  double origin_offset_s = 0;  ///< t = 0 after the Monday 00:00 of the log's local calendar
  bool force = false, quiet = false;
  uint64_t max_data_bytes = InputLimits::kDefaultDataBytes;
  bool check = false;  ///< --check given
  FitCheckOptions check_options;
};

fit::RunTimeChoice parse_family(const std::string& name) {
  static const std::pair<const char*, fit::RunTimeChoice> names[] = {
      {"auto", fit::RunTimeChoice::automatic},
      {"exponential", fit::RunTimeChoice::exponential},
      {"lognormal", fit::RunTimeChoice::lognormal},
      {"gamma", fit::RunTimeChoice::gamma},
      {"weibull", fit::RunTimeChoice::weibull},
      {"empirical", fit::RunTimeChoice::empirical}};
  for (const auto& [n, choice] : names)
    if (name == n) return choice;
  throw po::error(
      "--family must be auto, exponential, lognormal, gamma, weibull or empirical, "
      "got \"" +
      text::excerpt(name) + "\"");
}

/// The local calendar offset of an ISO time's own suffix (Z, +02:00, -0530), else `zone`'s.
int local_offset_minutes(const std::string& text, const data::TimeZone& zone) {
  const std::size_t time = text.find_first_of("T ", 10);
  if (time == std::string::npos) return zone.offset_minutes;
  if (text.back() == 'Z' || text.back() == 'z') return 0;
  const std::size_t sign = text.find_last_of("+-");
  if (sign == std::string::npos || sign < time) return zone.offset_minutes;
  return data::parse_time_zone(text.substr(sign)).offset_minutes;
}

/// --kind llm's options (--model, --tensor-parallel, the token columns), refused with another
/// kind; what llm does not take (--family, --check), refused with it.
void parse_llm_options(const po::variables_map& vm, FitOptions& o) {
  const bool llm = o.kind == fit::FitKind::llm;
  for (const char* option : {"model", "tensor-parallel", "context-column", "output-column"})
    if (!llm && vm.count(option) && !vm[option].defaulted())
      throw po::error(std::string("--") + option + " applies to --kind llm only");
  if (!llm) return;
  for (const char* option : {"family", "check", "duration-column", "gpus-column"})
    if (vm.count(option) && !vm[option].defaulted())
      throw po::error(std::string("--") + option +
                      " does not apply to --kind llm: a request's time is what its tokens take "
                      "on the replica's GPU, which the simulation gives it");
  std::vector<std::string> names;
  for (const LlmModelShape& m : shipped_llm_models()) names.push_back(m.name);
  if (!vm.count("model"))
    throw po::error("--kind llm needs --model NAME, the model the service runs: " +
                    text::join(names, ", ") + " (data/llm_models.csv)");
  o.model = vm["model"].as<std::string>();
  if (std::find(names.begin(), names.end(), o.model) == names.end())
    throw po::error("--model \"" + text::excerpt(o.model) + "\" is not a model of " +
                    "data/llm_models.csv (" + text::join(names, ", ") +
                    "); for your own, fit with one of those and set llm.model and "
                    "llm.models_file in the YAML");
  o.tensor_parallel = static_cast<uint32_t>(
      parse_count("--tensor-parallel", vm["tensor-parallel"].as<std::string>(), 1, 64));
  o.columns.context = vm["context-column"].as<std::string>();
  o.columns.output = vm["output-column"].as<std::string>();
  // One class unless asked: a request log has no GPU column.
  if (vm["class-by"].defaulted()) o.columns.class_by.clear();
}

/// Parses the arguments; returns false when --help was printed.
bool parse(const std::vector<std::string>& args, FitOptions& o) {
  CommandLine line("gpucap fit TRACE.csv -o WORKLOAD.yaml [options]", "trace");
  po::options_description& visible = line.options();
  add_output_option(visible, "the workloads YAML to write (required)");
  visible.add_options()("class-by", po::value<std::string>()->default_value("gpus"),
                        "one class per distinct value of this column")(
      "submit-column", po::value<std::string>(),
      "submit times, seconds from t = 0 (--origin); default submit_s, or start_s with --kind "
      "deployment (blank or negative: created before t = 0)")(
      "end-column", po::value<std::string>()->default_value("end_s"),
      "--kind deployment: each instance's end, seconds from t = 0 (blank: still running at the "
      "log's end)")("duration-column", po::value<std::string>()->default_value("duration_s"),
                    "run times, seconds")(
      "gpus-column", po::value<std::string>()->default_value("gpus"), "GPUs per job")(
      "censored-column", po::value<std::string>()->default_value("censored"),
      "1 when the job was still running at the log's end (optional column)")(
      "placement", po::value<std::vector<std::string>>()->composing(),
      "pools for every class, most preferred first (comma-separated or repeated); default: a "
      "comment, so classes use every pool")(
      "window", po::value<std::string>(),
      "observation window from t = 0 (a duration: 7d, 604800); default: the last submit, or "
      "the end of the last censored job")(
      "alpha", po::value<double>()->default_value(0.01),
      "level of the test of an hour-of-week profile against a constant rate")(
      "origin", po::value<std::string>(),
      "the calendar time of t = 0 (ISO 8601, its offset or --timezone giving the local clock; "
      "or epoch seconds), as `gpucap import` reports it: hour-of-week profiles are then of the "
      "log's real weekdays and hours (default: t = 0 is taken as Monday 00:00)")(
      "timezone", po::value<std::string>()->default_value("UTC"),
      "the local clock of an --origin written without an offset: UTC or a fixed offset")(
      "kind", po::value<std::string>()->default_value("job"),
      "what the rows are: job (a batch workload per class, run times as `work`), service "
      "(requests of an inference service per class, on the first --placement pool, run times "
      "as `service`, with replicas for about 70% busy), deployment (an instance log as "
      "`gpucap import --instances` writes it: start_s, end_s, gpus; a deployment per class "
      "with its lifetime and its state at t = 0) or llm (an LLM request log as `gpucap import "
      "--format llm` writes it: submit_s, context_tokens, output_tokens; an LLM service on the "
      "first --placement pool with its arrivals and the log's joint token sample; one class "
      "unless --class-by)")(
      "model", po::value<std::string>(),
      "--kind llm: the model the service runs, a row of data/llm_models.csv (llama-2-7b, ...)")(
      "tensor-parallel", po::value<std::string>()->default_value("1"),
      "--kind llm: GPUs per replica (the workload's gpus), 1 to 64")(
      "context-column", po::value<std::string>()->default_value("context_tokens"),
      "--kind llm: prompt tokens per request (Azure's ContextTokens when the file has it "
      "instead)")("output-column", po::value<std::string>()->default_value("output_tokens"),
                  "--kind llm: output tokens per request (Azure's GeneratedTokens when the "
                  "file has it instead)")(
      "state", po::value<std::string>()->default_value("start"),
      "--kind deployment: the initial_state written: start (the instances alive at the log's "
      "start, with their logged ends: the log's own window) or end (those still running at its "
      "end, remaining drawn given their age: a forecast from the log's end)")(
      "trend", po::value<std::string>()->default_value("average"),
      "an arrival rate that drifts over the window (log-linear trend test at --alpha): average "
      "(the window's mean, with a warning), extrapolate (the fitted level at the window's "
      "end) or last-week (fit the last 7 days alone)")(
      "family", po::value<std::string>()->default_value("auto"),
      "run-time model: auto (AIC, then the empirical rule), exponential, lognormal, gamma, "
      "weibull or empirical")(
      "check", po::value<std::string>(),
      "METRIC,...: run the log replayed and the fitted section on the pools of "
      "--check-scenario and compare these metrics (means and 95% intervals); a warning when "
      "they disagree")(
      "check-scenario", po::value<std::string>(),
      "--check: a scenario with name, horizon (best: the log's window) and pools; its "
      "workloads are replaced, but for --kind service its one kind: inference workload gives "
      "the replicas or autoscaler that the log and the fitted service run on")(
      "check-replications", po::value<std::string>()->default_value("100"),
      "--check: replications of each of the two runs (the scenario's seed)");
  add_force_option(visible, "replace a symbolic link at the output path");
  add_max_data_size_option(visible, "largest trace read (default 256MiB)");
  add_quiet_option(visible, "print nothing on success");
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout
        << "Fits a job trace (CSV: submit_s, gpus, duration_s, optional censored), a request\n"
           "log (--kind service) or an instance log (--kind deployment: start_s, end_s,\n"
           "gpus) into a scenario's workloads: section, one workload per class. See\n"
           "docs/fitting.md.\n\n"
        << visible;
    return false;
  }
  if (!vm.count("trace")) throw po::error("fit needs a TRACE.csv argument");
  if (!vm.count("output")) throw po::error("fit needs -o WORKLOAD.yaml");
  o.trace = vm["trace"].as<std::string>();
  o.output = vm["output"].as<std::string>();
  o.columns.class_by = vm["class-by"].as<std::string>();
  o.columns.submit =
      vm.count("submit-column")
          ? vm["submit-column"].as<std::string>()
          : std::string(vm["kind"].as<std::string>() == "deployment" ? "start_s" : "submit_s");
  o.columns.duration = vm["duration-column"].as<std::string>();
  o.columns.gpus = vm["gpus-column"].as<std::string>();
  o.columns.censored = vm["censored-column"].as<std::string>();
  if (vm.count("placement"))
    for (const std::string& list : vm["placement"].as<std::vector<std::string>>())
      for (const std::string& pool : text::split(list, ',')) {
        const std::string name = text::trim(pool);
        if (name.empty())
          throw po::error("--placement has an empty pool name: \"" + text::excerpt(list) + "\"");
        if (!data::is_valid_utf8(name) || std::any_of(name.begin(), name.end(), [](char c) {
              return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
            }))
          throw po::error(
              "--placement has a pool name with a control character or bytes that "
              "are not UTF-8: \"" +
              text::excerpt(name) + "\"");
        o.placement.push_back(name);
      }
  if (vm.count("window"))
    o.window_s = parse_duration_option("--window", vm["window"].as<std::string>());
  o.alpha = vm["alpha"].as<double>();
  if (!(o.alpha > 0 && o.alpha < 1))
    throw po::error("--alpha must be a probability between 0 and 1 (exclusive), e.g. 0.01");
  o.family = parse_family(vm["family"].as<std::string>());
  const std::string kind = vm["kind"].as<std::string>();
  if (kind == "job")
    o.kind = fit::FitKind::job;
  else if (kind == "service")
    o.kind = fit::FitKind::service;
  else if (kind == "deployment")
    o.kind = fit::FitKind::deployment;
  else if (kind == "llm")
    o.kind = fit::FitKind::llm;
  else
    throw po::error("--kind must be job, service, deployment or llm, got \"" +
                    text::excerpt(kind) + "\"");
  parse_llm_options(vm, o);
  if (o.kind == fit::FitKind::deployment) o.columns.end = vm["end-column"].as<std::string>();
  const std::string state = vm["state"].as<std::string>();
  if (state == "start")
    o.state = fit::StateChoice::start;
  else if (state == "end")
    o.state = fit::StateChoice::end;
  else
    throw po::error("--state must be start or end, got \"" + text::excerpt(state) + "\"");
  if (o.kind != fit::FitKind::deployment && !vm["state"].defaulted())
    throw po::error("--state applies to --kind deployment only");
  if ((o.kind == fit::FitKind::service || o.kind == fit::FitKind::llm) && o.placement.empty())
    throw po::error("--kind " + kind +
                    " needs --placement POOL: the pool whose GPUs run the service's replicas");
  o.trend = parse_trend(vm["trend"].as<std::string>());
  if (vm.count("origin")) {
    o.origin = vm["origin"].as<std::string>();
    const data::TimeZone zone = data::parse_time_zone(vm["timezone"].as<std::string>());
    int64_t ms = 0;
    if (data::parse_timestamp(o.origin, data::TimeFormat::automatic, zone, ms) !=
        data::TimeParse::ok)
      throw po::error(
          "--origin must be a time: ISO 8601 (2024-11-15T16:57:50Z, with an "
          "optional offset) or epoch seconds; got \"" +
          text::excerpt(o.origin) + "\"");
    const double local_s =
        static_cast<double>(ms) / 1000.0 + 60.0 * local_offset_minutes(o.origin, zone);
    o.origin_offset_s = fit::seconds_since_monday(local_s);
  }
  o.force = vm.count("force") > 0;
  o.quiet = vm.count("quiet") > 0;
  if (vm.count("check")) {
    o.check = true;
    try {
      for (const std::string& name : text::split(vm["check"].as<std::string>(), ','))
        o.check_options.metrics.push_back(metric_for_check(text::trim(name)));
    } catch (const std::invalid_argument& e) {
      throw po::error(e.what());
    }
    if (!vm.count("check-scenario"))
      throw po::error(
          "--check needs --check-scenario SCENARIO.yaml: the pools (name, horizon, pools) that "
          "the log and the fitted section run on");
    o.check_options.scenario = vm["check-scenario"].as<std::string>();
    o.check_options.replications =
        parse_count("--check-replications", vm["check-replications"].as<std::string>(), 2, 1000000);
    if (o.kind == fit::FitKind::deployment && o.state == fit::StateChoice::end)
      throw po::error(
          "--check compares the fit with its log over the log's own window, from its start: "
          "--state end starts from the log's end; check with --state start (the default)");
  } else if (vm.count("check-scenario") || !vm["check-replications"].defaulted()) {
    throw po::error("--check-scenario and --check-replications apply with --check METRIC,...");
  }
  if (vm.count("max-data-size")) {
    try {
      o.max_data_bytes = parse_byte_size(vm["max-data-size"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw po::error(std::string("--max-data-size: ") + e.what());
    }
  }
  return true;
}

/// At most this many warning lines on stderr; the rest are counted (every one is in the YAML).
constexpr std::size_t kMaxWarningLines = 20;

/// --check: the replay and the fitted section side by side (fit_check.hpp); a warning per
/// metric on which they disagree. The fit is written either way.
int run_check(const FitOptions& o, const fit::JobTrace& trace, const fit::FittedWorkloads& result) {
  FittedLog fitted;
  fitted.trace_path = o.trace;
  fitted.columns = o.columns;
  fitted.kind = o.kind;
  fitted.trace = &trace;
  fitted.yaml = result.yaml;
  fitted.output_path = o.output;
  FitCheckOptions options = o.check_options;
  options.limits.data_bytes = o.max_data_bytes;
  if (!o.quiet)
    std::cerr << "gpucap fit: checking the fit: the log replayed and the fitted section, "
              << options.replications << " replications each\n";
  std::vector<MetricCheck> checks;
  try {
    checks = check_fit(options, fitted);
  } catch (const InputFileError&) {
    throw;
  } catch (const ScenarioError& e) {
    throw po::error(std::string("--check: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
  if (!o.quiet) print_fit_check(checks, options, std::cout);
  std::cout.flush();
  for (const MetricCheck& c : checks)
    if (!c.agree)
      std::cerr << "gpucap fit: warning: the fitted model does not reproduce the log's "
                << kScalarMetricInfo[c.metric].name << ": the log's "
                << text::format_table_value(c.replay) << " " << kScalarMetricInfo[c.metric].unit
                << " is outside the central 95% of the model's futures ["
                << text::format_table_value(c.fitted_low) << ", "
                << text::format_table_value(c.fitted_high)
                << "]; the fit leaves out what drives it (a trend, a burst, correlated run "
                   "times, the state at t = 0): docs/fitting.md, \"Checking a fit against its "
                   "log\"\n";
  // What a check of the log from its start cannot test: the instances alive then replay their
  // logged ends in both runs, so the lifetimes that draw a forecast's running instances' rests
  // (--state end) are never compared with what happened to such instances.
  if (o.kind == fit::FitKind::deployment && trace.alive_at_start_rows > 0)
    std::cerr << "gpucap fit: note: --check ran both from the log's start, where its "
              << trace.alive_at_start_rows
              << " instances alive replay their logged ends: it tests the fitted arrivals and "
                 "the lifetimes of instances created in the window, not the rest of the "
                 "instances running when a forecast starts, which --state end draws from the "
                 "lifetime given their ages; the survivors lines of --state end compare those "
                 "with the log's own curve, and gpucap backtest tests whole forecasts "
                 "(docs/backtest.md)\n";
  return kExitOk;
}

int run(const FitOptions& o) {
  OutputOptions output_options;
  output_options.force = o.force;
  output_options.inputs = {o.trace};
  // --check reads its scenario after the fit is written: an output may not overwrite it.
  if (o.check) output_options.inputs.push_back(o.check_options.scenario);
  check_output_path(o.output, output_options);
  const std::string text =
      read_input_file(o.trace, o.max_data_bytes, "trace file", "--max-data-size");
  const fit::JobTrace trace = fit::read_job_trace(text, o.trace, o.columns, o.window_s);

  fit::FitWorkloadsOptions fit_options;
  fit_options.family = o.family;
  fit_options.yaml.source = o.trace;
  fit_options.yaml.placement = o.placement;
  fit_options.yaml.alpha = o.alpha;
  fit_options.yaml.origin = o.origin;
  fit_options.yaml.kind = o.kind;
  fit_options.yaml.state = o.state;
  fit_options.yaml.llm_model = o.model;
  fit_options.yaml.llm_gpus = o.tensor_parallel;
  fit_options.origin_offset_s = o.origin_offset_s;
  fit_options.trend = o.trend;
  const fit::FittedWorkloads result = fit::fit_workloads(trace, o.output, fit_options);
  for (const fit::SamplesFile& s : result.samples) check_output_path(s.path, output_options);
  // Samples first: the YAML, written last, never names a file that is not there.
  for (const fit::SamplesFile& s : result.samples)
    write_output_atomically(s.path, s.csv.data(), s.csv.size(), output_options);
  write_output_atomically(o.output, result.yaml.data(), result.yaml.size(), output_options);
  if (o.check) {
    // From here a signal stops only the check: say what stays written.
    std::string written = text::excerpt(o.output, 300);
    for (const fit::SamplesFile& s : result.samples) written += ", " + text::excerpt(s.path, 300);
    interrupt::set_stop_note(("only the check of the fit stopped; the fit was written and stays: " +
                              written)
                                 .c_str());
  }

  if (o.quiet) return o.check ? run_check(o, trace, result) : kExitOk;  // warnings: in the YAML
  const std::string output_shown = text::excerpt(o.output, 300);
  std::size_t warnings = 0;
  for (const std::string& w : result.warnings)
    if (++warnings <= kMaxWarningLines) std::cerr << "gpucap fit: warning: " << w << "\n";
  for (const fit::ClassFit& f : result.fits) {
    for (const std::string& w : f.run_time.warnings)
      if (++warnings <= kMaxWarningLines)
        std::cerr << "gpucap fit: warning: class " << f.job_class->name << ": " << w << "\n";
    for (const std::string& n : f.arrival_notes)
      if (++warnings <= kMaxWarningLines)
        std::cerr << "gpucap fit: " << (f.arrival_warning ? "warning" : "note") << ": class "
                  << f.job_class->name << ": " << n << "\n";
  }
  if (warnings > kMaxWarningLines)
    std::cerr << "gpucap fit: " << warnings - kMaxWarningLines
              << " more warning(s): see the '# WARNING' comments in " << output_shown << "\n";
  const bool instances = trace.instances;
  if (trace.zero_duration_rows && trace.requests)
    std::cerr << "gpucap fit: note: " << trace.zero_duration_rows
              << " request(s) without a prompt or an output token are left out (an LLM service "
                 "has nothing to run for them)\n";
  else if (trace.zero_duration_rows && instances)
    std::cerr << "gpucap fit: note: " << trace.zero_duration_rows
              << " instance(s) created at the log's end count as arrivals but are left out of "
                 "the lifetime fits\n";
  else if (trace.zero_duration_rows)
    std::cerr << "gpucap fit: note: " << trace.zero_duration_rows
              << " job(s) with run time 0 s count as arrivals but are left out of the run-time "
                 "fits\n";
  std::cout << text::excerpt(o.trace, 300) << ": " << trace.rows
            << (instances        ? " instances, " + std::to_string(trace.alive_at_start_rows) +
                                " alive at t = 0, " + std::to_string(trace.censored_rows) +
                                " censored"
                : trace.requests ? " requests"
                                 : " jobs, " + std::to_string(trace.censored_rows) + " censored")
            << ", window " << fit::format_seconds(trace.window_s)
            << ", " << result.fits.size() << " class(es) by \"" << text::excerpt(o.columns.class_by)
            << "\"\n";
  char line[512];
  for (const fit::ClassFit& f : result.fits) {
    const fit::ArrivalFit& a = f.arrivals;
    const std::string arrivals =
        a.profile_chosen
            ? "nhpp " + std::to_string(a.period_hours) +
                  " h profile (p = " + text::format_number(a.p_value) + ")"
            : "poisson" + (a.bin_hours ? " (profile p = " + text::format_number(a.p_value) + ")"
                                       : std::string());
    if (trace.requests) {
      std::snprintf(line, sizeof line, "  %-20s %6zu requests, %8.4g requests/day, %s; tokens: "
                    "the log's %zu (context, output) pairs\n",
                    f.job_class->name.c_str(), f.job_class->submit_s.size(),
                    a.mean_rate_per_s * 86400, arrivals.c_str(), f.job_class->tokens.size() / 2);
      std::cout << line;
      continue;
    }
    const fit::RunTimeModel& m = f.run_time;
    std::string work = m.empirical ? "empirical, " + std::to_string(m.values.size()) + " values"
                                   : std::string(fit::family_name(m.family)) + " " +
                                         fit::describe(m.family, m.params);
    if (!m.empirical) {
      const fit::CandidateFit& c = m.candidates[static_cast<std::size_t>(m.family)];
      char ks[64];
      std::snprintf(ks, sizeof ks, ", KS D %.4f (p %.3g)", c.ks_d, c.ks_p);
      work += ks;
    }
    const char* noun = instances ? "instances" : "jobs";
    std::snprintf(line, sizeof line, "  %-20s %6zu %s, %8.4g %s/day, %s; %s %s\n",
                  f.job_class->name.c_str(), f.job_class->submit_s.size(), noun,
                  a.mean_rate_per_s * 86400, noun, arrivals.c_str(),
                  instances ? "lifetime" : "run time", work.c_str());
    std::cout << line;
    if (instances)
      std::cout << "  " << std::string(20, ' ') << " state at "
                << (o.state == fit::StateChoice::start ? "t = 0 (the log's start): "
                                                       : "the log's end: ")
                << f.state_rows << " instance(s)\n";
    for (const fit::SurvivorCheck& sc : f.survivors)
      std::cout << "  " << std::string(20, ' ') << " still running " << fit::describe_survivors(sc)
                << "\n";
  }
  for (const fit::SamplesFile& s : result.samples)
    std::cout << "wrote " << text::excerpt(s.path, 300) << "\n";
  std::cout << "wrote " << output_shown << "\n";
  if (o.check) return run_check(o, trace, result);
  return kExitOk;
}

/// A message for the terminal: boost's messages quote arguments as given (an escape sequence
/// in an option's value would reach the terminal), so every message is escaped and cut (the
/// project's own are already escaped; excerpt leaves their escapes as they are).
std::string shown(const std::exception& e) { return text::excerpt(e.what(), 2000); }

}  // namespace

int fit_command(const std::vector<std::string>& args) {
  try {
    FitOptions options;
    if (!parse(args, options)) return kExitOk;
    return run(options);
  } catch (const po::error& e) {
    std::cerr << "gpucap fit: " << shown(e) << "\n(see 'gpucap fit --help')\n";
    return kExitUsage;
  } catch (const InputFileError& e) {
    std::cerr << "gpucap fit: error: " << shown(e) << "\n";
    return kExitIo;
  } catch (const OutputError& e) {
    std::cerr << "gpucap fit: error: " << shown(e) << "\n";
    return kExitIo;
  } catch (const fit::TraceDataError& e) {
    std::cerr << "gpucap fit: cannot fit the trace: " << shown(e) << "\n";
    return kExitUsage;
  } catch (const std::invalid_argument& e) {
    std::cerr << "gpucap fit: cannot fit the trace: " << shown(e) << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "gpucap fit: error: " << shown(e) << "\n";
    return kExitIo;
  }
}

}  // namespace gpucap::cli
