// gpucap backtest: rolling-origin evaluation of gpucap's forecasts on a log (docs/backtest.md).
//
// For each origin T (the first, then every `every_s`, while T + horizon lies within the log):
//  1. fit the log as it was known at T (BacktestLog::known_at: gpucap fit with window T; an
//     instance log's state at T with --state end, lifetimes drawn given ages);
//  2. forecast [T, T + h]: the pools scenario with the fitted section, `replications` futures at
//     each value of the plan (a sweep, common random numbers), and the plan whose mean
//     objective is lowest (the forecast's choice);
//  3. replay what happened in [T, T + h] (BacktestLog::arrived and alive_at: a trace from the state at T) on
//     the same pools at each plan value (and at the look-back recommender's count);
//  4. score: each metric's truth (the replay at the forecast's plan) against the forecast's
//     distribution there (its 5/25/50/75/95% quantiles and the truth's percentile, the PIT), and
//     the plan's regret (its true objective over the best value's in hindsight, minus 1) against
//     the look-back recommender's (lookback.hpp).
// Over the origins: the share of truths inside the 50% and 90% intervals (coverage), the mean
// PIT, and the mean regrets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backtest_log.hpp"
#include "gpucap/fit/run_time_model.hpp"
#include "gpucap/fit/workload_yaml.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap::cli {

struct BacktestOptions {
  std::string log_path;
  LogKind kind = LogKind::instances;
  fit::TraceColumns columns;
  double window_s = 0;                 ///< the log's end (0: its last time)
  std::string pools_path;              ///< name, seed and pools (commitments, ...) to run on
  std::vector<std::string> placement;  ///< the fitted workloads' pools
  double first_s = 7 * 86400.0, every_s = 2 * 86400.0, horizon_s = 7 * 86400.0;
  std::size_t max_origins = 1000;
  std::vector<ScalarMetric> metrics;
  std::string plan_path;                 ///< empty: no plan (metrics only)
  std::vector<std::string> plan_values;  ///< YAML values, in order
  ScalarMetric objective = kCostUsd;     ///< the plan minimizes its mean
  double lookback_s = 14 * 86400.0;
  double lookback_ratio = -1;  ///< commit / on-demand; < 0: from the plan's commitment
  uint64_t replications = 200, truth_replications = 5;
  fit::TrendChoice trend = fit::TrendChoice::extrapolate;
  fit::RunTimeChoice family = fit::RunTimeChoice::automatic;
  double alpha = 0.01;
  double origin_offset_s = 0;  ///< the log's t = 0 after a Monday 00:00 (--origin)
  InputLimits limits;
  std::string work_dir;  ///< where each origin's fitted files are written (then removed)
};

/// One metric at one origin.
struct MetricForecast {
  ScalarMetric metric = kCostUsd;
  static constexpr double kUndefined = __builtin_nan("");  ///< n/a in tables, null in JSON
  double truth = kUndefined;  ///< the replay's mean over its replications
  double mean = kUndefined, q05 = kUndefined, q25 = kUndefined, q50 = kUndefined,
         q75 = kUndefined, q95 = kUndefined;  ///< the forecast's
  double pit = 0.5;  ///< share of the forecast's values below the truth (ties count half)
  bool defined = false;  ///< both have a value
};

struct OriginResult {
  double origin_s = 0;
  std::string error;  ///< non-empty: this origin could not be forecast (why); nothing else set
  std::vector<std::string> notes;  ///< the fit's warnings
  std::vector<MetricForecast> metrics;  ///< at the forecast's plan
  // The plan (when plan_path is set): per value, the forecast's mean objective and the truth's.
  std::size_t chosen = 0;
  std::vector<double> forecast_objective, truth_objective;
  std::size_t best = 0;  ///< the value of the lowest true objective
  double lookback_value = 0, lookback_truth = 0;  ///< the recommender's count and its truth
  bool has_lookback = false;
  double regret = 0, lookback_regret = 0;  ///< truth / best truth - 1
};

struct MetricCoverage {
  ScalarMetric metric = kCostUsd;
  std::size_t origins = 0;          ///< with a defined forecast and truth
  std::size_t in50 = 0, in90 = 0;   ///< truths inside [q25, q75] and [q05, q95]
  double mean_pit = 0;
};

struct BacktestResult {
  std::vector<OriginResult> origins;
  std::vector<MetricCoverage> coverage;
  double lookback_ratio = -1;  ///< used (< 0: no look-back comparator)
  std::size_t planned = 0;     ///< origins with a plan scored
  double mean_regret = 0, mean_lookback_regret = 0;
};

/// Runs the backtest. `progress` is told each origin as it starts (index, count, T). Throws
/// std::invalid_argument for options this log cannot have (no origin fits in it) or a pools file
/// that is not a YAML map with pools, fit::TraceDataError for a log that cannot be read; an
/// origin that cannot be fitted or run (its scenario does not load) is reported in its
/// OriginResult::error.
BacktestResult run_backtest(const BacktestOptions& options, const std::string& log_text,
                            const std::function<void(std::size_t, std::size_t, double)>& progress);

/// The origins of `options` in a log of `window_s`: first, first + every, ... while
/// T + horizon <= window, at most max_origins.
std::vector<double> backtest_origins(const BacktestOptions& options, double window_s);

}  // namespace gpucap::cli
