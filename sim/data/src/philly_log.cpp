// gpucap data: the Philly trace's cluster_job_log (msr-fiddle/philly-traces): a JSON list of
// jobs (see docs/importing.md, "philly"):
//   [{"status": "Pass", "vc": "ee9e8c", "jobid": "application_..._14199", "user": "ce2f4c",
//     "submitted_time": "2017-10-07 01:11:39",
//     "attempts": [{"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23",
//                   "detail": [{"ip": "m47", "gpus": ["gpu0", "gpu1"]}]}, ...]}, ...]
// One job is one row:
// - submitted at submitted_time, started at its first attempt's start_time;
// - its run time is the sum of its attempts' run times (the time it held GPUs; the gaps
//   between a failed attempt and the next are waiting, not work);
// - its GPUs are the most any attempt held (the gpus listed over an attempt's detail);
// - a job without attempts never started (status Killed: cancelled before it started);
// - a last attempt with end_time None or null was still running when the trace was taken:
//   censored at the log's end; a missing time in any other attempt is a logging error (the
//   trace's README says so) and drops the job.
// The reader streams: it takes one job object at a time from the list (a JSON Lines file of
// one object per line works too), so memory is bounded by the largest job object (64 MiB).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/json_reader.hpp"

#include "job_logs.hpp"

namespace gpucap::data::detail {
namespace {

constexpr std::size_t kMaxObjectBytes = std::size_t{64} << 20;

/// Whether `path` is "attempts[N]" followed by `rest` exactly ("" for the element itself).
/// Reads only as far as the first difference, so a long key costs nothing here.
bool attempt_path(const std::string& path, const char* rest) {
  if (path.compare(0, 9, "attempts[") != 0) return false;
  std::size_t i = 9;
  while (i < path.size() && path[i] >= '0' && path[i] <= '9') ++i;
  if (i == 9 || i >= path.size() || path[i] != ']') return false;
  return path.compare(i + 1, std::string::npos, rest) == 0;
}

/// Whether `path` is "attempts[N].detail[M].gpus[K]": one GPU of an attempt.
bool attempt_gpu_path(const std::string& path) {
  if (path.compare(0, 9, "attempts[") != 0) return false;
  std::size_t i = 9;
  const auto index_then = [&](const char* next) {
    const std::size_t from = i;
    while (i < path.size() && path[i] >= '0' && path[i] <= '9') ++i;
    if (i == from || i >= path.size() || path[i] != ']') return false;
    ++i;
    const std::size_t n = std::strlen(next);
    if (path.compare(i, n, next) != 0) return false;
    i += n;
    return true;
  };
  return index_then(".detail[") && index_then(".gpus[") && index_then("") && i == path.size();
}

/// Collects the fields of one job object and folds its attempts as each one ends, so that a job
/// of any number of attempts costs the memory of one.
class PhillyJob : public gpucap::JsonVisitor {
 public:
  explicit PhillyJob(const ImportOptions& options) : options_(options) {}

  std::string submitted, status, vc, user;
  uint64_t attempts = 0;          ///< attempts folded
  uint64_t gpus = 0;              ///< the most GPUs any attempt held
  int64_t start_ms = 0;           ///< the first attempt's start
  int64_t held_ms = 0;            ///< the attempts' run times, summed
  bool running = false;           ///< the last attempt has no end time
  const char* problem = nullptr;  ///< why the job is dropped (the first attempt's problem)

  void begin_object(const std::string& path, const gpucap::JsonPosition&) override {
    if (attempt_path(path, "")) begin_attempt();
  }
  void begin_array(const std::string& path, const gpucap::JsonPosition&) override {
    if (attempt_path(path, "")) begin_attempt();
  }
  void end(const std::string& path) override {
    if (attempt_path(path, "")) fold_attempt();
  }
  void number(const std::string& path, double, const gpucap::JsonPosition&) override {
    if (path == "submitted_time") submitted = "(a number)";
    if (attempt_path(path, "")) begin_attempt(), fold_attempt();  // an attempt that is a number
  }
  void other(const std::string& path, const char* kind, const std::string& text,
             const gpucap::JsonPosition&) override {
    const bool string = std::strcmp(kind, "string") == 0;
    if (path == "submitted_time")
      submitted = string ? text : "";
    else if (path == "status")
      status = text;
    else if (path == "vc")
      vc = text;
    else if (path == "user")
      user = text;
    else if (attempt_path(path, ""))
      begin_attempt(), fold_attempt();  // a scalar attempt
    else if (attempt_path(path, ".start_time"))
      start_ = string ? text : "";
    else if (attempt_path(path, ".end_time"))
      end_ = string ? text : "";
    else if (attempt_gpu_path(path))
      ++attempt_gpus_;
  }

 private:
  void begin_attempt() {
    start_.clear();
    end_.clear();
    attempt_gpus_ = 0;
  }

  /// Adds the attempt just read to the job (see the rules at the top of this file).
  void fold_attempt() {
    const bool first = attempts++ == 0;
    gpus = std::max(gpus, attempt_gpus_);
    if (problem != nullptr) return;
    if (running) {
      problem = "an attempt before the last without an end time (a logging error)";
      return;
    }
    const auto time = [&](const std::string& text, int64_t& ms) {
      return parse_timestamp(text, options_.time_format, options_.zone, ms);
    };
    int64_t start = 0, end = 0;
    const TimeParse s = time(start_, start);
    if (s == TimeParse::malformed) return void(problem = kBadStart);
    if (s == TimeParse::absent)
      return void(problem = "an attempt without a start time (a logging error)");
    if (first) start_ms = start;
    const TimeParse e = time(end_, end);
    if (e == TimeParse::malformed) return void(problem = kBadEnd);
    if (e == TimeParse::absent) return void(running = true);
    if (end < start) return void(problem = "ended before it started (negative run time)");
    // Each run time is below 2^53 ms (times are years 1000 to 9999); their sum is checked.
    if (!checked_add(held_ms, end - start, held_ms) || !checked_add(start_ms, held_ms, end))
      problem = "the attempts' run times add up beyond 2^63 ms (corrupt attempts)";
  }

