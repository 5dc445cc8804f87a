// llm_bench: the CPU time of the LLM serving core (gpucap/engine/llm_batch.hpp,
// gpucap/llm_iteration.hpp) on a real token trace: one replication of the shared Azure hour
// (../shared/data/llm, 8,818 requests) on a fleet of replicas behind a least-outstanding router,
// one thread. Issue 43's target for the whole engine: one replication of that hour on 8 replicas
// in under 50 ms on one core (docs/llm-serving.md, "Speed").
//
//   build/cpu-release/bench/llm_bench [--trace FILE] [--replicas 8] [--model llama-2-7b]
//       [--gpu H100] [--rate-scale 1] [--repeat 20]
//
// Prints the median and quartiles of the CPU time of one replication (the trace already in
// memory, as a compiled scenario holds it), and the replication's figures: TTFT and TPOT p50 and
// p99, output tokens per second, preemptions.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/csv_table.hpp"
#include "gpucap/data/timestamp.hpp"
#include "gpucap/engine/llm_batch.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/llm_catalog.hpp"
#include "gpucap/quantile_recorder.hpp"
#include "paired_measurement.hpp"

namespace {

using gpucap::LlmIterationLoad;
using gpucap::LlmShape;
using gpucap::engine::LlmBatch;
using gpucap::engine::LlmQueue;
using gpucap::engine::LlmReplica;
using gpucap::engine::LlmRequest;
using gpucap::engine::LlmScheduling;

struct Trace {
  std::vector<double> arrival_s;
  std::vector<uint32_t> context, output;
};

/// TIMESTAMP, ContextTokens, GeneratedTokens (Azure's LLM inference traces), arrivals in seconds
/// from the first, divided by rate_scale.
Trace read_trace(const std::string& path, double rate_scale) {
  const auto table = gpucap::CsvTable::parse(
      gpucap::read_input_file(path, gpucap::InputLimits::kDefaultDataBytes, "trace", "--max-data-size"),
      path);
  const auto stamps = table.strings("TIMESTAMP");
  const auto context = table.numbers("ContextTokens");
  const auto output = table.numbers("GeneratedTokens");
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t r = 0; r < stamps.size(); ++r) {
    int64_t ms = 0;
    if (gpucap::data::parse_timestamp(stamps[r], gpucap::data::TimeFormat::iso8601,
                                      gpucap::data::TimeZone{}, ms) != gpucap::data::TimeParse::ok)
      throw std::runtime_error(path + ":" + std::to_string(r + 2) + ": not a time: " + stamps[r]);
    order.emplace_back(ms, r);
  }
  std::sort(order.begin(), order.end());
  Trace t;
  for (const auto& [ms, r] : order) {
    if (!(context[r] >= 1) || !(output[r] >= 1)) continue;  // nothing to prefill or generate
    t.arrival_s.push_back((ms - order.front().first) / 1000.0 / rate_scale);
    t.context.push_back(static_cast<uint32_t>(context[r]));
    t.output.push_back(static_cast<uint32_t>(output[r]));
  }
  return t;
}

struct Figures {
  gpucap::QuantileRecorder ttft, tpot;
  double tokens = 0;
  uint64_t preemptions = 0, recomputed = 0, drops = 0;
  void first_token(const LlmRequest& s, double t) { ttft.add(t - s.arrival_s); }
  void done(const LlmRequest& s, double t) {
    tokens += s.output;
    if (s.output > 1) tpot.add((t - s.first_token_s) / (s.output - 1));
  }
  void preempted(const LlmRequest&, uint32_t lost) {
    ++preemptions;
    recomputed += lost;
  }
  void evicted(const LlmRequest&, uint32_t) {}
  void dropped(const LlmRequest&) { ++drops; }
};

