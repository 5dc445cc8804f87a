// Price catalogs (sim/data): SkyPilot's layout into gpucap's catalog, with zones folded and
// rows without GPUs counted; listing rows by price per GPU-hour.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "gpucap/data/catalog_import.hpp"
#include "gpucap/data/catalog_list.hpp"
#include "gpucap/data/line_reader.hpp"

namespace gpucap::data {
namespace {

namespace fs = std::filesystem;

std::string write(const std::string& name, const std::string& text) {
  const fs::path dir =
      fs::path(testing::TempDir()) / ("gpucap_catalog_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return (dir / name).string();
}

const std::string kH100Info =
    "\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8, 'MemoryInfo': "
    "{'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\"";

// AWS's column order; the second row is another zone of us-east-1 with a dearer spot price.
const std::string kAws =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "p5.48xlarge,H100,8.0,192.0,2048.0," + kH100Info + ",98.32,20.9934,us-east-1,use1-az1\n"
    "p5.48xlarge,H100,8.0,192.0,2048.0," + kH100Info + ",98.32,22.1,us-east-1,use1-az2\n"
    "p5.48xlarge,H100,8.0,192.0,2048.0," + kH100Info + ",98.32,,us-west-2,usw2-az1\n"
    "m5.large,,,2.0,8.0,,0.096,0.03,us-east-1,use1-az1\n"
    "g5.xlarge,A10G,1.0,4.0,16.0,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 24576}}]}\",1.006,,"
    "us-east-1,use1-az1\n"
    ",H100,8,,," + kH100Info + ",33.6,18.0,us-central1,us-central1-a\n"
    "x.large,T4,1.0,4,16,,0.5,0.2,us-east-1,use1-az1\n"
    "p5.48xlarge,H100,8.0,192.0\n";

TEST(CatalogImport, SkyPilotRowsBecomeCatalogRowsPerRegion) {
  CatalogImportOptions o;
  o.provider = "aws";
  o.source = "skypilot-catalog v7";
  o.retrieved = "2025-06-30";
  const CatalogImport c = import_skypilot_catalog(write("vms.csv", kAws), o);
  // 98.32 / 8 = 12.29; spot min(20.9934, 22.1) / 8 = 2.624175; 81920 MiB = 80 GB.
  EXPECT_EQ(c.csv,
            "key,provider,instance_type,region,gpu_model,gpu_count,gpu_memory_gb,"
            "on_demand_usd_per_gpu_hour,spot_usd_per_gpu_hour,source,retrieved\n"
            "aws/g5.xlarge/us-east-1,aws,g5.xlarge,us-east-1,A10G,1,24,1.006,,skypilot-catalog "
            "v7,2025-06-30\n"
            "aws/p5.48xlarge/us-east-1,aws,p5.48xlarge,us-east-1,H100,8,80,12.29,2.624175,"
            "skypilot-catalog v7,2025-06-30\n"
            "aws/p5.48xlarge/us-west-2,aws,p5.48xlarge,us-west-2,H100,8,80,12.29,,"
            "skypilot-catalog v7,2025-06-30\n");
  EXPECT_EQ(c.report.records, 8u);
  EXPECT_EQ(c.report.kept, 3u);
  EXPECT_EQ(c.report.dropped_for("no accelerator (a CPU-only instance type)"), 1u);
  EXPECT_EQ(c.report.dropped_for("an accelerator row without an instance type (GCP lists GPUs "
                                 "apart from their host VMs; not combined)"),
            1u);
  EXPECT_EQ(c.report.dropped_for("no GPU memory in GpuInfo (MemoryInfo.SizeInMiB)"), 1u);
  EXPECT_EQ(c.report.dropped_for("missing fields (fewer fields than the header)"), 1u);
  EXPECT_EQ(c.report.noted("zones folded into their region (lowest prices kept)"), 1u);

  // The result reads back as a catalog, and lists cheapest first.
  const std::vector<CatalogEntry> rows = read_price_catalog(write("out.csv", c.csv), 1 << 20);
  ASSERT_EQ(rows.size(), 3u);
  CatalogFilter h100;
  h100.gpu = "h100";
  const std::vector<CatalogEntry> sel = select_catalog_rows(rows, h100);
  ASSERT_EQ(sel.size(), 2u);
  EXPECT_EQ(sel[0].key, "aws/p5.48xlarge/us-east-1");  // tie at 12.29: by key
  h100.by_spot = true;
  EXPECT_EQ(select_catalog_rows(rows, h100).size(), 1u);  // us-west-2 has no spot price
  const std::string table = format_catalog_table(sel);
  EXPECT_NE(table.find("on-demand USD/GPU-h"), std::string::npos);
  EXPECT_NE(table.find("memory GB/GPU"), std::string::npos);
  EXPECT_NE(table.find("12.2900"), std::string::npos);
}

TEST(CatalogImport, BadInputsAndOptions) {
  CatalogImportOptions o;
  o.provider = "aws";
  EXPECT_THROW(import_skypilot_catalog(write("empty.csv", ""), o), DataFileError);
  try {
    import_skypilot_catalog(write("nocol.csv", "InstanceType,Price\na,1\n"), o);
    FAIL();
  } catch (const DataFileError& e) {
    EXPECT_NE(std::string(e.what()).find("no column \"AcceleratorName\""), std::string::npos);
  }
  o.retrieved = "2025-02-30";
  EXPECT_THROW(import_skypilot_catalog(write("vms2.csv", kAws), o), std::invalid_argument);
  o.retrieved = "";
  o.provider = "a/b";
  EXPECT_THROW(import_skypilot_catalog(write("vms3.csv", kAws), o), std::invalid_argument);
  EXPECT_EQ(provider_from_path("x/catalogs/v7/gcp/vms.csv"), "gcp");
  EXPECT_EQ(provider_from_path("vms.csv"), "");
}

TEST(CatalogList, TheProjectCatalogSortsByPricePerGpuHour) {
  const std::vector<CatalogEntry> rows =
      read_price_catalog(std::string(GPUCAP_SOURCE_DIR) + "/data/gpu_prices.csv", 1 << 20);
  EXPECT_EQ(rows.size(), 60u);
  CatalogFilter f;
  f.gpu = "H100";
  const std::vector<CatalogEntry> sel = select_catalog_rows(rows, f);
  ASSERT_GE(sel.size(), 2u);
  for (std::size_t i = 1; i < sel.size(); ++i)
    EXPECT_LE(sel[i - 1].on_demand_usd_per_gpu_hour, sel[i].on_demand_usd_per_gpu_hour);
  for (const CatalogEntry& e : sel) EXPECT_EQ(e.gpu_model, "H100");
}

}  // namespace
}  // namespace gpucap::data
