#include "lookback.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpucap/detail/text.hpp"
#include "gpucap/summary.hpp"

namespace gpucap::cli {

double lookback_commitment(std::vector<double> hourly_usage, double ratio) {
  if (hourly_usage.empty()) return 0;
  std::sort(hourly_usage.begin(), hourly_usage.end());
  return std::round(type7_quantile(hourly_usage, 1 - ratio));
}

double lookback_ratio_of(const Scenario& s, const std::string& plan_path) {
  const std::vector<std::string> keys = text::split(plan_path, '.');
  if (keys.size() != 3 || keys[0] != "commitments" || keys[2] != "gpus")
    throw std::invalid_argument("the plan " + text::excerpt(plan_path) +
                                " is not a commitment's count (commitments.NAME.gpus): give "
                                "--lookback-ratio (committed price over on-demand price)");
  for (const CommitmentSpec& c : s.commitments) {
    if (c.name != keys[1]) continue;
    for (const PoolSpec& p : s.pools)
      if (!c.covers.empty() && p.name == c.covers.front() && p.price_usd_per_gpu_hour > 0)
        return c.price_usd_per_gpu_hour / p.price_usd_per_gpu_hour;
  }
  throw std::invalid_argument("no commitment " + text::excerpt(keys[1]) +
                              " with a GPU count and a priced pool it covers; give "
                              "--lookback-ratio");
}

}  // namespace gpucap::cli
