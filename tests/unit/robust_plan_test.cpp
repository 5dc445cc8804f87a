// Robust plans: variants (text, file, checks), the decisions x variants grid, the regret table
// against hand-computed values, and the CLI's `gpucap sweep --variant` end to end.
#include "gpucap/robust_plan.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "gpucap/scenario_error.hpp"
#include "gpucap/variant_sweep.hpp"
#include "gpucap/variants.hpp"

#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;
using gpucap::testing_support::gpucap_cli;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// --- variants --------------------------------------------------------------------------------

TEST(Variants, TextFormSplitsOnTopLevelCommas) {
  const gpucap::Variant v = gpucap::parse_variant(
      "low: workloads.0.arrivals.rate_per_day=3, workloads.0.placement=[a,b]");
  EXPECT_EQ(v.name, "low");
  EXPECT_EQ(v.weight, "");
  ASSERT_EQ(v.overrides.size(), 2u);
  EXPECT_EQ(v.overrides[0],
            (std::pair<std::string, std::string>{"workloads.0.arrivals.rate_per_day", "3"}));
  EXPECT_EQ(v.overrides[1],
            (std::pair<std::string, std::string>{"workloads.0.placement", "[a,b]"}));
  EXPECT_TRUE(gpucap::parse_variant("base").overrides.empty());
  EXPECT_TRUE(gpucap::parse_variant("base:").overrides.empty());
  EXPECT_NE(error_of([] { gpucap::parse_variant(": a=1"); }).find("has no name"),
            std::string::npos);
  EXPECT_NE(error_of([] { gpucap::parse_variant("low: a"); }).find("'a' is not path=value"),
            std::string::npos);
  EXPECT_NE(error_of([] { gpucap::parse_variant("low: a=[1,2"); }).find("unbalanced"),
            std::string::npos);
}

TEST(Variants, WeightsAreGivenToEveryVariantOrNone) {
  std::vector<gpucap::Variant> v = {gpucap::parse_variant("low"), gpucap::parse_variant("high")};
  gpucap::apply_weights(v, "low=3, high=1");
  EXPECT_EQ(v[0].weight, "3");
  EXPECT_NE(error_of([&] { gpucap::apply_weights(v, "low=1"); }).find("'high' has no weight"),
            std::string::npos);
  EXPECT_NE(error_of([&] { gpucap::apply_weights(v, "mid=1"); }).find("no variant 'mid'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { gpucap::apply_weights(v, "low=-1,high=1"); }).find("positive"),
            std::string::npos);
}

TEST(Variants, ChecksNamePathsAndWeights) {
  const auto check = [](std::vector<gpucap::Variant> v) {
    return error_of([&] { gpucap::check_variants(v, {"pools.a.count"}); });
  };
  EXPECT_EQ(check({{"a", "", {}}, {"b", "", {{"x.y", "1"}}}}), "(no error)");
  EXPECT_NE(check({}).find("at least one variant"), std::string::npos);
  EXPECT_NE(check({{"a", "", {}}, {"a", "", {}}}).find("named twice"), std::string::npos);
  EXPECT_NE(check({{"a", "", {{"pools.a.count", "3"}}}}).find("which the grid varies"),
            std::string::npos);
  EXPECT_NE(check({{"a", "1", {}}, {"b", "", {}}}).find("1 of 2 variants have a weight"),
            std::string::npos);
  EXPECT_NE(check({{"a", "", {{"x", "1"}, {"x", "2"}}}}).find("sets 'x' twice"), std::string::npos);
  EXPECT_NE(check({{"a=b", "", {}}}).find("may not hold"), std::string::npos);
}

TEST(Variants, FileGivesNamesWeightsAndOverridesOrAPlaceForEachError) {
  const std::vector<gpucap::Variant> v = gpucap::parse_variants_yaml(
      "variants:\n"
      "  - name: low\n"
      "    weight: 0.25\n"
      "    set:\n"
      "      workloads.0.arrivals.rate_per_day: 3.75\n"
      "      workloads.0.placement: [a, b]\n"
      "      name: 'quoted text'\n"
      "  - name: base\n"
      "    weight: 0.75\n",
      "v.yaml");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].name, "low");
  EXPECT_EQ(v[0].weight, "0.25");
  ASSERT_EQ(v[0].overrides.size(), 3u);
  EXPECT_EQ(v[0].overrides[0].second, "3.75");
  EXPECT_EQ(v[0].overrides[1].second, "[a, b]");
  EXPECT_EQ(v[0].overrides[2].second, "\"quoted text\"");
  EXPECT_TRUE(v[1].overrides.empty());
  const auto message = [](const std::string& text) {
    return error_of([&] { gpucap::parse_variants_yaml(text, "v.yaml"); });
  };
  EXPECT_EQ(message("variants:\n  - name: a\n    wieght: 2\n"),
            "v.yaml:3:5: variants[0].wieght: unknown key; a variant has name, weight and set");
  EXPECT_EQ(message("variants:\n  - name: a\n    weight: -2\n"),
            "v.yaml:3:13: variants[0].weight: weight '-2' is not a positive number (e.g. 0.25; "
            "the weights are normalized to sum to 1)");
  EXPECT_NE(message("scenarios: []\n").find("no top-level key 'variants'"), std::string::npos);
  EXPECT_NE(message("variants: [\n").find("v.yaml:"), std::string::npos);
  EXPECT_NE(message("variants:\n  - weight: 1\n")
                .find("v.yaml:2:5: variants[0]: the variant has no name"),
            std::string::npos);
}

