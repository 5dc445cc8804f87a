// Tests of scenario loading: one test per kind of error, asserting the message (file:line:column,
// key path, problem and what is valid), --set overrides, parse_duration_s, and valid parses.
#include "gpucap/scenario_loader.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;

// Substring checks that print the whole message on failure (gmock is not linked).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected to find: " << part << "\n in: " << text;
}
::testing::AssertionResult BeginsWith(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected to start with: " << prefix << "\n in: " << text;
}
#define EXPECT_HAS(text, part) EXPECT_TRUE(Contains(text, part))
#define EXPECT_STARTS(text, prefix) EXPECT_TRUE(BeginsWith(text, prefix))

/// A valid scenario; tests replace one line to introduce one problem. Line numbers:
const std::string kBase =
    "name: test\n"                                          // 1
    "horizon: 10d\n"                                        // 2
    "seed: 3\n"                                             // 3
    "replications: 4\n"                                     // 4
    "pools:\n"                                              // 5
    "  gpus:\n"                                             // 6
    "    gpu: A100\n"                                       // 7
    "    price_usd_per_gpu_hour: 2.0\n"                     // 8
    "    quota: 8\n"                                        // 9
    "workloads:\n"                                          // 10
    "  - name: jobs\n"                                      // 11
    "    gpus: 1\n"                                         // 12
    "    arrivals: {process: poisson, rate_per_hour: 2}\n"  // 13
    "    work: {dist: exponential, mean: 1h}\n";            // 14

/// kBase with `from` (which must occur once) replaced by `to`.
std::string edit(const std::string& from, const std::string& to, std::string text = kBase) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// "test.yaml:L:C" where C is the 1-based column of `token` on line L of `text`.
std::string at(const std::string& text, int line, const std::string& token) {
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) start = text.find('\n', start) + 1;
  const std::string row = text.substr(start, text.find('\n', start) - start);
  const auto column = row.find(token);
  EXPECT_NE(column, std::string::npos) << "'" << token << "' not on line " << line;
  return "test.yaml:" + std::to_string(line) + ":" + std::to_string(column + 1);
}

class ScenarioLoader : public testing_support::ScenarioFixture {
 protected:
  /// The message of the ScenarioError that parsing raises ("" and a failure when none).
  std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    try {
      parse(yaml, overrides);
    } catch (const ScenarioError& e) {
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ScenarioError: " << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << yaml;
    return "";
  }
};

// ---- a valid scenario -----------------------------------------------------------------------

TEST_F(ScenarioLoader, BaseScenarioParses) {
  const Scenario s = parse(kBase);
  EXPECT_EQ(s.name, "test");
  EXPECT_EQ(s.horizon_s, 10 * 86400.0);
  EXPECT_EQ(s.warmup_s, 0.0);
  EXPECT_EQ(s.seed, 3u);
  EXPECT_EQ(s.replications, 4u);
  ASSERT_EQ(s.pools.size(), 1u);
  EXPECT_EQ(s.pools[0].name, "gpus");
  EXPECT_EQ(s.pools[0].gpu, "A100");
  EXPECT_EQ(s.pools[0].price_usd_per_gpu_hour, 2.0);
  EXPECT_EQ(s.pools[0].quota_gpus, 8u);
  EXPECT_EQ(s.pools[0].billing_increment_s, 1.0);
  EXPECT_EQ(s.pools[0].billing_minimum_s, 0.0);
  EXPECT_EQ(s.pools[0].speed, 1.0);
  EXPECT_FALSE(s.pools[0].has_provisioning_delay);
  ASSERT_EQ(s.workloads.size(), 1u);
  const JobClassSpec& w = s.workloads[0];
  EXPECT_EQ(w.name, "jobs");
  EXPECT_EQ(w.gpus, 1u);
  EXPECT_EQ(w.arrivals.kind, ArrivalKind::poisson);
  EXPECT_EQ(w.arrivals.rate_per_s, 2.0 / 3600.0);
  EXPECT_EQ(w.work_s.kind, DistKind::exponential);
  EXPECT_EQ(w.work_s.p0, 3600.0);
  EXPECT_EQ(w.placement, std::vector<std::string>{"gpus"});
  EXPECT_EQ(s.policy.discipline, QueueDiscipline::fifo);
  EXPECT_FALSE(s.policy.backfill);
  EXPECT_EQ(s.source_path, "test.yaml");
  EXPECT_EQ(s.source_text, kBase);
}

TEST_F(ScenarioLoader, ShippedValidationScenarioLoads) {
  const Scenario s =
      load_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml");
  EXPECT_EQ(s.horizon_s, 2000 * 3600.0);
  EXPECT_EQ(s.warmup_s, 50 * 3600.0);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.replications, 200u);
  ASSERT_EQ(s.pools.size(), 1u);
  EXPECT_EQ(s.pools[0].quota_gpus, 8u);
  ASSERT_EQ(s.workloads.size(), 1u);
  EXPECT_DOUBLE_EQ(s.workloads[0].arrivals.rate_per_s, 6.4 / 3600.0);
  EXPECT_EQ(s.workloads[0].work_s.mean(), 3600.0);
  EXPECT_EQ(s.policy.queue_capacity, 100000u);
  EXPECT_TRUE(s.policy.queue_capacity_set);
}

