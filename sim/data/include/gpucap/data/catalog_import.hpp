// gpucap data: turning a cloud price catalog in SkyPilot's layout (skypilot-org/
// skypilot-catalog, catalogs/v7/<cloud>/vms.csv) into gpucap's price catalog, the layout of
// data/gpu_prices.csv that a scenario's `catalog:` reads (docs/scenario-format.md, "Price
// catalog"; docs/importing.md, "Price catalogs"):
//
//   key,provider,instance_type,region,gpu_model,gpu_count,gpu_memory_gb,
//   on_demand_usd_per_gpu_hour,spot_usd_per_gpu_hour,source,retrieved
//
// SkyPilot's columns are found by name (their order differs by cloud): InstanceType,
// AcceleratorName, AcceleratorCount, Price, SpotPrice, Region, and optionally
// AvailabilityZone and GpuInfo (vCPUs and MemoryGiB are not used). One output row per
// (instance type, region):
// - zones are folded into their region: the on-demand price is the lowest of the zones' (they
//   are normally equal) and the spot price the lowest of the zones' spot prices, as the
//   project's own catalog does for AWS;
// - prices per GPU-hour are the instance's price / AcceleratorCount, rounded to 6 decimals
//   (the host's CPUs, memory and disk are included);
// - gpu_memory_gb is GpuInfo's MemoryInfo.SizeInMiB / 1024 (per GPU).
// Rows that cannot become catalog rows are skipped and counted by reason: no accelerator
// (CPU-only types), an accelerator row without an instance type (GCP prices GPUs apart from
// their host VMs; this importer does not combine them), a fractional GPU count, no on-demand
// price, no GPU memory in GpuInfo (the scenario loader needs a memory > 0), a control
// character in a name or a name over 256 bytes, and, checked on the values as written (rounded), a memory that would
// read 0, a positive price that would read 0, a price above 1e6 USD per GPU-hour. So every
// catalog written loads back in the scenario loader.
#pragma once
#include <cstdint>
#include <string>

#include "gpucap/data/import_report.hpp"

namespace gpucap::data {

struct CatalogImportOptions {
  std::string provider;   ///< first part of each key, e.g. "aws" (required)
  std::string source;     ///< the `source` column (default: the input's path)
  std::string retrieved;  ///< the `retrieved` column: YYYY-MM-DD (default: "unknown")
  uint64_t max_bytes = uint64_t{256} << 20;  ///< largest input read
};

struct CatalogImport {
  std::string csv;      ///< the catalog, header first, rows sorted by key
  ImportReport report;  ///< records = input rows, kept = output rows, drops = skipped rows
};

/// Reads `path` and converts it. Throws DataFileError (or InputFileError) for a file that
/// cannot be read or lacks SkyPilot's columns; std::invalid_argument for bad options.
CatalogImport import_skypilot_catalog(const std::string& path, const CatalogImportOptions& options);

/// The same for a catalog's whole `text` (`path` names it in messages; max_bytes is not used).
CatalogImport import_skypilot_catalog_text(const std::string& text, const std::string& path,
                                           const CatalogImportOptions& options);

/// Checks a provider name (the first part of every key): 1 to 100 bytes of UTF-8 without '/',
/// ',', quotes, control characters or spaces at its ends. Throws std::invalid_argument.
void check_provider(const std::string& provider);

/// The provider named by a SkyPilot catalog path (".../catalogs/v7/aws/vms.csv" -> "aws"), or
/// "" when its folder is not a known cloud.
std::string provider_from_path(const std::string& path);

/// Checks a YYYY-MM-DD date (a real calendar day); throws std::invalid_argument.
void check_date(const std::string& date);

}  // namespace gpucap::data
