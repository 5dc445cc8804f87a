// gpucap engine: JobRecorder, the host-only observer of a replication's jobs (the engine is a
// template on its observer; NoRecorder, in replication_engine.hpp, is the one of every run).
// It makes the per-job records of the scenario key `records.jobs` when a replication is
// simulated a second time after the run (gpucap/job_records.hpp).
//
// A job's id is its arrival order in the replication (services' requests are not jobs), and a
// job from a file (a trace, or the state at t = 0) keeps its data row there (SourceRows); it
// travels with the job through the queue in QueuedJob::flags above the JobFlags bits (only when
// recording) and, while it holds GPUs, in the recorder's slot table. The recorder only watches: it
// changes no state of the engine.
#pragma once
#include <cstdint>
#include <vector>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/job_record.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// The file row of each of a model's trace rows (by index into CompiledModel::trace_*) and of
/// each row of its state at t = 0 (by index into CompiledModel::initial); 0: not from a file.
struct SourceRows {
  std::vector<uint32_t> trace;
  std::vector<uint32_t> initial;
};

/// No trace row: the job was drawn by an arrival process.
inline constexpr uint32_t kNoTraceIndex = 0xFFFFFFFFu;

/// Host-only observer that keeps one JobRecord per job of the replication.
class JobRecorder {
 public:
  static constexpr bool kActive = true;

  /// `rows`: the file rows of the model's trace rows and of its state at t = 0 (nullptr: none).
  JobRecorder(uint64_t point, uint64_t replication, uint32_t slot_capacity,
              const SourceRows* rows = nullptr)
      : point_(point), replication_(replication), rows_(rows), slot_job_(slot_capacity, 0) {}

  /// A job of class c arrives now, from the model's trace row `trace_index` (kNoTraceIndex: an
  /// arrival process drew it): its id.
  uint32_t arrival(uint32_t c, double now_s, uint32_t trace_index) {
    const uint32_t id = arrival(c, now_s);
    if (rows_ != nullptr && trace_index < rows_->trace.size())
      jobs_[id].trace_row = rows_->trace[trace_index];
    return id;
  }
  /// Row i of the model's state at t = 0 (CompiledModel::initial) is placed: its id.
  uint32_t initial(uint32_t c, uint32_t i) {
    const uint32_t id = arrival(c, 0.0);
    if (rows_ != nullptr && i < rows_->initial.size()) jobs_[id].trace_row = rows_->initial[i];
    return id;
  }
  /// A job of class c arrives now: its id.
  uint32_t arrival(uint32_t c, double now_s) {
    JobRecord r;
    r.point = point_;
    r.replication = replication_;
    r.job = jobs_.size();
    r.job_class = c;
    r.arrival_s = now_s;
    r.start_s = pmath::quiet_nan();
    r.end_s = pmath::quiet_nan();
    jobs_.push_back(r);
    return static_cast<uint32_t>(r.job);
  }
  /// Job `job` takes slot s in pool p now.
  void launch(uint32_t s, uint32_t job, uint32_t p, double now_s) {
    slot_job_[s] = job;
    JobRecord& r = jobs_[job];
    if (r.pool < 0) r.start_s = now_s;
    r.pool = static_cast<int32_t>(p);
  }
  void run_begins(uint32_t s) { ++jobs_[slot_job_[s]].runs; }
  /// The hold of slot s was billed `usd`.
  void billed(uint32_t s, double usd) { jobs_[slot_job_[s]].cost_usd += usd; }
  void preempted(uint32_t s) { ++jobs_[slot_job_[s]].preemptions; }
  void completed(uint32_t s, double now_s) { jobs_[slot_job_[s]].end_s = now_s; }
  /// The job in slot s.
  uint32_t job_of(uint32_t s) const { return slot_job_[s]; }

  std::vector<JobRecord>& jobs() { return jobs_; }

 private:
  uint64_t point_, replication_;
  const SourceRows* rows_;
  std::vector<uint32_t> slot_job_;  ///< by slot: the job holding it
  std::vector<JobRecord> jobs_;     ///< by job id
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
