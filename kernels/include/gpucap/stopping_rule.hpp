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
// that no replication of a point defines (NaN in every row) could never be, and is refused
// after the first batch (std::invalid_argument naming it).
//
// StoppingRule is the decision alone: it runs nothing. run_points (kernels/run.cpp) runs the
// batches and asks it, after each, how many replications to have next:
//
//   gpucap::StoppingRule rule(0.01, {gpucap::kCostUsd}, 100000, 0);
//   gpucap::RunResults r = /* rule.first_batch(asked) replications */;
//   while (const uint64_t next = rule.next_total(r, available_bytes, false))
//     /* run replications [r.replications, next) and append their rows to r */;
//   r.stopping_rule = rule.outcome(r);
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/results.hpp"

namespace gpucap {

/// The cap when options.max_replications is 0.
inline constexpr uint64_t kDefaultMaxReplications = 1000000;

/// The relative half-width of the 95% interval of metric m's mean at `point` of `r` (0 when the
/// mean and the spread are 0; infinity when the mean is 0 and the spread is not; NaN when fewer
/// than 2 replications define it). Computed from the moments only (no sort).
double relative_half_width(const RunResults& r, std::size_t point, ScalarMetric m);

/// The stopping rule's decisions for one run (see above).
class StoppingRule {
 public:
  /// `precision`: the relative half-width wanted; `metrics`: those that must reach it (empty:
  /// cost); `max_replications`: the cap (0: kDefaultMaxReplications); `first_replication`: the
  /// run's first. Throws std::invalid_argument for a precision outside (0, 1], a first
  /// replication off a block boundary, and a cap above kMaxReplications or below 2.
  StoppingRule(double precision, std::vector<ScalarMetric> metrics, uint64_t max_replications,
               uint64_t first_replication);

  /// The first batch when `asked` replications were asked for: rounded up to a whole block
  /// (at least 2 replications), at most the cap.
  uint64_t first_batch(uint64_t asked) const;

  /// Given every row run so far (r.replications per point, from the run's first), 0 when the
  /// rule stops (every metric precise at every point, or the cap reached), else how many
  /// replications per point to have after the next batch. Throws std::invalid_argument when a
  /// metric is undefined in every replication of a point, or when the rows of that many would
  /// not fit in `available_bytes` (with the file's image when
  /// `writes_file`).
  uint64_t next_total(const RunResults& r, uint64_t available_bytes, bool writes_file);

  /// The outcome after the last next_total, as RunResults::stopping_rule states it.
  std::string outcome(const RunResults& r) const;

 private:
  double precision_;
  std::vector<ScalarMetric> metrics_;
  uint64_t cap_;
  double worst_ = 0;  ///< the widest relative half-width at the last next_total
};

}  // namespace gpucap
