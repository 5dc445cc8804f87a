// gpucap data: Slurm accounting logs, `sacct --parsable2` (see docs/importing.md, "slurm").
//
// One job is one row. sacct prints a job's record and then its steps (JobID 123.batch,
// 123.extern, 123.0, ...), and with --duplicates (-D) every record of a requeued job, one
// after another: the reader keeps the job open while the next records share its JobID and
// folds them in:
// - a step adds nothing (the job's own record holds its allocation and times);
// - a repeated record of the job (a requeue, or sacct -D) replaces the earlier one, except
//   that the submit time is the earliest of them: the job arrived once, its earlier runs
//   were interrupted, and the last record is the run that counts;
// - array tasks (123_4) are jobs of their own, as Slurm schedules them; a pending range
//   (123_[5-9]) never started and is dropped;
// - heterogeneous job components (123+0, 123+1) are jobs of their own.
// Records of one job that are not next to each other (a log merged from several sacct runs)
// become separate jobs.
#include <charconv>
#include <optional>

#include "gpucap/data/delimited.hpp"

#include "job_logs.hpp"

namespace gpucap::data::detail {
namespace {

constexpr const char* kNeeds =
    "sacct --parsable2 output needs the columns JobID, Submit, Start, End, State and AllocTRES "
    "or ReqTRES (e.g. sacct --parsable2 --allocations --format "
    "JobID,Submit,Start,End,Elapsed,State,AllocTRES,Partition,Account)";

/// GPUs in a TRES list ("billing=8,cpu=8,gres/gpu=2,gres/gpu:a100=2,mem=64G,node=1") or a GRES
/// list ("gpu:2", "gpu:a100:2(IDX:0-1)"): gres/gpu=N when present, else the sum of the typed
/// gres/gpu:TYPE=N. 0 when the list names no GPU; false when a GPU count is malformed, or the
/// typed counts add up beyond kMaxGpuCount.
bool gpus_of(std::string_view list, uint64_t& gpus) {
  gpus = 0;
  uint64_t typed = 0;
  bool untyped = false;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    uint64_t n = 0;
    if (item.substr(0, 8) == "gres/gpu") {
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || !parse_gpu_count(item.substr(eq + 1), n)) return false;
      if (item.size() > 8 && item[8] == ':')
        typed += n;
      else if (eq == 8)
        untyped = true, gpus = n;
      else
        return false;
    } else if (item.substr(0, 4) == "gpu:") {
      // GRES: gpu:N or gpu:TYPE:N, maybe followed by (IDX:...)
      item = item.substr(0, item.find('('));
      const std::size_t colon = item.rfind(':');
      if (!parse_gpu_count(item.substr(colon + 1), n)) return false;
      typed += n;
    } else {
      continue;
    }
    // Each count is at most 2^53, so the sum of two cannot wrap before this check.
    if (typed > kMaxGpuCount) return false;
  }
  if (!untyped) gpus = typed;
  return true;
}

/// The record of the job being folded.
struct OpenJob {
  std::string id;  ///< JobID without a step suffix
  uint64_t line = 0;
  bool valid = false;
  std::string submit, start, end, elapsed, state, tres, req_tres, partition, account;
  std::optional<int64_t> earliest_submit_ms;  ///< over the repeated records
};

class SlurmReader {
 public:
  SlurmReader(LineReader& in, const ImportOptions& options, TraceWriter& out, ImportReport& report)
      : in_(in), options_(options), out_(out), report_(report) {}

