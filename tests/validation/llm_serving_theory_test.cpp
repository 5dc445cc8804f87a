// LLM serving against theory and measurements (docs/llm-serving.md, docs/validation.md):
// - one sequence at a time with fixed token counts is M/D/1: TTFT = the Pollaczek-Khinchine
//   wait + the prefill, end-to-end = the wait + the whole service, inside their 99% intervals;
// - a saturated replica's output tokens per second: exactly the iterations' sum worked by hand,
//   below the roofline bound of a batch of decodes at the shortest context, and within 10% of it;
// - the iteration times of Vidur's profile of Llama-2-7B on one H100 and one A100
//   (../shared/data/llm) are reproduced exactly at its rows.
// One replica driven by a small event loop (arrivals, iteration ends) over the engine's batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpucap/engine/llm_batch.hpp"
#include "gpucap/llm_catalog.hpp"
#include "gpucap/llm_iteration.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap::engine {
namespace {

const std::string kSource = GPUCAP_SOURCE_DIR;

LlmModelShape model_named(const std::string& name) {
  for (const auto& m : read_llm_models(kSource + "/data/llm_models.csv"))
    if (m.name == name) return m;
  throw std::runtime_error("no model " + name);
}
GpuSpec gpu_named(const std::string& name) {
  for (const auto& g : read_gpu_specs(kSource + "/data/gpu_specs.csv"))
    if (g.gpu == name) return g;
  throw std::runtime_error("no gpu " + name);
}

/// Per-request figures the sink keeps.
struct Figures {
  std::vector<double> ttft, e2e;
  double tokens = 0;
  void first_token(const LlmRequest& s, double t) { ttft.push_back(t - s.arrival_s); }
  void done(const LlmRequest& s, double t) {
    e2e.push_back(t - s.arrival_s);
    tokens += s.output;
  }
  void preempted(const LlmRequest&, uint32_t) {}
  void evicted(const LlmRequest&, uint32_t) {}
  void dropped(const LlmRequest&) { ADD_FAILURE() << "no request is dropped here"; }
};

/// One replica, Poisson arrivals of rate `lambda` (0: all `n` at t = 0), fixed token counts.
Figures simulate(const LlmShape& shape, const LlmScheduling& sched, double lambda, uint32_t n,
                 uint32_t context, uint32_t output, double* end_s = nullptr) {
  std::vector<LlmRequest> seqs(sched.max_sequences), waiting(n);
  LlmReplica rep;
  rep.seqs = ArenaPtr<LlmRequest>::contiguous(seqs.data());
  LlmQueue q;
  q.entries = ArenaPtr<LlmRequest>::contiguous(waiting.data());
  q.capacity = n;
  Figures f;
  RandomStream rng = RandomStream::make(42, 0, 1);
  uint32_t arrived = 0;
  double next_arrival = 0;
  double iteration_end = -1;  // < 0: idle
  const auto arrive = [&](double t) {
    q.push_back(LlmRequest{t, -1, context, output, 0, 0, 0, 0, 0, 0});
    ++arrived;
    next_arrival = lambda > 0 ? t - pmath::log(1.0 - rng.next_uniform()) / lambda : t;
  };
  const auto start = [&](double t) {
    const LlmIterationLoad load = LlmBatch::plan(rep, q, sched, f);
    iteration_end = load.tokens > 0 ? t + llm_iteration_s(shape, nullptr, load) : -1;
  };
  double now = 0;
  while (arrived < n || iteration_end >= 0) {
    if (arrived < n && (iteration_end < 0 || next_arrival < iteration_end)) {
      now = next_arrival;
      arrive(now);
      // Requests arriving at one instant are all there when the replica plans.
      if (iteration_end < 0 && !(arrived < n && next_arrival == now)) start(now);
    } else {
      now = iteration_end;
      LlmBatch::finish(rep, now, f);
      start(now);
    }
  }
  if (end_s) *end_s = now;
  return f;
}

/// Mean and the half-width of its 99% interval by 20 batch means (after a warm-up tenth).
std::pair<double, double> mean_ci99(const std::vector<double>& x) {
  const size_t skip = x.size() / 10, batches = 20, per = (x.size() - skip) / batches;
  std::vector<double> means;
  for (size_t b = 0; b < batches; ++b) {
    double s = 0;
    for (size_t i = 0; i < per; ++i) s += x[skip + b * per + i];
    means.push_back(s / per);
  }
  double m = 0;
  for (double v : means) m += v / batches;
  double var = 0;
  for (double v : means) var += (v - m) * (v - m) / (batches - 1);
  return {m, 2.861 * std::sqrt(var / batches)};  // t quantile 0.995, 19 degrees of freedom
}

LlmShape llama7b_on(const std::string& gpu) {
  return llm_shape(model_named("llama-2-7b"), gpu_named(gpu), 1, LlmEfficiency{});
}

TEST(LlmServingTheory, OneSequenceAtATimeIsMD1) {
  const LlmShape shape = llama7b_on("H100");
  LlmScheduling sched;
  sched.max_sequences = 1;
  sched.max_batched_tokens = 4096;
  sched.kv_blocks = 10000;
  const uint32_t context = 512, output = 4;
  // The service, worked by hand: a 512-token prefill, then decodes of tokens 513, 514, 515.
  const double prefill =
      llm_iteration_s(shape, nullptr, LlmIterationLoad{512, llm_chunk_positions(0, 512), 512});
  double service = prefill;
  for (uint32_t cached = 512; cached < 515; ++cached)
    service += llm_iteration_s(shape, nullptr, LlmIterationLoad{1, cached + 1.0, cached + 1.0});
  for (const double rho : {0.5, 0.8}) {
    const double lambda = rho / service;
    const Figures f = simulate(shape, sched, lambda, 1000000, context, output);
    const double wq = lambda * service * service / (2 * (1 - rho));  // Pollaczek-Khinchine
    const auto [ttft, ttft_ci] = mean_ci99(f.ttft);
    const auto [e2e, e2e_ci] = mean_ci99(f.e2e);
    EXPECT_NEAR(ttft, wq + prefill, ttft_ci) << "rho " << rho << " theory " << wq + prefill;
    EXPECT_NEAR(e2e, wq + service, e2e_ci) << "rho " << rho;
    EXPECT_LT(ttft_ci, 0.05 * (wq + prefill));  // the interval is tight enough to mean something
    std::printf("M/D/1 rho %.1f: TTFT %.5f +- %.5f s (theory %.5f), end-to-end %.5f +- %.5f s "
                "(theory %.5f); prefill %.5f s, service %.5f s\n",
                rho, ttft, ttft_ci, wq + prefill, e2e, e2e_ci, wq + service, prefill, service);
  }
}

TEST(LlmServingTheory, ASaturatedReplicasTokensPerSecondMeetTheRoofline) {
  const LlmShape shape = llama7b_on("H100");
  LlmScheduling sched;
  sched.max_sequences = 64;
  sched.max_batched_tokens = 8192;  // exactly 64 prompts of 128 tokens
  sched.kv_blocks = 100000;
  const uint32_t context = 128, output = 512, cohorts = 5;
  double end_s = 0;
  const Figures f = simulate(shape, sched, 0, 64 * cohorts, context, output, &end_s);
  const double measured = f.tokens / end_s;
  // By hand: each cohort of 64 prefills together, then decodes 511 times in lockstep.
  double cohort_s =
      llm_iteration_s(shape, nullptr,
                      LlmIterationLoad{8192, 64 * llm_chunk_positions(0, 128), 8192});
  for (uint32_t cached = 128; cached < 128 + 511; ++cached)
    cohort_s += llm_iteration_s(shape, nullptr,
                                LlmIterationLoad{64, 64 * (cached + 1.0), 64 * (cached + 1.0)});
  EXPECT_NEAR(measured, 64.0 * 512 / cohort_s, 1e-9 * measured);
  // The roofline bound: a batch of 64 decodes at the shortest context, no prefill.
  const double bound =
      64 / llm_iteration_s(shape, nullptr, LlmIterationLoad{64, 64 * 129.0, 64 * 129.0});
  EXPECT_LT(measured, bound);
  EXPECT_GT(measured, 0.6 * bound);
  std::printf("saturated Llama-2-7B on one H100, 64 sequences: %.1f output tokens/s "
              "(roofline bound %.1f at 129 tokens of context)\n", measured, bound);
  // Memory-bound decodes: the bound is 64 / (overhead + (weights + KV read) / bandwidth).
  EXPECT_DOUBLE_EQ(bound, 64 / (shape.overhead_s + (shape.weight_bytes + 64 * 129.0 * shape.kv_bytes_per_token) / shape.bytes_per_s));
}

/// Vidur's file, its rows of `tp` workers: (tokens, the linear layers' seconds) summed here on
/// its own (embedding once, the per-layer operators' medians x 32 layers).
std::vector<std::pair<double, double>> vidur_rows_by_hand(const std::string& path, int tp) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) header.push_back(c);
  const auto col = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw std::runtime_error("no column " + name);
  };
  std::vector<std::pair<double, double>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    if (std::stod(cells[col("num_tensor_parallel_workers")]) != tp) continue;
    double per_layer = 0;
    for (const auto& op : vidur_layer_operators())
      per_layer += std::stod(cells[col("time_stats." + op + ".median")]);
    const double ms = std::stod(cells[col("time_stats.emb.median")]) + 32 * per_layer;
    rows.emplace_back(std::stod(cells[col("num_tokens")]), ms / 1000.0);
  }
  std::sort(rows.begin(), rows.end());
  std::vector<std::pair<double, double>> merged;  // a token count profiled twice: the mean
  for (size_t k = 0; k < rows.size(); ++k) {
    if (k + 1 < rows.size() && rows[k + 1].first == rows[k].first) {
      merged.emplace_back(rows[k].first, (rows[k].second + rows[k + 1].second) / 2.0);
      ++k;
    } else {
      merged.push_back(rows[k]);
    }
  }
  return merged;
}

