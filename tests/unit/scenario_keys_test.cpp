// The key table (scenario_keys.hpp): its rows are consistent, every key is explained, and the
// loader enforces every range the table states, checked at both ends of every number, count and
// duration of every shipped scenario.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "gpucap/scenario_error.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

namespace fs = std::filesystem;
using gpucap::KeyType;
using gpucap::ScenarioKey;

TEST(ScenarioKeys, RowsOfOneKeyAgreeOnTypeUnitAndRange) {
  for (const ScenarioKey& k : gpucap::scenario_keys()) {
    const ScenarioKey& first = gpucap::scenario_key(k.path);
    EXPECT_EQ(first.type, k.type) << k.path;
    EXPECT_EQ(first.unit, k.unit) << k.path;
    EXPECT_EQ(first.lo.value, k.lo.value) << k.path;
    EXPECT_EQ(first.lo.open, k.lo.open) << k.path;
    EXPECT_EQ(first.hi.value, k.hi.value) << k.path;
    EXPECT_EQ(std::string(first.choices), k.choices) << k.path;
  }
}

TEST(ScenarioKeys, EveryKeyHasADescriptionAndEveryMappingHasKeys) {
  for (const ScenarioKey& k : gpucap::scenario_keys()) {
    EXPECT_FALSE(std::string(k.description).empty()) << k.path;
    if (k.type == KeyType::choice) {
      EXPECT_FALSE(std::string(k.choices).empty()) << k.path;
    }
    if (k.type == KeyType::mapping && std::string(k.path) != "providers.NAME") {
      EXPECT_TRUE(!gpucap::scenario_child_keys(k.path).empty() ||
                  !gpucap::scenario_child_keys(std::string(k.path) + ".NAME").empty())
          << k.path;
    }
    // A unit kind goes with the types that carry numbers, and only with them.
    const bool numeric = k.type == KeyType::number || k.type == KeyType::integer ||
                         k.type == KeyType::duration || k.type == KeyType::trace_start ||
                         k.type == KeyType::distribution || k.type == KeyType::number_map ||
                         k.type == KeyType::number_list;
    // (Integers without a unit: a priority, a seed.)
    if (k.type != KeyType::integer) {
      EXPECT_EQ(numeric, k.unit != gpucap::UnitKind::none) << k.path;
    }
    if (k.type == KeyType::duration) {
      EXPECT_EQ(k.unit, gpucap::UnitKind::duration) << k.path;
    }
    // Every number has an upper end: its own or its unit kind's ceiling (counts: their own).
    if (numeric && k.type != KeyType::distribution) {
      EXPECT_TRUE(std::isfinite(gpucap::scenario_key_upper(k).value)) << k.path;
    }
  }
}

TEST(ScenarioKeys, ExplainAnswersForEveryKeyAndEveryDistributionParameter) {
  for (const ScenarioKey& k : gpucap::scenario_keys()) {
    const std::string text = gpucap::explain_scenario_key(k.path);
    EXPECT_EQ(text.rfind(std::string(k.path) + "\n", 0), 0u) << k.path << ":\n" << text;
    if (k.type != KeyType::distribution) continue;
    for (const gpucap::DistributionParameter& p : gpucap::distribution_parameters()) {
      EXPECT_NE(gpucap::explain_scenario_key(std::string(k.path) + "." + p.key), "")
          << k.path << "." << p.key;
    }
  }
  // Concrete paths and the short forms resolve to their rows.
  EXPECT_EQ(gpucap::explain_scenario_key("pools.quota").rfind("pools.NAME.quota\n", 0), 0u);
  EXPECT_EQ(gpucap::explain_scenario_key("pools.a100.quota").rfind("pools.NAME.quota\n", 0), 0u);
  EXPECT_EQ(gpucap::explain_scenario_key("workloads[3].checkpoint.interval")
                .rfind("workloads[].checkpoint.interval\n", 0),
            0u);
  EXPECT_NE(gpucap::explain_scenario_key("workloads.work.sigma").find("0.001"), std::string::npos);
  EXPECT_NE(gpucap::explain_scenario_key("pools.quota").find("from 0 to 1048575"),
            std::string::npos);
  EXPECT_EQ(gpucap::explain_scenario_key("pools.NAME.qouta"), "");
  EXPECT_EQ(gpucap::explain_scenario_key("no.such.key"), "");
  EXPECT_EQ(gpucap::explain_scenario_key("pools..quota"), "");
  EXPECT_EQ(gpucap::explain_scenario_key(""), "");
  EXPECT_EQ(gpucap::explain_scenario_key("horizon."), "");
}

