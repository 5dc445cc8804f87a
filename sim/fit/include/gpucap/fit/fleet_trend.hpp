// gpucap fitting: does the level of an instance log's fleet (GPUs in use) drift over the window?
// A fit's arrivals may be stationary (or carry their own trend) and its lifetimes have none, so
// a fleet that grows or shrinks by the window's end is one a forecast from there may miss: the
// fit says so.
//
// The GPUs in use are averaged over each whole day of the window (every class; an instance from
// its start, or t = 0 for one created before the log, to its end, or the window's end), and the
// log of the daily means is regressed on the day by least squares. The drift is significant when
// its t statistic is above 3 in size and the fitted change is at least 5% a week; the slope's
// standard error is the residuals' inflated by sqrt((1 + ρ) / (1 - ρ)), ρ their lag-1
// autocorrelation (in [0, 0.9]): instances live for days, so neighbouring days move together.
#pragma once
#include <cstddef>

#include "gpucap/fit/job_trace.hpp"

namespace gpucap::fit {

struct FleetTrend {
  bool tested = false;       ///< an instance log of at least 7 whole days, every day in use
  std::size_t days = 0;
  double per_week = 0;       ///< fitted relative change a week (0.1: +10%)
  double t_statistic = 0;
  double first_level = 0;    ///< the fit's GPUs in use on the first day and on the last
  double last_level = 0;
  bool significant = false;
};

FleetTrend fleet_trend(const JobTrace& trace);

}  // namespace gpucap::fit
