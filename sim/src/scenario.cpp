#include "gpucap/scenario.hpp"

#include <cmath>
#include <limits>
#include <numeric>

namespace gpucap {

double DistributionSpec::mean() const {
  switch (kind) {
    case DistKind::deterministic:
    case DistKind::exponential:
      return p0;
    case DistKind::uniform:
      return 0.5 * (p0 + p1);
    case DistKind::lognormal:
      return std::exp(p0 + 0.5 * p1 * p1);
    case DistKind::gamma:
      return p0 * p1;
    case DistKind::weibull:
      return p1 * std::tgamma(1.0 + 1.0 / p0);
    case DistKind::pareto:
      return p0 > 1 ? p0 * p1 / (p0 - 1) : std::numeric_limits<double>::infinity();
    case DistKind::empirical:
      return samples.empty() ? 0.0
                             : std::accumulate(samples.begin(), samples.end(), 0.0) /
                                   static_cast<double>(samples.size());
  }
  return 0.0;
}

int Scenario::pool_index(const std::string& pool_name) const {
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (pools[i].name == pool_name) return static_cast<int>(i);
  return -1;
}

}  // namespace gpucap