TEST(ScenarioKeys, PatternsOfKeyPaths) {
  EXPECT_EQ(gpucap::scenario_key_pattern("pools.a100.quota"), "pools.NAME.quota");
  EXPECT_EQ(gpucap::scenario_key_pattern("pools.h100.us.east.quota"), "pools.NAME.quota");
  EXPECT_EQ(gpucap::scenario_key_pattern("pools.a.preemption.time_to_preemption.mean"),
            "pools.NAME.preemption.time_to_preemption.mean");
  EXPECT_EQ(gpucap::scenario_key_pattern("workloads[12].arrivals.hourly_profile[3]"),
            "workloads[].arrivals.hourly_profile");
  EXPECT_EQ(gpucap::scenario_key_pattern("regions.us-east.latency_ms.us-west"),
            "regions.NAME.latency_ms");
  EXPECT_EQ(gpucap::scenario_key_pattern("horizon"), "horizon");
}

TEST(ScenarioKeys, DiscriminatorsAndTheirDefaults) {
  EXPECT_EQ(gpucap::scenario_discriminator("pools.NAME"), "purchase");
  EXPECT_EQ(gpucap::scenario_discriminator_default("pools.NAME"), "on_demand");
  EXPECT_EQ(gpucap::scenario_discriminator("workloads[]"), "kind");
  EXPECT_EQ(gpucap::scenario_discriminator_default("workloads[]"), "batch");
  EXPECT_EQ(gpucap::scenario_discriminator("workloads[].arrivals"), "process");
  EXPECT_EQ(gpucap::scenario_discriminator_default("workloads[].arrivals"), "");  // required
  EXPECT_EQ(gpucap::scenario_discriminator("pools.NAME.price_process"), "model");
  EXPECT_EQ(gpucap::scenario_discriminator("pools.NAME.preemption"), "");
  EXPECT_EQ(gpucap::scenario_discriminator(""), "");
}

