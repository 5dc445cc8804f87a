// Fuzzing `gpucap fit` and `gpucap catalog`: one case is a text of one kind with a set of
// options, run through the library the commands use, and what they would write is loaded back
// by gpucap. Shared by the libFuzzer targets (clang) and the deterministic mutation driver
// (tests/fuzz/fit_catalog_mutation_driver.cpp, any compiler).
//
// Kinds of case:
//   fit      a job trace CSV (the layout of `process: trace`) fitted as `gpucap fit` does
//            (read_job_trace, fit_workloads); the samples files and the section are written to
//            the case folder, and the section under a pools header (horizon: the trace's
//            window) is loaded (parse_scenario) and compiled; a text whose header has `end_s`
//            is an instance log (start_s, end_s) fitted as `--kind deployment`, its state file
//            (at the log's start or end, by an option bit) written and loaded with it; a text
//            whose header has `context_tokens` (or Azure's ContextTokens) is an LLM request log
//            fitted as `--kind llm` (one class, or classes by a column), its tokens file
//            written and loaded with the section;
//   sky      a SkyPilot catalog imported as `gpucap catalog import` does
//            (import_skypilot_catalog_text); the catalog written is read back by `catalog list`'s
//            reader and by the scenario loader (one pool on its first row, one on its last);
//   catalog  a gpucap price catalog read and printed as `gpucap catalog list` does;
//   state    a workload's `initial_state` file (jobs or deployment instances at t = 0, rows of
//            unknown remaining drawn given their age) loaded under two pools and run.
// A fit case with the option `check` (a small log) also runs `gpucap fit --check` on it: the
// log replayed beside the fitted section, which must take exactly the rows the fit accepted.
//
// What counts as a finding (the functions return a description, "" otherwise):
//   - an exception of another type than the command's refusals (TraceDataError and
//     std::invalid_argument for fit, DataFileError for catalog), or a refusal whose message is
//     empty, longer than 4 KiB, not UTF-8, or holds a control character (terminal injection);
//   - a file written outside the output's folder;
//   - written output that gpucap does not load back, or loads with other values (rows, prices);
//   - output out of proportion (fit: 4 KiB per class; catalog import: 8 bytes per input byte);
// and, caught by the sanitizers or the driver's watchdog and memory limit, a crash, a hang or
// unbounded memory.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "fit_check.hpp"  // sim/cli: gpucap fit --check
#include "gpucap/compile.hpp"
#include "gpucap/data/catalog_import.hpp"
#include "gpucap/data/catalog_list.hpp"
#include "gpucap/data/delimited.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/workload_yaml.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap::fuzz {

enum class FitCatalogKind { fit, sky, catalog, state };
inline constexpr std::size_t kFitCatalogKinds = 4;
inline const char* const kFitCatalogKindNames[] = {"fit", "sky", "catalog", "state"};

/// Options of a case, from bits (the driver's draw, or the libFuzzer target's first bytes), so
/// that every number names a valid combination.
struct FitCatalogOptions {
  FitCatalogKind kind = FitCatalogKind::fit;
  // fit
  int class_column = -1;  ///< class by the header's column of this index; -1: "gpus"
  fit::RunTimeChoice family = fit::RunTimeChoice::automatic;
  double window_s = 0;  ///< 0: derived from the data
  bool placement = false;
  bool state_at_end = false;  ///< instance logs: --state end
  // sky
  std::string provider = "aws";
  std::string source;
  std::string retrieved;
  // catalog
  std::string gpu_filter;
  bool by_spot = false;
  // state
  bool state_instances = false;  ///< a deployment's state (else a job workload's)
  int state_distribution = 0;    ///< index into kStateDistributions
  bool state_in_hours = false;   ///< time_unit: 1h (else 1s)
  // fit: run `gpucap fit --check` on what was fitted (small logs only)
  bool check = false;
};

