// gpucap fitting: an instance log (start, end, GPUs per row; `gpucap import --instances`) read
// into classes for `gpucap fit --kind deployment` (job_trace.hpp).
//
// Times are seconds since t = 0. A blank or negative start is an instance created before the
// window; a blank end one still running at the log's end, which is the window's end (given, or
// the last start or end of the log). Per row:
//  - start >= 0: an arrival; its lifetime is end - start, or window - start censored;
//  - start before t = 0 and end blank or > 0: alive at t = 0 (the class's state at t = 0);
//  - blank end: also running at the log's end, with its age then (the state at the log's end).
#include <algorithm>
#include <cmath>
#include <map>

#include "gpucap/detail/text.hpp"
#include "gpucap/fit/run_time_model.hpp"

#include "trace_classes.hpp"

namespace gpucap::fit::detail {
namespace {

constexpr double kMaxGpus = 1048575;

}  // namespace

JobTrace read_instance_log(const gpucap::CsvTable& table, const TraceColumns& columns,
                           const gpucap::CsvTable::Categories& class_values, double window_s) {
  JobTrace trace;
  trace.origin = table.origin();
  trace.instances = true;
  trace.rows = table.rows();
  std::vector<std::string> starts, ends;
  gpucap::NumberColumn gpus;
  try {
    starts = table.strings(columns.submit);
    ends = table.strings(columns.end);
    gpus = table.number_column(columns.gpus);
  } catch (const std::runtime_error& e) {
    throw TraceDataError(e.what());
  }
  if (trace.rows == 0)
    throw TraceDataError(table.origin() + ": the log has a header but no instances; it needs " +
                         "at least one row (" + text::excerpt(columns.submit) + "," +
                         text::excerpt(columns.end) + "," + text::excerpt(columns.gpus) + ")");
  auto where = [&](std::size_t r, const std::string& column) {
    return table.origin() + ":" + std::to_string(table.line_of_row(r)) + ": column \"" +
           text::excerpt(column) + "\" ";
  };
  // A time cell: seconds, or NaN when blank.
  auto time_of = [&](std::size_t r, const std::string& column, const std::string& cell) {
    if (cell.empty()) return std::nan("");
    double v = 0;
    if (!gpucap::parse_decimal(cell, v) || std::fabs(v) > kMaxDurationS)
      throw TraceDataError(where(r, column) + "holds \"" + text::excerpt(cell) +
                           "\"; a time is seconds since t = 0, at most 3.156e11 (10000 years) " +
                           "either way, or blank (" + column +
                           (column == columns.end ? ": still running at the log's end)"
                                                  : ": created before the log)"));
    return v;
  };
  std::vector<double> start(trace.rows), end(trace.rows);
  double last_time = -HUGE_VAL;
  for (std::size_t r = 0; r < trace.rows; ++r) {
    start[r] = time_of(r, columns.submit, starts[r]);
    end[r] = time_of(r, columns.end, ends[r]);
    if (gpus[r] < 1 || gpus[r] > kMaxGpus || gpus[r] != std::floor(gpus[r]))
      throw TraceDataError(where(r, columns.gpus) + "holds " + text::format_number(gpus[r]) +
                           "; GPUs are a whole number from 1 to 1048575");
    if (!std::isnan(start[r]) && !std::isnan(end[r]) && !(end[r] > start[r]))
      throw TraceDataError(where(r, columns.end) + "holds " + text::format_number(end[r]) +
                           ", not after the instance's start (" + text::format_number(start[r]) +
                           "); an instance lives a while");
    if (!std::isnan(end[r]) && !(end[r] > 0))
      throw TraceDataError(where(r, columns.end) + "holds " + text::format_number(end[r]) +
                           ": the instance ended at or before t = 0, so it is not in the "
                           "window (gpucap import --instances leaves such rows out)");
    if (!std::isnan(start[r])) last_time = std::max(last_time, start[r]);
    if (!std::isnan(end[r])) last_time = std::max(last_time, end[r]);
  }
  if (window_s > 0) {
    for (std::size_t r = 0; r < trace.rows; ++r)
      if (start[r] > window_s)
        throw TraceDataError(where(r, columns.submit) + "holds " + text::format_number(start[r]) +
                             " s, after the end of the window (--window " +
                             text::format_number(window_s) +
                             " s); the window must hold every start");
    trace.window_s = window_s;
  } else {
    if (!(last_time > 0))
      throw TraceDataError(table.origin() +
                           ": no start or end after t = 0, so the log spans no time; give the "
                           "observation window with --window (e.g. --window 30d)");
    trace.window_s = last_time;
  }
  const double window = trace.window_s;

  const std::vector<uint32_t> class_of = make_classes(table, columns, class_values, trace);
  std::vector<std::map<uint32_t, std::size_t>> gpu_counts(trace.classes.size());
  for (std::size_t r = 0; r < trace.rows; ++r) {
    JobClass& c = trace.classes[class_of[class_values.codes[r]]];
    const uint32_t g = static_cast<uint32_t>(gpus[r]);
    ++gpu_counts[&c - trace.classes.data()][g];
    const bool running_at_end = std::isnan(end[r]) || end[r] > window;
    if (running_at_end) {
      const bool blank_start = std::isnan(start[r]);
      c.age_at_end_s.push_back(blank_start ? window : window - start[r]);
      c.gpus_at_end.push_back(g);
      c.ages_at_end_lower_bounds += blank_start;
    }
    if (std::isnan(start[r]) || start[r] < 0) {  // created before t = 0, and alive at it
      AliveInstance a;
      a.age_s = std::isnan(start[r]) ? std::nan("") : -start[r];
      a.remaining_s = std::isnan(end[r]) ? HUGE_VAL : end[r];
      a.gpus = g;
      c.alive_at_start.push_back(a);
      ++trace.alive_at_start_rows;
      continue;
    }
    c.submit_s.push_back(start[r]);
    const double lifetime = running_at_end ? window - start[r] : end[r] - start[r];
    if (!(lifetime >= kMinDurationS)) {  // started at the window's end: no time observed
      ++c.zero_duration_jobs;
      ++trace.zero_duration_rows;
      continue;
    }
    c.run_times.time_s.push_back(lifetime);
    c.run_time_submit_s.push_back(start[r]);
    c.run_times.censored.push_back(running_at_end);
    trace.censored_rows += running_at_end;
  }
  set_class_gpus(gpu_counts, trace);
  return trace;
}

}  // namespace gpucap::fit::detail
