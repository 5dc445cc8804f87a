// gpucap: how long one iteration of an LLM serving replica takes (docs/llm-serving.md).
//
// A replica runs iterations: each batches the prefill tokens of some requests (a whole prompt or
// a chunk of it) and one decode token for every request that is generating. Its time is
//
//   overhead_s + linear(T) + attention + tensor-parallel all-reduces
//
// where T is the tokens of the iteration (prefill and decode together) and:
// - roofline form (no profile): linear and attention together take the larger of their FLOPs over
//   the replica's effective FLOP/s and their bytes over its effective memory bandwidth:
//     FLOPs = 2 x parameters x T  +  4 x layers x hidden x (attended positions)
//     bytes = weights (read once an iteration)  +  KV-cache bytes read and written
//   A decode token at position n+1 (n tokens already in the cache) attends to n + 1 positions and
//   reads n tokens' KV; a prefill chunk of c tokens starting after s cached tokens attends to
//   c x s + c (c + 1) / 2 positions and reads and writes s + c tokens' KV.
// - profile form: linear(T) is the profile's time at T tokens (piecewise linear between its
//   rows, exact at them; beyond the last row along the last segment's slope), and attention
//   alone takes the roofline's max(attention FLOPs / FLOP/s, KV bytes / bandwidth).
// With tensor_parallel g > 1, every layer all-reduces its activations twice (T x hidden x
// bytes per value each) over the replica's interconnect, a ring: 2 (g - 1) / g of the bytes each.
//
// Units: seconds, bytes, FLOPs, tokens. The same arithmetic on every backend (no FMA
// contraction; additions in a fixed order), so CPU and GPU iterations take the same bits.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap {

/// A replica's model and hardware, as the iteration time needs them (compiled from the model's
/// shape, the GPU's row and the service's efficiency factors; llm_catalog.hpp builds it).
struct LlmShape {
  double linear_flops_per_token = 0;     ///< 2 x parameters
  double attention_flops_per_position = 0;  ///< 4 x layers x hidden
  double weight_bytes = 0;               ///< parameters x bytes per value (all shards)
  double kv_bytes_per_token = 0;         ///< 2 x layers x KV heads x head size x bytes per value
  double flops_per_s = 0;                ///< GPUs x peak FLOP/s x FLOP efficiency
  double bytes_per_s = 0;                ///< GPUs x memory bandwidth x bandwidth efficiency
  double overhead_s = 0;                 ///< fixed time of every iteration (scheduling, launch)
  /// Tensor-parallel all-reduce: seconds per token (0 with one GPU): layers x 2 x hidden x bytes
  /// per value x 2 (g - 1) / g / interconnect bytes per s.
  double allreduce_s_per_token = 0;
  /// Profile form: `profile_rows` rows at table[profile_offset, + 2 x rows): tokens ascending,
  /// then seconds, interleaved (tokens_0, s_0, tokens_1, s_1, ...); 0 rows: roofline form.
  uint32_t profile_rows = 0;
  uint32_t profile_offset = 0;
};

/// How a replica batches (the service's `llm` keys).
struct LlmScheduling {
  uint32_t max_sequences = 256;
  uint32_t max_batched_tokens = 8192;
  uint32_t block_tokens = 16;
  uint32_t kv_blocks = 0;  ///< the replica's KV cache, in blocks
  uint32_t chunked_prefill = 1;
  uint32_t unused_ = 0;
};

/// What an iteration computes.
struct LlmIterationLoad {
  double tokens = 0;             ///< prefill and decode tokens of the batch (T)
  double attended_positions = 0;  ///< sum over its tokens of the positions each attends to
  double kv_tokens_moved = 0;     ///< KV-cache tokens read or written
};

/// The linear layers' time at T tokens from a profile (piecewise linear; exact at its rows).
GPUCAP_HD inline double llm_profile_linear_s(const LlmShape& s, const double* table, double tokens) {
  const double* rows = table + s.profile_offset;
  const uint32_t n = s.profile_rows;
  // One row, or below the first: proportional to the tokens (exact at the row).
  if (n == 1 || tokens <= rows[0]) return tokens == rows[0] ? rows[1] : rows[1] * (tokens / rows[0]);
  uint32_t k = 1;
  while (k + 1 < n && rows[2 * k] < tokens) ++k;
  const double t0 = rows[2 * (k - 1)], s0 = rows[2 * (k - 1) + 1];
  const double t1 = rows[2 * k], s1 = rows[2 * k + 1];
  if (tokens == t1) return s1;
  return s0 + (s1 - s0) * ((tokens - t0) / (t1 - t0));
}

/// Seconds one iteration of `load` takes on a replica of shape `s` (table: the model's table,
/// which holds a profile's rows).
GPUCAP_HD inline double llm_iteration_s(const LlmShape& s, const double* table,
                                        const LlmIterationLoad& load) {
  const double attention_flops = s.attention_flops_per_position * load.attended_positions;
  const double kv_bytes = s.kv_bytes_per_token * load.kv_tokens_moved;
  double compute_s;
  if (s.profile_rows == 0) {
    const double flops = s.linear_flops_per_token * load.tokens + attention_flops;
    const double bytes = s.weight_bytes + kv_bytes;
    const double by_flops = flops / s.flops_per_s;
    const double by_bytes = bytes / s.bytes_per_s;
    compute_s = by_flops > by_bytes ? by_flops : by_bytes;
  } else {
    const double by_flops = attention_flops / s.flops_per_s;
    const double by_bytes = kv_bytes / s.bytes_per_s;
    compute_s = llm_profile_linear_s(s, table, load.tokens) + (by_flops > by_bytes ? by_flops : by_bytes);
  }
  return s.overhead_s + compute_s + s.allreduce_s_per_token * load.tokens;
}

/// Positions attended by a prefill chunk of c tokens after s cached ones: c s + c (c + 1) / 2.
GPUCAP_HD inline double llm_chunk_positions(double cached, double chunk) {
  return chunk * cached + chunk * (chunk + 1) * 0.5;
}

}  // namespace gpucap
