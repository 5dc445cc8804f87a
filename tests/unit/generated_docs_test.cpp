// Parts of the documentation generated from the code's own tables, so that they cannot drift:
// each lies between "<!-- BEGIN GENERATED: name -->" and "<!-- END GENERATED: name -->". The test
// fails when a part is stale; run it with GPUCAP_UPDATE_DOCS=1 to rewrite the parts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/hdf5_layout.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/scenario_error.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kDocs = fs::path(GPUCAP_SOURCE_DIR) / "docs";

std::string metric_table(const gpucap::MetricInfo* info, int count) {
  std::string out =
      "| index | name | unit | description | NaN (not defined) unless |\n"
      "|------:|------|------|-------------|--------------------------|\n";
  for (int m = 0; m < count; ++m)
    out += "| " + std::to_string(m) + " | `" + info[m].name + "` | " + info[m].unit + " | " +
           info[m].description + " | " +
           (info[m].defined_when ? info[m].defined_when : "(always defined)") + " |\n";
  return out;
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
  check_part(file, "scalar-metrics",
             metric_table(gpucap::kScalarMetricInfo, gpucap::kScalarMetricCount));
  check_part(file, "pool-metrics", metric_table(gpucap::kPoolMetricInfo, gpucap::kPoolMetricCount));
}

TEST(GeneratedDocs, ResultsFormatLayoutComesFromTheLayoutTable) {
  const fs::path file = kDocs / "results-format.md";
  for (const char* part : {"notation", "overview", "root-attributes", "group-attributes",
                           "summary-fields", "pool-summary-fields"})
    check_part(file, part, gpucap::hdf5_layout_markdown(part));
  EXPECT_THROW(gpucap::hdf5_layout_markdown("layout"), std::invalid_argument);
}

TEST(GeneratedDocs, ScenarioFormatKeyTablesComeFromTheKeyTable) {
  const fs::path file = kDocs / "scenario-format.md";
  std::set<std::string> tables;
  for (const gpucap::ScenarioKey& k : gpucap::scenario_keys())
    if (*k.doc_table) tables.insert(k.doc_table);
  EXPECT_EQ(tables.size(), 34u);
  for (const std::string& table : tables)
    check_part(file, "keys-" + table, gpucap::scenario_keys_markdown(table));
}

