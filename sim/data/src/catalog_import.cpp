// gpucap data: SkyPilot catalogs into gpucap's price catalog (see catalog_import.hpp).
#include "gpucap/data/catalog_import.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "gpucap/data/delimited.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/data/timestamp.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"

namespace gpucap::data {
namespace {

constexpr const char* kNeeds =
    "a SkyPilot catalog (catalogs/v7/<cloud>/vms.csv) has the columns InstanceType, "
    "AcceleratorName, AcceleratorCount, Price, SpotPrice and Region, in any order";

/// A finite number >= 0 ("12.29", "0.636663"); false for anything else.
bool price_of(std::string_view text, double& value) {
  if (text.empty() || text.front() == '-' || text.front() == '+') return false;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() && std::isfinite(value) &&
         value >= 0 && value < 1e9;
}

/// GB of memory per GPU from GpuInfo ("{'Gpus': [{..., 'MemoryInfo': {'SizeInMiB': 81920}}],
/// ...}", single or double quotes): SizeInMiB / 1024; 0 when absent.
double memory_gb_of(std::string_view info) {
  const std::size_t at = info.find("SizeInMiB");
  if (at == std::string_view::npos) return 0;
  std::size_t i = at + 9;
  while (i < info.size() && (info[i] == '\'' || info[i] == '"' || info[i] == ':' || info[i] == ' '))
    ++i;
  double mib = 0;
  const auto r = std::from_chars(info.data() + i, info.data() + info.size(), mib);
  if (r.ec != std::errc() || !(mib > 0) || mib > 1e9) return 0;
  return mib / 1024.0;
}

/// Longest instance type, region or accelerator name kept, bytes (real ones have under 40).
constexpr std::size_t kMaxNameBytes = 256;

/// Largest price written, USD per GPU-hour: the scenario format's ceiling for a price.
constexpr double kMaxUsdPerGpuHour = 1e6;

/// True when `text` has a control character (below 0x20, or DEL): such text would be written
/// with '?' in its place, so that two different keys could become one.
bool has_control(std::string_view text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

/// A price per GPU-hour with 6 decimals, without trailing zeros ("12.29", "2.624175").
std::string per_gpu(double price, uint64_t gpus) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", price / static_cast<double>(gpus));
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string number_text(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", v);
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

struct Folded {
  std::string provider, instance_type, region, gpu_model;
  uint64_t gpus = 0;
  double memory_gb = 0;
  double on_demand = 0;     ///< USD per instance-hour, lowest over the zones
  double spot = -1;         ///< USD per instance-hour, lowest over the zones; < 0: none
  uint64_t first_line = 0;  ///< of the first input row folded into it
  uint64_t input_rows = 0;  ///< input rows folded into it
};

/// Why a folded row cannot be written as it would read back (the loader needs a memory > 0;
/// a positive price must not read back as 0, nor exceed the format's ceiling), or "".
std::string unwritable(const Folded& row, const std::string& memory, const std::string& on_demand,
                       const std::string& spot) {
  if (std::strtod(memory.c_str(), nullptr) <= 0)
    return "GPU memory below 0.0005 GB per GPU (written with 3 decimals it would read 0; the "
           "scenario loader needs a memory > 0)";
  const auto rounds_to_zero = [](double price, const std::string& text) {
    return price > 0 && std::strtod(text.c_str(), nullptr) <= 0;
  };
  if (rounds_to_zero(row.on_demand, on_demand) || (row.spot > 0 && rounds_to_zero(row.spot, spot)))
    return "a price below 0.0000005 USD per GPU-hour (written with 6 decimals it would read 0)";
  if (std::strtod(on_demand.c_str(), nullptr) > kMaxUsdPerGpuHour ||
      (row.spot >= 0 && std::strtod(spot.c_str(), nullptr) > kMaxUsdPerGpuHour))
    return "a price above 1e6 USD per GPU-hour (the scenario format's ceiling)";
  return "";
}

}  // namespace

std::string provider_from_path(const std::string& path) {
  static const char* const known[] = {
      "aws", "gcp",        "azure",      "lambda",     "runpod",        "nebius", "oci",
      "ibm", "cudo",       "fluidstack", "paperspace", "vast",          "do",     "hyperbolic",
      "scp", "kubernetes", "vsphere",    "seeweb",     "primeintellect"};
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "";
  const std::size_t before = path.rfind('/', slash - 1);
  const std::string folder = path.substr(before == std::string::npos ? 0 : before + 1,
                                         slash - (before == std::string::npos ? 0 : before + 1));
  for (const char* k : known)
    if (folder == k) return folder;
  return "";
}

void check_date(const std::string& date) {
  int64_t ms = 0;
  if (date.size() != 10 || parse_timestamp(date, TimeFormat::iso8601, {}, ms) != TimeParse::ok)
    throw std::invalid_argument(
        "--date must be a calendar date written YYYY-MM-DD, e.g. "
        "2025-06-30; got \"" +
        text::excerpt(date) + "\"");
}

CatalogImport import_skypilot_catalog(const std::string& path,
                                      const CatalogImportOptions& options) {
  check_provider(options.provider);
  if (!options.retrieved.empty()) check_date(options.retrieved);
  const std::string text =
      read_input_file(path, options.max_bytes, "catalog file", "--max-data-size");
  return import_skypilot_catalog_text(text, path, options);
}

void check_provider(const std::string& provider) {
  if (provider.empty() || provider.size() > 100 ||
      provider.find_first_of("/,\"") != std::string::npos || has_control(provider) ||
      provider.front() == ' ' || provider.back() == ' ' || !is_valid_utf8(provider))
    throw std::invalid_argument(
        "the provider must be a name of at most 100 bytes without '/', ',', quotes, control "
        "characters or spaces at its ends, e.g. --provider aws; got \"" +
        text::excerpt(provider) + "\"");
}

CatalogImport import_skypilot_catalog_text(const std::string& text, const std::string& path,
                                           const CatalogImportOptions& options) {
  check_provider(options.provider);
  if (!options.retrieved.empty()) check_date(options.retrieved);
  CatalogImport result;
  ImportReport& report = result.report;
  report.format = "skypilot";
  report.input = path;
  const std::string where = text::excerpt(path, 300);

  std::vector<std::string_view> f;
  std::vector<std::string> scratch;
  std::vector<std::string> header;
  std::map<std::string, Folded> rows;  // by key: sorted output
  int c_type = -1, c_name = -1, c_count = -1, c_price = -1, c_spot = -1, c_region = -1, c_info = -1;
  uint64_t line_number = 0;
  std::size_t pos = 0;
  std::string_view line;
  while (next_text_line(text, pos, line)) {
    ++line_number;
    if (line_number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const bool closed = split_fields(line, ',', true, f, scratch);
    if (header.empty()) {
      if (!closed)
        throw DataFileError(where + ":" + std::to_string(line_number) +
                            ": the header has a quoted field that is not closed");
      header.assign(f.begin(), f.end());
      const auto need = [&](const char* name) {
        const int c = column_of(header, name);
        if (c < 0)
          throw DataFileError(where + ": the header has no column \"" + name + "\"; " + kNeeds +
                              "; columns found: " + text::excerpt_list(header));
        return c;
      };
      c_type = need("InstanceType");
      c_name = need("AcceleratorName");
      c_count = need("AcceleratorCount");
      c_price = need("Price");
      c_spot = need("SpotPrice");
      c_region = need("Region");
      c_info = column_of(header, "GpuInfo");
      continue;
    }
    ++report.records;
    if (!closed) {
      report.drop("a quoted field not closed on its line", line_number);
      continue;
    }
    if (f.size() != header.size()) {
      report.drop(f.size() < header.size() ? "missing fields (fewer fields than the header)"
                                           : "more fields than the header (ragged row)",
                  line_number);
      continue;
    }
    double count = 0;
    if (f[c_name].empty() || f[c_count].empty() || !price_of(f[c_count], count) || count == 0) {
      report.drop("no accelerator (a CPU-only instance type)", line_number);
      continue;
    }
    if (f[c_type].empty()) {
      report.drop(
          "an accelerator row without an instance type (GCP lists GPUs apart from their host "
          "VMs; not combined)",
          line_number);
      continue;
    }
    if (count != std::floor(count) || count > 1e6) {
      report.drop("a fractional accelerator count", line_number);
      continue;
    }
    double price = 0;
    if (!price_of(f[c_price], price)) {
      report.drop("no on-demand price (empty or not a price)", line_number);
      continue;
    }
    double spot = -1;
    if (!f[c_spot].empty() && !price_of(f[c_spot], spot)) {
      report.drop("a spot price that is not a price", line_number);
      continue;
    }
    const double memory = c_info >= 0 ? memory_gb_of(f[c_info]) : 0;
    if (!(memory > 0)) {
      report.drop("no GPU memory in GpuInfo (MemoryInfo.SizeInMiB)", line_number);
      continue;
    }
    if (f[c_region].empty() || f[c_type].find('/') != std::string_view::npos ||
        f[c_region].find('/') != std::string_view::npos) {
      report.drop(
          "no region, or a '/' in the instance type or region (keys are "
          "provider/instance_type/region)",
          line_number);
      continue;
    }
    if (!is_valid_utf8(line)) {
      report.drop("text that is not UTF-8", line_number);
      continue;
    }
    if (f[c_type].size() > kMaxNameBytes || f[c_region].size() > kMaxNameBytes ||
        f[c_name].size() > kMaxNameBytes) {
      report.drop(
          "an instance type, region or accelerator name over 256 bytes (a key a "
          "scenario's catalog_row could hardly name)",
          line_number);
      continue;
    }
    if (has_control(f[c_type]) || has_control(f[c_region]) || has_control(f[c_name])) {
      report.drop("a control character in the instance type, region or accelerator name",
                  line_number);
      continue;
    }
    const std::string key =
        options.provider + "/" + std::string(f[c_type]) + "/" + std::string(f[c_region]);
    auto [it, fresh] = rows.try_emplace(key);
    Folded& row = it->second;
    if (fresh) {
      row = {options.provider,
             std::string(f[c_type]),
             std::string(f[c_region]),
             std::string(f[c_name]),
             static_cast<uint64_t>(count),
             memory,
             price,
             spot,
             line_number,
             1};
      continue;
    }
    ++row.input_rows;
    report.note("zones folded into their region (lowest prices kept)", line_number);
    if (row.gpu_model != f[c_name] || row.gpus != static_cast<uint64_t>(count))
      report.note(
          "rows of one instance type and region with different accelerators (the "
          "first row's kept)",
          line_number);
    if (price != row.on_demand)
      report.note("on-demand prices that differ between zones of a region (the lowest kept)",
                  line_number);
    row.on_demand = std::min(row.on_demand, price);
    if (spot >= 0) row.spot = row.spot < 0 ? spot : std::min(row.spot, spot);
  }
  if (header.empty()) throw DataFileError(where + ": the file is empty; " + std::string(kNeeds));

  const std::string source = csv_field(options.source.empty() ? path : options.source);
  const std::string retrieved =
      csv_field(options.retrieved.empty() ? "unknown" : options.retrieved);
  result.csv =
      "key,provider,instance_type,region,gpu_model,gpu_count,gpu_memory_gb,"
      "on_demand_usd_per_gpu_hour,spot_usd_per_gpu_hour,source,retrieved\n";
  for (const auto& [key, row] : rows) {
    // Values are checked as written: what the loader reads back is the rounded text.
    const std::string memory = number_text(row.memory_gb);
    const std::string on_demand = per_gpu(row.on_demand, row.gpus);
    const std::string spot = row.spot >= 0 ? per_gpu(row.spot, row.gpus) : "";
    const std::string why = unwritable(row, memory, on_demand, spot);
    if (!why.empty()) {
      for (uint64_t i = 0; i < row.input_rows; ++i) report.drop(why, row.first_line);
      continue;
    }
    result.csv += csv_field(key) + "," + csv_field(row.provider) + "," +
                  csv_field(row.instance_type) + "," + csv_field(row.region) + "," +
                  csv_field(row.gpu_model) + "," + std::to_string(row.gpus) + "," + memory + "," +
                  on_demand + "," + spot + "," + source + "," + retrieved + "\n";
    ++report.kept;
  }
  report.jobs = report.records;
  return result;
}

}  // namespace gpucap::data