TEST_F(ScenarioLoader, DistributionParametersAreConverted) {
  // lognormal by mean and cv: sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2.
  Scenario s = parse(edit("{dist: exponential, mean: 1h}", "{dist: lognormal, mean: 2h, cv: 0.5}"));
  EXPECT_NEAR(s.workloads[0].work_s.p1, std::sqrt(std::log(1.25)), 1e-15);
  EXPECT_NEAR(s.workloads[0].work_s.mean(), 7200.0, 1e-9);
  // lognormal by median and sigma: mu = ln(median).
  s = parse(edit("{dist: exponential, mean: 1h}", "{dist: lognormal, median: 30min, sigma: 0.8}"));
  EXPECT_NEAR(s.workloads[0].work_s.p0, std::log(1800.0), 1e-15);
  EXPECT_EQ(s.workloads[0].work_s.p1, 0.8);
  // gamma by mean and cv: shape = 1/cv^2, scale = mean / shape.
  s = parse(edit("{dist: exponential, mean: 1h}", "{dist: gamma, mean: 2h, cv: 0.5}"));
  EXPECT_EQ(s.workloads[0].work_s.p0, 4.0);
  EXPECT_EQ(s.workloads[0].work_s.p1, 1800.0);
  s = parse(edit("{dist: exponential, mean: 1h}", "{dist: uniform, min: 10min, max: 1h}"));
  EXPECT_EQ(s.workloads[0].work_s.p0, 600.0);
  EXPECT_EQ(s.workloads[0].work_s.p1, 3600.0);
  s = parse(edit("{dist: exponential, mean: 1h}", "{dist: empirical, values: [1h, 2h], scale: 2}"));
  EXPECT_EQ(s.workloads[0].work_s.samples, (std::vector<double>{7200.0, 14400.0}));
  s = parse(edit("{dist: exponential, mean: 1h}", "90min"));
  EXPECT_EQ(s.workloads[0].work_s.kind, DistKind::deterministic);
  EXPECT_EQ(s.workloads[0].work_s.p0, 5400.0);
}

// ---- syntax and structure -------------------------------------------------------------------

TEST_F(ScenarioLoader, InvalidYamlSyntax) {
  const std::string message = error_of("name: test\nhorizon: [10d\npools: {}\n");
  EXPECT_TRUE(
      std::regex_search(message, std::regex("^test\\.yaml:[0-9]+:[0-9]+: not valid YAML: ")))
      << message;
  // A second ':' on line 2: the position names that line.
  EXPECT_STARTS(error_of("name: test\nhorizon: 10d: x\npools: {}\n"), "test.yaml:2:");
}

TEST_F(ScenarioLoader, RootMustBeAMapping) {
  EXPECT_EQ(error_of("- a\n- b\n"),
            "test.yaml: a scenario must be a YAML mapping with name, horizon, pools and "
            "workloads; got a list");
  EXPECT_EQ(error_of("just text\n"),
            "test.yaml: a scenario must be a YAML mapping with name, horizon, pools and "
            "workloads; got a single value");
  EXPECT_EQ(error_of(""),
            "test.yaml: a scenario must be a YAML mapping with name, horizon, pools and "
            "workloads; got an empty document");
}

TEST_F(ScenarioLoader, UnknownTopLevelKeySuggestsTheNearestOne) {
  EXPECT_EQ(error_of(edit("horizon: 10d", "horizn: 10d")),
            "test.yaml:2:1: horizn: unknown key 'horizn' (did you mean 'horizon'?); valid keys: "
            "name, description, horizon, warmup, seed, replications, catalog, providers, regions, "
            "pools, commitments, workloads, policy, timeseries, records, goals");
}

TEST_F(ScenarioLoader, TimeseriesStepIsADurationWithABoundedBinCount) {
  EXPECT_EQ(error_of(edit("horizon: 10d", "horizon: 10d\ntimeseries: {step: 0s}")),
            "test.yaml:3:20: timeseries.step: must be a duration > 0, got 0s");
  EXPECT_EQ(error_of(edit("horizon: 10d", "horizon: 10d\ntimeseries: {step: 1s}")),
            "test.yaml:3:20: timeseries.step: gives 864000 bins over the horizon; at most 100000 "
            "are supported (use a wider step)");
  EXPECT_EQ(error_of(edit("horizon: 10d", "horizon: 10d\ntimeseries: {every: 1h}")),
            "test.yaml:3:14: timeseries.every: unknown key 'every'; valid keys: step");
}

TEST_F(ScenarioLoader, UnknownKeyFarFromAnyHasNoSuggestion) {
  const std::string message = error_of(edit("seed: 3", "colour: blue"));
  EXPECT_STARTS(message, "test.yaml:3:1: colour: unknown key 'colour'; valid keys: ");
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
}

TEST_F(ScenarioLoader, UnknownPoolKeySuggestsTheNearestOne) {
  EXPECT_EQ(error_of(edit("    quota: 8", "    qouta: 8")),
            "test.yaml:9:5: pools.gpus.qouta: unknown key 'qouta' (did you mean 'quota'?); valid "
            "keys: provider, region, gpu, gpu_memory_gb, purchase, speed, gpus_per_node, "
            "interconnect, provisioning_delay, slowdown, price_usd_per_gpu_hour, catalog_row, "
            "price_process, billing_increment, billing_minimum, quota, cold_start, "
            "availability, stockout");
}

