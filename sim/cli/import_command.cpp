// gpucap CLI: `gpucap import` turns a job log into a trace CSV that `process: trace` replays.
//
//   gpucap import --format slurm sacct.txt -o trace.csv [--timezone +02:00] [--report r.json]
//   gpucap import --format llm azure_llm_code.csv -o requests.csv   (LLM requests and tokens)
//
// The trace is streamed into its output file (written atomically: nothing appears under the
// name until the import succeeded); the counts of jobs kept and dropped, by reason, go to
// stderr and, with --report, to a JSON file.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "gpucap/data/job_import.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/output_file.hpp"

#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace gpucap::cli {
namespace {

constexpr std::size_t kMaxReorderWindow = 10000000;

const char* kDescription =
    "Turns a job log into gpucap's trace CSV (submit_s,gpus,duration_s,censored,...), the\n"
    "layout that `arrivals: {process: trace, file: ...}` replays. Formats (docs/importing.md):\n"
    "  slurm       sacct --parsable2 output (JobID|Submit|Start|End|State|AllocTRES|...);\n"
    "              steps folded into their job, requeued records into one job\n"
    "  kubernetes  pod lists such as Alibaba openb (creation_time, scheduled_time,\n"
    "              deletion_time, num_gpu, gpu_milli, pod_phase)\n"
    "  philly      the Philly trace's cluster_job_log (a JSON list of jobs with attempts)\n"
    "  helios      Helios and Acme traces (submit_time, start_time, end_time, gpu_num, state)\n"
    "  csv         any CSV, columns named with --map submit=...,end=...,gpus=...\n"
    "  llm         LLM requests with their token counts: Azure's LLM inference traces\n"
    "              (TIMESTAMP, ContextTokens, GeneratedTokens), gpucap's own columns, or any\n"
    "              CSV with --map submit=...,context=...,output=...; written as\n"
    "              submit_s,context_tokens,output_tokens for an LLM service's replay\n"
    "              (arrivals: {process: trace}) or gpucap fit --kind llm\n"
    "With --instances, a log of long-running instances becomes start_s,end_s,gpus for a\n"
    "deployment (kind: deployment): blank start = created before the log, blank end = still\n"
    "running at its end (docs/importing.md, \"Instance logs\").\n"
    "The input is streamed (memory is bounded by --reorder-window). Jobs that cannot be\n"
    "replayed are dropped and counted by reason on stderr (and in --report FILE.json).\n"
    "Exit status: 0 written; 1 the input cannot be read or used, or no job was kept; 2 usage.\n";

/// A time given on the command line (--origin, --log-end), in the log's zone.
int64_t time_option(const po::variables_map& vm, const char* name, const data::ImportOptions& o) {
  const std::string text = vm[name].as<std::string>();
  int64_t ms = 0;
  if (data::parse_timestamp(text, data::TimeFormat::automatic, o.zone, ms) != data::TimeParse::ok)
    throw po::error(std::string("--") + name +
                    " must be a time: ISO 8601 (2024-03-01T00:00:00, with an optional offset; "
                    "without one, in --timezone) or epoch seconds; got \"" +
                    text::excerpt(text) + "\"");
  return ms;
}

/// One of `choices` for option `name`.
std::string choice(const po::variables_map& vm, const char* name,
                   const std::vector<std::string>& choices) {
  const std::string value = vm[name].as<std::string>();
  for (const std::string& c : choices)
    if (c == value) return value;
  throw po::error(std::string("--") + name + " must be one of " + text::join(choices, ", ") +
                  "; got \"" + text::excerpt(value) + "\"");
}

}  // namespace

