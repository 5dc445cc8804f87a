// gpucap data: turning jobs read from a log into rows of gpucap's trace CSV, the layout that
// `arrivals: {process: trace}` replays (docs/scenario-format.md, "process: trace"):
//
//   submit_s,gpus,duration_s,censored[,extra columns of the format]
//   0,8,3600,0
//   12.5,1,86.25,1
//
// - submit_s: seconds since the origin (the first submission kept, or --origin), >= 0;
// - gpus: a whole number from 1 to kMaxTraceGpus;
// - duration_s: run time in seconds (end - start), >= 0 (0: a job that failed at once);
// - censored: 1 for a job still running at the log's end, whose duration_s runs to the log's
//   end (a lower bound of its run time), else 0. The replay ignores this column and any other.
// Times are written with millisecond resolution, without trailing zeros.
//
// Rows are written in submission order (equal times in input order) through a reorder window:
// the writer holds the last `reorder_window` jobs (and at most `reorder_window_bytes` of them,
// their text columns included) in a heap and writes the earliest when it is full, so a log that
// is out of order by fewer rows than that comes out sorted, in memory bounded by the window. A job
// submitted before a row already written is out of order beyond the window: it is still written
// (the replay sorts rows itself) and counted in the report, or dropped with --out-of-order drop. A
// job submitted before the origin is always dropped (its submit_s would be negative).
//
// With TraceOptions::instances (gpucap import --instances), each record is a long-running
// instance (a deployment's, `kind: deployment`) and the rows are
//
//   start_s,end_s,gpus[,extra columns]
//   ,,1            created before the log (no creation time), still running at its end
//   -3600,7200,1   created before --origin, deleted 2 h after it
//   12.5,,2        created at 12.5 s, still running at the log's end
//
// start_s is the creation time (blank: unknown, before the log; negative: before --origin),
// end_s the deletion time (blank: still running when the log ends); both in seconds since the
// origin (--origin, or the first creation time kept). Rows with a blank start come first.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "gpucap/data/import_report.hpp"

namespace gpucap::data {

/// Largest GPU count of a trace row (the scenario loader's limit on a trace's gpus).
constexpr uint64_t kMaxTraceGpus = 0xFFFFF;

/// Bytes of jobs the reorder window holds at most by default: 32 MiB, or 128 bytes per job of
/// the window when that is more (a window of 10,000,000 jobs: 1.28 GB).
constexpr std::size_t kDefaultReorderWindowBytes = std::size_t{32} << 20;
constexpr std::size_t kReorderWindowBytesPerJob = 128;

/// One job as an importer read it. Times are epoch milliseconds (UTC).
struct JobRecord {
  int64_t submit_ms = 0;
  int64_t start_ms = 0;
  int64_t end_ms = 0;     ///< unused when `running`
  /// Instances only: the log has no creation time (created before it began).
  bool submit_unknown = false;
  bool running = false;   ///< still running at the log's end, no end time: the writer ends
                          ///< it at the log's end
  bool censored = false;  ///< end_ms is where observation stopped, not the job's end (e.g. a
                          ///< Kubernetes pod Running at the trace's end, deleted by it)
  uint64_t gpus = 0;
  std::string extra;  ///< the format's extra columns, each as ",field" (CSV-quoted)
  uint64_t line = 0;  ///< 1-based line (or record) of the input, for the report
};

/// What happens to jobs still running at the log's end.
enum class RunningJobs {
  censor,  ///< kept, run time to the log's end, censored = 1
  drop,    ///< dropped with the reason "still running at the log's end"
};

struct TraceOptions {
  RunningJobs running = RunningJobs::censor;
  /// Epoch ms of submit_s = 0; default: the first submission kept.
  std::optional<int64_t> origin_ms;
  /// Epoch ms of the log's end, where censored run times end; default: the latest time
  /// (submit, start or end) of any job in the log.
  std::optional<int64_t> log_end_ms;
  /// Jobs held to sort the output (memory: about 100 bytes each, plus their text columns).
  std::size_t reorder_window = 100000;
  /// Bytes the held jobs may take, text columns included: the window holds fewer jobs than
  /// `reorder_window` when their text is long. Running jobs held until the log's end have a
  /// budget of the same size. 0: the larger of kDefaultReorderWindowBytes and
  /// kReorderWindowBytesPerJob x reorder_window.
  std::size_t reorder_window_bytes = 0;
  /// Drop, instead of write, jobs out of order beyond the window.
  bool drop_out_of_order = false;
  /// Records are long-running instances: write start_s,end_s,gpus, keep those created before
  /// the log or the origin, and leave the end of those still running blank (see above).
  bool instances = false;
  /// Records are requests (an LLM request log): write submit_s and the extra columns only
  /// (requests hold no GPUs of their own and run what the simulation says).
  bool requests = false;
};

class TraceWriter {
 public:
  /// Bytes of CSV for the output; called with chunks of up to about 1 MiB.
  using Sink = std::function<void(std::string_view)>;

