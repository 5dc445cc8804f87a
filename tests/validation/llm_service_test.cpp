// Validation of LLM services run from scenarios (workloads[].llm; docs/llm-serving.md,
// docs/validation.md):
//  - one replica batching one request at a time, fixed tokens (one output token): M/D/1, so the
//    mean TTFT is D + rho D / (2 (1 - rho)) (Pollaczek-Khinchine), D the roofline's prefill time;
//  - the same with 1 + k output tokens: every request's TPOT is exactly one decode iteration;
//  - spot replicas reclaimed mid-batch: every request of the window is served, dropped or still
//    in the system at the horizon, preemptions recompute tokens, and the run is the same bits
//    whatever the thread count;
//  - a request trace replays each request's own tokens (exact, requests far apart);
//  - the loader's errors name the key and what is valid.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpucap/llm_catalog.hpp"
#include "gpucap/llm_iteration.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "support/run_scenario.hpp"
#include "support/theory_checks.hpp"

namespace {

using gpucap::testing_support::expect_matches;
using gpucap::testing_support::simulate_shipped;

/// The roofline time of one iteration of Llama-2-7B on one H100 (default efficiencies) that
/// prefills `context` tokens from empty, or decodes one token after `cached` tokens.
double iteration_s(double cached, double tokens) {
  gpucap::LlmModelShape model;
  for (const auto& m : gpucap::shipped_llm_models())
    if (m.name == "llama-2-7b") model = m;
  gpucap::GpuSpec gpu;
  for (const auto& g : gpucap::shipped_gpu_specs())
    if (g.gpu == "H100") gpu = g;
  const gpucap::LlmShape shape = gpucap::llm_shape(model, gpu, 1, gpucap::LlmEfficiency{});
  gpucap::LlmIterationLoad load;
  load.tokens = tokens;
  load.attended_positions = gpucap::llm_chunk_positions(cached, tokens);
  load.kv_tokens_moved = cached + tokens;
  return gpucap::llm_iteration_s(shape, nullptr, load);
}

class LlmMd1 : public testing::TestWithParam<double> {};

TEST_P(LlmMd1, MeanTtftIsPollaczekKhinchine) {
  const double rho = GetParam();
  const double d = iteration_s(0, 256);
  const double lambda = rho / d;
  const gpucap::RunResults r = simulate_shipped(
      "llm_md1_validation.yaml", {"workloads.chat.arrivals.rate_per_s=" + std::to_string(lambda)},
      40);
  const std::string tag = "M/D/1 rho " + std::to_string(rho).substr(0, 3);
  expect_matches(r, gpucap::kTtftMeanS, d + rho * d / (2 * (1 - rho)), "mean TTFT, " + tag);
  expect_matches(r, gpucap::kRequestWaitMeanS, rho * d / (2 * (1 - rho)), "mean wait, " + tag);
  // Every request ended (one output token: no TPOT), and met no SLO because none is given.
  EXPECT_EQ(r.summary_of(0, gpucap::kRequestsDropped).mean, 0.0);
  EXPECT_TRUE(std::isnan(r.summary_of(0, gpucap::kTpotMeanS).mean));
  EXPECT_EQ(r.summary_of(0, gpucap::kLlmPreemptions).mean, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Loads, LlmMd1, testing::Values(0.5, 0.8));

TEST(LlmService, TpotOfALoneRequestIsOneDecodeIteration) {
  // Requests far apart (one in 1000 s, each ends within 0.1 s): each runs alone, so its
  // TPOT is the mean of its decode iterations' times, which grow with the tokens cached.
  const gpucap::RunResults r = simulate_shipped(
      "llm_md1_validation.yaml",
      {"workloads.chat.arrivals.rate_per_s=0.001", "workloads.chat.llm.tokens.output=9"}, 20);
  double sum = 0;
  for (int k = 1; k <= 8; ++k) sum += iteration_s(256 + k - 1, 1);
  const double tpot = sum / 8;
  const auto& s = r.summary_of(0, gpucap::kTpotMeanS);
  EXPECT_NEAR(s.mean, tpot, 1e-9 * tpot) << "every request alone: the same TPOT";
  EXPECT_NEAR(r.summary_of(0, gpucap::kTtftMeanS).mean, iteration_s(0, 256),
              1e-9 * iteration_s(0, 256));
  EXPECT_GT(r.summary_of(0, gpucap::kRequestsServed).mean, 0.0);
  EXPECT_EQ(r.summary_of(0, gpucap::kRequestWaitMeanS).mean, 0.0);
}

const char* kSpotFleet = R"(
name: spot LLM fleet
horizon: 3h
warmup: 10min
seed: 7
replications: 6
pools:
  spot-h100:
    gpu: H100
    purchase: spot
    quota: 4
    price_usd_per_gpu_hour: 1.5
    preemption: {time_to_preemption: {dist: exponential, mean: 20min}}
    provisioning_delay: 30s
  od-a100:
    gpu: A100-80GB
    purchase: on_demand
    quota: 2
    price_usd_per_gpu_hour: 2
workloads:
  - name: chat
    kind: inference
    pool: spot-h100
    fallback_pool: od-a100
    arrivals: {process: poisson, rate_per_s: 20}
    llm:
      model: llama-3-8b
      tokens: {context: 1500, output: 300}
      max_sequences: 64
      slo: {ttft: 2s, tpot: 100ms}
    autoscaling: {min_replicas: 3, max_replicas: 4, idle_timeout: 5min}
    queue_capacity: 5000
)";

TEST(LlmService, SpotReclaimsRequeueTheBatchAndLoseNoRequest) {
  const gpucap::Scenario s = gpucap::parse_scenario(kSpotFleet, "spot.yaml", "");
  gpucap::RunOptions options;
  options.threads = 1;
  const gpucap::RunResults one = gpucap::run(s, options);
  options.threads = 2;
  const gpucap::RunResults two = gpucap::run(s, options);
  for (uint32_t m = 0; m < gpucap::kScalarMetricCount; ++m) {
    const auto& a = one.summary_of(0, static_cast<gpucap::ScalarMetric>(m));
    const auto& b = two.summary_of(0, static_cast<gpucap::ScalarMetric>(m));
    if (std::isnan(a.mean)) {
      EXPECT_TRUE(std::isnan(b.mean)) << gpucap::kScalarMetricInfo[m].name;
    } else {
      EXPECT_EQ(a.mean, b.mean) << gpucap::kScalarMetricInfo[m].name << ": threads change bits";
    }
  }
  const double arrived = one.summary_of(0, gpucap::kRequestsArrived).mean;
  const double served = one.summary_of(0, gpucap::kRequestsServed).mean;
  const double dropped = one.summary_of(0, gpucap::kRequestsDropped).mean;
  // Not ended at the horizon: at most the waiting room and the batches of 4 replicas.
  EXPECT_GE(arrived - served - dropped, 0.0);
  EXPECT_LE(arrived - served - dropped, 5000.0 + 4 * 64);
  EXPECT_GT(one.summary_of(0, gpucap::kReplicaPreemptions).mean, 0.0);
  EXPECT_GT(one.summary_of(0, gpucap::kLlmPreemptions).mean, 0.0);
  EXPECT_GT(one.summary_of(0, gpucap::kRecomputedTokens).mean, 0.0);
  // Output tokens per second: 300 per ended request over the window (2 h 50 min).
  EXPECT_NEAR(one.summary_of(0, gpucap::kOutputTokensPerS).mean, 300.0 * served / (170 * 60.0),
              1e-9 * served);
  const double good = one.summary_of(0, gpucap::kGoodputShare).mean;
  EXPECT_GT(good, 0.0);
  EXPECT_LE(good, served / arrived + 1e-12);
  const double kv = one.summary_of(0, gpucap::kKvCacheUtilization).mean;
  EXPECT_GT(kv, 0.0);
  EXPECT_LT(kv, 1.0);
  // The cost per million tokens is the pools' cost over the tokens.
  const double cost = one.summary_of(0, gpucap::kCostUsd).mean;
  EXPECT_GT(one.summary_of(0, gpucap::kCostPerMillionTokensUsd).mean, 0.0);
  EXPECT_GT(cost, 0.0);
}

TEST(LlmService, ATokenTraceReplaysEachRequestsOwnTokens) {
  // Requests at least 0.25 s apart, each over within 0.4 s: each runs alone, so its TTFT is
  // its prompt's prefill and its TPOT its decodes' mean. The file is out of order (the replay
  // sorts it, each row keeping its tokens), and its row with no prompt token is left out.
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "llm_trace_replay";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "requests.csv") << "submit_s,context_tokens,output_tokens\n"
                                         "0.5,100,10\n1.0,2000,50\n1.5,0,3\n2.0,300,1\n"
                                         "0.25,500,4\n";
  std::ofstream(dir / "replay.yaml")
      << "name: replay\nhorizon: 1h\npools:\n"
         "  h100: {gpu: H100, purchase: on_demand, quota: 1, price_usd_per_gpu_hour: 4}\n"
         "workloads:\n  - name: chat\n    kind: inference\n    pool: h100\n"
         "    arrivals: {process: trace, file: requests.csv}\n"
         "    llm: {model: llama-2-7b}\n    replicas: 1\n";
  const gpucap::RunResults r =
      gpucap::testing_support::run_scenario((dir / "replay.yaml").string(), {}, 3);
  const double ttft =
      (iteration_s(0, 500) + iteration_s(0, 100) + iteration_s(0, 2000) + iteration_s(0, 300)) / 4;
  const auto decodes = [](double context, int output) {
    double sum = 0;
    for (int k = 1; k < output; ++k) sum += iteration_s(context + k - 1, 1);
    return sum / (output - 1);
  };
  const double tpot = (decodes(500, 4) + decodes(100, 10) + decodes(2000, 50)) / 3;
  const auto& t = r.summary_of(0, gpucap::kTtftMeanS);
  EXPECT_NEAR(t.mean, ttft, 1e-9 * ttft);
  EXPECT_EQ(t.ci95_low, t.ci95_high) << "a trace replays the same requests in every replication";
  EXPECT_NEAR(r.summary_of(0, gpucap::kTpotMeanS).mean, tpot, 1e-9 * tpot);
  EXPECT_EQ(r.summary_of(0, gpucap::kRequestsArrived).mean, 4.0);
  EXPECT_EQ(r.summary_of(0, gpucap::kRequestsServed).mean, 4.0);
  EXPECT_NEAR(r.summary_of(0, gpucap::kOutputTokensPerS).mean * 3600, 65.0, 1e-9);
  EXPECT_EQ(r.summary_of(0, gpucap::kRequestWaitMeanS).mean, 0.0);
}

