// gpucap recommend --lookback: the commitment the clouds' reservation recommenders make from a
// look-back window of usage. A committed GPU costs `commit` every hour, used or not; on demand a
// GPU-hour costs `on_demand`. Committing one more GPU at level C saves on_demand in the hours
// whose usage exceeds C and costs commit in all: worth it while P(usage > C) > commit /
// on_demand. So the recommendation is the (1 - commit / on_demand) quantile of the window's
// hourly usage (GPUs in use, averaged over each hour), rounded to a whole GPU: the best count
// if the future's hours are drawn from the window's.
#pragma once
#include <string>
#include <vector>

#include "gpucap/scenario.hpp"

namespace gpucap::cli {

/// The (1 - ratio) quantile (linear between order statistics) of `hourly_usage`, rounded to
/// the nearest whole GPU; ratio = commit / on-demand price, in (0, 1). 0 for no hours.
double lookback_commitment(std::vector<double> hourly_usage, double ratio);

/// commit / on-demand of a plan path "commitments.NAME.gpus" of `s`: the commitment's price per
/// GPU-hour over the price of the first pool it covers. Throws std::invalid_argument naming
/// what is missing when the path is not such a commitment's count (--lookback-ratio then).
double lookback_ratio_of(const Scenario& s, const std::string& plan_path);

}  // namespace gpucap::cli