int import_command(const std::vector<std::string>& args) {
  CommandLine line("gpucap import --format FORMAT INPUT -o TRACE.csv [options]", "input");
  po::options_description& visible = line.options();
  visible.add_options()("format,f", po::value<std::string>(),
                        "slurm, kubernetes, philly, helios, csv or llm");
  add_output_option(visible,
                    "the trace CSV to write (atomically; never onto the input, a link or a special "
                    "file)");
  visible.add_options()("report", po::value<std::string>(),
                        "also write the counts kept and dropped as JSON here")(
      "timezone", po::value<std::string>()->default_value("UTC"),
      "zone of times written without an offset: UTC or a fixed offset (+02:00, -0530); IANA "
      "names are not accepted (their offset changes with daylight saving time)")(
      "time-format", po::value<std::string>()->default_value("auto"),
      "how times are written: auto (epoch seconds or ISO 8601), epoch, epoch_ms, iso, or "
      "seconds or ms since the log's start (whose 0 is then submit_s = 0)")(
      "origin", po::value<std::string>(),
      "the time of submit_s = 0 (ISO 8601 or epoch seconds; seconds of the log with "
      "--time-format seconds or ms); jobs submitted before it are dropped (default: the first "
      "submission, or the log's 0 for times since its start)")(
      "log-end", po::value<std::string>(),
      "the log's end, where the run times of jobs still running end (default: the latest time "
      "in the log)")("running", po::value<std::string>()->default_value("censor"),
                     "jobs still running at the log's end: censor (kept with their run time so "
                     "far and censored = 1) or drop")(
      "reorder-window", po::value<std::string>()->default_value("100000"),
      "jobs held to write the output in submission order, 1 to 10000000 (about 100 bytes "
      "each; at most 32 MiB, or 128 bytes per job of a larger window, text included); jobs "
      "out of order by more are counted")(
      "out-of-order", po::value<std::string>()->default_value("keep"),
      "jobs out of order beyond the window: keep (written where they are; the replay sorts "
      "rows) or drop")("fractional-gpus", po::value<std::string>()->default_value("whole"),
                       "kubernetes pods on a fraction of a GPU (gpu_milli < 1000): whole (count "
                       "num_gpu whole GPUs) or drop")(
      "map", po::value<std::string>(),
      "csv (and helios, kubernetes, llm, to rename): field=column pairs, e.g. submit=created_at,"
      "start=started,end=finished,gpus=n_gpu; fields: submit, start, end, duration, gpus, "
      "state, class (llm: submit, context, output, class)")(
      "set-column", po::value<std::string>(),
      "csv, helios, kubernetes: fields with one value in every row, for a log without the "
      "column, e.g. gpus=1 (field=value pairs; a field is mapped or set, not both)")(
      "separator", po::value<std::string>()->default_value(","),
      "csv: the field separator, one character, or 'tab'")(
      "instances", po::bool_switch(),
      "the log is of long-running instances (kubernetes, csv, helios): write start_s,end_s,gpus "
      "for a deployment (kind: deployment), keeping instances created before the log (blank "
      "start) or before --origin (negative start), and leaving the end of those still running "
      "blank; --log-end and --running do not apply");
  add_force_option(visible, "replace a symbolic link at the output path (the link itself)");
  add_quiet_option(visible, "print nothing on success (errors still go to stderr)");
  const po::variables_map vm = line.parse(args);
  if (vm.count("help")) {
    std::cout << kDescription << "\n" << visible;
    return 0;
  }
  if (!vm.count("format"))
    throw po::error("import needs --format (" + text::join(data::job_log_format_names(), ", ") +
                    ")");
  if (!vm.count("input")) throw po::error("import needs an INPUT file");
  if (!vm.count("output")) throw po::error("import needs -o TRACE.csv");
  const data::JobLogFormat format = data::parse_job_log_format(vm["format"].as<std::string>());
  const std::string input = vm["input"].as<std::string>();
  const std::string output = vm["output"].as<std::string>();

  data::ImportOptions options;
  options.zone = data::parse_time_zone(vm["timezone"].as<std::string>());
  options.time_format = data::parse_time_format(vm["time-format"].as<std::string>());
  if (vm.count("origin"))
    options.trace.origin_ms = time_option(vm, "origin", options);
  else if (data::is_relative(options.time_format))
    options.trace.origin_ms = 0;  // times since the log's start: its 0 is submit_s = 0
  options.trace.instances = vm["instances"].as<bool>();
  if (options.trace.instances &&
      (format == data::JobLogFormat::slurm || format == data::JobLogFormat::philly ||
       format == data::JobLogFormat::llm))
    throw po::error("--instances reads kubernetes, csv and helios logs (a " +
                    vm["format"].as<std::string>() + " log is of jobs)");
  if (options.trace.instances)
    for (const char* option : {"log-end", "running"})
      if (vm.count(option) && !vm[option].defaulted())
        throw po::error(std::string("--") + option +
                        " does not apply with --instances: an instance still running at the "
                        "log's end is written with a blank end_s (the replay keeps it running), "
                        "whatever the log's end; leave --" +
                        option + " out");
  if (vm.count("log-end")) options.trace.log_end_ms = time_option(vm, "log-end", options);
  options.trace.running = choice(vm, "running", {"censor", "drop"}) == "drop"
                              ? data::RunningJobs::drop
                              : data::RunningJobs::censor;
  const std::string window = text::trim(vm["reorder-window"].as<std::string>());
  if (window.empty() || window.size() > 8 ||
      window.find_first_not_of("0123456789") != std::string::npos || std::stoull(window) < 1 ||
      std::stoull(window) > kMaxReorderWindow)
    throw po::error("--reorder-window must be a whole number from 1 to 10000000, got \"" +
                    text::excerpt(window) + "\"");
  options.trace.reorder_window = std::stoull(window);
  options.trace.drop_out_of_order = choice(vm, "out-of-order", {"keep", "drop"}) == "drop";
  options.fractional_gpus = choice(vm, "fractional-gpus", {"whole", "drop"}) == "drop"
                                ? data::FractionalGpus::drop
                                : data::FractionalGpus::whole;
  if (vm.count("map")) {
    options.mapping = data::parse_column_mapping(vm["map"].as<std::string>());
    if (options.mapping.empty())
      throw po::error(
          "--map names no column; give field=column pairs, e.g. --map submit=created_at,"
          "start=started,end=finished,gpus=n_gpu (fields: submit, start, end, duration, gpus, "
          "state, class)");
  }
  if (vm.count("set-column")) {
    options.constants =
        data::parse_column_mapping(vm["set-column"].as<std::string>(), "--set-column");
    for (const auto& [field, value] : options.constants)
      for (const auto& [mapped, column] : options.mapping)
        if (field == mapped)
          throw po::error("the field '" + field + "' is both mapped (--map " + field + "=" +
                          column + ") and set (--set-column " + field + "=" + value +
                          "); give one");
  }
  const bool llm = format == data::JobLogFormat::llm;
  const bool tables = format == data::JobLogFormat::csv || format == data::JobLogFormat::helios ||
                      format == data::JobLogFormat::kubernetes || llm;
  if (!tables && (vm.count("map") || vm.count("set-column")))
    throw po::error(std::string(vm.count("map") ? "--map" : "--set-column") +
                    " applies to the csv, helios, kubernetes and llm formats (a " +
                    vm["format"].as<std::string>() + " log has its own fields)");
  // A request's fields and a job's do not mix: each format takes its own.
  for (const auto* given : {&options.mapping, &options.constants})
    for (const auto& [field, column] : *given) {
      const bool request_field = field == "context" || field == "output";
      const bool shared = field == "submit" || field == "class";
      if (llm ? !(request_field || shared) : request_field)
        throw po::error(
            std::string(given == &options.mapping ? "--map" : "--set-column") + ": the field '" +
            field + "' " +
            (llm ? "is a job's; an llm log's fields are submit, context, output and class"
                 : "is an LLM request's (--format llm); a job log's fields are submit, start, "
                   "end, duration, gpus, state and class"));
    }
  if (llm)
    for (const char* option : {"log-end", "running", "fractional-gpus"})
      if (vm.count(option) && !vm[option].defaulted())
        throw po::error(std::string("--") + option +
                        " applies to job logs; an LLM request has no run time in the log (its "
                        "time is what the simulation gives its tokens)");
  if (format == data::JobLogFormat::csv) {
    bool submit = false, gpus = false, end = false;
    for (const auto* given : {&options.mapping, &options.constants})
      for (const auto& [field, column] : *given) {
        submit = submit || field == "submit";
        gpus = gpus || field == "gpus";
        end = end || field == "end" || field == "duration";
      }
    if (!submit || !gpus || !end)
      throw po::error(
          "the csv format needs --map with at least submit, gpus, and end or "
          "duration, e.g. --map submit=created_at,start=started,end=finished,"
          "gpus=n_gpu (a field the log lacks can be given one value: --set-column gpus=1)");
  }
  const std::string separator = vm["separator"].as<std::string>();
  if (separator == "tab")
    options.separator = '\t';
  else if (separator.size() == 1 && separator != "\"" && separator != "\n")
    options.separator = separator[0];
  else
    throw po::error("--separator must be one character (or 'tab'), got \"" +
                    text::excerpt(separator) + "\"");

  // Refuse bad outputs before reading a byte: onto the input, onto each other, special files.
  OutputOptions out_options;
  out_options.force = vm.count("force") > 0;
  out_options.inputs = {input};
  check_output_path(output, out_options);
  std::string report_path;
  if (vm.count("report")) {
    report_path = vm["report"].as<std::string>();
    if (report_path == output) throw po::error("--report and -o name the same file");
    check_output_path(report_path, out_options);
  }

  AtomicOutputFile out(output, out_options);
  const data::ImportReport report =
      data::import_job_log(format, input, options,
                           [&](std::string_view bytes) { out.write(bytes.data(), bytes.size()); });
  if (!vm.count("quiet") || report.kept == 0) std::cerr << report.text();
  if (report.kept == 0) {
    out.abandon();
    std::cerr << "gpucap: error: no " << (llm ? "request" : "job") << " of '"
              << text::excerpt(input, 300)
              << "' can be replayed (see the counts above); nothing was written\n";
    return 1;
  }
  const OutputReport written = out.commit();
  for (const std::string& stale : written.removed_stale)
    std::cerr << "gpucap: removed '" << text::excerpt(stale, 300)
              << "', a temporary file left by an earlier run that was killed while writing\n";
  if (!report_path.empty()) {
    const std::string json = report.json();
    out_options.inputs.push_back(output);
    write_output_atomically(report_path, json.data(), json.size(), out_options);
  }
  if (!vm.count("quiet"))
    std::cout << "trace written to " << output << " (" << report.kept
              << (options.trace.instances ? " instances)\n" : llm ? " requests)\n" : " jobs)\n");
  return 0;
}

}  // namespace gpucap::cli
