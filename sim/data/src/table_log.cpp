// gpucap data: job logs that are one table row per job, their columns named by a mapping:
// `csv` (the mapping given with --map) and `helios` (the Helios and Acme traces' columns:
// job_id,user,[vc,]gpu_num,cpu_num,node_num,[type,]state,submit_time,start_time,end_time,
// duration,queue). See docs/importing.md, "csv" and "helios".
//
// Fields: submit (required), gpus (required), start (default: the submit time, when the log
// has no start), end or duration (one of them, unless every job is running), state
// (optional: CANCELLED before a start is "cancelled before it started", RUNNING without an
// end is censored), class (optional: copied to the output's `class` column).
#include "gpucap/data/delimited.hpp"
#include "gpucap/detail/text.hpp"

#include "job_logs.hpp"

namespace gpucap::data::detail {
namespace {

struct Columns {
  int submit = -1, start = -1, end = -1, duration = -1, gpus = -1, state = -1, klass = -1;
  int user = -1, vc = -1, type = -1;  ///< helios' extra columns
};

}  // namespace

void read_table_log(LineReader& in, JobLogFormat format, const ImportOptions& options,
                    TraceWriter& out, ImportReport& report) {
  const bool helios = format == JobLogFormat::helios;
  const char separator = helios ? ',' : options.separator;
  const MappedColumns columns(read_header(in, separator, true, helios ? "helios" : "csv"), options);
  const std::vector<std::string>& header = columns.header();
  // The mapping: helios' defaults, then what --map gives.
  std::vector<std::pair<std::string, std::string>> mapping;
  if (helios)
    mapping = {{"submit", "submit_time"}, {"start", "start_time"}, {"end", "end_time"},
               {"duration", "duration"},  {"gpus", "gpu_num"},     {"state", "state"}};
  for (auto& [field, column] : mapping) column = columns.column_for(field, column);
  for (const auto* given : {&options.mapping, &options.constants})
    for (const auto& [field, unused] : *given) {
      bool present = false;
      for (const auto& [f, c] : mapping) present = present || f == field;
      if (!present) mapping.emplace_back(field, columns.column_for(field, ""));
    }
  const std::string needs =
      helios ? "a Helios or Acme trace needs the columns submit_time, start_time, end_time (or "
               "duration), gpu_num and state (other names can be given with --map)"
             : "--map names the columns: submit and gpus are required, and end or duration "
               "(e.g. --map submit=created_at,start=started,end=finished,gpus=n_gpu)";
  Columns c;
  bool has_submit = false, has_gpus = false;
  for (const auto& [field, column] : mapping) {
    // A helios default that the file lacks is optional (Acme has no vc, Helios no type);
    // a column the user names must exist.
    const bool required = columns.user_named(field) || field == "submit" || field == "gpus";
    const int index = find_column(header, column, required, in, needs);
    if (field == "submit")
      c.submit = index, has_submit = true;
    else if (field == "start")
      c.start = index;
    else if (field == "end")
      c.end = index;
    else if (field == "duration")
      c.duration = index;
    else if (field == "gpus")
      c.gpus = index, has_gpus = true;
    else if (field == "state")
      c.state = index;
    else if (field == "class")
      c.klass = index;
  }
  if (!has_submit || !has_gpus || (c.end < 0 && c.duration < 0 && !helios))
    throw DataFileError(
        "the csv format needs --map with at least submit, gpus, and end or duration, e.g. "
        "--map submit=created_at,start=started,end=finished,gpus=n_gpu (fields: submit, start, "
        "end, duration, gpus, state, class)");
  if (c.end < 0 && c.duration < 0 && c.state < 0) find_column(header, "end_time", true, in, needs);
  if (helios) {
    c.user = column_of(header, "user");
    c.vc = column_of(header, "vc");
    c.type = column_of(header, "type");
  }

  TableRows rows(in, separator, columns, report);
  while (rows.next()) {
    const std::vector<std::string_view>& f = rows.fields();
    const uint64_t n = rows.line();
    const JobState state = c.state >= 0 ? classify_state(f[c.state]) : JobState::unknown;
    const bool instances = options.trace.instances;
    if (!instances && state == JobState::pending) {  // whatever its times say: it never ran
      report.drop(kNeverStarted, n);
      continue;
    }
    JobRecord job;
    job.line = n;
    const auto time = [&](int column, int64_t& ms) {
      return parse_timestamp(f[column], options.time_format, options.zone, ms);
    };
    const TimeParse submitted = time(c.submit, job.submit_ms);
    if (submitted != TimeParse::ok && !(instances && submitted == TimeParse::absent)) {
      report.drop(kBadSubmit, n);
      continue;
    }
    if (instances) {  // an instance demands GPUs from its creation (submit) to its end
      job.submit_unknown = submitted == TimeParse::absent;
      job.start_ms = job.submit_ms;
    } else if (c.start >= 0) {
      const TimeParse start = time(c.start, job.start_ms);
      if (start == TimeParse::malformed) {
        report.drop(kBadStart, n);
        continue;
      }
      if (start == TimeParse::absent || state == JobState::pending) {
        report.drop(state == JobState::cancelled ? kCancelledBeforeStart : kNeverStarted, n);
        continue;
      }
    } else {
      job.start_ms = job.submit_ms;
    }
    TimeParse end = TimeParse::absent;
    if (c.end >= 0) {
      end = time(c.end, job.end_ms);
      if (end == TimeParse::malformed) {
        report.drop(kBadEnd, n);
        continue;
      }
    }
    if (end == TimeParse::absent && c.duration >= 0 && !f[c.duration].empty() &&
        state != JobState::running && !job.submit_unknown) {
      int64_t duration_ms = 0;
      if (!parse_clock_duration(f[c.duration], duration_ms)) {
        report.drop("malformed duration (seconds, or [D-]HH:MM:SS)", n);
        continue;
      }
      job.end_ms = job.start_ms + duration_ms;
      end = TimeParse::ok;
    }
    if (end == TimeParse::absent && job.submit_unknown && c.duration >= 0 &&
        !f[c.duration].empty()) {
      report.drop("no creation time, so its duration cannot place its end (map end=...)", n);
      continue;
    }
    if (end == TimeParse::absent) {
      if (state != JobState::running && !instances) {
        report.drop(kNoEnd, n);
        continue;
      }
      job.running = true;
    }
    if (!parse_gpu_count(f[c.gpus], job.gpus)) {
      report.drop(kBadGpus, n);
      continue;
    }
    if (helios) {
      append_extra(job.extra, c.user >= 0 ? f[c.user] : std::string_view(), n, report);
      append_extra(job.extra, c.vc >= 0 ? f[c.vc] : std::string_view(), n, report);
      append_extra(job.extra, c.type >= 0 ? f[c.type] : std::string_view(), n, report);
    } else if (c.klass >= 0) {
      append_extra(job.extra, f[c.klass], n, report);
    }
    out.add(std::move(job));
  }
}

}  // namespace gpucap::data::detail