TEST(LlmService, TokenDistributionsAreDrawnOnceIntoAFixedSample) {
  std::string text = kSpotFleet;
  const std::string from = "tokens: {context: 1500, output: 300}";
  text.replace(text.find(from), from.size(),
               "tokens: {context: {dist: uniform, min: 100, max: 300}, output: 9}");
  const gpucap::Scenario a = gpucap::parse_scenario(text, "spot.yaml", "");
  const gpucap::Scenario b = gpucap::parse_scenario(text, "spot.yaml", "");
  const std::vector<uint32_t>& t = a.workloads.at(0).service.llm.tokens;
  ASSERT_EQ(t.size(), 2u * 16384);
  EXPECT_EQ(t, b.workloads.at(0).service.llm.tokens) << "the same draw at every load";
  double sum = 0;
  for (std::size_t i = 0; i < t.size(); i += 2) {
    EXPECT_GE(t[i], 100u);
    EXPECT_LE(t[i], 300u);
    EXPECT_EQ(t[i + 1], 9u) << "a fixed count pairs with every draw";
    sum += t[i];
  }
  // The mean of 16,384 uniform draws on [100, 300]: 200, sd 57.7 / 128 = 0.45 (band 5 sd).
  EXPECT_NEAR(sum / 16384, 200.0, 2.3);
}