TEST(Variants, GridHoldsDecisionsVariantsWeightsAndEveryOverriddenPath) {
  const std::vector<gpucap::SweepParameter> grid = gpucap::robust_plan_grid(
      {{"pools.a.count", {"8", "16"}}},
      {{"low", "1", {{"x", "0.5"}}}, {"high", "3", {{"x", "2"}, {"y", "[1, 2]"}}}});
  ASSERT_EQ(grid.size(), 5u);
  EXPECT_EQ(grid[0].path, "pools.a.count");
  EXPECT_EQ(grid[0].values, (std::vector<std::string>{"8", "8", "16", "16"}));
  EXPECT_EQ(grid[1].path, "variant");
  EXPECT_EQ(grid[1].values, (std::vector<std::string>{"low", "high", "low", "high"}));
  EXPECT_EQ(grid[2].path, "variant_weight");
  EXPECT_EQ(grid[2].values, (std::vector<std::string>{"1", "3", "1", "3"}));
  EXPECT_EQ(grid[3].path, "x");
  EXPECT_EQ(grid[3].values, (std::vector<std::string>{"0.5", "2", "0.5", "2"}));
  EXPECT_EQ(grid[4].path, "y");
  EXPECT_EQ(grid[4].values, (std::vector<std::string>{"", "[1, 2]", "", "[1, 2]"}));
}

// --- the regret table ------------------------------------------------------------------------

/// Decisions 8, 16, 32 under variants low and high (weights 3 and 1), 3 replications; point
/// (d, v)'s costs are mean - e, mean, mean + e. Means:
///          low  high
///   8       10    30      regret  0 10   max 10   expected 0.75*10 + 0.25*30 = 15
///   16      14    24      regret  4  4   max  4   expected 16.5
///   32      20    20      regret 10  0   max 10   expected 20
/// Minimax regret: 16; expected: 8; they differ.
gpucap::RunResults synthetic(const std::vector<std::string>& weights = {"3", "1"}) {
  const double mean[3][2] = {{10, 30}, {14, 24}, {20, 20}};
  const double spread[3][2] = {{1, 2}, {3, 1}, {2, 5}};
  gpucap::RunResults r;
  r.points = 6;
  r.replications = 3;
  r.sweep = {{"pools.a.count", {"8", "8", "16", "16", "32", "32"}},
             {"variant", {"low", "high", "low", "high", "low", "high"}},
             {"variant_weight", {}},
             {"workloads.0.arrivals.rate_per_day", {"3", "9", "3", "9", "3", "9"}}};
  for (int p = 0; p < 6; ++p) r.sweep[2].values.push_back(weights[p % 2]);
  r.scalars.assign(r.points * r.replications * gpucap::kScalarMetricCount, 0.0);
  for (std::size_t p = 0; p < 6; ++p)
    for (std::size_t i = 0; i < 3; ++i)
      r.scalars[(p * 3 + i) * gpucap::kScalarMetricCount + gpucap::kCostUsd] =
          mean[p / 2][p % 2] + (static_cast<double>(i) - 1.0) * spread[p / 2][p % 2];
  r.summarize_all();
  return r;
}

