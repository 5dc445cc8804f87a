// The name tables of enumerated keys and the purchase options' table: one place for each set of
// words, checked against the key table, the loader and the C++ sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpucap/choices.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/purchase_options.hpp"
#include "gpucap/scenario_keys.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gpucap;

template <typename E>
std::string words_of() {
  return choice_words<E>();
}

TEST(PurchaseOptions, OneRowPerOptionInEnumOrderWithUniqueNames) {
  const auto& options = purchase_options();
  ASSERT_EQ(options.size(), 6u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < options.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(options[i].option), i);
    EXPECT_EQ(&purchase_info(options[i].option), &options[i]);
    EXPECT_EQ(find_purchase_option(options[i].name), &options[i]);
    EXPECT_TRUE(names.insert(options[i].name).second) << options[i].name;
    // A committed pool is paid for all the time: it has no per-hold price and is never reclaimed.
    if (options[i].committed) {
      EXPECT_FALSE(options[i].preemptible);
      EXPECT_NE(options[i].price, PriceRule::per_hold);
    }
  }
  EXPECT_EQ(find_purchase_option("On_Demand"), nullptr);
  EXPECT_EQ(purchase_option_names(), "on_demand spot reserved owned marketplace serverless");
}

TEST(PurchaseOptions, CompileDerivesTheEnginesFlagsFromTheTable) {
  for (const PurchaseOptionInfo& o : purchase_options()) {
    std::string yaml = "name: t\nhorizon: 1d\npools:\n  p:\n    gpu: H100\n    purchase: " +
                       std::string(o.name) + "\n";
    switch (o.price) {
      case PriceRule::per_hold:
        yaml += "    quota: 8\n    price_usd_per_gpu_hour: 2\n";
        if (o.preemptible) yaml += "    preemption: {time_to_preemption: 6h}\n";
        break;
      case PriceRule::per_replica: yaml += "    quota: 8\n    price_usd_per_gpu_hour: 3\n"; break;
      case PriceRule::committed: yaml += "    count: 8\n    price_usd_per_gpu_hour: 1\n"; break;
      case PriceRule::amortized:
        yaml += "    count: 8\n    capex_usd_per_gpu: 30000\n    amortize_years: 3\n";
        break;
    }
    yaml += o.services_only
                ? "workloads:\n  - {name: s, kind: inference, pool: p, arrivals: {process: "
                  "poisson, rate_per_s: 1}, service: 1s, replicas: 1}\n"
                : "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_hour: 1}, "
                  "work: 1h}\n";
    const Scenario s = parse_scenario(yaml, "t.yaml", "");
    EXPECT_EQ(s.pools[0].purchase, o.option) << o.name;
    const ModelStorage storage = compile(s);
    const CompiledPool& pool = storage.model().pools[0];
    EXPECT_EQ(pool.committed(), o.committed) << o.name;
    EXPECT_EQ(pool.preemptible, o.preemptible) << o.name;
    EXPECT_TRUE(pool.bills_idle) << o.name;  // bill_idle: false only where it is given
  }
}

TEST(PurchaseOptions, NoOptionIsSpelledInCppOutsideTheTable) {
  // The enumerators may appear only where the enum is declared and in the table; a string that
  // is exactly an option's name, or a `purchase: ...` applies text, only in the table.
  const std::set<std::string> allowed = {"sim/core/include/gpucap/compiled_model.hpp",
                                         "sim/model/src/purchase_options.cpp"};
  std::string names;
  for (const PurchaseOptionInfo& o : purchase_options())
    names += (names.empty() ? "" : "|") + std::string(o.name);
  const std::regex enumerator("PurchaseOption::(" + names + ")\\b");
  const std::regex literal("\"(" + names + ")\"|\"purchase: ");
  const fs::path root = GPUCAP_SOURCE_DIR;
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const char* dir : {"sim", "kernels", "bindings/src", "bench"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh") continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      ++files;
      if (allowed.count(rel)) continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const std::size_t comment = line.find("//");
        const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
        // Provider kinds share two words with purchase options; the catalog's --spot is a column.
        const bool other_words =
            code.find("ProviderKind::") != std::string::npos || rel == "sim/cli/catalog_command.cpp";
        if (std::regex_search(code, enumerator) ||
            (!other_words && std::regex_search(code, literal)))
          found.push_back(rel + ":" + std::to_string(n) + ": " + text::trim(line));
      }
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_TRUE(found.empty()) << text::join(found, "\n");
}

