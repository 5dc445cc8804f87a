// gpucap: Philox-4x32-10 counter-based random streams (Salmon et al., SC'11).
//
// A stream is keyed by (seed, replication, stream id): the numbers a replication draws depend on
// those three values alone, never on the thread, batch or backend that runs it. Draws within a
// stream are numbered by a 32-bit block counter (4 x 32-bit words per block), so one stream holds
// 2^34 words before it would wrap.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap {

/// One Philox-4x32-10 block: 4 words of counter in, 4 words of output, under a 2-word key.
struct PhiloxBlock {
  uint32_t v[4];
};

GPUCAP_HD GPUCAP_FORCEINLINE PhiloxBlock philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2,
                                                       uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return PhiloxBlock{{c0, c1, c2, c3}};
}

/// A random stream: Philox keyed by the seed, counter = (block, stream id, replication lo, hi).
/// Plain data (44 bytes), copyable, no allocation. Draw with next_u32 / next_uniform.
struct RandomStream {
  uint32_t key[2];
  uint32_t stream_id;
  uint32_t replication[2];
  uint32_t block;      ///< next block to generate
  uint32_t buffer[4];  ///< words of the current block
  uint32_t used;       ///< words of buffer consumed (4 = empty)

  GPUCAP_HD static RandomStream make(uint64_t seed, uint64_t replication_index, uint32_t stream) {
    RandomStream s{};
    s.key[0] = static_cast<uint32_t>(seed);
    s.key[1] = static_cast<uint32_t>(seed >> 32);
    s.stream_id = stream;
    s.replication[0] = static_cast<uint32_t>(replication_index);
    s.replication[1] = static_cast<uint32_t>(replication_index >> 32);
    s.block = 0;
    s.used = 4;
    return s;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE uint32_t next_u32() {
    if (used == 4) {
      const PhiloxBlock b =
          philox4x32_10(block, stream_id, replication[0], replication[1], key[0], key[1]);
      ++block;
      buffer[0] = b.v[0];
      buffer[1] = b.v[1];
      buffer[2] = b.v[2];
      buffer[3] = b.v[3];
      used = 0;
    }
    return buffer[used++];
  }

  /// Two words as one 64-bit value, high word first: the same as two next_u32() calls, with one
  /// buffer check when both words are in the current block (always, for paired draws).
  GPUCAP_HD GPUCAP_FORCEINLINE uint64_t next_u64() {
    if (used > 2) {
      const uint64_t hi = next_u32();
      return (hi << 32) | next_u32();
    }
    const uint64_t value = (static_cast<uint64_t>(buffer[used]) << 32) | buffer[used + 1];
    used += 2;
    return value;
  }

  /// Uniform double in the open interval (0, 1): (k + 1/2) / 2^52 for 52 random bits k. Every
  /// step is exact, so the result lies in [2^-53, 1 - 2^-53]: never 0 or 1, and its logarithm
  /// is always finite.
  GPUCAP_HD GPUCAP_FORCEINLINE double next_uniform() {
    const uint64_t bits52 = next_u64() >> 12;  // 0 .. 2^52 - 1
    return (static_cast<double>(bits52) + 0.5) * (1.0 / 4503599627370496.0);
  }
};

/// Stream ids: a kind in the upper 16 bits, an index (job class, pool) in the lower 16 bits.
/// Fixed per model element, so sweep variants of one replication share their random numbers.
enum class StreamKind : uint32_t {
  arrivals = 1,      ///< inter-arrival times of a job class
  job_size = 2,      ///< durations of a job class
  provisioning = 3,  ///< provisioning delays of a pool
  preemption = 4,    ///< times to preemption of a pool's instances
  availability = 5,  ///< where a pool's availability trace starts
  stockout = 6,      ///< whether a pool's launches fail
  slowdown = 7,      ///< run-time multipliers of a pool's instances (marketplaces)
  zone_events = 8,   ///< times of a pool's zone-wide preemption events
  price = 9,         ///< a pool's price process (start and steps)
  initial_state = 10,  ///< remaining lifetimes or work of the state at t = 0 (index 0)
  parameters = 11,     ///< a job class's parameter draws (uncertainty), once per replication
  bursts = 12,         ///< a job class's burst multipliers, one per interval
  /// A trace layer's blocks (16 + layer, layers 0 to 15; index: the job class), and its
  /// thinning (32 + layer): each layer has streams of its own, so that a layer draws the same
  /// blocks whatever the other layers or the thinning do (common random numbers across
  /// scale_rate values).
  trace_blocks = 16,
  trace_thinning = 32,
  test = 0xFFFF,     ///< reserved for tests
};

GPUCAP_HD inline uint32_t stream_id(StreamKind kind, uint32_t index) {
  return (static_cast<uint32_t>(kind) << 16) | (index & 0xFFFFu);
}

}  // namespace gpucap