TEST_F(ScenarioLoader, ExactLineAndColumnOfAnUnknownKey) {
  // 'backfil' is on line 5, column 3.
  const std::string yaml =
      "name: test\n"
      "horizon: 10d\n"
      "policy:\n"
      "  queue: fifo\n"
      "  backfil: true\n" +
      kBase.substr(kBase.find("pools:"));
  EXPECT_EQ(error_of(yaml),
            "test.yaml:5:3: policy.backfil: unknown key 'backfil' (did you mean 'backfill'?); "
            "valid keys: queue, backfill, queue_capacity");
}

TEST_F(ScenarioLoader, KeyDefinedTwice) {
  EXPECT_EQ(error_of(edit("    quota: 8\n", "    quota: 8\n    quota: 9\n")),
            "test.yaml:10:5: pools.gpus.quota: \"quota\" is defined twice in pools.gpus");
}

// ---- missing required keys ------------------------------------------------------------------

TEST_F(ScenarioLoader, MissingPools) {
  const std::string yaml = kBase.substr(0, kBase.find("pools:")) +
                           "workloads:\n  - {name: jobs, arrivals: {process: poisson, "
                           "rate_per_hour: 2}, work: 1h}\n";
  EXPECT_EQ(error_of(yaml), "test.yaml:1:1: pools: is required: a mapping of pool names to pools");
}

TEST_F(ScenarioLoader, MissingWorkloads) {
  EXPECT_EQ(error_of(kBase.substr(0, kBase.find("workloads:"))),
            "test.yaml:1:1: workloads: is required: a list of job classes");
}

TEST_F(ScenarioLoader, MissingQuota) {
  EXPECT_EQ(error_of(edit("    quota: 8\n", "")),
            "test.yaml:7:5: pools.gpus.quota: is required: the most GPUs held at once");
}

TEST_F(ScenarioLoader, MissingPrice) {
  EXPECT_EQ(error_of(edit("    price_usd_per_gpu_hour: 2.0\n", "")),
            "test.yaml:7:5: pools.gpus.price_usd_per_gpu_hour: is required: a price >= 0 USD per "
            "GPU-hour");
}

TEST_F(ScenarioLoader, MissingWork) {
  EXPECT_EQ(error_of(edit("    work: {dist: exponential, mean: 1h}\n", "")),
            "test.yaml:11:5: workloads[0].work: is required: the run time on the reference GPU "
            "(distribution)");
}

TEST_F(ScenarioLoader, MissingArrivals) {
  EXPECT_EQ(error_of(edit("    arrivals: {process: poisson, rate_per_hour: 2}\n", "")),
            "test.yaml:11:5: workloads[0].arrivals: is required: an arrival process (poisson, "
            "nhpp, trace)");
}

TEST_F(ScenarioLoader, MissingName) {
  EXPECT_EQ(error_of(edit("name: test\n", "")), "test.yaml:1:1: name: is required: a short title");
}

// ---- values out of range --------------------------------------------------------------------

TEST_F(ScenarioLoader, NegativeRate) {
  const std::string yaml = edit("rate_per_hour: 2}", "rate_per_hour: -2}");
  EXPECT_EQ(
      error_of(yaml),
      at(yaml, 13, "-2") + ": workloads[0].arrivals.rate_per_hour: must be a rate > 0, got -2");
}

TEST_F(ScenarioLoader, ZeroRate) {
  const std::string yaml = edit("rate_per_hour: 2}", "rate_per_hour: 0}");
  EXPECT_EQ(error_of(yaml), at(yaml, 13, "0}") +
                                ": workloads[0].arrivals.rate_per_hour: must be a rate > 0, got 0");
}

TEST_F(ScenarioLoader, ZeroQuota) {
  // A quota of 0 holds nothing (a sweep may include "none of this pool"); a workload whose only
  // pool it is has nowhere to run, and a negative quota is refused.
  EXPECT_NE(error_of(edit("quota: 8", "quota: 0")).find("fits no pool of its placement list"),
            std::string::npos)
      << error_of(edit("quota: 8", "quota: 0"));
  EXPECT_EQ(error_of(edit("quota: 8", "quota: -1")),
            "test.yaml:9:12: pools.gpus.quota: must be a whole number from 0 to 1048575, got "
            "\"-1\"");
}

TEST_F(ScenarioLoader, NegativeQuota) {
  EXPECT_EQ(error_of(edit("quota: 8", "quota: -3")),
            "test.yaml:9:12: pools.gpus.quota: must be a whole number from 0 to 1048575, got "
            "\"-3\"");
}

TEST_F(ScenarioLoader, FractionalQuota) {
  EXPECT_HAS(error_of(edit("quota: 8", "quota: 2.5")),
             "pools.gpus.quota: must be a whole number from 0 to 1048575, got \"2.5\"");
}

TEST_F(ScenarioLoader, NegativePrice) {
  EXPECT_EQ(error_of(edit("price_usd_per_gpu_hour: 2.0", "price_usd_per_gpu_hour: -1")),
            "test.yaml:8:29: pools.gpus.price_usd_per_gpu_hour: must be a price >= 0 USD per "
            "GPU-hour, got -1");
}

TEST_F(ScenarioLoader, BadDurationUnit) {
  EXPECT_EQ(
      error_of(edit("horizon: 10d", "horizon: 3 fortnights")),
      "test.yaml:2:10: horizon: \"3 fortnights\" has an unknown unit \"fortnights\"; a "
      "duration: a number of seconds, or a number with a unit us, ms, s, min, h, d or w (e.g. "
      "90s, 30min, 12h)");
}