/// The lifetimes (deployments) or work (jobs) a state case draws residuals from: light and
/// heavy tails, bounded and empirical ones.
inline const char* const kStateDistributions[] = {
    "{dist: weibull, shape: 20, scale: 1h}",   "{dist: weibull, shape: 0.5, scale: 1h}",
    "{dist: lognormal, median: 1h, sigma: 0.1}", "{dist: lognormal, median: 1h, sigma: 3}",
    "{dist: gamma, mean: 1h, cv: 0.2}",          "{dist: gamma, mean: 1h, cv: 3}",
    "{dist: pareto, shape: 40, scale: 1min}",   "{dist: exponential, mean: 1h}",
    "{dist: uniform, min: 1min, max: 2h}",      "5h",
    "{dist: empirical, values: [60, 600, 3600, 36000]}"};
inline constexpr std::size_t kStateDistributionCount =
    sizeof kStateDistributions / sizeof kStateDistributions[0];

inline FitCatalogOptions fit_catalog_options(uint32_t bits) {
  FitCatalogOptions o;
  o.kind = static_cast<FitCatalogKind>(bits % kFitCatalogKinds);
  bits /= kFitCatalogKinds;
  static const fit::RunTimeChoice families[] = {
      fit::RunTimeChoice::automatic,   fit::RunTimeChoice::automatic, fit::RunTimeChoice::empirical,
      fit::RunTimeChoice::exponential, fit::RunTimeChoice::lognormal, fit::RunTimeChoice::gamma,
      fit::RunTimeChoice::weibull,     fit::RunTimeChoice::empirical};
  o.family = families[bits % 8];
  o.class_column = static_cast<int>((bits >> 3) % 9) - 1;
  static const double windows[] = {0, 0, 0, 0, 3600, 86400, 7 * 86400.0, 3.15576e11};
  o.window_s = windows[(bits >> 7) % 8];
  o.placement = (bits >> 10) & 1;
  static const char* const providers[] = {"aws", "lambda", "r\xc3\xbcnpod", "a b", "x.y-z_1"};
  o.provider = providers[(bits >> 11) % 5];
  static const char* const sources[] = {"", "skypilot-catalog v7", "a,b \"c\"\n\x1b[31m", " "};
  o.source = sources[(bits >> 14) % 4];
  o.retrieved = (bits >> 16) & 1 ? "2025-06-30" : "";
  static const char* const gpus[] = {"", "H100", "h100", "\x1b"};
  o.gpu_filter = gpus[(bits >> 17) % 4];
  o.by_spot = (bits >> 19) & 1;
  o.state_at_end = (bits >> 20) & 1;
  o.state_instances = (bits >> 3) & 1;
  o.state_distribution = static_cast<int>((bits >> 4) % kStateDistributionCount);
  o.state_in_hours = (bits >> 9) & 1;
  o.check = (bits >> 12) & 1;
  return o;
}

/// Cases that ended in a refusal, and cases whose output was loaded back (for the driver's
/// summary: a fuzzer whose cases are all refused tests little).
struct FitCatalogCounts {
  uint64_t refused = 0;
  uint64_t loaded = 0;
};
inline FitCatalogCounts g_fit_catalog_counts;

/// "" when `message` is fit for a terminal: 1 to 4096 bytes of UTF-8 on one line without
/// control characters; else what is wrong with it.
inline std::string check_message(const std::string& message) {
  if (message.empty()) return "an empty message";
  if (message.size() > 4096) return "a message of " + std::to_string(message.size()) + " bytes";
  if (!data::is_valid_utf8(message)) return "a message that is not UTF-8";
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "a message with the control byte " + std::to_string(static_cast<int>(c)) + ": " +
             message.substr(0, 200);
  return "";
}

inline bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(out);
}

/// The cells of a CSV text's first line, split at commas (quotes not resolved: a class column
/// named by such a cell may not exist, which is a refusal like any other).
inline std::vector<std::string> naive_header(const std::string& text) {
  std::vector<std::string> cells(1);
  for (const char c : text.substr(0, text.find('\n'))) {
    if (c == ',')
      cells.emplace_back();
    else if (c != '\r')
      cells.back() += c;
  }
  return cells;
}