  /// `extra_columns`: names of the format's extra columns (header after `censored`).
  TraceWriter(const std::vector<std::string>& extra_columns, const TraceOptions& options,
              ImportReport& report, Sink sink);

  /// Checks `job` (zero GPUs, negative run time, start before submit, ...) and queues
  /// it, or counts it as dropped in the report.
  void add(JobRecord job);
  /// Writes what is held (running jobs included) and flushes the sink.
  void finish();

 private:
  struct Row {
    int64_t submit_ms;
    uint64_t sequence;  ///< input order, for ties
    int64_t duration_ms;  ///< instances: the end time (epoch ms), unused when censored
    uint64_t gpus;
    bool censored;  ///< instances: still running (blank end)
    uint64_t line;
    std::string extra;
    bool submit_unknown = false;  ///< instances: blank start
  };
  struct Later {
    bool operator()(const Row& a, const Row& b) const {
      return a.submit_ms != b.submit_ms ? a.submit_ms > b.submit_ms : a.sequence > b.sequence;
    }
  };

  void add_instance(JobRecord job);
  void queue(Row row);
  void emit(const Row& row);
  /// An instance's row (origin known).
  void write_instance(const Row& row);
  void flush();
  /// Memory a held job takes, counted against reorder_window_bytes.
  static std::size_t held_bytes(const Row& row) { return sizeof(Row) + row.extra.size(); }
  static std::size_t held_bytes(const JobRecord& job) {
    return sizeof(JobRecord) + job.extra.size();
  }

  /// Whether a list of `held` rows taking `bytes` may hold one more of `more` bytes within the
  /// reorder window's count and memory (rows held until the log's end or the origin is known).
  bool window_has_room(std::size_t held, std::size_t bytes, std::size_t more) const {
    return held < options_.reorder_window && bytes + more <= options_.reorder_window_bytes;
  }

  TraceOptions options_;
  ImportReport& report_;
  Sink sink_;
  std::priority_queue<Row, std::vector<Row>, Later> heap_;
  std::size_t heap_bytes_ = 0;      ///< held_bytes of the rows in heap_
  std::vector<JobRecord> running_;  ///< running jobs held until the log's end is known
  std::size_t running_bytes_ = 0;   ///< held_bytes of running_
  std::vector<Row> unknown_start_;  ///< instances with a blank start, until the origin is known
  std::size_t unknown_start_bytes_ = 0;  ///< held_bytes of unknown_start_
  std::string buffer_;
  uint64_t sequence_ = 0;
  bool any_time_ = false;
  int64_t latest_ms_ = 0;  ///< latest time seen in any checked job
  bool wrote_any_ = false;
  int64_t last_written_ms_ = 0;
};

/// "12.5" for 12500 ms, "3600" for 3600000: milliseconds as seconds, no trailing zeros.
std::string format_millis_as_seconds(int64_t ms);

}  // namespace gpucap::data
