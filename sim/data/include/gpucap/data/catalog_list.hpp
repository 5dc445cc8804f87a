// gpucap data: reading gpucap's price catalog (data/gpu_prices.csv's layout) to list its rows,
// e.g. the cheapest H100 per GPU-hour (`gpucap catalog list --gpu H100`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpucap::data {

/// One row of a price catalog. Prices in USD per GPU-hour; memory in GB per GPU.
struct CatalogEntry {
  std::string key, provider, instance_type, region, gpu_model;
  uint64_t gpu_count = 0;  ///< 0 when the catalog has no gpu_count column
  double gpu_memory_gb = 0;
  double on_demand_usd_per_gpu_hour = 0;
  double spot_usd_per_gpu_hour = -1;  ///< < 0: no spot price
  std::string source, retrieved;      ///< where and when the price was read ("" when absent)
};

/// Reads a catalog (at least key, gpu_model, gpu_memory_gb, on_demand_usd_per_gpu_hour and
/// spot_usd_per_gpu_hour, as the scenario loader needs; provider, instance_type and region come
/// from the key when their columns are absent). Throws DataFileError / InputFileError naming
/// the file, line and column.
std::vector<CatalogEntry> read_price_catalog(const std::string& path, uint64_t max_bytes);

struct CatalogFilter {
  std::string gpu;       ///< gpu_model, case-insensitive ("" = any)
  std::string provider;  ///< "" = any
  std::string region;    ///< "" = any
  bool by_spot = false;  ///< sort by the spot price (rows without one left out), not on-demand
};

/// The rows that pass `filter`, cheapest first (ties by key).
std::vector<CatalogEntry> select_catalog_rows(const std::vector<CatalogEntry>& rows,
                                              const CatalogFilter& filter);

/// A table with units in its header: key, provider, region, gpu, GPUs, memory GB/GPU,
/// on-demand USD/GPU-h, spot USD/GPU-h.
std::string format_catalog_table(const std::vector<CatalogEntry>& rows);

}  // namespace gpucap::data
