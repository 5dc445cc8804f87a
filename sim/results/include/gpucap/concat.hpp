// gpucap: joining results of the same scenario and seed, along sweep points or replications.
//
// Replication r of every point draws from the random streams keyed by (seed, r), so results
// that share a scenario and a seed are slices of one larger run: joined, they are the same
// bits (rows and summaries) as that run.
//
//   RunResults all = concat_results({first_half, second_half}, ConcatAxis::replications);
#pragma once
#include <vector>

#include "gpucap/results.hpp"

namespace gpucap {

/// Which way concat_results joins.
enum class ConcatAxis {
  /// Sweeps with the same replications [first, first + R) and the same parameter paths (in any
  /// order; the first part's order is kept): the points one after the other. A point whose
  /// values are already there is dropped when its rows are the same bits, refused otherwise.
  points,
  /// Runs of the same points (parameters and values), with consecutive replication ranges:
  /// sorted by first_replication, each must start where the one before ends.
  replications,
};

/// The parts joined along `axis`, summaries recomputed (summarize_all) as one run of the whole
/// would have them. Every part must share the scenario (source text and overrides), the seed,
/// the pool names and the time series' step and bins; along points also the replications,
/// first_replication and parameter paths. The backend and device are the parts' own when they
/// all agree, else "mixed"; wall times add up; data files are united. Throws
/// std::invalid_argument naming the part and what differs.
RunResults concat_results(const std::vector<const RunResults*>& parts, ConcatAxis axis);

}  // namespace gpucap