TEST(LlmService, ScenariosWithoutOneHaveNoLlmMetrics) {
  const gpucap::RunResults r = simulate_shipped("inference_mmc_validation.yaml", {}, 2);
  for (uint32_t m = gpucap::kTtftMeanS; m <= gpucap::kCostPerMillionTokensUsd; ++m)
    EXPECT_TRUE(std::isnan(r.summary_of(0, static_cast<gpucap::ScalarMetric>(m)).mean))
        << gpucap::kScalarMetricInfo[m].name;
}

/// The loader's message for kSpotFleet with `from` replaced by `to`.
std::string error_of(const std::string& from, const std::string& to) {
  std::string text = kSpotFleet;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  try {
    gpucap::parse_scenario(text, "spot.yaml", "");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LlmService, BadBlocksAreRefusedWithTheKeyAndWhatIsValid) {
  EXPECT_NE(error_of("model: llama-3-8b", "model: gpt-5").find("llama-2-7b"), std::string::npos);
  EXPECT_NE(error_of("model: llama-3-8b", "model: llama-2-70b").find("leaves no room"),
            std::string::npos);
  EXPECT_NE(error_of("gpu: A100-80GB", "gpu: B200").find("gpu_specs_file"), std::string::npos);
  EXPECT_NE(error_of("    llm:\n", "    service: 1s\n    llm:\n").find("remove 'service'"),
            std::string::npos);
  EXPECT_NE(error_of("    llm:\n", "    concurrency: 4\n    llm:\n").find("concurrency"),
            std::string::npos);
  EXPECT_NE(error_of("tokens: {context: 1500, output: 300}", "tokens: {context: 0, output: 300}")
                .find("tokens.context"),
            std::string::npos);
  EXPECT_NE(error_of("tokens: {context: 1500, output: 300}", "tokens: {context: 1500}")
                .find("output"),
            std::string::npos);
  EXPECT_NE(error_of("tokens: {context: 1500, output: 300}", "tokens: {sample: none.csv}")
                .find("none.csv"),
            std::string::npos);
  EXPECT_NE(error_of("max_sequences: 64", "max_sequences: 0").find("max_sequences"),
            std::string::npos);
  EXPECT_NE(error_of("slo: {ttft: 2s, tpot: 100ms}", "slo: {ttft: 2s, tbt: 100ms}").find("tbt"),
            std::string::npos);
  EXPECT_NE(error_of("max_sequences: 64", "max_sequences: 64\n      efficiency: {flops: 2}")
                .find("efficiency.flops"),
            std::string::npos);
  EXPECT_NE(error_of("arrivals: {process: poisson, rate_per_s: 20}",
                     "arrivals: {process: trace, file: requests.csv}")
                .find("remove llm.tokens"),
            std::string::npos);
  EXPECT_NE(error_of("arrivals: {process: poisson, rate_per_s: 20}",
                     "arrivals: {process: poisson, rate_per_s: 20}\n    llm_typo: 1")
                .find("llm_typo"),
            std::string::npos);
}

}  // namespace