TEST_F(ScenarioLoader, DurationMustBePositive) {
  EXPECT_EQ(error_of(edit("horizon: 10d", "horizon: 0h")),
            "test.yaml:2:10: horizon: must be a duration > 0, got 0h");
  EXPECT_EQ(error_of(edit("horizon: 10d", "horizon: -5h")),
            "test.yaml:2:10: horizon: must be a duration > 0, got -5h");
}

TEST_F(ScenarioLoader, WarmupNotShorterThanHorizon) {
  EXPECT_EQ(error_of(edit("seed: 3", "warmup: 10d")),
            "test.yaml:3:9: warmup: must be shorter than the horizon (10 d)");
  EXPECT_EQ(error_of(edit("seed: 3", "warmup: 11d")),
            "test.yaml:3:9: warmup: must be shorter than the horizon (10 d)");
  EXPECT_EQ(parse(edit("seed: 3", "warmup: 239h")).warmup_s, 239 * 3600.0);
}

TEST_F(ScenarioLoader, JobThatFitsNoPool) {
  EXPECT_EQ(error_of(edit("    gpus: 1\n", "    gpus: 16\n")),
            "test.yaml:12:11: workloads[0].gpus: a job of 16 GPUs fits no pool of its placement "
            "list (quotas: gpus 8); lower gpus or raise a quota");
}

TEST_F(ScenarioLoader, JobThatFitsNoPoolOfItsPlacementList) {
  const std::string yaml =
      edit("    quota: 8\n",
           "    quota: 8\n"
           "  small: {gpu: T4, price_usd_per_gpu_hour: 0.5, quota: 2}\n"
           "  tiny: {gpu: T4, price_usd_per_gpu_hour: 0.5, quota: 1}\n",
           edit("    gpus: 1\n", "    gpus: 4\n    placement: [small, tiny]\n"));
  EXPECT_HAS(error_of(yaml),
             "workloads[0].gpus: a job of 4 GPUs fits no pool of its placement list "
             "(quotas: small 2, tiny 1); lower gpus or raise a quota");
}

TEST_F(ScenarioLoader, PlacementNamingAnUnknownPool) {
  const std::string yaml = edit("    gpus: 1\n", "    gpus: 1\n    placement: [gpuz]\n");
  EXPECT_EQ(error_of(yaml), at(yaml, 13, "gpuz") +
                                ": workloads[0].placement[0]: no pool named \"gpuz\" (did you "
                                "mean 'gpus'?); declared: gpus");
}

TEST_F(ScenarioLoader, PlacementListingAPoolTwice) {
  EXPECT_HAS(error_of(edit("    gpus: 1\n", "    gpus: 1\n    placement: [gpus, gpus]\n")),
             "workloads[0].placement[1]: pool \"gpus\" is listed twice");
}

TEST_F(ScenarioLoader, EmptyPoolsMapping) {
  const std::string yaml =
      "name: test\nhorizon: 10d\npools: {}\n" + kBase.substr(kBase.find("workloads:"));
  EXPECT_EQ(error_of(yaml),
            "test.yaml:3:8: pools: must be a non-empty mapping of pool names to pools");
}

TEST_F(ScenarioLoader, EmptyWorkloadsList) {
  const std::string yaml = kBase.substr(0, kBase.find("workloads:")) + "workloads: []\n";
  EXPECT_EQ(error_of(yaml), "test.yaml:10:12: workloads: must be a non-empty list of job classes");
}

TEST_F(ScenarioLoader, DuplicateWorkloadNames) {
  const std::string yaml = kBase +
                           "  - name: jobs\n    arrivals: {process: poisson, "
                           "rate_per_hour: 1}\n    work: 1h\n";
  EXPECT_EQ(error_of(yaml),
            "test.yaml:15:11: workloads[1].name: \"jobs\" is already the name of workloads[0]");
}

TEST_F(ScenarioLoader, PurchaseOptionsAndTheirKeys) {
  EXPECT_EQ(error_of(edit("    quota: 8\n", "    quota: 8\n    purchase: spot\n")),
            "test.yaml:7:5: pools.gpus.preemption: is required: how instances are reclaimed: "
            "time_to_preemption, notice, max_runtime (or give an availability trace)");
  EXPECT_HAS(
      error_of(edit("    quota: 8\n", "    quota: 8\n    purchase: bogus\n")),
      "pools.gpus.purchase: unknown value \"bogus\"; valid: on_demand, spot, reserved, owned");
  // A reserved pool has a count, not a quota, and no per-hold billing keys.
  EXPECT_HAS(error_of(edit("    quota: 8\n", "    quota: 8\n    purchase: reserved\n")),
             "pools.gpus.quota: unknown key 'quota'");
  EXPECT_HAS(error_of(edit("    quota: 8\n",
                           "    purchase: spot\n    quota: 8\n"
                           "    preemption: {notice: 2min}\n")),
             "pools.gpus.preemption: needs time_to_preemption");
  EXPECT_EQ(
      parse(edit("    quota: 8\n", "    quota: 8\n    purchase: on_demand\n")).pools[0].purchase,
      PurchaseOption::on_demand);
}

TEST_F(ScenarioLoader, UnknownDistributionSuggestsTheNearestOne) {
  const std::string yaml = edit("{dist: exponential, mean: 1h}", "{dist: exponentail, mean: 1h}");
  EXPECT_EQ(error_of(yaml),
            at(yaml, 14, "exponentail") +
                ": workloads[0].work.dist: unknown value \"exponentail\" (did you mean "
                "'exponential'?); valid: deterministic, exponential, uniform, lognormal, gamma, "
                "weibull, pareto, empirical");
}