  const ImportOptions& options_;
  std::string start_, end_;  ///< the attempt being read (null and absent: "")
  uint64_t attempt_gpus_ = 0;
};

class PhillyReader {
 public:
  PhillyReader(const std::string& path, const ImportOptions& options, TraceWriter& out,
               ImportReport& report)
      : path_(path), options_(options), out_(out), report_(report) {}

  void run() {
    const int fd = open_regular_file(path_, "input file");
    std::vector<char> chunk(LineReader::kChunkBytes);
    bool any = false;
    try {
      for (;;) {
        const ssize_t n = ::read(fd, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
          throw DataFileError("cannot read input file '" + text::excerpt(path_, 300) +
                              "': " + std::strerror(errno));
        if (n == 0) break;
        any = true;
        for (ssize_t i = 0; i < n; ++i) take(chunk[static_cast<std::size_t>(i)]);
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    if (!any)
      throw DataFileError(text::excerpt(path_, 300) +
                          ": the file is empty; a philly log is a JSON list of job objects (see "
                          "docs/importing.md)");
    if (capturing_) {
      ++report_.records;
      report_.drop("a JSON object cut off by the end of the file (truncated)", object_line_);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DataFileError(text::excerpt(path_, 300) + ":" + std::to_string(line_) + ": " + what +
                        "; a philly log is a JSON list of job objects, [{...}, {...}] (see "
                        "docs/importing.md)");
  }

  void take(char c) {
    // A UTF-8 byte-order mark at the start of the file is skipped, as the line readers do.
    if (bom_bytes_ >= 0) {
      static const char kBom[] = "\xEF\xBB\xBF";
      if (c == kBom[bom_bytes_]) {
        if (++bom_bytes_ == 3) bom_bytes_ = -1;
        return;
      }
      if (bom_bytes_ > 0) fail("a broken byte-order mark at the start of the file");
      bom_bytes_ = -1;
    }
    if (c == '\n') ++line_;
    if (!capturing_) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return;
      if (c == '\0') fail("a NUL byte: this is a binary file");
      if (c == '[' && !in_list_ && !seen_object_) return void(in_list_ = true);
      if (c == ',' && in_list_ && seen_object_) return;
      if (c == ']' && in_list_) return void(in_list_ = false);
      if (c != '{') fail(std::string("unexpected '") + text::excerpt(std::string(1, c)) + "'");
      capturing_ = true;
      seen_object_ = true;
      object_line_ = line_;
      depth_ = 0;
      in_string_ = escape_ = false;
      object_.clear();
    }
    if (object_.size() >= kMaxObjectBytes)
      fail("a job object longer than " + format_bytes(kMaxObjectBytes));
    object_ += c;
    if (in_string_) {
      if (escape_)
        escape_ = false;
      else if (c == '\\')
        escape_ = true;
      else if (c == '"')
        in_string_ = false;
      return;
    }
    if (c == '"')
      in_string_ = true;
    else if (c == '{' || c == '[')
      ++depth_;
    else if ((c == '}' || c == ']') && --depth_ == 0) {
      capturing_ = false;
      job();
    }
  }

  void job() {
    ++report_.records;
    const uint64_t n = object_line_;
    PhillyJob j(options_);
    try {
      gpucap::read_json(object_, j);
    } catch (const gpucap::JsonError&) {
      return report_.drop("malformed JSON object", n);
    }
    JobRecord job;
    job.line = n;
    if (parse_timestamp(j.submitted, options_.time_format, options_.zone, job.submit_ms) !=
        TimeParse::ok)
      return report_.drop(kBadSubmit, n);
    if (j.attempts == 0)
      return report_.drop(
          classify_state(j.status) == JobState::cancelled ? kCancelledBeforeStart : kNeverStarted,
          n);
    if (j.problem != nullptr) return report_.drop(j.problem, n);
    job.gpus = j.gpus;
    job.start_ms = j.start_ms;
    job.running = j.running;
    if (!job.running) job.end_ms = j.start_ms + j.held_ms;  // checked in fold_attempt
    append_extra(job.extra, j.vc, n, report_);
    append_extra(job.extra, j.user, n, report_);
    append_extra(job.extra, j.status, n, report_);
    out_.add(std::move(job));
  }

  const std::string& path_;
  const ImportOptions& options_;
  TraceWriter& out_;
  ImportReport& report_;
  int bom_bytes_ = 0;  ///< bytes of a byte-order mark read at the start; -1 past it
  uint64_t line_ = 1, object_line_ = 1;
  bool in_list_ = false, seen_object_ = false, capturing_ = false, in_string_ = false,
       escape_ = false;
  int depth_ = 0;
  std::string object_;
};

}  // namespace

void read_philly_log(const std::string& path, const ImportOptions& options, TraceWriter& out,
                     ImportReport& report) {
  PhillyReader(path, options, out, report).run();
}

}  // namespace gpucap::data::detail
