#include "gpucap/fit/job_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "gpucap/detail/csv_table.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/fit/run_time_model.hpp"

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

JobTrace read_job_trace(const std::string& text, const std::string& origin,
                        const TraceColumns& columns, double window_s) {
  JobTrace trace;
  trace.origin = origin;
  gpucap::detail::CsvTable table;
  std::vector<double> submit, duration, gpus, censored;
  std::vector<std::string> class_values;
  try {
    table = gpucap::detail::CsvTable::parse(text, origin);
    submit = table.numbers(columns.submit);
    duration = table.numbers(columns.duration);
    gpus = table.numbers(columns.gpus);
    const auto& header = table.header();
    trace.has_censored_column =
        std::find(header.begin(), header.end(), columns.censored) != header.end();
    if (trace.has_censored_column) censored = table.numbers(columns.censored);
    class_values = table.strings(columns.class_by);
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

  // Classes, ordered by number when every value is one (values of equal number, "1" and
  // "1.0", are one class), else by text. Each distinct text is read once.
  std::unordered_map<std::string, std::size_t> class_of;  // text -> class index
  for (const std::string& s : class_values) class_of.emplace(s, 0);
  std::vector<std::pair<double, const std::string*>> keys;
  keys.reserve(class_of.size());
  bool numeric = true;
  for (const auto& [text, unused] : class_of) {
    double v = 0;
    numeric = numeric && gpucap::detail::parse_decimal(text, v);
    keys.emplace_back(v, &text);
  }
  std::sort(keys.begin(), keys.end(), [numeric](const auto& a, const auto& b) {
    if (numeric && a.first != b.first) return a.first < b.first;
    return *a.second < *b.second;
  });
  std::size_t classes = 0;
  for (std::size_t k = 0; k < keys.size(); ++k)
    classes += k == 0 || !(numeric ? keys[k].first == keys[k - 1].first
                                   : *keys[k].second == *keys[k - 1].second);
  if (classes > kMaxClasses)
    throw TraceDataError(
        table.origin() + ": column \"" + text::excerpt(columns.class_by) + "\" has " +
        std::to_string(classes) +
        " distinct values, and fit writes one workload per value: at "
        "most " +
        std::to_string(kMaxClasses) +
        " (so that the scenario stays loadable: 1 MiB of "
        "YAML); class by a column with fewer values (e.g. --class-by gpus), or merge values in the "
        "trace");
  // Names: unique, also when letter case is ignored (the samples files are named after them,
  // and some file systems ignore case). The next suffix to try is kept per base name, so that
  // many values with the same base (long values cut at 60 bytes) take linear time.
  std::unordered_set<std::string> taken;             // lower-case names in use
  std::unordered_map<std::string, int> next_suffix;  // lower-case base -> next k to try
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string& value = *keys[k].second;
    if (k > 0 && numeric && keys[k].first == keys[k - 1].first) {
      class_of[value] = trace.classes.size() - 1;
      continue;
    }
    class_of[value] = trace.classes.size();
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
  std::vector<std::map<uint32_t, std::size_t>> gpu_counts(trace.classes.size());
  for (std::size_t r = 0; r < trace.rows; ++r) {
    JobClass& c = trace.classes[class_of.at(class_values[r])];
    c.submit_s.push_back(submit[r]);
    ++gpu_counts[&c - trace.classes.data()][static_cast<uint32_t>(gpus[r])];
    if (duration[r] == 0) {
      ++c.zero_duration_jobs;
      ++trace.zero_duration_rows;
      continue;
    }
    c.run_times.time_s.push_back(duration[r]);
    c.run_times.censored.push_back(trace.has_censored_column && censored[r] == 1);
  }
  for (std::size_t i = 0; i < trace.classes.size(); ++i) {
    const auto& counts = gpu_counts[i];
    auto mode = std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    trace.classes[i].gpus = mode->first;
    trace.classes[i].mixed_gpus = counts.size() > 1;
  }
  return trace;
}

}  // namespace gpucap::fit
