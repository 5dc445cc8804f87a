// gpucap engine: continuous batching on one LLM serving replica (docs/llm-serving.md).
//
// A replica holds up to max_sequences running requests (in admission order) and a KV cache of
// kv_blocks blocks of block_tokens tokens. Between iterations it plans the next one (plan) and,
// when that iteration's time is over, applies it (finish). A request needs, before its next
// output token, the KV of its prompt and of every token it generated but the last:
//
//   target = context + generated        (tokens to have computed before token generated + 1)
//
// so a new request prefills its prompt (possibly in chunks), and the iteration that completes
// the prefill emits its first token; every later iteration computes one token (decode) and emits
// the next; a request ends when it has generated `output` tokens.
//
// Planning, with chunked prefill (vLLM's v1 scheduler, Sarathi-Serve): a budget of
// max_batched_tokens; first every running request that is decoding takes 1 token (in admission
// order), then running requests still prefilling take chunks of what is left, then requests at
// the head of the waiting queue are admitted while a sequence and a budget are left and the KV
// cache has free blocks for their whole prefill (their blocks are taken at admission), each
// taking a chunk of what is left. Without chunked prefill (vLLM's v0 default): when the head
// of the queue can be admitted, the iteration is prefill-only (whole prompts while their sum
// fits the budget; a prompt longer than the budget runs alone); otherwise it decodes every
// running request.
//
// The KV cache: a running request holds blocks for max(its prefill target at admission, the
// tokens computed); a decode step that crosses a block boundary takes a block. When none is free
// the most recently admitted running request is preempted (recompute, vLLM's default): its
// blocks are freed, its computed tokens dropped, and it goes back to the front of the waiting
// queue with what it generated; when readmitted it prefills context + generated tokens again.
// A preemption that would find the queue full drops the request instead.
//
// Units: seconds; tokens; KV blocks. The sink (a template parameter) hears each request's first
// token, its end, its preemptions and drops; the caller keeps the clock and the calendar.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/llm_iteration.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
using ::gpucap::LlmScheduling;  // llm_iteration.hpp
GPUCAP_ARENA_NAMESPACE_BEGIN

/// A request of an LLM service, waiting or running.
struct LlmRequest {
  double arrival_s;
  double first_token_s;  ///< < 0: no token yet
  uint32_t context;      ///< prompt tokens, >= 1
  uint32_t output;       ///< tokens to generate, >= 1
  uint32_t generated;    ///< output tokens emitted so far
  uint32_t computed;     ///< tokens whose KV is in the cache (0 while waiting)
  uint32_t step;         ///< tokens it computes in the iteration in flight
  uint32_t blocks;       ///< KV blocks it holds (0 while waiting)
  uint32_t cold;         ///< 1: it waited while a replica was starting (the fleet sets it)
  uint32_t preemptions;  ///< times it was preempted (and recomputed)
  double start_s = -1;   ///< its first iteration began (the fleet sets it); < 0: not yet

  GPUCAP_HD uint32_t target() const { return context + generated; }
};

/// A FIFO ring of waiting requests; a preempted request goes back to its front.
struct LlmQueue {
  ArenaPtr<LlmRequest> entries;
  uint32_t capacity = 0;
  uint32_t head = 0;
  uint32_t size = 0;

  GPUCAP_HD bool full() const { return size == capacity; }
  GPUCAP_HD LlmRequest& front() const { return entries[head]; }
  GPUCAP_HD LlmRequest& at(uint32_t i) const {
    uint32_t k = head + i;
    if (k >= capacity) k -= capacity;
    return entries[k];
  }
  GPUCAP_HD void push_back(const LlmRequest& r) {
    GPUCAP_INVARIANT(size < capacity, "room in the queue (caller)");
    ++size;
    at(size - 1) = r;
  }
  GPUCAP_HD void push_front(const LlmRequest& r) {
    GPUCAP_INVARIANT(size < capacity, "room in the queue (caller)");
    head = head == 0 ? capacity - 1 : head - 1;
    ++size;
    entries[head] = r;
  }
  GPUCAP_HD LlmRequest pop_front() {
    const LlmRequest r = entries[head];
    if (++head == capacity) head = 0;
    --size;
    return r;
  }
};

