#include "gpucap/fit/job_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "gpucap/detail/csv_table.hpp"
#include "gpucap/detail/text.hpp"
#include "gpucap/fit/run_time_model.hpp"

namespace gpucap::fit {
namespace {

constexpr double kMaxGpus = 1048575;

bool is_number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && std::isfinite(v);
}

std::string workload_name(const std::string& column, const std::string& value) {
  std::string clean;
  for (char c : value.substr(0, 60))
    clean += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
                 ? c
                 : '_';
  return column + "-" + (clean.empty() ? "empty" : clean);
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
    throw TraceDataError(origin + ": the trace has a header but no jobs; it needs at least one "
                                  "row (" + columns.submit + "," + columns.gpus + "," +
                         columns.duration + ")");
  auto where = [&](std::size_t r, const std::string& column) {
    return origin + ":" + std::to_string(table.line_of_row(r)) + ": column \"" +
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
      throw TraceDataError(origin + ": every job was submitted at 0 s, so the trace spans no "
                                    "time and no arrival rate can be estimated; give the "
                                    "observation window with --window (e.g. --window 7d)");
    trace.window_s = derived_window;
  }

  // Classes, ordered by number when every value is one, else by text.
  bool numeric = true;
  double v;
  for (const std::string& s : class_values) numeric = numeric && is_number(s, v);
  auto less = [numeric](const std::string& a, const std::string& b) {
    return numeric ? std::strtod(a.c_str(), nullptr) < std::strtod(b.c_str(), nullptr) : a < b;
  };
  std::map<std::string, std::size_t, decltype(less)> index(less);
  for (const std::string& s : class_values) index.emplace(s, 0);
  std::set<std::string> names;
  for (auto& [value, i] : index) {
    i = trace.classes.size();
    JobClass c;
    c.value = value;
    c.name = workload_name(columns.class_by, value);
    for (int k = 2; names.count(c.name); ++k) c.name = workload_name(columns.class_by, value) +
                                                       "-" + std::to_string(k);
    names.insert(c.name);
    trace.classes.push_back(std::move(c));
  }
  std::vector<std::map<uint32_t, std::size_t>> gpu_counts(trace.classes.size());
  for (std::size_t r = 0; r < trace.rows; ++r) {
    JobClass& c = trace.classes[index.at(class_values[r])];
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
    auto mode = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;
    });
    trace.classes[i].gpus = mode->first;
    trace.classes[i].mixed_gpus = counts.size() > 1;
  }
  return trace;
}

}  // namespace gpucap::fit