/// The header the fitted section is loaded under: the horizon is the trace's observation
/// window (from 1 s to 1000 years), as a replay of the trace's period would have it (a much
/// longer horizon multiplies a busy trace's events past the loader's 1e9 per replication).
inline std::string fit_pools(double window_s) {
  char horizon[64];
  std::snprintf(horizon, sizeof horizon, "%.17gs", std::min(std::max(window_s, 1.0), 3.15576e10));
  return std::string("name: fitted\nhorizon: ") + horizon +
         "\nseed: 3\npools:\n"
         "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2.5, quota: 1048575}\n";
}

/// `gpucap fit --check` of a fitted log (its section written at `output`): the log replayed
/// beside the section on the pools of the fit's own load-back, 2 replications each. The check
/// may refuse (std::invalid_argument, with a sane message); anything else it throws is a
/// finding: the replay must take every row the fit accepted.
inline std::string run_fit_check(const std::string& text, const fit::TraceColumns& columns,
                                 fit::FitKind kind, const fit::JobTrace& trace,
                                 const fit::FittedWorkloads& fitted, const std::string& output,
                                 const std::string& dir) {
  const std::string log = dir + "/trace.csv", base = dir + "/check.yaml";
  if (!write_file(log, text) || !write_file(base, fit_pools(trace.window_s)))
    return "cannot write the check's files";
  cli::FitCheckOptions options;
  options.scenario = base;
  options.replications = 2;
  options.metrics = {kind == fit::FitKind::deployment ? kInstanceHoursDemanded : kJobsArrived,
                     kCostUsd};
  cli::FittedLog f;
  f.trace_path = log;
  f.columns = columns;
  f.kind = kind;
  f.trace = &trace;
  f.yaml = fitted.yaml;
  f.output_path = output;
  try {
    const std::vector<cli::MetricCheck> checks = cli::check_fit(options, f);
    if (checks.size() != options.metrics.size()) return "the check compared other metrics";
  } catch (const std::invalid_argument& e) {
    const std::string bad = check_message(e.what());
    return bad.empty() ? "" : "the check's refusal has " + bad;
  } catch (const std::exception& e) {
    return std::string("fit --check failed on rows the fit accepted: ") + typeid(e).name() +
           ": " + e.what();
  }
  return "";
}

