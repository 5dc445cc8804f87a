// Fuzzing the job-log importers (`gpucap import`): one case is a log text in one format with a
// set of import options. The text is written to a file in the case folder, imported, and what
// the importer wrote is loaded back by gpucap. Shared by the libFuzzer target (clang) and the
// deterministic mutation driver (any compiler).
//
// What counts as a finding (run_import_case returns a description, "" otherwise):
//   - any exception but DataFileError (an input that cannot be used at all) from the import;
//   - counts that do not add up: records < jobs, jobs != kept + dropped, censored > kept, or a
//     trace with another number of rows than `kept`;
//   - output out of proportion to the input: more than 16 bytes per input byte plus 4 KiB
//     (every row comes from input bytes; a byte budget catches a writer that loops);
//   - a trace that gpucap cannot load back as `arrivals: {process: trace}` (with its rows), or
//     a submit time < 0, GPUs outside 1 to 1,048,575, or a run time < 0 in it; with
//     --instances, one that does not load back as a deployment's trace with every row kept
//     alive in the window (the state at t = 0 or an arrival);
//   - an LLM request log (--format llm) whose requests do not load back as an LLM service's
//     replay (arrivals: {process: trace}), every row kept, with its own tokens;
//   - a report JSON that is not UTF-8 or that gpucap's JSON reader refuses;
// and, caught by the sanitizers or the driver's watchdog rather than here, a crash, a hang or
// memory beyond the driver's budget.
#pragma once
#include <cstdint>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpucap/data/delimited.hpp"
#include "gpucap/data/job_import.hpp"
#include "gpucap/json_reader.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap::fuzz {

/// The options a case varies; every combination is valid usage.
struct ImportCaseOptions {
  data::JobLogFormat format = data::JobLogFormat::slurm;
  bool log_end = false;  ///< give --log-end (at log_end_s)
  int64_t log_end_s = 0;
  bool origin = false;  ///< give --origin (at origin_s)
  int64_t origin_s = 0;
  bool running_drop = false;
  bool fractional_drop = false;
  bool out_of_order_drop = false;
  std::size_t reorder_window = 100000;
  std::size_t reorder_window_bytes = 0;  ///< 0: the writer's default
  int zone_minutes = 0;
  data::TimeFormat time_format = data::TimeFormat::automatic;
  char separator = ',';  ///< csv only
  /// --instances (kubernetes, csv, helios only; without --log-end and --running, which the
  /// CLI refuses with it): the trace is start_s,end_s,gpus and loads back as a deployment's.
  bool instances = false;
};

/// The --map of the csv cases: the columns of the csv seeds.
inline std::vector<std::pair<std::string, std::string>> fuzz_csv_mapping() {
  return {{"submit", "created"}, {"start", "started"}, {"end", "finished"}, {"duration", "took"},
          {"gpus", "n"},         {"state", "state"},   {"class", "team"}};
}

/// The formats a case may have (JobLogFormat's values).
constexpr uint32_t kImportFormats = 6;

/// Options from bits (the libFuzzer target's first bytes), so that every input names a case.
inline ImportCaseOptions options_from_bits(uint32_t bits) {
  ImportCaseOptions o;
  o.format = static_cast<data::JobLogFormat>(bits % kImportFormats);
  bits /= kImportFormats;
  o.log_end = bits & 1;
  o.origin = bits & 2;
  o.running_drop = bits & 4;
  o.fractional_drop = bits & 8;
  o.out_of_order_drop = bits & 16;
  o.reorder_window = (bits & 32) ? 1 + (bits >> 8) % 4 : 100000;
  o.reorder_window_bytes = (bits & 64) ? 256 : 0;
  o.zone_minutes = (bits & 128) ? -330 : 0;
  o.log_end_s = (bits & 1) ? 1709290000 : 0;
  o.origin_s = 1709280000;
  // Mostly the default (automatic); sometimes a format that most seeds do not match.
  const uint32_t time_format = (bits >> 12) % 4;
  o.time_format = time_format == 3   ? data::TimeFormat::epoch_millis
                  : time_format == 2 ? data::TimeFormat::iso8601
                                     : data::TimeFormat::automatic;
  o.instances = (bits & 1024) && (o.format == data::JobLogFormat::kubernetes ||
                                  o.format == data::JobLogFormat::csv ||
                                  o.format == data::JobLogFormat::helios);
  if (o.instances) o.log_end = o.running_drop = false;
  // An LLM request log has no run times: the CLI refuses --log-end, --running and
  // --fractional-gpus with it.
  if (o.format == data::JobLogFormat::llm) o.log_end = o.running_drop = o.fractional_drop = false;
  return o;
}

