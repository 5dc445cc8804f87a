#include "gpucap/scenario.hpp"

#include <algorithm>
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
    case DistKind::empirical: {
      if (samples.empty()) return 0.0;
      const double body = std::accumulate(samples.begin(), samples.end(), 0.0) /
                          static_cast<double>(samples.size());
      if (!(p0 > 0)) return body;  // no tail
      return (1 - p0) * body + p0 * (*std::max_element(samples.begin(), samples.end()) + p1);
    }
  }
  return 0.0;
}

double Scenario::timeseries_bins() const {
  return timeseries_step_s > 0 ? std::ceil(horizon_s / timeseries_step_s) : 0.0;
}

int Scenario::pool_index(const std::string& pool_name) const {
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (pools[i].name == pool_name) return static_cast<int>(i);
  return -1;
}

int Scenario::commitment_index(const std::string& commitment_name) const {
  for (std::size_t i = 0; i < commitments.size(); ++i)
    if (commitments[i].name == commitment_name) return static_cast<int>(i);
  return -1;
}

const RegionSpec* Scenario::region(const std::string& region_name) const {
  for (const RegionSpec& r : regions)
    if (r.name == region_name) return &r;
  return nullptr;
}

namespace {
double between(const Scenario& s, const std::string& a, const std::string& b,
               std::map<std::string, double> RegionSpec::*table) {
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    const RegionSpec* r = s.region(from);
    if (!r) continue;
    const auto it = (r->*table).find(to);
    if (it != (r->*table).end()) return it->second;
  }
  return -1;
}
}  // namespace

double Scenario::latency_ms(const std::string& a, const std::string& b) const {
  return a == b ? 0.0 : between(*this, a, b, &RegionSpec::latency_ms);
}

double Scenario::bandwidth_gbps(const std::string& a, const std::string& b) const {
  return between(*this, a, b, &RegionSpec::bandwidth_gbps);
}

}  // namespace gpucap