/// A fit case in the folder `dir` (which must exist).
inline std::string run_fit_case(const std::string& text, const FitCatalogOptions& o,
                                const std::string& dir) {
  fit::TraceColumns columns;
  if (o.class_column >= 0) {
    const std::vector<std::string> header = naive_header(text);
    columns.class_by = header[static_cast<std::size_t>(o.class_column) % header.size()];
  }
  fit::FitWorkloadsOptions options;
  options.family = o.family;
  options.yaml.source = "fuzz/trace.csv";
  const std::vector<std::string> cells = naive_header(text);
  if (std::find(cells.begin(), cells.end(), "end_s") != cells.end()) {  // an instance log
    columns.submit = "start_s";
    columns.end = "end_s";
    options.yaml.kind = fit::FitKind::deployment;
    options.yaml.state = o.state_at_end ? fit::StateChoice::end : fit::StateChoice::start;
  }
  if (o.placement) options.yaml.placement = {"od"};
  const bool requests = std::find(cells.begin(), cells.end(), "context_tokens") != cells.end() ||
                        std::find(cells.begin(), cells.end(), "ContextTokens") != cells.end();
  if (requests) {  // an LLM request log: as `gpucap fit --kind llm --model llama-2-7b`
    columns.context = "context_tokens";
    columns.output = "output_tokens";
    if (o.class_column < 0) columns.class_by.clear();
    options.yaml.kind = fit::FitKind::llm;
    options.yaml.placement = {"od"};
    options.yaml.llm_model = "llama-2-7b";
  }
  const std::string output = dir + "/w.yaml";
  fit::JobTrace trace;
  fit::FittedWorkloads fitted;
  try {
    trace = fit::read_job_trace(text, "trace.csv", columns, o.window_s);
    fitted = fit::fit_workloads(trace, output, options);
  } catch (const fit::TraceDataError& e) {
    ++g_fit_catalog_counts.refused;
    const std::string bad = check_message(e.what());
    return bad.empty() ? "" : "fit's refusal has " + bad;
  } catch (const std::invalid_argument& e) {
    ++g_fit_catalog_counts.refused;
    const std::string bad = check_message(e.what());
    return bad.empty() ? "" : "fit's refusal has " + bad;
  } catch (const std::exception& e) {
    return std::string("fit threw a ") + typeid(e).name() + ": " + e.what();
  }
  if (fitted.fits.size() != trace.classes.size()) return "not one fit per class";
  if (fitted.yaml.size() > fit::kMaxWorkloadsYamlBytes) return "a section over its limit";
  // A class is about 1.3 to 1.6 KiB whatever its jobs (a weekly profile, 20 inline values).
  if (fitted.yaml.size() > 4096 * (trace.classes.size() + 1))
    return "a section of " + std::to_string(fitted.yaml.size()) + " bytes for " +
           std::to_string(trace.classes.size()) + " classes";
  namespace fs = std::filesystem;
  for (const fit::SamplesFile& s : fitted.samples) {
    if (fs::path(s.path).parent_path() != fs::path(dir) ||
        fs::path(s.path).filename().string() != s.name)
      return "a samples or state file outside the output's folder: " + s.path;
    if (!write_file(s.path, s.csv)) return "cannot write " + s.path;
  }
  if (!write_file(output, fitted.yaml)) return "cannot write " + output;
  try {
    const Scenario s =
        parse_scenario(fit_pools(trace.window_s) + fitted.yaml, dir + "/s.yaml", dir);
    if (s.workloads.size() != trace.classes.size())
      return "the section loads " + std::to_string(s.workloads.size()) + " workloads for " +
             std::to_string(trace.classes.size()) + " classes";
    for (std::size_t i = 0; i < s.workloads.size(); ++i)
      if (s.workloads[i].name != trace.classes[i].name)
        return "workload " + std::to_string(i) + " loads as \"" + s.workloads[i].name +
               "\", written \"" + trace.classes[i].name + "\"";
    (void)compile(s);
  } catch (const std::exception& e) {
    return std::string("the fitted section does not load back: ") + e.what();
  }
  ++g_fit_catalog_counts.loaded;
  // --check (of a log from its start, as the CLI allows): small logs over at most 30 days, so
  // that both runs stay short.
  if (o.check && !o.state_at_end && !requests && trace.rows <= 2000 &&
      trace.window_s <= 30 * 86400.0)
    return run_fit_check(text, columns, options.yaml.kind, trace, fitted, output, dir);
  return "";
}

/// `s` as a YAML double-quoted scalar: '"' and '\' escaped, every character beyond ASCII as
/// \uXXXX or \UXXXXXXXX (so that no YAML reader takes one for a line break).
inline std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    uint32_t code = c & (n == 4 ? 0x07 : n == 3 ? 0x0F : 0x1F);
    for (std::size_t k = 1; k < n && i + k < s.size(); ++k)
      code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    char escaped[16];
    std::snprintf(escaped, sizeof escaped, code > 0xFFFF ? "\\U%08X" : "\\u%04X", code);
    out += escaped;
    i += n;
  }
  return out + "\"";
}