TEST_F(ScenarioLoader, LognormalWithBothMedianAndMean) {
  const std::string yaml =
      edit("{dist: exponential, mean: 1h}", "{dist: lognormal, median: 1h, sigma: 0.5, mean: 2h}");
  EXPECT_EQ(error_of(yaml), at(yaml, 14, "{") +
                                ": workloads[0].work: give either median and sigma, or mean "
                                "and cv, not both");
}

TEST_F(ScenarioLoader, UniformWithMaxNotAboveMin) {
  const std::string yaml =
      edit("{dist: exponential, mean: 1h}", "{dist: uniform, min: 2h, max: 1h}");
  EXPECT_EQ(error_of(yaml),
            at(yaml, 14, "1h}") + ": workloads[0].work.max: must be greater than min");
}

TEST_F(ScenarioLoader, NhppProfileOfWrongLength) {
  const std::string yaml = edit("{process: poisson, rate_per_hour: 2}",
                                "{process: nhpp, rate_per_hour: 2, hourly_profile: [1, 2, 3]}");
  EXPECT_EQ(error_of(yaml), at(yaml, 13, "[1") +
                                ": workloads[0].arrivals.hourly_profile: must be a list of "
                                "exactly 24 multipliers >= 0");
}

TEST_F(ScenarioLoader, NhppProfileAllZero) {
  std::string zeros;
  for (int i = 0; i < 24; ++i) zeros += i ? ", 0" : "0";
  EXPECT_HAS(error_of(edit("{process: poisson, rate_per_hour: 2}",
                           "{process: nhpp, rate_per_hour: 2, hourly_profile: [" + zeros + "]}")),
             "workloads[0].arrivals.hourly_profile: must have a multiplier > 0");
}

// ---- data files -----------------------------------------------------------------------------

std::string trace_workload(const std::string& file) {
  return kBase.substr(0, kBase.find("    gpus: 1\n")) +
         "    arrivals: {process: trace, file: " + file + "}\n";
}

TEST_F(ScenarioLoader, TraceFileMissing) {
  const std::string yaml = trace_workload("missing.csv");
  EXPECT_EQ(error_of(yaml), at(yaml, 12, "missing.csv") +
                                ": workloads[0].arrivals.file: cannot read data file '" + dir() +
                                "/missing.csv': No such file or directory");
  // An I/O failure, not a mistake in the scenario: the CLI exits 1 for it.
  EXPECT_THROW(parse_scenario(yaml, "test.yaml", dir()), InputFileError);
}

TEST_F(ScenarioLoader, TraceCsvWithAMissingColumn) {
  write("trace.csv", "submit_s,duration_s\n0,60\n10,60\n");
  const std::string yaml = trace_workload("trace.csv");
  EXPECT_EQ(error_of(yaml),
            at(yaml, 12, "trace.csv") + ": workloads[0].arrivals.file: " + dir() +
                "/trace.csv:1: no column \"gpus\" in the header; columns: submit_s, duration_s");
}

TEST_F(ScenarioLoader, AnEmptyCsvFileIsNamedWithItsLine) {
  write("trace.csv", "");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "/trace.csv:1: the file is empty; it needs a header row naming its columns");
}

TEST_F(ScenarioLoader, TraceStartInOtherLettersSuggestsRandom) {
  write("avail.csv", "available\n1\n0\n");
  const std::string yaml =
      edit("    quota: 8\n",
           "    quota: 8\n    availability: {file: avail.csv, step: 1h, start: Random}\n");
  EXPECT_HAS(error_of(yaml),
             "availability.start: unknown value \"Random\" (did you mean "
             "'random'?); valid: random, or a duration >= 0 into the trace");
  EXPECT_TRUE(parse(edit("    quota: 8\n",
                         "    quota: 8\n    availability: {file: avail.csv, "
                         "step: 1h, start: random}\n"))
                  .pools[0]
                  .availability_random_start);
}

TEST_F(ScenarioLoader, TraceCsvWithAMisspelledColumnSuggests) {
  write("trace.csv", "submit_s,gpu,duration_s\n0,1,60\n");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "/trace.csv:1: no column \"gpus\" in the header (did you mean 'gpu'?); columns: "
             "submit_s, gpu, duration_s");
}

TEST_F(ScenarioLoader, TraceCsvWithANonNumericCell) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,60\n10,two,60\n");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "workloads[0].arrivals.file: " + dir() +
                 "/trace.csv:3: column \"gpus\" holds \"two\", not a number");
}

TEST_F(ScenarioLoader, TraceRowValuesAreChecked) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,60\n10,1,-1\n");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "workloads[0].arrivals.file: trace.csv data row 2: duration_s must be >= 0 and at "
             "most 10000 years");
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,60\n10,1,1e300\n");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "trace.csv data row 2: duration_s must be >= 0 and at most 10000 years");
  write("trace.csv", "submit_s,gpus,duration_s\n0,1.5,60\n");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "trace.csv data row 1: gpus must be a whole number >= 1");
}