inline data::ImportOptions to_import_options(const ImportCaseOptions& c) {
  data::ImportOptions o;
  o.zone.offset_minutes = c.zone_minutes;
  o.time_format = c.time_format;
  if (c.log_end) o.trace.log_end_ms = c.log_end_s * 1000;
  if (c.origin) o.trace.origin_ms = c.origin_s * 1000;
  o.trace.running = c.running_drop ? data::RunningJobs::drop : data::RunningJobs::censor;
  o.trace.reorder_window = c.reorder_window;
  o.trace.reorder_window_bytes = c.reorder_window_bytes;
  o.trace.drop_out_of_order = c.out_of_order_drop;
  o.fractional_gpus = c.fractional_drop ? data::FractionalGpus::drop : data::FractionalGpus::whole;
  o.trace.instances = c.instances;
  if (c.format == data::JobLogFormat::csv) {
    o.mapping = fuzz_csv_mapping();
    o.separator = c.separator;
  }
  return o;
}

/// Accepts any JSON document (to check that a report loads back).
struct AnyJson : gpucap::JsonVisitor {
  void begin_object(const std::string&, const gpucap::JsonPosition&) override {}
  void begin_array(const std::string&, const gpucap::JsonPosition&) override {}
  void end(const std::string&) override {}
  void number(const std::string&, double, const gpucap::JsonPosition&) override {}
  void other(const std::string&, const char*, const std::string&,
             const gpucap::JsonPosition&) override {}
};

/// Bytes of output a case may produce: 16 per input byte and 4 KiB.
inline std::size_t output_budget(std::size_t input_bytes) { return 16 * input_bytes + 4096; }

/// An instance trace (dir/trace.csv, `import --instances`) loaded back as a deployment's: every
/// row kept is an instance alive in the window (the state at t = 0, or an arrival), with GPUs in
/// range and an end after its start; a trace whose every instance began before an --origin
/// after them all is the one refusal allowed (a deployment's trace needs an arrival).
inline std::string load_instances_back(const data::ImportReport& report, const std::string& dir) {
  Scenario s;
  try {
    s = parse_scenario(
        "name: replay\nhorizon: 1000d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, "
        "quota: 1048575}\nworkloads:\n  - name: fleet\n    kind: deployment\n"
        "    arrivals: {process: trace, file: trace.csv, submit_column: start_s, end_column: "
        "end_s, blank_end: still_running}\n",
        dir + "/replay.yaml", dir);
  } catch (const std::exception& e) {
    if (std::string(e.what()).find("needs at least one arrival") != std::string::npos) return "";
    return std::string("the instance trace does not load back: ") + e.what();
  }
  const ArrivalSpec& a = s.workloads.at(0).arrivals;
  if (a.trace.size() + a.alive_at_start.size() != report.kept)
    return "the instance trace loads " + std::to_string(a.trace.size()) + " arrivals and " +
           std::to_string(a.alive_at_start.size()) + " alive at t = 0, the report kept " +
           std::to_string(report.kept);
  for (const TraceRow& r : a.trace)
    if (!(r.submit_s >= 0) || r.gpus < 1 || r.gpus > data::kMaxTraceGpus || !(r.work_s > 0))
      return "an instance row out of range: start_s " + std::to_string(r.submit_s) + ", gpus " +
             std::to_string(r.gpus) + ", lifetime " + std::to_string(r.work_s);
  for (const AliveAtStart& x : a.alive_at_start)
    if (!(x.end_s > 0) || x.gpus < 1 || x.gpus > data::kMaxTraceGpus)
      return "an instance alive at t = 0 out of range: end " + std::to_string(x.end_s);
  return "";
}