/// A sky case in the folder `dir` (which must exist).
inline std::string run_sky_case(const std::string& text, const FitCatalogOptions& o,
                                const std::string& dir) {
  data::CatalogImportOptions options;
  options.provider = o.provider;
  options.source = o.source;
  options.retrieved = o.retrieved;
  data::CatalogImport imported;
  try {
    imported = data::import_skypilot_catalog_text(text, "vms.csv", options);
  } catch (const data::DataFileError& e) {
    ++g_fit_catalog_counts.refused;
    const std::string bad = check_message(e.what());
    return bad.empty() ? "" : "catalog import's refusal has " + bad;
  } catch (const std::exception& e) {
    return std::string("catalog import threw a ") + typeid(e).name() + ": " + e.what();
  }
  const data::ImportReport& r = imported.report;
  if (r.kept + r.dropped() > r.records)
    return "kept " + std::to_string(r.kept) + " + dropped " + std::to_string(r.dropped()) +
           " > rows read " + std::to_string(r.records);
  for (const auto& c : r.drops())
    if (!check_message(c.reason).empty()) return "a drop reason unfit for a terminal";
  std::size_t lines = 0;
  for (const char c : imported.csv) lines += c == '\n';
  if (lines != r.kept + 1)
    return "the catalog has " + std::to_string(lines) + " lines for " + std::to_string(r.kept) +
           " rows";
  if (imported.csv.size() > 8 * text.size() + 4096)
    return "a catalog of " + std::to_string(imported.csv.size()) + " bytes for " +
           std::to_string(text.size()) + " input bytes";
  if (r.kept == 0) {  // the CLI writes nothing then
    ++g_fit_catalog_counts.refused;
    return "";
  }
  const std::string path = dir + "/cat.csv";
  if (!write_file(path, imported.csv)) return "cannot write " + path;
  std::vector<data::CatalogEntry> rows;
  try {
    rows = data::read_price_catalog(path, uint64_t{256} << 20);
  } catch (const std::exception& e) {
    return std::string("catalog list cannot read the imported catalog: ") + e.what();
  }
  if (rows.size() != r.kept)
    return "catalog list reads " + std::to_string(rows.size()) + " rows of " +
           std::to_string(r.kept);
  for (const std::size_t i : {std::size_t{0}, rows.size() - 1}) {
    const data::CatalogEntry& row = rows[i];
    const std::string yaml =
        "name: catalog\nhorizon: 1d\ncatalog: cat.csv\npools:\n  p: {catalog_row: " +
        yaml_quoted(row.key) +
        ", purchase: on_demand, quota: 8}\nworkloads:\n  - {name: w, kind: batch, gpus: 1, "
        "arrivals: {process: poisson, rate_per_hour: 1}, work: {dist: exponential, mean: 1h}}\n";
    try {
      const Scenario s = parse_scenario(yaml, dir + "/s.yaml", dir);
      const PoolSpec& p = s.pools.at(0);
      if (p.price_usd_per_gpu_hour != row.on_demand_usd_per_gpu_hour ||
          p.gpu_memory_gb != row.gpu_memory_gb || p.gpu != row.gpu_model)
        return "row " + row.key + " loads with other values than catalog list reads";
      (void)compile(s);
    } catch (const std::exception& e) {
      return std::string("the imported catalog does not load back: ") + e.what();
    }
  }
  ++g_fit_catalog_counts.loaded;
  return "";
}

/// A catalog case (catalog list's reader and table) in the folder `dir`.
inline std::string run_catalog_case(const std::string& text, const FitCatalogOptions& o,
                                    const std::string& dir) {
  const std::string path = dir + "/prices.csv";
  if (!write_file(path, text)) return "cannot write " + path;
  std::vector<data::CatalogEntry> rows;
  try {
    rows = data::read_price_catalog(path, uint64_t{256} << 20);
  } catch (const data::DataFileError& e) {
    ++g_fit_catalog_counts.refused;
    const std::string bad = check_message(e.what());
    return bad.empty() ? "" : "catalog list's refusal has " + bad;
  } catch (const std::exception& e) {
    return std::string("catalog list threw a ") + typeid(e).name() + ": " + e.what();
  }
  data::CatalogFilter filter;
  filter.gpu = o.gpu_filter;
  filter.by_spot = o.by_spot;
  const std::vector<data::CatalogEntry> selected = data::select_catalog_rows(rows, filter);
  const std::string table = data::format_catalog_table(selected);
  if (table.size() > 512 * (selected.size() + 1)) return "a table line over 512 bytes";
  for (std::size_t begin = 0; begin < table.size();) {
    const std::size_t end = table.find('\n', begin);
    const std::string bad = check_message(table.substr(begin, end - begin));
    if (!bad.empty()) return "a table line with " + bad;
    begin = end + 1;
  }
  ++g_fit_catalog_counts.loaded;
  return "";
}

