// gpucap data: the trace writer (see trace_writer.hpp).
#include "gpucap/data/trace_writer.hpp"

#include <algorithm>
#include <cstdint>

namespace gpucap::data {
namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

}  // namespace

std::string format_millis_as_seconds(int64_t ms) {
  const bool negative = ms < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ms) : static_cast<uint64_t>(ms);
  std::string out = (negative ? "-" : "") + std::to_string(magnitude / 1000);
  uint64_t fraction = magnitude % 1000;
  if (fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits.insert(0, 3 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

TraceWriter::TraceWriter(const std::vector<std::string>& extra_columns, const TraceOptions& options,
                         ImportReport& report, Sink sink)
    : options_(options), report_(report), sink_(std::move(sink)) {
  options_.reorder_window = std::max<std::size_t>(options_.reorder_window, 1);
  if (options_.reorder_window_bytes == 0)
    options_.reorder_window_bytes =
        options_.reorder_window > kDefaultReorderWindowBytes / kReorderWindowBytesPerJob
            ? (options_.reorder_window > SIZE_MAX / kReorderWindowBytesPerJob
                   ? SIZE_MAX
                   : options_.reorder_window * kReorderWindowBytesPerJob)
            : kDefaultReorderWindowBytes;
  buffer_ = options_.instances  ? "start_s,end_s,gpus"
            : options_.requests ? "submit_s"
                                : "submit_s,gpus,duration_s,censored";
  for (const std::string& c : extra_columns) buffer_ += "," + c;
  buffer_ += "\n";
  report_.instances = options_.instances;
  report_.requests = options_.requests;
  if (options_.origin_ms) {
    report_.has_origin = true;
    report_.origin_ms = *options_.origin_ms;
  }
}

void TraceWriter::add(JobRecord job) {
  // The log's end counts every job with times, also those dropped below.
  const int64_t latest =
      std::max(job.submit_ms, job.running ? job.start_ms : std::max(job.start_ms, job.end_ms));
  latest_ms_ = any_time_ ? std::max(latest_ms_, latest) : latest;
  any_time_ = true;
  if (job.gpus == 0) return report_.drop("zero GPUs", job.line);
  if (job.gpus > kMaxTraceGpus)
    return report_.drop("more GPUs than a trace row may have (1048575)", job.line);
  if (options_.instances) return add_instance(std::move(job));
  if (job.start_ms < job.submit_ms)
    return report_.drop("started before it was submitted", job.line);
  if (!job.running && job.end_ms < job.start_ms)
    return report_.drop("ended before it started (negative run time)", job.line);
  if (options_.origin_ms && job.submit_ms < *options_.origin_ms)
    return report_.drop("submitted before the origin (--origin)", job.line);
  if (job.running) {
    if (options_.running == RunningJobs::drop)
      return report_.drop("still running at the log's end (--running drop)", job.line);
    if (options_.log_end_ms) {
      if (*options_.log_end_ms <= job.start_ms)
        return report_.drop("still running, started at or after the log's end (--log-end)",
                            job.line);
      queue({job.submit_ms, sequence_++, *options_.log_end_ms - job.start_ms, job.gpus, true,
             job.line, std::move(job.extra)});
      return;
    }
    if (!window_has_room(running_.size(), running_bytes_, held_bytes(job)))
      return report_.drop(
          "still running, beyond the reorder window of running jobs held until the log's end "
          "(raise --reorder-window or give --log-end)",
          job.line);
    running_bytes_ += held_bytes(job);
    running_.push_back(std::move(job));
    return;
  }
  if (job.censored && options_.running == RunningJobs::drop)
    return report_.drop("still running at the log's end (--running drop)", job.line);
  if (!job.running && job.end_ms == job.start_ms && !options_.requests)
    report_.note("jobs with zero run time (kept: replayed as arriving and ending at once)",
                 job.line);
  if (options_.log_end_ms && job.end_ms > *options_.log_end_ms) {
    report_.note("jobs that end after --log-end (kept whole)", job.line);
  }
  queue({job.submit_ms, sequence_++, job.end_ms - job.start_ms, job.gpus, job.censored, job.line,
         std::move(job.extra)});
}

void TraceWriter::add_instance(JobRecord job) {
  if (!job.running && !job.submit_unknown && job.end_ms <= job.submit_ms)
    return report_.drop("deleted at or before its creation (the replay needs a lifetime > 0)",
                        job.line);
  if (!job.running && options_.origin_ms && job.end_ms <= *options_.origin_ms)
    return report_.drop("deleted at or before the origin (--origin): not alive in the window",
                        job.line);
  Row row{job.submit_ms, sequence_++, job.end_ms,           job.gpus,
          job.running,   job.line,    std::move(job.extra), job.submit_unknown};
  if (job.submit_unknown) {
    if (report_.has_origin) return write_instance(row);
    // Held until the origin is known, in the reorder window's budget (as running jobs are).
    if (!window_has_room(unknown_start_.size(), unknown_start_bytes_, held_bytes(row)))
      return report_.drop(
          "no creation time, beyond the reorder window of such instances held until the origin "
          "is known (give --origin, or raise --reorder-window)",
          row.line);
    unknown_start_bytes_ += held_bytes(row);
    unknown_start_.push_back(std::move(row));
    return;
  }
  queue(std::move(row));
}

void TraceWriter::write_instance(const Row& row) {
  // Known only now without --origin: an instance without a creation time that was deleted
  // before the first creation kept was not alive in the window.
  if (!row.censored && row.duration_ms <= report_.origin_ms)
    return report_.drop(options_.origin_ms
                            ? "deleted at or before the origin (--origin): not alive in the window"
                            : "deleted at or before the origin (the first creation time, without "
                              "--origin): not alive in the window",
                        row.line);
  if (!row.submit_unknown) buffer_ += format_millis_as_seconds(row.submit_ms - report_.origin_ms);
  buffer_ += ',';
  if (!row.censored) buffer_ += format_millis_as_seconds(row.duration_ms - report_.origin_ms);
  buffer_ += ',';
  buffer_ += std::to_string(row.gpus);
  buffer_ += row.extra;
  buffer_ += '\n';
  ++report_.kept;
  report_.censored += row.censored;
  if (buffer_.size() >= kFlushBytes) flush();
}

void TraceWriter::queue(Row row) {
  heap_bytes_ += held_bytes(row);
  heap_.push(std::move(row));
  while (heap_.size() > options_.reorder_window ||
         (heap_bytes_ > options_.reorder_window_bytes && !heap_.empty())) {
    heap_bytes_ -= held_bytes(heap_.top());
    emit(heap_.top());
    heap_.pop();
  }
}

void TraceWriter::emit(const Row& row) {
  if (!report_.has_origin) {
    report_.has_origin = true;
    report_.origin_ms = row.submit_ms;
  }
  if (options_.instances) {
    // Those with a blank start first, once the origin is known.
    for (const Row& unknown : unknown_start_) write_instance(unknown);
    std::vector<Row>().swap(unknown_start_);
    unknown_start_bytes_ = 0;
    return write_instance(row);
  }
  if (row.submit_ms < report_.origin_ms)
    return report_.drop(
        "submitted before the first row written (out of order beyond the reorder window; raise "
        "--reorder-window or give --origin)",
        row.line);
  if (wrote_any_ && row.submit_ms < last_written_ms_) {
    if (options_.drop_out_of_order)
      return report_.drop("out of order beyond the reorder window (--out-of-order drop)", row.line);
    report_.note(
        "rows written out of order (submitted before a row already written; beyond the "
        "reorder window; the replay sorts rows itself)",
        row.line);
  } else {
    last_written_ms_ = row.submit_ms;
  }
  wrote_any_ = true;
  buffer_ += format_millis_as_seconds(row.submit_ms - report_.origin_ms);
  if (!options_.requests) {
    buffer_ += ',';
    buffer_ += std::to_string(row.gpus);
    buffer_ += ',';
    buffer_ += format_millis_as_seconds(row.duration_ms);
    buffer_ += row.censored ? ",1" : ",0";
  }
  buffer_ += row.extra;
  buffer_ += '\n';
  ++report_.kept;
  report_.censored += row.censored;
  if (buffer_.size() >= kFlushBytes) flush();
}

void TraceWriter::flush() {
  if (buffer_.empty()) return;
  sink_(buffer_);
  buffer_.clear();
}

void TraceWriter::finish() {
  if (!running_.empty()) {
    const int64_t log_end = options_.log_end_ms ? *options_.log_end_ms : latest_ms_;
    report_.has_log_end = true;
    report_.log_end_ms = log_end;
    for (JobRecord& job : running_) {
      if (log_end <= job.start_ms) {
        report_.drop("still running, started at the log's end (no run time yet)", job.line);
        continue;
      }
      queue({job.submit_ms, sequence_++, log_end - job.start_ms, job.gpus, true, job.line,
             std::move(job.extra)});
    }
    running_.clear();
    running_.shrink_to_fit();
    running_bytes_ = 0;
  } else if (options_.log_end_ms) {
    report_.has_log_end = true;
    report_.log_end_ms = *options_.log_end_ms;
  }
  while (!heap_.empty()) {
    emit(heap_.top());
    heap_.pop();
  }
  heap_bytes_ = 0;
  // Instances with a blank start and no creation time kept at all to set the origin.
  for (const Row& unknown : unknown_start_)
    report_.drop("no creation time, and no --origin or created instance to place its end against",
                 unknown.line);
  unknown_start_.clear();
  flush();
}

}  // namespace gpucap::data
