// gpucap: the sequential stopping rule (see stopping_rule.hpp).
#include "gpucap/stopping_rule.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpucap/concat.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/memory_estimate.hpp"
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

}  // namespace

double relative_half_width(const RunResults& r, std::size_t point, ScalarMetric m) {
  const Moments mo = column_moments(r.scalars.data() + point * r.replications * kScalarMetricCount + m,
                                    r.replications, kScalarMetricCount);
  if (mo.n < 2) return std::numeric_limits<double>::quiet_NaN();
  const double sd = std::sqrt(mo.m2 / (mo.n - 1));
  const double half =
      student_t_quantile(0.95, static_cast<std::size_t>(mo.n) - 1) * sd / std::sqrt(mo.n);
  if (half == 0) return 0;
  if (mo.mean == 0) return std::numeric_limits<double>::infinity();
  return half / std::fabs(mo.mean);
}

RunResults run_to_precision(const std::vector<Scenario>& points,
                            const std::vector<SweepParameter>& sweep, const Scenario& base,
                            const RunOptions& options) {
  if (!(options.precision > 0 && options.precision <= 1))
    throw std::invalid_argument(
        "precision must be a relative half-width above 0 and at most 1 (e.g. 0.01 for 1% of "
        "the mean), got " + format_number(options.precision));
  if (points.empty()) throw std::invalid_argument("run_points: no points");
  if (options.first_replication % kMomentBlock != 0)
    throw std::invalid_argument("a run with a precision target must start at a multiple of " +
                                std::to_string(kMomentBlock) + " replications");
  const uint64_t cap =
      options.max_replications > 0 ? options.max_replications : kDefaultMaxReplications;
  if (cap > kMaxReplications)
    throw std::invalid_argument("max replications must be at most " +
                                std::to_string(kMaxReplications) + ", got " + std::to_string(cap));
  const uint64_t asked = options.replications > 0 ? options.replications : points[0].replications;
  uint64_t first_batch = std::min(round_up_to_block(std::max<uint64_t>(asked, 2)), cap);
  if (cap < 2)
    throw std::invalid_argument("max replications must be at least 2 for an interval, got " +
                                std::to_string(cap));
  std::vector<ScalarMetric> metrics = options.precision_metrics;
  if (metrics.empty()) metrics.push_back(kCostUsd);

  RunOptions batch = options;
  batch.precision = 0;
  batch.precision_metrics.clear();
  batch.max_replications = 0;
  batch.replications = first_batch;
  RunResults r = run_points_fixed(points, sweep, base, batch);
  double worst = 0;
  for (;;) {
    worst = 0;
    for (std::size_t p = 0; p < r.points; ++p)
      for (ScalarMetric m : metrics) {
        const double w = relative_half_width(r, p, m);
        worst = std::isnan(w) ? std::numeric_limits<double>::infinity() : std::max(worst, w);
      }
    const uint64_t have = r.replications;
    if (worst <= options.precision || have >= cap) break;
    // h ~ 1/sqrt(n): n_needed = n (h / target)^2, with 5% to spare; between one block and 4x.
    const double ratio = std::isfinite(worst) ? worst / options.precision : 4.0;
    const double projected = std::ceil(static_cast<double>(have) * ratio * ratio * 1.05);
    uint64_t next = projected >= static_cast<double>(cap) ? cap
                                                          : round_up_to_block(static_cast<uint64_t>(projected));
    next = std::max<uint64_t>(next, have + kMomentBlock);
    next = std::min<uint64_t>(next, std::max<uint64_t>(have * 4, have + kMomentBlock));
    next = std::min(next, cap);
    const uint64_t available = available_host_memory_bytes();
    const MemoryEstimate need = estimate_run_memory(r.points, next, r.pool_count(),
                                                    r.timeseries_bins, 0, 0, options.writes_file);
    if (need.total_bytes() > available)
      throw std::invalid_argument(
          "reaching the precision " + format_number(options.precision) + " needs about " +
          std::to_string(next) + " replications per point (worst relative half-width now " +
          format_number(worst) + " at " + std::to_string(have) + "), whose rows need " +
          need.describe() + ", more than the " + format_bytes(available) +
          " available; ask for less precision or lower --max-replications");
    batch.replications = next - have;
    batch.first_replication = options.first_replication + have;
    const RunResults more = run_points_fixed(points, sweep, base, batch);
    r = concat_results({&r, &more}, ConcatAxis::replications);
  }
  std::string names;
  for (ScalarMetric m : metrics)
    names += std::string(names.empty() ? "" : ", ") + kScalarMetricInfo[m].name;
  const bool reached = worst <= options.precision;
  r.stopping_rule = "relative half-width of the 95% interval of the mean <= " +
                    format_number(options.precision) + " for " + names + ": " +
                    (reached ? "reached" : "NOT reached (the cap)") + " at " +
                    std::to_string(r.replications) + " replications (worst " +
                    format_number(worst) + ")";
  return r;
}

}  // namespace gpucap
