// gpucap engine: the jobs waiting for GPUs, sorted by the queue discipline's key and, among
// equal keys, by the order they joined (stable). Storage: a window [head, head + size) of an
// arena array of capacity + 1 entries, compacted when its end is reached or the head has moved
// further than the queue is long (amortized O(1) per job; the live entries stay in a few cache
// lines instead of sweeping the whole array).
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

constexpr uint32_t kNoCheckpoint = 0xFFFFFFFFu;

enum JobFlags : uint32_t {
  kLaunchedBefore = 1u,  ///< its queue wait was recorded at its first launch
  /// fallback.return_to_preemptible: its last run fell back to a pool that is not preemptible,
  /// so its next launch ignores fallback.after_preemptions (set and cleared when a run is
  /// reclaimed, only for classes with CompiledJobClass::fallback_returns).
  kReturnsToPreemptible = 2u,
  /// A deployment instance that served before its last reclaim: its next run that serves ends
  /// a restore (the queued job's arrival_s is then the time of that reclaim).
  kServedBefore = 4u,
  /// Running at t = 0 (CompiledModel::initial): its first launch runs at once, without
  /// provisioning (an instance also without startup). Never kept in a slot.
  kRunningAtStart = 8u,
};

/// A job waiting for GPUs (or between runs, after a preemption).
/// For a deployment instance, arrival_s is when it last stopped serving (its arrival, or the
/// reclaim of a run that served) and work_s the absolute time its lifetime ends.
struct QueuedJob {
  double arrival_s;
  double work_s;  ///< reference-GPU seconds still to do
  uint32_t job_class;
  uint32_t gpus;
  uint32_t preemptions;      ///< > 0: a job resubmitted after a preemption
  uint32_t flags;            ///< JobFlags
  uint32_t checkpoint_pool;  ///< where its last checkpoint was written; kNoCheckpoint: none
};

class JobQueue {
 public:
  GPUCAP_HD void bind(const CompiledModel& m, ArenaPtr<QueuedJob> storage) {
    m_ = &m;
    jobs_ = storage;
    head_ = 0;
    size_ = 0;
  }

  GPUCAP_HD uint32_t size() const { return size_; }
  GPUCAP_HD bool full() const { return size_ >= m_->queue_capacity; }
  /// The i-th job in queue order (0: the next to start). Precondition: i < size().
  GPUCAP_HD const QueuedJob& at(uint32_t i) const { return jobs_[head_ + i]; }

  /// True when `job` (a newcomer) would go before the queue's head: it may start at once.
  GPUCAP_HD GPUCAP_FORCEINLINE bool jumps_queue(const QueuedJob& job) const {
    return m_->discipline != QueueDiscipline::fifo && key_of(job) < key_of(at(0));
  }

  /// Adds `job` behind every job whose key is not larger. Precondition: !full(). Inlined into
  /// the event loop (GCC otherwise stops inlining it as the loop grows).
  GPUCAP_HD GPUCAP_FORCEINLINE void enqueue(const QueuedJob& job) {
    if (head_ + size_ >= m_->queue_capacity + 1 || (head_ >= 64 && head_ >= size_)) {
      for (uint32_t i = 0; i < size_; ++i) jobs_[i] = jobs_[head_ + i];
      head_ = 0;
    }
    uint32_t pos = head_ + size_;
    if (m_->discipline != QueueDiscipline::fifo) {  // FIFO: always at the back
      const double key = key_of(job);
      while (pos > head_ && key < key_of(jobs_[pos - 1])) {
        jobs_[pos] = jobs_[pos - 1];
        --pos;
      }
    }
    jobs_[pos] = job;
    ++size_;
  }

  /// Takes out the i-th job in queue order and returns it.
  GPUCAP_HD GPUCAP_FORCEINLINE QueuedJob take(uint32_t i) {
    const QueuedJob job = at(i);
    if (i == 0) {
      ++head_;
    } else {
      for (uint32_t k = head_ + i; k + 1 < head_ + size_; ++k) jobs_[k] = jobs_[k + 1];
    }
    --size_;
    if (size_ == 0) head_ = 0;
    return job;
  }

 private:
  /// Discipline key: smaller runs first; equal keys keep arrival order.
  GPUCAP_HD GPUCAP_FORCEINLINE double key_of(const QueuedJob& j) const {
    switch (m_->discipline) {
      case QueueDiscipline::priority:
        return -static_cast<double>(m_->classes[j.job_class].priority);
      case QueueDiscipline::shortest_job_first:
        return j.work_s;
      case QueueDiscipline::fifo:
      default:
        return 0.0;
    }
  }

  const CompiledModel* m_ = nullptr;
  ArenaPtr<QueuedJob> jobs_ = nullptr;
  uint32_t head_ = 0, size_ = 0;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
