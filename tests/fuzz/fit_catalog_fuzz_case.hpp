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
//            (at the log's start or end, by an option bit) written and loaded with it;
//   sky      a SkyPilot catalog imported as `gpucap catalog import` does
//            (import_skypilot_catalog_text); the catalog written is read back by `catalog list`'s
//            reader and by the scenario loader (one pool on its first row, one on its last);
//   catalog  a gpucap price catalog read and printed as `gpucap catalog list` does.
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
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/data/catalog_import.hpp"
#include "gpucap/data/catalog_list.hpp"
#include "gpucap/data/delimited.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/fit/workload_yaml.hpp"
#include "gpucap/scenario_loader.hpp"

namespace gpucap::fuzz {

enum class FitCatalogKind { fit, sky, catalog };
inline constexpr std::size_t kFitCatalogKinds = 3;
inline const char* const kFitCatalogKindNames[] = {"fit", "sky", "catalog"};

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
};

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

inline std::string run_fit_catalog_case(const std::string& text, const FitCatalogOptions& o,
                                        const std::string& dir) {
  switch (o.kind) {
    case FitCatalogKind::fit:
      return run_fit_case(text, o, dir);
    case FitCatalogKind::sky:
      return run_sky_case(text, o, dir);
    case FitCatalogKind::catalog:
      return run_catalog_case(text, o, dir);
  }
  return "";
}

}  // namespace gpucap::fuzz
