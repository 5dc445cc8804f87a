// gpucap: selecting the best of several systems with a statistical guarantee: the fully
// sequential indifference-zone procedure of Kim & Nelson (2001), "A fully sequential procedure
// for indifference-zone selection in simulation", ACM TOMACS 11(3):251-273 (procedure KN).
//
//   gpucap::SelectionOptions o;
//   o.delta = 100;  // USD: differences smaller than this do not matter
//   o.alpha = 0.05;
//   gpucap::SelectionResult s = gpucap::select_best(k, sampler, o);
//   // s.best is the best point with probability >= 1 - alpha whenever it is at least delta
//   // better than every other point.
//
// The procedure is pure arithmetic over values that a sampler supplies, point by point and
// replication by replication; select_best_points (below) samples sweep points with gpucap's
// engine. Replication r of every point must use the same random numbers (common random
// numbers): KN's variances are those of the paired differences.
//
// The procedure (maximizing y; minimizing uses y = -x):
//   stage 0: n0 replications of every point; S2_il, the sample variance of y_i - y_l;
//            eta = ((2 alpha / (k - 1))^(-2 / (n0 - 1)) - 1) / 2, h2 = 2 eta (n0 - 1);
//   screening at r (r = n0, n0 + 1, ...): with I the survivors before the step, point i in I is
//            eliminated when mean_i(r) < mean_l(r) - W_il(r) for some l in I, l != i, where
//            W_il(r) = max(0, delta / (2 r) (h2 S2_il / delta^2 - r));
//   stop when one point survives; otherwise one more replication of every survivor.
// W_il is 0 from r >= h2 S2_il / delta^2 on, so the procedure ends by
// max(n0, ceil(max h2 S2_il / delta^2)) replications unless survivors tie exactly.
//
// Simulation runs in batches (whole runs of several replications of every survivor, for
// speed), but the screening is applied at every r in order, so the outcome and the counts of
// replications used do not depend on the batch sizes. Values simulated past a point's
// elimination (the rest of its batch) are counted apart (`simulated`), never used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"

namespace gpucap {

/// Most points one selection may have (the procedure keeps a k x k table of variances).
inline constexpr std::size_t kMaxSelectionPoints = 2000;
/// The replication cap when none is given: beyond it the procedure stops without a guarantee.
inline constexpr uint64_t kDefaultSelectionCap = 10000;

/// What the procedure needs to know.
struct SelectionOptions {
  double delta = 0;       ///< indifference zone, in the objective's unit; > 0
  double alpha = 0.05;    ///< 1 - alpha: the probability of correct selection; 0 < alpha < 1 - 1/k
  uint64_t initial = 20;  ///< n0, stage 0's replications; >= 2
  uint64_t max_replications = kDefaultSelectionCap;  ///< per point; >= initial
  bool maximize = false;                             ///< false: the best has the smallest mean
  /// Batches after stage 0: the first has batch_first replications of every survivor, each
  /// next one twice as many, up to batch_max (and never past the cap or the replication where
  /// the procedure must end). 0: batch_first = max(1, initial / 2). Changes speed, not results.
  uint64_t batch_first = 0;
  uint64_t batch_max = 1024;
};

/// Values of replications [first, first + count) of each of `points`:
/// out[j * count + t] is point points[j]'s value at replication first + t. Replication r of
/// every point must use the same random numbers, and the values must depend on (point,
/// replication) alone (not on the batch).
using SelectionSampler = std::function<std::vector<double>(const std::vector<std::size_t>& points,
                                                           uint64_t first, uint64_t count)>;

/// Where a point ended.
enum class SelectionStatus {
  best,        ///< the one selected
  eliminated,  ///< screened out at replication `replications` by point `eliminated_by`
  tied,        ///< identical to the best in every replication (`eliminated_by` = the best)
  at_cap,      ///< still in the race at max_replications (the best is the best mean there)
};

/// "best", "eliminated", "tied", "at_cap".
const char* selection_status_name(SelectionStatus status);

/// One point's outcome. The statistics are of the objective over its `replications` used
/// values, in the objective's unit.
struct SelectionPoint {
  SelectionStatus status = SelectionStatus::at_cap;
  uint64_t replications = 0;      ///< used by the procedure (r at its elimination, or at the end)
  uint64_t simulated = 0;         ///< simulated (>= replications: a batch runs past an elimination)
  std::size_t eliminated_by = 0;  ///< the point that screened it out (eliminated, tied)
  double mean = 0, std = 0;       ///< std: sample standard deviation (NaN below 2 values)
  double ci95_low = 0, ci95_high = 0;  ///< Student t 95% interval of the mean
};

/// The outcome of a selection.
struct SelectionResult {
  std::size_t best = 0;
  /// The procedure ended by its own rule (one survivor, or survivors identical in every
  /// replication): P(correct selection) >= 1 - alpha within the indifference zone. False when
  /// it stopped at max_replications with several survivors.
  bool guaranteed = false;
  uint64_t replications = 0;  ///< the last r (the best's replications)
  uint64_t used = 0;          ///< replications used by all points together
  uint64_t simulated = 0;     ///< replications simulated by all points together
  double eta = 0, h2 = 0;     ///< the procedure's constants
  /// The replication by which it ends at the latest, ties aside: max(n0, ceil(max h2 S2/delta^2)).
  uint64_t bound = 0;
  std::vector<SelectionPoint> points;
  /// select_best_points: the backends that ran its batches, by label, in the order first used
  /// ("cpu-openmp", or "cpu-openmp + cuda" when `auto` sent small and large batches apart).
  std::string backend;
};

/// Point i's status in words, as tables print it: "best", "eliminated at replication 20 by
/// point 3", "tied with point 0 (identical in all 20 replications)", "in the race at the cap".
std::string selection_status_text(const SelectionResult& result, std::size_t i);

/// Checks `options` for `k` points; throws std::invalid_argument naming the option and what is
/// valid (delta > 0 and finite; 0 < alpha < 1 - 1/k; initial >= 2; max_replications >= initial
/// and <= kMaxReplications; 2 <= k <= kMaxSelectionPoints).
void check_selection_options(std::size_t k, const SelectionOptions& options);

/// Runs procedure KN over `k` points with values from `sample`. Throws std::invalid_argument for
/// bad options and std::domain_error when a value is not finite (the objective must be defined
/// in every replication); whatever `sample` throws passes through.
SelectionResult select_best(std::size_t k, const SelectionSampler& sample,
                            const SelectionOptions& options);

/// KN over sweep points run by gpucap's engine: the objective is scalar metric `objective` of
/// each replication. `run` gives the backend, threads, seed and monitor (its replications and
/// first_replication are ignored); every batch is one run_points call over the survivors, so
/// replication r of every point draws the same random numbers. A metric undefined in some
/// replication (NaN, e.g. a wait where no job started) is an error naming the point.
SelectionResult select_best_points(const std::vector<Scenario>& points, const Scenario& base,
                                   ScalarMetric objective, const SelectionOptions& options,
                                   const RunOptions& run);

}  // namespace gpucap