/// The text of the complete example of docs/scenario-format.md (its first yaml block).
std::string complete_example() {
  std::ifstream in(kDocs / "scenario-format.md", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t begin = text.find("```yaml\n") + 8;
  return text.substr(begin, text.find("```", begin) - begin);
}

/// One error example: the complete example with an edit of its text and overrides.
struct ErrorExample {
  std::string comment;
  std::string replace, with;
  std::vector<std::string> overrides;
};

std::string error_examples() {
  const std::vector<ErrorExample> examples = {
      {"`quota` misspelt `qouta` on line 19", "    quota: 32", "    qouta: 32", {}},
      {"`median: 6 hours` on line 27", "median: 6h,", "median: 6 hours,", {}},
      {"", "", "", {"workloads.finetune.gpus=64"}},
      {"", "", "", {"pools.hyperscaler-h100.purchase=spot"}},
      {"the Lambda row has no spot price", "", "", {"pools.gpucloud-h100.purchase=spot"}},
      {"priced from the row's on-demand price", "", "", {"pools.gpucloud-h100.purchase=marketplace"}},
      {"",
       "",
       "",
       {"pools.hyperscaler-h100.purchase=marketplace",
        "pools.hyperscaler-h100.preemption={notice: 2min}"}},
      {"`catalog:` line removed",
       "catalog: ../data/gpu_prices.csv   # price catalog, relative to this file\n", "", {}},
      {"a slowdown is a plain factor", "", "", {"pools.hyperscaler-h100.slowdown=1.5d"}},
      {"`seed: -1` on line 5, and two overrides: three mistakes", "seed: 42", "seed: -1",
       {"pools.gpucloud-h100.quota=-1", "policy.queue=lifo"}},
      {"the parameters of a time take time units", "", "",
       {"workloads.eval.work={dist: gamma, mean: 40min, cv: 0}"}},
  };
  const std::string origin = "scenarios/team.yaml";
  const std::string base_dir = std::string(GPUCAP_SOURCE_DIR) + "/scenarios";
  std::string out = "```\n";
  for (const ErrorExample& e : examples) {
    std::string text = complete_example();
    if (!e.replace.empty()) {
      const std::size_t at = text.find(e.replace);
      EXPECT_NE(at, std::string::npos) << e.replace;
      if (at != std::string::npos) text.replace(at, e.replace.size(), e.with);
    }
    std::string command = "$ gpucap validate " + origin;
    for (const std::string& o : e.overrides)
      command += " --set " + (o.find(' ') == std::string::npos ? o : "'" + o + "'");
    if (!e.comment.empty()) command += "   # " + e.comment;
    std::string message = "(valid)";
    try {
      gpucap::parse_scenario(text, origin, base_dir, e.overrides);
    } catch (const gpucap::ScenarioError& error) {
      message = std::string("gpucap: invalid scenario: ") + error.what();
    }
    out += (&e == &examples.front() ? "" : "\n") + command + "\n" + message + "\n";
  }
  return out + "```\n";
}

TEST(GeneratedDocs, ScenarioFormatErrorExamplesAreTheLoadersOwnMessages) {
  check_part(kDocs / "scenario-format.md", "error-examples", error_examples());
}

/// The part of a loader message after the key path: "must be ..., got 0".
std::string message_after_path(const std::string& message, const std::string& path) {
  const std::size_t at = message.find(path + ": ");
  return at == std::string::npos ? message : message.substr(at + path.size() + 2);
}

// The messages that the sections of docs/scenario-format.md quote as real (in their lists of
// errors), produced again by the loader: a message that changes must change in the docs too.
TEST(GeneratedDocs, ScenarioFormatQuotesTheLoadersRealMessages) {
  struct Quoted {
    std::string scenario;
    std::vector<std::string> overrides;
    std::string path;  ///< the key path the message names
  };
  const std::vector<Quoted> quoted = {
      {"data_locality", {"regions.us-east.bandwidth_gbps.us-west=0"}, "regions.us-east.bandwidth_gbps.us-west"},
      {"data_locality", {"regions.us-east.latency_ms.us-west=-1"}, "regions.us-east.latency_ms.us-west"},
      {"data_locality", {"regions.us-east.egress_usd_per_gb=-0.1"}, "regions.us-east.egress_usd_per_gb"},
      {"data_locality", {"regions.us-east.bandwith_gbps={us-west: 10}"}, "regions.us-east.bandwith_gbps"},
      {"serverless_vs_dedicated", {"pools.serverless-l4.price_usd_per_gpu_second=-1"},
       "pools.serverless-l4.price_usd_per_gpu_second"},
      {"serverless_vs_dedicated", {"pools.serverless-l4.bill_idle=maybe"}, "pools.serverless-l4.bill_idle"},
      {"serverless_vs_dedicated", {"pools.serverless-l4.provisioning_delay=1s"},
       "pools.serverless-l4.provisioning_delay"},
      {"serverless_vs_dedicated", {"pools.serverless-l4.cold_start.weights_gb_per_s=0"},
       "pools.serverless-l4.cold_start.weights_gb_per_s"},
      {"serverless_vs_dedicated", {"pools.serverless-l4.cold_start.kernel=1s"},
       "pools.serverless-l4.cold_start.kernel"},
      {"serverless_vs_dedicated", {"workloads.chat.placement=[dedicated]"}, "workloads[0].placement"},
      {"spot_price_risk", {"pools.aws-h100-spot.price_process.volatility_per_sqrt_hour=-0.1"},
       "pools.aws-h100-spot.price_process.volatility_per_sqrt_hour"},
      {"spot_price_risk", {"pools.aws-h100-spot.price_process.reversion_per_hour=0"},
       "pools.aws-h100-spot.price_process.reversion_per_hour"},
      {"spot_price_risk", {"pools.aws-h100-spot.price_process.volatility_per_sqrt_hour=0.2"},
       "pools.aws-h100-spot.price_process.volatility_per_sqrt_hour"},
      {"spot_price_risk", {"pools.aws-h100-spot.price_process.step=15min"},
       "pools.aws-h100-spot.price_process.step"},
      {"spot_price_risk",
       {"pools.aws-h100-spot.price_process.model=mean_reverting",
        "pools.aws-h100-spot.price_process.step=15min", "pools.aws-h100-spot.price_process.file=x.csv"},
       "pools.aws-h100-spot.price_process.file"},
      {"spot_price_risk",
       {"pools.aws-h100-spot.price_process.model=mean_reverting",
        "pools.aws-h100-spot.price_process.step=0"},
       "pools.aws-h100-spot.price_process.step"},
      {"multicloud_stockouts", {"pools.nebius-h100.stockout.probability=1"},
       "pools.nebius-h100.stockout.probability"},
      {"multicloud_stockouts", {"pools.nebius-h100.stockout.probability=-0.1"},
       "pools.nebius-h100.stockout.probability"},
      {"multicloud_stockouts", {"pools.nebius-h100.stockout.retry_after=0"},
       "pools.nebius-h100.stockout.retry_after"},
      {"multicloud_stockouts", {"pools.nebius-h100.stockout.retry=1h"}, "pools.nebius-h100.stockout.retry"},
      {"multinode_interconnect", {"pools.cluster.interconnect.bandwidth_gbps=0"},
       "pools.cluster.interconnect.bandwidth_gbps"},
      {"multinode_interconnect", {"pools.cluster.gpus_per_node=0"}, "pools.cluster.gpus_per_node"},
      {"multinode_interconnect", {"workloads.finetune.sync.gradient_gb=-1"}, "workloads[0].sync.gradient_gb"},
      {"multinode_interconnect", {"workloads.finetune.sync.step=0"}, "workloads[0].sync.step"},
      {"marketplace_batch", {"pools.market-4090.slowdown=-1"}, "pools.market-4090.slowdown"},
      {"marketplace_batch", {"pools.market-4090.slowdown=1.5d"}, "pools.market-4090.slowdown"},
      {"checkpoint_validation", {"pools.spot-h100.preemption.time_to_preemption=1us"},
       "pools.spot-h100.preemption.time_to_preemption"},
      {"owned_baseline_burst", {"pools.own-h100.purchase=reserved", "pools.own-h100.quota=8"},
       "pools.own-h100.quota"},
  };
  std::ifstream in(kDocs / "scenario-format.md", std::ios::binary);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const Quoted& q : quoted) {
    std::string message;
    try {
      gpucap::load_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/" + q.scenario + ".yaml",
                            q.overrides);
    } catch (const gpucap::ScenarioError& e) {
      message = e.what();
    }
    ASSERT_FALSE(message.empty()) << q.overrides[0] << " was accepted";
    const std::string tail = message_after_path(message, q.path);
    // Quoted on a line of its own, or after a key path, or in a table cell.
    const bool quoted_line = doc.find("\n" + tail + "\n") != std::string::npos ||
                             doc.find(": " + tail + "\n") != std::string::npos ||
                             doc.find("`" + tail + "`") != std::string::npos;
    EXPECT_TRUE(quoted_line) << "docs/scenario-format.md does not quote\n"
                             << tail << "\n(" << message << ")";
  }
}

}  // namespace
