// LLM serving's continuous batching (gpucap/engine/llm_batch.hpp) and iteration time
// (gpucap/llm_iteration.hpp), worked by hand: two requests sharing iterations, chunked prefill,
// a KV-cache preemption and its recompute, prefill-only iterations without chunking, a reclaim,
// and the roofline's and a profile's times.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpucap/engine/llm_batch.hpp"
#include "gpucap/llm_catalog.hpp"
#include "gpucap/llm_iteration.hpp"

namespace gpucap::engine {
namespace {

struct Event {
  std::string what;  // "first", "done", "preempted", "evicted", "dropped"
  uint32_t context;
  uint32_t generated;
  double t;
  uint32_t lost;
};

struct RecordingSink {
  std::vector<Event> events;
  void first_token(const LlmRequest& s, double t) { events.push_back({"first", s.context, s.generated, t, 0}); }
  void done(const LlmRequest& s, double t) { events.push_back({"done", s.context, s.generated, t, 0}); }
  void preempted(const LlmRequest& s, uint32_t lost) {
    events.push_back({"preempted", s.context, s.generated, -1, lost});
  }
  void evicted(const LlmRequest& s, uint32_t lost) {
    events.push_back({"evicted", s.context, s.generated, -1, lost});
  }
  void dropped(const LlmRequest& s) { events.push_back({"dropped", s.context, s.generated, -1, 0}); }
};

LlmRequest request(uint32_t context, uint32_t output, double arrival = 0) {
  return LlmRequest{arrival, -1, context, output, 0, 0, 0, 0, 0, 0};
}

/// One replica and its queue over vectors.
struct Rig {
  std::vector<LlmRequest> seq_storage, queue_storage;
  LlmReplica replica;
  LlmQueue queue;
  LlmScheduling sched;
  RecordingSink sink;
  std::vector<LlmIterationLoad> loads;

