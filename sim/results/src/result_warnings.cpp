#include "gpucap/result_warnings.hpp"

#include <cmath>
#include <cstring>

#include "gpucap/metrics.hpp"

namespace gpucap {

bool replications_identical(const RunResults& r, std::size_t point) {
  if (r.replications < 2 || point >= r.points) return false;
  const std::size_t rows = r.rows_per_point();
  if (rows >= 2 && rows == r.replications) {
    const double* first = r.scalars.data() + point * rows * kScalarMetricCount;
    for (std::size_t k = 1; k < rows; ++k)  // bit for bit: NaN equals NaN, 0 differs from -0
      if (std::memcmp(first, first + k * kScalarMetricCount, sizeof(double) * kScalarMetricCount))
        return false;
    return true;
  }
  for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
    const MetricSummary& s = r.summary_of(point, static_cast<ScalarMetric>(m));
    if (s.n >= 2 && !(s.std <= 1e-12 * std::fabs(s.mean))) return false;
  }
  return true;
}

std::vector<std::string> result_warnings(const RunResults& r) {
  std::vector<std::size_t> identical;
  for (std::size_t p = 0; p < r.points; ++p)
    if (replications_identical(r, p)) identical.push_back(p);
  std::vector<std::string> out;
  if (identical.empty()) return out;
  std::string which = r.points == 1 ? "all " + std::to_string(r.replications) + " replications"
                                    : "at " + std::to_string(identical.size()) + " of " +
                                          std::to_string(r.points) + " points, all replications";
  out.push_back(which +
                " gave the same values: no random draw of the scenario changed them (a trace "
                "replayed as it is, fixed times), so the intervals have zero width and say "
                "nothing about other futures. To sample them, resample the trace "
                "(workloads[].arrivals.resample: a block bootstrap) or draw times from "
                "distributions; 'gpucap explain workloads.arrivals.resample' says how");
  return out;
}

}  // namespace gpucap
