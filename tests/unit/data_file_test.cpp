// The data file cache: a file read and parsed once per process however often a scenario naming
// it is loaded (sweep points among them), a changed file read again, the budget kept; and the
// provenance that results files record (path, size, SHA-256).
#include "gpucap/data_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gpucap/csv_table.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/sweep.hpp"
#include "support/scratch_dir.hpp"

namespace {

using gpucap::CsvTable;

/// A trace whose SHA-256 was computed independently (`sha256sum`).
const char kTrace[] = "submit_s,gpus,duration_s\n0,1,3600\n600,2,1800\n";
const char kTraceSha256[] = "cc34fb9e33eb3db5aa4882355d7ca12d8f92663cd6d0ac72a4d3de048e93f8ea";

const char kScenario[] = R"(name: replay
horizon: 1d
pools:
  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}
workloads:
  - name: w
    arrivals: {process: trace, file: trace.csv}
    placement: [p]
)";

class DataFileTest : public gpucap::testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    gpucap::clear_data_file_cache();
    write("trace.csv", kTrace);
    write("replay.yaml", kScenario);
  }
  void TearDown() override {
    gpucap::set_data_file_cache_budget(uint64_t{1} << 30);
    ScratchDirTest::TearDown();
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << text;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
};

TEST_F(DataFileTest, ASweepReadsAndParsesItsTraceOnce) {
  const uint64_t parses = CsvTable::structure_parses();
  const gpucap::Scenario base = gpucap::load_scenario(path("replay.yaml"));
  const std::vector<gpucap::Scenario> points = gpucap::load_sweep_points(
      base.original_text, path("replay.yaml"), dir_.string(), {},
      {{"pools.p.quota", {"2", "4", "8", "16"}}});
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(CsvTable::structure_parses() - parses, 1u) << "5 loads, 1 parse";
  const gpucap::DataFileCacheStats stats = gpucap::data_file_cache_stats();
  EXPECT_EQ(stats.reads, 1u);
  EXPECT_EQ(stats.hits, 4u);
  for (const auto& p : points) EXPECT_EQ(p.workloads[0].arrivals.trace.size(), 2u);
}

TEST_F(DataFileTest, ThreadsLoadingAtOnceParseOnce) {
  const uint64_t parses = CsvTable::structure_parses();
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] { gpucap::load_scenario(path("replay.yaml")); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(CsvTable::structure_parses() - parses, 1u);
}

TEST_F(DataFileTest, AChangedFileIsReadAgain) {
  const auto first = gpucap::load_scenario(path("replay.yaml"));
  write("trace.csv", std::string(kTrace) + "1200,4,60\n");
  const auto second = gpucap::load_scenario(path("replay.yaml"));
  EXPECT_EQ(first.workloads[0].arrivals.trace.size(), 2u);
  EXPECT_EQ(second.workloads[0].arrivals.trace.size(), 3u);
  EXPECT_NE(first.data_files[0].sha256, second.data_files[0].sha256);
  // Rewritten in place with the same size: the stamp (ctime) or the hash check sees it.
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,3600\n600,4,1800\n");
  const auto third = gpucap::load_scenario(path("replay.yaml"));
  EXPECT_EQ(third.workloads[0].arrivals.trace[1].gpus, 4u);
}

TEST_F(DataFileTest, ANoCacheBudgetReadsEveryTime) {
  gpucap::set_data_file_cache_budget(0);
  const uint64_t parses = CsvTable::structure_parses();
  gpucap::load_scenario(path("replay.yaml"));
  gpucap::load_scenario(path("replay.yaml"));
  EXPECT_EQ(CsvTable::structure_parses() - parses, 2u);
  EXPECT_EQ(gpucap::data_file_cache_stats().entries, 0u);
}

TEST_F(DataFileTest, TheCacheKeepsToItsBudget) {
  gpucap::set_data_file_cache_budget(4096);
  std::string big = "submit_s,gpus,duration_s\n";
  for (int i = 0; i < 400; ++i) big += std::to_string(i) + ",1,60\n";
  ASSERT_GT(big.size(), 2048u);
  write("big.csv", big);
  write("big2.csv", big + "1,1,1\n");
  gpucap::read_data_file(path("big.csv"), 1 << 20, "data file", "");
  gpucap::read_data_file(path("big2.csv"), 1 << 20, "data file", "");
  const gpucap::DataFileCacheStats stats = gpucap::data_file_cache_stats();
  EXPECT_LE(stats.bytes, 4096u);
  EXPECT_EQ(stats.entries, 1u);
}

TEST_F(DataFileTest, ErrorsAreThoseOfReadInputFile) {
  EXPECT_THROW(gpucap::read_data_file(path("missing.csv"), 1 << 20, "data file", ""),
               gpucap::InputFileError);
  EXPECT_THROW(gpucap::read_data_file(dir_.string(), 1 << 20, "data file", ""),
               gpucap::InputFileError);
  try {
    gpucap::read_data_file(path("trace.csv"), 10, "data file", "--max-data-size");
    FAIL() << "no error";
  } catch (const gpucap::InputFileError& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit of 10 bytes"), std::string::npos)
        << e.what();
  }
}

TEST_F(DataFileTest, ResultsFilesRecordEachDataFilesSizeAndSha256) {
  const gpucap::Scenario s = gpucap::load_scenario(path("replay.yaml"));
  ASSERT_EQ(s.data_files.size(), 1u);
  EXPECT_EQ(s.data_files[0].path, "trace.csv");
  EXPECT_EQ(s.data_files[0].resolved_path, std::filesystem::canonical(path("trace.csv")).string());
  EXPECT_EQ(s.data_files[0].size_bytes, sizeof kTrace - 1);
  EXPECT_EQ(s.data_files[0].sha256, kTraceSha256);
  gpucap::RunOptions options;
  options.replications = 4;
  const gpucap::RunResults r = gpucap::run(s, options);
  ASSERT_EQ(r.data_files.size(), 1u);
  gpucap::write_results_hdf5(r, path("out.h5"));
  const gpucap::RunResults back = gpucap::read_results_hdf5(path("out.h5"));
  ASSERT_EQ(back.data_files.size(), 1u);
  EXPECT_EQ(back.data_files[0], s.data_files[0]);
}

TEST_F(DataFileTest, AScenarioWithoutDataFilesRecordsNone) {
  write("plain.yaml", R"(name: plain
horizon: 1d
pools:
  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}
workloads:
  - name: w
    arrivals: {process: poisson, rate_per_hour: 1}
    work: 1h
    placement: [p]
)");
  const gpucap::Scenario s = gpucap::load_scenario(path("plain.yaml"));
  EXPECT_TRUE(s.data_files.empty());
  gpucap::RunOptions options;
  options.replications = 2;
  gpucap::write_results_hdf5(gpucap::run(s, options), path("out.h5"));
  EXPECT_TRUE(gpucap::read_results_hdf5(path("out.h5")).data_files.empty());
}

TEST_F(DataFileTest, ASweepRecordsEachFileOnce) {
  const gpucap::Scenario base = gpucap::load_scenario(path("replay.yaml"));
  const std::vector<gpucap::Scenario> points = gpucap::load_sweep_points(
      base.original_text, path("replay.yaml"), dir_.string(), {}, {{"pools.p.quota", {"2", "4"}}});
  gpucap::RunOptions options;
  options.replications = 2;
  const gpucap::RunResults r =
      gpucap::run_points(points, {{"pools.p.quota", {"2", "4"}}}, base, options);
  ASSERT_EQ(r.data_files.size(), 1u);
  EXPECT_EQ(r.data_files[0].sha256, kTraceSha256);
}

}  // namespace
