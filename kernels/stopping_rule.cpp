// gpucap: the sequential stopping rule (see stopping_rule.hpp).
#include "gpucap/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "gpucap/memory_estimate.hpp"
#include "gpucap/scenario.hpp"
#include "gpucap/summary.hpp"

namespace gpucap {
namespace {

uint64_t round_up_to_block(uint64_t n) {
  return (n + kMomentBlock - 1) / kMomentBlock * kMomentBlock;
}

std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

/// Metric m's moments over the replications of `point`.
Moments metric_moments(const RunResults& r, std::size_t point, ScalarMetric m) {
  return column_moments(r.scalars.data() + point * r.replications * kScalarMetricCount + m,
                        r.replications, kScalarMetricCount);
}

/// The relative half-width of the 95% interval of a mean with moments `mo` (see the header).
double relative_half_width(const Moments& mo) {
  if (mo.n < 2) return std::numeric_limits<double>::quiet_NaN();
  const double sd = std::sqrt(mo.m2 / (mo.n - 1));
  const double half =
      student_t_quantile(0.95, static_cast<std::size_t>(mo.n) - 1) * sd / std::sqrt(mo.n);
  if (half == 0) return 0;
  if (mo.mean == 0) return std::numeric_limits<double>::infinity();
  return half / std::fabs(mo.mean);
}

}  // namespace

double relative_half_width(const RunResults& r, std::size_t point, ScalarMetric m) {
  return relative_half_width(metric_moments(r, point, m));
}

StoppingRule::StoppingRule(double precision, std::vector<ScalarMetric> metrics,
                           uint64_t max_replications, uint64_t first_replication)
    : precision_(precision), metrics_(std::move(metrics)) {
  if (!(precision > 0 && precision <= 1))
    throw std::invalid_argument(
        "precision must be a relative half-width above 0 and at most 1 (e.g. 0.01 for 1% of "
        "the mean), got " + format_number(precision));
  if (first_replication % kMomentBlock != 0)
    throw std::invalid_argument("a run with a precision target must start at a multiple of " +
                                std::to_string(kMomentBlock) + " replications");
  cap_ = max_replications > 0 ? max_replications : kDefaultMaxReplications;
  if (cap_ > kMaxReplications)
    throw std::invalid_argument("max replications must be at most " +
                                std::to_string(kMaxReplications) + ", got " + std::to_string(cap_));
  if (cap_ < 2)
    throw std::invalid_argument("max replications must be at least 2 for an interval, got " +
                                std::to_string(cap_));
  if (metrics_.empty()) metrics_.push_back(kCostUsd);
}

uint64_t StoppingRule::first_batch(uint64_t asked) const {
  return std::min(round_up_to_block(std::max<uint64_t>(asked, 2)), cap_);
}

uint64_t StoppingRule::next_total(const RunResults& r, uint64_t available_bytes, bool writes_file) {
  // A metric that no replication of a batch defines (NaN in every row: wait_mean where no job
  // runs) would run to the cap without ever becoming precise: refused after the first batch.
  // Each point's and metric's moments, read once: [p * metrics + k].
  std::vector<Moments> moments;
  for (std::size_t p = 0; p < r.points; ++p)
    for (ScalarMetric m : metrics_) moments.push_back(metric_moments(r, p, m));
  for (std::size_t k = 0; k < metrics_.size(); ++k) {
    const ScalarMetric m = metrics_[k];
    std::vector<std::size_t> undefined;
    for (std::size_t p = 0; p < r.points; ++p)
      if (moments[p * metrics_.size() + k].n == 0) undefined.push_back(p);
    if (undefined.empty()) continue;
    const MetricInfo& info = kScalarMetricInfo[m];
    std::string where = r.points == 1 ? std::string("the run") : "point";
    if (r.points > 1) {
      where += undefined.size() > 1 ? "s " : " ";
      for (std::size_t i = 0; i < undefined.size() && i < 10; ++i)
        where += (i ? ", " : "") + std::to_string(undefined[i]);
      if (undefined.size() > 10) where += " and " + std::to_string(undefined.size() - 10) + " more";
    }
    throw std::invalid_argument(
        std::string("the precision metric ") + info.name + " is not defined in any of the " +
        std::to_string(r.replications) + " replications of " + where +
        (info.defined_when ? std::string(" (it needs: ") + info.defined_when + ")" : "") +
        ", so no number of replications makes it precise; choose metrics this scenario "
        "measures (--metrics)");
  }
  worst_ = 0;
  for (const Moments& mo : moments) {
    const double w = relative_half_width(mo);
    worst_ = std::isnan(w) ? std::numeric_limits<double>::infinity() : std::max(worst_, w);
  }
  const uint64_t have = r.replications;
  if (worst_ <= precision_ || have >= cap_) return 0;
  // h ~ 1/sqrt(n): n_needed = n (h / target)^2, with 5% to spare; between one block and 4x.
  const double ratio = std::isfinite(worst_) ? worst_ / precision_ : 4.0;
  const double projected = std::ceil(static_cast<double>(have) * ratio * ratio * 1.05);
  uint64_t next = projected >= static_cast<double>(cap_)
                      ? cap_
                      : round_up_to_block(static_cast<uint64_t>(projected));
  next = std::max<uint64_t>(next, have + kMomentBlock);
  next = std::min<uint64_t>(next, std::max<uint64_t>(have * 4, have + kMomentBlock));
  next = std::min(next, cap_);
  const MemoryEstimate need =
      estimate_run_memory(r.points, next, r.pool_count(), r.timeseries_bins, 0, 0, writes_file);
  if (need.total_bytes() > available_bytes)
    throw std::invalid_argument(
        "reaching the precision " + format_number(precision_) + " needs about " +
        std::to_string(next) + " replications per point (worst relative half-width now " +
        format_number(worst_) + " at " + std::to_string(have) + "), whose rows need " +
        need.describe() + ", more than the " + format_bytes(available_bytes) +
        " available; ask for less precision or lower --max-replications");
  return next;
}

std::string StoppingRule::outcome(const RunResults& r) const {
  std::string names;
  for (ScalarMetric m : metrics_)
    names += std::string(names.empty() ? "" : ", ") + kScalarMetricInfo[m].name;
  const bool reached = worst_ <= precision_;
  return "relative half-width of the 95% interval of the mean <= " + format_number(precision_) +
         " for " + names + ": " + (reached ? "reached" : "NOT reached (the cap)") + " at " +
         std::to_string(r.replications) + " replications (worst " + format_number(worst_) + ")";
}

}  // namespace gpucap