  void run() {
    header_ = read_header(in_, '|', false, "slurm");
    const auto need = [&](const char* name) {
      return find_column(header_, name, true, in_, kNeeds);
    };
    const auto may = [&](const char* name) {
      return find_column(header_, name, false, in_, kNeeds);
    };
    c_id_ = need("JobID");
    c_submit_ = need("Submit");
    c_start_ = need("Start");
    c_end_ = need("End");
    c_state_ = need("State");
    c_elapsed_ = may("Elapsed");
    c_tres_ = may("AllocTRES");
    c_req_tres_ = may("ReqTRES");
    if (c_tres_ < 0) c_tres_ = may("AllocGRES");
    if (c_req_tres_ < 0) c_req_tres_ = may("ReqGRES");
    if (c_tres_ < 0 && c_req_tres_ < 0) find_column(header_, "AllocTRES", true, in_, kNeeds);
    c_partition_ = may("Partition");
    c_account_ = may("Account");

    std::string_view line;
    std::vector<std::string_view> f;
    std::vector<std::string> scratch;
    while (in_.next(line)) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      ++report_.records;
      split_fields(line, '|', false, f, scratch);
      // --parsable (not 2) ends every line with a '|': an empty last field.
      if (f.size() == header_.size() + 1 && f.back().empty()) f.pop_back();
      if (f.size() != header_.size()) {
        close();
        report_.drop(f.size() < header_.size() ? kMissingFields : kExtraFields, in_.line_number());
        continue;
      }
      const std::string_view job_id = f[c_id_];
      const std::size_t dot = job_id.find('.');
      const std::string_view base = job_id.substr(0, dot);
      if (dot != std::string_view::npos) {  // a step
        if (open_.valid && base == open_.id)
          report_.note("job steps folded into their job", in_.line_number());
        else
          report_.drop("a job step without its job's record", in_.line_number());
        continue;
      }
      if (job_id.empty()) {
        close();
        report_.drop("no JobID", in_.line_number());
        continue;
      }
      if (job_id.find('[') != std::string_view::npos) {
        close();
        report_.drop("array tasks that never started (a pending range such as 123_[1-5])",
                     in_.line_number());
        continue;
      }
      if (open_.valid && base == open_.id) {
        report_.note("repeated records of one job folded (requeued runs, sacct -D)",
                     in_.line_number());
        remember_submit();
      } else {
        close();
        open_.id = std::string(base);
        open_.earliest_submit_ms.reset();
        open_.valid = true;
      }
      open_.line = in_.line_number();
      open_.submit = f[c_submit_];
      open_.start = f[c_start_];
      open_.end = f[c_end_];
      open_.state = f[c_state_];
      open_.elapsed = c_elapsed_ >= 0 ? std::string(f[c_elapsed_]) : std::string();
      open_.tres = c_tres_ >= 0 ? std::string(f[c_tres_]) : std::string();
      open_.req_tres = c_req_tres_ >= 0 ? std::string(f[c_req_tres_]) : std::string();
      open_.partition = c_partition_ >= 0 ? std::string(f[c_partition_]) : std::string();
      open_.account = c_account_ >= 0 ? std::string(f[c_account_]) : std::string();
    }
    close();
  }

 private:
  void remember_submit() {
    int64_t ms = 0;
    if (parse_timestamp(open_.submit, options_.time_format, options_.zone, ms) == TimeParse::ok)
      open_.earliest_submit_ms =
          open_.earliest_submit_ms ? std::min(*open_.earliest_submit_ms, ms) : ms;
  }

  /// Turns the open job into a trace row (or a counted drop).
  void close() {
    if (!open_.valid) return;
    open_.valid = false;
    const uint64_t line = open_.line;
    const JobState state = classify_state(open_.state);
    JobRecord job;
    job.line = line;
    const auto time = [&](const std::string& text, int64_t& ms) {
      return parse_timestamp(text, options_.time_format, options_.zone, ms);
    };
    if (time(open_.submit, job.submit_ms) != TimeParse::ok) return report_.drop(kBadSubmit, line);
    if (open_.earliest_submit_ms)
      job.submit_ms = std::min(job.submit_ms, *open_.earliest_submit_ms);
    const TimeParse start = time(open_.start, job.start_ms);
    if (start == TimeParse::malformed) return report_.drop(kBadStart, line);
    if (start == TimeParse::absent)
      return report_.drop(state == JobState::cancelled ? kCancelledBeforeStart : kNeverStarted,
                          line);
    const TimeParse end = time(open_.end, job.end_ms);
    if (end == TimeParse::malformed) return report_.drop(kBadEnd, line);
    if (end == TimeParse::absent) {
      int64_t elapsed = 0;
      if (state == JobState::running || state == JobState::pending || state == JobState::requeued) {
        job.running = true;
      } else if (!open_.elapsed.empty() && parse_clock_duration(open_.elapsed, elapsed)) {
        job.end_ms = job.start_ms + elapsed;
      } else {
        return report_.drop(kNoEnd, line);
      }
    }
    // The allocation, or (for a record without one) the request.
    const std::string& tres = !open_.tres.empty() ? open_.tres : open_.req_tres;
    if (!gpus_of(tres, job.gpus)) return report_.drop(kBadGpus, line);
    append_extra(job.extra, open_.partition, line, report_);
    append_extra(job.extra, open_.account, line, report_);
    out_.add(std::move(job));
  }

  LineReader& in_;
  const ImportOptions& options_;
  TraceWriter& out_;
  ImportReport& report_;
  std::vector<std::string> header_;
  int c_id_ = -1, c_submit_ = -1, c_start_ = -1, c_end_ = -1, c_state_ = -1, c_elapsed_ = -1,
      c_tres_ = -1, c_req_tres_ = -1, c_partition_ = -1, c_account_ = -1;
  OpenJob open_;
};

}  // namespace

void read_slurm_log(LineReader& in, const ImportOptions& options, TraceWriter& out,
                    ImportReport& report) {
  SlurmReader(in, options, out, report).run();
}

}  // namespace gpucap::data::detail
