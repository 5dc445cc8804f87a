// gpucap backtest: a log cut at a forecast's origin T, the way `gpucap backtest` uses it: what
// was known at T (the rows to fit, with everything after T unknown), what happened in
// [T, T + h] (the rows to replay, shifted so that T is t = 0), and the GPUs in use hour by hour
// (the look-back recommender's input).
//
// Three kinds of log, the three `gpucap fit --kind`s: an instance log (start, end, gpus; a
// blank start: before the log, a blank end: still running at its end), a job trace (submit,
// duration, gpus, optional censored) and a request log (submit, duration, optional gpus). Jobs
// and requests are taken to run from their submit time (the log's waits are not the plan's).
//
//   const BacktestLog log = BacktestLog::read(text, "log.csv", LogKind::instances, columns);
//   std::string known = log.known_at(10 * 86400);               // fit this with window T
//   std::size_t n = 0, alive = 0;
//   std::string after = log.arrived(10 * 86400, 7 * 86400, n);  // replay these from t = 0,
//   std::string state = log.alive_at(10 * 86400, alive);        // from this state at t = 0
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/fit/job_trace.hpp"

namespace gpucap::cli {

enum class LogKind { instances, jobs, requests };

class BacktestLog {
 public:
  /// Reads a whole CSV; `columns` names its columns as gpucap fit's (columns.end for
  /// instances); `window_s` > 0 is the log's end (else its last start or end). Throws
  /// fit::TraceDataError naming file:line and the column.
  static BacktestLog read(const std::string& text, const std::string& origin, LogKind kind,
                          const fit::TraceColumns& columns, double window_s = 0);

  LogKind kind() const { return kind_; }
  double window_s() const { return window_s_; }
  std::size_t rows() const { return start_.size(); }

  /// What was known at T, as a CSV gpucap fit reads with window T (columns start_s, end_s,
  /// gpus, or submit_s, duration_s, gpus, censored; plus the class column when it is another):
  /// the rows begun by T; an end after T is blank (an instance still running at T), a job
  /// running at T has the time it ran by T, censored.
  std::string known_at(double t_s) const;

  /// What arrived in (T, T + h] as a trace (start_s, end_s, gpus or submit_s, duration_s,
  /// gpus), times shifted so that T is 0; an end after the log's end stays blank (still
  /// running). `rows` receives how many.
  std::string arrived(double t_s, double h_s, std::size_t& rows) const;

  /// The instances alive at T as an `initial_state` file (gpus, remaining in s from T; blank:
  /// still running at the log's end); `rows` receives how many. Jobs and requests: none.
  std::string alive_at(double t_s, std::size_t& rows) const;

  /// GPUs in use, averaged over each hour [from + k h, from + (k + 1) h) up to `to` (whole hours
  /// only): instances from start (before the log: from -infinity) to end (blank: +infinity),
  /// jobs from submit to submit + duration.
  std::vector<double> hourly_usage(double from_s, double to_s) const;

  /// The class column's name in the CSVs above ("gpus" when classes are by GPUs).
  const std::string& class_column() const { return class_column_; }

 private:
  LogKind kind_ = LogKind::instances;
  double window_s_ = 0;
  std::vector<double> start_, end_;  ///< NaN: blank (before the log / still running)
  std::vector<uint32_t> gpus_;
  std::vector<uint8_t> censored_;         ///< jobs: still running at the log's end
  std::string class_column_;              ///< empty: classes by gpus
  std::vector<std::string> class_values_;  ///< per row when class_column_ is set
};

}  // namespace gpucap::cli
