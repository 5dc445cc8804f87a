#include "gpucap/fit/job_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "gpucap/csv_table.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/fit/run_time_model.hpp"

#include "trace_classes.hpp"

namespace gpucap::fit {
namespace {

constexpr double kMaxGpus = 1048575;

/// Text safe in a workload name and in a file name: letters, digits, '-', '_' and '.' kept,
/// every other byte '_' (so no '/', no control character), at most `max_bytes` bytes.
std::string name_part(const std::string& text, std::size_t max_bytes) {
  std::string clean;
  for (char c : text.substr(0, max_bytes))
    clean +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return clean;
}

std::string workload_name(const std::string& column, const std::string& value) {
  const std::string c = name_part(column, 40), v = name_part(value, 60);
  return (c.empty() ? "class" : c) + "-" + (v.empty() ? "empty" : v);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

namespace detail {

/// Makes trace.classes from the class column, ordered by number when every value is one
/// (values of equal number, "1" and "1.0", are one class), else by text, and returns each
/// text's class (index into class_values.values -> index into trace.classes).
std::vector<uint32_t> make_classes(const gpucap::CsvTable& table, const TraceColumns& columns,
                                   const gpucap::CsvTable::Categories& class_values,
                                   JobTrace& trace) {
  const std::vector<std::string>& texts = class_values.values;
  const std::string too_many =
      table.origin() + ": column \"" + text::excerpt(columns.class_by) + "\" has ";
  const std::string too_many_why =
      " distinct values, and fit writes one workload per value: at most " +
      std::to_string(kMaxClasses) +
      " (so that the scenario stays loadable: 1 MiB of YAML); class by a column with fewer "
      "values (e.g. --class-by gpus), or merge values in the trace";
  if (class_values.overflow_row != SIZE_MAX)
    throw TraceDataError(too_many + "more than " + std::to_string(kMaxClassTexts) + too_many_why);
  std::vector<std::pair<double, uint32_t>> keys;  // (number, index into texts)
  keys.reserve(texts.size());
  bool numeric = true;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    double v = 0;
    numeric = numeric && gpucap::parse_decimal(texts[i], v);
    keys.emplace_back(v, static_cast<uint32_t>(i));
  }
  std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    if (numeric && a.first != b.first) return a.first < b.first;
    return texts[a.second] < texts[b.second];
  });
  const auto same_class = [&](std::size_t k) {
    return k > 0 && numeric && keys[k].first == keys[k - 1].first;
  };
  std::size_t classes = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) classes += !same_class(k);
  if (classes > kMaxClasses)
    throw TraceDataError(too_many + std::to_string(classes) + too_many_why);
  // Names: unique, also when letter case is ignored (the samples files are named after them,
  // and some file systems ignore case). The next suffix to try is kept per base name, so that
  // many values with the same base (long values cut at 60 bytes) take linear time.
  std::vector<uint32_t> class_of(texts.size());      // index into texts -> class
  std::unordered_set<std::string> taken;             // lower-case names in use
  std::unordered_map<std::string, int> next_suffix;  // lower-case base -> next k to try
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string& value = texts[keys[k].second];
    if (same_class(k)) {
      class_of[keys[k].second] = static_cast<uint32_t>(trace.classes.size() - 1);
      continue;
    }
    class_of[keys[k].second] = static_cast<uint32_t>(trace.classes.size());
    JobClass c;
    c.value = value;
    const std::string base = workload_name(columns.class_by, value);
    c.name = base;
    if (taken.count(lower(base))) {
      int& suffix = next_suffix.emplace(lower(base), 2).first->second;
      do c.name = base + "-" + std::to_string(suffix++);
      while (taken.count(lower(c.name)));
    }
    taken.insert(lower(c.name));
    trace.classes.push_back(std::move(c));
  }
  return class_of;
}

/// Each class's GPUs: the most common count among its rows (`counts` per class).
void set_class_gpus(const std::vector<std::map<uint32_t, std::size_t>>& counts, JobTrace& trace) {
  for (std::size_t i = 0; i < trace.classes.size(); ++i) {
    auto mode = std::max_element(counts[i].begin(), counts[i].end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    trace.classes[i].gpus = mode->first;
    trace.classes[i].mixed_gpus = counts[i].size() > 1;
  }
}

}  // namespace detail

JobTrace read_job_trace(const std::string& text, const std::string& origin,
                        const TraceColumns& columns, double window_s) {
  gpucap::CsvTable table;
  try {
    table = gpucap::CsvTable::parse(text, origin);
  } catch (const std::runtime_error& e) {
    throw TraceDataError(e.what());
  }
  return read_job_trace(table, origin, columns, window_s);
}