TEST(ScenarioKeys, ChildKeysFollowTheDiscriminator) {
  const auto has = [](const std::vector<std::string>& keys, const char* key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  const std::vector<std::string> spot = gpucap::scenario_child_keys("pools.NAME", "purchase", "spot");
  EXPECT_TRUE(has(spot, "preemption"));
  EXPECT_TRUE(has(spot, "slowdown"));
  EXPECT_FALSE(has(spot, "count"));
  EXPECT_TRUE(has(spot, "cold_start"));  // inference replicas on spot pools start cold
  const std::vector<std::string> serverless =
      gpucap::scenario_child_keys("pools.NAME", "purchase", "serverless");
  EXPECT_FALSE(has(serverless, "preemption"));
  const std::vector<std::string> owned =
      gpucap::scenario_child_keys("pools.NAME", "purchase", "owned");
  EXPECT_TRUE(has(owned, "capex_usd_per_gpu"));
  EXPECT_FALSE(has(owned, "quota"));
  EXPECT_FALSE(has(owned, "price_usd_per_gpu_hour"));
  const std::vector<std::string> inference =
      gpucap::scenario_child_keys("workloads[]", "kind", "inference");
  EXPECT_TRUE(has(inference, "replicas"));
  EXPECT_TRUE(has(inference, "fallback_pool"));
  EXPECT_FALSE(has(inference, "placement"));
  EXPECT_EQ(gpucap::scenario_child_keys("workloads[].arrivals", "process", "poisson"),
            (std::vector<std::string>{"process", "rate_per_s", "rate_per_min", "rate_per_hour",
                                      "rate_per_day", "burst", "drift"}));
  EXPECT_FALSE(has(gpucap::scenario_child_keys("workloads[].arrivals", "process", "trace"),
                   "burst"));
}

// ---- both ends of every range, on every shipped scenario --------------------------------------

/// A number as YAML text that reads back as the same double.
std::string exact(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

struct Leaf {
  std::string display;   ///< "pools.a100.quota", "workloads[0].gpus"
  std::string override;  ///< "pools.a100.quota", "workloads.0.gpus"
};

/// Every scalar leaf of `node` (not inside distributions, lists of numbers or data files).
void collect_leaves(const YAML::Node& node, const std::string& display,
                    const std::string& override, std::vector<Leaf>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      collect_leaves(kv.second, display.empty() ? key : display + "." + key,
                     override.empty() ? key : override + "." + key, out);
    }
  } else if (node.IsSequence() && display == "workloads") {
    for (std::size_t i = 0; i < node.size(); ++i)
      collect_leaves(node[i], display + "[" + std::to_string(i) + "]",
                     override + "." + std::to_string(i), out);
  } else if (node.IsScalar()) {
    out.push_back({display, override});
  }
}

/// Values just outside the range of `k` (as YAML text), each of which the loader must refuse.
std::vector<std::string> outside(const ScenarioKey& k) {
  std::vector<std::string> values;
  const gpucap::KeyBound hi = gpucap::scenario_key_upper(k);
  if (k.type == KeyType::integer) {
    if (std::isfinite(k.lo.value)) values.push_back(exact(k.lo.value - 1));
    if (std::isfinite(hi.value) && hi.value < 1e18) values.push_back(exact(hi.value + 1));
    return values;
  }
  if (std::isfinite(k.lo.value))
    values.push_back(k.lo.open ? exact(k.lo.value) : exact(k.lo.value - 1e-3));
  if (std::isfinite(hi.value))
    values.push_back(hi.open ? exact(hi.value) : exact(std::nextafter(hi.value * 1.0001, 1e300)));
  return values;
}

TEST(ScenarioKeys, TheLoaderRefusesJustOutsideEveryRangeOfEveryShippedKey) {
  const fs::path dir = fs::path(GPUCAP_SOURCE_DIR) / "scenarios";
  std::set<std::string> checked_patterns;
  int refusals = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string file = entry.path().string();
    std::vector<Leaf> leaves;
    collect_leaves(YAML::LoadFile(file), "", "", leaves);
    for (const Leaf& leaf : leaves) {
      const ScenarioKey* k = gpucap::find_scenario_key(gpucap::scenario_key_pattern(leaf.display));
      if (k == nullptr || gpucap::scenario_key_pattern(leaf.display) == "seed") continue;
      if (k->type != KeyType::number && k->type != KeyType::integer &&
          k->type != KeyType::duration)
        continue;
      checked_patterns.insert(k->path);
      for (const std::string& value : outside(*k)) {
        bool refused = false;
        std::string message;
        try {
          gpucap::load_scenario(file, {leaf.override + "=" + value});
        } catch (const gpucap::ScenarioError& e) {
          refused = true;
          message = e.what();
        }
        EXPECT_TRUE(refused) << file << ": " << leaf.display << " = " << value << " was accepted";
        if (refused) {
          ++refusals;
          EXPECT_NE(message.find(leaf.display), std::string::npos) << message;
        }
      }
    }
  }
  // The shipped scenarios reach most numeric keys of the table.
  std::printf("%zu keys checked at both ends, %d values refused\n", checked_patterns.size(),
              refusals);
  EXPECT_GE(checked_patterns.size(), 40u);
  EXPECT_GE(refusals, 100);
}

}  // namespace
