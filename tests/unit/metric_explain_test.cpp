// gpucap explain METRIC: every metric is explained from the metric tables; names shared by a
// scalar and a pool metric give both; the CLI answers keys and metrics and suggests near names.
#include <gtest/gtest.h>

#include <string>

#include "gpucap/metric_explain.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/cli.hpp"

namespace gpucap {
namespace {

using testing_support::gpucap_cli;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MetricExplain, EveryMetricIsExplainedWithItsUnitAndMeaning) {
  for (const MetricInfo& m : kScalarMetricInfo) {
    SCOPED_TRACE(m.name);
    const std::string text = explain_metric(m.name);
    EXPECT_EQ(text.rfind(std::string(m.name) + " (metric, one value per replication)\n", 0), 0u);
    EXPECT_TRUE(has(text, "  unit:       " + std::string(m.unit) + "\n"));
    EXPECT_TRUE(has(text, std::string(m.description)));
    EXPECT_TRUE(has(text, "/replications/" + std::string(m.name)));
    // When it is NaN: the table's condition, or never.
    EXPECT_TRUE(has(text, m.defined_when ? std::string(m.defined_when) : "never (0 when"));
  }
  for (const MetricInfo& m : kPoolMetricInfo) {
    SCOPED_TRACE(m.name);
    const std::string text = explain_metric(m.name);
    EXPECT_TRUE(has(text, std::string(m.name) + " (pool metric, one value per pool"));
    EXPECT_TRUE(has(text, "/pools/" + std::string(m.name)));
  }
  EXPECT_EQ(metric_names().size(), static_cast<std::size_t>(kScalarMetricCount + kPoolMetricCount));
}

TEST(MetricExplain, SpecificFacts) {
  const std::string p99 = explain_metric("latency_p99");
  EXPECT_TRUE(has(p99, "inference services (kind: inference)"));
  EXPECT_TRUE(has(p99, "a request of the window was served"));
  EXPECT_TRUE(has(p99, "exact up to 64"));
  EXPECT_FALSE(has(explain_metric("latency_mean"), "exact up to 64"));
  EXPECT_TRUE(has(explain_metric("unserved_fraction"), "deployments (kind: deployment)"));
  EXPECT_TRUE(has(explain_metric("events"), "the whole run, warm-up included"));
  // cost and utilization are scalar and pool metrics: both entries.
  const std::string cost = explain_metric("cost");
  EXPECT_TRUE(has(cost, "cost (metric, one value per replication)"));
  EXPECT_TRUE(has(cost, "cost (pool metric, one value per pool and replication)"));
  EXPECT_EQ(explain_metric("cots"), "");
  EXPECT_EQ(explain_metric(""), "");
  EXPECT_EQ(explain_metric("latency_p99 "), "");
}

// The goal form that explain shows is one the loader reads (it showed `goals: [{metric: ...}]`,
// which the loader refuses): NAME and X filled in, it loads.
TEST(MetricExplain, TheGoalFormShownLoads) {
  const std::string text = explain_metric("latency_p99");
  const std::string form = "goals: {NAME: {require: [\"latency_p99 <= X\"]}}";
  ASSERT_TRUE(has(text, form)) << text;
  std::string goals = form;
  goals.replace(goals.find("NAME"), 4, "fast");
  goals.replace(goals.find("X"), 1, "2s");
  const Scenario s = parse_scenario(
      "name: g\nhorizon: 1h\npools:\n  od: {gpu: H100, quota: 1, price_usd_per_gpu_hour: 1}\n"
      "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n" +
          goals + "\n",
      "test.yaml", ".");
  ASSERT_EQ(s.goals.size(), 1u);
  EXPECT_EQ(s.goals[0].name, "fast");
}

// pools.POOL.METRIC, the form goals' conditions (and messages of --constraint and --check) name
// a pool's metric by, is explained: in general and for one pool's metric.
TEST(MetricExplain, PoolMetricReferences) {
  const std::string form = explain_metric("pools.POOL.METRIC");
  EXPECT_TRUE(has(form, "pools.POOL.METRIC (a pool's metric in a goal's condition)")) << form;
  for (const MetricInfo& m : kPoolMetricInfo) EXPECT_TRUE(has(form, m.name)) << m.name;
  const std::string one = explain_metric("pools.spot.east.preemptions");
  EXPECT_EQ(one.rfind("pool \"spot.east\", preemptions (pool metric", 0), 0u) << one;
  EXPECT_TRUE(has(one, "pools.POOL.preemptions"));
  EXPECT_EQ(explain_metric("pools.spot.no_such_metric"), "");
  EXPECT_EQ(explain_metric("pools.preemptions"), "");
  const auto cli = gpucap_cli("explain pools.POOL.METRIC");
  EXPECT_EQ(cli.exit_code, 0);
  EXPECT_TRUE(has(cli.output, "pools.<the pool's name>.<a pool metric>")) << cli.output;
}

TEST(MetricExplain, TheCliExplainsKeysAndMetricsAndSuggests) {
  const auto metric = gpucap_cli("explain latency_p99");
  EXPECT_EQ(metric.exit_code, 0);
  EXPECT_TRUE(has(metric.output, "latency_p99 (metric")) << metric.output;
  const auto both = gpucap_cli("explain pools.quota unserved_fraction");
  EXPECT_EQ(both.exit_code, 0);
  EXPECT_TRUE(has(both.output, "pools.NAME.quota\n"));
  EXPECT_TRUE(has(both.output, "unserved_fraction (metric"));
  const auto list = gpucap_cli("explain metrics");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_TRUE(has(list.output, "metrics: cost, gpu_hours_used"));
  const auto typo = gpucap_cli("explain unserved_fractoin");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(has(typo.output, "no scenario key or metric 'unserved_fractoin'")) << typo.output;
  EXPECT_TRUE(has(typo.output, "did you mean 'unserved_fraction'?")) << typo.output;
  const auto key_typo = gpucap_cli("explain pools.NAME.qouta");
  EXPECT_EQ(key_typo.exit_code, 2);
  EXPECT_TRUE(has(key_typo.output, "did you mean 'pools.NAME.quota'?")) << key_typo.output;
}

}  // namespace
}  // namespace gpucap
