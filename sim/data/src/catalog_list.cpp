// gpucap data: listing a price catalog (see catalog_list.hpp).
#include "gpucap/data/catalog_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpucap/csv_table.hpp"
#include "gpucap/data/delimited.hpp"
#include "gpucap/data/line_reader.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"

namespace gpucap::data {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

/// A number as the scenario loader reads the catalog's numbers (decimal, finite).
bool number_of(std::string_view text, double& value) { return gpucap::parse_decimal(text, value); }

/// A price for the table: 4 decimals up to 10^9 USD, an exponent above ("1e+308" rather than
/// 309 digits cut to the buffer).
std::string price_text(double usd) {
  if (usd < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, usd < 1e9 ? "%.4f" : "%.4g", usd);
  return text;
}

}  // namespace

std::vector<CatalogEntry> read_price_catalog(const std::string& path, uint64_t max_bytes) {
  const std::string text = read_input_file(path, max_bytes, "catalog file", "--max-data-size");
  const std::string where = text::excerpt(path, 300);
  std::vector<std::string_view> f;
  std::vector<std::string> scratch;
  std::vector<std::string> header;
  std::vector<CatalogEntry> rows;
  int c_key = -1, c_provider = -1, c_type = -1, c_region = -1, c_model = -1, c_count = -1,
      c_memory = -1, c_od = -1, c_spot = -1, c_source = -1, c_retrieved = -1;
  uint64_t line_number = 0;
  std::size_t pos = 0;
  std::string_view line;
  while (next_text_line(text, pos, line)) {
    ++line_number;
    if (line_number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::string at = where + ":" + std::to_string(line_number) + ": ";
    if (!split_fields(line, ',', true, f, scratch))
      throw DataFileError(at + "a quoted field is not closed on its line");
    if (header.empty()) {
      header.assign(f.begin(), f.end());
      const auto need = [&](const char* name) {
        const int c = column_of(header, name);
        if (c < 0)
          throw DataFileError(where + ": no column \"" + name +
                              "\"; a price catalog needs key, gpu_model, gpu_memory_gb, "
                              "on_demand_usd_per_gpu_hour and spot_usd_per_gpu_hour (as "
                              "data/gpu_prices.csv); columns found: " +
                              text::excerpt_list(header));
        return c;
      };
      c_key = need("key");
      c_model = need("gpu_model");
      c_memory = need("gpu_memory_gb");
      c_od = need("on_demand_usd_per_gpu_hour");
      c_spot = need("spot_usd_per_gpu_hour");
      c_provider = column_of(header, "provider");
      c_type = column_of(header, "instance_type");
      c_region = column_of(header, "region");
      c_count = column_of(header, "gpu_count");
      c_source = column_of(header, "source");
      c_retrieved = column_of(header, "retrieved");
      continue;
    }
    if (f.size() != header.size())
      throw DataFileError(at + "has " + std::to_string(f.size()) + " fields; the header has " +
                          std::to_string(header.size()));
    CatalogEntry e;
    e.key = f[c_key];
    const std::vector<std::string> parts = text::split(e.key, '/');
    e.provider = c_provider >= 0 ? std::string(f[c_provider]) : parts.empty() ? "" : parts[0];
    e.instance_type = c_type >= 0 ? std::string(f[c_type]) : parts.size() > 1 ? parts[1] : "";
    e.region = c_region >= 0 ? std::string(f[c_region]) : parts.size() > 2 ? parts[2] : "";
    e.gpu_model = f[c_model];
    if (c_source >= 0) e.source = f[c_source];
    if (c_retrieved >= 0) e.retrieved = f[c_retrieved];
    const auto number = [&](int column, const char* name, double& out) {
      if (!number_of(f[column], out) || out < 0)
        throw DataFileError(at + "column \"" + name + "\" holds \"" +
                            text::excerpt(std::string(f[column])) + "\", not a number >= 0");
    };
    number(c_memory, "gpu_memory_gb", e.gpu_memory_gb);
    number(c_od, "on_demand_usd_per_gpu_hour", e.on_demand_usd_per_gpu_hour);
    if (!f[c_spot].empty()) number(c_spot, "spot_usd_per_gpu_hour", e.spot_usd_per_gpu_hour);
    double count = 0;
    if (c_count >= 0 && number_of(f[c_count], count) && count >= 0 && count < 1e9 &&
        count == std::floor(count))
      e.gpu_count = static_cast<uint64_t>(count);
    rows.push_back(std::move(e));
  }
  if (header.empty()) throw DataFileError(where + ": the catalog is empty (no header line)");
  return rows;
}

std::vector<CatalogEntry> select_catalog_rows(const std::vector<CatalogEntry>& rows,
                                              const CatalogFilter& filter) {
  std::vector<CatalogEntry> out;
  for (const CatalogEntry& e : rows) {
    if (!filter.gpu.empty() && lower(e.gpu_model) != lower(filter.gpu)) continue;
    if (!filter.provider.empty() && lower(e.provider) != lower(filter.provider)) continue;
    if (!filter.region.empty() && e.region != filter.region) continue;
    if (filter.by_spot && e.spot_usd_per_gpu_hour < 0) continue;
    out.push_back(e);
  }
  std::stable_sort(out.begin(), out.end(), [&](const CatalogEntry& a, const CatalogEntry& b) {
    const double pa = filter.by_spot ? a.spot_usd_per_gpu_hour : a.on_demand_usd_per_gpu_hour;
    const double pb = filter.by_spot ? b.spot_usd_per_gpu_hour : b.on_demand_usd_per_gpu_hour;
    return pa != pb ? pa < pb : a.key < b.key;
  });
  return out;
}

std::string format_catalog_table(const std::vector<CatalogEntry>& rows) {
  std::size_t key_width = 3, model_width = 3;
  for (const CatalogEntry& e : rows) {
    key_width = std::max(key_width, std::min<std::size_t>(e.key.size(), 60));
    model_width = std::max(model_width, std::min<std::size_t>(e.gpu_model.size(), 20));
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-*s  %5s  %13s  %22s  %17s\n",
                static_cast<int>(key_width), "key", static_cast<int>(model_width), "gpu", "GPUs",
                "memory GB/GPU", "on-demand USD/GPU-h", "spot USD/GPU-h");
  std::string out = line;
  for (const CatalogEntry& e : rows) {
    std::snprintf(line, sizeof line, "%-*s  %-*s  %5s  %13s  %22s  %17s\n",
                  static_cast<int>(key_width), text::excerpt(e.key, 60).c_str(),
                  static_cast<int>(model_width), text::excerpt(e.gpu_model, 20).c_str(),
                  e.gpu_count ? std::to_string(e.gpu_count).c_str() : "-",
                  text::format_number(e.gpu_memory_gb).c_str(),
                  price_text(e.on_demand_usd_per_gpu_hour).c_str(),
                  price_text(e.spot_usd_per_gpu_hour).c_str());
    out += line;
  }
  return out;
}

}  // namespace gpucap::data