/// One replica's batch: its running requests are seqs[0, running), in admission order.
struct LlmReplica {
  ArenaPtr<LlmRequest> seqs;  ///< max_sequences entries
  uint32_t running = 0;
  uint32_t kv_blocks_used = 0;
};

struct LlmBatch {
  /// Whether request s can ever run on a replica of scheduling c: its longest prefill target
  /// (context + output - 1 tokens) fits the KV cache. One that does not is dropped on arrival.
  GPUCAP_HD static bool fits(const LlmScheduling& c, const LlmRequest& s) {
    return blocks_for(c, s.context + s.output - 1) <= c.kv_blocks;
  }

  /// Blocks that hold `tokens` tokens.
  GPUCAP_HD static uint32_t blocks_for(const LlmScheduling& c, uint32_t tokens) {
    return (tokens + c.block_tokens - 1) / c.block_tokens;
  }

  /// Plans replica r's next iteration from its running requests and the queue's head: sets each
  /// scheduled request's step and returns the iteration's load (tokens 0: nothing to run).
  template <typename Sink>
  GPUCAP_HD static LlmIterationLoad plan(LlmReplica& r, LlmQueue& q, const LlmScheduling& c,
                                         Sink& sink) {
    uint32_t budget = c.max_batched_tokens;
    if (!c.chunked_prefill) {
      if (plan_prefill_only(r, q, c, budget)) return sum_load(r);
      for (uint32_t i = 0; i < r.running; ++i) {
        if (!decode_block(r, q, c, i, sink)) break;  // i itself was preempted
        r.seqs[i].step = 1;
      }
      return sum_load(r);
    }
    // Decodes first, in admission order (a preemption removes the latest admitted).
    for (uint32_t i = 0; i < r.running && budget > 0; ++i) {
      LlmRequest& s = r.seqs[i];
      if (s.target() - s.computed != 1 || s.generated == 0) continue;  // still prefilling
      if (!decode_block(r, q, c, i, sink)) break;
      s.step = 1;
      --budget;
    }
    // Then chunks of prefills already running.
    for (uint32_t i = 0; i < r.running && budget > 0; ++i) {
      LlmRequest& s = r.seqs[i];
      if (s.step > 0 || (s.target() - s.computed == 1 && s.generated > 0)) continue;
      const uint32_t left = s.target() - s.computed;
      s.step = left < budget ? left : budget;
      budget -= s.step;
    }
    // Then admissions from the queue's head.
    while (budget > 0 && q.size > 0 && r.running < c.max_sequences) {
      const uint32_t need = blocks_for(c, q.front().target());
      if (need > c.kv_blocks - r.kv_blocks_used) break;
      LlmRequest& s = admit(r, q, need);
      const uint32_t left = s.target();
      s.step = left < budget ? left : budget;
      budget -= s.step;
    }
    return sum_load(r);
  }

