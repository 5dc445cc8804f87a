// gpucap engine: the arithmetic of one run of a job on an instance (wall-clock seconds).
//
// A run is: a prefix (fetching its data from another region, then, after a preemption,
// restoring), then cycles of checkpoint_interval_s computing each followed by a
// checkpoint_write_s write, with no write after the last piece of work. A checkpoint whose
// write ends exactly when the run is cut off is saved. Pure functions of the model and the
// slot: no state, no events.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/job_queue.hpp"
#include "gpucap/engine/job_slots.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Where a run stands some seconds into it: computing done, the part of it that completed
/// checkpoints saved, and time spent writing checkpoints (partial ones too).
struct RunProgress {
  double done_s, saved_s, writing_s;
};

class RunArithmetic {
 public:
  GPUCAP_HD explicit RunArithmetic(const CompiledModel& m) : m_(m) {}

  /// True when this run resumes from a checkpoint written in another region, which it must
  /// first copy over (time and egress).
  GPUCAP_HD GPUCAP_FORCEINLINE bool moves_checkpoint(const JobSlot& slot) const {
    return m_.has_checkpoint_moves && slot.preemptions > 0 &&
           slot.checkpoint_pool != kNoCheckpoint &&
           m_.classes[slot.job_class].checkpoint_size_gb > 0 &&
           m_.pool_link_s_per_gb[slot.checkpoint_pool * m_.pool_count + slot.pool] > 0;
  }

  /// Seconds a run of this slot's job in its pool spends fetching data from another region.
  GPUCAP_HD GPUCAP_FORCEINLINE double transfer_s(const JobSlot& slot) const {
    double seconds =
        m_.has_transfers ? m_.transfer_s[slot.job_class * m_.pool_count + slot.pool] : 0.0;
    if (moves_checkpoint(slot)) {
      const uint32_t link = slot.checkpoint_pool * m_.pool_count + slot.pool;
      seconds += m_.pool_link_latency_s[link] +
                 m_.classes[slot.job_class].checkpoint_size_gb * m_.pool_link_s_per_gb[link];
    }
    return seconds;
  }

  /// The run's prefix: fetching, then restoring after a preemption.
  GPUCAP_HD GPUCAP_FORCEINLINE double prefix_s(const JobSlot& slot) const {
    return transfer_s(slot) + (slot.preemptions > 0 ? m_.classes[slot.job_class].restart_s : 0.0);
  }

  /// Wall-clock seconds of computing the run needs.
  /// (At speed 1, the common case, the division is skipped: x / 1 is x, bit for bit.)
  GPUCAP_HD GPUCAP_FORCEINLINE double compute_s(const JobSlot& slot) const {
    return slot.speed == 1.0 ? slot.work_s : slot.work_s / slot.speed;
  }

  /// Periodic checkpoints a complete run writes.
  GPUCAP_HD GPUCAP_FORCEINLINE double checkpoints_needed(const JobSlot& slot) const {
    const double interval = m_.classes[slot.job_class].checkpoint_interval_s;
    if (interval <= 0) return 0.0;
    const double n = __builtin_ceil(compute_s(slot) / interval) - 1.0;
    return n > 0 ? n : 0.0;
  }

  /// Wall-clock length of the complete run: prefix, computing and checkpoint writes.
  GPUCAP_HD GPUCAP_FORCEINLINE double duration_s(const JobSlot& slot) const {
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    double duration = slot.restart_s + compute_s(slot);
    if (cls.checkpoint_interval_s > 0)
      duration += checkpoints_needed(slot) * cls.checkpoint_write_s;
    return duration;
  }

  /// Where the run stands `elapsed_s` after it began.
  GPUCAP_HD RunProgress progress_at(const JobSlot& slot, double elapsed_s) const {
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    const double total = compute_s(slot);
    const double t = elapsed_s - slot.restart_s;
    RunProgress p{0.0, 0.0, 0.0};
    if (t <= 0) return p;
    if (cls.checkpoint_interval_s <= 0) {
      p.done_s = t < total ? t : total;
      return p;
    }
    const double cycle = cls.checkpoint_interval_s + cls.checkpoint_write_s;
    const double cycles = __builtin_floor(t / cycle);
    const double in_cycle = t - cycles * cycle;
    const double computing =
        in_cycle < cls.checkpoint_interval_s ? in_cycle : cls.checkpoint_interval_s;
    p.done_s = cycles * cls.checkpoint_interval_s + computing;
    p.saved_s = cycles * cls.checkpoint_interval_s;
    p.writing_s = cycles * cls.checkpoint_write_s + (in_cycle - computing);
    if (p.done_s > total) p.done_s = total;
    if (p.saved_s > total) p.saved_s = total;
    return p;
  }

  /// The progress of a run cut off now, `elapsed_s` into it, on an instance that gives
  /// `notice_s` of warning: when the notice leaves time to write a checkpoint, the job stops at
  /// the notice and writes one (an emergency checkpoint).
  GPUCAP_HD RunProgress progress_when_reclaimed(const JobSlot& slot, double elapsed_s,
                                                double notice_s) const {
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    RunProgress progress = progress_at(slot, elapsed_s);
    const bool can_checkpoint = cls.checkpoint_interval_s > 0 || cls.checkpoint_write_s > 0;
    if (can_checkpoint && notice_s > 0 && notice_s >= cls.checkpoint_write_s) {
      const RunProgress at_notice = progress_at(slot, elapsed_s - notice_s);
      if (at_notice.done_s > progress.saved_s) {
        progress.saved_s = at_notice.done_s;
        progress.writing_s = at_notice.writing_s + cls.checkpoint_write_s;
      }
    }
    return progress;
  }

 private:
  const CompiledModel& m_;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