  explicit Rig(const LlmScheduling& s, uint32_t queue_capacity = 64)
      : seq_storage(s.max_sequences), queue_storage(queue_capacity), sched(s) {
    replica.seqs = ArenaPtr<LlmRequest>::contiguous(seq_storage.data());
    queue.entries = ArenaPtr<LlmRequest>::contiguous(queue_storage.data());
    queue.capacity = queue_capacity;
  }
  /// Runs iterations of 1 s each until nothing is left; returns how many ran.
  int run(int most = 1000) {
    int n = 0;
    double t = 0;
    for (; n < most; ++n) {
      const LlmIterationLoad load = LlmBatch::plan(replica, queue, sched, sink);
      if (load.tokens == 0) break;
      loads.push_back(load);
      t += 1;
      LlmBatch::finish(replica, t, sink);
    }
    return n;
  }
};

LlmScheduling scheduling(uint32_t seqs, uint32_t budget, uint32_t block, uint32_t blocks,
                         bool chunked = true) {
  LlmScheduling s;
  s.max_sequences = seqs;
  s.max_batched_tokens = budget;
  s.block_tokens = block;
  s.kv_blocks = blocks;
  s.chunked_prefill = chunked ? 1 : 0;
  return s;
}

TEST(LlmBatch, TwoRequestsShareTheirIterations) {
  Rig rig(scheduling(8, 100, 16, 100));
  rig.queue.push_back(request(30, 3));
  rig.queue.push_back(request(50, 2));
  EXPECT_EQ(rig.run(), 3);
  // 1: both prompts (30 + 50 tokens); 2: a decode each; 3: A's last decode.
  ASSERT_EQ(rig.loads.size(), 3u);
  EXPECT_EQ(rig.loads[0].tokens, 80);
  EXPECT_EQ(rig.loads[0].attended_positions, 30 * 31 / 2 + 50 * 51 / 2);
  EXPECT_EQ(rig.loads[0].kv_tokens_moved, 80);
  EXPECT_EQ(rig.loads[1].tokens, 2);
  EXPECT_EQ(rig.loads[1].attended_positions, 31 + 51);  // token 31 of A, token 51 of B
  EXPECT_EQ(rig.loads[1].kv_tokens_moved, 31 + 51);
  EXPECT_EQ(rig.loads[2].tokens, 1);
  EXPECT_EQ(rig.loads[2].attended_positions, 32);
  const std::vector<std::string> order = {"first", "first", "done", "done"};
  ASSERT_EQ(rig.sink.events.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(rig.sink.events[i].what, order[i]) << i;
  EXPECT_EQ(rig.sink.events[0].t, 1);  // both first tokens at the end of the prefill
  EXPECT_EQ(rig.sink.events[1].t, 1);
  EXPECT_EQ(rig.sink.events[2].context, 50u);  // B (2 tokens) ends at 2, A (3 tokens) at 3
  EXPECT_EQ(rig.sink.events[2].t, 2);
  EXPECT_EQ(rig.sink.events[3].t, 3);
  EXPECT_EQ(rig.replica.kv_blocks_used, 0u);
}

TEST(LlmBatch, ChunkedPrefillSplitsALongPromptAndAdmitsBehindIt) {
  Rig rig(scheduling(8, 40, 16, 100));
  rig.queue.push_back(request(100, 2));
  rig.queue.push_back(request(10, 1));
  EXPECT_EQ(rig.run(), 4);
  // 40 + 40 of A; then A's last 20 and B's whole 10 (budget 40); then A's decode.
  ASSERT_EQ(rig.loads.size(), 4u);
  EXPECT_EQ(rig.loads[0].tokens, 40);
  EXPECT_EQ(rig.loads[1].tokens, 40);
  EXPECT_EQ(rig.loads[1].attended_positions, 40 * 40 + 40 * 41 / 2);  // chunk after 40 cached
  EXPECT_EQ(rig.loads[1].kv_tokens_moved, 80);
  EXPECT_EQ(rig.loads[2].tokens, 30);
  EXPECT_EQ(rig.loads[3].tokens, 1);
  // A's first token at 3 (its prefill ends), B's (its only one) at 3; A ends at 4.
  ASSERT_EQ(rig.sink.events.size(), 4u);
  EXPECT_EQ(rig.sink.events[0].what, "first");
  EXPECT_EQ(rig.sink.events[0].t, 3);
  EXPECT_EQ(rig.sink.events[2].what, "done");
  EXPECT_EQ(rig.sink.events[2].context, 10u);
  EXPECT_EQ(rig.sink.events[3].t, 4);
}

TEST(LlmBatch, AFullKvCachePreemptsTheLatestAdmittedWhichRecomputes) {
  // Blocks of 4 tokens, 6 blocks: two 8-token prompts take 2 blocks each at admission; each
  // decode that crosses a block boundary takes one more.
  Rig rig(scheduling(8, 100, 4, 6));
  rig.queue.push_back(request(8, 10));
  rig.queue.push_back(request(8, 10));
  const int iterations = rig.run();
  // A: prefill (1) and 9 decodes (2-10), ends at 10. B: runs with A until the 6th iteration needs
  // a 4th block for A with none free: B (5 tokens generated, 12 computed) is preempted; it waits
  // (13 tokens need 4 blocks, 2 free) until A ends, recomputes 13 tokens at 11, emitting its 6th
  // token, and decodes its last 4 at 12-15.
  EXPECT_EQ(iterations, 15);
  std::vector<std::string> what;
  for (const auto& e : rig.sink.events) what.push_back(e.what);
  const std::vector<std::string> expected = {"first", "first", "preempted", "done", "done"};
  EXPECT_EQ(what, expected);
  const Event& p = rig.sink.events[2];
  EXPECT_EQ(p.generated, 5u);
  EXPECT_EQ(p.lost, 12u);
  EXPECT_EQ(rig.sink.events[3].t, 10);
  EXPECT_EQ(rig.sink.events[4].t, 15);
  EXPECT_EQ(rig.loads[10].tokens, 13);  // B's recompute: its prompt and 5 generated tokens
  EXPECT_EQ(rig.replica.kv_blocks_used, 0u);
  EXPECT_EQ(rig.queue.size, 0u);
}

TEST(LlmBatch, WithoutChunkingPrefillsRunAloneThenDecode) {
  Rig rig(scheduling(8, 100, 16, 100, false));
  rig.queue.push_back(request(60, 3));
  rig.queue.push_back(request(60, 2));  // 120 > 100: not in the first prefill iteration
  EXPECT_EQ(rig.run(), 4);
  // 1: A's prompt; 2: B's prompt (prefill-only, A waits); 3: both decode; 4: A decodes.
  ASSERT_EQ(rig.loads.size(), 4u);
  EXPECT_EQ(rig.loads[0].tokens, 60);
  EXPECT_EQ(rig.loads[1].tokens, 60);
  EXPECT_EQ(rig.loads[2].tokens, 2);
  EXPECT_EQ(rig.loads[3].tokens, 1);
}

TEST(LlmBatch, APromptLongerThanTheBudgetRunsAloneWithoutChunking) {
  Rig rig(scheduling(8, 100, 16, 100, false));
  rig.queue.push_back(request(300, 1));
  EXPECT_EQ(rig.run(), 1);
  EXPECT_EQ(rig.loads[0].tokens, 300);
}

TEST(LlmBatch, MaxSequencesCapsTheBatch) {
  Rig rig(scheduling(2, 1000, 16, 1000));
  for (int i = 0; i < 3; ++i) rig.queue.push_back(request(10, 2));
  rig.run();
  EXPECT_EQ(rig.loads[0].tokens, 20);  // two admitted; the third waits for a sequence
  EXPECT_EQ(rig.loads[1].tokens, 2);
  EXPECT_EQ(rig.loads[2].tokens, 10);
}

TEST(LlmBatch, AReclaimRequeuesTheRunningInAdmissionOrderAtTheFront) {
  Rig rig(scheduling(8, 100, 16, 100));
  rig.queue.push_back(request(20, 5));
  rig.queue.push_back(request(30, 5));
  LlmBatch::plan(rig.replica, rig.queue, rig.sched, rig.sink);
  LlmBatch::finish(rig.replica, 1, rig.sink);
  rig.queue.push_back(request(40, 1));
  EXPECT_EQ(LlmBatch::evict_all(rig.replica, rig.queue, rig.sink), 2u);
  ASSERT_EQ(rig.queue.size, 3u);
  EXPECT_EQ(rig.queue.at(0).context, 20u);
  EXPECT_EQ(rig.queue.at(1).context, 30u);
  EXPECT_EQ(rig.queue.at(2).context, 40u);
  EXPECT_EQ(rig.queue.at(0).generated, 1u);  // it keeps its tokens and first-token time
  EXPECT_EQ(rig.queue.at(0).first_token_s, 1);
  EXPECT_EQ(rig.replica.running, 0u);
  EXPECT_EQ(rig.replica.kv_blocks_used, 0u);
}

TEST(LlmBatch, ARequestTooLongForTheCacheDoesNotFit) {
  const LlmScheduling s = scheduling(8, 100, 16, 4);  // 64 tokens
  EXPECT_TRUE(LlmBatch::fits(s, request(60, 5)));     // 64 tokens at most
  EXPECT_FALSE(LlmBatch::fits(s, request(60, 6)));
}

TEST(LlmIteration, TheRooflineTakesTheSlowerOfComputeAndMemory) {
  LlmShape s;
  s.linear_flops_per_token = 2e9;
  s.attention_flops_per_position = 1e6;
  s.weight_bytes = 1e9;
  s.kv_bytes_per_token = 1e5;
  s.flops_per_s = 1e12;
  s.bytes_per_s = 1e11;
  s.overhead_s = 0.001;
  // Decode of one token at 100 cached: memory-bound, (1e9 + 101e5) / 1e11 s.
  LlmIterationLoad decode{1, 101, 101};
  EXPECT_DOUBLE_EQ(llm_iteration_s(s, nullptr, decode), 0.001 + (1e9 + 101e5) / 1e11);
  // A 1,000-token prefill: compute-bound, (2e12 + 1e6 x 500,500) / 1e12 s.
  LlmIterationLoad prefill{1000, llm_chunk_positions(0, 1000), 1000};
  EXPECT_EQ(prefill.attended_positions, 500500);
  EXPECT_DOUBLE_EQ(llm_iteration_s(s, nullptr, prefill), 0.001 + (2e12 + 1e6 * 500500) / 1e12);
  s.allreduce_s_per_token = 1e-6;
  EXPECT_DOUBLE_EQ(llm_iteration_s(s, nullptr, prefill),
                   0.001 + (2e12 + 1e6 * 500500) / 1e12 + 1e-3);
}

TEST(LlmIteration, AProfileIsExactAtItsRowsAndLinearBetween) {
  const std::vector<double> table = {5, 1, 2, 0.010, 4, 0.012, 8, 0.020};  // offset 2: 3 rows
  LlmShape s;
  s.profile_offset = 2;
  s.profile_rows = 3;
  s.flops_per_s = 1e12;
  s.bytes_per_s = 1e12;
  EXPECT_EQ(llm_profile_linear_s(s, table.data(), 2), 0.010);
  EXPECT_EQ(llm_profile_linear_s(s, table.data(), 4), 0.012);
  EXPECT_EQ(llm_profile_linear_s(s, table.data(), 8), 0.020);
  EXPECT_DOUBLE_EQ(llm_profile_linear_s(s, table.data(), 6), 0.016);
  EXPECT_DOUBLE_EQ(llm_profile_linear_s(s, table.data(), 1), 0.005);   // toward 0 tokens
  EXPECT_DOUBLE_EQ(llm_profile_linear_s(s, table.data(), 12), 0.028);  // the last slope on
  // The iteration adds attention's roofline and the overhead.
  s.overhead_s = 0.001;
  s.kv_bytes_per_token = 1e6;
  EXPECT_DOUBLE_EQ(llm_iteration_s(s, table.data(), LlmIterationLoad{4, 0, 1000}),
                   0.001 + 0.012 + 1e9 / 1e12);
}

TEST(LlmCatalog, ShapesOfTheShippedModelsAndGpus) {
  const auto models = read_llm_models(std::string(GPUCAP_SOURCE_DIR) + "/data/llm_models.csv");
  const auto gpus = read_gpu_specs(std::string(GPUCAP_SOURCE_DIR) + "/data/gpu_specs.csv");
  const LlmModelShape* llama = nullptr;
  for (const auto& m : models)
    if (m.name == "llama-2-7b") llama = &m;
  ASSERT_NE(llama, nullptr);
  // 2 x 32 layers x 32 KV heads x 128 x 2 bytes = 512 KiB a token.
  EXPECT_EQ(llama->kv_bytes_per_token(), 524288);
  const GpuSpec* h100 = nullptr;
  for (const auto& g : gpus)
    if (g.gpu == "H100") h100 = &g;
  ASSERT_NE(h100, nullptr);
  LlmEfficiency e;
  const LlmShape s = llm_shape(*llama, *h100, 1, e);
  EXPECT_DOUBLE_EQ(s.weight_bytes, 13.48e9);
  EXPECT_DOUBLE_EQ(s.bytes_per_s, 3.35e12 * 0.8);
  EXPECT_EQ(s.allreduce_s_per_token, 0);
  // (80 x 0.9 - 1) GB - 13.48 GB of weights, in 512 KiB tokens: 109,720 tokens.
  EXPECT_NEAR(llm_kv_cache_tokens(*llama, 80, 1, e), (71e9 - 13.48e9) / 524288, 1e-6);
  // Llama 2 70B does not fit one A100 of 40 GB.
  for (const auto& m : models) {
    if (m.name == "llama-2-70b") {
      EXPECT_LT(llm_kv_cache_tokens(m, 40, 1, e), 0);
    }
  }
  // Tensor parallel: 2 all-reduces a layer of hidden x 2 bytes, ring 2 (g-1)/g.
  const LlmShape s2 = llm_shape(*llama, *h100, 2, e);
  EXPECT_DOUBLE_EQ(s2.allreduce_s_per_token, 32 * 2.0 * 4096 * 2 * 1.0 / (450e9 * 0.7));
  EXPECT_DOUBLE_EQ(s2.flops_per_s, 2 * 989e12 * 0.5);
}

}  // namespace
}  // namespace gpucap::engine