/// An LLM request log (dir/trace.csv, `import --format llm`) loaded back as an LLM service's
/// replay: every row kept is a request, with tokens from 1 to 1,000,000.
inline std::string load_requests_back(const data::ImportReport& report, const std::string& dir) {
  Scenario s;
  try {
    s = parse_scenario(
        "name: replay\nhorizon: 1000d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, "
        "quota: 8}\nworkloads:\n  - name: chat\n    kind: inference\n    pool: p\n"
        "    replicas: 1\n    arrivals: {process: trace, file: trace.csv}\n"
        "    llm: {model: llama-2-7b}\n",
        dir + "/replay.yaml", dir);
  } catch (const std::exception& e) {
    return std::string("the request trace does not load back: ") + e.what();
  }
  const JobClassSpec& w = s.workloads.at(0);
  const std::vector<uint32_t>& tokens = w.service.llm.tokens;
  if (w.arrivals.trace.size() != report.kept || tokens.size() != 2 * report.kept)
    return "the request trace loads " + std::to_string(w.arrivals.trace.size()) +
           " requests and " + std::to_string(tokens.size() / 2) + " token rows, the report kept " +
           std::to_string(report.kept);
  for (const TraceRow& r : w.arrivals.trace)
    if (!(r.submit_s >= 0) || !(r.work_s > 0 && r.work_s < 1))
      return "a request row out of range: submit_s " + std::to_string(r.submit_s) +
             ", token row pick " + std::to_string(r.work_s);
  for (uint32_t t : tokens)
    if (t < 1 || t > 1000000) return "a token count out of range: " + std::to_string(t);
  return "";
}

/// Runs one case in the folder `dir` (which must exist; the case writes log, trace.csv and
/// replay.yaml there). Returns "" when gpucap behaved, else what went wrong.
inline std::string run_import_case(const std::string& text, const ImportCaseOptions& c,
                                   const std::string& dir) {
  const std::string log = dir + "/log";
  {
    std::ofstream out(log, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) return "cannot write the case to " + log;
  }
  std::string csv;
  const std::size_t budget = output_budget(text.size());
  bool over_budget = false;
  data::ImportReport report;
  try {
    report = data::import_job_log(c.format, log, to_import_options(c), [&](std::string_view b) {
      if (csv.size() + b.size() > budget) {
        over_budget = true;
        return;
      }
      csv.append(b);
    });
  } catch (const data::DataFileError&) {
    return "";
  } catch (const std::exception& e) {
    return std::string("the import threw a non-data error: ") + e.what();
  }
  if (over_budget)
    return "the trace is over " + std::to_string(budget) + " bytes for " +
           std::to_string(text.size()) + " input bytes";
  if (report.jobs != report.kept + report.dropped())
    return "jobs " + std::to_string(report.jobs) + " != kept " + std::to_string(report.kept) +
           " + dropped " + std::to_string(report.dropped());
  if (report.records < report.jobs)
    return "records " + std::to_string(report.records) + " < jobs " + std::to_string(report.jobs);
  if (report.censored > report.kept) return "more censored rows than rows";

  const std::string json = report.json();
  if (!data::is_valid_utf8(json)) return "the report JSON is not UTF-8";
  try {
    AnyJson any;
    gpucap::read_json(json, any);
  } catch (const std::exception& e) {
    return std::string("the report JSON does not load: ") + e.what();
  }
  (void)report.text();

  if (report.kept == 0) return "";  // the CLI writes nothing then
  {
    std::ofstream out(dir + "/trace.csv", std::ios::binary | std::ios::trunc);
    out.write(csv.data(), static_cast<std::streamsize>(csv.size()));
  }
  if (c.instances) return load_instances_back(report, dir);
  if (c.format == data::JobLogFormat::llm) return load_requests_back(report, dir);
  Scenario s;
  try {
    s = parse_scenario(
        "name: replay\nhorizon: 1000d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, "
        "quota: 1048575}\nworkloads:\n  - name: jobs\n    arrivals: {process: trace, file: "
        "trace.csv}\n",
        dir + "/replay.yaml", dir);
  } catch (const std::exception& e) {
    return std::string("the trace does not load back: ") + e.what();
  }
  const std::vector<TraceRow>& rows = s.workloads.at(0).arrivals.trace;
  if (rows.size() != report.kept)
    return "the trace loads " + std::to_string(rows.size()) + " rows, the report says " +
           std::to_string(report.kept);
  for (const TraceRow& r : rows)
    if (!(r.submit_s >= 0) || r.gpus < 1 || r.gpus > data::kMaxTraceGpus || !(r.work_s >= 0))
      return "a trace row out of range: submit_s " + std::to_string(r.submit_s) + ", gpus " +
             std::to_string(r.gpus) + ", duration_s " + std::to_string(r.work_s);
  return "";
}

}  // namespace gpucap::fuzz