TEST(RobustPlan, RegretTableMatchesTheHandComputedOne) {
  const gpucap::RobustPlan plan = gpucap::robust_plan(synthetic(), gpucap::kCostUsd);
  EXPECT_EQ(plan.decision_paths, (std::vector<std::string>{"pools.a.count"}));
  EXPECT_EQ(plan.variants, (std::vector<std::string>{"low", "high"}));
  EXPECT_EQ(plan.probabilities, (std::vector<double>{0.75, 0.25}));
  EXPECT_EQ(plan.points, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(plan.best, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(plan.regret, (std::vector<double>{0, 10, 4, 4, 10, 0}));
  EXPECT_EQ(plan.max_regret, (std::vector<double>{10, 4, 10}));
  EXPECT_EQ(plan.worst_variant, (std::vector<std::size_t>{1, 0, 0}));
  EXPECT_EQ(plan.expected, (std::vector<double>{15, 16.5, 20}));
  EXPECT_EQ(plan.minimax_choice, 1u);
  EXPECT_EQ(plan.expected_choice, 0u);
  // Regret of (16, low) against (8, low): differences 4 + (i - 1)(3 - 1), std 2, n 3.
  const double t = gpucap::student_t_quantile(0.95, 2);
  const gpucap::MetricSummary& s = plan.regret_interval[2];
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_NEAR(s.ci95_low, 4 - t * 2 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(s.ci95_high, 4 + t * 2 / std::sqrt(3.0), 1e-12);
  // Expected cost of 8: 0.75 (10 + (i-1)) + 0.25 (30 + 2 (i-1)) = 15 + 1.25 (i - 1).
  EXPECT_NEAR(plan.expected_interval[0].ci95_high, 15 + t * 1.25 / std::sqrt(3.0), 1e-12);
  // Runner-up of minimax (16, max 4): 8 (max 10, first of the ties), difference 6; per
  // replication x(8,high) - x(32,high) - x(16,low) + x(8,low) = 6 + (i - 1)(2 - 5 - 3 + 1).
  EXPECT_EQ(plan.minimax_runner_up.runner_up, 0u);
  EXPECT_EQ(plan.minimax_runner_up.difference, 6);
  EXPECT_NEAR(plan.minimax_runner_up.interval.ci95_low, 6 - t * 5 / std::sqrt(3.0), 1e-12);
  EXPECT_FALSE(plan.minimax_runner_up.distinguishable);  // 6 - 4.30 * 5 / 1.73 < 0
  // Runner-up of expected (8, 15): 16 (16.5), difference 1.5 + (i - 1)(0.75 * 2 + 0.25 * -1).
  EXPECT_EQ(plan.expected_runner_up.runner_up, 1u);
  EXPECT_EQ(plan.expected_runner_up.difference, 1.5);
  EXPECT_NEAR(plan.expected_runner_up.interval.std, 1.25, 1e-12);
  EXPECT_FALSE(plan.expected_runner_up.distinguishable);

  const std::string text = gpucap::format_robust_plan(plan);
  EXPECT_NE(text.find("robust plan: cost [USD], lower is better; 3 decisions x 2 variants, "
                      "weights low 0.75, high 0.25"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pools.a.count=16  4 [-0.9683, 8.968]  4 [-5.937, 13.94]  4 (low)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("minimax-regret choice: pools.a.count=16 (max regret 4 USD, under 'low')"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("expected-cost choice: pools.a.count=8 (15 USD"), std::string::npos) << text;
  EXPECT_NE(text.find("the data cannot tell them apart"), std::string::npos) << text;
  EXPECT_NE(text.find("the two choices differ"), std::string::npos) << text;
}

TEST(RobustPlan, EqualWeightsOrGivenOnesChangeOnlyTheExpectedChoice) {
  // Without stored weights: equal, expected 20, 19, 20: both choose 16.
  const gpucap::RobustPlan equal = gpucap::robust_plan(synthetic({"", ""}), gpucap::kCostUsd);
  EXPECT_EQ(equal.probabilities, (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(equal.expected, (std::vector<double>{20, 19, 20}));
  EXPECT_EQ(equal.expected_choice, 1u);
  EXPECT_EQ(equal.minimax_choice, 1u);
  EXPECT_NE(gpucap::format_robust_plan(equal).find("the two choices agree"), std::string::npos);
  // Given weights replace the stored ones.
  const gpucap::RobustPlan given =
      gpucap::robust_plan(synthetic(), gpucap::kCostUsd, "variant", {{"low", 1}, {"high", 1}});
  EXPECT_EQ(given.expected, equal.expected);
  EXPECT_NE(error_of([] {
              gpucap::robust_plan(synthetic(), gpucap::kCostUsd, "variant", {{"mid", 1}});
            }).find("no variant 'mid'; the variants are low, high"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              gpucap::robust_plan(synthetic(), gpucap::kCostUsd, "variant", {{"low", 1}});
            }).find("'high' has no weight"),
            std::string::npos);
}

TEST(Variants, WeightsWhoseSumOverflowsAreNormalizedSafely) {
  const std::vector<std::string> names{"a", "b", "c"};
  EXPECT_EQ(gpucap::normalize_weights({3, 1}, {"a", "b"}), (std::vector<double>{0.75, 0.25}));
  // 1e308 + 1e308 is +inf: each weight is scaled by the largest before the sum.
  EXPECT_EQ(gpucap::normalize_weights({1e308, 1e308}, {"a", "b"}), (std::vector<double>{0.5, 0.5}));
  const double max = std::numeric_limits<double>::max(), r = 0.5e308 / max, total = 2 + r;
  EXPECT_EQ(gpucap::normalize_weights({max, max, 0.5e308}, names),
            (std::vector<double>{1 / total, 1 / total, r / total}));
  // A weight that rounds to a probability of 0 beside the others is refused, not kept as 0.
  EXPECT_NE(error_of([&] {
              gpucap::normalize_weights({1e300, 1e-300, 1}, names);
            }).find("variant 'b': its weight is too small next to the largest"),
            std::string::npos);
}

TEST(RobustPlan, WeightsOfHugeMagnitudeGiveEqualProbabilities) {
  const gpucap::RobustPlan plan = gpucap::robust_plan(synthetic(), gpucap::kCostUsd, "variant",
                                                      {{"low", 1e308}, {"high", 1e308}});
  EXPECT_EQ(plan.probabilities, (std::vector<double>{0.5, 0.5}));
  const gpucap::RobustPlan equal = gpucap::robust_plan(synthetic({"", ""}), gpucap::kCostUsd);
  EXPECT_EQ(plan.expected, equal.expected);
}

TEST(RobustPlan, APlainSweepParameterCanBeTheVariants) {
  // The override column as the variants: every other parameter but it is a decision, so the
  // variant name and weight columns become decision columns too; dropped here to leave one.
  gpucap::RunResults r = synthetic();
  r.sweep.erase(r.sweep.begin() + 1, r.sweep.begin() + 3);
  const gpucap::RobustPlan plan =
      gpucap::robust_plan(r, gpucap::kCostUsd, "workloads.0.arrivals.rate_per_day");
  EXPECT_EQ(plan.variants, (std::vector<std::string>{"3", "9"}));
  EXPECT_EQ(plan.regret, (std::vector<double>{0, 10, 4, 4, 10, 0}));
  EXPECT_EQ(plan.probabilities, (std::vector<double>{0.5, 0.5}));
}

TEST(RobustPlan, IncompleteOrForeignResultsAreRefused) {
  EXPECT_NE(error_of([] { gpucap::robust_plan(synthetic(), gpucap::kCostUsd, "scenario"); })
                .find("no sweep parameter 'scenario' to take as the variants; their parameters "
                      "are pools.a.count, variant, variant_weight"),
            std::string::npos);
  gpucap::RunResults twice = synthetic();
  twice.sweep[1].values[2] = "low";
  twice.sweep[0].values[2] = "8";
  EXPECT_NE(error_of([&] {
              gpucap::robust_plan(twice, gpucap::kCostUsd);
            }).find("decision pools.a.count=8 has variant 'low' twice (points 0 and 2)"),
            std::string::npos);
  gpucap::RunResults missing = synthetic();
  missing.sweep[1].values[3] = "mid";
  EXPECT_NE(error_of([&] {
              gpucap::robust_plan(missing, gpucap::kCostUsd);
            }).find("did not run under variant"),
            std::string::npos);
  // An objective undefined everywhere at a point (NaN in every replication).
  gpucap::RunResults undefined = synthetic();
  for (std::size_t i = 0; i < 3; ++i)
    undefined.scalars[i * gpucap::kScalarMetricCount + gpucap::kWaitMeanS] = NAN;
  undefined.summarize_all();
  EXPECT_NE(error_of([&] {
              gpucap::robust_plan(undefined, gpucap::kWaitMeanS);
            }).find("wait_mean is not defined in any replication of point 0"),
            std::string::npos);
}

// --- the CLI, end to end ----------------------------------------------------------------------

const std::string kScenario =
    std::string(GPUCAP_SOURCE_DIR) + "/scenarios/owned_baseline_burst.yaml";
const std::string kGrid = " --grid pools.onprem-h100.count=16,48 -r 6 --seed 5 ";
const std::string kLow =
    "workloads.0.arrivals.rate_per_day=2.5, workloads.1.arrivals.rate_per_hour=3";
const std::string kHigh =
    "workloads.0.arrivals.rate_per_day=7.5, workloads.1.arrivals.rate_per_hour=9";

fs::path temp_dir() {
  const fs::path dir = fs::path(testing::TempDir()) / ("gpucap_robust_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(RobustPlanCli, TableAgreesBitForBitWithPlainSweepsOfEachVariant) {
  const fs::path dir = temp_dir();
  const std::string out = (dir / "robust.h5").string();
  const auto o = gpucap_cli("sweep " + kScenario + kGrid + "--variant 'low: " + kLow +
                            "' --variant base --variant 'high: " + kHigh +
                            "' --weights low=1,base=2,high=1 -o " + out);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("robust plan: cost [USD], lower is better; 2 decisions x 3 variants, "
                          "weights low 0.25, base 0.5, high 0.25"),
            std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("minimax-regret choice: pools.onprem-h100.count="), std::string::npos);
  EXPECT_NE(o.output.find("expected-cost choice: pools.onprem-h100.count="), std::string::npos);
  const gpucap::RunResults robust = gpucap::read_results_hdf5(out);
  ASSERT_EQ(robust.points, 6u);
  const gpucap::RobustPlan plan = gpucap::robust_plan(robust, gpucap::kCostUsd);
  EXPECT_NE(o.output.find(gpucap::format_robust_plan(plan)), std::string::npos);  // same text

  // The same points as plain sweeps, one per variant (its overrides as --set).
  const std::vector<std::string> sets = {
      "--set workloads.0.arrivals.rate_per_day=2.5 --set workloads.1.arrivals.rate_per_hour=3", "",
      "--set workloads.0.arrivals.rate_per_day=7.5 --set workloads.1.arrivals.rate_per_hour=9"};
  for (std::size_t v = 0; v < 3; ++v) {
    const std::string plain = (dir / ("plain" + std::to_string(v) + ".h5")).string();
    const auto p = gpucap_cli("sweep " + kScenario + kGrid + sets[v] + " -q -o " + plain);
    ASSERT_EQ(p.exit_code, 0) << p.output;
    const gpucap::RunResults r = gpucap::read_results_hdf5(plain);
    for (std::size_t d = 0; d < 2; ++d) {
      EXPECT_EQ(plan.objective_summary[d * 3 + v].mean, r.summary_of(d, gpucap::kCostUsd).mean);
      for (std::size_t i = 0; i < 6; ++i)
        EXPECT_EQ(robust.scalar(d * 3 + v, i, gpucap::kCostUsd), r.scalar(d, i, gpucap::kCostUsd));
    }
  }
  // Regret by hand from the plain means.
  for (std::size_t v = 0; v < 3; ++v) {
    const double a = plan.objective_summary[v].mean, b = plan.objective_summary[3 + v].mean;
    EXPECT_EQ(plan.regret[v], a - std::min(a, b));
    EXPECT_EQ(plan.regret[3 + v], b - std::min(a, b));
  }
  // The file says which variant each point is, and what it set.
  EXPECT_EQ(robust.sweep[1].path, "variant");
  EXPECT_EQ(robust.sweep[1].values,
            (std::vector<std::string>{"low", "base", "high", "low", "base", "high"}));
  EXPECT_EQ(robust.sweep[2].values[0], "1");
  EXPECT_EQ(robust.sweep[3].path, "workloads.0.arrivals.rate_per_day");
  EXPECT_EQ(robust.sweep[3].values[1], "");
  EXPECT_EQ(robust.sweep[3].values[2], "7.5");
  fs::remove_all(dir);
}

TEST(RobustPlanCli, VariantsFileWorksAndBadVariantsAreUsageErrorsThatSayWhere) {
  const fs::path dir = temp_dir();
  const fs::path file = dir / "variants.yaml";
  std::ofstream(file)
      << "variants:\n  - name: low\n    set:\n      workloads.0.arrivals.rate_per_day: 2.5\n"
         "  - name: base\n";
  // The shipped variants file, with its weights.
  const auto ok =
      gpucap_cli("sweep " + kScenario + kGrid + "--variants " + std::string(GPUCAP_SOURCE_DIR) +
                 "/scenarios/variants/owned_baseline_demand.yaml --objective wait_mean");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("robust plan: wait_mean [s], lower is better; 2 decisions x 3 variants, "
                           "weights low 0.25, base 0.5, high 0.25"),
            std::string::npos)
      << ok.output;
  // -o never replaces the variants file (an input of the run).
  EXPECT_EQ(gpucap_cli("sweep " + kScenario + kGrid + "--variants " + file.string() + " -q -o " +
                       file.string())
                .exit_code,
            1);

  const auto usage = [&](const std::string& args, const std::string& expected) {
    const auto o = gpucap_cli("sweep " + kScenario + kGrid + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.output;
    EXPECT_NE(o.output.find(expected), std::string::npos) << args << "\n" << o.output;
  };
  usage("--variant 'low: workloads.0.arrivals.rate_per_day'", "is not path=value");
  usage("--variant 'low: pools.onprem-h100.count=8'", "which the grid varies");
  usage("--variant 'low: workloads.0.arrivals.rate_per_day=-1'", "variant 'low': ");
  usage("--variant 'low: workloads.0.arrivals.rate_per_day=-1'",
        "workloads[0].arrivals.rate_per_day: must be a rate > 0, got -1");
  usage("--variant 'big: pools.extra={gpu: H100, price_usd_per_gpu_hour: 1, quota: 8}'",
        "variant 'big' changes which pools exist");
  usage("--variant a --variant a", "variant 'a' is named twice");
  usage("--weights a=1", "--weights needs --variant or --variants");
  usage("--variant a --variant b --weights a=1", "variant 'b' has no weight");
  usage("--variant a --skip-invalid", "--skip-invalid cannot go with variants");
  usage("--variant a --objective price", "--objective: unknown metric 'price'");
  usage("--variant a --constraint 'wait_p95<=1h'", "--constraint does not go with variants");
  std::ofstream(dir / "bad.yaml") << "variants:\n  - name: low\n    set: [1]\n";
  usage("--variants " + (dir / "bad.yaml").string(),
        (dir / "bad.yaml").string() + ":3:10: variants[0].set: expected a map");
  fs::remove_all(dir);
}

}  // namespace
