// gpucap engine: the replay of an arrival trace: as logged, from a later start, thinned, or
// resampled by a block bootstrap and superposed (scale_rate above 1).
//
// A class's trace is replayed by one or more layers (CompiledArrivals::layer_count). A layer
// walks the trace's rows (sorted by submit time) and maps each to a target time of the
// replication:
//  - resample none: target = submit - trace_start_s; one pass, rows before the start skipped.
//  - moving / stationary (a circular block bootstrap): target time is cut into blocks, of length
//    block_s (moving) or drawn from an exponential distribution of mean block_s (stationary,
//    Politis and Romano 1994). A block [b, b + L) replays the trace from source time
//    s = (b mod phase_s) + k phase_s, k uniform in {0, ..., phases - 1}: the same time of day
//    (phase 1 d) or of the week (7 d) as the target. The trace is a loop of period_s: a block
//    that runs past its end continues from its start.
// A layer other than the last keeps every job; the last keeps each with last_layer_keep. Each
// layer draws its blocks and its thinning from two streams of its own (StreamKind::
// trace_blocks + layer, trace_thinning + layer), so layer 0 replays the same blocks whether
// scale_rate is 0.75, 1 or 1.5 (common random numbers across a sweep of it); a trace replayed
// as logged draws nothing, and no other random draw of the scenario changes.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// One layer's position in its trace, and its random streams.
struct TraceLayer {
  double offset_s;        ///< source time - target time in the current block (before wraps)
  double block_end_s;     ///< target time where the current block ends (+inf: no resampling)
  double next_s;          ///< target time of the layer's next job; +inf: none before the horizon
  uint32_t next_row;      ///< that job's row, from the class's trace_offset
  uint32_t cursor;        ///< the next row to look at
  RandomStream blocks;    ///< where and how long each block is
  RandomStream thinning;  ///< which jobs the last layer keeps
};

struct TraceReplay {
  static constexpr double kNever = __builtin_huge_val();

  static constexpr uint32_t kMaxLayers = 16;  ///< scale_rate <= 16
  static_assert(static_cast<uint32_t>(StreamKind::trace_blocks) + kMaxLayers <=
                    static_cast<uint32_t>(StreamKind::trace_thinning),
                "the layers' block streams and thinning streams do not overlap");

  /// Places each layer of job class c's arrivals `a` before its first job and finds that job.
  GPUCAP_HD static void start(const CompiledModel& m, const CompiledArrivals& a,
                              ArenaPtr<TraceLayer> layers, uint64_t seed, uint64_t replication,
                              uint32_t c) {
    for (uint32_t l = 0; l < a.layer_count; ++l) {
      TraceLayer& layer = layers[l];
      const uint32_t blocks = static_cast<uint32_t>(StreamKind::trace_blocks) + l;
      const uint32_t thinning = static_cast<uint32_t>(StreamKind::trace_thinning) + l;
      layer.blocks =
          RandomStream::make(seed, replication, stream_id(static_cast<StreamKind>(blocks), c));
      layer.thinning =
          RandomStream::make(seed, replication, stream_id(static_cast<StreamKind>(thinning), c));
      layer.next_s = kNever;
      layer.next_row = 0;
      if (a.resample == TraceResample::none) {
        layer.offset_s = a.trace_start_s;
        layer.block_end_s = kNever;
        layer.cursor = first_row_at(m, a, a.trace_start_s);
      } else {
        layer.offset_s = 0;
        layer.block_end_s = 0;  // a block starts at t = 0
        layer.cursor = 0;
      }
      advance(m, a, layer, l + 1 == a.layer_count);
    }
  }

  /// Moves `layer` to its next kept job (next_s, next_row), or next_s = +inf when it has none
  /// at or before the horizon.
  GPUCAP_HD static void advance(const CompiledModel& m, const CompiledArrivals& a,
                                TraceLayer& layer, bool thinned) {
    const double* submit = m.trace_submit_s + a.trace_offset;
    const bool keep_all = !thinned || a.last_layer_keep >= 1.0;
    for (;;) {
      if (layer.cursor == a.trace_count) {
        if (a.resample == TraceResample::none) break;  // the trace is over
        layer.cursor = 0;  // the loop continues from its start, one period later
        layer.offset_s -= a.period_s;
      }
      const double t = submit[layer.cursor] - layer.offset_s;
      if (t >= layer.block_end_s) {  // resampling: the block is over, draw the next one
        const double begin = layer.block_end_s;
        if (begin > m.horizon_s) break;
        const double length = a.resample == TraceResample::moving
                                  ? a.block_s
                                  : a.block_s * sample_standard_exponential(layer.blocks);
        const uint32_t k = static_cast<uint32_t>(
            (static_cast<uint64_t>(layer.blocks.next_u32()) * a.phases) >> 32);
        const double source = __builtin_fmod(begin, a.phase_s) + k * a.phase_s;
        layer.offset_s = source - begin;
        layer.block_end_s = begin + (length > 0 ? length : 0);
        layer.cursor = first_row_at(m, a, source);
        continue;
      }
      if (t > m.horizon_s) break;
      const uint32_t row = layer.cursor++;
      if (!keep_all && !(layer.thinning.next_uniform() < a.last_layer_keep)) continue;
      layer.next_s = t;
      layer.next_row = row;
      return;
    }
    layer.next_s = kNever;
  }

  /// The layer whose next job comes first (the lowest index among equal times).
  GPUCAP_HD static uint32_t earliest(ArenaPtr<TraceLayer> layers, uint32_t count) {
    uint32_t best = 0;
    for (uint32_t l = 1; l < count; ++l)
      if (layers[l].next_s < layers[best].next_s) best = l;
    return best;
  }

 private:
  /// The first row submitted at or after source time `s` (trace_count when none): binary search.
  GPUCAP_HD static uint32_t first_row_at(const CompiledModel& m, const CompiledArrivals& a,
                                         double s) {
    const double* submit = m.trace_submit_s + a.trace_offset;
    uint32_t lo = 0, hi = a.trace_count;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (submit[mid] < s)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
