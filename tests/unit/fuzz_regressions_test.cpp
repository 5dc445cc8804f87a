// Every case the fuzzers found (tests/fuzz/regressions/*.yaml, each with a comment saying what it
// did) now behaves: refused with a ScenarioError, or run to finite metrics.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_case.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kRegressions = fs::path(GPUCAP_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
const std::string kDataDir = std::string(GPUCAP_SOURCE_DIR) + "/scenarios";

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(FuzzRegressions, EveryKeptCaseIsRefusedOrRunsToFiniteMetrics) {
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(kRegressions))
    if (entry.path().extension() == ".yaml") cases.push_back(entry.path());
  ASSERT_GE(cases.size(), 4u);
  for (const fs::path& file : cases)
    EXPECT_EQ(gpucap::fuzz::run_case(read_all(file), kDataDir), "") << file.filename();
}

TEST(FuzzRegressions, ExtremeValuesAreRefusedWithTheirKey) {
  const std::vector<std::pair<std::string, std::string>> refused{
      {"price-1e308.yaml",
       "pools.gpus.price_usd_per_gpu_hour: must be 0 or between 1e-12 and 1e12"},
      {"billing-minimum-1e308d.yaml", "billing_minimum: must be at most 10000 years"},
      {"gamma-cv-5e-324.yaml", ".work.cv: must be 0 or between 1e-12 and 1e12"},
      {"preemption-at-launch.yaml", "the time to preemption must have a mean > 0"},
      {"preemption-every-millisecond.yaml",
       "preemption.time_to_preemption: makes one replication process about 1.1"},
      {"price-step-every-microsecond.yaml",
       "price_process.step: makes one replication process about 2.6"}};
  for (const auto& [name, message] : refused) {
    try {
      gpucap::parse_scenario(read_all(kRegressions / name), name, kDataDir);
      ADD_FAILURE() << name << " was accepted";
    } catch (const gpucap::ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(FuzzRegressions, DistributionShapesStayWhereTheSamplersAreFinite) {
  const std::string base =
      "name: s\nhorizon: 10d\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8}\n"
      "workloads:\n  - name: w\n    arrivals: {process: poisson, rate_per_hour: 1}\n    work: ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{dist: gamma, mean: 1h, cv: 1e-9}", "work.cv: must be from 0.001 to 100"},
      {"{dist: lognormal, median: 1h, sigma: 50}", "work.sigma: must be from 0.001 to 10"},
      {"{dist: weibull, shape: 1e-5, scale: 1h}", "work.shape: must be from 0.01 to 1000"},
      {"{dist: pareto, shape: 5000, scale: 1h}", "work.shape: must be from 0.01 to 1000"},
      {"{dist: exponential, mean: 1e-9s}", "work.mean: must be 0 or at least 1 us"}};
  for (const auto& [work, message] : cases) {
    try {
      gpucap::parse_scenario(base + work + "\n", "s.yaml", kDataDir);
      ADD_FAILURE() << work << " was accepted";
    } catch (const gpucap::ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
