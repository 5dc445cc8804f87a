// gpucap: running until the estimates are precise enough (a sequential stopping rule).
//
//   gpucap::RunOptions options;
//   options.precision = 0.01;                          // 1% of the mean
//   options.precision_metrics = {gpucap::kCostUsd};    // default: cost
//   options.max_replications = 100000;
//   gpucap::RunResults r = gpucap::run_points(points, {}, base, options);
//
// After a first batch (options.replications, or the scenario's), the rule checks, for each
// listed metric at every point, the half-width h of the Student-t 95% interval of the mean
// against precision x |mean|; when one is wider it projects the replications needed from
// h ~ 1 / sqrt(n) and runs the difference (at least one block, at most 4 times what it has),
// then checks again. Every batch boundary is a multiple of kMomentBlock (256) replications, so
// the rule stops at a block boundary, and the results are the same bits as a fixed run with
// the final number of replications (the rows are the same replications, and the summaries are
// computed once, from all of them). A metric whose mean and spread are both 0 is precise; one
// that is undefined in every replication (NaN) is never precise and runs to the cap.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/run.hpp"

namespace gpucap {

/// The cap when options.max_replications is 0.
inline constexpr uint64_t kDefaultMaxReplications = 1000000;

/// The relative half-width of the 95% interval of metric m's mean at `point` of `r` (0 when the
/// mean and the spread are 0; infinity when the mean is 0 and the spread is not; NaN when fewer
/// than 2 replications define it). Computed from the moments only (no sort).
double relative_half_width(const RunResults& r, std::size_t point, ScalarMetric m);

/// run_points with options.precision > 0 (see above). Throws std::invalid_argument for a
/// precision outside (0, 1], a cap below the first batch or above kMaxReplications, and when the
/// rows the projection needs would not fit in memory.
RunResults run_to_precision(const std::vector<Scenario>& points,
                            const std::vector<SweepParameter>& sweep, const Scenario& base,
                            const RunOptions& options);

}  // namespace gpucap
