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
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "gpucap/detail/json_reader.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "job_logs.hpp"

namespace gpucap::data::detail {
namespace {

constexpr std::size_t kMaxObjectBytes = std::size_t{64} << 20;

struct Attempt {
  std::string start, end;
  bool start_null = false, end_null = false;
  uint64_t gpus = 0;
};

/// Collects the fields of one job object.
class PhillyJob : public gpucap::detail::JsonVisitor {
 public:
  std::string submitted, status, vc, user;
  std::vector<Attempt> attempts;

  void begin_object(const std::string& path, const gpucap::detail::JsonPosition&) override {
    attempt_of(path);
  }
  void begin_array(const std::string&, const gpucap::detail::JsonPosition&) override {}
  void end(const std::string&) override {}
  void number(const std::string& path, double, const gpucap::detail::JsonPosition&) override {
    if (path == "submitted_time") submitted = "(a number)";
  }
  void other(const std::string& path, const char* kind, const std::string& text,
             const gpucap::detail::JsonPosition&) override {
    const bool null = std::strcmp(kind, "null") == 0;
    const bool string = std::strcmp(kind, "string") == 0;
    if (path == "submitted_time") submitted = string ? text : "";
    else if (path == "status") status = text;
    else if (path == "vc") vc = text;
    else if (path == "user") user = text;
    Attempt* a = attempt_of(path);
    if (a == nullptr) return;
    const std::string rest = path.substr(path.find(']') + 1);
    if (rest == ".start_time") a->start = string ? text : "", a->start_null = null;
    else if (rest == ".end_time") a->end = string ? text : "", a->end_null = null;
    else if (rest.compare(0, 8, ".detail[") == 0 && rest.find("].gpus[") != std::string::npos)
      ++a->gpus;
  }

 private:
  /// The attempt that `path` ("attempts[3]...") is inside, created on first sight.
  Attempt* attempt_of(const std::string& path) {
    if (path.compare(0, 9, "attempts[") != 0) return nullptr;
    const std::size_t close = path.find(']');
    std::size_t index = 0;
    for (std::size_t i = 9; i < close; ++i) index = index * 10 + static_cast<std::size_t>(path[i] - '0');
    if (index > attempts.size() || index > 100000) return nullptr;
    if (index == attempts.size()) attempts.emplace_back();
    return &attempts[index];
  }
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
      if (escape_) escape_ = false;
      else if (c == '\\') escape_ = true;
      else if (c == '"') in_string_ = false;
      return;
    }
    if (c == '"') in_string_ = true;
    else if (c == '{' || c == '[') ++depth_;
    else if ((c == '}' || c == ']') && --depth_ == 0) {
      capturing_ = false;
      job();
    }
  }

  void job() {
    ++report_.records;
    const uint64_t n = object_line_;
    PhillyJob j;
    try {
      gpucap::detail::read_json(object_, j);
    } catch (const gpucap::detail::JsonError&) {
      return report_.drop("malformed JSON object", n);
    }
    JobRecord job;
    job.line = n;
    const auto time = [&](const std::string& text, int64_t& ms) {
      return parse_timestamp(text, options_.time_format, options_.zone, ms);
    };
    if (time(j.submitted, job.submit_ms) != TimeParse::ok) return report_.drop(kBadSubmit, n);
    if (j.attempts.empty())
      return report_.drop(classify_state(j.status) == JobState::cancelled ? kCancelledBeforeStart
                                                                          : kNeverStarted,
                          n);
    int64_t held_ms = 0;
    for (std::size_t a = 0; a < j.attempts.size(); ++a) {
      const Attempt& at = j.attempts[a];
      job.gpus = std::max(job.gpus, at.gpus);
      int64_t start = 0, end = 0;
      const TimeParse s = time(at.start, start);
      if (s == TimeParse::malformed) return report_.drop(kBadStart, n);
      if (s == TimeParse::absent)
        return report_.drop("an attempt without a start time (a logging error)", n);
      if (a == 0) job.start_ms = start;
      const TimeParse e = time(at.end, end);
      if (e == TimeParse::malformed) return report_.drop(kBadEnd, n);
      if (e == TimeParse::absent) {
        if (a + 1 < j.attempts.size())
          return report_.drop("an attempt before the last without an end time (a logging error)",
                              n);
        job.running = true;
        break;
      }
      if (end < start) return report_.drop("ended before it started (negative run time)", n);
      held_ms += end - start;
    }
    if (!job.running) job.end_ms = job.start_ms + held_ms;
    append_extra(job.extra, j.vc, n, report_);
    append_extra(job.extra, j.user, n, report_);
    append_extra(job.extra, j.status, n, report_);
    out_.add(std::move(job));
  }

  const std::string& path_;
  const ImportOptions& options_;
  TraceWriter& out_;
  ImportReport& report_;
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