TEST(LlmServingTheory, VidursProfileRowsAreReproducedExactly) {
  for (const std::string gpu : {"h100", "a100"}) {
    const std::string path =
        kSource + "/../shared/data/llm/vidur_" + gpu + "_llama2_7b_mlp.csv";
    if (!std::ifstream(path)) GTEST_SKIP() << "no " << path << " (../shared/data absent)";
    for (const int tp : {1, 2}) {
      const auto rows = read_llm_profile(path, 32, tp);
      const auto by_hand = vidur_rows_by_hand(path, tp);
      ASSERT_EQ(rows.size(), by_hand.size());
      ASSERT_GT(rows.size(), 200u);
      std::vector<double> table;
      for (const auto& [tokens, s] : rows) {
        table.push_back(tokens);
        table.push_back(s);
      }
      LlmShape shape = llama7b_on(gpu == "h100" ? "H100" : "A100");
      shape.profile_rows = static_cast<uint32_t>(rows.size());
      shape.overhead_s = 0;
      for (size_t k = 0; k < rows.size(); ++k) {
        EXPECT_EQ(rows[k], by_hand[k]) << gpu << " row " << k;
        // An iteration of exactly a row's tokens and no attention: the row's time, to the bit.
        EXPECT_EQ(llm_iteration_s(shape, table.data(), LlmIterationLoad{rows[k].first, 0, 0}),
                  rows[k].second);
      }
      // Against the roofline: Vidur's linear time at 4,096 tokens on one H100 is within a
      // factor 2 of 2 x 6.74e9 x 4096 FLOPs at the datasheet's dense BF16 peak.
      if (gpu == "h100" && tp == 1) {
        const double profile_s = llm_profile_linear_s(shape, table.data(), 4096);
        const double peak_s = 2 * 6.74e9 * 4096 / 989e12;
        EXPECT_GT(profile_s, peak_s);
        EXPECT_LT(profile_s, 2.5 * peak_s) << profile_s << " s against " << peak_s;
        std::printf("Vidur H100 linear time at 4096 tokens %.5f s; at dense BF16 peak %.5f s\n",
                    profile_s, peak_s);
      }
    }
  }
}

}  // namespace
}  // namespace gpucap::engine
