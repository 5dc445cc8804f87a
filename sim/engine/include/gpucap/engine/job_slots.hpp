// gpucap engine: the jobs holding GPUs (provisioning or running), one slot each, and the free
// list of slots. There are total_quota_gpus slots: a job holds at least one GPU.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

enum SlotState : uint16_t { kSlotFree = 0, kSlotProvisioning = 1, kSlotRunning = 2 };

/// A job holding GPUs.
struct JobSlot {  // 64 bytes: one cache line
  double arrival_s;
  double start_s;    ///< launch time while provisioning, then the time it began running
  double work_s;     ///< reference-GPU seconds still to do when this run began
  double restart_s;  ///< run prefix: fetching data + restoring (0 on a first run with local data)
  double speed;      ///< throughput of this run (the pool's speed over a slowdown draw)
  uint32_t pool;
  uint32_t gpus;
  uint32_t job_class;
  uint16_t state;            ///< SlotState
  uint16_t flags;            ///< JobFlags
  uint32_t preemptions;      ///< of this job so far
  uint32_t checkpoint_pool;  ///< where its last checkpoint was written; kNoCheckpoint: none

  GPUCAP_HD bool holds_gpus() const { return state == kSlotRunning || state == kSlotProvisioning; }
};
static_assert(sizeof(JobSlot) == 64, "JobSlot is meant to fill one cache line");

class JobSlots {
 public:
  static constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

  /// `slots` and `free_list` hold `capacity` entries each.
  GPUCAP_HD void bind(ArenaPtr<JobSlot> slots, ArenaPtr<uint32_t> free_list, uint32_t capacity) {
    slots_ = slots;
    free_ = free_list;
    capacity_ = capacity;
    for (uint32_t s = 0; s < capacity; ++s) {
      slots_[s].state = kSlotFree;
      free_[s] = capacity - 1 - s;  // taken from the back: slot 0 first
    }
    free_count_ = capacity;
  }

  GPUCAP_HD uint32_t capacity() const { return capacity_; }
  /// Jobs holding GPUs now.
  GPUCAP_HD uint32_t held() const { return capacity_ - free_count_; }
  GPUCAP_HD JobSlot& operator[](uint32_t s) { return slots_[s]; }
  GPUCAP_HD const JobSlot& operator[](uint32_t s) const { return slots_[s]; }

  /// A free slot. Precondition: a job's GPUs were found free, so a slot is.
  GPUCAP_HD GPUCAP_FORCEINLINE uint32_t acquire() {
    GPUCAP_INVARIANT(free_count_ > 0, "a job that fits in a pool finds a free slot");
    return free_[--free_count_];
  }
  GPUCAP_HD GPUCAP_FORCEINLINE void release(uint32_t s) {
    slots_[s].state = kSlotFree;
    free_[free_count_++] = s;
  }

  /// The job of pool p that launched last (ties: the highest slot); kNoSlot when none.
  GPUCAP_HD uint32_t newest_in_pool(uint32_t p) const {
    uint32_t newest = kNoSlot;
    for (uint32_t s = 0; s < capacity_; ++s) {
      const JobSlot& slot = slots_[s];
      if (!slot.holds_gpus() || slot.pool != p) continue;
      if (newest == kNoSlot || slot.start_s >= slots_[newest].start_s) newest = s;
    }
    return newest;
  }

 private:
  ArenaPtr<JobSlot> slots_ = nullptr;
  ArenaPtr<uint32_t> free_ = nullptr;
  uint32_t capacity_ = 0;
  uint32_t free_count_ = 0;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