JobTrace read_job_trace(const gpucap::CsvTable& table, const std::string& origin,
                        const TraceColumns& columns, double window_s) {
  JobTrace trace;
  trace.origin = origin;
  // Shared with the table rather than copied (a large trace's columns are its bulk).
  gpucap::NumberColumn submit, duration, gpus, censored;
  gpucap::CsvTable::Categories class_values;
  if (!columns.context.empty()) return detail::read_request_log(table, columns, window_s);
  try {
    class_values = table.categories(columns.class_by, detail::kMaxClassTexts);
    if (!columns.end.empty())
      return detail::read_instance_log(table, columns, class_values, window_s);
    submit = table.number_column(columns.submit);
    duration = table.number_column(columns.duration);
    gpus = table.number_column(columns.gpus);
    trace.has_censored_column = table.has_column(columns.censored);
    if (trace.has_censored_column) censored = table.number_column(columns.censored);
  } catch (const std::runtime_error& e) {
    throw TraceDataError(e.what());
  }
  trace.rows = table.rows();
  if (trace.rows == 0)
    throw TraceDataError(table.origin() +
                         ": the trace has a header but no jobs; it needs at "
                         "least one row (" +
                         text::excerpt(columns.submit) + "," + text::excerpt(columns.gpus) + "," +
                         text::excerpt(columns.duration) + ")");
  auto where = [&](std::size_t r, const std::string& column) {
    return table.origin() + ":" + std::to_string(table.line_of_row(r)) + ": column \"" +
           text::excerpt(column) + "\" ";
  };
  auto number = [](double v) { return text::format_number(v); };
  double derived_window = 0;
  for (std::size_t r = 0; r < trace.rows; ++r) {
    if (submit[r] < 0 || submit[r] > kMaxDurationS)
      throw TraceDataError(where(r, columns.submit) + "holds " + number(submit[r]) +
                           "; a submit time is seconds from 0 to 3.156e11 (10000 years)");
    if (duration[r] < 0 || duration[r] > kMaxDurationS)
      throw TraceDataError(where(r, columns.duration) + "holds " + number(duration[r]) +
                           "; a run time is seconds from 0 to 3.156e11 (10000 years)");
    if (duration[r] > 0 && duration[r] < kMinDurationS)
      throw TraceDataError(where(r, columns.duration) + "holds " + number(duration[r]) +
                           "; a run time is 0 or at least 1e-6 s (1 us)");
    if (gpus[r] < 1 || gpus[r] > kMaxGpus || gpus[r] != std::floor(gpus[r]))
      throw TraceDataError(where(r, columns.gpus) + "holds " + number(gpus[r]) +
                           "; GPUs are a whole number from 1 to 1048575");
    if (trace.has_censored_column && censored[r] != 0 && censored[r] != 1)
      throw TraceDataError(where(r, columns.censored) + "holds " + number(censored[r]) +
                           "; it is 1 (still running at the log's end) or 0 (finished)");
    const bool is_censored = trace.has_censored_column && censored[r] == 1;
    trace.censored_rows += is_censored;
    derived_window = std::max(derived_window, submit[r]);
    if (is_censored) derived_window = std::max(derived_window, submit[r] + duration[r]);
  }
  if (window_s > 0) {
    for (std::size_t r = 0; r < trace.rows; ++r)
      if (submit[r] > window_s)
        throw TraceDataError(where(r, columns.submit) + "holds " + number(submit[r]) +
                             " s, after the end of the window (--window " + number(window_s) +
                             " s); the window must hold every submit time");
    trace.window_s = window_s;
  } else {
    if (!(derived_window > 0))
      throw TraceDataError(table.origin() +
                           ": every job was submitted at 0 s, so the trace spans no "
                           "time and no arrival rate can be estimated; give the "
                           "observation window with --window (e.g. --window 7d)");
    trace.window_s = derived_window;
  }

  const std::vector<uint32_t> class_of = detail::make_classes(table, columns, class_values, trace);
  // Each class's vectors sized exactly (no growth slack on a large trace).
  std::vector<std::size_t> jobs(trace.classes.size()), timed(trace.classes.size());
  for (std::size_t r = 0; r < trace.rows; ++r) {
    const uint32_t k = class_of[class_values.codes[r]];
    ++jobs[k];
    timed[k] += duration[r] != 0;
  }
  for (std::size_t k = 0; k < trace.classes.size(); ++k) {
    trace.classes[k].submit_s.reserve(jobs[k]);
    trace.classes[k].run_times.time_s.reserve(timed[k]);
    trace.classes[k].run_times.censored.reserve(timed[k]);
  }
  std::vector<std::map<uint32_t, std::size_t>> gpu_counts(trace.classes.size());
  for (std::size_t r = 0; r < trace.rows; ++r) {
    JobClass& c = trace.classes[class_of[class_values.codes[r]]];
    c.submit_s.push_back(submit[r]);
    ++gpu_counts[&c - trace.classes.data()][static_cast<uint32_t>(gpus[r])];
    if (duration[r] == 0) {
      ++c.zero_duration_jobs;
      ++trace.zero_duration_rows;
      continue;
    }
    c.run_times.time_s.push_back(duration[r]);
    c.run_time_submit_s.push_back(submit[r]);
    c.run_times.censored.push_back(trace.has_censored_column && censored[r] == 1);
  }
  detail::set_class_gpus(gpu_counts, trace);
  return trace;
}

}  // namespace gpucap::fit