  /// The iteration in flight ended at end_s: each scheduled request computed its step; those
  /// that reached their target emit a token (the sink hears first tokens and ends), and ended
  /// requests leave the batch (their blocks freed). Returns the tokens emitted.
  template <typename Sink>
  GPUCAP_HD static uint32_t finish(LlmReplica& r, double end_s, Sink& sink) {
    uint32_t emitted = 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r.running; ++i) {
      LlmRequest s = r.seqs[i];
      if (s.step > 0) {
        s.computed += s.step;
        s.step = 0;
        if (s.computed == s.target()) {
          ++s.generated;
          ++emitted;
          if (s.first_token_s < 0) {
            s.first_token_s = end_s;
            sink.first_token(s, end_s);
          }
          if (s.generated == s.output) {
            r.kv_blocks_used -= s.blocks;
            sink.done(s, end_s);
            continue;
          }
        }
      }
      r.seqs[kept++] = s;
    }
    r.running = kept;
    return emitted;
  }

  /// Takes every running request off replica r (its instance was reclaimed): each goes back to
  /// the front of the queue in admission order, its KV lost (or is dropped when the queue is
  /// full). Returns how many were requeued.
  template <typename Sink>
  GPUCAP_HD static uint32_t evict_all(LlmReplica& r, LlmQueue& q, Sink& sink) {
    uint32_t requeued = 0;
    for (uint32_t i = r.running; i-- > 0;) {
      LlmRequest s = r.seqs[i];
      const uint32_t lost = s.computed;
      s.computed = s.step = s.blocks = 0;
      if (q.full()) {
        sink.dropped(s);
        continue;
      }
      sink.evicted(s, lost);
      q.push_front(s);
      ++requeued;
    }
    r.running = 0;
    r.kv_blocks_used = 0;
    return requeued;
  }

 private:
  /// Moves the queue's head into the batch with `blocks` KV blocks; returns it.
  GPUCAP_HD static LlmRequest& admit(LlmReplica& r, LlmQueue& q, uint32_t blocks) {
    LlmRequest& s = r.seqs[r.running++];
    s = q.pop_front();
    s.computed = 0;
    s.step = 0;
    s.blocks = blocks;
    r.kv_blocks_used += blocks;
    return s;
  }

  /// Without chunked prefill: admits whole prompts from the queue's head while they fit the
  /// budget (the first one whatever its length), each scheduled in full. Returns true when it
  /// admitted one (the iteration is prefill-only).
  GPUCAP_HD static bool plan_prefill_only(LlmReplica& r, LlmQueue& q, const LlmScheduling& c,
                                          uint32_t budget) {
    bool any = false;
    while (q.size > 0 && r.running < c.max_sequences) {
      const uint32_t tokens = q.front().target();
      const uint32_t need = blocks_for(c, tokens);
      if (need > c.kv_blocks - r.kv_blocks_used) break;
      if (any && tokens > budget) break;
      LlmRequest& s = admit(r, q, need);
      s.step = tokens;
      budget = tokens < budget ? budget - tokens : 0;
      any = true;
    }
    return any;
  }

  /// Running request i is about to decode one token: takes a block when the token crosses a
  /// block boundary, preempting the latest admitted requests while none is free. Returns false
  /// when i itself was preempted (the loop over the batch stops: later requests are gone too).
  template <typename Sink>
  GPUCAP_HD static bool decode_block(LlmReplica& r, LlmQueue& q, const LlmScheduling& c,
                                     uint32_t i, Sink& sink) {
    LlmRequest& s = r.seqs[i];
    if (blocks_for(c, s.computed + 1) <= s.blocks) return true;
    while (r.kv_blocks_used == c.kv_blocks) {
      const uint32_t last = r.running - 1;
      preempt(r, q, last, sink);
      if (last == i) return false;
    }
    ++s.blocks;
    ++r.kv_blocks_used;
    return true;
  }

  /// Preempts running request j (the last of the batch): its blocks are freed and it goes back
  /// to the front of the queue to recompute (dropped when the queue is full).
  template <typename Sink>
  GPUCAP_HD static void preempt(LlmReplica& r, LlmQueue& q, uint32_t j, Sink& sink) {
    LlmRequest s = r.seqs[j];
    GPUCAP_INVARIANT(j + 1 == r.running, "the latest admitted is preempted");
    r.kv_blocks_used -= s.blocks;
    --r.running;
    const uint32_t lost = s.computed;
    s.computed = s.step = s.blocks = 0;
    ++s.preemptions;
    if (q.full()) {
      sink.dropped(s);
      return;
    }
    sink.preempted(s, lost);
    q.push_front(s);
  }

  /// The load of the scheduled steps: tokens, attended positions and KV tokens moved.
  GPUCAP_HD static LlmIterationLoad sum_load(const LlmReplica& r) {
    LlmIterationLoad load;
    for (uint32_t i = 0; i < r.running; ++i) {
      const LlmRequest& s = r.seqs[i];
      if (s.step == 0) continue;
      const double cached = s.computed, chunk = s.step;
      load.tokens += chunk;
      load.attended_positions += llm_chunk_positions(cached, chunk);
      load.kv_tokens_moved += cached + chunk;
    }
    return load;
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
