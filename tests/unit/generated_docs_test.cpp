// Parts of the documentation generated from the code's own tables, so that they cannot drift:
// each lies between "<!-- BEGIN GENERATED: name -->" and "<!-- END GENERATED: name -->". The test
// fails when a part is stale; run it with GPUCAP_UPDATE_DOCS=1 to rewrite the parts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>

#include "gpucap/metrics.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kDocs = fs::path(GPUCAP_SOURCE_DIR) / "docs";

std::string metric_table(const gpucap::MetricInfo* info, int count) {
  std::string out = "| index | name | unit | description |\n|------:|------|------|-------------|\n";
  for (int m = 0; m < count; ++m)
    out += "| " + std::to_string(m) + " | `" + info[m].name + "` | " + info[m].unit + " | " +
           info[m].description + " |\n";
  return out;
}

std::string overview() {
  const std::string scalars = std::to_string(gpucap::kScalarMetricCount);
  const std::string pools = std::to_string(gpucap::kPoolMetricCount);
  auto pad = [](std::string s, std::size_t width) {
    s.resize(std::max(width, s.size()), ' ');
    return s;
  };
  auto row = [&](const std::string& path, const std::string& kind, const std::string& note) {
    return pad(path, 36) + pad(kind, 26) + note + "\n";
  };
  return "```\n" + row("bytes 0-511", "user block: \"GPUCAP RESULTS FILE\", checksum, size", "") +
         row("/", "root attributes (provenance, see below)", "") +
         row("/summary", "compound [P * " + scalars + "]", "scalar metric summaries") +
         row("/replications/<metric>", "float64  [P, R]", "one per scalar metric (" + scalars + ")") +
         row("/pools", "group, attribute pool_names", "") +
         row("/pools/names", "string   [K]", "pool names, in pool index order") +
         row("/pools/<pool metric>", "float64  [P, R, K]", "one per pool metric (" + pools + ")") +
         row("/pool_summary", "compound [P * K * " + pools + "]", "pool metric summaries") +
         row("/sweep", "group, attributes parameters, points", "") +
         row("/sweep/paths", "string   [S]", "only when S > 0") +
         row("/sweep/values", "string   [S, P]", "only when S > 0") +
         row("/timeseries", "group, attribute step_s", "only when the scenario sets timeseries.step") +
         row("/timeseries/gpus_in_use", "float64  [P, R, K, B]", "mean GPUs in use per pool and bin") +
         "```\n";
}

/// Checks (or, with GPUCAP_UPDATE_DOCS, rewrites) the part `name` of `file`.
void check_part(const fs::path& file, const std::string& name, const std::string& content) {
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- BEGIN GENERATED: " + name + " -->\n";
  const std::string end = "<!-- END GENERATED: " + name + " -->";
  const std::size_t b = text.find(begin), e = text.find(end);
  ASSERT_NE(b, std::string::npos) << file << " lacks " << begin;
  ASSERT_NE(e, std::string::npos) << file << " lacks " << end;
  const std::string current = text.substr(b + begin.size(), e - b - begin.size());
  if (std::getenv("GPUCAP_UPDATE_DOCS") != nullptr) {
    text.replace(b + begin.size(), e - b - begin.size(), content);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return;
  }
  EXPECT_EQ(current, content) << file.filename() << ": the part '" << name
                              << "' is stale; run this test with GPUCAP_UPDATE_DOCS=1";
}

TEST(GeneratedDocs, ResultsFormatListsEveryMetricAndItsCount) {
  const fs::path file = kDocs / "results-format.md";
  check_part(file, "overview", overview());
  check_part(file, "scalar-metrics",
             metric_table(gpucap::kScalarMetricInfo, gpucap::kScalarMetricCount));
  check_part(file, "pool-metrics", metric_table(gpucap::kPoolMetricInfo, gpucap::kPoolMetricCount));
}

}  // namespace