TEST_F(ScenarioLoader, TraceWithWorkIsRejected) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,60\n");
  const std::string yaml = trace_workload("trace.csv") + "    work: 1h\n";
  EXPECT_EQ(error_of(yaml),
            "test.yaml:13:11: workloads[0].work: a trace-driven workload takes "
            "each job's run time from its trace; remove 'work'");
}

TEST_F(ScenarioLoader, TraceLoadsSortedWithColumnsAndTimeUnit) {
  write("t.csv", "at,n,len\n2,1,0.5\n1,2,1\n");
  const Scenario s = parse(kBase.substr(0, kBase.find("    gpus: 1\n")) +
                           "    arrivals: {process: trace, file: t.csv, submit_column: at, "
                           "gpus_column: n, duration_column: len, time_unit: 1h}\n");
  const auto& trace = s.workloads[0].arrivals.trace;
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[0].submit_s, 3600.0);
  EXPECT_EQ(trace[0].gpus, 2u);
  EXPECT_EQ(trace[0].work_s, 3600.0);
  EXPECT_EQ(trace[1].submit_s, 7200.0);
  EXPECT_EQ(trace[1].gpus, 1u);
  EXPECT_EQ(trace[1].work_s, 1800.0);
}

TEST_F(ScenarioLoader, TraceJobLargerThanEveryQuota) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,60\n5,9,60\n");
  EXPECT_HAS(error_of(trace_workload("trace.csv")),
             "workloads[0].gpus: a job of 9 GPUs fits no pool of its placement list "
             "(quotas: gpus 8)");
}

TEST_F(ScenarioLoader, EmpiricalCsvWithANonNumericCellNamesFileAndLine) {
  write("samples.csv", "seconds\n10\nabc\n30\n");
  const std::string yaml = edit("{dist: exponential, mean: 1h}",
                                "{dist: empirical, file: samples.csv, column: seconds}");
  EXPECT_EQ(error_of(yaml), at(yaml, 14, "samples.csv") + ": workloads[0].work.file: " + dir() +
                                "/samples.csv:3: column \"seconds\" holds \"abc\", not a number");
}

TEST_F(ScenarioLoader, EmpiricalCsvLoads) {
  write("samples.csv", "id,seconds\na,10\nb,20\n\nc,30\n");
  const Scenario s =
      parse(edit("{dist: exponential, mean: 1h}",
                 "{dist: empirical, file: samples.csv, column: seconds, scale: 60}"));
  EXPECT_EQ(s.workloads[0].work_s.samples, (std::vector<double>{600.0, 1200.0, 1800.0}));
  EXPECT_EQ(s.workloads[0].work_s.mean(), 1200.0);
}

TEST_F(ScenarioLoader, LoadScenarioResolvesDataFilesNextToTheScenario) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,60\n");
  write("s.yaml", trace_workload("trace.csv"));
  const Scenario s = load_scenario(dir() + "/s.yaml");
  EXPECT_EQ(s.workloads[0].arrivals.trace.size(), 1u);
  EXPECT_EQ(s.source_path, dir() + "/s.yaml");
}

TEST_F(ScenarioLoader, LoadScenarioOfAMissingFile) {
  try {
    load_scenario(dir() + "/nope.yaml");
    FAIL() << "no error";
  } catch (const InputFileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read scenario file '" + dir() + "/nope.yaml': No such file or directory");
  }
}

// ---- --set overrides ------------------------------------------------------------------------

TEST_F(ScenarioLoader, OverrideChangesAValue) {
  const Scenario s = parse(kBase, {"pools.gpus.quota=16"});
  EXPECT_EQ(s.pools[0].quota_gpus, 16u);
  EXPECT_STARTS(s.source_text, "# test.yaml with --set pools.gpus.quota=16\n");
  // The recorded text is itself a valid scenario with the override applied.
  EXPECT_EQ(parse(s.source_text).pools[0].quota_gpus, 16u);
}

TEST_F(ScenarioLoader, AnOverrideOfAnAliasChangesOnlyItsCopy) {
  const std::string yaml =
      "name: aliases\nhorizon: 10d\npools:\n"
      "  a: &pool {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8, speed: 1}\n"
      "  b: *pool\n"
      "workloads:\n"
      "  - &job {name: one, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n"
      "  - {name: two, arrivals: {process: poisson, rate_per_hour: 1}, work: 2h}\n";
  const Scenario s = parse(yaml, {"pools.b.quota=4", "pools.a.speed=2"});
  EXPECT_EQ(s.pools[0].quota_gpus, 8u);
  EXPECT_EQ(s.pools[1].quota_gpus, 4u);
  EXPECT_EQ(s.pools[0].speed, 2.0);
  EXPECT_EQ(s.pools[1].speed, 1.0);
  // Without overrides both stay the same pool.
  const Scenario plain = parse(yaml);
  EXPECT_EQ(plain.pools[1].quota_gpus, 8u);
  // A mistake found inside the copy points at the anchor's place in the file.
  const std::string bad_anchor =
      std::string(yaml).replace(yaml.find("speed: 1"), 8, "speed: 1, x: 1");
  try {
    parse(bad_anchor, {"pools.b.quota=4"});
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STARTS(std::string(e.what()), "test.yaml:4:");
  }
}