/// One replication: the trace through `n` replicas; returns the end time.
double replicate(const Trace& t, const LlmShape& shape, const LlmScheduling& sched, uint32_t n,
                 std::vector<LlmRequest>& seq_storage, std::vector<LlmRequest>& queue_storage,
                 Figures& f) {
  std::vector<LlmReplica> reps(n);
  std::vector<LlmQueue> queues(n);
  std::vector<double> iteration_end(n, -1);
  const uint32_t per_queue = static_cast<uint32_t>(t.arrival_s.size());
  for (uint32_t k = 0; k < n; ++k) {
    reps[k].seqs = gpucap::ArenaPtr<LlmRequest>::contiguous(seq_storage.data() + k * sched.max_sequences);
    queues[k].entries = gpucap::ArenaPtr<LlmRequest>::contiguous(queue_storage.data() + size_t{k} * per_queue);
    queues[k].capacity = per_queue;
  }
  const auto start = [&](uint32_t k, double now) {
    const LlmIterationLoad load = LlmBatch::plan(reps[k], queues[k], sched, f);
    iteration_end[k] = load.tokens > 0 ? now + gpucap::llm_iteration_s(shape, nullptr, load) : -1;
  };
  size_t next = 0;
  double now = 0;
  for (;;) {
    uint32_t soonest = n;
    for (uint32_t k = 0; k < n; ++k)
      if (iteration_end[k] >= 0 && (soonest == n || iteration_end[k] < iteration_end[soonest])) soonest = k;
    if (next < t.arrival_s.size() && (soonest == n || t.arrival_s[next] <= iteration_end[soonest])) {
      now = t.arrival_s[next];
      const LlmRequest r{now, -1, t.context[next], t.output[next], 0, 0, 0, 0, 0, 0};
      ++next;
      // Least outstanding requests (running + queued), lowest index first.
      uint32_t best = 0;
      for (uint32_t k = 1; k < n; ++k)
        if (reps[k].running + queues[k].size < reps[best].running + queues[best].size) best = k;
      if (!LlmBatch::fits(sched, r)) {
        f.dropped(r);
        continue;
      }
      queues[best].push_back(r);
      if (iteration_end[best] < 0) start(best, now);
    } else if (soonest < n) {
      now = iteration_end[soonest];
      LlmBatch::finish(reps[soonest], now, f);
      start(soonest, now);
    } else {
      return now;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path = std::string(GPUCAP_SOURCE_DIR) + "/../shared/data/llm/azure_llm_inference_2023_code.csv";
  std::string model_name = "llama-2-7b", gpu_name = "H100";
  uint32_t replicas = 8, repeat = 20;
  double rate_scale = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "llm_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--trace") trace_path = value();
    else if (a == "--replicas") replicas = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--model") model_name = value();
    else if (a == "--gpu") gpu_name = value();
    else if (a == "--rate-scale") rate_scale = std::stod(value());
    else if (a == "--repeat") repeat = static_cast<uint32_t>(std::stoul(value()));
    else {
      std::fprintf(stderr,
                   "usage: llm_bench [--trace FILE] [--replicas N] [--model NAME] [--gpu NAME] "
                   "[--rate-scale X] [--repeat K]\n");
      return 2;
    }
  }
  try {
    if (replicas < 1 || repeat < 1 || !(rate_scale > 0)) throw std::runtime_error("replicas, repeat and rate-scale must be positive");
    const Trace trace = read_trace(trace_path, rate_scale);
    gpucap::LlmModelShape model;
    bool found = false;
    for (const auto& m : gpucap::read_llm_models(std::string(GPUCAP_SOURCE_DIR) + "/data/llm_models.csv"))
      if (m.name == model_name) model = m, found = true;
    gpucap::GpuSpec gpu;
    bool found_gpu = false;
    for (const auto& g : gpucap::read_gpu_specs(std::string(GPUCAP_SOURCE_DIR) + "/data/gpu_specs.csv"))
      if (g.gpu == gpu_name) gpu = g, found_gpu = true;
    if (!found || !found_gpu) throw std::runtime_error("no model " + model_name + " or GPU " + gpu_name);
    const gpucap::LlmEfficiency efficiency;
    const LlmShape shape = gpucap::llm_shape(model, gpu, 1, efficiency);
    LlmScheduling sched;
    sched.max_sequences = 256;
    sched.max_batched_tokens = 8192;
    sched.block_tokens = 16;
    sched.kv_blocks =
        gpucap::llm_kv_cache_blocks(model, gpu.memory_gb, 1, efficiency, sched.block_tokens);
    if (sched.kv_blocks == 0) throw std::runtime_error("the model does not fit the GPU");
    std::vector<LlmRequest> seq_storage(size_t{replicas} * sched.max_sequences);
    std::vector<LlmRequest> queue_storage(size_t{replicas} * trace.arrival_s.size());
    std::vector<double> cpu;
    Figures f;
    double end_s = 0;
    for (uint32_t k = 0; k < repeat; ++k) {
      f = Figures{};
      const double t0 = gpucap::bench::thread_cpu_seconds();
      end_s = replicate(trace, shape, sched, replicas, seq_storage, queue_storage, f);
      cpu.push_back(gpucap::bench::thread_cpu_seconds() - t0);
    }
    const double q[2] = {0.5, 0.99};
    double ttft[2], tpot[2];
    f.ttft.quantiles(q, 2, ttft);
    f.tpot.quantiles(q, 2, tpot);
    std::printf("llm_bench: %zu requests over %.0f s (rate x%g), %u replicas of %s on one %s, "
                "%u sequences, %u KV blocks of 16 tokens\n",
                trace.arrival_s.size(), trace.arrival_s.back(), rate_scale, replicas, model_name.c_str(),
                gpu_name.c_str(), sched.max_sequences, sched.kv_blocks);
    std::printf("  CPU time of one replication: median %.2f ms (quartiles %.2f to %.2f ms, %u runs)\n",
                1e3 * gpucap::bench::quantile(cpu, 0.5), 1e3 * gpucap::bench::quantile(cpu, 0.25),
                1e3 * gpucap::bench::quantile(cpu, 0.75),
                repeat);
    std::printf("  TTFT p50 %.3f s, p99 %.3f s; TPOT p50 %.4f s, p99 %.4f s; %.0f output tokens/s "
                "over %.0f s; %llu preemptions (%llu tokens recomputed); %llu dropped\n",
                ttft[0], ttft[1], tpot[0], tpot[1], f.tokens / end_s, end_s,
                static_cast<unsigned long long>(f.preemptions),
                static_cast<unsigned long long>(f.recomputed),
                static_cast<unsigned long long>(f.drops));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llm_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