TEST(Choices, EveryChoiceKeyListsTheWordsOfOneNameTable) {
  const std::vector<std::string> tables = {
      words_of<ProviderKind>(),    words_of<PurchaseOption>(),  words_of<CompiledPool::PriceModel>(),
      words_of<TraceEnd>(),        words_of<WorkloadKind>(),    words_of<ArrivalKind>(),
      words_of<TraceResample>(),   words_of<QueueDiscipline>(), words_of<DistKind>(),
      words_of<PartialPeriods>(),  words_of<BlankEnd>()};
  std::size_t rows = 0;
  for (const ScenarioKey& k : scenario_keys()) {
    if (k.type != KeyType::choice) continue;
    ++rows;
    EXPECT_NE(std::find(tables.begin(), tables.end(), std::string(k.choices)), tables.end())
        << k.path << ": " << k.choices;
  }
  EXPECT_GE(rows, 10u);
  EXPECT_EQ(words_of<QueueDiscipline>(), "fifo priority sjf shortest_job_first");
  EXPECT_STREQ(choice_name(QueueDiscipline::shortest_job_first), "sjf");
  EXPECT_STREQ(choice_name(ArrivalKind::profile), "nhpp");
}

TEST(Choices, DefaultsOfChoiceKeysAreTheDefaultsOfTheFieldsTheyFill) {
  EXPECT_STREQ(scenario_key("pools.NAME.purchase").default_text,
               ("`" + std::string(choice_name(PoolSpec{}.purchase)) + "`").c_str());
  EXPECT_EQ(scenario_discriminator_default("pools.NAME"), purchase_info(kDefaultPurchaseOption).name);
  EXPECT_EQ(scenario_discriminator_default("workloads[]"), choice_name(JobClassSpec{}.kind));
  EXPECT_STREQ(scenario_key("policy.queue").default_text, "`fifo`");
  EXPECT_STREQ(scenario_key("providers.NAME.kind").default_text, "`hyperscaler`");
}

TEST(Choices, EveryAppliesConditionNamesValuesOfItsDiscriminator) {
  // A condition is typed (a discriminator and a set of its enum's values); each value it holds
  // must have a name in the enum's table, and that name must be a word of the discriminator key
  // of the nearest enclosing mapping.
  std::size_t checked = 0;
  for (const ScenarioKey& k : scenario_keys()) {
    const std::string path = k.path;
    if (k.applies.on == Discriminator::none) {
      EXPECT_EQ(k.applies.values, 0u) << path;
      continue;
    }
    const std::string discriminator = discriminator_key(k.applies.on);
    std::string parent = path;
    const ScenarioKey* row = nullptr;
    while (!row && parent.find_last_of('.') != std::string::npos) {
      parent = parent.substr(0, parent.find_last_of('.'));
      row = find_scenario_key(parent + "." + discriminator);
    }
    ASSERT_NE(row, nullptr) << path << ": no key " << discriminator << " above it";
    ASSERT_EQ(row->type, KeyType::choice) << row->path;
    const std::string applies = scenario_key_applies_text(k);
    ASSERT_EQ(applies.rfind(discriminator + ": ", 0), 0u) << path << ": " << applies;
    const std::vector<std::string> words = text::split(row->choices, ' ');
    const std::vector<std::string> named = text::split(applies.substr(discriminator.size() + 2), ',');
    EXPECT_EQ(named.size(), static_cast<std::size_t>(__builtin_popcount(k.applies.values)))
        << path << ": a value of the condition has no name";
    for (const std::string& v : named) {
      EXPECT_NE(std::find(words.begin(), words.end(), text::trim(v)), words.end())
          << path << ": " << applies;
      EXPECT_TRUE(scenario_key_applies(k, discriminator, text::trim(v))) << path << ": " << v;
      ++checked;
    }
    // The words the condition leaves out do not select the key.
    for (const std::string& w : words) {
      const auto is_w = [&](const std::string& v) { return text::trim(v) == w; };
      if (std::find_if(named.begin(), named.end(), is_w) == named.end()) {
        EXPECT_FALSE(scenario_key_applies(k, discriminator, w)) << path << ": " << w;
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(Choices, AppliesTextsReadAsTheDocsWriteThem) {
  EXPECT_EQ(scenario_key_applies_text(scenario_key("pools.NAME.count")), "purchase: reserved, owned");
  EXPECT_EQ(scenario_key_applies_text(scenario_key("workloads[].arrivals.rate_per_s")), "process: poisson");
  EXPECT_EQ(scenario_key_applies_text(scenario_key("pools.NAME.quota")),
            "purchase: on_demand, spot, marketplace, serverless");
  EXPECT_EQ(scenario_key_applies_text(scenario_key("horizon")), "");
  EXPECT_EQ(scenario_discriminator("pools.NAME"), "purchase");
  EXPECT_EQ(scenario_discriminator("workloads[]"), "kind");
  EXPECT_EQ(scenario_discriminator("workloads[].arrivals"), "process");
  // An unknown value selects nothing; no discriminator given selects every key.
  EXPECT_FALSE(scenario_key_applies(scenario_key("pools.NAME.count"), "purchase", "lease"));
  EXPECT_TRUE(scenario_key_applies(scenario_key("pools.NAME.count"), "", ""));
}

}  // namespace
