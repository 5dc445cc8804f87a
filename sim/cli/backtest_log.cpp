#include "backtest_log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "gpucap/csv_table.hpp"

namespace gpucap::cli {
namespace {

constexpr double kHourS = 3600.0;

/// A time with enough digits to read back the same double.
std::string cell(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

/// A CSV cell of text: quoted when it holds a comma, a quote or a line break.
std::string text_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

double number_or_nan(std::string_view s) {
  double v = 0;
  return !s.empty() && parse_decimal(s, v) ? v : std::nan("");
}

}  // namespace

BacktestLog BacktestLog::read(const std::string& text, const std::string& origin, LogKind kind,
                              const fit::TraceColumns& columns, double window_s) {
  // gpucap fit's reader checks every cell and finds the window; the rows are then read as they
  // are (checked).
  CsvTable table;
  try {
    table = CsvTable::parse(text, origin);
  } catch (const std::runtime_error& e) {
    throw fit::TraceDataError(e.what());
  }
  const fit::JobTrace checked = fit::read_job_trace(table, origin, columns, window_s);
  BacktestLog log;
  log.kind_ = kind;
  log.window_s_ = checked.window_s;
  const std::size_t n = table.rows();
  log.start_.assign(n, 0.0);
  log.end_.assign(n, 0.0);
  log.censored_.assign(n, 0);
  const std::vector<double> gpus = table.numbers(columns.gpus);
  for (double g : gpus) log.gpus_.push_back(static_cast<uint32_t>(g));
  table.for_each_cell(columns.submit, [&](std::size_t r, std::string_view c) {
    log.start_[r] = number_or_nan(c);
  });
  if (kind == LogKind::instances) {
    table.for_each_cell(columns.end, [&](std::size_t r, std::string_view c) {
      log.end_[r] = number_or_nan(c);
    });
  } else {
    table.for_each_cell(columns.duration, [&](std::size_t r, std::string_view c) {
      log.end_[r] = log.start_[r] + number_or_nan(c);
    });
    if (checked.has_censored_column)
      table.for_each_cell(columns.censored, [&](std::size_t r, std::string_view c) {
        log.censored_[r] = number_or_nan(c) == 1.0;
      });
  }
  if (columns.class_by != columns.gpus) {
    log.class_column_ = columns.class_by;
    log.class_values_ = table.strings(columns.class_by);
  }
  return log;
}

std::string BacktestLog::known_at(double t_s) const {
  const bool instances = kind_ == LogKind::instances;
  std::string csv = instances ? "start_s,end_s,gpus" : "submit_s,duration_s,gpus,censored";
  if (!class_column_.empty()) csv += "," + text_cell(class_column_);
  csv += "\n";
  for (std::size_t r = 0; r < rows(); ++r) {
    const double start = start_[r], end = end_[r];
    if (instances) {
      if (!std::isnan(start) && start > t_s) continue;  // not begun by T
      csv += (std::isnan(start) ? "" : cell(start)) + "," +
             (std::isnan(end) || end > t_s ? "" : cell(end));
    } else {
      if (start > t_s) continue;
      const bool running = end > t_s || censored_[r];
      const double ran = std::min(end, t_s) - start;
      csv += cell(start) + "," + cell(ran) + ",";
      csv += std::to_string(gpus_[r]) + "," + (running ? "1" : "0");
      if (!class_column_.empty()) csv += "," + text_cell(class_values_[r]);
      csv += "\n";
      continue;
    }
    csv += "," + std::to_string(gpus_[r]);
    if (!class_column_.empty()) csv += "," + text_cell(class_values_[r]);
    csv += "\n";
  }
  return csv;
}

std::string BacktestLog::arrived(double t_s, double h_s, std::size_t& rows) const {
  const bool instances = kind_ == LogKind::instances;
  std::string csv = instances ? "start_s,end_s,gpus\n" : "submit_s,duration_s,gpus\n";
  rows = 0;
  for (std::size_t r = 0; r < this->rows(); ++r) {
    const double start = start_[r], end = end_[r];
    if (!(start > t_s && start <= t_s + h_s)) continue;  // blank (NaN) starts are before
    ++rows;
    if (instances)
      csv += cell(start - t_s) + "," + (std::isnan(end) ? "" : cell(end - t_s)) + "," +
             std::to_string(gpus_[r]) + "\n";
    else
      csv += cell(start - t_s) + "," + cell(end - start) + "," + std::to_string(gpus_[r]) + "\n";
  }
  return csv;
}

std::string BacktestLog::alive_at(double t_s, std::size_t& rows) const {
  std::string csv = "gpus,remaining\n";
  rows = 0;
  if (kind_ != LogKind::instances) return csv;
  for (std::size_t r = 0; r < this->rows(); ++r) {
    const double start = start_[r], end = end_[r];
    if (!(std::isnan(start) || start <= t_s) || !(std::isnan(end) || end > t_s)) continue;
    ++rows;
    csv += std::to_string(gpus_[r]) + "," + (std::isnan(end) ? "" : cell(end - t_s)) + "\n";
  }
  return csv;
}

std::vector<double> BacktestLog::hourly_usage(double from_s, double to_s) const {
  const std::size_t hours =
      to_s > from_s ? static_cast<std::size_t>(std::floor((to_s - from_s) / kHourS)) : 0;
  std::vector<double> usage(hours, 0.0);
  if (hours == 0) return usage;
  const double last = from_s + hours * kHourS;
  // Each row's GPU-seconds in each hour it overlaps (clipped to [from, last]).
  for (std::size_t r = 0; r < rows(); ++r) {
    const double a = std::max(std::isnan(start_[r]) ? from_s : start_[r], from_s);
    const double b = std::min(std::isnan(end_[r]) ? last : end_[r], last);
    if (!(b > a)) continue;
    std::size_t k = static_cast<std::size_t>((a - from_s) / kHourS);
    for (double t = a; t < b && k < hours; ++k) {
      const double edge = std::min(b, from_s + (k + 1) * kHourS);
      usage[k] += gpus_[r] * (edge - t);
      t = edge;
    }
  }
  for (double& u : usage) u /= kHourS;
  return usage;
}

}  // namespace gpucap::cli