/// A state case in the folder `dir`: the text is a workload's `initial_state` file (what runs
/// or waits at t = 0, `remaining: unknown` rows drawn given their age), loaded under a scenario
/// of two pools and run for one replication. Findings beyond a refusal unfit for a terminal:
/// another exception than ScenarioError, an engine status other than ok (event limit aside),
/// a metric that is infinite or NaN where it cannot be, and a duration, hour or cost below 0
/// (a residual drawn negative gave completion_mean -1,152 s).
inline std::string run_state_case(const std::string& text, const FitCatalogOptions& o,
                                  const std::string& dir) {
  if (!write_file(dir + "/state.csv", text)) return "cannot write " + dir + "/state.csv";
  const std::string body = kStateDistributions[o.state_distribution];
  const std::string yaml =
      std::string("name: state\nhorizon: 2d\nseed: 3\npools:\n"
                  "  a: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8, provisioning_delay: 1min}\n"
                  "  b: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, quota: 16,\n"
                  "      preemption: {time_to_preemption: {dist: exponential, mean: 6h}}}\n"
                  "workloads:\n  - name: w\n    placement: [a, b]\n") +
      (o.state_instances ? "    kind: deployment\n    lifetime: " : "    work: ") + body +
      "\n    arrivals: {process: poisson, rate_per_hour: 2}\n"
      "    initial_state: {file: state.csv, time_unit: " +
      (o.state_in_hours ? "1h" : "1s") + "}\n";
  InputLimits limits;
  limits.data_bytes = 64 << 20;
  Scenario scenario;
  try {
    scenario = parse_scenario(yaml, dir + "/s.yaml", dir, {}, limits);
  } catch (const ScenarioError& e) {
    ++g_fit_catalog_counts.refused;
    // The loader's message names file:line:column first: one line of it must be sane.
    const std::string first = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    const std::string bad = check_message(first);
    return bad.empty() ? "" : "the state's refusal has " + bad;
  } catch (const std::exception& e) {
    return std::string("loading the state threw a ") + typeid(e).name() + ": " + e.what();
  }
  try {
    const ModelStorage storage = compile(scenario);
    const CompiledModel& model = storage.model();
    const std::size_t arena_bytes = replication_arena_bytes(model);
    if (arena_bytes > (std::size_t{256} << 20)) return "";  // valid, but too big to run here
    std::vector<uint64_t> arena((arena_bytes + 7) / 8);
    std::vector<double> scalars(kScalarMetricCount);
    std::vector<double> pools(static_cast<std::size_t>(model.pool_count) * kPoolMetricCount);
    const int status = run_replication_limited(model, 7, 0, arena.data(), scalars.data(),
                                               pools.data(), nullptr, 2000000);
    if (status == kReplicationEventLimit) return "";
    if (status != kReplicationOk) return "the engine returned status " + std::to_string(status);
    for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
      const double v = scalars[m];
      if (!std::isfinite(v) && !(std::isnan(v) && kScalarMetricInfo[m].defined_when != nullptr))
        return std::string("metric ") + kScalarMetricInfo[m].name + " is " + std::to_string(v);
    }
    for (ScalarMetric m : {kCostUsd, kGpuHoursUsed, kGpuHoursBilled, kCompletionMeanS,
                           kCompletionP50S, kCompletionP99S, kWaitMeanS, kInstanceHoursDemanded,
                           kInstanceHoursServed})
      if (scalars[m] < -1e-6)
        return std::string("metric ") + kScalarMetricInfo[m].name + " is negative: " +
               std::to_string(scalars[m]);
  } catch (const std::exception& e) {
    return std::string("compiling or running the state threw: ") + e.what();
  }
  ++g_fit_catalog_counts.loaded;
  return "";
}

inline std::string run_fit_catalog_case(const std::string& text, const FitCatalogOptions& o,
                                        const std::string& dir) {
  switch (o.kind) {
    case FitCatalogKind::fit:
      return run_fit_case(text, o, dir);
    case FitCatalogKind::sky:
      return run_sky_case(text, o, dir);
    case FitCatalogKind::catalog:
      return run_catalog_case(text, o, dir);
    case FitCatalogKind::state:
      return run_state_case(text, o, dir);
  }
  return "";
}

}  // namespace gpucap::fuzz