TEST_F(ScenarioLoader, AliasesThatLoopOrMultiplyStayCheap) {
  // An anchor that contains its own alias: an override through it ends (the path is finite).
  const std::string cyclic = std::string(kBase) + "extra: &loop [1, *loop]\n";
  EXPECT_NE(error_of(cyclic, {"extra.1.1.1.0=2"}).find("unknown key 'extra'"), std::string::npos);
  // Aliases of aliases (2^20 paths to the innermost list): an override counts each node once.
  std::string laughs = "name: laughs\nhorizon: 1d\nl0: &l0 [1, 2]\n";
  for (int i = 1; i <= 20; ++i)
    laughs += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [*l" +
              std::to_string(i - 1) + ", *l" + std::to_string(i - 1) + "]\n";
  EXPECT_NE(error_of(laughs, {"l20.0.0=5"}).find("unknown key 'l0'"), std::string::npos);
}

TEST_F(ScenarioLoader, EveryProblemOfAFileIsListedInFileOrder) {
  const std::string yaml =
      "name: many\nhorizon: 10d\nseed: -3\npools:\n"
      "  a: {gpu: H100, price_usd_per_gpu_hour: -2, quota: 8}\n"
      "  b: {gpu: H100, price_usd_per_gpu_hour: 2, quota: -1}\n"
      "  c: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8, sped: 2}\n"
      "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n";
  const std::string message = error_of(yaml);
  EXPECT_EQ(message.rfind("test.yaml: 4 problems:\n  test.yaml:3:7: seed: must be", 0), 0u)
      << message;
  const std::size_t a = message.find("\n  test.yaml:5:"), b = message.find("\n  test.yaml:6:"),
                    c = message.find("\n  test.yaml:7:");
  EXPECT_TRUE(a != std::string::npos && b != std::string::npos && c != std::string::npos && a < b &&
              b < c)
      << message;
  EXPECT_NE(message.find("pools.c.sped: unknown key 'sped' (did you mean 'speed'?)"),
            std::string::npos);
  // Workloads are read only once every pool is sound: no error follows from another.
  EXPECT_EQ(message.find("workloads"), std::string::npos) << message;
}

TEST_F(ScenarioLoader, AtMostTwentyProblemsAreListed) {
  std::string yaml = "name: many\nhorizon: 10d\npools:\n";
  for (int i = 0; i < 25; ++i)
    yaml += "  p" + std::to_string(i) + ": {gpu: H100, price_usd_per_gpu_hour: 2, quota: -1}\n";
  yaml += "workloads:\n  - {name: w, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n";
  const std::string message = error_of(yaml);
  EXPECT_EQ(message.rfind("test.yaml: 25 problems:\n", 0), 0u) << message;
  EXPECT_NE(message.find("\n  ... and 5 more"), std::string::npos) << message;
  EXPECT_NE(message.find("pools.p19.quota"), std::string::npos);
  EXPECT_EQ(message.find("pools.p20.quota"), std::string::npos);
}

TEST_F(ScenarioLoader, AMisspeltRequiredKeyIsOneProblem) {
  const std::string message = error_of(edit("workloads:", "workload:"));
  EXPECT_EQ(message.find("problems"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown key 'workload' (did you mean 'workloads'?)"), std::string::npos)
      << message;
}

TEST_F(ScenarioLoader, ANullOverrideDeletesAKeyOrAnItem) {
  const std::string yaml =
      "name: delete\nhorizon: 10d\npools:\n"
      "  a: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 8, speed: 2}\n"
      "workloads:\n"
      "  - {name: one, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n"
      "  - {name: two, arrivals: {process: poisson, rate_per_hour: 1}, work: 2h}\n";
  EXPECT_EQ(parse(yaml, {"pools.a.speed=null"}).pools[0].speed, 1.0);  // back to the default
  EXPECT_EQ(parse(yaml, {"pools.a.speed=~"}).pools[0].speed, 1.0);
  const Scenario fewer = parse(yaml, {"workloads.one=null"});
  ASSERT_EQ(fewer.workloads.size(), 1u);
  EXPECT_EQ(fewer.workloads[0].name, "two");
  // Deleting a required key is reported as the override that did it.
  EXPECT_HAS(error_of(yaml, {"pools.a.quota=null"}),
             "(from --set pools.a.quota=null): pools.a.quota: is required");
  // Deleting what is not there changes nothing.
  EXPECT_EQ(parse(yaml, {"pools.a.stockout=null"}).pools[0].quota_gpus, 8u);
}

TEST_F(ScenarioLoader, OverrideOfASequenceItemByNameAndByIndex) {
  EXPECT_EQ(parse(kBase, {"workloads.jobs.gpus=2"}).workloads[0].gpus, 2u);
  EXPECT_EQ(parse(kBase, {"workloads.0.gpus=4"}).workloads[0].gpus, 4u);
  const Scenario s = parse(kBase, {"workloads.jobs.arrivals.rate_per_hour=6.4",
                                   "workloads.0.work={dist: exponential, mean: 30min}"});
  EXPECT_DOUBLE_EQ(s.workloads[0].arrivals.rate_per_s, 6.4 / 3600.0);
  EXPECT_EQ(s.workloads[0].work_s.p0, 1800.0);
}

TEST_F(ScenarioLoader, OverrideAddsAMissingKey) {
  const Scenario s = parse(kBase, {"policy.queue=sjf", "warmup=1d"});
  EXPECT_EQ(s.policy.discipline, QueueDiscipline::shortest_job_first);
  EXPECT_EQ(s.warmup_s, 86400.0);
}

TEST_F(ScenarioLoader, OverrideWithoutEqualsSign) {
  EXPECT_EQ(error_of(kBase, {"pools.gpus.quota"}),
            "--set pools.gpus.quota: expected dotted.path=value, e.g. pools.aws-od.quota=16");
  EXPECT_EQ(error_of(kBase, {"=16"}),
            "--set =16: expected dotted.path=value, e.g. pools.aws-od.quota=16");
}

TEST_F(ScenarioLoader, OverrideOfAnUnknownListItem) {
  EXPECT_EQ(error_of(kBase, {"workloads.nosuch.gpus=2"}),
            "--set workloads.nosuch.gpus=2: workloads has no item \"nosuch\" (use an index from "
            "0 to 0 or an item's name)");
  EXPECT_EQ(error_of(kBase, {"workloads.3.gpus=2"}),
            "--set workloads.3.gpus=2: workloads has no item \"3\" (use an index from 0 to 0 or "
            "an item's name)");
}

TEST_F(ScenarioLoader, OverrideBelowASingleValue) {
  EXPECT_EQ(error_of(kBase, {"name.x=1"}),
            "--set name.x=1: name is a single value, so it has no key \"x\"");
}

TEST_F(ScenarioLoader, InvalidValueFromAnOverrideNamesTheOverride) {
  EXPECT_EQ(error_of(kBase, {"pools.gpus.quota=-3"}),
            "test.yaml: (from --set pools.gpus.quota=-3): pools.gpus.quota: must be a whole "
            "number from 0 to 1048575, got \"-3\"");
  // The override is quoted as the user wrote it.
  EXPECT_EQ(error_of(kBase, {"workloads.jobs.gpus=16"}),
            "test.yaml: (from --set workloads.jobs.gpus=16): workloads[0].gpus: a job of 16 GPUs "
            "fits no pool of its placement list (quotas: gpus 8); lower gpus or raise a quota");
  EXPECT_EQ(error_of(kBase, {"workloads.0.arrivals.rate_per_hour=-1"}),
            "test.yaml: (from --set workloads.0.arrivals.rate_per_hour=-1): "
            "workloads[0].arrivals.rate_per_hour: must be a rate > 0, got -1");
  // A problem inside a list the override replaced.
  EXPECT_EQ(error_of(kBase, {"workloads.jobs.placement=[gpuz]"}),
            "test.yaml: (from --set workloads.jobs.placement=[gpuz]): workloads[0].placement[0]: "
            "no pool named \"gpuz\" (did you mean 'gpus'?); declared: gpus");
}

TEST_F(ScenarioLoader, ErrorsOutsideAnOverrideKeepTheirFilePosition) {
  // An override elsewhere does not hide where the real problem is.
  EXPECT_EQ(error_of(edit("quota: 8", "quota: -1"), {"pools.gpus.price_usd_per_gpu_hour=3"}),
            "test.yaml:9:12: pools.gpus.quota: must be a whole number from 0 to 1048575, got "
            "\"-1\"");
}

// ---- parse_duration_s -----------------------------------------------------------------------

TEST(ParseDuration, AllUnits) {
  EXPECT_EQ(parse_duration_s("90"), 90.0);
  EXPECT_EQ(parse_duration_s("2.5"), 2.5);
  EXPECT_EQ(parse_duration_s("250ms"), 0.25);
  EXPECT_EQ(parse_duration_s("90s"), 90.0);
  EXPECT_EQ(parse_duration_s("90sec"), 90.0);
  EXPECT_EQ(parse_duration_s("30min"), 1800.0);
  EXPECT_EQ(parse_duration_s("30m"), 1800.0);
  EXPECT_EQ(parse_duration_s("12h"), 43200.0);
  EXPECT_EQ(parse_duration_s("12hr"), 43200.0);
  EXPECT_EQ(parse_duration_s("1.5h"), 5400.0);
  EXPECT_EQ(parse_duration_s("3d"), 259200.0);
  EXPECT_EQ(parse_duration_s("1day"), 86400.0);
  EXPECT_EQ(parse_duration_s("3days"), 259200.0);
  EXPECT_EQ(parse_duration_s("1w"), 604800.0);
  EXPECT_EQ(parse_duration_s("2000h"), 7.2e6);
  EXPECT_EQ(parse_duration_s("1e3ms"), 1.0);
  EXPECT_EQ(parse_duration_s("0"), 0.0);
}

TEST(ParseDuration, Whitespace) {
  EXPECT_EQ(parse_duration_s(" 90 s "), 90.0);
  EXPECT_EQ(parse_duration_s("30 min"), 1800.0);
  EXPECT_EQ(parse_duration_s("\t12h\n"), 43200.0);
}

TEST(ParseDuration, InvalidTextSaysWhatIsValid) {
  const std::string valid =
      "a duration: a number of seconds, or a number with a unit us, ms, s, min, "
      "h, d or w (e.g. 90s, 30min, 12h)";
  for (const std::string text : {"", "h", "abc", "inf", "nan", "1e999s"}) {
    try {
      parse_duration_s(text);
      ADD_FAILURE() << "no error for \"" << text << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "\"" + text + "\" is not " + valid);
    }
  }
  for (const std::string text : {"3 fortnights", "5y", "3d2h", "10 H"}) {
    try {
      parse_duration_s(text);
      ADD_FAILURE() << "no error for \"" << text << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_STARTS(std::string(e.what()), "\"" + text + "\" has an unknown unit \"");
      EXPECT_HAS(std::string(e.what()), valid);
    }
  }
}

}  // namespace
}  // namespace gpucap
